// cv::cuda::BatchProcessor / processBatch: a list of images through one filter per GPU, results in
// input order.
//
//   calling thread: check the images (no CUDA) -> one worker thread per device -> join -> rethrow
//                   the first failure as cv::Exception
//   worker (its device current), two slots with a stream each, taking one image at a time:
//
//     slot 0: |copy in|H2D|filter|D2H|.............|copy out|copy in|H2D|filter|D2H|...
//     slot 1:         .....|copy in|H2D|filter|D2H|.............|copy out|copy in|H2D|...
//                     (host)   (GPU, asynchronous on the slot's stream)
//
//   Small ordinary (pageable) host images move in groups (up to kGroupBytes, each image at most
//   kGroupImageBytes): one slot packs a group into its page-locked staging over the host's threads,
//   uploads it in one transfer, applies the filter to each image's view, downloads every result in
//   one transfer. A group forms once the worker has seen the filter's output type for that input
//   type (learned from an image processed alone), so that each result's place is known in advance.
//
//   A slot is reused only after its stream has finished (Stream::waitForCompletion), so its
//   page-locked staging and device buffers are never overwritten while a copy or kernel uses them.
//   While the GPU works on one slot the worker copies the other slot's result out of page-locked
//   memory and the next image in. Images are handed out through an atomic counter, so a device
//   that finishes sooner takes more.
#include "precomp.hpp"
#include "cuda_check.hpp"
#include "device_check.hpp"
#include "gaussian_arguments.hpp"
#include "host_copy.hpp"
#include "gaussian_host_batch.hpp"

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <system_error>
#include <thread>

