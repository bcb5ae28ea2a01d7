// Device memory for the temporary data of one call, allocated and freed in the order of the caller's
// stream from a per-device memory pool (cudaMallocFromPoolAsync / cudaFreeAsync).
//
// Why stream-ordered (and not a buffer kept per stream, or cv::cuda::BufferPool): the memory belongs
// to the call, not to a stream handle, so
//  - nothing accumulates per stream: a service that makes a stream per request holds no scratch for
//    streams it has destroyed (a destroyed stream's free still runs after its queued work);
//  - a stream handle that the driver hands out again cannot be given memory that a destroyed
//    stream's queued work still uses: the pool reuses a block only once its free has completed in
//    stream order (opportunistic reuse), never by making one stream wait for another (internal
//    dependencies off: the filter never couples the caller's streams);
//  - no call synchronises (cudaFree would) and every call can be captured in a CUDA graph: under
//    capture the allocation and the free become graph memory nodes;
//  - cv::cuda::BufferPool would need setBufferPoolUsage(true) before the caller's streams exist,
//    and its stack is per stream again.
// The pool keeps, across synchronisations, as much reserved memory as the latest request (so a
// steady series of calls of one size maps no new memory); what is above goes back to the device at
// the next synchronisation. Devices without memory pools fall back to cudaMalloc/cudaFree, which
// synchronise the device.
#ifndef CUDAIMAGE_CUDA_STREAM_SCRATCH_HPP
#define CUDAIMAGE_CUDA_STREAM_SCRATCH_HPP

#include <cstddef>
#include <cuda_runtime_api.h>

namespace cv { namespace cuda { namespace gaussian {

class StreamScratch
{
public:
    /** `bytes` (> 0) of the current device's memory, usable by work enqueued on `stream` after this
     * constructor; throws cv::Exception (GpuApiCallError) when the device has no memory left. */
    StreamScratch(size_t bytes, cudaStream_t stream);
    /** Frees on the stream: after the work enqueued on it so far. Never throws. */
    ~StreamScratch();
    StreamScratch(const StreamScratch&) = delete;
    StreamScratch& operator=(const StreamScratch&) = delete;

    unsigned char* data() const { return static_cast<unsigned char*>(ptr_); }

private:
    void* ptr_ = nullptr;
    cudaStream_t stream_ = nullptr;
    bool pooled_ = true;
};

}}} // namespace cv::cuda::gaussian

#endif
