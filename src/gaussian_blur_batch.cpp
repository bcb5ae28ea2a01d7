// cv::cuda::createGaussianBlurBatch / cv::cuda::GaussianBlurBatch: many images in a constant number
// of launches. Each image is described exactly as a single apply() describes it (gaussian_call.hpp)
// and takes the path the list of paths gives it among the batched ones (gaussian_paths.hpp); the
// images of one path and kernel instance share one launch, their calls and taps read by the kernel
// from device memory (BatchItem). Every check runs before the first CUDA call.
#include "precomp.hpp"
#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <tuple>
#include "opencv2/cudaimage/gaussian_blur_batch.hpp"
#include "cuda_check.hpp"
#include "device_check.hpp"
#include "batch_kernels.hpp"
#include "batch_plan.hpp"
#include "gaussian_arguments.hpp"
#include "gaussian_call.hpp"
#include "gaussian_filter_options.hpp"
#include "gaussian_paths.hpp"
#include "softdouble_exp.hpp"
#include "upload_staging.hpp"
#include "cuda/stream_scratch.hpp"

namespace cv { namespace cuda {
namespace {

using namespace cv::cuda::gaussian;

/** Device arrays of per-image sigmas (applyStackedDeviceSigma), read by the tap maker. */
struct DeviceSigmas
{
    const void* x = nullptr;
    const void* y = nullptr;
    int xType = CV_64F, yType = CV_64F;
};

class GaussianBatchFilterImpl CV_FINAL : public GaussianBatchFilter
{
public:
    GaussianBatchFilterImpl(int srcType, int dstType, Size ksize, double sigmaX, double sigmaY, int rowBorderMode,
                            int columnBorderMode, const GaussianPaths::Options& options)
        : kernels_(kernelFilter(srcType, dstType, ksize, sigmaX, sigmaY, rowBorderMode, columnBorderMode, deviceTaps_))
    {
        static const ArgumentNames names{"cv::cuda::createGaussianBlurBatch", "srcType", "dstType", "rowBorderMode", "columnBorderMode"};
        checkArguments(srcType, dstType, ksize, sigmaX, sigmaY, rowBorderMode, columnBorderMode, names);
        srcType_ = srcType;
        dstType_ = dstType < 0 ? srcType : dstType;
        rowBorderMode_ = rowBorderMode;
        columnBorderMode_ = columnBorderMode;
        options_ = options;
    }

    int srcType() const CV_OVERRIDE { return srcType_; }
    int dstType() const CV_OVERRIDE { return dstType_; }

    void apply(const std::vector<GpuMat>& src, std::vector<GpuMat>& dst, const std::vector<double>& sigmaX,
               const std::vector<double>& sigmaY, const std::vector<Size>& ksize, Stream& stream) CV_OVERRIDE
    {
        static const char* const f = "cv::cuda::GaussianBatchFilter::apply";
        if (src.empty())
            CV_Error_(Error::StsBadArg, ("%s: src has no images", f));
        if (!dst.empty() && dst.size() != src.size())
            CV_Error_(Error::StsUnmatchedSizes, ("%s: dst has %zu images for %zu in src; allowed: empty or src.size()",
                                                 f, dst.size(), src.size()));
        for (size_t i = 0; i < src.size(); i++)
        {
            if (src[i].empty())
                CV_Error_(Error::StsBadArg, ("%s: src[%zu] is empty", f, i));
            if (src[i].type() != srcType_)
                CV_Error_(Error::StsUnmatchedFormats, ("%s: src[%zu] type is %s but the filter was created for srcType %s",
                                                       f, i, typeToString(src[i].type()).c_str(), typeToString(srcType_).c_str()));
        }
        std::lock_guard<std::mutex> lock(mutex_);
        std::vector<const KernelEntry*> kernels = kernels_.resolve(src.size(), sigmaX, sigmaY, ksize, f);
        for (size_t i = 0; i < src.size(); i++)
        {
            // The single-image checks, their messages given the image's index.
            try
            {
                checkImageFits(src[i], srcType_, 2 * kernels[i]->shape.ry + 1, f);
                if (!dst.empty())
                    checkNoPartialOverlap(src[i], dst[i], dstType_, f);
            }
            catch (const cv::Exception& e)
            {
                CV_Error_(e.code, ("%s (image %zu)", e.err.c_str(), i));
            }
        }
        checkNoCrossWrites(src, dst, kernels, dstType_, f);
        for (size_t i = 0; i < src.size(); i++)
        {
            GpuMat none;
            device_.check(src[i], dst.empty() ? _OutputArray(none) : _OutputArray(dst[i]), stream, f);   // first CUDA calls
        }

        std::vector<GpuMat> views(src);   // keep every source alive while dst is (re)allocated
        dst.resize(src.size());
        for (size_t i = 0; i < src.size(); i++)
            dst[i].create(src[i].size(), dstType_);
        const DeviceLimits& limits = deviceLimits();
        std::vector<ImageWork> work(src.size());
        for (size_t i = 0; i < src.size(); i++)
        {
            PathQuery q;
            q.batch = true;
            KernelEntry* k = const_cast<KernelEntry*>(kernels[i]);
            work[i].call = describeCall(views[i], dst[i], k->shape, limits, q);
            work[i].kernel = k;
            work[i].choice = choiceFor(k, q);
        }
        run(work, stream);
    }

