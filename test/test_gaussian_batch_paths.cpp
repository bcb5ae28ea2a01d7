// An image of a batch takes the path it would take alone and gets identical pixels. The rule (every
// unit of the list batches, so the batch flag changes no choice) is checked without a GPU over
// every depth, channel count, radius and tensor-core switch; on the GPU, per tensor-core unit, a
// batch whose images span the unit's radius range (its tuned minimum and the radius below it, the
// maximum) and sizes from a few pixels to several tiles is blurred by one launch of the unit's
// batched kernel, the images below its range by the CUDA-core batch kernel, and every image equals
// the single filter's result (and CPU cv::GaussianBlur's: 8U/16U identical, 32F within its bound),
// for the list and the stacked forms. The launches are seen through the library's launch record
// (src/launch_record.hpp).
#include "test_precomp.hpp"
#include "gaussian_path_ids.hpp"
#include "gaussian_reference.hpp"
#include "../src/gaussian_paths.hpp"
#include "../src/launch_record.hpp"
#include "opencv2/cudaimage/gaussian_blur_batch.hpp"

#include <map>
#include <mutex>

namespace opencv_test { namespace {

typedef gs::GaussianPaths List;

/** sm_90's facts with the tensor-core code running (the switch: path::optionsWith). */
List::DeviceFacts sm90Facts()
{
    List::DeviceFacts f;
    std::get<List::indexOf<gs::TensorCorePath>()>(f).codeRuns = true;
    std::get<List::indexOf<gs::TensorCore16UPath>()>(f).codeRuns = true;
    std::get<List::indexOf<gs::TensorCore32FPath>()>(f).codeRuns = true;
    return f;
}

TEST(CudaImage_GaussianBatchPaths, every_unit_batches)
{
    // every unit but the last, which takes what no other does (in place, one row or column, radius
    // beyond the single kernels) image by image
    for (int i = 0; i + 1 < List::kCount; i++)
        EXPECT_TRUE(List::batched(i)) << List::name(i) << " has no batched kernel";
}

TEST(CudaImage_GaussianBatchPaths, batch_image_takes_its_single_path)
{
    const List::DeviceFacts facts = sm90Facts();
    int checked = 0;
    for (gs::TensorCoreMode mode : {gs::TensorCoreMode::Auto, gs::TensorCoreMode::All, gs::TensorCoreMode::Off})
        for (int depth : {CV_8U, CV_16U, CV_16S, CV_32F, CV_64F})
            for (int cn = 1; cn <= 4; cn++)
                for (int r = 0; r <= gs::FusedLargeTile::kMaxR + 2; r++)
                    for (int ry : {r, r / 3})
                        for (bool tapsBelowOne : {true, false})
                        {
                            gs::PathQuery q = path::query(depth, cn, r, ry, 227 * 1024, 132);
                            q.horizontalTapsBelowOne = q.verticalTapsBelowOne = tapsBelowOne;
                            q.computeCapability = 90;
                            const gs::PathChoice alone = gs::choosePath(q, facts, path::optionsWith(mode));
                            q.batch = true;
                            const gs::PathChoice inBatch = gs::choosePath(q, facts, path::optionsWith(mode));
                            ASSERT_EQ(alone.index, inBatch.index) << "depth " << depth << ", " << cn << " channels, radius " << r
                                                                  << "/" << ry << ": alone " << alone.name << ", in a batch " << inBatch.name;
                            EXPECT_EQ(alone.sharedBytes, inBatch.sharedBytes);
                            checked++;
                        }
    EXPECT_GT(checked, 10000);
}

// ---- on the GPU: the launches of a batch per tensor-core unit -----------------------------------

/** The kernels launched while it lives, by name (every thread's launches: the test runs alone). */
class LaunchLog
{
public:
    LaunchLog() { previous_ = gs::setLaunchObserver(&LaunchLog::record); clear(); }
    ~LaunchLog() { gs::setLaunchObserver(previous_); }
    void clear()
    {
        std::lock_guard<std::mutex> lock(mutex());
        counts().clear();
    }
    std::map<std::string, int> taken() const
    {
        std::lock_guard<std::mutex> lock(mutex());
        return counts();
    }

private:
    static std::mutex& mutex() { static std::mutex m; return m; }
    static std::map<std::string, int>& counts() { static std::map<std::string, int> c; return c; }
    static void record(const char* kernel, unsigned long long)
    {
        std::lock_guard<std::mutex> lock(mutex());
        counts()[kernel]++;
    }
    gs::LaunchObserver previous_ = nullptr;
};

int launches(const std::map<std::string, int>& m, const std::string& kernel)
{
    const auto it = m.find(kernel);
    return it == m.end() ? 0 : it->second;
}

std::string describe(const std::map<std::string, int>& m)
{
    std::string s;
    for (const auto& kv : m)
        s += kv.first + " x" + std::to_string(kv.second) + " ";
    return s.empty() ? "none" : s;
}

struct UnitCase
{
    const char* unit;
    int type;
    int minRadius;     //!< the unit's tuned minimum on sm_90
    int maxRadius;     //!< the largest radius the unit takes for this type
    const char* kernel;
};

std::ostream& operator<<(std::ostream& os, const UnitCase& c) { return os << c.unit << " " << cv::typeToString(c.type); }

std::vector<UnitCase> unitCases()
{
    std::vector<UnitCase> cases;
    for (int cn = 1; cn <= 4; cn++)
    {
        int last = gs::TensorCoreTile::kMinR;
        for (int r = gs::TensorCoreTile::kMinR; r <= gs::TensorCoreTile::kMaxR; r++)
            if (gs::TensorCoreTile::outputs(r, cn) >= 16)
                last = r;
        cases.push_back({"tensor-core", CV_MAKETYPE(CV_8U, cn), gs::tensorCoreTuning(90).minRadius(cn), last, "gaussianTensor8U"});
    }
    cases.push_back({"tensor-core-16u", CV_16UC1, gs::tensorCore16UTuning(90).minRadius(), gs::TensorCore16UTile::kMaxR, "gaussianTensor16U"});
    cases.push_back({"tensor-core-32f", CV_32FC1, gs::tensorCore32FTuning(90).minRadius(), gs::TensorCore32FTile::kMaxR, "gaussianTensor32F"});
    return cases;
}

typedef ::testing::TestWithParam<UnitCase> CudaImage_GaussianBatchPaths_Unit;

TEST_P(CudaImage_GaussianBatchPaths_Unit, one_batched_launch_and_the_single_filters_pixels)
{
    CUDAIMAGE_REQUIRE_GPU();
    const UnitCase c = GetParam();
    const int depth = CV_MAT_DEPTH(c.type);
    const int border = cv::BORDER_REFLECT_101;
    // The unit's range: its minimum, the radius below it (the CUDA-core batch kernel), one above, a
    // middle one and the maximum; images from a few pixels to several tiles across and down.
    const std::vector<int> radii = {c.minRadius, c.minRadius - 1, c.minRadius + 1, (c.minRadius + c.maxRadius) / 2, c.maxRadius,
                                    c.minRadius, c.maxRadius - 1};
    const std::vector<Size> sizes = {Size(5, 3), Size(70, 40), Size(1100, 70), Size(300, 260), Size(1031, 9), Size(2, 300), Size(2500, 33)};
    cv::RNG rng(4100 + c.type);
    std::vector<Mat> host(radii.size());
    std::vector<GpuMat> src(radii.size()), dst;
    std::vector<Size> ksize(radii.size());
    std::vector<double> sigma(radii.size());
    Stream s;
    for (size_t i = 0; i < radii.size(); i++)
    {
        host[i] = randomMat(sizes[i], c.type, rng);
        src[i].upload(host[i], s);
        ksize[i] = Size(2 * radii[i] + 1, 2 * radii[i] + 1);
        sigma[i] = 0.3 * radii[i] + rng.uniform(0.1, 1.0);
    }
    // One image at a time, each with its own filter: the pixels and the kernels alone.
    std::vector<Mat> alone(radii.size());
    LaunchLog log;
    for (size_t i = 0; i < radii.size(); i++)
    {
        GpuMat out;
        log.clear();
        cv::cuda::createGaussianBlur(c.type, c.type, ksize[i], sigma[i], sigma[i], border)->apply(src[i], out, s);
        alone[i] = toHost(out, s);
        const std::map<std::string, int> k = log.taken();
        const bool unitRange = radii[i] >= c.minRadius;
        EXPECT_EQ(unitRange ? 1 : 0, launches(k, c.kernel)) << c << " image " << i << " alone at radius " << radii[i] << ": " << describe(k);
        Mat want;
        cv::GaussianBlur(host[i], want, ksize[i], sigma[i], sigma[i], border);
        EXPECT_LE(cv::norm(want.reshape(1), alone[i].reshape(1), cv::NORM_INF), documentedTolerance(depth, host[i]))
            << c << " image " << i << " alone against the CPU: " << countDifferent(want, alone[i]) << " elements differ";
    }

    // The list: one launch of the unit's batched kernel for all its images.
    cv::Ptr<cv::cuda::GaussianBatchFilter> batch = cv::cuda::createGaussianBlurBatch(c.type, -1, Size(), 1.0, 0.0, border);
    log.clear();
    batch->apply(src, dst, sigma, sigma, ksize, s);
    const std::map<std::string, int> k = log.taken();
    EXPECT_EQ(1, launches(k, std::string(c.kernel) + "Batch")) << c << ": " << describe(k);
    EXPECT_EQ(0, launches(k, c.kernel)) << c << ": an image of the batch took the single-image kernel: " << describe(k);
    // the image below the range: the CUDA-core batch kernel of its radius
    const char* below = c.minRadius - 1 <= gs::FusedTile::kMaxR ? "fusedTileBatch" : "fusedLargeTileBatch";
    EXPECT_EQ(1, launches(k, below)) << c << ": the image below the range: " << describe(k);
    // and besides them only the device's tap makers (one launch per path: names ending in "Taps")
    size_t blurs = 0;
    for (const auto& kv : k)
        if (kv.first.size() < 4 || kv.first.compare(kv.first.size() - 4, 4, "Taps") != 0)
            blurs++;
        else
            EXPECT_EQ(1, kv.second) << c << ": " << describe(k);
    EXPECT_EQ(2u, blurs) << c << ": " << describe(k);
    for (size_t i = 0; i < radii.size(); i++)
        EXPECT_EQ(0, countDifferent(alone[i], toHost(dst[i], s))) << c << " image " << i << " (radius " << radii[i] << ", " << sizes[i] << ")";

    // Stacked (a tensor's memory): images of one size, each with its radius.
    const Size one(333, 67);
    Mat stackHost = randomMat(Size(one.width, one.height * static_cast<int>(radii.size())), c.type, rng);
    GpuMat stack(stackHost), stackOut;
    log.clear();
    batch->applyStacked(stack, stackOut, one.height, sigma, sigma, ksize, s);
    const std::map<std::string, int> ks = log.taken();
    EXPECT_EQ(1, launches(ks, std::string(c.kernel) + "Batch")) << c << " stacked: " << describe(ks);
    EXPECT_EQ(1, launches(ks, below)) << c << " stacked: " << describe(ks);
    const Mat got = toHost(stackOut, s);
    for (size_t i = 0; i < radii.size(); i++)
    {
        const cv::Rect rows(0, static_cast<int>(i) * one.height, one.width, one.height);
        const Mat image = stackHost(rows).clone();
        GpuMat out;
        cv::cuda::createGaussianBlur(c.type, c.type, ksize[i], sigma[i], sigma[i], border)->apply(GpuMat(image), out, s);
        EXPECT_EQ(0, countDifferent(toHost(out, s), got(rows))) << c << " stacked image " << i << " (radius " << radii[i] << ")";
    }
}

INSTANTIATE_TEST_CASE_P(CudaImage, CudaImage_GaussianBatchPaths_Unit, ::testing::ValuesIn(unitCases()));

}} // namespace opencv_test
