// The Gaussian blur's path choice (src/gaussian_paths.hpp: the path units in src/paths/ asked in
// order) as a pure function: no GPU, so these run in CI. Every boundary: radius 8/9 (fused / large-radius fused), 128/129 (large-radius fused / two
// passes), the radius at which each depth x channel count runs out of tile, and the shared-memory
// limits of sm_75, sm_80, sm_86/89 and sm_90. The expected numbers are worked out by hand from the
// kernels' geometry (src/gaussian_tile.hpp and each path's tile), not recomputed with its functions.
#include "test_precomp.hpp"
#include "gaussian_path_ids.hpp"

namespace opencv_test { namespace {

namespace path = cudaimage_test::path;
using cv::cuda::gaussian::PathChoice;
using cv::cuda::gaussian::PathQuery;
using cv::cuda::gaussian::choosePath;

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
            EXPECT_EQ(path::Fused, c.index) << c.reason;
            EXPECT_EQ(kFusedTileR8[cn], c.tileOutputs);
            EXPECT_EQ(kFusedBytes, c.sharedBytes);

            c = choose(depth, cn, 9);
            EXPECT_EQ(path::FusedLarge, c.index) << c.reason;
            EXPECT_EQ(kLargeTileR9[cn], c.tileOutputs);
            EXPECT_EQ(kLargeBytes, c.sharedBytes);

            c = choose(depth, cn, 128);
            if (cn < 4)
            {
                EXPECT_EQ(path::FusedLarge, c.index) << c.reason;
                EXPECT_EQ(kLargeTileR128[cn], c.tileOutputs);
            }
            else
                EXPECT_EQ(path::TwoPass, c.index) << c.reason;

            c = choose(depth, cn, 129);
            EXPECT_EQ(path::TwoPass, c.index) << c.reason;
            EXPECT_EQ(std::string("radius above 128"), c.reason);

            // The radius is max(rx, ry): one direction decides.
            EXPECT_EQ(path::Fused, choosePath(query(depth, cn, 8, 0)).index);
            EXPECT_EQ(path::FusedLarge, choosePath(query(depth, cn, 0, 9)).index);
            EXPECT_EQ(path::FusedLarge, choosePath(query(depth, cn, 3, 100)).index);
            EXPECT_EQ(path::TwoPass, choosePath(query(depth, cn, 129, 1)).index);
            EXPECT_EQ(path::TwoPass, choosePath(query(depth, cn, 2, 129)).index);
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
            EXPECT_EQ(path::FusedLarge, atLimit.index) << atLimit.reason;
            EXPECT_EQ(cn == 4 ? 16 : kLargeTileR128[cn], atLimit.tileOutputs);
            const PathChoice beyond = choose(depth, cn, last + 1);
            EXPECT_EQ(path::TwoPass, beyond.index) << beyond.reason;
            if (cn == 4)
            {
                EXPECT_NE(std::string::npos, std::string(beyond.reason).find("no room after the halo")) << beyond.reason;
            }
            // No radius below the limit leaves the fused paths for lack of tile.
            for (int r = 1; r <= last; r++)
                EXPECT_NE(path::TwoPass, choose(depth, cn, r).index) << "radius " << r;
        }
}

