// cv::cuda::TransferStats: what a SyncedMat copied, by reason and by direction.
#include "precomp.hpp"
#include "transfer_stats.hpp"
#include "opencv2/core/check.hpp"

using namespace cv;
using namespace cv::cuda;

TransferStats::TransferStats()
    : uploads(0), downloads(0), uploadBytes(0), downloadBytes(0), peerCopies(0), peerCopyBytes(0)
{
    for (int i = 0; i < REASON_COUNT; ++i)
    {
        counts[i] = 0;
        bytes[i] = 0;
    }
}

int TransferStats::count(int reason) const
{
    CV_CheckGE(reason, 0, "TransferStats::count: reason must be a TransferStats::Reason");
    CV_CheckLT(reason, (int)REASON_COUNT, "TransferStats::count: reason must be a TransferStats::Reason");
    return counts[reason];
}

size_t TransferStats::bytesFor(int reason) const
{
    CV_CheckGE(reason, 0, "TransferStats::bytesFor: reason must be a TransferStats::Reason");
    CV_CheckLT(reason, (int)REASON_COUNT, "TransferStats::bytesFor: reason must be a TransferStats::Reason");
    return bytes[reason];
}

String TransferStats::reasonName(int reason)
{
    static const char* const names[REASON_COUNT] = {
        "READ_HOST", "READ_WRITE_HOST", "WRITE_HOST_PARTIAL", "PREFETCH_DOWNLOAD",
        "READ_DEVICE", "READ_WRITE_DEVICE", "WRITE_DEVICE_PARTIAL", "PREFETCH_UPLOAD", "PEER_COPY"};
    CV_CheckGE(reason, 0, "TransferStats::reasonName: reason must be a TransferStats::Reason");
    CV_CheckLT(reason, (int)REASON_COUNT, "TransferStats::reasonName: reason must be a TransferStats::Reason");
    return names[reason];
}

namespace cv { namespace cuda { namespace detail {

void countUpload(TransferStats& stats, TransferStats::Reason reason, size_t bytes)
{
    stats.counts[reason] += 1;
    stats.bytes[reason] += bytes;
    stats.uploads += 1;
    stats.uploadBytes += bytes;
}

void countDownload(TransferStats& stats, TransferStats::Reason reason, size_t bytes)
{
    stats.counts[reason] += 1;
    stats.bytes[reason] += bytes;
    stats.downloads += 1;
    stats.downloadBytes += bytes;
}

void countPeerCopy(TransferStats& stats, size_t bytes)
{
    stats.counts[TransferStats::PEER_COPY] += 1;
    stats.bytes[TransferStats::PEER_COPY] += bytes;
    stats.peerCopies += 1;
    stats.peerCopyBytes += bytes;
}

}}} // namespace cv::cuda::detail
