// cv::cuda::createGaussianBlurBatch / cv::cuda::GaussianBlurBatch: many images in a constant number
// of launches. Each image is described exactly as a single apply() describes it (gaussian_call.hpp)
// and takes the path the list of paths gives it among the batched ones (gaussian_paths.hpp); the
// images of one path and kernel instance share one launch, their calls and taps read by the kernel
// from device memory (BatchItem). Every check runs before the first CUDA call.
#include "precomp.hpp"
#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include "opencv2/cudaimage/gaussian_blur_batch.hpp"
#include "cuda_check.hpp"
#include "device_check.hpp"
#include "batch_kernels.hpp"
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

constexpr size_t kAlign = 16;
size_t alignUp(size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

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
    {
        static const ArgumentNames names{"cv::cuda::createGaussianBlurBatch", "srcType", "dstType", "rowBorderMode", "columnBorderMode"};
        checkArguments(srcType, dstType, ksize, sigmaX, sigmaY, rowBorderMode, columnBorderMode, names);
        srcType_ = srcType;
        dstType_ = dstType < 0 ? srcType : dstType;
        rowBorderMode_ = rowBorderMode;
        columnBorderMode_ = columnBorderMode;
        options_ = options;
        BatchKernels::Filter k;
        k.srcType = srcType_;
        k.dstType = dstType_;
        k.rowBorder = rowBorderMode;
        k.columnBorder = columnBorderMode;
        k.defaults.ksize = ksize;
        k.defaults.sigmaX = sigmaX;
        k.defaults.sigmaY = sigmaY;
        k.deviceTaps = deviceTaps_;
        kernels_ = BatchKernels(k);
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
        // Image 0 described as a single image (a whole matrix over its rows: no parent to read
        // around it); image i is image 0 moved by i images, with its own kernel's radii.
        const DeviceLimits& limits = deviceLimits();
        PathQuery q0;
        q0.batch = true;
        const size_t inImage = static_cast<size_t>(imageRows) * inStep, outImage = static_cast<size_t>(imageRows) * dst.step;
        const BlurCall first = describeCall(GpuMat(imageRows, src.cols, src.type(), const_cast<unsigned char*>(in), inStep),
                                            GpuMat(imageRows, dst.cols, dst.type(), dst.data, dst.step),
                                            kernels[0]->shape, limits, q0);
        std::vector<ImageWork> work(n);
        for (int i = 0; i < n; i++)
        {
            KernelEntry* k = const_cast<KernelEntry*>(kernels[i]);
            ImageWork& w = work[i];
            w.call = movedCall(first, in + i * inImage, dst.data + i * outImage);
            w.call.rx = first.unitX ? 0 : k->shape.rx;
            w.call.ry = first.unitY ? 0 : k->shape.ry;
            w.kernel = k;
            PathQuery q = q0;
            setKernel(q, k->shape);
            w.choice = choiceFor(k, q);
        }
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

    /** One image of a call: its description, kernel and path, and where its batch taps are. */
    struct ImageWork
    {
        BlurCall call;
        KernelEntry* kernel = nullptr;
        const PathChoice* choice = nullptr;
        PathTaps* taps = nullptr;   //!< host-built batch taps
        bool batched = false;       //!< on its path's batched kernel (taps from the host or the device)
    };

    /** Kernel k's path for an image of query q. The choice depends on the kernel and on whether
     * the image is one row or column or written inside its source's allocation, not on its size:
     * it is made once per kernel and such class of image, and kept with the kernel. */
    const PathChoice* choiceFor(KernelEntry* k, const PathQuery& q)
    {
        const int unit = q.unitRowOrColumn ? 1 : 0, inside = q.dstInSrcAllocation ? 1 : 0;
        if (k->deviceTaps)
        {
            // A kernel the device builds (often new in every call): the choice kept by what it
            // depends on, for every call, so that a new sigma costs no choice.
            const ChoiceKey key{k->shape.rx, k->shape.ry, k->shape.horizontalTapsBelowOne, k->shape.verticalTapsBelowOne,
                                unit, inside};
            auto it = choices_.find(key);
            if (it == choices_.end())
                it = choices_.emplace(key, choosePath(q, deviceLimits().paths, options_)).first;
            return &it->second;
        }
        HostKernel& h = *k->host;   // every kernel whose taps the host builds has it
        if (!h.chosen[unit][inside])
        {
            h.choice[unit][inside] = choosePath(q, deviceLimits().paths, options_);
            h.chosen[unit][inside] = true;
        }
        return &h.choice[unit][inside];
    }

    /** Enqueues the batch: descriptors uploaded once, the device's taps built by one launch per
     * path that has such kernels, one launch per (path, instance). */
    void run(std::vector<ImageWork>& images, Stream& stream, const DeviceSigmas& sigmas = DeviceSigmas())
    {
        const cudaStream_t s = StreamAccessor::getStream(stream);
        const DeviceLimits& limits = deviceLimits();
        const size_t n = images.size();
        const int depth = CV_MAT_DEPTH(srcType_), channels = CV_MAT_CN(srcType_);

        // A kernel the device builds but whose image takes a path without a batched kernel (in
        // place, one row or column, a radius beyond the batched kernels) gets its taps here.
        for (ImageWork& im : images)
        {
            im.batched = GaussianPaths::batched(im.choice->index);
            if (!im.batched && !im.kernel->host)
            {
                CV_Assert(im.kernel->sigmaIndexX < 0);   // device sigmas take batched paths only (checked)
                std::unique_ptr<HostKernel> h(new HostKernel);
                h->taps = filterTaps(srcType_, im.kernel->ksize, im.kernel->sigmaX, im.kernel->sigmaY);
                im.kernel->host = std::move(h);
            }
        }

        // Batch taps a host-built kernel lacks for its path, built (over the host's threads) before
        // any joins its kernel: a throw leaves every kernel as it was.
        std::vector<std::pair<KernelEntry*, int>> freshTaps;   // (kernel, path), each once
        for (size_t i = 0; i < n; i++)
        {
            const ImageWork& im = images[i];
            const std::pair<KernelEntry*, int> key(im.kernel, im.choice->index);
            if (im.batched && !key.first->deviceTaps && !key.first->host->batchTaps.count(key.second) &&
                (freshTaps.empty() || freshTaps.back() != key))
                freshTaps.push_back(key);
        }
        std::sort(freshTaps.begin(), freshTaps.end());
        freshTaps.erase(std::unique(freshTaps.begin(), freshTaps.end()), freshTaps.end());
        std::vector<BatchTaps> built(freshTaps.size());
        forKernels(freshTaps.size(), [&](const Range& r) {
            for (int j = r.start; j < r.end; j++)
                built[j] = GaussianPaths::batchTaps(freshTaps[j].second, freshTaps[j].first->host->taps);
        });
        for (size_t j = 0; j < freshTaps.size(); j++)
            freshTaps[j].first->host->batchTaps[freshTaps[j].second].taps = std::move(built[j]);
        for (ImageWork& im : images)
            if (im.batched && !im.kernel->deviceTaps)
                im.taps = &im.kernel->host->batchTaps.find(im.choice->index)->second;

        // Groups: (path, instance) -> images, in order of first appearance (a few groups: a list).
        struct Group { int path, instance; std::vector<size_t> images; };
        std::vector<Group> groups;
        std::vector<int> layoutBytes(n, 0);
        size_t itemCount = 0;
        for (size_t i = 0; i < n; i++)
        {
            ImageWork& im = images[i];
            if (!im.batched)
                continue;
            const int path = im.choice->index;
            int instance;
            if (im.kernel->deviceTaps)
            {
                const BatchTapsLayout l = GaussianPaths::batchLayout(path, depth, channels, im.kernel->shape.rx, im.kernel->shape.ry);
                instance = l.instance;
                layoutBytes[i] = l.bytes;
            }
            else
                instance = im.taps->taps.instance;
            auto g = std::find_if(groups.begin(), groups.end(), [&](const Group& x) { return x.path == path && x.instance == instance; });
            if (g == groups.end())
                g = groups.insert(groups.end(), Group{path, instance, {}});
            g->images.push_back(i);
            itemCount++;
        }

        if (!groups.empty())
        {
            // Layout: every item, every distinct host-built taps struct once (placed by this call's
            // id), the device's tap jobs by path, then the taps they build (not uploaded).
            const uint64_t call = ++calls_;
            size_t total = alignUp(itemCount * sizeof(BatchItem));
            std::vector<const PathTaps*> distinct;
            std::vector<std::pair<int, KernelEntry*>> jobs;   // (path, kernel), each kernel once
            for (size_t i = 0; i < n; i++)
            {
                ImageWork& im = images[i];
                if (!im.batched)
                    continue;
                if (im.kernel->deviceTaps)
                {
                    if (im.kernel->jobCall != call)
                    {
                        im.kernel->jobCall = call;
                        jobs.emplace_back(im.choice->index, im.kernel);
                    }
                }
                else if (im.taps->call != call)
                {
                    im.taps->call = call;
                    im.taps->offset = total;
                    total += alignUp(im.taps->taps.bytes.size());
                    distinct.push_back(im.taps);
                }
            }
            std::stable_sort(jobs.begin(), jobs.end(), [](const std::pair<int, KernelEntry*>& a, const std::pair<int, KernelEntry*>& b) {
                return a.first < b.first;
            });
            const size_t jobsAt = total;
            total += alignUp(jobs.size() * sizeof(BatchTapJob));
            const size_t uploaded = total;
            std::vector<int> jobBytes(jobs.size());
            for (size_t j = 0; j < jobs.size(); j++)
            {
                KernelEntry* k = jobs[j].second;
                jobBytes[j] = GaussianPaths::batchLayout(jobs[j].first, depth, channels, k->shape.rx, k->shape.ry).bytes;
                k->jobOffset = total;
                total += alignUp(static_cast<size_t>(jobBytes[j]));
            }

            StreamScratch device(total, s);
            unsigned char* host = staging_.acquire(uploaded);
            for (const PathTaps* t : distinct)
                std::memcpy(host + t->offset, t->taps.bytes.data(), t->taps.bytes.size());
            BatchTapJob* hostJobs = reinterpret_cast<BatchTapJob*>(host + jobsAt);
            for (size_t j = 0; j < jobs.size(); j++)
            {
                const KernelEntry* k = jobs[j].second;
                BatchTapJob& job = hostJobs[j];
                job = BatchTapJob();
                job.out = device.data() + k->jobOffset;
                job.bytes = jobBytes[j];
                job.ksizeX = k->ksize.width;
                job.ksizeY = k->ksize.height;
                job.sigmaX = k->sigmaX;
                job.sigmaY = k->sigmaY;
                job.sigmaIndexX = k->sigmaIndexX;
                job.sigmaIndexY = k->sigmaIndexY;
            }
            BatchItem* hostItems = reinterpret_cast<BatchItem*>(host);
            std::vector<BatchLaunch> launches;
            size_t at = 0;
            for (const Group& g : groups)
            {
                BatchLaunch b;
                b.depth = depth;
                b.channels = channels;
                b.instance = g.instance;
                b.multiprocessors = limits.multiprocessors;
                b.forcedStripRows = images[g.images[0]].choice->forcedStripRows;   // the filter's option
                b.items = reinterpret_cast<const BatchItem*>(device.data()) + at;
                b.count = static_cast<int>(g.images.size());
                for (size_t i : g.images)
                {
                    const ImageWork& im = images[i];
                    BatchItem& item = hostItems[at++];
                    std::memcpy(&item.call, &im.call, sizeof(BlurCall));
                    item.taps = device.data() + (im.kernel->deviceTaps ? im.kernel->jobOffset : im.taps->offset);
                    const long long elements = static_cast<long long>(im.call.width) * im.call.channels;
                    b.blocksAcross = std::max(b.blocksAcross, static_cast<int>((elements + im.choice->tileOutputs - 1) / im.choice->tileOutputs));
                    b.maxHeight = std::max(b.maxHeight, im.call.height);
                    if (im.choice->residentBlocks > 0)
                    {
                        // a persistent grid: the images' tiles form one sequence
                        item.firstTile = b.tiles;
                        b.tiles += im.choice->tiles(im.call.width, im.call.height, im.call.channels);
                        b.sharedBytes = std::max(b.sharedBytes, im.choice->sharedBytes);
                        b.residentBlocks = std::max(b.residentBlocks, im.choice->residentBlocks);
                    }
                }
                launches.push_back(b);
            }
            staging_.upload(device.data(), uploaded, s);
            for (size_t j = 0; j < jobs.size();)
            {
                size_t end = j;
                while (end < jobs.size() && jobs[end].first == jobs[j].first)
                    end++;
                BatchTapJobs list;
                list.jobs = reinterpret_cast<const BatchTapJob*>(device.data() + jobsAt) + j;
                list.count = static_cast<int>(end - j);
                list.depth = depth;
                list.channels = channels;
                list.sigmaX = sigmas.x;
                list.sigmaY = sigmas.y;
                list.sigmaXType = sigmas.xType;
                list.sigmaYType = sigmas.yType;
                list.exp = softdoubleExpConstants();
                GaussianPaths::makeBatchTaps(jobs[j].first, list, s);
                j = end;
            }
            for (size_t k = 0; k < launches.size(); k++)
                GaussianPaths::launchBatch(groups[k].path, launches[k], s);
        }

        // Images without a batched path (in place, one row or column, radius beyond the single kernels).
        for (size_t i = 0; i < n; i++)
            if (!images[i].batched)
                GaussianPaths::launchOne(images[i].choice->index, images[i].kernel->host->taps, images[i].call, *images[i].choice, s);
    }

    typedef std::tuple<int, int, bool, bool, int, int> ChoiceKey;   //!< rx, ry, taps below one (x, y), unit, inside

    bool deviceTaps_ = softdoubleExpInHardware();   //!< the exp's constants passed the host's self-check
    std::vector<KernelEntry> callKernels_;            //!< the current call's kernels of device sigmas
    std::map<ChoiceKey, PathChoice> choices_;

    int srcType_ = 0, dstType_ = 0;
    int rowBorderMode_ = BORDER_REPLICATE, columnBorderMode_ = -1;
    GaussianPaths::Options options_;
    std::mutex mutex_;
    BatchKernels kernels_{BatchKernels::Filter()};
    uint64_t calls_ = 0;   //!< calls that uploaded descriptors (marks each PathTaps' placement)
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