    void applyStacked(const GpuMat& src, GpuMat& dst, int imageRows, const std::vector<double>& sigmaX,
                      const std::vector<double>& sigmaY, const std::vector<Size>& ksize, Stream& stream) CV_OVERRIDE
    {
        static const char* const f = "cv::cuda::GaussianBatchFilter::applyStacked";
        checkStack(src, imageRows, f);
        checkNoPartialOverlap(src, dst, dstType_, f);
        const int n = src.rows / imageRows;
        std::lock_guard<std::mutex> lock(mutex_);
        std::vector<const KernelEntry*> kernels = kernels_.resolve(static_cast<size_t>(n), sigmaX, sigmaY, ksize, f);
        enqueueStacked(src, dst, imageRows, kernels, stream, f, DeviceSigmas());
    }

    void applyStackedDeviceSigma(const GpuMat& src, GpuMat& dst, int imageRows, const GpuMat& sigmaX, const GpuMat& sigmaY,
                                 Size ksize, Stream& stream) CV_OVERRIDE
    {
        static const char* const f = "cv::cuda::GaussianBatchFilter::applyStackedDeviceSigma";
        checkStack(src, imageRows, f);
        if (imageRows < 2 || src.cols < 2)
            CV_Error_(Error::StsBadSize, ("%s: the images are %d x %d; allowed: at least 2 x 2 (a single row or column "
                                          "takes a path whose taps are built on the host)", f, src.cols, imageRows));
        const int n = src.rows / imageRows;
        auto checkSigmas = [&](const GpuMat& m, const char* name, bool optional) {
            if (m.empty())
            {
                if (optional)
                    return;
                CV_Error_(Error::StsBadArg, ("%s: %s is empty; allowed: a device array of 1 or of a divisor of %d values", f, name, n));
            }
            if (m.type() != CV_32FC1 && m.type() != CV_64FC1)
                CV_Error_(Error::StsUnsupportedFormat, ("%s: %s type is %s; allowed: CV_32FC1 or CV_64FC1", f, name,
                                                        typeToString(m.type()).c_str()));
            if (!m.isContinuous())
                CV_Error_(Error::StsBadArg, ("%s: %s is not continuous; allowed: one row or one column, or a continuous matrix", f, name));
            const size_t count = static_cast<size_t>(m.size().area());
            if (count > static_cast<size_t>(n) || n % static_cast<int>(count) != 0)
                CV_Error_(Error::StsUnmatchedSizes, ("%s: %s has %zu values for %d images; allowed: 1 or a divisor of %d "
                                                     "(each value serves N / count consecutive images)", f, name, count, n, n));
        };
        checkSigmas(sigmaX, "sigmaX", false);
        checkSigmas(sigmaY, "sigmaY", true);
        auto checkSize = [&](int k, const char* name) {
            if (k < 1 || k > kMaxBatchTaps || k % 2 == 0)
                CV_Error_(Error::StsOutOfRange, ("%s: ksize.%s is %d; allowed: odd, 1 to %d (the kernel size is not derived "
                                                 "from sigmas that stay on the device)", f, name, k, kMaxBatchTaps));
        };
        checkSize(ksize.width, "width");
        checkSize(ksize.height, "height");
        if (ksize.width == 1 && ksize.height == 1)
            CV_Error_(Error::StsOutOfRange, ("%s: ksize is 1 x 1 (a copy); allowed: at least 3 in one direction", f));
        if (!deviceTaps_)
            CV_Error_(Error::StsNotImplemented, ("%s: this host's floating-point environment failed the exp self-check "
                                                 "(softdouble_exp.hpp), so taps cannot be built on the device", f));
        checkNoPartialOverlap(src, dst, dstType_, f);
        std::lock_guard<std::mutex> lock(mutex_);
        // One kernel per distinct pair of sigma indices (consecutive images share it).
        const int perX = n / static_cast<int>(sigmaX.size().area());
        const int perY = sigmaY.empty() ? 0 : n / static_cast<int>(sigmaY.size().area());
        const bool fixedPoint = fixedPointBits(CV_MAT_DEPTH(srcType_)) > 0;
        callKernels_.clear();
        callKernels_.reserve(static_cast<size_t>(n));
        std::vector<const KernelEntry*> kernels(static_cast<size_t>(n));
        for (int i = 0; i < n; i++)
        {
            const int ix = i / perX, iy = perY ? i / perY : -1;
            if (i > 0 && callKernels_.back().sigmaIndexX == ix && callKernels_.back().sigmaIndexY == iy)
            {
                kernels[i] = &callKernels_.back();
                continue;
            }
            callKernels_.emplace_back();
            KernelEntry& e = callKernels_.back();
            e.deviceTaps = true;
            e.ksize = ksize;
            e.sigmaIndexX = ix;
            e.sigmaIndexY = iy;
            e.shape = filterShape(ksize, !fixedPoint, !fixedPoint, srcType_, dstType_, rowBorderMode_, columnBorderMode_);
            kernels[i] = &e;
        }
        DeviceSigmas sigmas;
        sigmas.x = sigmaX.data;
        sigmas.xType = CV_MAT_DEPTH(sigmaX.type());
        sigmas.y = sigmaY.empty() ? nullptr : sigmaY.data;
        sigmas.yType = sigmaY.empty() ? CV_64F : CV_MAT_DEPTH(sigmaY.type());
        enqueueStacked(src, dst, imageRows, kernels, stream, f, sigmas);
    }

private:
    static BatchKernels::Filter kernelFilter(int srcType, int dstType, Size ksize, double sigmaX, double sigmaY,
                                             int rowBorderMode, int columnBorderMode, bool deviceTaps)
    {
        BatchKernels::Filter k;
        k.srcType = srcType;
        k.dstType = dstType < 0 ? srcType : dstType;
        k.rowBorder = rowBorderMode;
        k.columnBorder = columnBorderMode;
        k.defaults.ksize = ksize;
        k.defaults.sigmaX = sigmaX;
        k.defaults.sigmaY = sigmaY;
        k.deviceTaps = deviceTaps;
        return k;
    }