// Sigma-derived kernel sizes (OpenCV's rule) whose radius leaves the large-radius kernel no tile for
// 4 channels: CPU cv::GaussianBlur takes them, so the two-pass path must.
TEST(CudaImage_GaussianPlan, four_channel_sigmas_beyond_the_large_tile)
{
    struct Case { int depth; double sigma; int radius; };
    const Case cases[] = {{CV_8U, 41.0, 123}, {CV_8U, 42.6, 128}, {CV_32F, 31.0, 124}};
    for (const Case& k : cases)
    {
        const int ksize = cv::cuda::gaussianKernelSize(k.sigma, k.depth);
        ASSERT_EQ(k.radius, ksize / 2) << "sigma " << k.sigma;
        EXPECT_EQ(path::TwoPass, choose(k.depth, 4, k.radius).index) << "4 channels, sigma " << k.sigma;
        EXPECT_EQ(path::FusedLarge, choose(k.depth, 3, k.radius).index) << "3 channels, sigma " << k.sigma;
        EXPECT_EQ(path::FusedLarge, choose(k.depth, 1, k.radius).index) << "1 channel, sigma " << k.sigma;
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
                EXPECT_EQ(path::Fused, choose(depth, cn, r, kSm75).index) << "sm_75, radius " << r;
            for (int r = 9; r <= 128; r++)
            {
                const PathChoice c = choose(depth, cn, r, kSm75);
                EXPECT_EQ(path::TwoPass, c.index) << "sm_75, radius " << r;
            }
            EXPECT_NE(std::string::npos, std::string(choose(depth, cn, 9, kSm75).reason).find("shared memory"));
            // sm_80, sm_86/89, sm_90: both tiles fit.
            for (size_t smem : {kSm80, kSm86, kSm90})
                for (int r = 1; r <= 129; r++)
                {
                    const int expected = r <= 8 ? path::Fused : r <= lastLargeRadius(cn) ? path::FusedLarge : path::TwoPass;
                    EXPECT_EQ(expected, choose(depth, cn, r, smem).index) << what(depth, cn, r, smem);
                }
            // The exact limits.
            EXPECT_EQ(path::FusedLarge, choose(depth, cn, 9, kLargeBytes).index);
            EXPECT_EQ(path::TwoPass, choose(depth, cn, 9, kLargeBytes - 1).index);
            EXPECT_EQ(path::Fused, choose(depth, cn, 8, kFusedBytes).index);
            EXPECT_EQ(path::TwoPass, choose(depth, cn, 8, kFusedBytes - 1).index);
            EXPECT_EQ(path::TwoPass, choose(depth, cn, 1, 0).index);
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
                EXPECT_EQ(path::TwoPass, choosePath(q).index);
                q = query(depth, cn, r, r);
                q.unitRowOrColumn = true;
                EXPECT_EQ(path::TwoPass, choosePath(q).index);
                q = query(depth, cn, r, r);
                q.verticalTapsFitByte = false;   // only 8U multiplies bytes
                EXPECT_EQ(depth == CV_8U ? path::TwoPass : choosePath(query(depth, cn, r, r)).index, choosePath(q).index);
            }
    EXPECT_EQ(path::TwoPass, choose(CV_8U, 1, 0).index);   // 1x1
    EXPECT_EQ(path::TwoPass, choose(CV_64F, 4, 0).index);

    using cv::cuda::gaussian::tapsFitByte;
    EXPECT_FALSE(tapsFitByte(CV_8U, {256}));            // one tap: all the weight
    EXPECT_FALSE(tapsFitByte(CV_8U, {0, 0, 256, 0, 0})); // a sigma so small the centre takes all
    EXPECT_TRUE(tapsFitByte(CV_8U, {64, 128, 64}));
    EXPECT_TRUE(tapsFitByte(CV_16U, {65536}));           // 16U: double arithmetic, no bytes
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
                    SCOPED_TRACE(what(depth, cn, r, smem) + " -> " + c.name + ": " + c.reason);
                    ASSERT_EQ(r, c.radius);
                    const int item = depth == CV_8U ? 16 : 8;
                    if (c.index == path::TwoPass)
                    {
                        twoPass++;
                        continue;
                    }
                    ASSERT_GE(c.tileOutputs, item);
                    ASSERT_EQ(0, c.tileOutputs % item);
                    ASSERT_LE(c.sharedBytes, smem);
                    if (c.index == path::Fused)
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

// The list itself: the paths in priority order, the fallback last and accepting every query, and
// the choice naming why each earlier path declined.
TEST(CudaImage_GaussianPlan, the_list_asks_the_paths_in_order_and_records_each_decline)
{
    typedef cv::cuda::gaussian::GaussianPaths List;
    ASSERT_EQ(4, List::kCount);
    EXPECT_STREQ("tensor-core", List::name(path::TensorCore));
    EXPECT_STREQ("fused", List::name(path::Fused));
    EXPECT_STREQ("fused-large", List::name(path::FusedLarge));
    EXPECT_STREQ("two-pass", List::name(path::TwoPass));
    EXPECT_LT(path::TensorCore, path::Fused);
    EXPECT_LT(path::Fused, path::FusedLarge);

    // Radius 129: every single-kernel path declines, each with its own reason.
    const PathChoice far = choose(CV_8U, 1, 129);
    ASSERT_EQ(path::TwoPass, far.index);
    EXPECT_STREQ("two-pass", far.name);
    EXPECT_STREQ("radius above 8", far.declined[path::Fused]);
    EXPECT_STREQ("radius above 128", far.declined[path::FusedLarge]);
    EXPECT_STREQ("radius above 128", far.reason);   // the fallback takes the last decline as its reason
    // Radius 9: the fused path declines, the large one takes it with its own reason.
    const PathChoice mid = choose(CV_32F, 3, 9);
    ASSERT_EQ(path::FusedLarge, mid.index);
    EXPECT_STREQ("radius above 8", mid.declined[path::Fused]);
    EXPECT_STREQ("radius 9..128", mid.reason);

    // The fallback accepts whatever the others refuse, down to an empty query.
    EXPECT_EQ(path::TwoPass, choosePath(PathQuery()).index);
    for (int depth : kDepths)
        for (size_t smem : {size_t(0), kSm90})
        {
            PathQuery q = query(depth, 4, 1000, 1000, smem);
            q.dstInSrcAllocation = true;
            q.unitRowOrColumn = true;
            EXPECT_EQ(path::TwoPass, choosePath(q).index);
        }
}

// The per-architecture tuning table (src/gaussian_tuning.hpp): a row for sm_80, 86, 89 and 90 and a
// default for every other architecture, and the choice reads the thresholds from the row of the
// query's architecture, at both sides of each threshold.
TEST(CudaImage_GaussianPlan, thresholds_come_from_the_tuning_row_of_the_architecture)
{
    namespace tuning = cv::cuda::gaussian::tuning;
    for (int cc : {80, 86, 89, 90})
        EXPECT_EQ(cc, tuning::forArch(cc).computeCapability) << "sm_" << cc;
    for (int cc : {0, 75, 87, 100, 120})
        EXPECT_EQ(0, tuning::forArch(cc).computeCapability) << "sm_" << cc << " takes the default row";
    // Measured on the H200 (sm_90): one channel from radius 6, more from 9.
    EXPECT_EQ(6, tuning::tensorCoreMinRadius(tuning::forArch(90), 1));
    for (int cn = 2; cn <= 4; cn++)
        EXPECT_EQ(9, tuning::tensorCoreMinRadius(tuning::forArch(90), cn));

    auto tensorQuery = [](int r, int cn, int cc) {
        PathQuery q = query(CV_8U, cn, r, r, kSm90);
        q.tensorCoreCode = true;
        q.multiprocessors = 132;
        q.computeCapability = cc;
        return q;
    };
    // Every row's own threshold, at r - 1 and r.
    for (int cc : {0, 80, 86, 89, 90})
        for (int cn = 1; cn <= 4; cn++)
        {
            const int r = tuning::tensorCoreMinRadius(tuning::forArch(cc), cn);
            SCOPED_TRACE(cv::format("sm_%d, %d channels, threshold %d", cc, cn, r));
            EXPECT_NE(path::TensorCore, choosePath(tensorQuery(r - 1, cn, cc)).index);
            EXPECT_EQ(path::TensorCore, choosePath(tensorQuery(r, cn, cc)).index);
        }
    // A row with other thresholds moves the choice: the rules read the table, not constants.
    const tuning::ArchTuning custom = {0, "test", 3, 12, "test"};
    typedef cv::cuda::gaussian::GaussianPaths List;
    EXPECT_EQ(path::Fused, List::choose(tensorQuery(2, 1, 90), custom).index);
    EXPECT_EQ(path::TensorCore, List::choose(tensorQuery(3, 1, 90), custom).index);
    EXPECT_EQ(path::FusedLarge, List::choose(tensorQuery(11, 4, 90), custom).index);
    EXPECT_EQ(path::TensorCore, List::choose(tensorQuery(12, 4, 90), custom).index);
}

}} // namespace opencv_test