namespace cv { namespace cuda {

BatchProcessor::~BatchProcessor() {}

namespace {

const char* const kCreate = "cv::cuda::BatchProcessor::create";
const char* const kProcess = "cv::cuda::BatchProcessor::process";

// --- checks that need no GPU ----------------------------------------------------------------

void checkImages(const std::vector<Mat>& images, const char* func)
{
    if (images.empty())
        CV_Error_(Error::StsBadArg, ("%s: images is empty; pass at least one image", func));
    for (size_t i = 0; i < images.size(); ++i)
    {
        if (images[i].dims > 2)
            CV_Error_(Error::StsBadArg, ("%s: images[%zu] has %d dimensions; only 2-D images are supported",
                                         func, i, images[i].dims));
        if (images[i].empty())
            CV_Error_(Error::StsBadArg, ("%s: images[%zu] is empty", func, i));
    }
}

void checkImages(const std::vector<SyncedMat>& images, const char* func)
{
    if (images.empty())
        CV_Error_(Error::StsBadArg, ("%s: images is empty; pass at least one image", func));
    for (size_t i = 0; i < images.size(); ++i)
    {
        const SyncedMat& m = images[i];
        if (m.empty())
            CV_Error_(Error::StsBadArg, ("%s: images[%zu] is empty", func, i));
        if (m.state() == SyncedMat::UNINITIALIZED)
            CV_Error_(Error::StsError, ("%s: images[%zu] (%dx%d %s) is uninitialised: no side holds data yet",
                                        func, i, m.cols(), m.rows(), typeToString(m.type()).c_str()));
    }
    // A storage lives on one device at a time: two workers must never share one.
    for (size_t i = 0; i < images.size(); ++i)
        for (size_t j = i + 1; j < images.size(); ++j)
            if (images[i].sharesStorageWith(images[j]))
                CV_Error_(Error::StsBadArg, ("%s: images[%zu] and images[%zu] share one storage (views of one "
                                             "image, or one handle twice); pass separate images", func, i, j));
}

void checkFactory(const FilterFactory& factory, const char* func)
{
    if (!factory)
        CV_Error_(Error::StsNullPtr, ("%s: the filter factory is null (an empty std::function)", func));
}

// Negative and repeated ids are refused before any CUDA call; then the count and the architecture.
std::vector<int> resolveDevices(const std::vector<int>& devices)
{
    for (size_t i = 0; i < devices.size(); ++i)
    {
        if (devices[i] < 0)
            CV_Error_(Error::StsOutOfRange, ("%s: devices[%zu] is %d; allowed: 0 to "
                                             "cv::cuda::getCudaEnabledDeviceCount() - 1", kCreate, i, devices[i]));
        for (size_t j = 0; j < i; ++j)
            if (devices[j] == devices[i])
                CV_Error_(Error::StsBadArg, ("%s: devices lists CUDA device %d twice (devices[%zu] and devices[%zu])",
                                             kCreate, devices[i], j, i));
    }
    const int n = detail::deviceCountOrThrow(kCreate);
    std::vector<int> result = devices;
    if (result.empty())
        for (int d = 0; d < n; ++d)
            result.push_back(d);
    for (size_t i = 0; i < result.size(); ++i)
    {
        if (result[i] >= n)
            CV_Error_(Error::StsOutOfRange, ("%s: devices[%zu] is %d; allowed: 0 to %d (%d CUDA device%s)",
                                             kCreate, i, result[i], n - 1, n, n == 1 ? "" : "s"));
        DeviceInfo info(result[i]);
        if (!info.isCompatible())
            CV_Error_(Error::StsError, ("%s: CUDA device %d (%s, compute capability %d.%d) has no code in this "
                                        "build (CUDA_ARCH_BIN)", kCreate, result[i], info.name(),
                                        info.majorVersion(), info.minorVersion()));
    }
    return result;
}

// --- buffers that grow to the largest image and are reused below that -----------------------

// A continuous Mat of (size, type) inside page-locked `buf`.
Mat stagingView(HostMem& buf, Size size, int type)
{
    const size_t need = (size_t)size.width * size.height * CV_ELEM_SIZE(type);
    const size_t have = buf.empty() ? 0 : buf.step * (size_t)buf.rows;
    if (have < need)
    {
        buf.release();
        buf.create(size, type);
    }
    return Mat(size, type, buf.data);
}

// A GpuMat of (size, type) inside `buf`: buf itself when it has that size and type, otherwise
// packed rows inside its allocation (reallocated only when too small).
GpuMat deviceView(GpuMat& buf, Size size, int type)
{
    if (buf.size() == size && buf.type() == type)
        return buf;
    const size_t need = (size_t)size.width * size.height * CV_ELEM_SIZE(type);
    const size_t have = buf.empty() ? 0 : buf.step * (size_t)buf.rows;
    if (have < need)
    {
        buf.release();
        buf.create(size, type);
        return buf;
    }
    return GpuMat(size, type, buf.data);
}

// --- workers ------------------------------------------------------------------------------

// One image in flight: its stream, staging and device buffers.
struct Slot
{
    Slot() : stream(cudaStreamNonBlocking) {}   // never waits for the legacy default stream

    Stream stream;
    HostMem hostIn, hostOut;
    GpuMat devIn, devOut;
    int index = -1;        // image in flight, or -1
    Mat stagedOut;         // its result, in hostOut (host images)
    SyncedMat keepIn;      // its input, kept alive until the stream is done (SyncedMat images)

    // A group of small host images (startHostGroup): bytes in page-locked and device memory.
    HostMem packIn, packOut;
    GpuMat packDevIn, packDevOut;
    std::vector<int> group;        // its images, in order
    std::vector<Mat> groupStaged;  // each result inside packOut (or in a staging of its own)
    std::vector<GpuMat> keepOut;   // results a filter placed elsewhere, kept until downloaded
};

struct Worker
{
    int device = -1;
    Ptr<Filter> filter;
    std::unique_ptr<Slot> slots[2];
    int processed = 0;
    std::map<int, int> outputTypes;   // input type -> the type of its same-size result (-1: not same size)

