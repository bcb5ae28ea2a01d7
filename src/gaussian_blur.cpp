// cv::cuda::createGaussianBlur / cv::cuda::GaussianBlur: argument checks, taps, plan, launch.
// Every check runs before the first CUDA call, so bad input is reported the same with or
// without a GPU.
#include "precomp.hpp"
#include <mutex>
#include <cmath>
#include "gaussian_arguments.hpp"
#include "gaussian_taps.hpp"
#include "gaussian_paths.hpp"
#include "gaussian_call.hpp"
#include "gaussian_filter_options.hpp"
#include "device_check.hpp"

namespace cv { namespace cuda {
namespace {

using namespace cv::cuda::gaussian;

void checkSrcType(const ArgumentNames& n, int srcType)
{
    const int depth = CV_MAT_DEPTH(srcType), cn = CV_MAT_CN(srcType);
    if (!isGaussianDepth(depth) || cn < 1 || cn > 4)
        CV_Error_(Error::StsUnsupportedFormat,
                  ("%s: %s is %s; allowed: depth CV_8U, CV_16U, CV_16S, CV_32F or CV_64F with 1 to 4 channels",
                   n.function.c_str(), n.srcType.c_str(), typeToString(srcType).c_str()));
}

void checkDstType(const ArgumentNames& n, int srcType, int dstType)
{
    if (dstType < 0)
        return;
    const int floatType = CV_MAKETYPE(CV_32F, CV_MAT_CN(srcType));
    if (dstType != srcType && dstType != floatType)
        CV_Error_(Error::StsUnsupportedFormat,
                  ("%s: %s is %s for %s %s; allowed: -1, %s or %s", n.function.c_str(), n.dstType.c_str(),
                   typeToString(dstType).c_str(), n.srcType.c_str(), typeToString(srcType).c_str(),
                   typeToString(srcType).c_str(), typeToString(floatType).c_str()));
}

void checkSigma(const ArgumentNames& n, const char* name, double sigma)
{
    if (!std::isfinite(sigma))
        CV_Error_(Error::StsBadArg, ("%s: %s is %g; allowed: a finite number", n.function.c_str(), name, sigma));
}

void checkKsize(const ArgumentNames& n, const char* name, int k, double sigma, const char* sigmaName, int depth)
{
    // A zero size is derived from sigma (cv::cuda::gaussianKernelSize): bound it before rounding.
    const double extent = derivedKernelExtent(sigma, depth);
    if (k == 0 && sigma > 0 && !(extent <= kMaxKernelSize))
        CV_Error_(Error::StsOutOfRange,
                  ("%s: %s is %g, which makes %s %.0f; allowed: %s up to %g (%s at most %d)", n.function.c_str(),
                   sigmaName, sigma, name, extent, sigmaName, largestDerivingSigma(depth), name, kMaxKernelSize));
    if (k < 0 || (k > 0 && k % 2 == 0) || k > kMaxKernelSize)
        CV_Error_(Error::StsBadSize,
                  ("%s: %s is %d; allowed: 0 (derived from %s) or an odd number from 1 to %d",
                   n.function.c_str(), name, k, sigmaName, kMaxKernelSize));
    if (k == 0 && !(sigma > 0))
        CV_Error_(Error::StsBadArg,
                  ("%s: %s is 0 and %s is %g; a zero kernel size needs %s > 0",
                   n.function.c_str(), name, sigmaName, sigma, sigmaName));
}

// Checks the value as the caller passed it (BORDER_ISOLATED allowed on top of a mode).
void checkBorder(const ArgumentNames& n, const std::string& name, int passed)
{
    const int mode = passed < 0 ? passed : (passed & ~BORDER_ISOLATED);
    if (mode != BORDER_CONSTANT && mode != BORDER_REPLICATE && mode != BORDER_REFLECT &&
        mode != BORDER_WRAP && mode != BORDER_REFLECT_101)
        CV_Error_(Error::StsBadFlag,
                  ("%s: %s is %d; allowed: BORDER_CONSTANT (0), BORDER_REPLICATE (1), BORDER_REFLECT (2), "
                   "BORDER_WRAP (3), BORDER_REFLECT_101 (4), optionally | BORDER_ISOLATED (16)",
                   n.function.c_str(), name.c_str(), passed));
}

// Every argument checked (before any CUDA call) under createGaussianBlur's names, then the filter's
// taps as CPU cv::GaussianBlur builds them.
FilterTaps checkedFilterTaps(int srcType, int dstType, Size ksize, double sigmaX, double sigmaY,
                             int rowBorderMode, int columnBorderMode)
{
    checkArguments(srcType, dstType, ksize, sigmaX, sigmaY, rowBorderMode, columnBorderMode, createGaussianBlurNames());
    return filterTaps(srcType, ksize, sigmaX, sigmaY);
}

class GaussianBlurImpl CV_FINAL : public Filter
{
public:
    GaussianBlurImpl(int srcType, int dstType, Size ksize, double sigmaX, double sigmaY,
                     int rowBorderMode, int columnBorderMode, const GaussianPaths::Options& options)
        : filterTaps_(checkedFilterTaps(srcType, dstType, ksize, sigmaX, sigmaY, rowBorderMode, columnBorderMode)),
          options_(options),
          paths_(filterTaps_)
    {
        shape_ = filterShape(filterTaps_, srcType, dstType, rowBorderMode, columnBorderMode);
    }

