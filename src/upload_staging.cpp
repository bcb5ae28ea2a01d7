// Page-locked staging for descriptor uploads (upload_staging.hpp).
#include "precomp.hpp"
#include "cuda_check.hpp"
#include "upload_staging.hpp"
#include "cuda/capture_mode.hpp"

namespace cv { namespace cuda { namespace gaussian {

UploadStaging::~UploadStaging()
{
    // Buffers a captured graph reads stay allocated: the graph may outlive the filter.
    for (Slot& s : slots_)
    {
        if (s.copied)
            cudaEventSynchronize(s.copied), cudaEventDestroy(s.copied);
        if (s.host && !s.captured)
            cudaFreeHost(s.host);
    }
}

unsigned char* UploadStaging::acquire(size_t bytes)
{
    current_ = -1;
    for (size_t i = 0; i < slots_.size() && current_ < 0; i++)
    {
        Slot& s = slots_[i];
        if (s.captured || s.bytes < bytes)
            continue;
        if (s.recorded)
        {
            // Asked in relaxed capture mode: while any stream captures in global mode (PyTorch's
            // torch.cuda.graph default) an event query is refused and invalidates the capture. The
            // query puts no work on a stream.
            RelaxedCaptureMode relaxed;
            const cudaError_t e = cudaEventQuery(s.copied);
            if (e == cudaErrorNotReady)
                continue;
            CUDAIMAGE_CHECK(e);
        }
        current_ = static_cast<int>(i);
    }
    if (current_ < 0)
    {
        // Grow: a new buffer (page-locked allocations are slow: sizes double so that a growing
        // batch allocates a few times only).
        Slot s;
        s.bytes = 4096;
        while (s.bytes < bytes)
            s.bytes *= 2;
        cudaError_t e = cudaSuccess;
        {
            // Page-locked host memory is no graph node: allocated in relaxed capture mode.
            RelaxedCaptureMode relaxed;
            e = cudaHostAlloc(reinterpret_cast<void**>(&s.host), s.bytes, cudaHostAllocDefault);
            if (e == cudaSuccess)
                e = cudaEventCreateWithFlags(&s.copied, cudaEventDisableTiming);
            if (e != cudaSuccess)
            {
                if (s.host)
                    cudaFreeHost(s.host);
                (void)cudaGetLastError();   // the failed call's own error, reported just below
            }
        }
        CUDAIMAGE_CHECK(e);
        slots_.push_back(s);
        current_ = static_cast<int>(slots_.size()) - 1;
    }
    return slots_[current_].host;
}

void UploadStaging::upload(void* device, size_t bytes, cudaStream_t stream)
{
    CV_Assert(current_ >= 0 && bytes <= slots_[current_].bytes);
    Slot& s = slots_[current_];
    current_ = -1;
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    CUDAIMAGE_CHECK(cudaStreamIsCapturing(stream, &capture));
    CUDAIMAGE_CHECK(cudaMemcpyAsync(device, s.host, bytes, cudaMemcpyHostToDevice, stream));
    if (capture != cudaStreamCaptureStatusNone)
        s.captured = true;
    else
    {
        CUDAIMAGE_CHECK(cudaEventRecord(s.copied, stream));
        s.recorded = true;
    }
}

}}} // namespace cv::cuda::gaussian