    ~Worker()
    {
        // Streams, page-locked and device memory are released on their own device.
        std::unique_ptr<detail::DeviceGuard> guard;
        try
        {
            if (device >= 0)
                guard.reset(new detail::DeviceGuard(device));
        }
        catch (...) {}
        filter.release();
        slots[0].reset();
        slots[1].reset();
    }
};

// What the workers of one batch share: the next image, and the first failure.
struct Shared
{
    std::atomic<size_t> next{0};
    std::atomic<bool> failed{false};
    std::mutex take;   // host images: a worker takes one image or a group under it
    std::mutex mtx;
    int code = Error::StsOk;
    String message;

    void fail(int c, const String& what, int index, int device)
    {
        std::lock_guard<std::mutex> lock(mtx);
        if (!message.empty())
            return;   // the first failure wins
        code = c;
        message = index >= 0 ? format("%s: images[%d] on CUDA device %d: %s", kProcess, index, device, what.c_str())
                             : format("%s: CUDA device %d: %s", kProcess, device, what.c_str());
        failed = true;
    }
};

// Runs body() and turns whatever it throws into the batch's failure (no exception leaves a worker).
template <typename Body>
void guarded(Shared& sh, const Worker& w, const int& index, Body body)
{
    try
    {
        body();
    }
    catch (const cv::Exception& e)
    {
        sh.fail(e.code, e.err, index, w.device);
    }
    catch (const std::exception& e)
    {
        sh.fail(Error::StsError, e.what(), index, w.device);
    }
    catch (...)
    {
        sh.fail(Error::StsError, "unknown exception", index, w.device);
    }
}

// After a failure: wait for what is still queued (errors now are the first failure's echo).
void drain(Worker& w)
{
    for (auto& slot : w.slots)
    {
        try
        {
            slot->stream.waitForCompletion();
        }
        catch (...)
        {
            (void)cudaGetLastError();
        }
        slot->index = -1;
        slot->keepIn.release();
        slot->group.clear();
        slot->groupStaged.clear();
        slot->keepOut.clear();
    }
}

class BatchProcessorImpl CV_FINAL : public BatchProcessor
{
public:
    BatchProcessorImpl(const FilterFactory& factory, const std::vector<int>& devices)
    {
        for (int d : devices)
        {
            std::unique_ptr<Worker> w(new Worker);
            w->device = d;
            detail::DeviceGuard onDevice(d);
            try
            {
                w->filter = factory();
            }
            catch (const cv::Exception& e)
            {
                CV_Error_(e.code, ("%s: the filter factory failed for CUDA device %d: %s", kCreate, d, e.err.c_str()));
            }
            catch (const std::exception& e)
            {
                CV_Error_(Error::StsError, ("%s: the filter factory failed for CUDA device %d: %s", kCreate, d, e.what()));
            }
            if (!w->filter)
                CV_Error_(Error::StsNullPtr, ("%s: the filter factory returned a null filter for CUDA device %d",
                                              kCreate, d));
            w->slots[0].reset(new Slot);
            w->slots[1].reset(new Slot);
            workers_.push_back(std::move(w));
        }
        imagesPerDevice_.assign(workers_.size(), 0);
    }

    void process(const std::vector<Mat>& images, std::vector<Mat>& results) CV_OVERRIDE
    {
        checkImages(images, kProcess);
        std::lock_guard<std::mutex> lock(mtx_);
        results.resize(images.size());
        Shared sh;
        run(sh, [&](Worker& w) { runHost(w, images, results, sh); });
    }

    void process(std::vector<SyncedMat>& images, std::vector<SyncedMat>& results) CV_OVERRIDE
    {
        checkImages(images, kProcess);
        std::lock_guard<std::mutex> lock(mtx_);
        // An image whose device data is valid on one of our devices stays there; the rest are
        // shared out like host images.
        std::vector<std::vector<int> > own(workers_.size());
        std::vector<int> anyDevice;
        for (size_t i = 0; i < images.size(); ++i)
        {
            int home = -1;
            if (images[i].isDeviceValid())
                for (size_t k = 0; k < workers_.size(); ++k)
                    if (workers_[k]->device == images[i].deviceId())
                        home = (int)k;
            if (home >= 0)
                own[home].push_back((int)i);
            else
                anyDevice.push_back((int)i);
        }
        results.resize(images.size());
        Shared sh;
        run(sh, [&](Worker& w) { runSynced(w, images, results, own[indexOf(w)], anyDevice, sh); });
    }

