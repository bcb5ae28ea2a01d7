// Tests of cv::cuda::SyncedMat, in two suites of one fixture each, so that SyncedMat_Validation.* and
// SyncedMat_Cuda.* select all of their tests (scripts/gpu/run-sanitizers.sh runs SyncedMat_Cuda.*):
// a suite's table of cases is its TEST_P, instantiated without a prefix; its single cases are TEST_F.
//  - SyncedMat_Validation.*: what must fail (or hold) before any CUDA call; no GPU needed, run in CI.
//    refused/<case>: every refused call, its error code and message, and that nothing changed.
//  - SyncedMat_Cuda.*: each starts with CUDAIMAGE_REQUIRE_GPU(). transition/<from>_<access>[_roi]_<shape>:
//    every access and release from every state, whole image and ROI view, with the state after and
//    the bytes copied, on five shapes; then stream hazards, threads, refusals, memory and filters.
#include "test_precomp.hpp"

#include <algorithm>
#include <atomic>
#include <climits>
#include <functional>
#include <ostream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

namespace opencv_test { namespace {

// --- helpers ------------------------------------------------------------------------------------

// f must throw cv::Exception whose message contains `needle`; prints "[ SYNCEDMAT ] test | code | message".
template <typename F>
void expectErrorMentioning(F f, const char* needle) { expectError(f, kAnyCode, {needle}, "SYNCEDMAT"); }

void expectStats(const SyncedMat& m, int uploads, size_t uploadBytes, int downloads, size_t downloadBytes)
{
    const TransferStats st = m.stats();
    EXPECT_EQ(uploads, st.uploads);
    EXPECT_EQ(uploadBytes, st.uploadBytes);
    EXPECT_EQ(downloads, st.downloads);
    EXPECT_EQ(downloadBytes, st.downloadBytes);
}

size_t bytesOf(Size s, int type) { return (size_t)s.area() * CV_ELEM_SIZE(type); }

// For checks that never reach apply(), and for output-type mismatches: converts to 32F.
struct ConvertTo32F : public cv::cuda::Filter
{
    void apply(cv::InputArray src, cv::OutputArray dst, Stream& s) override
    { src.getGpuMat().convertTo(dst, CV_MAKETYPE(CV_32F, src.channels()), s); }
};

// dst = src + 1 (saturated), in any type.
struct AddOne : public cv::cuda::Filter
{
    void apply(cv::InputArray src, cv::OutputArray dst, Stream& s) override
    { src.getGpuMat().convertTo(dst, -1, 1.0, 1.0, s); }
};

// Runs fn(i) for i < n, each on its own thread on `device` (a new thread starts on device 0);
// returns how many threw.
int onThreads(int n, int device, const std::function<void(int)>& fn)
{
    std::atomic<int> failures(0);
    std::vector<std::thread> threads;
    for (int i = 0; i < n; ++i)
        threads.emplace_back([&, i] {
            try { cv::cuda::setDevice(device); fn(i); }
            catch (...) { ++failures; }
        });
    for (std::thread& t : threads)
        t.join();
    return failures.load();
}

// --- no GPU needed: refused calls ---------------------------------------------------------------

// The objects a refused call may touch, made afresh for each case.
struct Subjects
{
    SyncedMat none;                                 // empty
    SyncedMat uninit{16, 16, CV_8UC1};
    SyncedMat small{8, 8, CV_8UC1};
    SyncedMat parent{48, 64, CV_8UC1};
    SyncedMat view{parent, Rect(8, 4, 16, 12)};
};

std::string describe(const Subjects& o)
{
    std::string d = o.view.sharesStorageWith(o.parent) ? "view of parent" : "view detached";
    for (const SyncedMat* m : {&o.none, &o.uninit, &o.small, &o.parent, &o.view})
        d += cv::format("; empty %d, %dx%d type %d, roi at (%d, %d), state %d, allocated %d/%d, %d up %d down", m->empty(),
                        m->cols(), m->rows(), m->type(), m->roi().x, m->roi().y, m->state(), m->isHostAllocated(),
                        m->isDeviceAllocated(), m->stats().uploads, m->stats().downloads);
    return d;
}

struct Refusal { const char* name; void (*call)(Subjects&); int code; const char* needle; };

void PrintTo(const Refusal& c, std::ostream* os) { *os << c.name; }

void to32F(SyncedMat& src, SyncedMat& dst) { cv::cuda::applyFilter(cv::makePtr<ConvertTo32F>(), src, dst, noCudaStream()); }
void to32F(SyncedMat& srcDst) { cv::cuda::applyFilter(cv::makePtr<ConvertTo32F>(), srcDst, noCudaStream()); }
const char* const kNotAReason = "reason must be a TransferStats::Reason";

// Each case: its name, the cv::Error code and a text of the message, the call.
#define REFUSED(name, code, needle, ...) Refusal{#name, [](Subjects& o) { (void)o; __VA_ARGS__; }, cv::Error::code, needle}
const Refusal kRefusals[] = {
    REFUSED(rows_negative, StsBadSize, "rows=-1", SyncedMat(-1, 5, CV_8UC1)),
    REFUSED(cols_negative_as_size, StsBadSize, "cols=-2", SyncedMat(Size(-2, 5), CV_8UC1)),
    REFUSED(create_with_negative_cols, StsBadSize, "negative", o.uninit.create(16, -5, CV_8UC1)),
    REFUSED(type_negative, StsBadArg, "type=-1", SyncedMat(4, 4, -1)),
    REFUSED(type_past_the_mask, StsBadArg, "not an OpenCV matrix type", SyncedMat(4, 4, CV_MAT_TYPE_MASK + 1)),
    REFUSED(create_with_bad_type, StsBadArg, "type=100000", o.uninit.create(16, 16, 100000)),
    REFUSED(from_3d_mat, StsError, "2-D", const int sz[] = {2, 3, 4}; SyncedMat m(Mat(3, sz, CV_8UC1, Scalar(0)))),
    // any access to an empty object
    REFUSED(readHost_of_empty, StsBadArg, "empty", o.none.readHost()),
    REFUSED(writeHost_of_empty, StsBadArg, "empty", o.none.writeHost()),
    REFUSED(readWriteHost_of_empty, StsBadArg, "empty", o.none.readWriteHost()),
    REFUSED(readDevice_of_empty, StsBadArg, "empty", o.none.readDevice(noCudaStream())),
    REFUSED(writeDevice_of_empty, StsBadArg, "empty", o.none.writeDevice(noCudaStream())),
    REFUSED(readWriteDevice_of_empty, StsBadArg, "empty", o.none.readWriteDevice(noCudaStream())),
    REFUSED(upload_of_empty, StsBadArg, "empty", o.none.upload(noCudaStream())),
    REFUSED(download_of_empty, StsBadArg, "empty", o.none.download(noCudaStream())),
    // any read of an UNINITIALIZED object (its writes: SyncedMat_Cuda.transition/UNINITIALIZED_*)
    REFUSED(readHost_of_uninitialised, StsError, "uninitialised", o.uninit.readHost()),
    REFUSED(readWriteHost_of_uninitialised, StsError, "uninitialised", o.uninit.readWriteHost()),
    REFUSED(readDevice_of_uninitialised, StsError, "uninitialised", o.uninit.readDevice(noCudaStream())),
    REFUSED(readWriteDevice_of_uninitialised, StsError, "uninitialised", o.uninit.readWriteDevice(noCudaStream())),
    REFUSED(upload_of_uninitialised, StsError, "uninitialised", o.uninit.upload(noCudaStream())),
    REFUSED(download_of_uninitialised, StsError, "uninitialised", o.uninit.download(noCudaStream())),
    // ROI views
    REFUSED(roi_past_the_right_edge, StsOutOfRange, "not a non-empty rectangle inside",
            SyncedMat(o.parent, Rect(60, 0, 5, 1))),
    REFUSED(roi_x_negative, StsOutOfRange, "x=-1", SyncedMat(o.parent, Rect(-1, 0, 5, 1))),
    REFUSED(roi_width_zero, StsOutOfRange, "width=0", SyncedMat(o.parent, Rect(0, 0, 0, 1))),
    REFUSED(roi_past_the_bottom_edge, StsOutOfRange, "64x48", SyncedMat(o.parent, Rect(0, 40, 1, 9))),
    REFUSED(roi_width_int_max, StsOutOfRange, "inside", SyncedMat(o.parent, Rect(1, 1, INT_MAX, 1))),   // no overflow
    REFUSED(roi_past_the_views_bounds, StsOutOfRange, "16x12", SyncedMat(o.view, Rect(0, 0, 17, 1))),
    REFUSED(roi_of_empty_parent, StsBadArg, "parent is empty", SyncedMat(o.none, Rect(0, 0, 1, 1))),
    REFUSED(create_on_roi_view_other_size, StsBadArg, "detach", o.view.create(12, 17, CV_8UC1)),
    REFUSED(create_on_roi_view_other_type, StsBadArg, "ROI view", o.view.create(12, 16, CV_8UC3)),
    // applyFilter's arguments
    REFUSED(applyFilter_null_filter, StsNullPtr, "filter is null",
            cv::cuda::applyFilter(cv::Ptr<cv::cuda::Filter>(), o.uninit, o.small, noCudaStream())),
    REFUSED(applyFilter_empty_src, StsBadArg, "src is empty", to32F(o.none, o.small)),
    REFUSED(applyFilter_dst_of_other_size, StsUnmatchedSizes, "dst is 8x8 but src is 16x16", to32F(o.uninit, o.small)),
    REFUSED(applyFilter_uninitialised_src, StsError, "uninitialised", to32F(o.uninit, o.none)),   // none stays empty
    REFUSED(applyFilter_in_place_uninitialised, StsError, "uninitialised", to32F(o.uninit)),
    REFUSED(applyFilter_in_place_empty, StsBadArg, "src is empty", to32F(o.none)),
    // TransferStats: reasons out of range
    REFUSED(reason_count_negative, StsError, kNotAReason, TransferStats().count(-1)),
    REFUSED(reason_count_past_the_end, StsError, kNotAReason, TransferStats().count(TransferStats::REASON_COUNT)),
    REFUSED(reason_bytes_past_the_end, StsError, kNotAReason, TransferStats().bytesFor(TransferStats::REASON_COUNT)),
    REFUSED(reason_name_unknown, StsError, kNotAReason, TransferStats::reasonName(99)),
};
#undef REFUSED

typedef ::testing::TestWithParam<Refusal> SyncedMat_Validation;

TEST_P(SyncedMat_Validation, refused)
{
    Subjects o;
    const std::string before = describe(o);
    expectError([&] { GetParam().call(o); }, GetParam().code, {GetParam().needle}, "SYNCEDMAT");
    EXPECT_EQ(before, describe(o)) << "a refused call changes nothing";
}

INSTANTIATE_TEST_CASE_P(, SyncedMat_Validation, ::testing::ValuesIn(kRefusals),
                        [](const ::testing::TestParamInfo<Refusal>& info) { return std::string(info.param.name); });

// --- no GPU needed: what holds ------------------------------------------------------------------

// Empty objects (default, a zero size, an empty Mat) and sized ones: no data, no memory, no device.
TEST_F(SyncedMat_Validation, new_objects_hold_no_data_and_allocate_nothing)
{
    SyncedMat zeroCols(3, 3, CV_8UC1);
    zeroCols.create(3, 0, CV_8UC1);
    const struct { SyncedMat m; Size size; int type; } objects[] = {
        {SyncedMat(), Size(), 0}, {SyncedMat(0, 10, CV_8UC1), Size(), 0}, {zeroCols, Size(), 0},
        {SyncedMat(Mat()), Size(), 0}, {SyncedMat(480, 640, CV_8UC3), Size(640, 480), CV_8UC3},
        {SyncedMat(Size(7, 3), CV_32FC1), Size(7, 3), CV_32FC1}};
    for (const auto& o : objects)
    {
        SCOPED_TRACE(cv::format("object %d", (int)(&o - objects)));
        EXPECT_EQ(o.size.empty(), o.m.empty());
        EXPECT_EQ(o.size, o.m.size());
        EXPECT_EQ(o.size.height, o.m.rows());
        EXPECT_EQ(o.size.width, o.m.cols());
        EXPECT_EQ(o.type, o.m.type());
        EXPECT_EQ(CV_MAT_DEPTH(o.type), o.m.depth());
        EXPECT_EQ(CV_MAT_CN(o.type), o.m.channels());
        EXPECT_EQ(o.size.empty() ? 0u : (size_t)CV_ELEM_SIZE(o.type), o.m.elemSize());
        EXPECT_EQ((int)SyncedMat::UNINITIALIZED, o.m.state());
        EXPECT_FALSE(o.m.isHostValid());
        EXPECT_FALSE(o.m.isDeviceValid());
        EXPECT_FALSE(o.m.isHostAllocated());
        EXPECT_FALSE(o.m.isDeviceAllocated());
        EXPECT_EQ(-1, o.m.deviceId());
        EXPECT_FALSE(o.m.isSubmatrix());
        expectStats(o.m, 0, 0, 0, 0);
    }
}

TEST_F(SyncedMat_Validation, create_same_size_and_type_keeps_storage_other_detaches_handle)
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

TEST_F(SyncedMat_Validation, release_empties_this_handle_only)
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

TEST_F(SyncedMat_Validation, roi_view_shares_storage_and_composes)
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

