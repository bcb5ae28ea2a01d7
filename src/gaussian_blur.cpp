// cv::cuda::createGaussianBlur / cv::cuda::GaussianBlur: argument checks, taps, plan, launch.
// Every check runs before the first CUDA call, so bad input is reported the same with or
// without a GPU.
#include "precomp.hpp"
#include <mutex>
#include <cmath>
#include "gaussian_arguments.hpp"
#include "gaussian_taps.hpp"
#include "gaussian_paths.hpp"
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

bool isolatedFlag(int& mode)
{
    const bool isolated = (mode & BORDER_ISOLATED) != 0;
    mode &= ~BORDER_ISOLATED;
    return isolated;
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

// What the path choice needs of the current device, queried once per device (an apply() costs
// one cudaGetDevice for it): the shared facts, and each path unit's own (GaussianPaths::deviceFacts).
struct DeviceLimits
{
    size_t sharedMemOptIn = 0;   // opt-in shared memory per block, which bounds the fused kernels'
                                 // tiles: 64 KiB on sm_75, 99 KiB on sm_86/89, 163 KiB on sm_80, 227 KiB on sm_90
    int multiprocessors = 0;     // SMs, which size persistent grids (132 on the H100/H200 SXM)
    int computeCapability = 0;   // 10 * major + minor: the row of each path's tuning table
    GaussianPaths::DeviceFacts paths;
};

const DeviceLimits& deviceLimits()
{
    int device = 0;
    CUDAIMAGE_CHECK(cudaGetDevice(&device));
    constexpr int kDevices = 64;
    static std::once_flag once[kDevices];
    static DeviceLimits limits[kDevices];
    if (device < 0 || device >= kDevices)
        CV_Error_(Error::StsOutOfRange, ("cv::cuda::GaussianBlur: device %d; at most %d devices", device, kDevices));
    std::call_once(once[device], [device] {
        DeviceLimits& d = limits[device];
        int bytes = 0, major = 0, minor = 0;
        CUDAIMAGE_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
        CUDAIMAGE_CHECK(cudaDeviceGetAttribute(&d.multiprocessors, cudaDevAttrMultiProcessorCount, device));
        CUDAIMAGE_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
        CUDAIMAGE_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
        d.sharedMemOptIn = static_cast<size_t>(bytes);
        d.computeCapability = 10 * major + minor;
        d.paths = GaussianPaths::deviceFacts(d.computeCapability);
    });
    return limits[device];
}

// Every argument checked (before any CUDA call) under createGaussianBlur's names, then the filter's
// taps as CPU cv::GaussianBlur builds them.
FilterTaps checkedFilterTaps(int srcType, int dstType, Size ksize, double sigmaX, double sigmaY,
                             int rowBorderMode, int columnBorderMode)
{
    checkArguments(srcType, dstType, ksize, sigmaX, sigmaY, rowBorderMode, columnBorderMode, createGaussianBlurNames());
    const int depth = CV_MAT_DEPTH(srcType);
    const GaussianShape shape = resolveShape(depth, ksize, sigmaX, sigmaY);
    const int bits = fixedPointBits(depth);
    FilterTaps f;
    f.depth = depth;
    f.channels = CV_MAT_CN(srcType);
    f.x = makeTaps(shape.ksize.width, shape.sigmaX, bits);
    f.y = makeTaps(shape.ksize.height, shape.sigmaY, bits);
    return f;
}

// Byte range [first, last) that a matrix view touches.
void byteRange(const GpuMat& m, const uchar*& first, const uchar*& last)
{
    first = m.data;
    last = m.data + (m.rows - 1) * m.step + m.cols * m.elemSize();
}

class GaussianBlurImpl CV_FINAL : public Filter
{
public:
    GaussianBlurImpl(int srcType, int dstType, Size ksize, double sigmaX, double sigmaY,
                     int rowBorderMode, int columnBorderMode)
        : filterTaps_(checkedFilterTaps(srcType, dstType, ksize, sigmaX, sigmaY, rowBorderMode, columnBorderMode)),
          options_(GaussianPaths::options()),
          paths_(filterTaps_)
    {
        srcType_ = srcType;
        dstType_ = dstType < 0 ? srcType : dstType;   // checked by checkedFilterTaps()
        if (columnBorderMode == -1)
            columnBorderMode = rowBorderMode;
        isolated_ = isolatedFlag(rowBorderMode) | isolatedFlag(columnBorderMode);
        rowBorder_ = rowBorderMode;
        columnBorder_ = columnBorderMode;
        ksize_ = Size(static_cast<int>(filterTaps_.x.real.size()), static_cast<int>(filterTaps_.y.real.size()));
        horizontalTapsFitByte_ = tapsFitByte(filterTaps_.depth, filterTaps_.x.fixed);
        verticalTapsFitByte_ = tapsFitByte(filterTaps_.depth, filterTaps_.y.fixed);
    }

    void apply(InputArray _src, OutputArray _dst, Stream& stream) CV_OVERRIDE
    {
        if (_src.kind() != _InputArray::CUDA_GPU_MAT)
            CV_Error(Error::StsBadArg, "cv::cuda::GaussianBlur: src must be a cv::cuda::GpuMat (upload it, or use a SyncedMat)");
        GpuMat src = _src.getGpuMat();
        if (src.empty())
            CV_Error(Error::StsBadArg, "cv::cuda::GaussianBlur: src is empty");
        if (src.type() != srcType_)
            CV_Error_(Error::StsUnmatchedFormats,
                      ("cv::cuda::GaussianBlur: src type is %s but the filter was created for srcType %s",
                       typeToString(src.type()).c_str(), typeToString(srcType_).c_str()));
        const int64 rowElems = static_cast<int64>(src.cols) * src.channels();
        // The two-pass path's scratch rows (the path any call may take) bound the row too.
        const int64 scratchRowBytes = rowElems * static_cast<int64>(scratchElemSize(CV_MAT_DEPTH(srcType_)));
        if (rowElems > INT_MAX / 2 || scratchRowBytes > INT_MAX)
            CV_Error_(Error::StsOutOfRange, ("cv::cuda::GaussianBlur: src row has %lld elements (%lld bytes of scratch per row); "
                                             "at most %d elements and %d bytes", (long long)rowElems, (long long)scratchRowBytes,
                                             INT_MAX / 2, INT_MAX));
        if (static_cast<int64>(src.rows) + 2 * static_cast<int64>(ksize_.height / 2) > INT_MAX)
            CV_Error_(Error::StsOutOfRange, ("cv::cuda::GaussianBlur: src has %d rows; with ksize.height %d at most %d",
                                             src.rows, ksize_.height, INT_MAX - 2 * (ksize_.height / 2)));

        // In place (same view) is fine; any other overlap would read pixels already written.
        if (_dst.kind() == _InputArray::CUDA_GPU_MAT)
        {
            GpuMat& d = _dst.getGpuMatRef();
            if (!d.empty() && d.size() == src.size() && d.type() == dstType_ &&
                !(d.data == src.data && d.step == src.step))
            {
                const uchar *s0, *s1, *d0, *d1;
                byteRange(src, s0, s1);
                byteRange(d, d0, d1);
                if (s0 < d1 && d0 < s1)
                    CV_Error(Error::StsBadArg,
                             "cv::cuda::GaussianBlur: dst partly overlaps src; use the same matrix (in place) or separate memory");
            }
        }
        device_.check(src, _dst, stream, "cv::cuda::GaussianBlur");   // first CUDA call: after the argument checks

        // CPU rule: a single row/column is not filtered across (except with a constant border
        // on a sub-matrix, where the CPU does filter).
        Point ofs(0, 0);
        Size whole = src.size();
        if (!isolated_)
            src.locateROI(whole, ofs);
        const bool realNeighbours = whole != src.size();
        const bool shrink = isolated_ || !realNeighbours;
        const bool unitY = shrink && columnBorder_ != BORDER_CONSTANT && rowBorder_ != BORDER_CONSTANT && src.rows == 1;
        const bool unitX = shrink && columnBorder_ != BORDER_CONSTANT && rowBorder_ != BORDER_CONSTANT && src.cols == 1;

        const GpuMat srcView = src; // keep the source alive while dst may be (re)allocated
        _dst.create(src.size(), dstType_);
        GpuMat dst = _dst.getGpuMat();

        // The path, from the filter, this image and the device (gaussian_paths.hpp: the first path
        // that accepts). A ROI also reads its parent's pixels: "in place" is any dst inside the
        // source's allocation.
        PathQuery q;
        q.depth = CV_MAT_DEPTH(srcType_);
        q.channels = CV_MAT_CN(srcType_);
        q.rx = ksize_.width / 2;
        q.ry = ksize_.height / 2;
        q.floatOutput = CV_MAT_DEPTH(dstType_) == CV_32F && q.depth != CV_32F;
        q.horizontalTapsFitByte = horizontalTapsFitByte_;
        q.verticalTapsFitByte = verticalTapsFitByte_;
        q.unitRowOrColumn = unitX || unitY;
        q.dstInSrcAllocation = dst.datastart < srcView.dataend && srcView.datastart < dst.dataend;
        const DeviceLimits& limits = deviceLimits();
        q.sharedMemOptIn = limits.sharedMemOptIn;
        q.multiprocessors = limits.multiprocessors;
        q.computeCapability = limits.computeCapability;
        const PathChoice choice = choosePath(q, limits.paths, options_);

        BlurCall call;
        call.depth = q.depth;
        call.channels = q.channels;
        call.floatOutput = q.floatOutput;
        call.srcWhole = srcView.data - ofs.y * srcView.step - ofs.x * srcView.elemSize();
        call.srcStep = srcView.step;
        call.wholeWidth = whole.width;
        call.wholeHeight = whole.height;
        call.roiX = ofs.x;
        call.roiY = ofs.y;
        call.width = src.cols;
        call.height = src.rows;
        call.dst = dst.data;
        call.dstStep = dst.step;
        const size_t vec4 = 4 * dst.elemSize1();
        call.dstAligned4 = reinterpret_cast<uintptr_t>(dst.data) % vec4 == 0 && dst.step % vec4 == 0;
        call.dstAligned16 = reinterpret_cast<uintptr_t>(dst.data) % 16 == 0 && dst.step % 16 == 0;
        const size_t srcVec4 = 4 * srcView.elemSize1();
        call.srcAligned4 = reinterpret_cast<uintptr_t>(call.srcWhole) % srcVec4 == 0 && srcView.step % srcVec4 == 0 &&
                           (static_cast<size_t>(ofs.x) * src.channels()) % 4 == 0;
        call.rx = unitX ? 0 : q.rx;
        call.ry = unitY ? 0 : q.ry;
        call.unitX = unitX;
        call.unitY = unitY;
        call.rowBorder = rowBorder_;
        call.columnBorder = columnBorder_;
        paths_.launch(call, choice, StreamAccessor::getStream(stream));
    }

private:
    int srcType_ = 0, dstType_ = 0;
    Size ksize_;
    int rowBorder_ = BORDER_REPLICATE, columnBorder_ = BORDER_REPLICATE;
    bool isolated_ = false;
    bool horizontalTapsFitByte_ = true, verticalTapsFitByte_ = true;
    FilterTaps filterTaps_;
    GaussianPaths::Options options_;   // the paths' switches, read at creation
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
    return makePtr<GaussianBlurImpl>(srcType, dstType, ksize, sigmaX, sigmaY, rowBorderMode, columnBorderMode);
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