    void apply(InputArray _src, OutputArray _dst, Stream& stream) CV_OVERRIDE
    {
        if (_src.kind() != _InputArray::CUDA_GPU_MAT)
            CV_Error(Error::StsBadArg, "cv::cuda::GaussianBlur: src must be a cv::cuda::GpuMat (upload it, or use a SyncedMat)");
        GpuMat src = _src.getGpuMat();
        if (src.empty())
            CV_Error(Error::StsBadArg, "cv::cuda::GaussianBlur: src is empty");
        if (src.type() != shape_.srcType)
            CV_Error_(Error::StsUnmatchedFormats,
                      ("cv::cuda::GaussianBlur: src type is %s but the filter was created for srcType %s",
                       typeToString(src.type()).c_str(), typeToString(shape_.srcType).c_str()));
        checkImageFits(src, shape_.srcType, 2 * shape_.ry + 1, "cv::cuda::GaussianBlur");
        if (_dst.kind() == _InputArray::CUDA_GPU_MAT)
            checkNoPartialOverlap(src, _dst.getGpuMatRef(), shape_.dstType, "cv::cuda::GaussianBlur");
        device_.check(src, _dst, stream, "cv::cuda::GaussianBlur");   // first CUDA call: after the argument checks

        const GpuMat srcView = src; // keep the source alive while dst may be (re)allocated
        _dst.create(src.size(), shape_.dstType);
        GpuMat dst = _dst.getGpuMat();

        // The path, from the filter, this image and the device (gaussian_paths.hpp: the first path
        // that accepts).
        const DeviceLimits& limits = deviceLimits();
        PathQuery q;
        const BlurCall call = describeCall(srcView, dst, shape_, limits, q);
        paths_.launch(call, choosePath(q, limits.paths, options_), StreamAccessor::getStream(stream));
    }

private:
    FilterShape shape_;
    FilterTaps filterTaps_;
    GaussianPaths::Options options_;   // the paths' switches, read at creation (or given)
    // Every path's taps stay on the host; a call hands them to its kernels (the single-kernel paths
    // as kernel parameters, the two-pass path copied into its own stream-ordered memory), so the
    // filter holds no device memory, needs no lock, and any call (the first too) can be captured in
    // a CUDA graph.
    GaussianPaths::Prepared paths_;
    detail::DeviceBinding device_;   // the device the filter serves: apply() refuses other devices
};

} // namespace

namespace gaussian {

const ArgumentNames& createGaussianBlurNames()
{
    static const ArgumentNames names{"cv::cuda::createGaussianBlur", "srcType", "dstType", "rowBorderMode", "columnBorderMode"};
    return names;
}

void checkArguments(int srcType, int dstType, Size ksize, double sigmaX, double sigmaY,
                    int rowBorderMode, int columnBorderMode, const ArgumentNames& names)
{
    checkSrcType(names, srcType);
    checkDstType(names, srcType, dstType);
    checkSigma(names, "sigmaX", sigmaX);
    checkSigma(names, "sigmaY", sigmaY);
    const int depth = CV_MAT_DEPTH(srcType);
    checkKsize(names, "ksize.width", ksize.width, sigmaX, "sigmaX", depth);
    // sigmaY <= 0 means "same as sigmaX" (CPU rule), so ksize.height == 0 is judged on that.
    checkKsize(names, "ksize.height", ksize.height, sigmaY > 0 ? sigmaY : sigmaX, sigmaY > 0 ? "sigmaY" : "sigmaX", depth);
    checkBorder(names, names.rowBorder, rowBorderMode);
    // -1 means "same as rowBorderMode", checked above.
    if (columnBorderMode != -1)
        checkBorder(names, names.columnBorder, columnBorderMode);
}

} // namespace gaussian

Ptr<Filter> createGaussianBlur(int srcType, int dstType, Size ksize, double sigmaX, double sigmaY,
                               int rowBorderMode, int columnBorderMode)
{
    return makePtr<GaussianBlurImpl>(srcType, dstType, ksize, sigmaX, sigmaY, rowBorderMode, columnBorderMode,
                                     GaussianPaths::options());
}

Ptr<Filter> gaussian::createGaussianBlurWithOptions(int srcType, int dstType, Size ksize, double sigmaX, double sigmaY,
                                                    int rowBorderMode, int columnBorderMode,
                                                    const GaussianPaths::Options& options)
{
    return makePtr<GaussianBlurImpl>(srcType, dstType, ksize, sigmaX, sigmaY, rowBorderMode, columnBorderMode, options);
}

void GaussianBlur(InputArray src, OutputArray dst, Size ksize, double sigmaX, double sigmaY,
                  int borderType, Stream& stream)
{
    if (src.empty())
        CV_Error(Error::StsBadArg, "cv::cuda::GaussianBlur: src is empty");
    // Reuse the filter (its taps, built on the host) while the arguments and the current device
    // stay the same (a filter serves the device it was created on).
    struct Key
    {
        int type; Size ksize; double sx, sy; int border; int device;
        bool operator==(const Key& o) const
        { return type == o.type && ksize == o.ksize && sx == o.sx && sy == o.sy && border == o.border && device == o.device; }
    };
    static thread_local Key lastKey{-1, Size(), 0, 0, 0, -2};
    static thread_local Ptr<Filter> last;
    const Key key{src.type(), ksize, sigmaX, sigmaY, borderType, detail::currentDeviceOrNone()};
    if (!last || !(key == lastKey))
    {
        // Under this function's names (src type, borderType) before createGaussianBlur checks them
        // again under its own.
        static const gaussian::ArgumentNames names{"cv::cuda::GaussianBlur", "src type", "dstType", "borderType", "borderType"};
        gaussian::checkArguments(key.type, -1, ksize, sigmaX, sigmaY, borderType, borderType, names);
        last = createGaussianBlur(key.type, key.type, ksize, sigmaX, sigmaY, borderType, borderType);
        lastKey = key;
    }
    last->apply(src, dst, stream);
}

}} // namespace cv::cuda
