// The banded host copy that BatchProcessor stages pageable images with (src/host_copy.hpp): the
// band count at each boundary of its rule, and copies that must equal Mat::copyTo for continuous and
// non-continuous (ROI) sources and destinations, on 1 and 4 threads. No GPU: these run in CI.
#include "test_precomp.hpp"
#include "../src/host_copy.hpp"

namespace opencv_test { namespace {

using cv::cuda::detail::bandCount;
using cv::cuda::detail::copyBands;
using cv::cuda::detail::kMinBandBytes;

TEST(CudaImage_HostCopy, band_count_boundaries)
{
    EXPECT_EQ(size_t(1) << 20, kMinBandBytes);
    // Below two bands' worth: the calling thread alone.
    EXPECT_EQ(1, bandCount(0, 0, 16));
    EXPECT_EQ(1, bandCount(1, 1, 16));
    EXPECT_EQ(1, bandCount(2 * kMinBandBytes - 1, 1000, 16));
    EXPECT_EQ(2, bandCount(2 * kMinBandBytes, 1000, 16));
    EXPECT_EQ(2, bandCount(3 * kMinBandBytes - 1, 1000, 16));
    EXPECT_EQ(3, bandCount(3 * kMinBandBytes, 1000, 16));
    // At most one band per thread.
    EXPECT_EQ(16, bandCount(24883200, 2160, 16));   // 4K 8UC3: 23.7 bands' worth, 16 threads
    EXPECT_EQ(23, bandCount(24883200, 2160, 64));
    EXPECT_EQ(1, bandCount(24883200, 2160, 1));
    EXPECT_EQ(1, bandCount(24883200, 2160, 0));     // getNumThreads() may say 0: serial
    // Never more bands than rows.
    EXPECT_EQ(3, bandCount(64 * kMinBandBytes, 3, 16));
    EXPECT_EQ(1, bandCount(64 * kMinBandBytes, 1, 16));
}

// src.copyTo(dst) as the reference, for a source and destination continuous or not.
void expectSameAsCopyTo(Size size, int type, bool roiSrc, bool roiDst)
{
    cv::RNG rng(size.area() + type);
    Mat bigSrc(size.height + 3, size.width + 5, type), bigDst(size.height + 2, size.width + 7, type);
    rng.fill(bigSrc, cv::RNG::UNIFORM, 0, 255);
    bigDst.setTo(cv::Scalar::all(7));
    const Mat src = roiSrc ? bigSrc(Rect(2, 1, size.width, size.height)) : bigSrc.rowRange(0, size.height).colRange(0, size.width).clone();
    Mat dst = roiDst ? bigDst(Rect(3, 1, size.width, size.height)) : Mat(size, type, cv::Scalar::all(7));
    const Mat before = bigDst.clone();
    const uchar* data = dst.data;
    copyBands(src, dst);
    EXPECT_EQ(data, dst.data) << "written in place";
    EXPECT_EQ(0, cv::norm(src, dst, cv::NORM_INF)) << size << " roiSrc " << roiSrc << " roiDst " << roiDst;
    if (roiDst)   // nothing outside the ROI written
    {
        Mat outside = bigDst != before;
        outside(Rect(3, 1, size.width, size.height)).setTo(0);
        EXPECT_EQ(0, cv::countNonZero(outside.reshape(1)));
    }
}

TEST(CudaImage_HostCopy, bands_equal_copy_to)
{
    const int threads = cv::getNumThreads();
    for (int n : { 1, 4 })
    {
        cv::setNumThreads(n);
        // One band (640x480x3 = 0.9 MiB), just two bands (1024x1024x2 = 2 MiB), many bands (4K 8UC3),
        // more threads than rows' worth would allow (2 rows of 2 MiB each).
        expectSameAsCopyTo(Size(640, 480), CV_8UC3, false, false);
        expectSameAsCopyTo(Size(1024, 1024), CV_8UC2, false, false);
        expectSameAsCopyTo(Size(3840, 2160), CV_8UC3, false, false);
        expectSameAsCopyTo(Size(3840, 2160), CV_8UC3, true, false);
        expectSameAsCopyTo(Size(3840, 2160), CV_8UC3, false, true);
        expectSameAsCopyTo(Size(1001, 999), CV_32FC1, true, true);
        expectSameAsCopyTo(Size(524288, 2), CV_32FC1, true, true);
    }
    cv::setNumThreads(threads);
}

TEST(CudaImage_HostCopy, size_or_type_mismatch_is_refused)
{
    const Mat src(4, 4, CV_8UC1, cv::Scalar(1));
    Mat smaller(3, 4, CV_8UC1), otherType(4, 4, CV_16UC1);
    EXPECT_THROW(copyBands(src, smaller), cv::Exception);
    EXPECT_THROW(copyBands(src, otherType), cv::Exception);
}

}} // namespace opencv_test::<anonymous>
