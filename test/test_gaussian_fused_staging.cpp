// The fused kernel's staged strips (FusedTile::staged: 8U and 16U, radius 1..8, a single image): a
// block walks FusedTile::stripsPerBlock strips gridDim.y apart and copies each next strip's source
// rows into shared memory (cp.async) while it works on the current one; strips that touch the
// bottom border, threads whose columns are not whole aligned vectors, and the first strip of a
// block load directly. The images are sized from the device's SM count so that the strips per
// block take each value at both sides of its boundaries; every result is compared with CPU
// cv::GaussianBlur, exactly (OpenCV is bit-exact for 8U and 16U).
#include "test_precomp.hpp"
#include "opencv2/core/cuda.hpp"
#include "tensor_cores_switch.hpp"
#include "../src/paths/fused/fused_path.hpp"

namespace opencv_test { namespace {

using cv::Mat;
using cv::Size;
using cv::cuda::GpuMat;
using cv::cuda::gaussian::FusedTile;

struct StagedCase
{
    int type;
    int r;
    int stripsPerBlock;   // what FusedTile::stripsPerBlock gives the launch
    bool below;           // one strip column short of the boundary (stripsPerBlock is then one less)
};

// Width and height with `across` tiles of the fused kernel and strips x across blocks; the last
// tile and strip partial, so that edge tiles and the bottom border are staged around too.
Size imageFor(int type, int r, long long blocks, int across)
{
    const int depth = CV_MAT_DEPTH(type), cn = CV_MAT_CN(type);
    const int tile = cv::cuda::gaussian::tile::tileOutputs<FusedTile>(r, cn) / cn;   // pixels per tile
    const int rows = cv::cuda::gaussian::tile::stripRows(depth);
    const long long strips = blocks / across;
    return Size(across * tile - 5, static_cast<int>(strips * rows - 3));
}

Mat cpuBlur(const Mat& src, int r)
{
    Mat dst;
    cv::GaussianBlur(src, dst, Size(2 * r + 1, 2 * r + 1), 0, 0, cv::BORDER_REPLICATE);
    return dst;
}

Mat gpuBlur(const GpuMat& src, int r)
{
    return cudaimage_test::blurOnDevice(src, src.type(), r, cv::BORDER_REPLICATE, "0");
}

TEST(CudaImage_GaussianFusedStaging, strips_per_block_boundaries_match_cpu)
{
    CUDAIMAGE_REQUIRE_GPU();
    const int sms = cv::cuda::DeviceInfo().multiProcessorCount();
    const long long wave = static_cast<long long>(FusedTile::kMinWaves) * FusedTile::kBlocksPerSm * sms;
    const int across = 4;
    std::vector<StagedCase> cases;
    for (int type : {CV_8UC1, CV_16UC1})
        for (int r : {FusedTile::kMinR, FusedTile::kMaxR})
            for (int k = 2; k <= FusedTile::kMaxStripsPerBlock; k++)
                for (bool below : {true, false})
                    cases.push_back({type, r, below ? k - 1 : k, below});
    cases.push_back({CV_8UC1, 3, FusedTile::kMaxStripsPerBlock, false});
    cases.push_back({CV_8UC3, 3, 2, false});
    cases.push_back({CV_16UC4, 2, 2, false});
    cv::RNG rng(20261206);
    for (const StagedCase& c : cases)
    {
        const int k = c.below ? c.stripsPerBlock + 1 : c.stripsPerBlock;
        const long long blocks = k * wave - (c.below ? across : 0);
        const Size size = imageFor(c.type, c.r, blocks, across);
        SCOPED_TRACE(cv::format("%s radius %d, %dx%d, %lld blocks of one strip", cv::typeToString(c.type).c_str(), c.r,
                                size.width, size.height, blocks));
        ASSERT_EQ(c.stripsPerBlock, FusedTile::stripsPerBlock(blocks, sms, 0)) << "the sizes miss the boundary";
        Mat src(size, c.type);
        rng.fill(src, cv::RNG::UNIFORM, 0, CV_MAT_DEPTH(c.type) == CV_8U ? 256 : 65536);
        EXPECT_MAT_EQ(cpuBlur(src, c.r), gpuBlur(GpuMat(src), c.r));
    }
}

// A sub-matrix: staged rows above and below the ROI come from the whole image (OpenCV's border
// semantics without BORDER_ISOLATED), as the direct loads take them; with the ROI one column in,
// no thread's 4 elements are an aligned vector (loaded directly, never staged); four columns in,
// they are again.
TEST(CudaImage_GaussianFusedStaging, sub_matrix_with_rows_around_it_matches_cpu)
{
    CUDAIMAGE_REQUIRE_GPU();
    const int sms = cv::cuda::DeviceInfo().multiProcessorCount();
    const long long wave = static_cast<long long>(FusedTile::kMinWaves) * FusedTile::kBlocksPerSm * sms;
    cv::RNG rng(7);
    for (int type : {CV_8UC1, CV_16UC1})
        for (int r : {2, FusedTile::kMaxR})
            for (int x0 : {0, 1, 4})
            {
                const Size size = imageFor(type, r, 3 * wave, 4);
                SCOPED_TRACE(cv::format("%s radius %d, %dx%d at (%d, 21)", cv::typeToString(type).c_str(), r, size.width, size.height, x0));
                Mat whole(size.height + 40, size.width + 8, type);
                rng.fill(whole, cv::RNG::UNIFORM, 0, CV_MAT_DEPTH(type) == CV_8U ? 256 : 65536);
                const cv::Rect roi(x0, 21, size.width, size.height);
                GpuMat wholeDevice(whole);
                EXPECT_MAT_EQ(cpuBlur(whole(roi), r), gpuBlur(wholeDevice(roi), r));
            }
}

}} // namespace
