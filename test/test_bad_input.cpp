// Bad input across the public API: every kind raises cv::Exception (with our message naming the
// parameter and its value where the check is ours). doc/errors.md lists each kind once, with the
// message these tests print ("[ BADINPUT ] ..." lines).
//  - CudaImage_BadInput.*: no GPU needed. Validation happens before any CUDA call; GpuMat headers
//    over fake device addresses are never dereferenced (nothing reaches a kernel).
//  - CudaImage_BadInputGpu.*: need a device (pinned memory, real device images).
#include "test_precomp.hpp"

#include <climits>
#include <cmath>
#include <iostream>
#include <limits>
#include <string>
#include <typeinfo>
#include <vector>

namespace opencv_test { namespace {

using cv::cuda::createGaussianBlur;

template <typename F>
void expectError(F f, int code, const std::vector<std::string>& needles)
{
    cudaimage_test::expectError(f, code, needles, "BADINPUT");
}

// A device address that is never dereferenced: every check below runs before any CUDA call.
uchar* fakeDevicePtr() { return reinterpret_cast<uchar*>(size_t(1) << 32); }
GpuMat fakeGpuMat(int rows, int cols, int type) { return GpuMat(rows, cols, type, fakeDevicePtr()); }

cv::Ptr<cv::cuda::Filter> blur8u() { return createGaussianBlur(CV_8UC1, -1, Size(3, 3), 1); }

// A filter whose apply() is never reached (argument checks of applyFilter).
struct NeverApplied : public cv::cuda::Filter
{
    void apply(cv::InputArray, cv::OutputArray, Stream&) override { ADD_FAILURE() << "apply() reached"; }
};

//////////////////////////////////////////////////////////////////////////////////////////////
// cv::cuda::createGaussianBlur

TEST(CudaImage_BadInput, create_srcType_depth_8S)
{ expectError([] { createGaussianBlur(CV_8SC1, -1, Size(3, 3), 1); }, cv::Error::StsUnsupportedFormat, {"srcType is CV_8SC1", "CV_8U"}); }

TEST(CudaImage_BadInput, create_srcType_depth_32S)
{ expectError([] { createGaussianBlur(CV_32SC2, -1, Size(3, 3), 1); }, cv::Error::StsUnsupportedFormat, {"srcType is CV_32SC2"}); }

TEST(CudaImage_BadInput, create_srcType_depth_16F)
{ expectError([] { createGaussianBlur(CV_16FC1, -1, Size(3, 3), 1); }, cv::Error::StsUnsupportedFormat, {"srcType is CV_16FC1"}); }

TEST(CudaImage_BadInput, create_srcType_5_channels)
{ expectError([] { createGaussianBlur(CV_8UC(5), -1, Size(3, 3), 1); }, cv::Error::StsUnsupportedFormat, {"srcType is CV_8UC5", "1 to 4 channels"}); }

TEST(CudaImage_BadInput, create_srcType_negative)
{ expectError([] { createGaussianBlur(-5, -1, Size(3, 3), 1); }, cv::Error::StsUnsupportedFormat, {"srcType is"}); }

TEST(CudaImage_BadInput, create_dstType_other_depth)
{ expectError([] { createGaussianBlur(CV_8UC1, CV_16UC1, Size(3, 3), 1); }, cv::Error::StsUnsupportedFormat, {"dstType is CV_16UC1 for srcType CV_8UC1", "CV_32FC1"}); }

TEST(CudaImage_BadInput, create_dstType_float_other_channels)
{ expectError([] { createGaussianBlur(CV_8UC3, CV_32FC1, Size(3, 3), 1); }, cv::Error::StsUnsupportedFormat, {"dstType is CV_32FC1 for srcType CV_8UC3", "CV_32FC3"}); }

TEST(CudaImage_BadInput, create_ksize_even)
{ expectError([] { createGaussianBlur(CV_8UC1, -1, Size(4, 3), 1); }, cv::Error::StsBadSize, {"ksize.width is 4", "odd"}); }

TEST(CudaImage_BadInput, create_ksize_negative)
{ expectError([] { createGaussianBlur(CV_8UC1, -1, Size(3, -3), 1); }, cv::Error::StsBadSize, {"ksize.height is -3"}); }

TEST(CudaImage_BadInput, create_ksize_too_large)
{ expectError([] { createGaussianBlur(CV_8UC1, -1, Size((1 << 20) + 1, 3), 1); }, cv::Error::StsBadSize, {"ksize.width is 1048577", "1048575"}); }

TEST(CudaImage_BadInput, create_ksize_zero_and_sigma_zero)
{ expectError([] { createGaussianBlur(CV_16UC1, -1, Size(0, 0), 0); }, cv::Error::StsBadArg, {"ksize.width is 0 and sigmaX is 0"}); }

TEST(CudaImage_BadInput, create_ksize_zero_and_sigma_negative)
{ expectError([] { createGaussianBlur(CV_16UC1, -1, Size(0, 5), -2); }, cv::Error::StsBadArg, {"ksize.width is 0 and sigmaX is -2"}); }

TEST(CudaImage_BadInput, create_ksize_height_zero_and_no_sigma)
{ expectError([] { createGaussianBlur(CV_32FC1, -1, Size(5, 0), 0, 0); }, cv::Error::StsBadArg, {"ksize.height is 0 and sigmaX is 0"}); }

TEST(CudaImage_BadInput, create_sigmaX_nan)
{ expectError([] { createGaussianBlur(CV_8UC1, -1, Size(3, 3), std::nan("")); }, cv::Error::StsBadArg, {"sigmaX is nan", "finite"}); }

TEST(CudaImage_BadInput, create_sigmaY_infinite)
{ expectError([] { createGaussianBlur(CV_8UC1, -1, Size(3, 3), 1, HUGE_VAL); }, cv::Error::StsBadArg, {"sigmaY is inf"}); }

// A finite sigma so large that the kernel size derived from it exceeds the largest accepted
// size (2^20-1): the limit must hold for derived sizes too (6 * 2e5 + 1 = 1,200,001 taps).
TEST(CudaImage_BadInput, create_sigma_derives_too_large_ksize)
{ expectError([] { createGaussianBlur(CV_8UC1, -1, Size(0, 0), 2e5); }, kAnyCode, {"sigmaX"}); }

// The same, past int: cvRound(6e10 + 1) does not fit the kernel size.
TEST(CudaImage_BadInput, create_sigma_derives_ksize_beyond_int)
{ expectError([] { createGaussianBlur(CV_8UC1, -1, Size(0, 0), 1e10); }, kAnyCode, {"sigmaX"}); }

TEST(CudaImage_BadInput, create_rowBorderMode_transparent)
{ expectError([] { createGaussianBlur(CV_8UC1, -1, Size(3, 3), 1, 0, cv::BORDER_TRANSPARENT); }, cv::Error::StsBadFlag, {"rowBorderMode is 5", "BORDER_WRAP"}); }

TEST(CudaImage_BadInput, create_columnBorderMode_unknown)
{ expectError([] { createGaussianBlur(CV_8UC1, -1, Size(3, 3), 1, 0, cv::BORDER_REPLICATE, 7); }, cv::Error::StsBadFlag, {"columnBorderMode is 7"}); }

// -1 means "same as rowBorderMode" only for columnBorderMode. The message must name the value
// passed (-1), not the value with BORDER_ISOLATED masked off.
TEST(CudaImage_BadInput, create_rowBorderMode_negative)
{ expectError([] { createGaussianBlur(CV_8UC1, -1, Size(3, 3), 1, 0, -1); }, cv::Error::StsBadFlag, {"rowBorderMode is -1;"}); }

TEST(CudaImage_BadInput, create_border_isolated_with_unknown_mode)
{ expectError([] { createGaussianBlur(CV_8UC1, -1, Size(3, 3), 1, 0, cv::BORDER_TRANSPARENT | cv::BORDER_ISOLATED); }, cv::Error::StsBadFlag, {"rowBorderMode is"}); }

//////////////////////////////////////////////////////////////////////////////////////////////
// Filter::apply

TEST(CudaImage_BadInput, apply_src_host_mat)
{
    Mat host(4, 4, CV_8UC1, cv::Scalar(1));
    GpuMat out;
    expectError([&] { blur8u()->apply(host, out, noCudaStream()); }, cv::Error::StsBadArg, {"src must be a cv::cuda::GpuMat"});
}

TEST(CudaImage_BadInput, apply_src_empty)
{
    GpuMat empty, out;
    expectError([&] { blur8u()->apply(empty, out, noCudaStream()); }, cv::Error::StsBadArg, {"src is empty"});
}

TEST(CudaImage_BadInput, apply_src_type_mismatch)
{
    GpuMat src = fakeGpuMat(4, 4, CV_16UC1), out;
    expectError([&] { blur8u()->apply(src, out, noCudaStream()); }, cv::Error::StsUnmatchedFormats, {"src type is CV_16UC1", "srcType CV_8UC1"});
}

TEST(CudaImage_BadInput, apply_dst_partly_overlaps_src)
{
    GpuMat whole = fakeGpuMat(64, 64, CV_8UC1);
    GpuMat src = whole(Rect(0, 0, 32, 32)), dst = whole(Rect(8, 8, 32, 32));
    expectError([&] { blur8u()->apply(src, dst, noCudaStream()); }, cv::Error::StsBadArg, {"dst partly overlaps src"});
}

TEST(CudaImage_BadInput, apply_src_row_too_long)
{
    // 300,000,000 x 4 channels = 1.2e9 elements in one row (> INT_MAX / 2).
    GpuMat src = fakeGpuMat(1, 300000000, CV_8UC4), out;
    cv::Ptr<cv::cuda::Filter> f = createGaussianBlur(CV_8UC4, -1, Size(3, 3), 1);
    expectError([&] { f->apply(src, out, noCudaStream()); }, cv::Error::StsOutOfRange, {"src row has 1200000000 elements"});
}

TEST(CudaImage_BadInput, apply_dst_host_mat)
{
    GpuMat src = fakeGpuMat(4, 4, CV_8UC1);
    Mat out;
    expectError([&] { blur8u()->apply(src, out, noCudaStream()); }, kAnyCode, {});
}

TEST(CudaImage_BadInput, apply_dst_missing)
{
    GpuMat src = fakeGpuMat(4, 4, CV_8UC1);
    expectError([&] { blur8u()->apply(src, cv::noArray(), noCudaStream()); }, kAnyCode, {});
}

//////////////////////////////////////////////////////////////////////////////////////////////
// cv::cuda::GaussianBlur (one-shot)

TEST(CudaImage_BadInput, oneshot_src_empty)
{
    GpuMat empty, out;
    expectError([&] { cv::cuda::GaussianBlur(empty, out, Size(3, 3), 1, 0, cv::BORDER_REPLICATE, noCudaStream()); }, cv::Error::StsBadArg, {"src is empty"});
}

TEST(CudaImage_BadInput, oneshot_src_host_mat)
{
    Mat host(4, 4, CV_8UC1, cv::Scalar(1));
    GpuMat out;
    expectError([&] { cv::cuda::GaussianBlur(host, out, Size(3, 3), 1, 0, cv::BORDER_REPLICATE, noCudaStream()); }, cv::Error::StsBadArg, {"src must be a cv::cuda::GpuMat"});
}

// The one-shot reports its arguments under its own names (src type, borderType), not under those of
// the createGaussianBlur it delegates to (srcType, rowBorderMode).
TEST(CudaImage_BadInput, oneshot_src_unsupported_type)
{
    GpuMat src = fakeGpuMat(4, 4, CV_8SC3), out;
    expectError([&] { cv::cuda::GaussianBlur(src, out, Size(3, 3), 1, 0, cv::BORDER_REPLICATE, noCudaStream()); }, cv::Error::StsUnsupportedFormat,
                {"cv::cuda::GaussianBlur: src type is CV_8SC3; allowed: depth CV_8U"});
}

TEST(CudaImage_BadInput, oneshot_borderType_unknown)
{
    GpuMat src = fakeGpuMat(4, 4, CV_8UC1), out;
    expectError([&] { cv::cuda::GaussianBlur(src, out, Size(3, 3), 1, 0, cv::BORDER_TRANSPARENT, noCudaStream()); }, cv::Error::StsBadFlag,
                {"cv::cuda::GaussianBlur: borderType is 5; allowed: BORDER_CONSTANT (0)", "BORDER_WRAP"});
    expectError([&] { cv::cuda::GaussianBlur(src, out, Size(3, 3), 1, 0, 99 | cv::BORDER_ISOLATED, noCudaStream()); }, cv::Error::StsBadFlag,
                {"cv::cuda::GaussianBlur: borderType is 115;"});
}

TEST(CudaImage_BadInput, oneshot_ksize_even_after_a_good_call)
{
    // The per-thread filter cache must not hide a bad argument after a good one.
    GpuMat src = fakeGpuMat(4, 4, CV_8UC1), out;
    Mat host(4, 4, CV_8UC1, cv::Scalar(1));
    // Valid arguments: the filter is created (and kept) before apply() refuses the host Mat.
    EXPECT_THROW(cv::cuda::GaussianBlur(host, out, Size(3, 3), 1, 0, cv::BORDER_REPLICATE, noCudaStream()), cv::Exception);
    expectError([&] { cv::cuda::GaussianBlur(src, out, Size(3, 2), 1, 0, cv::BORDER_REPLICATE, noCudaStream()); }, cv::Error::StsBadSize,
                {"cv::cuda::GaussianBlur: ksize.height is 2"});
}

//////////////////////////////////////////////////////////////////////////////////////////////
// SyncedMat: construction, create, ROI views

TEST(CudaImage_BadInput, synced_negative_size)
{
    expectError([] { SyncedMat m(-1, 5, CV_8UC1); }, cv::Error::StsBadSize, {"rows=-1"});
    expectError([] { SyncedMat m(Size(-2, 5), CV_8UC1); }, cv::Error::StsBadSize, {"cols=-2"});
}

TEST(CudaImage_BadInput, synced_type_negative)
{ expectError([] { SyncedMat m(4, 4, -1); }, cv::Error::StsBadArg, {"type=-1"}); }

TEST(CudaImage_BadInput, synced_type_out_of_range)
{ expectError([] { SyncedMat m(4, 4, CV_MAT_TYPE_MASK + 1); }, cv::Error::StsBadArg, {"type=4096", "not an OpenCV matrix type"}); }

TEST(CudaImage_BadInput, synced_size_overflows_size_t)
{ expectError([] { SyncedMat m(INT_MAX, INT_MAX, CV_64FC(CV_CN_MAX)); }, cv::Error::StsBadSize, {"overflows size_t"}); }

TEST(CudaImage_BadInput, synced_from_3d_mat)
{
    const int sz[] = {2, 3, 4};
    Mat m3(3, sz, CV_8UC1, cv::Scalar(0));
    expectError([&] { SyncedMat m(m3); }, kAnyCode, {"2-D"});
}

TEST(CudaImage_BadInput, synced_roi_outside_parent)
{
    SyncedMat parent(48, 64, CV_8UC1);
    expectError([&] { SyncedMat v(parent, Rect(60, 0, 5, 1)); }, cv::Error::StsOutOfRange, {"x=60", "width=5", "64x48"});
}

TEST(CudaImage_BadInput, synced_roi_negative_origin)
{
    SyncedMat parent(48, 64, CV_8UC1);
    expectError([&] { SyncedMat v(parent, Rect(0, -3, 5, 1)); }, cv::Error::StsOutOfRange, {"y=-3"});
}

TEST(CudaImage_BadInput, synced_roi_empty_rectangle)
{
    SyncedMat parent(48, 64, CV_8UC1);
    expectError([&] { SyncedMat v(parent, Rect(1, 1, 4, 0)); }, cv::Error::StsOutOfRange, {"height=0"});
}

TEST(CudaImage_BadInput, synced_roi_overflowing_rectangle)
{
    SyncedMat parent(48, 64, CV_8UC1);
    expectError([&] { SyncedMat v(parent, Rect(1, 1, INT_MAX, 1)); }, cv::Error::StsOutOfRange, {"inside"});
}

TEST(CudaImage_BadInput, synced_roi_outside_a_view)
{
    SyncedMat parent(48, 64, CV_8UC1);
    SyncedMat view(parent, Rect(8, 4, 16, 12));
    expectError([&] { SyncedMat v(view, Rect(0, 0, 17, 1)); }, cv::Error::StsOutOfRange, {"16x12"});
}

TEST(CudaImage_BadInput, synced_roi_of_empty_parent)
{ expectError([] { SyncedMat v(SyncedMat(), Rect(0, 0, 1, 1)); }, cv::Error::StsBadArg, {"parent is empty"}); }

TEST(CudaImage_BadInput, synced_create_other_size_on_view)
{
    SyncedMat parent(48, 64, CV_8UC1);
    SyncedMat view(parent, Rect(8, 4, 16, 12));
    expectError([&] { view.create(12, 17, CV_8UC1); }, cv::Error::StsBadArg, {"ROI view", "detach"});
    EXPECT_TRUE(view.sharesStorageWith(parent));
    expectError([&] { view.create(12, 16, CV_8UC3); }, cv::Error::StsBadArg, {"CV_8UC3"});
}

TEST(CudaImage_BadInput, synced_create_negative_size_keeps_object)
{
    SyncedMat m(4, 5, CV_8UC1);
    expectError([&] { m.create(4, -5, CV_8UC1); }, cv::Error::StsBadSize, {"cols=-5"});
    EXPECT_EQ(Size(5, 4), m.size());
}

TEST(CudaImage_BadInput, synced_create_bad_type_keeps_object)
{
    SyncedMat m(4, 4, CV_16UC4);
    expectError([&] { m.create(4, 4, 100000); }, cv::Error::StsBadArg, {"type=100000"});
    EXPECT_EQ(CV_16UC4, m.type());
}

//////////////////////////////////////////////////////////////////////////////////////////////
// SyncedMat: accesses, release, counters

TEST(CudaImage_BadInput, synced_access_to_empty)
{
    SyncedMat m;
    Stream s = cv::cuda::wrapStream(0); // a header; makes no CUDA call
    expectError([&] { m.readHost(); }, cv::Error::StsBadArg, {"SyncedMat::readHost", "empty"});
    expectError([&] { m.writeHost(); }, cv::Error::StsBadArg, {"SyncedMat::writeHost", "empty"});
    expectError([&] { m.readWriteHost(); }, cv::Error::StsBadArg, {"empty"});
    expectError([&] { m.readDevice(s); }, cv::Error::StsBadArg, {"SyncedMat::readDevice", "empty"});
    expectError([&] { m.writeDevice(s); }, cv::Error::StsBadArg, {"empty"});
    expectError([&] { m.readWriteDevice(s); }, cv::Error::StsBadArg, {"empty"});
    expectError([&] { m.upload(s); }, cv::Error::StsBadArg, {"SyncedMat::upload", "empty"});
    expectError([&] { m.download(s); }, cv::Error::StsBadArg, {"SyncedMat::download", "empty"});
}

TEST(CudaImage_BadInput, synced_access_after_release)
{
    SyncedMat m(8, 8, CV_8UC1);
    SyncedMat view(m, Rect(1, 1, 2, 2));
    m.release();
    Stream s = cv::cuda::wrapStream(0);
    expectError([&] { m.writeHost(); }, cv::Error::StsBadArg, {"empty"});
    expectError([&] { m.writeDevice(s); }, cv::Error::StsBadArg, {"empty"});
    EXPECT_EQ(Size(2, 2), view.size()); // the view keeps the storage
    EXPECT_EQ(Size(8, 8), view.storageSize());
}

TEST(CudaImage_BadInput, synced_read_of_uninitialised)
{
    SyncedMat m(16, 16, CV_8UC1);
    Stream s = cv::cuda::wrapStream(0);
    expectError([&] { m.readHost(); }, cv::Error::StsError, {"16x16 CV_8UC1", "uninitialised"});
    expectError([&] { m.readWriteHost(); }, cv::Error::StsError, {"uninitialised"});
    expectError([&] { m.readDevice(s); }, cv::Error::StsError, {"uninitialised"});
    expectError([&] { m.readWriteDevice(s); }, cv::Error::StsError, {"uninitialised"});
    EXPECT_FALSE(m.isHostAllocated());
    EXPECT_FALSE(m.isDeviceAllocated());
}

TEST(CudaImage_BadInput, synced_prefetch_of_uninitialised)
{
    SyncedMat m(16, 16, CV_8UC1);
    Stream s = cv::cuda::wrapStream(0);
    expectError([&] { m.upload(s); }, cv::Error::StsError, {"SyncedMat::upload", "uninitialised"});
    expectError([&] { m.download(s); }, cv::Error::StsError, {"SyncedMat::download", "uninitialised"});
}

TEST(CudaImage_BadInput, transfer_stats_reason_out_of_range)
{
    TransferStats st;
    // StsError, as the header documents: the CV_Check macros' code
    expectError([&] { st.count(-1); }, cv::Error::StsError, {"reason must be a TransferStats::Reason"});
    expectError([&] { st.bytesFor(TransferStats::REASON_COUNT); }, cv::Error::StsError, {"reason must be a TransferStats::Reason"});
    expectError([&] { TransferStats::reasonName(99); }, cv::Error::StsError, {"reason must be a TransferStats::Reason"});
}

//////////////////////////////////////////////////////////////////////////////////////////////
// applyFilter

TEST(CudaImage_BadInput, apply_filter_null_filter)
{
    SyncedMat src(4, 4, CV_8UC1), dst;
    cv::Ptr<cv::cuda::Filter> none;
    expectError([&] { cv::cuda::applyFilter(none, src, dst, noCudaStream()); }, cv::Error::StsNullPtr, {"the filter is null"});
    expectError([&] { cv::cuda::applyFilter(none, src, noCudaStream()); }, cv::Error::StsNullPtr, {"in place", "the filter is null"});
}

TEST(CudaImage_BadInput, apply_filter_empty_src)
{
    SyncedMat src, dst;
    cv::Ptr<cv::cuda::Filter> f = cv::makePtr<NeverApplied>();
    expectError([&] { cv::cuda::applyFilter(f, src, dst, noCudaStream()); }, cv::Error::StsBadArg, {"src is empty"});
    expectError([&] { cv::cuda::applyFilter(f, src, noCudaStream()); }, cv::Error::StsBadArg, {"is empty"});
}

TEST(CudaImage_BadInput, apply_filter_dst_size_mismatch)
{
    SyncedMat src(4, 4, CV_8UC1), dst(3, 3, CV_8UC1);
    cv::Ptr<cv::cuda::Filter> f = cv::makePtr<NeverApplied>();
    expectError([&] { cv::cuda::applyFilter(f, src, dst, noCudaStream()); }, cv::Error::StsUnmatchedSizes, {"dst is 3x3 but src is 4x4"});
    EXPECT_EQ(Size(3, 3), dst.size());
}

TEST(CudaImage_BadInput, apply_filter_uninitialised_src)
{
    SyncedMat src(4, 4, CV_8UC1), dst;
    cv::Ptr<cv::cuda::Filter> f = cv::makePtr<NeverApplied>();
    expectError([&] { cv::cuda::applyFilter(f, src, dst, noCudaStream()); }, cv::Error::StsError, {"src (4x4 CV_8UC1) is uninitialised"});
    expectError([&] { cv::cuda::applyFilter(f, src, noCudaStream()); }, cv::Error::StsError, {"srcDst (4x4 CV_8UC1) is uninitialised"});
    EXPECT_TRUE(dst.empty());
}

//////////////////////////////////////////////////////////////////////////////////////////////
// Need a device

// A Gaussian filter for one type applied through applyFilter to a SyncedMat of another type:
// the filter's own check surfaces, and both images keep their data.
TEST(CudaImage_BadInputGpu, apply_filter_gaussian_of_other_type)
{
    CUDAIMAGE_REQUIRE_GPU();
    Stream s;
    SyncedMat src(Mat(16, 16, CV_16UC1, cv::Scalar(300)));
    SyncedMat dst(Mat(16, 16, CV_16UC1, cv::Scalar(7)));
    cv::Ptr<cv::cuda::Filter> f = blur8u();
    expectError([&] { cv::cuda::applyFilter(f, src, dst, s); }, cv::Error::StsUnmatchedFormats, {"src type is CV_16UC1"});
    expectError([&] { cv::cuda::applyFilter(f, src, s); }, cv::Error::StsUnmatchedFormats, {"src type is CV_16UC1"});
    Mat d = dst.readHost(), sv = src.readHost();
    EXPECT_EQ(0, cv::countNonZero(d != 7));
    EXPECT_EQ(0, cv::countNonZero(sv != 300));
}

TEST(CudaImage_BadInputGpu, release_only_valid_side)
{
    CUDAIMAGE_REQUIRE_GPU();
    Stream s;
    SyncedMat h(Mat(20, 20, CV_8UC1, cv::Scalar(4)));
    expectError([&] { h.releaseHost(); }, cv::Error::StsError, {"host holds the only valid copy", "upload()"});
    SyncedMat d(20, 20, CV_8UC1);
    d.writeDevice(s).setTo(cv::Scalar(3), s);
    expectError([&] { d.releaseDevice(); }, cv::Error::StsError, {"device holds the only valid copy", "download()"});
    EXPECT_EQ(0, cv::countNonZero(d.readHost() != 3));
}

TEST(CudaImage_BadInputGpu, synced_device_out_of_memory)
{
    CUDAIMAGE_REQUIRE_GPU();
    Stream s;
    SyncedMat huge(1 << 30, 1 << 30, CV_8UC4); // 4 EiB
    expectError([&] { huge.writeDevice(s); }, cv::Error::StsNoMem, {"cannot allocate", "device memory"});
    EXPECT_EQ((int)SyncedMat::UNINITIALIZED, huge.state());
}

TEST(CudaImage_BadInputGpu, synced_host_out_of_memory)
{
    CUDAIMAGE_REQUIRE_GPU();
    SyncedMat huge(1 << 30, 1 << 30, CV_8UC4);
    expectError([&] { huge.writeHost(); }, cv::Error::StsNoMem, {"cannot allocate", "page-locked"});
    EXPECT_FALSE(huge.isHostAllocated());
}

// A row so wide that the filter's scratch row (elements x 4 bytes for 16U) passes 2^31 bytes:
// Expected: a correct result or a cv::Exception (before the fix, the scratch width overflowed int,
// the allocation came back empty and the kernels wrote through a null pointer).
TEST(CudaImage_BadInputGpu, wide_row_scratch_overflow)
{
    CUDAIMAGE_REQUIRE_GPU();
    const int cols = 600000000; // 1.2 GB of 16UC1; scratch 2.4e9 bytes
    GpuMat src(1, cols, CV_16UC1), dst;
    src.setTo(cv::Scalar(1000));
    cv::Ptr<cv::cuda::Filter> f = createGaussianBlur(CV_16UC1, -1, Size(3, 3), 1);
    try
    {
        f->apply(src, dst);
        cv::cuda::Stream::Null().waitForCompletion();
        double lo = 0, hi = 0;
        Mat tail;
        dst.colRange(cols - 1000, cols).download(tail);
        cv::minMaxIdx(tail, &lo, &hi);
        EXPECT_EQ(1000, lo);
        EXPECT_EQ(1000, hi);
    }
    catch (const cv::Exception& e)
    {
        std::cout << "[ BADINPUT ] wide_row_scratch_overflow | " << int(e.code) << " | " << e.err << std::endl;
        EXPECT_NE(cv::Error::GpuApiCallError, e.code) << "a CUDA error, not an argument check: " << e.what();
    }
}

}} // namespace opencv_test
