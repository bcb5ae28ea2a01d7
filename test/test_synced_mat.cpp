// Tests of cv::cuda::SyncedMat.
//  - SyncedMat_Validation.*: everything that must fail (or hold) before any CUDA call; they need no
//    GPU and run in CI.
//  - SyncedMat_Cuda.*: state transitions with exact transfer counts and bytes, values, stream
//    hazards, ROI views, filters; each starts with CUDAIMAGE_REQUIRE_GPU().
#include "test_precomp.hpp"

#include <atomic>
#include <climits>
#include <string>
#include <thread>
#include <vector>

namespace opencv_test { namespace {

using cv::Mat;
using cv::Rect;
using cv::Scalar;
using cv::Size;
using cv::cuda::GpuMat;
using cv::cuda::Stream;
using cv::cuda::SyncedMat;
using cv::cuda::TransferStats;
using cudaimage_test::matsEqual;
using cudaimage_test::toHost;

// --- helpers ------------------------------------------------------------------------------------

// Runs f, which must throw cv::Exception whose message contains `needle`.
template <typename F>
void expectErrorMentioning(F f, const std::string& needle)
{
    try
    {
        f();
        ADD_FAILURE() << "expected a cv::Exception mentioning '" << needle << "'";
    }
    catch (const cv::Exception& e)
    {
        EXPECT_NE(std::string::npos, e.msg.find(needle)) << "message: " << e.msg;
    }
}

void expectStats(const SyncedMat& m, int uploads, size_t uploadBytes, int downloads, size_t downloadBytes)
{
    const TransferStats st = m.stats();
    EXPECT_EQ(uploads, st.uploads);
    EXPECT_EQ(uploadBytes, st.uploadBytes);
    EXPECT_EQ(downloads, st.downloads);
    EXPECT_EQ(downloadBytes, st.downloadBytes);
}

size_t bytesOf(Size s, int type) { return (size_t)s.area() * CV_ELEM_SIZE(type); }

// A filter for checks that never reach apply(), and for output-type mismatches: converts to 32F.
struct ConvertTo32F : public cv::cuda::Filter
{
    void apply(cv::InputArray src, cv::OutputArray dst, Stream& stream) override
    {
        src.getGpuMat().convertTo(dst, CV_MAKETYPE(CV_32F, src.channels()), stream);
    }
};

// dst = src + 1 (saturated), in any type.
struct AddOne : public cv::cuda::Filter
{
    void apply(cv::InputArray src, cv::OutputArray dst, Stream& stream) override
    {
        src.getGpuMat().convertTo(dst, -1, 1.0, 1.0, stream);
    }
};

// --- no GPU needed ------------------------------------------------------------------------------

TEST(SyncedMat_Validation, default_is_empty)
{
    SyncedMat m;
    EXPECT_TRUE(m.empty());
    EXPECT_EQ(Size(), m.size());
    EXPECT_EQ((int)SyncedMat::UNINITIALIZED, m.state());
    EXPECT_EQ(-1, m.deviceId());
    EXPECT_FALSE(m.isHostAllocated());
    EXPECT_FALSE(m.isDeviceAllocated());
    expectStats(m, 0, 0, 0, 0);
}

TEST(SyncedMat_Validation, size_and_type_is_uninitialised_and_allocates_nothing)
{
    SyncedMat m(480, 640, CV_8UC3);
    EXPECT_FALSE(m.empty());
    EXPECT_EQ(Size(640, 480), m.size());
    EXPECT_EQ(480, m.rows());
    EXPECT_EQ(640, m.cols());
    EXPECT_EQ(CV_8UC3, m.type());
    EXPECT_EQ(CV_8U, m.depth());
    EXPECT_EQ(3, m.channels());
    EXPECT_EQ(3u, m.elemSize());
    EXPECT_EQ((int)SyncedMat::UNINITIALIZED, m.state());
    EXPECT_FALSE(m.isHostValid());
    EXPECT_FALSE(m.isDeviceValid());
    EXPECT_FALSE(m.isHostAllocated());
    EXPECT_FALSE(m.isDeviceAllocated());
    EXPECT_EQ(-1, m.deviceId());
    EXPECT_FALSE(m.isSubmatrix());

    SyncedMat n(Size(7, 3), CV_32FC1);
    EXPECT_EQ(Size(7, 3), n.size());
    EXPECT_EQ(CV_32FC1, n.type());
}

TEST(SyncedMat_Validation, negative_sizes_are_refused)
{
    expectErrorMentioning([] { SyncedMat m(-1, 5, CV_8UC1); }, "rows=-1");
    expectErrorMentioning([] { SyncedMat m(Size(-2, 5), CV_8UC1); }, "cols=-2");
    SyncedMat m(4, 5, CV_8UC1);
    expectErrorMentioning([&] { m.create(4, -5, CV_8UC1); }, "negative");
    EXPECT_EQ(Size(5, 4), m.size());   // unchanged
    EXPECT_EQ(CV_8UC1, m.type());
}

TEST(SyncedMat_Validation, bad_types_are_refused)
{
    expectErrorMentioning([] { SyncedMat m(4, 4, -1); }, "type=-1");
    expectErrorMentioning([] { SyncedMat m(4, 4, CV_MAT_TYPE_MASK + 1); }, "not an OpenCV matrix type");
    SyncedMat m(4, 4, CV_16UC4);
    EXPECT_THROW(m.create(4, 4, 100000), cv::Exception);
    EXPECT_EQ(CV_16UC4, m.type());
}

TEST(SyncedMat_Validation, only_2d_mats_are_accepted)
{
    const int sz[] = {2, 3, 4};
    Mat m3(3, sz, CV_8UC1, Scalar(0));
    expectErrorMentioning([&] { SyncedMat m(m3); }, "2-D");
    SyncedMat fromEmpty{Mat()};
    EXPECT_TRUE(fromEmpty.empty());
}

TEST(SyncedMat_Validation, zero_size_gives_empty)
{
    SyncedMat m(0, 10, CV_8UC1);
    EXPECT_TRUE(m.empty());
    SyncedMat n(3, 3, CV_8UC1);
    n.create(3, 0, CV_8UC1);
    EXPECT_TRUE(n.empty());
}

TEST(SyncedMat_Validation, create_same_size_and_type_keeps_storage_other_detaches_handle)
{
    SyncedMat a(10, 20, CV_8UC1);
    SyncedMat b = a;                       // a shared handle, like Mat
    EXPECT_TRUE(a.sharesStorageWith(b));
    a.create(10, 20, CV_8UC1);
    EXPECT_TRUE(a.sharesStorageWith(b));
    a.create(Size(20, 10), CV_8UC1);       // the same, as a Size
    EXPECT_TRUE(a.sharesStorageWith(b));
    a.create(10, 20, CV_8UC3);
    EXPECT_FALSE(a.sharesStorageWith(b));
    EXPECT_EQ(CV_8UC3, a.type());
    EXPECT_EQ(CV_8UC1, b.type());          // the other handle keeps the old storage
}

TEST(SyncedMat_Validation, release_empties_this_handle_only)
{
    SyncedMat a(8, 8, CV_8UC1);
    SyncedMat b = a;
    a.release();
    EXPECT_TRUE(a.empty());
    EXPECT_FALSE(b.empty());
    EXPECT_EQ(Size(8, 8), b.size());
    // Releasing sides that were never allocated: nothing to do, no CUDA call.
    EXPECT_NO_THROW(b.releaseHost());
    EXPECT_NO_THROW(b.releaseDevice());
    EXPECT_NO_THROW(a.releaseHost());
}

TEST(SyncedMat_Validation, access_to_empty_is_refused)
{
    SyncedMat m;
    Stream s = cv::cuda::wrapStream(0);    // a Stream header that makes no CUDA call
    expectErrorMentioning([&] { m.readHost(); }, "empty");
    expectErrorMentioning([&] { m.writeHost(); }, "empty");
    expectErrorMentioning([&] { m.readWriteHost(); }, "empty");
    expectErrorMentioning([&] { m.readDevice(s); }, "empty");
    expectErrorMentioning([&] { m.writeDevice(s); }, "empty");
    expectErrorMentioning([&] { m.readWriteDevice(s); }, "empty");
    expectErrorMentioning([&] { m.upload(s); }, "empty");
    expectErrorMentioning([&] { m.download(s); }, "empty");
}

TEST(SyncedMat_Validation, read_of_uninitialised_is_refused_and_changes_nothing)
{
    SyncedMat m(16, 16, CV_8UC1);
    Stream s = cv::cuda::wrapStream(0);
    expectErrorMentioning([&] { m.readHost(); }, "uninitialised");
    expectErrorMentioning([&] { m.readWriteHost(); }, "uninitialised");
    expectErrorMentioning([&] { m.readDevice(s); }, "uninitialised");
    expectErrorMentioning([&] { m.readWriteDevice(s); }, "uninitialised");
    expectErrorMentioning([&] { m.upload(s); }, "uninitialised");
    expectErrorMentioning([&] { m.download(s); }, "uninitialised");
    EXPECT_EQ((int)SyncedMat::UNINITIALIZED, m.state());
    EXPECT_FALSE(m.isHostAllocated());
    EXPECT_FALSE(m.isDeviceAllocated());
    expectStats(m, 0, 0, 0, 0);
}

TEST(SyncedMat_Validation, roi_view_shares_storage_and_composes)
{
    SyncedMat parent(48, 64, CV_8UC3);
    SyncedMat view(parent, Rect(8, 4, 16, 12));
    EXPECT_EQ(Size(16, 12), view.size());
    EXPECT_EQ(Rect(8, 4, 16, 12), view.roi());
    EXPECT_EQ(Size(64, 48), view.storageSize());
    EXPECT_TRUE(view.isSubmatrix());
    EXPECT_FALSE(parent.isSubmatrix());
    EXPECT_TRUE(view.sharesStorageWith(parent));
    EXPECT_EQ(CV_8UC3, view.type());

    SyncedMat inner(view, Rect(1, 2, 3, 4));           // relative to the view
    EXPECT_EQ(Rect(9, 6, 3, 4), inner.roi());
    EXPECT_TRUE(inner.sharesStorageWith(parent));

    SyncedMat whole(parent, Rect(0, 0, 64, 48));
    EXPECT_FALSE(whole.isSubmatrix());
}

TEST(SyncedMat_Validation, bad_roi_is_refused)
{
    SyncedMat parent(48, 64, CV_8UC1);
    SyncedMat view(parent, Rect(8, 4, 16, 12));
    expectErrorMentioning([&] { SyncedMat v(parent, Rect(60, 0, 5, 1)); }, "not a non-empty rectangle inside");
    expectErrorMentioning([&] { SyncedMat v(parent, Rect(-1, 0, 5, 1)); }, "x=-1");
    expectErrorMentioning([&] { SyncedMat v(parent, Rect(0, 0, 0, 1)); }, "width=0");
    expectErrorMentioning([&] { SyncedMat v(parent, Rect(0, 40, 1, 9)); }, "64x48");
    expectErrorMentioning([&] { SyncedMat v(parent, Rect(1, 1, INT_MAX, 1)); }, "inside");   // no overflow
    expectErrorMentioning([&] { SyncedMat v(view, Rect(0, 0, 17, 1)); }, "16x12");           // the view's bounds
    expectErrorMentioning([&] { SyncedMat v(SyncedMat(), Rect(0, 0, 1, 1)); }, "parent is empty");
}

TEST(SyncedMat_Validation, create_on_roi_view_with_other_size_or_type_is_refused)
{
    SyncedMat parent(48, 64, CV_8UC1);
    SyncedMat view(parent, Rect(8, 4, 16, 12));
    EXPECT_NO_THROW(view.create(12, 16, CV_8UC1));      // matches: no-op
    EXPECT_TRUE(view.sharesStorageWith(parent));
    expectErrorMentioning([&] { view.create(12, 17, CV_8UC1); }, "detach");
    expectErrorMentioning([&] { view.create(12, 16, CV_8UC3); }, "ROI view");
    EXPECT_TRUE(view.sharesStorageWith(parent));
    EXPECT_EQ(Rect(8, 4, 16, 12), view.roi());
}

TEST(SyncedMat_Validation, transfer_reasons)
{
    EXPECT_EQ("READ_DEVICE", std::string(TransferStats::reasonName(TransferStats::READ_DEVICE)));
    EXPECT_EQ("PREFETCH_DOWNLOAD", std::string(TransferStats::reasonName(TransferStats::PREFETCH_DOWNLOAD)));
    TransferStats st;
    for (int r = 0; r < TransferStats::REASON_COUNT; ++r)
    {
        EXPECT_EQ(0, st.count(r));
        EXPECT_EQ(0u, st.bytesFor(r));
    }
    EXPECT_THROW(st.count(-1), cv::Exception);
    EXPECT_THROW(st.count(TransferStats::REASON_COUNT), cv::Exception);
    EXPECT_THROW(st.bytesFor(TransferStats::REASON_COUNT), cv::Exception);
    EXPECT_THROW(TransferStats::reasonName(99), cv::Exception);
}

TEST(SyncedMat_Validation, apply_filter_arguments_are_checked_first)
{
    cv::Ptr<cv::cuda::Filter> filter = cv::makePtr<ConvertTo32F>();
    Stream s = cv::cuda::wrapStream(0);
    SyncedMat src(16, 16, CV_8UC1), dst(8, 8, CV_8UC1), none;
    expectErrorMentioning([&] { cv::cuda::applyFilter(cv::Ptr<cv::cuda::Filter>(), src, dst, s); }, "filter is null");
    expectErrorMentioning([&] { cv::cuda::applyFilter(filter, none, dst, s); }, "src is empty");
    expectErrorMentioning([&] { cv::cuda::applyFilter(filter, src, dst, s); }, "dst is 8x8 but src is 16x16");
    SyncedMat dst2;
    expectErrorMentioning([&] { cv::cuda::applyFilter(filter, src, dst2, s); }, "uninitialised");
    EXPECT_TRUE(dst2.empty());
    expectErrorMentioning([&] { cv::cuda::applyFilter(filter, src, s); }, "uninitialised");
    expectErrorMentioning([&] { cv::cuda::applyFilter(filter, none, s); }, "src is empty");
    EXPECT_EQ((int)SyncedMat::UNINITIALIZED, src.state());
    EXPECT_FALSE(src.isDeviceAllocated());
}

// --- GPU ----------------------------------------------------------------------------------------

TEST(SyncedMat_Cuda, from_mat_copies_into_pinned_host_memory)
{
    CUDAIMAGE_REQUIRE_GPU();
    cv::RNG rng(1);
    Mat src = cudaimage_test::randomMat(Size(113, 71), CV_8UC3, rng);
    SyncedMat m(src);
    EXPECT_EQ((int)SyncedMat::HOST_VALID, m.state());
    EXPECT_TRUE(m.isHostAllocated());
    EXPECT_FALSE(m.isDeviceAllocated());
    EXPECT_EQ(cv::cuda::getDevice(), m.deviceId());
    Mat h = m.readHost();
    EXPECT_NE(src.data, h.data);            // a copy, not a reference
    EXPECT_MAT_EQ(src, h);
    src.setTo(Scalar::all(0));             // the caller's Mat is not referenced
    EXPECT_FALSE(matsEqual(src, m.readHost()));
    expectStats(m, 0, 0, 0, 0);
}

TEST(SyncedMat_Cuda, read_device_uploads_once)
{
    CUDAIMAGE_REQUIRE_GPU();
    cv::RNG rng(2);
    Mat src = cudaimage_test::randomMat(Size(640, 480), CV_8UC4, rng);
    SyncedMat m(src);
    Stream s;
    GpuMat d = m.readDevice(s);
    EXPECT_EQ((int)SyncedMat::BOTH_VALID, m.state());
    expectStats(m, 1, bytesOf(src.size(), src.type()), 0, 0);
    EXPECT_EQ(1, m.stats().count(TransferStats::READ_DEVICE));
    EXPECT_EQ(bytesOf(src.size(), src.type()), m.stats().bytesFor(TransferStats::READ_DEVICE));
    EXPECT_MAT_EQ(src, toHost(d, s));
    GpuMat d2 = m.readDevice(s);           // valid: free
    EXPECT_EQ(d.data, d2.data);
    Mat h = m.readHost();                  // both valid: free
    EXPECT_MAT_EQ(src, h);
    expectStats(m, 1, bytesOf(src.size(), src.type()), 0, 0);
}

TEST(SyncedMat_Cuda, write_device_then_read_host_downloads_once)
{
    CUDAIMAGE_REQUIRE_GPU();
    const Size sz(333, 211);
    SyncedMat m(sz, CV_16UC1);
    Stream s;
    m.writeDevice(s).setTo(Scalar(4242), s);
    EXPECT_EQ((int)SyncedMat::DEVICE_VALID, m.state());
    EXPECT_FALSE(m.isHostAllocated());
    expectStats(m, 0, 0, 0, 0);            // a first write copies nothing
    Mat h = m.readHost();
    EXPECT_EQ((int)SyncedMat::BOTH_VALID, m.state());
    EXPECT_MAT_EQ(Mat(sz, CV_16UC1, Scalar(4242)), h);
    expectStats(m, 0, 0, 1, bytesOf(sz, CV_16UC1));
    EXPECT_EQ(1, m.stats().count(TransferStats::READ_HOST));
    m.readHost();
    expectStats(m, 0, 0, 1, bytesOf(sz, CV_16UC1));
}

TEST(SyncedMat_Cuda, write_host_discards_without_download)
{
    CUDAIMAGE_REQUIRE_GPU();
    const Size sz(64, 32);
    SyncedMat m(sz, CV_8UC1);
    Stream s;
    m.writeDevice(s).setTo(Scalar(7), s);
    Mat h = m.writeHost();                 // device is newer, but this is a discard-write
    expectStats(m, 0, 0, 0, 0);
    EXPECT_EQ((int)SyncedMat::HOST_VALID, m.state());
    h.setTo(Scalar(3));
    EXPECT_MAT_EQ(Mat(sz, CV_8UC1, Scalar(3)), toHost(m.readDevice(s), s));
    expectStats(m, 1, bytesOf(sz, CV_8UC1), 0, 0);
}

TEST(SyncedMat_Cuda, read_write_host_downloads_then_invalidates_device)
{
    CUDAIMAGE_REQUIRE_GPU();
    const Size sz(31, 17);
    SyncedMat m(sz, CV_32FC1);
    Stream s;
    m.writeDevice(s).setTo(Scalar(1.5), s);
    Mat h = m.readWriteHost();
    EXPECT_EQ(1, m.stats().count(TransferStats::READ_WRITE_HOST));
    EXPECT_EQ((int)SyncedMat::HOST_VALID, m.state());
    EXPECT_MAT_EQ(Mat(sz, CV_32FC1, Scalar(1.5)), h);
    h += 1.0;
    EXPECT_MAT_EQ(Mat(sz, CV_32FC1, Scalar(2.5)), toHost(m.readDevice(s), s));
    expectStats(m, 1, bytesOf(sz, CV_32FC1), 1, bytesOf(sz, CV_32FC1));
}

TEST(SyncedMat_Cuda, read_write_device_uploads_then_invalidates_host)
{
    CUDAIMAGE_REQUIRE_GPU();
    const Size sz(50, 40);
    SyncedMat m(Mat(sz, CV_8UC1, Scalar(10)));
    Stream s;
    GpuMat d = m.readWriteDevice(s);
    EXPECT_EQ(1, m.stats().count(TransferStats::READ_WRITE_DEVICE));
    EXPECT_EQ((int)SyncedMat::DEVICE_VALID, m.state());
    d.convertTo(d, CV_8U, 1.0, 5.0, s);
    EXPECT_MAT_EQ(Mat(sz, CV_8UC1, Scalar(15)), m.readHost());
    expectStats(m, 1, bytesOf(sz, CV_8UC1), 1, bytesOf(sz, CV_8UC1));
}

TEST(SyncedMat_Cuda, prefetch_counts_and_is_a_no_op_when_valid)
{
    CUDAIMAGE_REQUIRE_GPU();
    const Size sz(128, 64);
    const size_t b = bytesOf(sz, CV_8UC3);
    SyncedMat m(Mat(sz, CV_8UC3, Scalar(1, 2, 3)));
    Stream s;
    m.download(s);                         // host valid: no-op
    m.upload(s);
    m.upload(s);                           // now valid: no-op
    expectStats(m, 1, b, 0, 0);
    EXPECT_EQ(1, m.stats().count(TransferStats::PREFETCH_UPLOAD));
    m.readDevice(s);                       // prefetched: free
    expectStats(m, 1, b, 0, 0);
    m.writeDevice(s).setTo(Scalar(4, 5, 6), s);
    m.download(s);
    EXPECT_EQ(1, m.stats().count(TransferStats::PREFETCH_DOWNLOAD));
    EXPECT_MAT_EQ(Mat(sz, CV_8UC3, Scalar(4, 5, 6)), m.readHost());   // waits for the download
    expectStats(m, 1, b, 1, b);
    m.resetStats();
    expectStats(m, 0, 0, 0, 0);
    EXPECT_EQ(0, m.stats().count(TransferStats::PREFETCH_UPLOAD));
}

TEST(SyncedMat_Cuda, host_read_waits_for_async_download_of_large_image)
{
    CUDAIMAGE_REQUIRE_GPU();
    const Size sz(4096, 4096);
    SyncedMat m(sz, CV_8UC4);
    Stream s;
    GpuMat d = m.writeDevice(s);
    for (int i = 0; i < 20; ++i)           // keep the stream busy so the download is really pending
        d.setTo(Scalar::all(i), s);
    d.setTo(Scalar::all(99), s);
    m.download(s);
    Mat h = m.readHost();
    EXPECT_MAT_EQ(Mat(sz, CV_8UC4, Scalar::all(99)), h);
}

TEST(SyncedMat_Cuda, device_read_on_other_stream_waits_for_write_raw)
{
    CUDAIMAGE_REQUIRE_GPU();
    const Size sz(4096, 4096);
    SyncedMat m(sz, CV_8UC4);
    Stream writer, reader;
    GpuMat w = m.writeDevice(writer);
    for (int i = 0; i < 20; ++i)
        w.setTo(Scalar::all(i), writer);
    w.setTo(Scalar::all(42), writer);
    GpuMat r = m.readDevice(reader);       // reader waits for writer's event, not the host
    GpuMat copy;
    r.copyTo(copy, reader);
    EXPECT_MAT_EQ(Mat(sz, CV_8UC4, Scalar::all(42)), toHost(copy, reader));
    expectStats(m, 0, 0, 0, 0);
}

TEST(SyncedMat_Cuda, device_write_waits_for_readers_on_other_streams_war)
{
    CUDAIMAGE_REQUIRE_GPU();
    const Size sz(4096, 4096);
    SyncedMat m(Mat(sz, CV_8UC4, Scalar::all(1)));
    Stream r1, r2, w;
    GpuMat a = m.readDevice(r1);
    GpuMat b = m.readDevice(r2);
    std::vector<GpuMat> copies1(8), copies2(8);
    for (int i = 0; i < 8; ++i)            // slow readers
    {
        a.copyTo(copies1[i], r1);
        b.copyTo(copies2[i], r2);
    }
    m.writeDevice(w).setTo(Scalar::all(2), w);   // must wait for both readers
    const Mat ones(sz, CV_8UC4, Scalar::all(1));
    EXPECT_MAT_EQ(ones, toHost(copies1.back(), r1));
    EXPECT_MAT_EQ(ones, toHost(copies2.back(), r2));
    EXPECT_MAT_EQ(Mat(sz, CV_8UC4, Scalar::all(2)), m.readHost());
    expectStats(m, 1, bytesOf(sz, CV_8UC4), 1, bytesOf(sz, CV_8UC4));
}

TEST(SyncedMat_Cuda, host_write_waits_for_async_upload)
{
    CUDAIMAGE_REQUIRE_GPU();
    const Size sz(4096, 4096);
    SyncedMat m(Mat(sz, CV_8UC4, Scalar::all(11)));
    Stream s;
    m.upload(s);                           // asynchronous, reads host memory
    GpuMat snapshot;
    m.readDevice(s).copyTo(snapshot, s);
    Mat h = m.writeHost();                 // must wait until the upload has read host memory
    h.setTo(Scalar::all(22));
    EXPECT_MAT_EQ(Mat(sz, CV_8UC4, Scalar::all(11)), toHost(snapshot, s));
    EXPECT_MAT_EQ(Mat(sz, CV_8UC4, Scalar::all(22)), toHost(m.readDevice(s), s));
    expectStats(m, 2, 2 * bytesOf(sz, CV_8UC4), 0, 0);
}

TEST(SyncedMat_Cuda, concurrent_readers_share_one_upload)
{
    CUDAIMAGE_REQUIRE_GPU();
    cv::RNG rng(3);
    Mat src = cudaimage_test::randomMat(Size(1024, 768), CV_8UC1, rng);
    SyncedMat m(src);
    const int n = 4;
    std::vector<Mat> results(n);
    std::vector<std::thread> threads;
    std::atomic<int> failures(0);
    for (int i = 0; i < n; ++i)
        threads.emplace_back([&, i] {
            try
            {
                cv::cuda::setDevice(m.deviceId());   // a new thread starts on device 0
                Stream s;
                GpuMat copy;
                m.readDevice(s).copyTo(copy, s);
                results[i] = toHost(copy, s);
            }
            catch (...)
            {
                ++failures;
            }
        });
    for (std::thread& t : threads)
        t.join();
    EXPECT_EQ(0, failures.load());
    for (int i = 0; i < n; ++i)
        EXPECT_MAT_EQ(src, results[i]);
    expectStats(m, 1, bytesOf(src.size(), src.type()), 0, 0);
}

TEST(SyncedMat_Cuda, null_stream_is_allowed)
{
    CUDAIMAGE_REQUIRE_GPU();
    const Size sz(100, 100);
    SyncedMat m(Mat(sz, CV_32FC1, Scalar(0.25)));
    GpuMat d = m.readWriteDevice();        // Stream::Null()
    d.convertTo(d, CV_32F, 4.0);
    EXPECT_MAT_EQ(Mat(sz, CV_32FC1, Scalar(1.0)), m.readHost());
    expectStats(m, 1, bytesOf(sz, CV_32FC1), 1, bytesOf(sz, CV_32FC1));
}

TEST(SyncedMat_Cuda, adopts_gpumat_without_copy)
{
    CUDAIMAGE_REQUIRE_GPU();
    Stream s;
    GpuMat g(Size(77, 55), CV_8UC2);
    g.setTo(Scalar(9, 8), s);
    SyncedMat m(g, s);
    EXPECT_EQ((int)SyncedMat::DEVICE_VALID, m.state());
    EXPECT_EQ(g.data, m.readDevice(s).data);
    EXPECT_FALSE(m.isHostAllocated());
    EXPECT_MAT_EQ(Mat(g.size(), CV_8UC2, Scalar(9, 8)), m.readHost());
    expectStats(m, 0, 0, 1, bytesOf(g.size(), CV_8UC2));
}

TEST(SyncedMat_Cuda, copies_share_state)
{
    CUDAIMAGE_REQUIRE_GPU();
    Stream s;
    SyncedMat a(Mat(8, 8, CV_8UC1, Scalar(1)));
    a.upload(s);
    SyncedMat b = a;
    b.writeHost().setTo(Scalar(2));
    EXPECT_EQ((int)SyncedMat::HOST_VALID, a.state());
    EXPECT_MAT_EQ(Mat(8, 8, CV_8UC1, Scalar(2)), toHost(a.readDevice(s), s));
    EXPECT_EQ(2, a.stats().uploads);
}

TEST(SyncedMat_Cuda, roi_host_write_then_device_read_transfers_whole_storage)
{
    CUDAIMAGE_REQUIRE_GPU();
    cv::RNG rng(4);
    const Size sz(64, 48);
    Mat src = cudaimage_test::randomMat(sz, CV_8UC3, rng);
    SyncedMat parent(src);
    Stream s;
    parent.readDevice(s);                  // both valid
    parent.resetStats();
    const Rect r(8, 4, 16, 12);
    SyncedMat view(parent, r);
    Mat hv = view.writeHost();             // both valid before: nothing to transfer
    EXPECT_EQ(r.size(), hv.size());
    hv.setTo(Scalar(1, 2, 3));
    EXPECT_EQ((int)SyncedMat::HOST_VALID, parent.state());   // the parent's device is stale too
    Mat expected = src.clone();
    expected(r).setTo(Scalar(1, 2, 3));
    EXPECT_MAT_EQ(expected, toHost(parent.readDevice(s), s));
    // State is per storage: the whole 64x48 image went up, not the 16x12 ROI.
    expectStats(parent, 1, bytesOf(sz, CV_8UC3), 0, 0);
    expectStats(view, 1, bytesOf(sz, CV_8UC3), 0, 0);        // the counters are shared
}

TEST(SyncedMat_Cuda, roi_host_write_when_device_is_newer_downloads_whole_storage_first)
{
    CUDAIMAGE_REQUIRE_GPU();
    const Size sz(64, 48);
    SyncedMat parent(sz, CV_8UC1);
    Stream s;
    parent.writeDevice(s).setTo(Scalar(9), s);
    const Rect r(10, 10, 5, 5);
    SyncedMat view(parent, r);
    view.writeHost().setTo(Scalar(1));     // discard-write on a partial view keeps the rest valid
    EXPECT_EQ(1, parent.stats().count(TransferStats::WRITE_HOST_PARTIAL));
    expectStats(parent, 0, 0, 1, bytesOf(sz, CV_8UC1));
    Mat expected(sz, CV_8UC1, Scalar(9));
    expected(r).setTo(Scalar(1));
    EXPECT_MAT_EQ(expected, parent.readHost());
    EXPECT_EQ((int)SyncedMat::HOST_VALID, parent.state());
}

TEST(SyncedMat_Cuda, roi_device_write_when_host_is_newer_uploads_whole_storage_first)
{
    CUDAIMAGE_REQUIRE_GPU();
    const Size sz(64, 48);
    SyncedMat parent(Mat(sz, CV_8UC1, Scalar(5)));
    Stream s;
    const Rect r(0, 20, 64, 8);
    SyncedMat view(parent, r);
    GpuMat dv = view.writeDevice(s);
    EXPECT_EQ(r.size(), dv.size());
    dv.setTo(Scalar(6), s);
    EXPECT_EQ(1, parent.stats().count(TransferStats::WRITE_DEVICE_PARTIAL));
    EXPECT_EQ((int)SyncedMat::DEVICE_VALID, parent.state());
    Mat expected(sz, CV_8UC1, Scalar(5));
    expected(r).setTo(Scalar(6));
    EXPECT_MAT_EQ(expected, parent.readHost());
    expectStats(parent, 1, bytesOf(sz, CV_8UC1), 1, bytesOf(sz, CV_8UC1));
}

TEST(SyncedMat_Cuda, releasing_the_only_valid_side_is_refused)
{
    CUDAIMAGE_REQUIRE_GPU();
    Stream s;
    SyncedMat d(20, 20, CV_8UC1);
    d.writeDevice(s).setTo(Scalar(3), s);
    expectErrorMentioning([&] { d.releaseDevice(); }, "only valid copy");
    EXPECT_TRUE(d.isDeviceAllocated());
    EXPECT_MAT_EQ(Mat(20, 20, CV_8UC1, Scalar(3)), d.readHost());

    SyncedMat h(Mat(20, 20, CV_8UC1, Scalar(4)));
    expectErrorMentioning([&] { h.releaseHost(); }, "call upload() first");
    EXPECT_MAT_EQ(Mat(20, 20, CV_8UC1, Scalar(4)), h.readHost());
}

TEST(SyncedMat_Cuda, release_a_side_then_access_allocates_and_transfers_again)
{
    CUDAIMAGE_REQUIRE_GPU();
    Stream s;
    const Size sz(40, 30);
    SyncedMat m(Mat(sz, CV_8UC1, Scalar(8)));
    m.upload(s);
    m.releaseDevice();
    EXPECT_FALSE(m.isDeviceAllocated());
    EXPECT_EQ((int)SyncedMat::HOST_VALID, m.state());
    EXPECT_MAT_EQ(Mat(sz, CV_8UC1, Scalar(8)), toHost(m.readDevice(s), s));
    EXPECT_EQ(2, m.stats().uploads);
    m.releaseHost();
    EXPECT_FALSE(m.isHostAllocated());
    EXPECT_EQ((int)SyncedMat::DEVICE_VALID, m.state());
    EXPECT_MAT_EQ(Mat(sz, CV_8UC1, Scalar(8)), m.readHost());
    EXPECT_EQ(1, m.stats().downloads);
}

TEST(SyncedMat_Cuda, create_with_same_size_and_type_reuses_memory)
{
    CUDAIMAGE_REQUIRE_GPU();
    Stream s;
    SyncedMat m(Mat(16, 16, CV_8UC1, Scalar(1)));
    const uchar* dp = m.readDevice(s).data;
    const uchar* hp = m.readHost().data;
    m.create(16, 16, CV_8UC1);
    EXPECT_EQ(dp, m.readDevice(s).data);
    EXPECT_EQ(hp, m.readHost().data);
    EXPECT_EQ((int)SyncedMat::BOTH_VALID, m.state());      // data kept
}

TEST(SyncedMat_Cuda, out_of_memory_leaves_the_object_intact)
{
    CUDAIMAGE_REQUIRE_GPU();
    Stream s;
    SyncedMat huge(1 << 30, 1 << 30, CV_8UC4);             // 4 EiB: never allocatable
    expectErrorMentioning([&] { huge.writeDevice(s); }, "cannot allocate");
    expectErrorMentioning([&] { huge.writeHost(); }, "cannot allocate");
    EXPECT_EQ((int)SyncedMat::UNINITIALIZED, huge.state());
    EXPECT_FALSE(huge.isDeviceAllocated());
    EXPECT_FALSE(huge.isHostAllocated());
    // CUDA is still usable afterwards.
    SyncedMat small(Mat(4, 4, CV_8UC1, Scalar(1)));
    EXPECT_MAT_EQ(Mat(4, 4, CV_8UC1, Scalar(1)), toHost(small.readDevice(s), s));
}

TEST(SyncedMat_Cuda, other_device_is_refused)
{
    CUDAIMAGE_REQUIRE_GPU();
    if (cv::cuda::getCudaEnabledDeviceCount() < 2)
        CUDAIMAGE_SKIP("needs two CUDA devices");
    const int dev0 = cv::cuda::getDevice();
    const int dev1 = dev0 == 0 ? 1 : 0;
    SyncedMat m(Mat(8, 8, CV_8UC1, Scalar(1)));
    EXPECT_EQ(dev0, m.deviceId());
    cv::cuda::setDevice(dev1);
    Stream other;                          // belongs to dev1
    expectErrorMentioning([&] { m.readDevice(other); }, "current device is");
    cv::cuda::setDevice(dev0);
    expectErrorMentioning([&] { m.readDevice(other); }, "the stream belongs to CUDA device");
    EXPECT_EQ((int)SyncedMat::HOST_VALID, m.state());
    EXPECT_FALSE(m.isDeviceAllocated());
    Stream mine;
    EXPECT_MAT_EQ(Mat(8, 8, CV_8UC1, Scalar(1)), toHost(m.readDevice(mine), mine));
}

// --- filters ------------------------------------------------------------------------------------

cv::Ptr<cv::cuda::Filter> gaussian(int type)
{
    return cv::cuda::createGaussianFilter(type, type, Size(5, 5), 1.5);
}

// The same chain with plain GpuMats: the reference.
Mat chainOnGpuMats(const Mat& src, int n, Stream& s)
{
    cv::Ptr<cv::cuda::Filter> f = gaussian(src.type());
    GpuMat a, b;
    a.upload(src, s);
    for (int i = 0; i < n; ++i)
    {
        f->apply(a, b, s);
        std::swap(a, b);
    }
    return toHost(a, s);
}

TEST(SyncedMat_Cuda, in_place_filter_chain_costs_one_upload_and_one_download)
{
    CUDAIMAGE_REQUIRE_GPU();
    cv::RNG rng(5);
    Mat src = cudaimage_test::randomMat(Size(640, 480), CV_8UC4, rng);
    Stream s;
    SyncedMat m(src);
    cv::Ptr<cv::cuda::Filter> f = gaussian(CV_8UC4);
    for (int i = 0; i < 3; ++i)
        cv::cuda::applyFilter(f, m, s);
    EXPECT_EQ((int)SyncedMat::DEVICE_VALID, m.state());
    Mat out = m.readHost();
    const size_t b = bytesOf(src.size(), src.type());
    expectStats(m, 1, b, 1, b);
    EXPECT_EQ(1, m.stats().count(TransferStats::READ_WRITE_DEVICE));
    EXPECT_EQ(1, m.stats().count(TransferStats::READ_HOST));
    EXPECT_MAT_EQ(chainOnGpuMats(src, 3, s), out);
}

TEST(SyncedMat_Cuda, filter_chain_across_objects_costs_one_upload_and_one_download)
{
    CUDAIMAGE_REQUIRE_GPU();
    cv::RNG rng(6);
    Mat src = cudaimage_test::randomMat(Size(257, 129), CV_8UC1, rng);
    Stream s;
    cv::Ptr<cv::cuda::Filter> f = gaussian(CV_8UC1);
    SyncedMat a(src), b, c, d;
    cv::cuda::applyFilter(f, a, b, s);     // empty dst: created from the filter's output
    cv::cuda::applyFilter(f, b, c, s);
    cv::cuda::applyFilter(f, c, d, s);
    EXPECT_EQ(src.size(), d.size());
    EXPECT_EQ(CV_8UC1, d.type());
    Mat out = d.readHost();
    const size_t bytes = bytesOf(src.size(), src.type());
    expectStats(a, 1, bytes, 0, 0);
    expectStats(b, 0, 0, 0, 0);
    expectStats(c, 0, 0, 0, 0);
    expectStats(d, 0, 0, 1, bytes);
    EXPECT_MAT_EQ(chainOnGpuMats(src, 3, s), out);
    // Again into the existing objects: discard-writes, still no transfer but one upload of new data.
    a.writeHost().setTo(Scalar(100));
    cv::cuda::applyFilter(f, a, b, s);
    EXPECT_EQ((int)SyncedMat::DEVICE_VALID, b.state());
    EXPECT_MAT_EQ(Mat(src.size(), CV_8UC1, Scalar(100)), b.readHost());
    EXPECT_EQ(2, a.stats().uploads);
}

TEST(SyncedMat_Cuda, filter_between_views_of_one_storage)
{
    CUDAIMAGE_REQUIRE_GPU();
    cv::RNG rng(7);
    Mat src = cudaimage_test::randomMat(Size(128, 64), CV_8UC1, rng);
    Stream s;
    SyncedMat whole(src);
    SyncedMat left(whole, Rect(0, 0, 64, 64)), right(whole, Rect(64, 0, 64, 64)), overlap(whole, Rect(32, 0, 64, 64));
    cv::Ptr<cv::cuda::Filter> f = gaussian(CV_8UC1);
    cv::cuda::applyFilter(f, left, right, s);
    cv::cuda::applyFilter(f, left, overlap, s);  // overlapping: goes through the scratch buffer
    Mat expected = src.clone();
    Mat leftRef = chainOnGpuMats(src(Rect(0, 0, 64, 64)).clone(), 1, s);
    leftRef.copyTo(expected(Rect(64, 0, 64, 64)));
    // the second filter reads the left half after the first wrote the right half: same left input
    leftRef.copyTo(expected(Rect(32, 0, 64, 64)));
    EXPECT_MAT_EQ(expected, whole.readHost());
    expectStats(whole, 1, bytesOf(src.size(), src.type()), 1, bytesOf(src.size(), src.type()));
}

// applyFilter runs the filter under the storage's lock, so in-place filters from several threads
// on their own streams are ordered on the GPU (each waits for the previous writer): no lost update.
TEST(SyncedMat_Cuda, in_place_filters_from_threads_are_ordered)
{
    CUDAIMAGE_REQUIRE_GPU();
    const Size sz(512, 256);
    SyncedMat m(Mat(sz, CV_8UC1, Scalar(0)));
    cv::Ptr<cv::cuda::Filter> addOne = cv::makePtr<AddOne>();
    const int nThreads = 4, perThread = 25;
    std::atomic<int> failures(0);
    std::vector<std::thread> threads;
    for (int t = 0; t < nThreads; ++t)
        threads.emplace_back([&] {
            try
            {
                cv::cuda::setDevice(m.deviceId());
                Stream s;
                for (int i = 0; i < perThread; ++i)
                    cv::cuda::applyFilter(addOne, m, s);
            }
            catch (...)
            {
                ++failures;
            }
        });
    for (std::thread& t : threads)
        t.join();
    EXPECT_EQ(0, failures.load());
    EXPECT_MAT_EQ(Mat(sz, CV_8UC1, Scalar(nThreads * perThread)), m.readHost());
    expectStats(m, 1, bytesOf(sz, CV_8UC1), 1, bytesOf(sz, CV_8UC1));
}

TEST(SyncedMat_Cuda, filter_output_type_mismatch_is_refused_and_dst_kept)
{
    CUDAIMAGE_REQUIRE_GPU();
    Stream s;
    cv::Ptr<cv::cuda::Filter> toFloat = cv::makePtr<ConvertTo32F>();
    SyncedMat src(Mat(16, 16, CV_8UC1, Scalar(2)));
    SyncedMat dst(Mat(16, 16, CV_8UC1, Scalar(7)));
    expectErrorMentioning([&] { cv::cuda::applyFilter(toFloat, src, dst, s); }, "32FC1");
    EXPECT_EQ((int)SyncedMat::HOST_VALID, dst.state());
    EXPECT_MAT_EQ(Mat(16, 16, CV_8UC1, Scalar(7)), dst.readHost());
    expectErrorMentioning([&] { cv::cuda::applyFilter(toFloat, src, s); }, "32FC1");
    EXPECT_MAT_EQ(Mat(16, 16, CV_8UC1, Scalar(2)), src.readHost());
    SyncedMat created;                     // empty dst takes the filter's type
    cv::cuda::applyFilter(toFloat, src, created, s);
    EXPECT_EQ(CV_32FC1, created.type());
    EXPECT_MAT_EQ(Mat(16, 16, CV_32FC1, Scalar(2)), created.readHost());
}

}} // namespace opencv_test::<anonymous>
