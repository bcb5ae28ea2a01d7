// The Gaussian blur's path choice (src/gaussian_plan.hpp) as a pure function: no GPU, so these run in
// CI. Every boundary: radius 8/9 (fused / large-radius fused), 128/129 (large-radius fused / two
// passes), the radius at which each depth x channel count runs out of tile, and the shared-memory
// limits of sm_75, sm_80, sm_86/89 and sm_90. The expected numbers are worked out by hand from the
// kernels' geometry (src/gaussian_geometry.hpp), not recomputed with its functions.
#include "test_precomp.hpp"
#include "../src/gaussian_plan.hpp"

namespace opencv_test { namespace {

using cv::cuda::gaussian::Path;
using cv::cuda::gaussian::PathChoice;
using cv::cuda::gaussian::PathQuery;
using cv::cuda::gaussian::choosePath;
using cv::cuda::gaussian::pathName;

const int kDepths[] = {CV_8U, CV_16U, CV_16S, CV_32F, CV_64F};

// cudaDevAttrMaxSharedMemoryPerBlockOptin per architecture (CUDA C++ Programming Guide, table of
// technical specifications per compute capability).
const size_t kSm75 = 64 * 1024;    //  65,536: T4, RTX 20xx
const size_t kSm80 = 163 * 1024;   // 166,912: A100
const size_t kSm86 = 99 * 1024;    // 101,376: sm_86 (RTX 30xx, A10) and sm_89 (L4, L40, RTX 40xx)
const size_t kSm90 = 227 * 1024;   // 232,448: H100, H200

// Dynamic shared memory of one block: 16 rows x (512 + 4) floats, or 8 rows x (512 + 4) doubles,
// for the fused kernel; 1024 + 4 columns for the large-radius one. Equal for every depth.
const size_t kFusedBytes = 33024;
const size_t kLargeBytes = 65792;

PathQuery query(int depth, int cn, int rx, int ry, size_t smem = kSm90)
{
    PathQuery q;
    q.depth = depth;
    q.channels = cn;
    q.rx = rx;
    q.ry = ry;
    q.sharedMemOptIn = smem;
    return q;
}

PathChoice choose(int depth, int cn, int r, size_t smem = kSm90) { return choosePath(query(depth, cn, r, r, smem)); }

std::string what(int depth, int cn, int r, size_t smem)
{
    return cv::format("%s radius %d, shared memory %zu", cv::typeToString(CV_MAKETYPE(depth, cn)).c_str(), r, smem);
}

// Output elements per block row, by hand: 512 (fused) or 1024 (large) columns less two halos of
// roundUp(R * cn, 8) (fused) or roundUp((R + 4) * cn, 8) (large).
const int kFusedTileR8[5] = {0, 496, 480, 464, 448};     // [cn]: halo 8, 16, 24, 32
const int kLargeTileR9[5] = {0, 992, 960, 944, 912};     // halo 16, 32, 40, 56
const int kLargeTileR128[5] = {0, 752, 496, 224, -1};    // halo 136, 264, 400, 528 (4 channels: none)

// The largest radius the large-radius path serves per channel count: the tile must hold one item
// (16 outputs for 8U, 8 otherwise; tiles are multiples of 16, so 16 for every depth).
// 1, 2, 3 channels: 128, the path's own limit. 4 channels: R = 122 gives halo roundUp(126 * 4, 8) =
// 504 and a tile of 16; R = 123 gives halo 512 and a tile of 0.
int lastLargeRadius(int cn) { return cn == 4 ? 122 : 128; }

TEST(CudaImage_GaussianPlan, radius_8_9_128_129)
{
    for (int depth : kDepths)
        for (int cn = 1; cn <= 4; cn++)
        {
            SCOPED_TRACE(cv::typeToString(CV_MAKETYPE(depth, cn)));
            PathChoice c = choose(depth, cn, 8);
            EXPECT_EQ(Path::Fused, c.path) << c.reason;
            EXPECT_EQ(kFusedTileR8[cn], c.tileOutputs);
            EXPECT_EQ(kFusedBytes, c.sharedBytes);

            c = choose(depth, cn, 9);
            EXPECT_EQ(Path::FusedLarge, c.path) << c.reason;
            EXPECT_EQ(kLargeTileR9[cn], c.tileOutputs);
            EXPECT_EQ(kLargeBytes, c.sharedBytes);

            c = choose(depth, cn, 128);
            if (cn < 4)
            {
                EXPECT_EQ(Path::FusedLarge, c.path) << c.reason;
                EXPECT_EQ(kLargeTileR128[cn], c.tileOutputs);
            }
            else
                EXPECT_EQ(Path::TwoPass, c.path) << c.reason;

            c = choose(depth, cn, 129);
            EXPECT_EQ(Path::TwoPass, c.path) << c.reason;
            EXPECT_EQ(std::string("radius above 128"), c.reason);

            // The radius is max(rx, ry): one direction decides.
            EXPECT_EQ(Path::Fused, choosePath(query(depth, cn, 8, 0)).path);
            EXPECT_EQ(Path::FusedLarge, choosePath(query(depth, cn, 0, 9)).path);
            EXPECT_EQ(Path::FusedLarge, choosePath(query(depth, cn, 3, 100)).path);
            EXPECT_EQ(Path::TwoPass, choosePath(query(depth, cn, 129, 1)).path);
            EXPECT_EQ(Path::TwoPass, choosePath(query(depth, cn, 2, 129)).path);
        }
}

TEST(CudaImage_GaussianPlan, each_depth_and_channel_count_runs_out_of_tile_at_its_limit)
{
    for (int depth : kDepths)
        for (int cn = 1; cn <= 4; cn++)
        {
            SCOPED_TRACE(cv::typeToString(CV_MAKETYPE(depth, cn)));
            const int last = lastLargeRadius(cn);
            const PathChoice atLimit = choose(depth, cn, last);
            EXPECT_EQ(Path::FusedLarge, atLimit.path) << atLimit.reason;
            EXPECT_EQ(cn == 4 ? 16 : kLargeTileR128[cn], atLimit.tileOutputs);
            const PathChoice beyond = choose(depth, cn, last + 1);
            EXPECT_EQ(Path::TwoPass, beyond.path) << beyond.reason;
            if (cn == 4)
            {
                EXPECT_NE(std::string::npos, std::string(beyond.reason).find("no room after the halo")) << beyond.reason;
            }
            // No radius below the limit leaves the fused paths for lack of tile.
            for (int r = 1; r <= last; r++)
                EXPECT_NE(Path::TwoPass, choose(depth, cn, r).path) << "radius " << r;
        }
}

// The issue's cases (sigma-derived kernel sizes, OpenCV's rule): CPU cv::GaussianBlur takes them, the
// large-radius kernel had no tile for them.
TEST(CudaImage_GaussianPlan, issue_14_four_channel_sigmas)
{
    struct Case { int depth; double sigma; int radius; };
    const Case cases[] = {{CV_8U, 41.0, 123}, {CV_8U, 42.6, 128}, {CV_32F, 31.0, 124}};
    for (const Case& k : cases)
    {
        const int ksize = cvRound(k.sigma * (k.depth == CV_8U ? 3 : 4) * 2 + 1) | 1;
        ASSERT_EQ(k.radius, ksize / 2) << "sigma " << k.sigma;
        EXPECT_EQ(Path::TwoPass, choose(k.depth, 4, k.radius).path) << "4 channels, sigma " << k.sigma;
        EXPECT_EQ(Path::FusedLarge, choose(k.depth, 3, k.radius).path) << "3 channels, sigma " << k.sigma;
        EXPECT_EQ(Path::FusedLarge, choose(k.depth, 1, k.radius).path) << "1 channel, sigma " << k.sigma;
    }
}

TEST(CudaImage_GaussianPlan, shared_memory_limits_of_sm75_sm80_sm86_sm90)
{
    for (int depth : kDepths)
        for (int cn = 1; cn <= 4; cn++)
        {
            SCOPED_TRACE(cv::typeToString(CV_MAKETYPE(depth, cn)));
            // sm_75: 64 KiB is 256 bytes short of the large-radius tile; the fused tile fits.
            for (int r = 1; r <= 8; r++)
                EXPECT_EQ(Path::Fused, choose(depth, cn, r, kSm75).path) << "sm_75, radius " << r;
            for (int r = 9; r <= 128; r++)
            {
                const PathChoice c = choose(depth, cn, r, kSm75);
                EXPECT_EQ(Path::TwoPass, c.path) << "sm_75, radius " << r;
            }
            EXPECT_NE(std::string::npos, std::string(choose(depth, cn, 9, kSm75).reason).find("shared memory"));
            // sm_80, sm_86/89, sm_90: both tiles fit.
            for (size_t smem : {kSm80, kSm86, kSm90})
                for (int r = 1; r <= 129; r++)
                {
                    const Path expected = r <= 8 ? Path::Fused : r <= lastLargeRadius(cn) ? Path::FusedLarge : Path::TwoPass;
                    EXPECT_EQ(expected, choose(depth, cn, r, smem).path) << what(depth, cn, r, smem);
                }
            // The exact limits.
            EXPECT_EQ(Path::FusedLarge, choose(depth, cn, 9, kLargeBytes).path);
            EXPECT_EQ(Path::TwoPass, choose(depth, cn, 9, kLargeBytes - 1).path);
            EXPECT_EQ(Path::Fused, choose(depth, cn, 8, kFusedBytes).path);
            EXPECT_EQ(Path::TwoPass, choose(depth, cn, 8, kFusedBytes - 1).path);
            EXPECT_EQ(Path::TwoPass, choose(depth, cn, 1, 0).path);
        }
}

TEST(CudaImage_GaussianPlan, in_place_single_row_1x1_and_8U_taps_above_a_byte_take_two_passes)
{
    for (int depth : kDepths)
        for (int cn = 1; cn <= 4; cn++)
            for (int r : {1, 8, 9, 100})
            {
                SCOPED_TRACE(what(depth, cn, r, kSm90));
                PathQuery q = query(depth, cn, r, r);
                q.dstInSrcAllocation = true;
                EXPECT_EQ(Path::TwoPass, choosePath(q).path);
                q = query(depth, cn, r, r);
                q.unitRowOrColumn = true;
                EXPECT_EQ(Path::TwoPass, choosePath(q).path);
                q = query(depth, cn, r, r);
                q.verticalTapsFitByte = false;   // only 8U multiplies bytes
                EXPECT_EQ(depth == CV_8U ? Path::TwoPass : choosePath(query(depth, cn, r, r)).path, choosePath(q).path);
            }
    EXPECT_EQ(Path::TwoPass, choose(CV_8U, 1, 0).path);   // 1x1
    EXPECT_EQ(Path::TwoPass, choose(CV_64F, 4, 0).path);

    using cv::cuda::gaussian::verticalTapsFitByte;
    EXPECT_FALSE(verticalTapsFitByte(CV_8U, {256}));            // one tap: all the weight
    EXPECT_FALSE(verticalTapsFitByte(CV_8U, {0, 0, 256, 0, 0})); // a sigma so small the centre takes all
    EXPECT_TRUE(verticalTapsFitByte(CV_8U, {64, 128, 64}));
    EXPECT_TRUE(verticalTapsFitByte(CV_16U, {65536}));           // 16U: double arithmetic, no bytes
}

// Whatever the arguments, a fused choice satisfies its kernel's invariants (the kernels assume them).
TEST(CudaImage_GaussianPlan, every_choice_has_a_valid_tile)
{
    int fused = 0, large = 0, twoPass = 0;
    for (int depth : kDepths)
        for (int cn = 1; cn <= 4; cn++)
            for (size_t smem : {size_t(0), size_t(48 * 1024), kSm75, kLargeBytes - 1, kLargeBytes, kSm86, kSm80, kSm90})
                for (int r = 0; r <= 300; r++)
                {
                    const PathChoice c = choose(depth, cn, r, smem);
                    SCOPED_TRACE(what(depth, cn, r, smem) + " -> " + pathName(c.path) + ": " + c.reason);
                    ASSERT_EQ(r, c.radius);
                    const int item = depth == CV_8U ? 16 : 8;
                    if (c.path == Path::TwoPass)
                    {
                        twoPass++;
                        continue;
                    }
                    ASSERT_GE(c.tileOutputs, item);
                    ASSERT_EQ(0, c.tileOutputs % item);
                    ASSERT_LE(c.sharedBytes, smem);
                    if (c.path == Path::Fused)
                    {
                        fused++;
                        ASSERT_TRUE(r >= 1 && r <= 8);
                        ASSERT_EQ(512 - 2 * ((r * cn + 7) / 8 * 8), c.tileOutputs);
                    }
                    else
                    {
                        large++;
                        ASSERT_TRUE(r >= 9 && r <= 128);
                        const int halo = (r + 4) * cn + 7 - ((r + 4) * cn + 7) % 8;
                        ASSERT_EQ(1024 - 2 * halo, c.tileOutputs);
                        // The horizontal window of the first and last item stays in the shared row:
                        // it starts (R + lead) * cn before the output, lead <= 3 zero taps.
                        ASSERT_GE(halo - (r + 3) * cn, 0);
                    }
                }
    std::cout << "[ PLAN     ] " << fused << " fused, " << large << " large-radius fused, " << twoPass << " two-pass choices checked" << std::endl;
}

}} // namespace opencv_test