    EXPECT_NO_THROW(view.create(12, 16, CV_8UC3));      // the view's own size and type: a no-op
    EXPECT_TRUE(view.sharesStorageWith(parent));        // (another: refused/create_on_roi_view_*)
}

TEST_F(SyncedMat_Validation, transfer_reasons)
{
    EXPECT_EQ("READ_DEVICE", TransferStats::reasonName(TransferStats::READ_DEVICE));
    EXPECT_EQ("PREFETCH_DOWNLOAD", TransferStats::reasonName(TransferStats::PREFETCH_DOWNLOAD));
    TransferStats st;
    for (int r = 0; r < TransferStats::REASON_COUNT; ++r)
    {
        EXPECT_EQ(0, st.count(r));
        EXPECT_EQ(0u, st.bytesFor(r));
    }
}

// --- GPU: state transitions ---------------------------------------------------------------------

enum Access { kReadHost, kWriteHost, kReadWriteHost, kReadDevice, kWriteDevice, kReadWriteDevice, kUpload, kDownload,
              kReleaseHost, kReleaseDevice };
const char* const kAccessNames[] = {"readHost", "writeHost", "readWriteHost", "readDevice", "writeDevice",
                                    "readWriteDevice", "upload", "download", "releaseHost", "releaseDevice"};
bool isView(Access a) { return a < kUpload; }
bool onHost(Access a) { return a <= kReadWriteHost; }

const int UNINIT = SyncedMat::UNINITIALIZED, HOST = SyncedMat::HOST_VALID, DEV = SyncedMat::DEVICE_VALID,
          BOTH = SyncedMat::BOTH_VALID;
const char* const kStateNames[] = {"UNINITIALIZED", "HOST_VALID", "DEVICE_VALID", "BOTH_VALID"};

// What an access copies: uploads and downloads, each of the whole storage (rows x cols x elemSize
// bytes), and the TransferStats::Reason they count under.
struct Copies { int uploads, downloads, reason; };
typedef TransferStats R;
const Copies none = {0, 0, R::REASON_COUNT}, notSwept = {-1, -1, R::REASON_COUNT};
Copies up(int reason) { return {1, 0, reason}; }
Copies down(int reason) { return {0, 1, reason}; }

struct Transition { int from; Access access; int to; Copies whole, roi; };

// The state after each access from each state, and its copies through the whole image (another
// handle of it) and through a ROI view that does not cover the storage. Validity is per storage, so
// a ROI view copies the whole storage, and a write through one over the other side's only valid data
// brings the rest of the image to the written side first. Refused: reads of UNINITIALIZED
// (SyncedMat_Validation.refused/*), releasing the only valid side (releasing_the_only_valid_side_is_refused).
const Transition kTransitions[] = {
    // from  access            to    whole image                  ROI view
    {UNINIT, kWriteHost,       HOST, none,                        notSwept},   // (ROI: the rest stays undefined)
    {UNINIT, kWriteDevice,     DEV,  none,                        notSwept},
    {HOST,   kReadHost,        HOST, none,                        none},
    {HOST,   kWriteHost,       HOST, none,                        none},
    {HOST,   kReadWriteHost,   HOST, none,                        none},
    {HOST,   kReadDevice,      BOTH, up(R::READ_DEVICE),          up(R::READ_DEVICE)},
    {HOST,   kWriteDevice,     DEV,  none,                        up(R::WRITE_DEVICE_PARTIAL)},
    {HOST,   kReadWriteDevice, DEV,  up(R::READ_WRITE_DEVICE),    up(R::READ_WRITE_DEVICE)},
    {HOST,   kUpload,          BOTH, up(R::PREFETCH_UPLOAD),      up(R::PREFETCH_UPLOAD)},
    {HOST,   kDownload,        HOST, none,                        none},
    {HOST,   kReleaseDevice,   HOST, none,                        none},   // never allocated: nothing to do
    {DEV,    kReadHost,        BOTH, down(R::READ_HOST),          down(R::READ_HOST)},
    {DEV,    kWriteHost,       HOST, none,                        down(R::WRITE_HOST_PARTIAL)},
    {DEV,    kReadWriteHost,   HOST, down(R::READ_WRITE_HOST),    down(R::READ_WRITE_HOST)},
    {DEV,    kReadDevice,      DEV,  none,                        none},
    {DEV,    kWriteDevice,     DEV,  none,                        none},
    {DEV,    kReadWriteDevice, DEV,  none,                        none},
    {DEV,    kUpload,          DEV,  none,                        none},
    {DEV,    kDownload,        BOTH, down(R::PREFETCH_DOWNLOAD),  down(R::PREFETCH_DOWNLOAD)},
    {DEV,    kReleaseHost,     DEV,  none,                        none},
    {BOTH,   kReadHost,        BOTH, none,                        none},
    {BOTH,   kWriteHost,       HOST, none,                        none},
    {BOTH,   kReadWriteHost,   HOST, none,                        none},
    {BOTH,   kReadDevice,      BOTH, none,                        none},
    {BOTH,   kWriteDevice,     DEV,  none,                        none},
    {BOTH,   kReadWriteDevice, DEV,  none,                        none},
    {BOTH,   kUpload,          BOTH, none,                        none},
    {BOTH,   kDownload,        BOTH, none,                        none},
    {BOTH,   kReleaseHost,     DEV,  none,                        none},   // the next host access allocates, downloads
    {BOTH,   kReleaseDevice,   HOST, none,                        none},
};

struct Shape { const char* name; Size size; int type; bool nullStream; };   // nullStream: all on Stream::Null()
const Shape kShapes[] = {
    {"640x480_8UC4", Size(640, 480), CV_8UC4, false},
    {"113x113_8UC3", Size(113, 113), CV_8UC3, false},   // rows of 339 bytes
    {"333x211_16UC1", Size(333, 211), CV_16UC1, false},
    {"257x1_32FC2", Size(257, 1), CV_32FC2, false},
    {"1x257_64FC1_null_stream", Size(1, 257), CV_64FC1, true},
};

struct Case { Transition t; bool roi; };

std::vector<Case> transitionCases()
{
    std::vector<Case> cases;
    for (const Transition& t : kTransitions)
        for (bool roi : {false, true})
            if ((roi ? t.roi : t.whole).uploads >= 0)
                cases.push_back({t, roi});
    return cases;
}

void PrintTo(const Case& c, std::ostream* os)
{
    *os << kStateNames[c.t.from] << ' ' << kAccessNames[c.t.access] << (c.roi ? " through a ROI view" : "");
}
void PrintTo(const Shape& s, std::ostream* os) { *os << s.name; }

// `state` holding `data`, with zero counters: HOST_VALID from SyncedMat(Mat), DEVICE_VALID adopting
// a GpuMat (`adopted`), BOTH_VALID the former after upload() and resetStats().
SyncedMat inState(int state, const Mat& data, Stream& s, GpuMat& adopted)
{
    if (state == UNINIT)
        return SyncedMat(data.size(), data.type());
    if (state == DEV)
    {
        adopted.upload(data, s);
        return SyncedMat(adopted, s);
    }
    SyncedMat m(data);
    if (state == BOTH)
    {
        m.upload(s);
        m.resetStats();
    }
    return m;
}

// What an access returned: a host view, a device view, or nothing.
struct View
{
    Mat host;        // one of them,
    GpuMat device;   // or neither
    const void* data() const { return host.data ? (const void*)host.data : (const void*)device.data; }
    Size size() const { return host.data ? host.size() : device.size(); }
};

View access(SyncedMat& m, Access a, Stream& s)
{
    View v;
    switch (a)
    {
    case kReadHost: v.host = m.readHost(); break;
    case kWriteHost: v.host = m.writeHost(); break;
    case kReadWriteHost: v.host = m.readWriteHost(); break;
    case kReadDevice: v.device = m.readDevice(s); break;
    case kWriteDevice: v.device = m.writeDevice(s); break;
    case kReadWriteDevice: v.device = m.readWriteDevice(s); break;
    case kUpload: m.upload(s); break;
    case kDownload: m.download(s); break;
    case kReleaseHost: m.releaseHost(); break;
    case kReleaseDevice: m.releaseDevice(); break;
    }
    return v;
}

typedef ::testing::TestWithParam<std::tuple<Case, Shape>> SyncedMat_Cuda;

// One access from one state: the state after, the copies (each reason's count and bytes), which
// sides are allocated (each at its first access, until released), what a read view shows; the same
// access again copies nothing. Then a write through the view (new data, or +1 for read-write)
// reaches both sides for at most one more copy, the stale side's, and create() with the storage's
// own size and type keeps its memory, state and data.
TEST_P(SyncedMat_Cuda, transition)
{
    CUDAIMAGE_REQUIRE_GPU();
    const Transition& t = std::get<0>(GetParam()).t;
    const bool roi = std::get<0>(GetParam()).roi;
    const Copies& c = roi ? t.roi : t.whole;
    const Shape& shape = std::get<1>(GetParam());
    const Size sz = shape.size;
    const size_t b = bytesOf(sz, shape.type);
    Stream own;
    Stream& s = shape.nullStream ? Stream::Null() : own;
    cv::RNG rng(32 * t.from + 2 * t.access + roi);
    const Mat original = randomMat(sz, shape.type, rng);
    GpuMat adopted;
    SyncedMat m = inState(t.from, original, s, adopted);
    ASSERT_EQ(t.from, m.state());
    expectStats(m, 0, 0, 0, 0);
    const Rect r = roi ? Rect(sz.width / 4, sz.height / 4, std::max(1, sz.width / 2), std::max(1, sz.height / 2))
                       : Rect(cv::Point(), sz);
    SyncedMat view = roi ? SyncedMat(m, r) : m;   // another handle shares the state
    ASSERT_EQ(roi, view.isSubmatrix());
    const bool hostBefore = m.isHostAllocated(), deviceBefore = m.isDeviceAllocated();

    View first = access(view, t.access, s);
    EXPECT_EQ(t.to, m.state());
    expectStats(m, c.uploads, c.uploads * b, c.downloads, c.downloads * b);
    expectStats(view, c.uploads, c.uploads * b, c.downloads, c.downloads * b);   // the storage's counters
    const TransferStats st = m.stats();
    for (int reason = 0; reason < R::REASON_COUNT; ++reason)
    {
        EXPECT_EQ(reason == c.reason ? 1 : 0, st.count(reason)) << R::reasonName(reason);
        EXPECT_EQ(reason == c.reason ? b : 0, st.bytesFor(reason)) << R::reasonName(reason);
    }
    const bool hostView = isView(t.access) && onHost(t.access), deviceView = isView(t.access) && !onHost(t.access);
    EXPECT_EQ((hostBefore || (t.to & HOST) || hostView) && t.access != kReleaseHost, m.isHostAllocated());
    EXPECT_EQ((deviceBefore || (t.to & DEV) || deviceView) && t.access != kReleaseDevice, m.isDeviceAllocated());
    EXPECT_EQ(cv::cuda::getDevice(), m.deviceId());
    EXPECT_EQ(isView(t.access) ? r.size() : Size(), first.size());
    EXPECT_TRUE(!hostView || first.data() != (const void*)original.data) << "a copy, never the caller's Mat";
    EXPECT_TRUE(t.from != DEV || !deviceView || first.data() == (const void*)adopted(r).data) << "the adopted memory";
    if (t.access == kReadHost || t.access == kReadWriteHost || t.access == kReadDevice || t.access == kReadWriteDevice)
    {
        EXPECT_MAT_EQ(original(r), hostView ? first.host : toHost(first.device, s));
    }

    const View again = access(view, t.access, s);
    EXPECT_EQ(first.data(), again.data());
    EXPECT_EQ(t.to, m.state());
    expectStats(m, c.uploads, c.uploads * b, c.downloads, c.downloads * b);

    Mat expected = original.clone(), written = expected(r);
    if (t.access == kWriteHost || t.access == kWriteDevice)
    {
        randomMat(r.size(), shape.type, rng).copyTo(written);
        if (hostView)
            written.copyTo(first.host);
        else
            first.device.upload(written, s);
    }
    else if (t.access == kReadWriteHost || t.access == kReadWriteDevice)
    {
        written.convertTo(written, -1, 1.0, 1.0);
        if (hostView)
            first.host.convertTo(first.host, -1, 1.0, 1.0);
        else
            first.device.convertTo(first.device, -1, 1.0, 1.0, s);
    }
    EXPECT_MAT_EQ(expected, m.readHost());
    EXPECT_MAT_EQ(expected, toHost(m.readDevice(s), s));
    const int ups = c.uploads + (t.to == HOST), downs = c.downloads + (t.to == DEV);
    expectStats(m, ups, ups * b, downs, downs * b);
    expectStats(view, ups, ups * b, downs, downs * b);

    const void* hostData = m.readHost().data;
    const void* deviceData = m.readDevice(s).data;
    m.create(sz, shape.type);
    EXPECT_EQ(BOTH, m.state());
    EXPECT_EQ(hostData, (const void*)m.readHost().data);
    EXPECT_EQ(deviceData, (const void*)m.readDevice(s).data);
    EXPECT_TRUE(view.sharesStorageWith(m));
}

INSTANTIATE_TEST_CASE_P(, SyncedMat_Cuda, ::testing::Combine(::testing::ValuesIn(transitionCases()), ::testing::ValuesIn(kShapes)),
    [](const ::testing::TestParamInfo<std::tuple<Case, Shape>>& info) {
        const Case& c = std::get<0>(info.param);
        return std::string(kStateNames[c.t.from]) + "_" + kAccessNames[c.t.access] + (c.roi ? "_roi_" : "_") +
               std::get<1>(info.param).name;
    });

// --- GPU: stream hazards, threads ---------------------------------------------------------------

// A device write of `value` on s after 20 others: on a large image, still running when this returns.
GpuMat slowDeviceWrite(SyncedMat& m, Stream& s, int value)
{
    GpuMat d = m.writeDevice(s);
    for (int i = 0; i < 20; ++i)
        d.setTo(Scalar::all(i), s);
    d.setTo(Scalar::all(value), s);
    return d;
}

TEST_F(SyncedMat_Cuda, host_read_waits_for_async_download_of_large_image)
{
    CUDAIMAGE_REQUIRE_GPU();
    const Size sz(4096, 4096);
    SyncedMat m(sz, CV_8UC4);
    Stream s;
    slowDeviceWrite(m, s, 99);             // so that the download is really pending
    m.download(s);
    Mat h = m.readHost();
    EXPECT_MAT_EQ(Mat(sz, CV_8UC4, Scalar::all(99)), h);
}

TEST_F(SyncedMat_Cuda, device_read_on_other_stream_waits_for_write_raw)
{
    CUDAIMAGE_REQUIRE_GPU();
    const Size sz(4096, 4096);
    SyncedMat m(sz, CV_8UC4);
    Stream writer, reader;
    slowDeviceWrite(m, writer, 42);
    GpuMat r = m.readDevice(reader);       // reader waits for writer's event, not the host
    GpuMat copy;
    r.copyTo(copy, reader);
    EXPECT_MAT_EQ(Mat(sz, CV_8UC4, Scalar::all(42)), toHost(copy, reader));
    expectStats(m, 0, 0, 0, 0);
}

TEST_F(SyncedMat_Cuda, device_write_waits_for_readers_on_other_streams_war)
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

TEST_F(SyncedMat_Cuda, host_write_waits_for_async_upload)
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

TEST_F(SyncedMat_Cuda, concurrent_readers_share_one_upload)
{
    CUDAIMAGE_REQUIRE_GPU();
    cv::RNG rng(3);
    Mat src = randomMat(Size(1024, 768), CV_8UC1, rng);
    SyncedMat m(src);
    std::vector<Mat> results(4);
    EXPECT_EQ(0, onThreads(4, m.deviceId(), [&](int i) {
        Stream s;
        GpuMat copy;
        m.readDevice(s).copyTo(copy, s);
        results[i] = toHost(copy, s);
    }));
    for (const Mat& result : results)
        EXPECT_MAT_EQ(src, result);
    expectStats(m, 1, bytesOf(src.size(), src.type()), 0, 0);
}

// --- GPU: refusals, memory, devices -------------------------------------------------------------

TEST_F(SyncedMat_Cuda, releasing_the_only_valid_side_is_refused)
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

TEST_F(SyncedMat_Cuda, out_of_memory_leaves_the_object_intact)
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

TEST_F(SyncedMat_Cuda, other_device_is_refused)
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

// --- GPU: filters -------------------------------------------------------------------------------

cv::Ptr<cv::cuda::Filter> gaussian(int type) { return cv::cuda::createGaussianFilter(type, type, Size(5, 5), 1.5); }

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

TEST_F(SyncedMat_Cuda, in_place_filter_chain_costs_one_upload_and_one_download)
{
    CUDAIMAGE_REQUIRE_GPU();
    cv::RNG rng(5);
    Mat src = randomMat(Size(640, 480), CV_8UC4, rng);
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

TEST_F(SyncedMat_Cuda, filter_chain_across_objects_costs_one_upload_and_one_download)
{
    CUDAIMAGE_REQUIRE_GPU();
    cv::RNG rng(6);
    Mat src = randomMat(Size(257, 129), CV_8UC1, rng);
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

TEST_F(SyncedMat_Cuda, filter_between_views_of_one_storage)
{
    CUDAIMAGE_REQUIRE_GPU();
    cv::RNG rng(7);
    Mat src = randomMat(Size(128, 64), CV_8UC1, rng);
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
TEST_F(SyncedMat_Cuda, in_place_filters_from_threads_are_ordered)
{
    CUDAIMAGE_REQUIRE_GPU();
    const Size sz(512, 256);
    SyncedMat m(Mat(sz, CV_8UC1, Scalar(0)));
    cv::Ptr<cv::cuda::Filter> addOne = cv::makePtr<AddOne>();
    const int nThreads = 4, perThread = 25;
    EXPECT_EQ(0, onThreads(nThreads, m.deviceId(), [&](int) {
        Stream s;
        for (int i = 0; i < perThread; ++i)
            cv::cuda::applyFilter(addOne, m, s);
    }));
    EXPECT_MAT_EQ(Mat(sz, CV_8UC1, Scalar(nThreads * perThread)), m.readHost());
    expectStats(m, 1, bytesOf(sz, CV_8UC1), 1, bytesOf(sz, CV_8UC1));
}

TEST_F(SyncedMat_Cuda, filter_output_type_mismatch_is_refused_and_dst_kept)
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
