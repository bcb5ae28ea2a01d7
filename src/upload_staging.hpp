// Page-locked staging for small host-to-device uploads of a call's descriptors (a batch's image
// calls and taps), reused without ever making the host wait for the device.
//
// A buffer is handed out only when the copy last enqueued from it has run (its event has
// completed); otherwise another buffer is used (allocated on first need), so a caller far ahead of
// the GPU holds a few buffers rather than waiting. Under CUDA graph capture the copy becomes a
// graph node that reads the buffer at every replay: such a buffer is never handed out again.
#ifndef CUDAIMAGE_UPLOAD_STAGING_HPP
#define CUDAIMAGE_UPLOAD_STAGING_HPP

#include <cstddef>
#include <vector>
#include <cuda_runtime_api.h>

namespace cv { namespace cuda { namespace gaussian {

class UploadStaging
{
public:
    UploadStaging() = default;
    ~UploadStaging();
    UploadStaging(const UploadStaging&) = delete;
    UploadStaging& operator=(const UploadStaging&) = delete;

    /** A page-locked buffer of at least `bytes` that no enqueued copy reads any more. The caller
     * fills it, then calls upload() once. */
    unsigned char* acquire(size_t bytes);

    /** Enqueues the copy of the acquired buffer's first `bytes` to `device` on `stream`. */
    void upload(void* device, size_t bytes, cudaStream_t stream);

    /** Buffers held (page-locked allocations), for the tests. */
    size_t buffers() const { return slots_.size(); }

private:
    struct Slot
    {
        unsigned char* host = nullptr;
        size_t bytes = 0;
        cudaEvent_t copied = nullptr;   //!< recorded after the latest copy from it
        bool recorded = false;
        bool captured = false;          //!< read by a captured graph: never reused
    };
    std::vector<Slot> slots_;
    int current_ = -1;
};

}}} // namespace cv::cuda::gaussian

#endif
