// processBatchGaussian for lists of host images of one type: the images move in chunks, each chunk
// one host-to-device copy, one batched blur (createGaussianBlurBatch) and one device-to-host copy,
// through page-locked staging; two chunks in flight on two streams per device, so that one chunk's
// transfers and kernels overlap the host's packing of the next and unpacking of the previous.
//
// Why not the per-image BatchProcessor: each small image there costs an upload, a launch and a
// download of its own (tens of microseconds of fixed cost each): 256 RGB images of 224x224 took
// ~45 ms where their bytes cross PCIe in ~1.5 ms.
#include "precomp.hpp"
#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include "opencv2/cudaimage/batch.hpp"
#include "opencv2/cudaimage/gaussian_blur_batch.hpp"
#include "cuda_check.hpp"
#include "device_check.hpp"
#include "gaussian_host_batch.hpp"
#include "host_copy.hpp"

namespace cv { namespace cuda { namespace detail {

namespace {

/** One chunk in flight: its staging, device buffers, stream and the images it carries. */
struct ChunkSlot
{
    HostMem hostIn, hostOut;
    GpuMat deviceIn, deviceOut;
    Stream stream{cudaStreamNonBlocking};
    Event done;
    size_t first = 0, count = 0;   // images [first, first + count)
    bool busy = false;
};

/** Grows a page-locked buffer to at least `bytes` (contents not kept). */
void reserve(HostMem& m, size_t bytes)
{
    if (m.empty() || static_cast<size_t>(m.cols) < bytes)
        m = HostMem(1, static_cast<int>(std::max<size_t>(bytes, 1 << 20)), CV_8UC1, HostMem::PAGE_LOCKED);
}

void reserve(GpuMat& m, size_t bytes)
{
    if (m.empty() || static_cast<size_t>(m.cols) < bytes)
        m.create(1, static_cast<int>(std::max<size_t>(bytes, 1 << 20)), CV_8UC1);
}

size_t bytesOf(const Mat& m) { return m.total() * m.elemSize(); }

/** What a device keeps between calls: its two slots (page-locked staging and device buffers grow
 * to the largest chunk and stay) and the latest filter. Made on first use and never destroyed (a
 * process ending would otherwise free page-locked memory after the CUDA runtime is gone); calls
 * for one device take turns. */
struct DeviceState
{
    std::mutex mutex;
    ChunkSlot slots[2];
    Ptr<GaussianBatchFilter> filter;
    int type = -1, border = 0;
    Size ksize;
    double sigmaX = 0, sigmaY = 0;
};

DeviceState& deviceState(int device)
{
    constexpr int kDevices = 64;
    static std::mutex mutex;
    static DeviceState* states[kDevices] = {};
    CV_Assert(device >= 0 && device < kDevices);
    std::lock_guard<std::mutex> lock(mutex);
    if (!states[device])
        states[device] = new DeviceState();
    return *states[device];
}

/** The images of one device, [begin, end), in chunks of about `chunkBytes`. */
void runDevice(int device, const std::vector<Mat>& images, std::vector<Mat>& results, size_t begin, size_t end,
               Size ksize, double sigmaX, double sigmaY, int border, size_t chunkBytes)
{
    DeviceGuard guard(device);
    DeviceState& state = deviceState(device);
    std::lock_guard<std::mutex> lock(state.mutex);
    const int type = images[begin].type();
    if (!state.filter || state.type != type || state.ksize != ksize || state.sigmaX != sigmaX ||
        state.sigmaY != sigmaY || state.border != border)
    {
        state.filter = createGaussianBlurBatch(type, -1, ksize, sigmaX, sigmaY, border);
        state.type = type;
        state.ksize = ksize;
        state.sigmaX = sigmaX;
        state.sigmaY = sigmaY;
        state.border = border;
    }
    const Ptr<GaussianBatchFilter>& filter = state.filter;
    ChunkSlot (&slots)[2] = state.slots;
    for (ChunkSlot& s : slots)
    {
        // A call that failed half-way may have left copies queued on the slot's private stream.
        s.stream.waitForCompletion();
        s.busy = false;
    }

    auto finish = [&](ChunkSlot& s) {
        if (!s.busy)
            return;
        s.done.waitForCompletion();
        // Unpack: each result from its place in the staging, over the host's threads.
        std::vector<size_t> offsets(s.count);
        size_t at = 0;
        for (size_t k = 0; k < s.count; k++)
        {
            offsets[k] = at;
            at += bytesOf(images[s.first + k]);
        }
        // Results allocated here, on this thread (NumPy's allocator takes the GIL), then filled over
        // the host's threads.
        for (size_t k = 0; k < s.count; k++)
            createResultLike(images[s.first + k], images[s.first + k].size(), images[s.first + k].type(), results[s.first + k]);
        parallel_for_(Range(0, static_cast<int>(s.count)), [&](const Range& r) {
            for (int k = r.start; k < r.end; k++)
            {
                const Mat& in = images[s.first + k];
                const Mat staged(in.size(), in.type(), s.hostOut.data + offsets[k]);
                Mat& out = results[s.first + k];
                staged.copyTo(out);
            }
        });
        s.busy = false;
    };

    size_t next = begin;
    int which = 0;
    while (next < end)
    {
        ChunkSlot& s = slots[which];
        finish(s);
        // The chunk: images from `next` while they fit chunkBytes (at least one).
        size_t bytes = 0, count = 0;
        while (next + count < end && (count == 0 || bytes + bytesOf(images[next + count]) <= chunkBytes))
            bytes += bytesOf(images[next + count++]);
        s.first = next;
        s.count = count;
        reserve(s.hostIn, bytes);
        reserve(s.hostOut, bytes);
        reserve(s.deviceIn, bytes);
        reserve(s.deviceOut, bytes);
        std::vector<size_t> offsets(count);
        size_t at = 0;
        for (size_t k = 0; k < count; k++)
        {
            offsets[k] = at;
            at += bytesOf(images[next + k]);
        }
        // Pack, over the host's threads.
        parallel_for_(Range(0, static_cast<int>(count)), [&](const Range& r) {
            for (int k = r.start; k < r.end; k++)
            {
                const Mat& in = images[s.first + k];
                Mat staged(in.size(), in.type(), s.hostIn.data + offsets[k]);
                in.copyTo(staged);
            }
        });
        const cudaStream_t raw = StreamAccessor::getStream(s.stream);
        CUDAIMAGE_CHECK(cudaMemcpyAsync(s.deviceIn.data, s.hostIn.data, bytes, cudaMemcpyHostToDevice, raw));
        std::vector<GpuMat> src(count), dst(count);
        for (size_t k = 0; k < count; k++)
        {
            const Mat& in = images[next + k];
            src[k] = GpuMat(in.size(), in.type(), s.deviceIn.data + offsets[k]);
            dst[k] = GpuMat(in.size(), in.type(), s.deviceOut.data + offsets[k]);
        }
        filter->apply(src, dst, {}, {}, {}, s.stream);
        CUDAIMAGE_CHECK(cudaMemcpyAsync(s.hostOut.data, s.deviceOut.data, bytes, cudaMemcpyDeviceToHost, raw));
        s.done.record(s.stream);
        s.busy = true;
        next += count;
        which ^= 1;
    }
    finish(slots[which]);
    finish(slots[which ^ 1]);
}

} // namespace

bool hostBatchTakes(const std::vector<Mat>& images)
{
    // One type, 2-D images: the chunks are one batch of one type; an image above 1 GiB goes
    // through BatchProcessor, which stages it in row bands.
    for (const Mat& m : images)
        if (m.type() != images[0].type() || m.dims > 2 || bytesOf(m) > (size_t(1) << 30))
            return false;
    return true;
}

void processHostBatchGaussian(const std::vector<Mat>& images, std::vector<Mat>& results, Size ksize, double sigmaX,
                              double sigmaY, int border, const std::vector<int>& devices, size_t chunkBytes)
{
    const size_t n = images.size();
    results.resize(n);
    // Contiguous ranges of about equal bytes per device, one host thread each.
    size_t total = 0;
    for (const Mat& m : images)
        total += bytesOf(m);
    std::vector<size_t> bounds{0};
    size_t acc = 0;
    for (size_t i = 0, d = 1; i < n && d < devices.size(); i++)
    {
        acc += bytesOf(images[i]);
        if (acc * devices.size() >= total * d)
            bounds.push_back(i + 1), d++;
    }
    while (bounds.size() < devices.size() + 1)
        bounds.push_back(n);
    bounds.back() = n;

    std::vector<std::exception_ptr> errors(devices.size());
    std::vector<std::thread> threads;
    for (size_t d = 0; d < devices.size(); d++)
    {
        if (bounds[d] >= bounds[d + 1])
            continue;
        auto work = [&, d] {
            try
            {
                runDevice(devices[d], images, results, bounds[d], bounds[d + 1], ksize, sigmaX, sigmaY, border, chunkBytes);
            }
            catch (...)
            {
                errors[d] = std::current_exception();
            }
        };
        if (devices.size() == 1)
            work();
        else
            threads.emplace_back(work);
    }
    for (std::thread& t : threads)
        t.join();
    for (size_t d = 0; d < devices.size(); d++)
        if (errors[d])
        {
            try
            {
                std::rethrow_exception(errors[d]);
            }
            catch (const cv::Exception& e)
            {
                CV_Error_(e.code, ("cv::cuda::processBatchGaussian: device %d: %s", devices[d], e.err.c_str()));
            }
        }
}

}}} // namespace cv::cuda::detail