    std::vector<int> devices() const CV_OVERRIDE
    {
        std::vector<int> d;
        for (const auto& w : workers_)
            d.push_back(w->device);
        return d;
    }

    std::vector<int> imagesPerDevice() const CV_OVERRIDE
    {
        std::lock_guard<std::mutex> lock(mtx_);
        return imagesPerDevice_;
    }

private:
    size_t indexOf(const Worker& w) const
    {
        for (size_t k = 0; k < workers_.size(); ++k)
            if (workers_[k].get() == &w)
                return k;
        CV_Error(Error::StsInternal, "BatchProcessor: unknown worker");
    }

    // One thread per device; joins them all; rethrows the first failure.
    template <typename Body>
    void run(Shared& sh, Body body)
    {
        for (auto& w : workers_)
            w->processed = 0;
        std::vector<std::thread> threads;
        threads.reserve(workers_.size());
        try
        {
            for (auto& w : workers_)
            {
                Worker* wp = w.get();
                threads.emplace_back([&sh, wp, &body] {
                    const int none = -1;
                    guarded(sh, *wp, none, [&] { body(*wp); });
                });
            }
        }
        catch (const std::system_error& e)   // no thread: stop those already started
        {
            sh.fail(Error::StsError, format("cannot start a worker thread: %s", e.what()), -1,
                    workers_[threads.size()]->device);
        }
        for (std::thread& t : threads)
            t.join();
        for (size_t k = 0; k < workers_.size(); ++k)
            imagesPerDevice_[k] = workers_[k]->processed;
        if (sh.failed)
            CV_Error(static_cast<Error::Code>(sh.code), sh.message);   // 5.x: cv::error takes Error::Code
    }

    // --- host images: staged through page-locked memory ---

    // Page-locked images (cv::cuda::HostMem, a pinned pool) and results of the right size and type
    // in page-locked memory are copied to and from directly, without staging.
    static void startHost(Worker& w, Slot& slot, const Mat& image, Mat& result, int i)
    {
        Mat in = image;
        if (!detail::isPageLocked(image.data))
        {
            in = stagingView(slot.hostIn, image.size(), image.type());
            detail::copyBands(image, in);   // over the host's cores: one thread caps a batch (host_copy.hpp)
        }
        GpuMat d = deviceView(slot.devIn, image.size(), image.type());
        d.upload(in, slot.stream);
        w.filter->apply(d, slot.devOut, slot.stream);
        const bool direct = result.size() == slot.devOut.size() && result.type() == slot.devOut.type() &&
                            detail::isPageLocked(result.data);
        slot.stagedOut = direct ? Mat() : stagingView(slot.hostOut, slot.devOut.size(), slot.devOut.type());
        slot.devOut.download(direct ? result : slot.stagedOut, slot.stream);
        slot.index = i;
        w.outputTypes[image.type()] = slot.devOut.size() == image.size() ? slot.devOut.type() : -1;
        ++w.processed;
    }

    static constexpr size_t kGroupBytes = size_t(4) << 20;        // per direction
    static constexpr size_t kGroupImageBytes = size_t(1) << 20;   // larger images go alone
    static constexpr size_t kGroupAlign = 256;                    // each image's offset (as cudaMalloc)
    static size_t groupAlign(size_t n) { return (n + kGroupAlign - 1) / kGroupAlign * kGroupAlign; }
    static size_t bytesOf(const Mat& m) { return m.total() * m.elemSize(); }

    // Whether image i can join a group on this worker, and its bytes in and out.
    static bool groupable(const Worker& w, const Mat& image, size_t& in, size_t& out)
    {
        const auto t = w.outputTypes.find(image.type());
        if (t == w.outputTypes.end() || t->second < 0 || detail::isPageLocked(image.data))
            return false;
        in = groupAlign(bytesOf(image));
        out = groupAlign(image.total() * CV_ELEM_SIZE(t->second));
        return std::max(in, out) <= kGroupImageBytes;
    }

