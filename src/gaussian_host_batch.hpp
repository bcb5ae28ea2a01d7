// processBatchGaussian's chunked path for host images of one type (gaussian_host_batch.cpp).
#ifndef CUDAIMAGE_GAUSSIAN_HOST_BATCH_HPP
#define CUDAIMAGE_GAUSSIAN_HOST_BATCH_HPP

#include <vector>
#include "opencv2/core.hpp"

namespace cv { namespace cuda { namespace detail {

/** Bytes per chunk: small enough that the first chunk's packing and the last one's unpacking, which
 * nothing overlaps, are a small part of a list of small images; large enough that a chunk's fixed
 * costs (a batch's launches, two transfers) stay below its bytes' transfer time. */
constexpr size_t kHostBatchChunkBytes = size_t(4) << 20;

/** Whether the chunked path takes these (checked, non-empty) images: one type, 2-D. */
bool hostBatchTakes(const std::vector<Mat>& images);

/** Blurs host images in chunks of about `chunkBytes` per transfer, each chunk one batch, over
 * `devices` (valid ids, each once), contiguous ranges of about equal bytes per device. */
void processHostBatchGaussian(const std::vector<Mat>& images, std::vector<Mat>& results, Size ksize, double sigmaX,
                              double sigmaY, int border, const std::vector<int>& devices, size_t chunkBytes);

}}} // namespace cv::cuda::detail

#endif
