// The tensor-core paths on the device, against CPU cv::GaussianBlur: every unit (8U, 16U, 32F; each
// unit's own tests are in test_gaussian_tensor_cores*.cpp) at every radius it serves with one
// channel, and 8U with 2-4 channels at the radii where its choice or geometry changes; each with
// the path at every radius it can take (OPENCV_CUDAIMAGE_TENSOR_CORES=all) and off, on the whole
// image and on a sub-matrix (BORDER_ISOLATED), the border cycling through four. Bit-exact for 8U
// and 16U, within the documented bound for 32F. One test per case, so that gtest shards (and
// sanitizer runs split over shards) spread the sweep.
#include "test_precomp.hpp"
#include "gaussian_path_ids.hpp"
#include "gaussian_reference.hpp"
#include "tensor_cores_switch.hpp"

#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

namespace opencv_test { namespace {

typedef gs::TensorCorePath::Tile Tile8U;
typedef gs::TensorCore16UPath::Tile Tile16U;
typedef gs::TensorCore32FPath::Tile Tile32F;

// The radii where the 8U path's choice or geometry changes, found from the tile and the units (so a
// changed limit is swept where it then is): the ends of the CUDA-core ranges and of the tuning
// rows' thresholds, each change of the vertical or horizontal chunk count, each change of the
// halo for 3 channels (every 32 pixels; the 2- and 4-channel halos change at 16 and 8 pixels, and
// their first changes are swept) and the last radius with a tile per channel count, each with its
// neighbours, and the largest radius; plus a spread between.
std::vector<int> radiiWhere8UChanges()
{
    typedef Tile8U Tile;
    std::vector<int> r = {13, 17, 31, 45, 64, 90};   // the spread
    auto around = [&r](int b) {
        for (int d : {-1, 0, 1})
            if (b + d >= Tile::kMinR && b + d <= Tile::kMaxR)
                r.push_back(b + d);
    };
    around(Tile::kMinR);
    around(Tile::kMaxR);
    around(path::FusedTile::kMaxR);
    around(gs::tensorCoreTuning(90).minRadius(1));
    around(gs::tensorCoreTuning(90).minRadius(4));
    for (int R = Tile::kMinR + 1; R <= Tile::kMaxR; R++)
        if (Tile::vChunks(R) != Tile::vChunks(R - 1) || Tile::hChunks(R) != Tile::hChunks(R - 1) ||
            Tile::halo(R, 3) != Tile::halo(R - 1, 3))
            around(R);
    for (int cn : {2, 4})
        for (int R = Tile::kMinR + 1; R <= Tile::kMaxR; R++)
            if (Tile::halo(R, cn) != Tile::halo(R - 1, cn))
            {
                around(R);
                break;
            }
    for (int cn = 2; cn <= 4; cn++)
        around(path::lastRadiusOf<Tile>(cn, CV_8U));
    std::sort(r.begin(), r.end());
    r.erase(std::unique(r.begin(), r.end()), r.end());
    return r;
}

// What the sweep needs of one tensor-core unit. The comparison with the CPU follows from the depth
// (documentedTolerance: 0 for 8U and 16U, a bound for 32F).
struct SweptUnit
{
    const char* depthName;                // names the cases: 8UC3_r45
    int depth;
    int channels;                         // swept: 1 .. channels
    int minR, maxR;                       // the tile's radius range: every radius of it with one channel
    std::vector<int> (*channelRadii)();   // the radii swept with 2 or more channels
    int (*tileOutputs)(int r, int cn);    // the tile's outputs: the image is wider than two of the widest
    double patch;                         // a patch of this value beside random ones: the largest sums
    int seed;
};

const SweptUnit kUnits[] = {
    {"8U", CV_8U, 4, Tile8U::kMinR, Tile8U::kMaxR, &radiiWhere8UChanges, &gs::tile::tileOutputs<Tile8U>, 255, 2026},
    {"16U", CV_16U, 1, Tile16U::kMinR, Tile16U::kMaxR, nullptr, &gs::tile::tileOutputs<Tile16U>, 65535, 2029},
    {"32F", CV_32F, 1, Tile32F::kMinR, Tile32F::kMaxR, nullptr, &gs::tile::tileOutputs<Tile32F>, 3.0e4, 2031},
};

struct SweepCase
{
    const SweptUnit* unit;
    int cn;
    int r;
};

std::string nameOf(const SweepCase& c) { return cv::format("%sC%d_r%d", c.unit->depthName, c.cn, c.r); }

void PrintTo(const SweepCase& c, std::ostream* os) { *os << nameOf(c); }

std::vector<SweepCase> sweepCases()
{
    std::vector<SweepCase> cases;
    for (const SweptUnit& u : kUnits)
        for (int cn = 1; cn <= u.channels; cn++)
        {
            std::vector<int> radii;
            if (cn == 1)
                for (int r = u.minR; r <= u.maxR; r++)
                    radii.push_back(r);
            else
                radii = u.channelRadii();
            for (int r : radii)
                cases.push_back(SweepCase{&u, cn, r});
        }
    return cases;
}

// The image is wider than two of the unit's widest tiles (interior tiles with neighbours on both
// sides at every radius, and the image's edges) and tall enough for strips whose source rows are
// all inside (the kernels' fast loads) besides the edge strips; the sub-matrix starts 3 pixels in
// (unaligned rows: the element-wise loads and stores).
typedef ::testing::TestWithParam<SweepCase> CudaImage_GaussianTensorCores_EveryRadius;

TEST_P(CudaImage_GaussianTensorCores_EveryRadius, matches_cpu_with_the_path_on_and_off)
{
    CUDAIMAGE_REQUIRE_GPU();
    const SweptUnit& u = *GetParam().unit;
    const int cn = GetParam().cn, r = GetParam().r;
    cv::RNG rng(u.seed + cn);
    const int width = 2 * u.tileOutputs(u.minR, cn) / cn + 77, rows = 420;
    Mat parent = randomMat(Size(width, rows), CV_MAKETYPE(u.depth, cn), rng);
    parent(cv::Rect(40, 40, 300, 120)).setTo(cv::Scalar::all(u.patch));
    const cv::Rect roiRect(3, 2, width - 7, rows - 9);
    const int borders[] = {cv::BORDER_REPLICATE, cv::BORDER_REFLECT_101, cv::BORDER_REFLECT, cv::BORDER_CONSTANT};
    const int border = borders[r % 4];
    SCOPED_TRACE(cv::format("%s, border %d", nameOf(GetParam()).c_str(), border));

    const GpuMat whole(parent);
    const GpuMat roi = whole(roiRect);
    const Size ksize(2 * r + 1, 2 * r + 1);
    Mat cpuWhole, cpuRoi;
    cv::GaussianBlur(parent, cpuWhole, ksize, 0, 0, border);
    cv::GaussianBlur(parent(roiRect).clone(), cpuRoi, ksize, 0, 0, border | cv::BORDER_ISOLATED);
    const double tol = documentedTolerance(u.depth, parent);
    auto expectMatches = [tol](const Mat& cpu, const Mat& gpu) {
        if (tol == 0)
        {
            EXPECT_EQ(0, countDifferent(cpu, gpu));
        }
        else
        {
            EXPECT_LE(cv::norm(cpu, gpu, cv::NORM_INF), tol);
        }
    };
    for (const char* mode : {"all", "0"})
    {
        SCOPED_TRACE(cv::format("OPENCV_CUDAIMAGE_TENSOR_CORES=%s", mode));
        expectMatches(cpuWhole, blurOnDevice(whole, -1, r, border, mode));
        expectMatches(cpuRoi, blurOnDevice(roi, -1, r, border | cv::BORDER_ISOLATED, mode));
    }
}

INSTANTIATE_TEST_CASE_P(CudaImage, CudaImage_GaussianTensorCores_EveryRadius, ::testing::ValuesIn(sweepCases()),
                        [](const ::testing::TestParamInfo<SweepCase>& info) { return nameOf(info.param); });

}} // namespace