    /** The checks both stacked forms share (no CUDA call). */
    void checkStack(const GpuMat& src, int imageRows, const char* f) const
    {
        if (src.empty())
            CV_Error_(Error::StsBadArg, ("%s: src is empty", f));
        if (src.type() != srcType_)
            CV_Error_(Error::StsUnmatchedFormats, ("%s: src type is %s but the filter was created for srcType %s", f,
                                                   typeToString(src.type()).c_str(), typeToString(srcType_).c_str()));
        if (imageRows <= 0 || src.rows % imageRows != 0)
            CV_Error_(Error::StsBadArg, ("%s: imageRows is %d for src of %d rows; allowed: a divisor of src.rows above 0",
                                         f, imageRows, src.rows));
    }

    /** The stacked images of applyStacked and applyStackedDeviceSigma, each with its kernel, to run(). */
    void enqueueStacked(const GpuMat& src, GpuMat& dst, int imageRows, const std::vector<const KernelEntry*>& kernels,
                        Stream& stream, const char* f, const DeviceSigmas& sigmas)
    {
        const int n = src.rows / imageRows;
        // Every image has image 0's size: one check, with the largest kernel.
        int tallest = 0;
        for (int i = 0; i < n; i++)
            tallest = std::max(tallest, 2 * kernels[i]->shape.ry + 1);
        checkImageFits(GpuMat(imageRows, src.cols, src.type(), src.data, src.step), srcType_, tallest, f);
        device_.check(src, dst, stream, f);   // first CUDA call
        if (sigmas.x)
        {
            // Device sigmas: every image must take a batched path (the taps of the others are
            // built on the host). A stacked image is never one row or column here, nor written
            // inside its source (in place reads a copy), so the kernel's choice is the image's.
            const DeviceLimits& limits = deviceLimits();
            PathQuery q;
            q.batch = true;
            q.depth = CV_MAT_DEPTH(srcType_);
            q.channels = CV_MAT_CN(srcType_);
            q.floatOutput = CV_MAT_DEPTH(dstType_) == CV_32F && q.depth != CV_32F;
            setKernel(q, kernels[0]->shape);
            q.sharedMemOptIn = limits.sharedMemOptIn;
            q.multiprocessors = limits.multiprocessors;
            q.computeCapability = limits.computeCapability;
            const PathChoice* c = choiceFor(const_cast<KernelEntry*>(kernels[0]), q);
            if (!GaussianPaths::batched(c->index))
                CV_Error_(Error::StsOutOfRange, ("%s: ksize %d x %d with %d channels takes the %s path, whose taps are built "
                                                 "on the host; device sigmas take the batched paths only (a smaller ksize)",
                                                 f, kernels[0]->ksize.width, kernels[0]->ksize.height, q.channels, c->name));
        }
        const GpuMat keep = src;
        dst.create(src.size(), dstType_);
        // In place: the images read a stream-ordered copy of the source (one copy, and the batch
        // keeps its single-kernel launches; each image in place would take the two-pass path).
        std::unique_ptr<StreamScratch> copy;
        const unsigned char* in = src.data;
        size_t inStep = src.step;
        if (dst.data == src.data)
        {
            const cudaStream_t s = StreamAccessor::getStream(stream);
            const size_t rowBytes = src.cols * src.elemSize();
            copy.reset(new StreamScratch(rowBytes * src.rows, s));
            CUDAIMAGE_CHECK(cudaMemcpy2DAsync(copy->data(), rowBytes, src.data, src.step, rowBytes, src.rows,
                                              cudaMemcpyDeviceToDevice, s));
            in = copy->data();
            inStep = rowBytes;
        }
        std::vector<ImageWork> work = describeStacked(GpuMat(src.rows, src.cols, src.type(), const_cast<unsigned char*>(in), inStep),
                                                      dst, imageRows, kernels, deviceLimits(), kernels_, options_);
        run(work, stream, sigmas);
    }