    // The next images for worker w: [first, last), a group of groupable images or one image.
    static std::pair<size_t, size_t> takeHost(Shared& sh, const Worker& w, const std::vector<Mat>& images)
    {
        std::lock_guard<std::mutex> lock(sh.take);
        const size_t first = sh.next;
        size_t last = std::min(first + 1, images.size());
        size_t in = 0, out = 0, sumIn = 0, sumOut = 0;
        if (first < images.size() && groupable(w, images[first], sumIn, sumOut))
            while (last < images.size() && groupable(w, images[last], in, out) && sumIn + in <= kGroupBytes &&
                   sumOut + out <= kGroupBytes)
            {
                sumIn += in;
                sumOut += out;
                ++last;
            }
        sh.next = last;
        return {first, last};
    }

    static void reserveBytes(HostMem& m, size_t bytes)
    {
        if (m.empty() || static_cast<size_t>(m.cols) < bytes)
            m = HostMem(1, static_cast<int>(std::max(bytes, kGroupBytes)), CV_8UC1, HostMem::PAGE_LOCKED);
    }
    static void reserveBytes(GpuMat& m, size_t bytes)
    {
        if (m.empty() || static_cast<size_t>(m.cols) < bytes)
            m.create(1, static_cast<int>(std::max(bytes, kGroupBytes)), CV_8UC1);
    }

    // A group: packed over the host's threads, one upload, the filter on each image's view, one
    // download. A result the filter placed elsewhere (another size or type than learned) is
    // downloaded on its own.
    static void startHostGroup(Worker& w, Slot& slot, const std::vector<Mat>& images, size_t first, size_t last, int& at)
    {
        const size_t n = last - first;
        std::vector<size_t> inAt(n), outAt(n);
        size_t inBytes = 0, outBytes = 0;
        for (size_t k = 0; k < n; ++k)
        {
            size_t in = 0, out = 0;
            groupable(w, images[first + k], in, out);
            inAt[k] = inBytes;
            outAt[k] = outBytes;
            inBytes += in;
            outBytes += out;
        }
        reserveBytes(slot.packIn, inBytes);
        reserveBytes(slot.packOut, outBytes);
        reserveBytes(slot.packDevIn, inBytes);
        reserveBytes(slot.packDevOut, outBytes);
        parallel_for_(Range(0, static_cast<int>(n)), [&](const Range& r) {
            for (int k = r.start; k < r.end; ++k)
            {
                const Mat& image = images[first + k];
                Mat staged(image.size(), image.type(), slot.packIn.data + inAt[k]);
                image.copyTo(staged);
            }
        });
        const cudaStream_t raw = StreamAccessor::getStream(slot.stream);
        CUDAIMAGE_CHECK(cudaMemcpyAsync(slot.packDevIn.data, slot.packIn.data, inBytes, cudaMemcpyHostToDevice, raw));
        slot.group.clear();
        slot.groupStaged.assign(n, Mat());
        slot.keepOut.clear();
        std::vector<std::pair<size_t, GpuMat> > elsewhere;
        for (size_t k = 0; k < n; ++k)
        {
            at = static_cast<int>(first + k);
            const Mat& image = images[first + k];
            const int outType = w.outputTypes[image.type()];
            const GpuMat in(image.size(), image.type(), slot.packDevIn.data + inAt[k]);
            const GpuMat place(image.size(), outType, slot.packDevOut.data + outAt[k]);
            GpuMat out = place;
            w.filter->apply(in, out, slot.stream);
            slot.group.push_back(static_cast<int>(first + k));
            if (out.data == place.data && out.size() == place.size() && out.type() == place.type())
                slot.groupStaged[k] = Mat(image.size(), outType, slot.packOut.data + outAt[k]);
            else
                elsewhere.emplace_back(k, out);
        }
        CUDAIMAGE_CHECK(cudaMemcpyAsync(slot.packOut.data, slot.packDevOut.data, outBytes, cudaMemcpyDeviceToHost, raw));
        for (auto& e : elsewhere)
        {
            Mat& staged = slot.groupStaged[e.first];
            staged.allocator = HostMem::getAllocator(HostMem::PAGE_LOCKED);   // an asynchronous download needs it
            staged.create(e.second.size(), e.second.type());
            e.second.download(staged, slot.stream);
            slot.keepOut.push_back(e.second);
        }
        w.processed += static_cast<int>(n);
    }

