// Counting into cv::cuda::TransferStats (the public struct, include/opencv2/cudaimage/synced_mat.hpp):
// every copy is counted under its reason and under its direction, so the totals always agree.
#ifndef CUDAIMAGE_TRANSFER_STATS_HPP
#define CUDAIMAGE_TRANSFER_STATS_HPP

#include <cstddef>
#include "opencv2/cudaimage/synced_mat.hpp"

namespace cv { namespace cuda { namespace detail {

void countUpload(TransferStats& stats, TransferStats::Reason reason, size_t bytes);
void countDownload(TransferStats& stats, TransferStats::Reason reason, size_t bytes);
void countPeerCopy(TransferStats& stats, size_t bytes);

}}} // namespace cv::cuda::detail

#endif
