// Host image copies in row bands over OpenCV's thread pool (cv::parallel_for_).
//
// Why: BatchProcessor stages ordinary (pageable) images through page-locked buffers. One thread's
// copy moves about 5 GB/s, so a 4K 8UC3 frame (24.9 MB in, 24.9 MB out) cost ~9 ms of host copies
// and capped a batch at ~110 images/s while the GPU and the PCIe link sustain ~1,700 with
// page-locked frames (doc/design-record.md#multi-gpu). Bands spread the copy (and the first-touch page
// faults of a newly allocated result) over the host's cores.
//
// Bands are at least kMinBandBytes so that small images are copied by the calling thread alone (a
// pool hand-off costs more than it saves below that). When the pool is busy, for example with a
// second GPU's worker thread copying at the same time, OpenCV runs the bands in the calling thread:
// the copy is then serial, never wrong.
#ifndef CUDAIMAGE_HOST_COPY_HPP
#define CUDAIMAGE_HOST_COPY_HPP

#include "opencv2/core.hpp"
#include "opencv2/core/cuda.hpp"

#include <algorithm>

namespace cv { namespace cuda { namespace detail {

const size_t kMinBandBytes = size_t(1) << 20;

//! How many bands copyBands splits `bytes` over with `threads` threads: at most one per thread, each
//! at least kMinBandBytes (so 1 below 2 MiB), never more than `rows`.
inline int bandCount(size_t bytes, int rows, int threads)
{
    const size_t bySize = bytes / kMinBandBytes;
    return (int)std::max<size_t>(1, std::min<size_t>({ bySize, (size_t)std::max(threads, 1), (size_t)std::max(rows, 1) }));
}

//! Copies src into dst, which already has src's size and type (continuous or not, either of them),
//! in row bands spread over cv::getNumThreads() threads.
inline void copyBands(const Mat& src, Mat& dst)
{
    CV_Assert(src.dims <= 2 && src.size() == dst.size() && src.type() == dst.type());
    const int rows = src.rows;
    const int bands = bandCount(src.total() * src.elemSize(), rows, getNumThreads());
    if (bands <= 1)
    {
        src.copyTo(dst);
        return;
    }
    parallel_for_(Range(0, bands), [&](const Range& r) {
        for (int b = r.start; b < r.end; ++b)
        {
            const int r0 = (int)((int64)rows * b / bands), r1 = (int)((int64)rows * (b + 1) / bands);
            Mat to = dst.rowRange(r0, r1);   // a header into dst: copyTo writes in place
            src.rowRange(r0, r1).copyTo(to);
        }
    }, bands);
}

//! Allocates `result` with `size` and `type` for the output of a filter applied to `image`. A result
//! without data takes the image's allocator: in Python that is NumPy's, so cv2 hands the result
//! back as the array it is, where a result of OpenCV's default allocator would be copied once more
//! into a new array (a second pass over every byte and its page faults). Page-locked allocators are
//! not taken: cudaHostAlloc per result costs more than the copy it saves.
inline void createResultLike(const Mat& image, Size size, int type, Mat& result)
{
    if (!result.data && image.allocator && image.allocator != cuda::HostMem::getAllocator(cuda::HostMem::PAGE_LOCKED) &&
        image.allocator != cuda::HostMem::getAllocator(cuda::HostMem::SHARED) &&
        image.allocator != cuda::HostMem::getAllocator(cuda::HostMem::WRITE_COMBINED))
        result.allocator = image.allocator;
    result.create(size, type);
}

}}} // namespace cv::cuda::detail

#endif