    static void finishHost(Slot& slot, const std::vector<Mat>& images, std::vector<Mat>& results)
    {
        if (!slot.group.empty())
        {
            slot.stream.waitForCompletion();
            // Results allocated on this thread (NumPy's allocator takes the GIL), filled over the host's threads.
            for (size_t k = 0; k < slot.group.size(); ++k)
                detail::createResultLike(images[slot.group[k]], slot.groupStaged[k].size(), slot.groupStaged[k].type(),
                                         results[slot.group[k]]);
            parallel_for_(Range(0, static_cast<int>(slot.group.size())), [&](const Range& r) {
                for (int k = r.start; k < r.end; ++k)
                    slot.groupStaged[k].copyTo(results[slot.group[k]]);
            });
            slot.group.clear();
            slot.groupStaged.clear();
            slot.keepOut.clear();
            return;
        }
        if (slot.index < 0)
            return;
        slot.stream.waitForCompletion();
        if (!slot.stagedOut.empty())
        {
            Mat& result = results[slot.index];
            detail::createResultLike(images[slot.index], slot.stagedOut.size(), slot.stagedOut.type(), result);   // in place if it fits
            detail::copyBands(slot.stagedOut, result);
        }
        slot.index = -1;
    }

    static void runHost(Worker& w, const std::vector<Mat>& images, std::vector<Mat>& results, Shared& sh)
    {
        int at = -1;   // the image a failure is reported for
        guarded(sh, w, at, [&] {
            setDevice(w.device);
            for (int k = 0;; k ^= 1)
            {
                Slot& slot = *w.slots[k];
                at = slot.group.empty() ? slot.index : slot.group.front();
                finishHost(slot, images, results);
                if (sh.failed)
                    break;
                const std::pair<size_t, size_t> take = takeHost(sh, w, images);
                if (take.first >= images.size())
                    break;
                at = (int)take.first;
                if (take.second - take.first > 1)
                    startHostGroup(w, slot, images, take.first, take.second, at);
                else
                    startHost(w, slot, images[take.first], results[take.first], (int)take.first);
            }
            for (auto& slot : w.slots)
            {
                at = slot->group.empty() ? slot->index : slot->group.front();
                finishHost(*slot, images, results);
            }
        });
        drain(w);
    }

    // --- SyncedMat images: their page-locked host memory is used directly ---

    static void startSynced(Worker& w, Slot& slot, std::vector<SyncedMat>& images, std::vector<SyncedMat>& results, int i)
    {
        SyncedMat in = images[i];   // a handle: keeps the storage alive while the stream uses it
        if (in.deviceId() != w.device)
            in.moveToDevice(w.device, slot.stream);
        SyncedMat out;
        applyFilter(w.filter, in, out, slot.stream);
        out.download(slot.stream);
        results[i] = out;
        slot.keepIn = in;
        slot.index = i;
        ++w.processed;
    }

    static void finishSynced(Slot& slot)
    {
        if (slot.index < 0)
            return;
        slot.stream.waitForCompletion();
        slot.keepIn.release();
        slot.index = -1;
    }