    /** Refuses a dst[j] that overlaps the rows another image reads (its rows grown by its vertical
     * radius, within its allocation): the images of a batch run at once. O(N log N). */
    static void checkNoCrossWrites(const std::vector<GpuMat>& src, const std::vector<GpuMat>& dst,
                                   const std::vector<const KernelEntry*>& kernels, int dstType, const char* f)
    {
        if (dst.empty())
            return;
        struct Range { const uchar* first; const uchar* last; size_t image; };
        std::vector<Range> reads(src.size());
        for (size_t i = 0; i < src.size(); i++)
        {
            const ptrdiff_t grow = static_cast<ptrdiff_t>(kernels[i]->shape.ry) * static_cast<ptrdiff_t>(src[i].step);
            const uchar* first = src[i].data - std::min<ptrdiff_t>(grow, src[i].data - src[i].datastart);
            const uchar* last = src[i].data + src[i].rows * src[i].step;
            last = std::min(src[i].dataend, last + std::min<ptrdiff_t>(grow, std::max<ptrdiff_t>(0, src[i].dataend - last)));
            reads[i] = Range{first, last, i};
        }
        std::sort(reads.begin(), reads.end(), [](const Range& a, const Range& b) { return a.first < b.first; });
        std::vector<const uchar*> reach(reads.size());   // reach[k]: furthest end among reads[0..k]
        for (size_t k = 0; k < reads.size(); k++)
            reach[k] = k == 0 ? reads[k].last : std::max(reach[k - 1], reads[k].last);
        for (size_t j = 0; j < dst.size(); j++)
        {
            if (dst[j].empty() || dst[j].size() != src[j].size() || dst[j].type() != dstType)
                continue;   // (re)allocated: new memory
            const uchar* d0 = dst[j].data;
            const uchar* d1 = dst[j].data + (dst[j].rows - 1) * dst[j].step + dst[j].cols * dst[j].elemSize();
            size_t k = std::lower_bound(reads.begin(), reads.end(), d1, [](const Range& r, const uchar* p) { return r.first < p; }) - reads.begin();
            // Every read starting before d1 whose end passes d0, backwards until none can.
            while (k > 0 && reach[k - 1] > d0)
            {
                const Range& r = reads[--k];
                if (r.last > d0 && r.image != j)
                    CV_Error_(Error::StsBadArg, ("%s: dst[%zu] overlaps the pixels src[%zu] reads; a batch's images are "
                                                 "blurred at once: give dst separate memory", f, j, r.image));
            }
        }
    }

    const PathChoice* choiceFor(KernelEntry* k, const PathQuery& q)
    {
        return kernels_.choiceFor(k, q, deviceLimits().paths, options_);
    }

