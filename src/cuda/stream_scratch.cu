// Stream-ordered scratch memory from one memory pool per device (see stream_scratch.hpp for why).
#include "stream_scratch.hpp"

#include <cstdint>
#include <map>
#include <mutex>
#include "../cuda_check.hpp"
#include "capture_mode.hpp"

namespace cv { namespace cuda { namespace gaussian {
namespace {

struct DevicePool
{
    cudaMemPool_t pool = nullptr;   // null: the device has no memory pools
    uint64_t keep = 0;              // the release threshold set last
};

std::mutex& poolMutex()
{
    static std::mutex m;
    return m;
}

// Physical memory is mapped in 2 MiB granules: a threshold below the granule that holds a block
// would release it at every synchronisation.
constexpr uint64_t kGranule = uint64_t(2) << 20;

// The device's pool (created on first use; never destroyed: it lives as long as the process's CUDA
// context) with its release threshold set to keep `bytes`, or null. The pool's administration is
// no stream work: done in relaxed capture mode (capture_mode.hpp), so that a call being captured
// into a CUDA graph can make it.
cudaMemPool_t poolFor(int device, size_t bytes)
{
    std::lock_guard<std::mutex> lock(poolMutex());
    static std::map<int, DevicePool> pools;
    auto it = pools.find(device);
    if (it == pools.end())
    {
        DevicePool d;
        RelaxedCaptureMode relaxed;
        int supported = 0;
        CUDAIMAGE_CHECK(cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, device));
        if (supported)
        {
            cudaMemPoolProps props = {};
            props.allocType = cudaMemAllocationTypePinned;
            props.handleTypes = cudaMemHandleTypeNone;
            props.location.type = cudaMemLocationTypeDevice;
            props.location.id = device;
            // Refused (some virtualised devices report pools but do not create them): the fallback.
            if (cudaMemPoolCreate(&d.pool, &props) != cudaSuccess)
            {
                (void)cudaGetLastError();
                d.pool = nullptr;
            }
            else
            {
                // Reuse a freed block only when its free has completed (or on the same stream): never
                // by inserting a wait of one of the caller's streams on another.
                int off = 0;
                CUDAIMAGE_CHECK(cudaMemPoolSetAttribute(d.pool, cudaMemPoolReuseAllowInternalDependencies, &off));
            }
        }
        it = pools.emplace(device, d).first;
    }
    DevicePool& d = it->second;
    const uint64_t keep = (static_cast<uint64_t>(bytes) + kGranule - 1) / kGranule * kGranule;
    if (d.pool && d.keep != keep)
    {
        RelaxedCaptureMode relaxed;
        uint64_t value = keep;
        CUDAIMAGE_CHECK(cudaMemPoolSetAttribute(d.pool, cudaMemPoolAttrReleaseThreshold, &value));
        d.keep = keep;
    }
    return d.pool;
}

// The capture status of `stream`. The legacy default stream, while another stream captures in
// global mode, is refused the query (cudaErrorStreamCaptureImplicit): work on it would join that
// capture, so it counts as being captured.
cudaStreamCaptureStatus captureStatus(cudaStream_t stream)
{
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    const cudaError_t err = cudaStreamIsCapturing(stream, &status);
    if (err == cudaErrorStreamCaptureImplicit)
    {
        (void)cudaGetLastError();
        return cudaStreamCaptureStatusActive;
    }
    CUDAIMAGE_CHECK(err);
    return status;
}

} // namespace

StreamScratch::StreamScratch(size_t bytes, cudaStream_t stream) : stream_(stream)
{
    int device = 0;
    CUDAIMAGE_CHECK(cudaGetDevice(&device));
    cudaMemPool_t pool = poolFor(device, bytes);
    // Only a device without a pool asks whether the stream is being captured (and refuses if so):
    // with a pool, the allocation is capturable and a call costs no query.
    pooled_ = scratchSource(pool != nullptr, pool ? cudaStreamCaptureStatusNone : captureStatus(stream), device) ==
              ScratchSource::Pool;
    const cudaError_t err = pooled_ ? cudaMallocFromPoolAsync(&ptr_, bytes, pool, stream) : cudaMalloc(&ptr_, bytes);
    if (err != cudaSuccess)
    {
        (void)cudaGetLastError(); // an allocation failure is ours to report, not a later call's
        ptr_ = nullptr;
        detail::throwCudaError(err, pooled_ ? "cudaMallocFromPoolAsync (Gaussian scratch)" : "cudaMalloc (Gaussian scratch)",
                               CV_Func, __FILE__, __LINE__);
    }
}

StreamScratch::~StreamScratch()
{
    if (!ptr_)
        return;
    const cudaError_t err = pooled_ ? cudaFreeAsync(ptr_, stream_) : cudaFree(ptr_);
    if (err != cudaSuccess)
        (void)cudaGetLastError();
}

}}} // namespace cv::cuda::gaussian