    static void runSynced(Worker& w, std::vector<SyncedMat>& images, std::vector<SyncedMat>& results,
                          const std::vector<int>& mine, const std::vector<int>& anyDevice, Shared& sh)
    {
        int at = -1;
        guarded(sh, w, at, [&] {
            setDevice(w.device);
            size_t ownNext = 0;
            for (int k = 0;; k ^= 1)
            {
                Slot& slot = *w.slots[k];
                at = slot.index;
                finishSynced(slot);
                if (sh.failed)
                    break;
                int i = -1;
                if (ownNext < mine.size())
                    i = mine[ownNext++];
                else
                {
                    const size_t j = sh.next++;
                    if (j >= anyDevice.size())
                        break;
                    i = anyDevice[j];
                }
                at = i;
                startSynced(w, slot, images, results, i);
            }
            for (auto& slot : w.slots)
            {
                at = slot->index;
                finishSynced(*slot);
            }
        });
        drain(w);
    }

    std::vector<std::unique_ptr<Worker> > workers_;
    std::vector<int> imagesPerDevice_;
    mutable std::mutex mtx_;   // one batch at a time
};

// createGaussianBlur for each type of a batch, chosen by the source's type.
class GaussianByType CV_FINAL : public Filter
{
public:
    GaussianByType(const std::set<int>& types, Size ksize, double sigmaX, double sigmaY, int border)
    {
        for (int t : types)
            filters_[t] = createGaussianBlur(t, -1, ksize, sigmaX, sigmaY, border, border);
    }

    void apply(InputArray src, OutputArray dst, Stream& stream) CV_OVERRIDE
    {
        auto it = filters_.find(src.type());
        if (it == filters_.end())
            CV_Error_(Error::StsUnmatchedFormats, ("cv::cuda::processBatchGaussian: no filter for type %s",
                                                   typeToString(src.type()).c_str()));
        it->second->apply(src, dst, stream);
    }

private:
    std::map<int, Ptr<Filter> > filters_;
};

} // namespace

Ptr<BatchProcessor> BatchProcessor::create(const FilterFactory& factory, const std::vector<int>& devices)
{
    checkFactory(factory, kCreate);
    return makePtr<BatchProcessorImpl>(factory, resolveDevices(devices));
}

void processBatch(const std::vector<Mat>& images, const FilterFactory& factory, std::vector<Mat>& results,
                  const std::vector<int>& devices)
{
    checkImages(images, "cv::cuda::processBatch");
    checkFactory(factory, "cv::cuda::processBatch");
    BatchProcessor::create(factory, devices)->process(images, results);
}

void processBatch(std::vector<SyncedMat>& images, const FilterFactory& factory, std::vector<SyncedMat>& results,
                  const std::vector<int>& devices)
{
    checkImages(images, "cv::cuda::processBatch");
    checkFactory(factory, "cv::cuda::processBatch");
    BatchProcessor::create(factory, devices)->process(images, results);
}

void processBatchGaussian(const std::vector<Mat>& images, std::vector<Mat>& results, Size ksize,
                          double sigmaX, double sigmaY, int borderType, const std::vector<int>& devices)
{
    checkImages(images, "cv::cuda::processBatchGaussian");
    // The arguments under this function's names (images[i] type, borderType), for the first image
    // of each type, before any CUDA call; each device's createGaussianBlur checks them again.
    std::set<int> types;
    for (size_t i = 0; i < images.size(); i++)
    {
        if (!types.insert(images[i].type()).second)
            continue;
        const gaussian::ArgumentNames names{"cv::cuda::processBatchGaussian", format("images[%zu] type", i), "dstType",
                                            "borderType", "borderType"};
        gaussian::checkArguments(images[i].type(), -1, ksize, sigmaX, sigmaY, borderType, borderType, names);
    }
    if (types.size() == 1 && detail::hostBatchTakes(images))
    {
        // One type: chunks of images, each one transfer each way and one batched blur.
        detail::processHostBatchGaussian(images, results, ksize, sigmaX, sigmaY, borderType, resolveDevices(devices),
                                         detail::kHostBatchChunkBytes);
        return;
    }
    processBatch(images, [&]() -> Ptr<Filter> {
        return makePtr<GaussianByType>(types, ksize, sigmaX, sigmaY, borderType);
    }, results, devices);
}

}} // namespace cv::cuda