    /** Enqueues the batch: descriptors uploaded once, the device's taps built by one launch per
     * path that has such kernels, one launch per (path, instance). */
    void run(std::vector<ImageWork>& images, Stream& stream, const DeviceSigmas& sigmas = DeviceSigmas())
    {
        const cudaStream_t s = StreamAccessor::getStream(stream);
        const DeviceLimits& limits = deviceLimits();
        const size_t n = images.size();
        const int depth = CV_MAT_DEPTH(srcType_), channels = CV_MAT_CN(srcType_);

        attachTaps(images, srcType_);
        const BatchPlan plan = planBatch(images, depth, channels, ++calls_);
        if (!plan.groups.empty())
        {
            StreamScratch device(plan.total, s);
            unsigned char* host = staging_.acquire(plan.uploaded);
            EncodedBatch e = encodeBatch(plan, images, depth, channels, limits.multiprocessors, device.data(), host);
            staging_.upload(device.data(), plan.uploaded, s);
            for (PathJobs& list : e.tapJobs)
            {
                list.jobs.sigmaX = sigmas.x;
                list.jobs.sigmaY = sigmas.y;
                list.jobs.sigmaXType = sigmas.xType;
                list.jobs.sigmaYType = sigmas.yType;
                list.jobs.exp = softdoubleExpConstants();
                GaussianPaths::makeBatchTaps(list.path, list.jobs, s);
            }
            for (size_t k = 0; k < e.launches.size(); k++)
                GaussianPaths::launchBatch(plan.groups[k].path, e.launches[k], s);
        }

        // Images without a batched path (in place, one row or column, radius beyond the single kernels).
        for (size_t i = 0; i < n; i++)
            if (!images[i].batched)
                GaussianPaths::launchOne(images[i].choice->index, images[i].kernel->host->taps, images[i].call, *images[i].choice, s);
    }


    bool deviceTaps_ = softdoubleExpInHardware();   //!< the exp's constants passed the host's self-check
    std::vector<KernelEntry> callKernels_;            //!< the current call's kernels of device sigmas

    int srcType_ = 0, dstType_ = 0;
    int rowBorderMode_ = BORDER_REPLICATE, columnBorderMode_ = -1;
    GaussianPaths::Options options_;
    std::mutex mutex_;
    BatchKernels kernels_;
    uint64_t calls_ = 0;   //!< calls run (planBatch marks what each placed)
    UploadStaging staging_;
    detail::DeviceBinding device_;
};

} // namespace

Ptr<GaussianBatchFilter> createGaussianBlurBatch(int srcType, int dstType, Size ksize, double sigmaX, double sigmaY,
                                                int rowBorderMode, int columnBorderMode)
{
    return makePtr<GaussianBatchFilterImpl>(srcType, dstType, ksize, sigmaX, sigmaY, rowBorderMode, columnBorderMode,
                                            GaussianPaths::options());
}

Ptr<GaussianBatchFilter> gaussian::createGaussianBlurBatchWithOptions(int srcType, int dstType, Size ksize, double sigmaX,
                                                                      double sigmaY, int rowBorderMode, int columnBorderMode,
                                                                      const GaussianPaths::Options& options)
{
    return makePtr<GaussianBatchFilterImpl>(srcType, dstType, ksize, sigmaX, sigmaY, rowBorderMode, columnBorderMode, options);
}

void GaussianBlurBatch(const std::vector<GpuMat>& src, std::vector<GpuMat>& dst, const std::vector<double>& sigmaX,
                       const std::vector<double>& sigmaY, const std::vector<Size>& ksize, int borderType, Stream& stream)
{
    static const char* const f = "cv::cuda::GaussianBlurBatch";
    if (src.empty())
        CV_Error_(Error::StsBadArg, ("%s: src has no images", f));
    if (sigmaX.empty())
        CV_Error_(Error::StsBadArg, ("%s: sigmaX has no values; allowed: one (every image) or one per image", f));
    // The filter is kept per thread while the type, the border and the device stay the same.
    static thread_local std::tuple<int, int, int> lastKey{-1, 0, -2};
    static thread_local Ptr<GaussianBatchFilter> last;
    const std::tuple<int, int, int> key{src[0].type(), borderType, detail::currentDeviceOrNone()};
    if (!last || key != lastKey)
    {
        static const ArgumentNames names{f, "src[0] type", "dstType", "borderType", "borderType"};
        checkArguments(src[0].type(), -1, Size(), 1.0, 0.0, borderType, borderType, names);
        last = createGaussianBlurBatch(src[0].type(), -1, Size(), 1.0, 0.0, borderType, borderType);
        lastKey = key;
    }
    last->apply(src, dst, sigmaX, sigmaY, ksize, stream);
}

}} // namespace cv::cuda
