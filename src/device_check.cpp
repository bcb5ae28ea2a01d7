#include "precomp.hpp"
#include "device_check.hpp"

#include <map>
#include <mutex>
#include <utility>

namespace cv { namespace cuda { namespace detail {

int currentDeviceOrNone() noexcept
{
    int d = -1;
    if (cudaGetDevice(&d) != cudaSuccess)
    {
        (void)cudaGetLastError();   // no driver or no device: not an error for the next launch
        return -1;
    }
    return d;
}

int visibleDeviceCount() noexcept
{
    // The devices a process sees are fixed when CUDA initialises (CUDA_VISIBLE_DEVICES): ask once.
    static const int count = [] {
        int n = 0;
        if (cudaGetDeviceCount(&n) != cudaSuccess)
        {
            (void)cudaGetLastError();
            n = 0;
        }
        return n;
    }();
    return count;
}

int memoryDevice(const void* ptr)
{
    if (!ptr)
        return -1;
    cudaPointerAttributes attr;
    if (cudaPointerGetAttributes(&attr, ptr) != cudaSuccess)
    {
        (void)cudaGetLastError();   // a pointer CUDA cannot classify: not device memory of ours
        return -1;
    }
    return attr.type == cudaMemoryTypeDevice ? attr.device : -1;
}

bool isPageLocked(const void* ptr)
{
    if (!ptr)
        return false;
    cudaPointerAttributes attr;
    if (cudaPointerGetAttributes(&attr, ptr) != cudaSuccess)
    {
        (void)cudaGetLastError();
        return false;
    }
    return attr.type == cudaMemoryTypeHost;
}

int streamDevice(cudaStream_t stream)
{
    if (stream == 0 || stream == cudaStreamLegacy || stream == cudaStreamPerThread)
        return -1;
#if CUDART_VERSION >= 12080
    // Relaxed capture mode for this thread while asking: in global mode the query is refused while
    // any stream of the thread captures, and apply() must be capturable (CUDA graphs).
    // Even then a capturing stream refuses it: while capturing, the device cannot be asked, and a
    // foreign stream is reported by the capture itself.
    cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
    CUDAIMAGE_CHECK(cudaStreamIsCapturing(stream, &capturing));
    if (capturing != cudaStreamCaptureStatusNone)
        return -1;
    cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    CUDAIMAGE_CHECK(cudaThreadExchangeStreamCaptureMode(&mode));
    int d = -1;
    const cudaError_t err = cudaStreamGetDevice(stream, &d);
    CUDAIMAGE_CHECK(cudaThreadExchangeStreamCaptureMode(&mode));
    CUDAIMAGE_CHECK(err);
    return d;
#else
    return -1;   // no query before CUDA 12.8: the launch itself reports a foreign stream
#endif
}

void DeviceBinding::check(const GpuMat& src, const _OutputArray& dst, Stream& stream, const char* func) const
{
    const int cur = getDevice();
    int bound = device_.load();
    if (bound < 0 && device_.compare_exchange_strong(bound, cur))
        bound = cur;   // created where no device was usable: bind to the first device used
    if (cur != bound)
        CV_Error_(Error::StsBadArg, ("%s: the filter was created on CUDA device %d but the calling thread's "
                                     "current device is %d; call cv::cuda::setDevice(%d) first, or create "
                                     "one filter per device", func, bound, cur, bound));
    // With one device in the process, memory and streams can only be that device's: skip the
    // queries below (two cudaPointerGetAttributes and up to four stream calls, several
    // microseconds of every apply(); see doc/design-record.md#host-cost).
    if (visibleDeviceCount() == 1)
        return;
    const int srcDevice = memoryDevice(src.data);
    if (srcDevice >= 0 && srcDevice != bound)
        CV_Error_(Error::StsBadArg, ("%s: src lives on CUDA device %d but the filter was created on device %d; "
                                     "copy src to device %d first (or use a SyncedMat with "
                                     "CROSS_DEVICE_MIGRATE), or create a filter on device %d",
                                     func, srcDevice, bound, bound, srcDevice));
    if (dst.kind() == _InputArray::CUDA_GPU_MAT)
    {
        const GpuMat& d = dst.getGpuMatRef();
        const int dstDevice = d.empty() ? -1 : memoryDevice(d.data);
        if (dstDevice >= 0 && dstDevice != bound)
            CV_Error_(Error::StsBadArg, ("%s: dst lives on CUDA device %d but the filter was created on device %d; "
                                         "pass an empty dst (allocated on device %d) or one of device %d",
                                         func, dstDevice, bound, bound, bound));
    }
    const int sd = streamDevice(StreamAccessor::getStream(stream));
    if (sd >= 0 && sd != bound)
        CV_Error_(Error::StsBadArg, ("%s: the stream belongs to CUDA device %d but the filter was created on "
                                     "device %d", func, sd, bound));
}

DeviceGuard::DeviceGuard(int device)
{
    int cur = -1;
    CUDAIMAGE_CHECK(cudaGetDevice(&cur));
    if (cur != device)
    {
        CUDAIMAGE_CHECK(cudaSetDevice(device));
        previous_ = cur;
    }
}

DeviceGuard::~DeviceGuard()
{
    if (previous_ >= 0 && cudaSetDevice(previous_) != cudaSuccess)
        (void)cudaGetLastError();
}

bool enablePeerAccess(int a, int b)
{
    static std::mutex mtx;
    static std::map<std::pair<int, int>, bool> known;   // (reader, owner) -> direct access
    std::lock_guard<std::mutex> lock(mtx);
    bool direct = false;
    const std::pair<int, int> pairs[2] = { {a, b}, {b, a} };
    for (const auto& p : pairs)
    {
        auto it = known.find(p);
        if (it == known.end())
        {
            // Best effort: without peer access, copies between the devices still work (staged
            // through host memory by CUDA), only slower; so a refusal is not an error.
            int can = 0;
            if (cudaDeviceCanAccessPeer(&can, p.first, p.second) != cudaSuccess)
                can = 0;
            if (can)
            {
                DeviceGuard guard(p.first);
                const cudaError_t err = cudaDeviceEnablePeerAccess(p.second, 0);
                if (err != cudaSuccess && err != cudaErrorPeerAccessAlreadyEnabled)
                    can = 0;   // e.g. cudaErrorTooManyPeers
            }
            (void)cudaGetLastError();   // "already enabled" and refusals are not errors for the next launch
            it = known.emplace(p, can != 0).first;
        }
        if (p.first == b)
            direct = it->second;
    }
    return direct;
}

int deviceCountOrThrow(const char* func)
{
    const int n = getCudaEnabledDeviceCount();
    if (n <= 0)
        CV_Error_(Error::StsError, ("%s: no CUDA device (cv::cuda::getCudaEnabledDeviceCount() = %d)", func, n));
    return n;
}

}}} // namespace cv::cuda::detail
