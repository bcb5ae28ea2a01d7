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
//  - no call synchronises (cudaFree would) and a call can be captured in a CUDA graph: under
//    capture the allocation and the free become graph memory nodes (the graph owns the memory; the
//    pool only lends its properties);
//  - cv::cuda::BufferPool would need setBufferPoolUsage(true) before the caller's streams exist,
//    and its stack is per stream again.
// The pool keeps, across synchronisations, as much reserved memory as the latest request (so a
// steady series of calls of one size maps no new memory); what is above goes back to the device at
// the next synchronisation.
//
// Devices without memory pools (cudaDevAttrMemoryPoolsSupported 0, or a pool the driver refuses to
// create: some virtualised GPUs) fall back to cudaMalloc/cudaFree, which synchronise the device and
// cannot be captured: in global capture mode the cudaMalloc is refused and invalidates the capture;
// in relaxed mode it would succeed and its cudaFree would free memory the graph still uses. So a
// call on such a device whose stream is being captured is refused with a cv::Exception that says
// why (scratchSource), before any allocation; the capture itself is left intact.
#ifndef CUDAIMAGE_CUDA_STREAM_SCRATCH_HPP
#define CUDAIMAGE_CUDA_STREAM_SCRATCH_HPP

#include <cstddef>
#include <cuda_runtime_api.h>
#include "opencv2/core/base.hpp"
#include "opencv2/core/utility.hpp"

namespace cv { namespace cuda { namespace gaussian {

/** Where a call's scratch memory comes from. */
enum class ScratchSource
{
    Pool,          //!< the device's pool, in stream order (under capture: graph memory nodes)
    DeviceMalloc   //!< cudaMalloc/cudaFree: a device without memory pools, a stream not being captured
};

/** The source for a call on `device` whose pool exists (`devicePool`) or not, on a stream whose
 * capture status is `capture` (cudaStreamIsCapturing). Without a pool, a stream being captured
 * (active, or already invalidated) is refused: cv::Exception StsNotImplemented naming the reason.
 * Pure host code, so the tests check the refusal without a GPU or a device without pools. */
inline ScratchSource scratchSource(bool devicePool, cudaStreamCaptureStatus capture, int device)
{
    if (devicePool)
        return ScratchSource::Pool;
    if (capture != cudaStreamCaptureStatusNone)
        CV_Error_(Error::StsNotImplemented,
                  ("cv::cuda::GaussianBlur: the stream is being captured into a CUDA graph%s and CUDA device %d has no "
                   "memory pool for stream-ordered scratch memory, which this call needs (it takes the two-pass path: "
                   "in place, or a kernel no single-kernel path takes); a cudaMalloc would break the capture. Make "
                   "this call outside the capture, or give it a separate dst and a kernel a single-kernel path takes "
                   "(doc/design.md, \"The kernel paths\")",
                   capture == cudaStreamCaptureStatusInvalidated ? " (already invalidated)" : "", device));
    return ScratchSource::DeviceMalloc;
}

class StreamScratch
{
public:
    /** `bytes` (> 0) of the current device's memory, usable by work enqueued on `stream` after this
     * constructor; throws cv::Exception: GpuApiCallError when the device has no memory left,
     * StsNotImplemented when the device has no memory pool and `stream` is being captured
     * (scratchSource). */
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
