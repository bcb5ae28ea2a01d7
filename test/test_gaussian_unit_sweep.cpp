// One sweep generated from the list of kernel paths (GaussianPaths), so that a unit added to the
// list is tested with no edit here: for every unit, every depth and channel count it takes, the
// radii at which the list gives it the call (each run's first and last radius and their inner
// neighbours: the unit's minimum, its thresholds +-1 and its maximum), square and with a shorter
// vertical radius, the five borders in turn. On the GPU each case is blurred alone (a whole image,
// a region with BORDER_ISOLATED, and in place where the unit takes in-place calls) and in a batch
// (a list of two images of different sizes, and a stack of three): the single results against CPU
// cv::GaussianBlur (8U/16U identical, the float depths within their bound), the batch's images
// bit for bit against the single filter's, and every launch on the kernel of the unit the list
// chose (the launch record, src/launch_record.hpp).
#include "test_precomp.hpp"
#include "gaussian_path_ids.hpp"
#include "gaussian_reference.hpp"
#include "../src/launch_record.hpp"
#include "opencv2/cudaimage/gaussian_blur_batch.hpp"

#include <map>
#include <mutex>
#include <set>

namespace opencv_test { namespace {

typedef gs::GaussianPaths List;

/** One case of the sweep: the unit the list gives it, the type, the radii and the border. */
struct SweepCase
{
    int unit;
    int type;
    int rx, ry;
    int border;
    bool inPlace;   //!< dst is src (the units that take in-place calls)
};

std::ostream& operator<<(std::ostream& os, const SweepCase& c)
{
    return os << List::name(c.unit) << " " << cv::typeToString(c.type) << " radius " << c.rx << "x" << c.ry << " border " << c.border
              << (c.inPlace ? " in place" : "");
}

/** The query of a case on an sm_90 with 227 KiB of shared memory per block and 132 SMs. */
gs::PathQuery caseQuery(int depth, int cn, int rx, int ry, bool inPlace)
{
    gs::PathQuery q = path::query(depth, cn, rx, ry, 227 * 1024, 132);
    q.dstInSrcAllocation = inPlace;
    return q;
}

std::vector<SweepCase> sweepCases()
{
    const List::DeviceFacts facts = path::factsFor(90);
    const int lastRadius = gs::FusedLargeTile::kMaxR + 2;
    std::vector<SweepCase> cases;
    int border = 0;
    for (int depth : {CV_8U, CV_16U, CV_16S, CV_32F, CV_64F})
        for (int cn = 1; cn <= 4; cn++)
        {
            // The unit of every radius, then each run's ends and their inner neighbours.
            std::vector<int> unitOf(lastRadius + 1);
            for (int r = 0; r <= lastRadius; r++)
                unitOf[r] = gs::choosePath(caseQuery(depth, cn, r, r, false), facts).index;
            std::set<int> radii;
            for (int r = 0; r <= lastRadius; r++)
            {
                const bool first = r == 0 || unitOf[r - 1] != unitOf[r];
                const bool last = r == lastRadius || unitOf[r + 1] != unitOf[r];
                if (first || last)
                {
                    radii.insert(r);
                    radii.insert(first ? std::min(r + 1, lastRadius) : std::max(r - 1, 0));
                }
            }
            for (int r : radii)
                for (int ry : {r, r / 3})
                {
                    // The list's unit for the rectangle itself (a shorter vertical radius keeps R).
                    const int unit = gs::choosePath(caseQuery(depth, cn, r, ry, false), facts).index;
                    cases.push_back({unit, CV_MAKETYPE(depth, cn), r, ry, border++ % 5, false});
                    if (ry == r && r > 0 && r % 4 == 1)
                    {
                        const int inPlaceUnit = gs::choosePath(caseQuery(depth, cn, r, ry, true), facts).index;
                        cases.push_back({inPlaceUnit, CV_MAKETYPE(depth, cn), r, ry, border++ % 5, true});
                    }
                }
        }
    return cases;
}

// Without a GPU: every unit of the list appears in the sweep, and at its boundaries.
TEST(CudaImage_GaussianUnitSweep, every_unit_of_the_list_is_swept)
{
    std::map<int, int> perUnit;
    for (const SweepCase& c : sweepCases())
        perUnit[c.unit]++;
    for (int u = 0; u < List::kCount; u++)
        EXPECT_GT(perUnit[u], 0) << List::name(u) << " gets no case";
    std::cout << "[ SWEEP ] " << sweepCases().size() << " cases:";
    for (const auto& kv : perUnit)
        std::cout << " " << List::name(kv.first) << " " << kv.second;
    std::cout << std::endl;
}

/** The kernels launched while it lives, by name (the tests run one at a time in a process). */
class LaunchLog
{
public:
    LaunchLog() : previous_(gs::setLaunchObserver(&LaunchLog::record)) { clear(); }
    ~LaunchLog() { gs::setLaunchObserver(previous_); }
    void clear()
    {
        std::lock_guard<std::mutex> lock(mutex());
        names().clear();
    }
    std::set<std::string> taken() const
    {
        std::lock_guard<std::mutex> lock(mutex());
        return names();
    }

private:
    static std::mutex& mutex() { static std::mutex m; return m; }
    static std::set<std::string>& names() { static std::set<std::string> n; return n; }
    static void record(const char* kernel, unsigned long long)
    {
        std::lock_guard<std::mutex> lock(mutex());
        names().insert(kernel);
    }
    gs::LaunchObserver previous_;
};

std::string describe(const std::set<std::string>& s)
{
    std::string out;
    for (const std::string& k : s)
        out += k + " ";
    return out.empty() ? "none" : out;
}

Mat cpuBlurOf(const Mat& src, const SweepCase& c)
{
    return cpuGaussianBlur(src, CV_MAT_DEPTH(c.type), Size(2 * c.rx + 1, 2 * c.ry + 1), 0, 0, c.border);
}

typedef ::testing::TestWithParam<SweepCase> CudaImage_GaussianUnitSweep_Case;

TEST_P(CudaImage_GaussianUnitSweep_Case, matches_cpu_on_its_unit_alone_and_in_a_batch)
{
    CUDAIMAGE_REQUIRE_GPU();
    const SweepCase c = GetParam();
    const Size ksize(2 * c.rx + 1, 2 * c.ry + 1);
    const char* alone = List::kernel(c.unit);
    cv::RNG rng(static_cast<uint64>(9100 + c.type * 977 + c.rx * 31 + c.ry * 7 + c.border));
    Stream s;
    LaunchLog log;
    cv::Ptr<cv::cuda::Filter> filter = cv::cuda::createGaussianBlur(c.type, c.type, ksize, 0, 0, c.border);

    // Alone: a whole image (and in place where the case says so).
    const Mat host = randomMat(Size(173, 61), c.type, rng);
    GpuMat src(host), out;
    log.clear();
    if (c.inPlace)
    {
        out = src.clone();
        filter->apply(out, out, s);
    }
    else
        filter->apply(src, out, s);
    const Mat single = toHost(out, s);
    EXPECT_EQ(1u, log.taken().count(alone)) << c << ": " << describe(log.taken());
    expectWithinDocumentedTolerance(cpuBlurOf(host, c), single, host, cv::format("alone, whole"));
    if (c.inPlace)
        return;   // in place is a call of its own unit; the rest is for the units that take dst apart

    // A region of a larger image, isolated: its own edges, as the CPU blurs the region's copy.
    const Mat parent = randomMat(Size(211, 97), c.type, rng);
    const cv::Rect roi(13, 9, 150, 70);
    cv::Ptr<cv::cuda::Filter> isolated = cv::cuda::createGaussianBlur(c.type, c.type, ksize, 0, 0, c.border | cv::BORDER_ISOLATED);
    GpuMat parentDevice(parent), roiOut;
    log.clear();
    isolated->apply(parentDevice(roi), roiOut, s);
    EXPECT_EQ(1u, log.taken().count(alone)) << c << " region: " << describe(log.taken());
    const Mat region = parent(roi).clone();
    expectWithinDocumentedTolerance(cpuBlurOf(region, c), toHost(roiOut, s), region, "alone, region");

    // A batch of two images of different sizes: the unit's batched kernel, the single filter's pixels.
    cv::Ptr<cv::cuda::GaussianBatchFilter> batch = cv::cuda::createGaussianBlurBatch(c.type, -1, ksize, 0, 0, c.border);
    const Mat second = randomMat(Size(64, 130), c.type, rng);
    std::vector<GpuMat> list = {src, GpuMat(second)}, listOut;
    log.clear();
    batch->apply(list, listOut, {}, {}, {}, s);
    EXPECT_EQ(1u, log.taken().count(List::kernel(c.unit, true))) << c << " batch: " << describe(log.taken());
    EXPECT_EQ(0, countDifferent(single, toHost(listOut[0], s))) << c << ": batch image 0 against the single filter";
    GpuMat secondOut;
    filter->apply(list[1], secondOut, s);
    EXPECT_EQ(0, countDifferent(toHost(secondOut, s), toHost(listOut[1], s))) << c << ": batch image 1 against the single filter";

    // A stack of three images of one size.
    const Mat stackHost = randomMat(Size(97, 3 * 45), c.type, rng);
    GpuMat stack(stackHost), stackOut;
    log.clear();
    batch->applyStacked(stack, stackOut, 45, {}, {}, {}, s);
    EXPECT_EQ(1u, log.taken().count(List::kernel(c.unit, true))) << c << " stacked: " << describe(log.taken());
    const Mat stacked = toHost(stackOut, s);
    for (int i = 0; i < 3; i++)
    {
        const cv::Rect rows(0, 45 * i, 97, 45);
        GpuMat one;
        filter->apply(GpuMat(stackHost(rows).clone()), one, s);
        EXPECT_EQ(0, countDifferent(toHost(one, s), stacked(rows))) << c << ": stacked image " << i;
    }
}

std::string caseName(const ::testing::TestParamInfo<SweepCase>& info)
{
    const SweepCase& c = info.param;
    std::string unit = List::name(c.unit);
    for (char& ch : unit)
        if (ch == '-')
            ch = '_';
    return cv::format("%s_%s_r%dx%d_b%d%s_%d", unit.c_str(), cv::typeToString(c.type).c_str(), c.rx, c.ry, c.border,
                      c.inPlace ? "_inplace" : "", static_cast<int>(info.index));
}

INSTANTIATE_TEST_CASE_P(CudaImage, CudaImage_GaussianUnitSweep_Case, ::testing::ValuesIn(sweepCases()), caseName);

}} // namespace opencv_test
