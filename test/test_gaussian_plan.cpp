// The Gaussian blur's path choice (src/gaussian_paths.hpp: the path units in src/paths/ asked in
// order) as a pure function: no GPU, so these run in CI. Every boundary, taken from the units' own
// constants (test/gaussian_path_ids.hpp), so that a changed limit is tested where it then is: the
// ends of the fused and large-radius ranges, the radius at which each depth x channel count runs
// out of tile, and the shared-memory limits of sm_75, sm_80, sm_86/89 and sm_90. The boundaries
// come from the library's tile arithmetic; the halos, tiles and bytes each choice reports are also
// worked out by the tests' own arithmetic (stripBytesByHand, every_choice_has_a_valid_tile).
#include "test_precomp.hpp"
#include "gaussian_path_ids.hpp"

namespace opencv_test { namespace {

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

using cudaimage_test::path::FusedTile;
using cudaimage_test::path::LargeTile;
using cudaimage_test::path::lastRadiusOf;
using cudaimage_test::path::cudaCorePath;
using cudaimage_test::path::boundaryRadii;
using cv::cuda::gaussian::tile::itemOutputs;
using cv::cuda::gaussian::tile::sharedBytes;
using cv::cuda::gaussian::tile::tileOutputs;

PathQuery query(int depth, int cn, int rx, int ry, size_t smem = kSm90) { return path::query(depth, cn, rx, ry, smem); }

PathChoice choose(int depth, int cn, int r, size_t smem = kSm90) { return choosePath(query(depth, cn, r, r, smem)); }

std::string what(int depth, int cn, int r, size_t smem)
{
    return cv::format("%s radius %d, shared memory %zu", cv::typeToString(CV_MAKETYPE(depth, cn)).c_str(), r, smem);
}

// An oracle, worked out here and not by tile::sharedBytes: a strip of 16 rows of floats (16U and
// 64F: 8 rows of doubles), each kCols elements and 4 of padding.
template <class Tile>
size_t stripBytesByHand(int depth)
{
    const bool inDouble = depth == CV_16U || depth == CV_64F;
    return static_cast<size_t>(inDouble ? 8 : 16) * (Tile::kCols + 4) * (inDouble ? 8 : 4);
}

// Each boundary of the CUDA-core paths (the ends of the fused and large-radius ranges, the last
// radius with a large-radius tile for each depth and channel count, and one beyond each), on every
// architecture's shared memory, with the tile and shared memory each choice reports.
TEST(CudaImage_GaussianPlan, every_radius_boundary_of_the_cuda_core_paths)
{
    for (int depth : kDepths)
        for (int cn = 1; cn <= 4; cn++)
            for (size_t smem : {kSm75, kSm80, kSm86, kSm90})
                for (int r : boundaryRadii(depth, cn))
                {
                    SCOPED_TRACE(what(depth, cn, r, smem));
                    const PathChoice c = choose(depth, cn, r, smem);
                    ASSERT_EQ(cudaCorePath(depth, cn, r, smem), c.index) << c.reason;
                    if (c.index == path::Fused)
                    {
                        EXPECT_EQ(tileOutputs<FusedTile>(r, cn), c.tileOutputs);
                        EXPECT_EQ(stripBytesByHand<FusedTile>(depth), c.sharedBytes);
                    }
                    if (c.index == path::FusedLarge)
                    {
                        EXPECT_EQ(tileOutputs<LargeTile>(r, cn), c.tileOutputs);
                        EXPECT_EQ(stripBytesByHand<LargeTile>(depth), c.sharedBytes);
                    }
                }
}

TEST(CudaImage_GaussianPlan, the_radius_is_the_larger_of_rx_and_ry)
{
    const int fusedLast = FusedTile::kMaxR, largeFirst = LargeTile::kMinR, largeLast = LargeTile::kMaxR;
    for (int depth : kDepths)
        for (int cn = 1; cn <= 4; cn++)
        {
            SCOPED_TRACE(cv::typeToString(CV_MAKETYPE(depth, cn)));
            EXPECT_EQ(path::Fused, choosePath(query(depth, cn, fusedLast, 0)).index);
            EXPECT_EQ(path::Fused, choosePath(query(depth, cn, 0, fusedLast)).index);
            EXPECT_EQ(path::FusedLarge, choosePath(query(depth, cn, 0, largeFirst)).index);
            EXPECT_EQ(path::FusedLarge, choosePath(query(depth, cn, 3, lastRadiusOf<LargeTile>(cn, depth))).index);
            EXPECT_EQ(path::TwoPass, choosePath(query(depth, cn, largeLast + 1, 1)).index);
            EXPECT_EQ(path::TwoPass, choosePath(query(depth, cn, 2, largeLast + 1)).index);
        }
}

TEST(CudaImage_GaussianPlan, each_depth_and_channel_count_runs_out_of_tile_at_its_limit)
{
    for (int depth : kDepths)
        for (int cn = 1; cn <= 4; cn++)
        {
            SCOPED_TRACE(cv::typeToString(CV_MAKETYPE(depth, cn)));
            const int last = lastRadiusOf<LargeTile>(cn, depth);
            ASSERT_GE(last, LargeTile::kMinR) << "every channel count has a large-radius tile";
            const PathChoice atLimit = choose(depth, cn, last);
            EXPECT_EQ(path::FusedLarge, atLimit.index) << atLimit.reason;
            EXPECT_GE(atLimit.tileOutputs, itemOutputs(depth));
            const PathChoice beyond = choose(depth, cn, last + 1);
            EXPECT_EQ(path::TwoPass, beyond.index) << beyond.reason;
            if (last < LargeTile::kMaxR)
            {
                // The reason names the limit it reports, computed from the tile.
                EXPECT_NE(std::string::npos, std::string(beyond.reason).find("no room after the halo")) << beyond.reason;
                EXPECT_NE(std::string::npos, std::string(beyond.reason).find("radius above " + std::to_string(last))) << beyond.reason;
            }
            // No radius below the limit leaves the fused paths for lack of tile.
            for (int r = 1; r <= last; r++)
                EXPECT_NE(path::TwoPass, choose(depth, cn, r).index) << "radius " << r;
        }
}

// Sigma-derived kernel sizes (OpenCV's rule) whose radius leaves the large-radius kernel no tile for
// some channel count: CPU cv::GaussianBlur takes them, so the two-pass path must. The sigmas are
// found from the tile's limit, for each depth's sigma rule.
TEST(CudaImage_GaussianPlan, sigmas_beyond_the_large_tile_take_two_passes)
{
    int checked = 0;
    for (int depth : kDepths)
        for (int cn = 1; cn <= 4; cn++)
        {
            const int last = lastRadiusOf<LargeTile>(cn, depth);
            if (last >= LargeTile::kMaxR)
                continue;
            for (double sigma = 1; sigma < 60; sigma += 0.1)
            {
                const int r = cv::cuda::gaussianKernelSize(sigma, depth) / 2;
                if (r <= last || r > LargeTile::kMaxR)
                    continue;
                EXPECT_EQ(path::TwoPass, choose(depth, cn, r).index) << cn << " channels, sigma " << sigma;
                EXPECT_EQ(cudaCorePath(depth, 1, r, kSm90), choose(depth, 1, r).index) << "1 channel, sigma " << sigma;
                checked++;
            }
        }
    EXPECT_GT(checked, 0) << "some channel count runs out of tile before the end of the range";
}

TEST(CudaImage_GaussianPlan, shared_memory_limits_of_sm75_sm80_sm86_sm90)
{
    for (int depth : kDepths)
        for (int cn = 1; cn <= 4; cn++)
        {
            SCOPED_TRACE(cv::typeToString(CV_MAKETYPE(depth, cn)));
            // Every radius up to one beyond the ranges, on every architecture.
            for (size_t smem : {kSm75, kSm80, kSm86, kSm90})
                for (int r = 1; r <= LargeTile::kMaxR + 1; r++)
                    EXPECT_EQ(cudaCorePath(depth, cn, r, smem), choose(depth, cn, r, smem).index) << what(depth, cn, r, smem);
            // sm_75 holds the fused tile and not the large-radius one, and says so.
            EXPECT_LE(sharedBytes<FusedTile>(depth), kSm75);
            EXPECT_GT(sharedBytes<LargeTile>(depth), kSm75);
            EXPECT_NE(std::string::npos, std::string(choose(depth, cn, LargeTile::kMinR, kSm75).reason).find("shared memory"));
            // The exact limits.
            const size_t large = sharedBytes<LargeTile>(depth), fused = sharedBytes<FusedTile>(depth);
            EXPECT_EQ(path::FusedLarge, choose(depth, cn, LargeTile::kMinR, large).index);
            EXPECT_EQ(path::TwoPass, choose(depth, cn, LargeTile::kMinR, large - 1).index);
            EXPECT_EQ(path::Fused, choose(depth, cn, FusedTile::kMaxR, fused).index);
            EXPECT_EQ(path::TwoPass, choose(depth, cn, FusedTile::kMaxR, fused - 1).index);
            EXPECT_EQ(path::TwoPass, choose(depth, cn, 1, 0).index);
        }
}

TEST(CudaImage_GaussianPlan, in_place_single_row_and_1x1_take_two_passes_8U_identity_columns_do_not)
{
    for (int depth : kDepths)
        for (int cn = 1; cn <= 4; cn++)
            for (int r : {FusedTile::kMinR, FusedTile::kMaxR, LargeTile::kMinR, LargeTile::kMaxR})
            {
                SCOPED_TRACE(what(depth, cn, r, kSm90));
                PathQuery q = query(depth, cn, r, r);
                q.dstInSrcAllocation = true;
                EXPECT_EQ(path::TwoPass, choosePath(q).index);
                q = query(depth, cn, r, r);
                q.unitRowOrColumn = true;
                EXPECT_EQ(path::TwoPass, choosePath(q).index);
                q = query(depth, cn, r, r);
                q.verticalTapsBelowOne = false;   // a centre tap of 256: halved for DP4A, the same path
                EXPECT_EQ(choosePath(query(depth, cn, r, r)).index, choosePath(q).index);
            }
    EXPECT_EQ(path::TwoPass, choose(CV_8U, 1, 0).index);   // 1x1
    EXPECT_EQ(path::TwoPass, choose(CV_64F, 4, 0).index);

    using cv::cuda::gaussian::tapsBelowOne;
    EXPECT_FALSE(tapsBelowOne(CV_8U, {256}));            // one tap: all the weight
    EXPECT_FALSE(tapsBelowOne(CV_8U, {0, 0, 256, 0, 0})); // a sigma so small the centre takes all
    EXPECT_TRUE(tapsBelowOne(CV_8U, {64, 128, 64}));
    EXPECT_FALSE(tapsBelowOne(CV_16U, {65536}));          // 16U: 16 fraction bits, two bytes
    EXPECT_TRUE(tapsBelowOne(CV_16U, {16384, 32768, 16384}));
    EXPECT_TRUE(tapsBelowOne(CV_16U, {65535, 1}));
    EXPECT_TRUE(tapsBelowOne(CV_32F, {1u << 20}));        // no fixed-point taps
}

// Whatever the arguments, a fused choice satisfies its kernel's invariants (the kernels assume them).
// The halos are an oracle: worked out by hand here, not read from the tiles' halo().
TEST(CudaImage_GaussianPlan, every_choice_has_a_valid_tile)
{
    int fused = 0, large = 0, twoPass = 0;
    for (int depth : kDepths)
        for (int cn = 1; cn <= 4; cn++)
            for (size_t smem : {size_t(0), size_t(48 * 1024), kSm75, sharedBytes<LargeTile>(depth) - 1, sharedBytes<LargeTile>(depth), kSm86, kSm80, kSm90})
                for (int r = 0; r <= 2 * LargeTile::kMaxR + 44; r++)
                {
                    const PathChoice c = choose(depth, cn, r, smem);
                    SCOPED_TRACE(what(depth, cn, r, smem) + " -> " + c.name + ": " + c.reason);
                    ASSERT_EQ(r, c.radius);
                    const int item = itemOutputs(depth);
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
                        ASSERT_TRUE(r >= FusedTile::kMinR && r <= FusedTile::kMaxR);
                        ASSERT_EQ(FusedTile::kCols - 2 * ((r * cn + 7) / 8 * 8), c.tileOutputs);
                    }
                    else
                    {
                        large++;
                        ASSERT_TRUE(r >= LargeTile::kMinR && r <= LargeTile::kMaxR);
                        const int halo = (r + 4) * cn + 7 - ((r + 4) * cn + 7) % 8;
                        ASSERT_EQ(LargeTile::kCols - 2 * halo, c.tileOutputs);
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
    ASSERT_EQ(6, List::kCount);
    EXPECT_STREQ("tensor-core", List::name(path::TensorCore));
    EXPECT_STREQ("tensor-core-16u", List::name(path::TensorCore16U));
    EXPECT_STREQ("tensor-core-32f", List::name(path::TensorCore32F));
    EXPECT_STREQ("fused", List::name(path::Fused));
    EXPECT_STREQ("fused-large", List::name(path::FusedLarge));
    EXPECT_STREQ("two-pass", List::name(path::TwoPass));
    EXPECT_LT(path::TensorCore, path::Fused);
    EXPECT_LT(path::TensorCore16U, path::Fused);
    EXPECT_LT(path::TensorCore32F, path::Fused);
    EXPECT_LT(path::Fused, path::FusedLarge);

    // Beyond every range: every single-kernel path declines, each with its own reason, which
    // names its limit.
    const int beyond = LargeTile::kMaxR + 1;
    const std::string aboveFused = "radius above " + std::to_string(FusedTile::kMaxR);
    const std::string aboveLarge = "radius above " + std::to_string(LargeTile::kMaxR);
    const PathChoice far = choose(CV_8U, 1, beyond);
    ASSERT_EQ(path::TwoPass, far.index);
    EXPECT_STREQ("two-pass", far.name);
    EXPECT_EQ(aboveFused, far.declined[path::Fused]);
    EXPECT_EQ(aboveLarge, far.declined[path::FusedLarge]);
    EXPECT_EQ(aboveLarge, far.reason);   // the fallback takes the last decline as its reason
    // The first large radius: the fused path declines, the large one takes it with its own reason.
    const PathChoice mid = choose(CV_32F, 3, LargeTile::kMinR);
    ASSERT_EQ(path::FusedLarge, mid.index);
    EXPECT_EQ(aboveFused, mid.declined[path::Fused]);
    EXPECT_EQ("radius " + std::to_string(LargeTile::kMinR) + ".." + std::to_string(LargeTile::kMaxR), mid.reason);

    // The fallback accepts whatever the others refuse, down to an empty query.
    EXPECT_EQ(path::TwoPass, choosePath(PathQuery()).index);
    for (int depth : kDepths)
        for (size_t smem : {size_t(0), kSm90})
        {
            PathQuery q = query(depth, 4, 8 * LargeTile::kMaxR, 8 * LargeTile::kMaxR, smem);
            q.dstInSrcAllocation = true;
            q.unitRowOrColumn = true;
            EXPECT_EQ(path::TwoPass, choosePath(q).index);
        }
}

// The tensor-core path's per-architecture tuning table (src/paths/tensor_core/tensor_core_tuning.hpp):
// a row per listed architecture and a default for every other, and the choice reads the thresholds
// from the row of the device's facts, at both sides of each threshold.
TEST(CudaImage_GaussianPlan, thresholds_come_from_the_tuning_row_of_the_architecture)
{
    namespace gs = cv::cuda::gaussian;
    for (const gs::tuning::RadiusThreshold& row : gs::kTensorCoreTuning)
        EXPECT_EQ(row.computeCapability, gs::tensorCoreTuning(row.computeCapability).computeCapability);
    for (int cc : {0, 75, 87, 100, 120})
        EXPECT_EQ(0, gs::tensorCoreTuning(cc).computeCapability) << "sm_" << cc << " takes the default row";

    auto tensorQuery = [](int r, int cn) {
        PathQuery q = query(CV_8U, cn, r, r, kSm90);
        q.multiprocessors = 132;
        return q;
    };
    // Every row's own threshold, at r - 1 and r.
    std::vector<int> rows = {0};
    for (const gs::tuning::RadiusThreshold& row : gs::kTensorCoreTuning)
        rows.push_back(row.computeCapability);
    for (int cc : rows)
        for (int cn = 1; cn <= 4; cn++)
        {
            const int r = gs::tensorCoreTuning(cc).minRadius(cn);
            SCOPED_TRACE(cv::format("sm_%d, %d channels, threshold %d", cc, cn, r));
            EXPECT_NE(path::TensorCore, choosePath(tensorQuery(r - 1, cn), path::factsFor(cc)).index);
            EXPECT_EQ(path::TensorCore, choosePath(tensorQuery(r, cn), path::factsFor(cc)).index);
        }
    // A row with other thresholds moves the choice: the rule reads the device's row, not constants.
    path::List::DeviceFacts custom = path::factsFor(90);
    std::get<path::TensorCore>(custom).tuning = gs::tuning::RadiusThreshold{0, "test", false, 3, 12, "test"};
    EXPECT_EQ(path::Fused, choosePath(tensorQuery(2, 1), custom).index);
    EXPECT_EQ(path::TensorCore, choosePath(tensorQuery(3, 1), custom).index);
    EXPECT_EQ(path::FusedLarge, choosePath(tensorQuery(11, 4), custom).index);
    EXPECT_EQ(path::TensorCore, choosePath(tensorQuery(12, 4), custom).index);
}

// The fused kernels' 8U strip rows: 8 below kShortStripWaves waves of 5 blocks per SM in 16-row
// strips, 16 from there, and 8 for batches of images up to kShortStripBatchRows rows; other depths
// keep their own; OPENCV_CUDAIMAGE_FUSED_ROWS's values win.
TEST(CudaImage_GaussianPlan, fused_8U_strips_shorten_below_the_wave_threshold)
{
    for (int sms : {1, 108, 132})
    {
        const long long edge = static_cast<long long>(FusedTile::kShortStripWaves) * 5 * sms;
        SCOPED_TRACE(cv::format("%d SMs, threshold %lld blocks", sms, edge));
        EXPECT_EQ(FusedTile::kShortRows, FusedTile::stripRows(CV_8U, 1, sms, 0));
        EXPECT_EQ(FusedTile::kShortRows, FusedTile::stripRows(CV_8U, edge - 1, sms, 0));
        EXPECT_EQ(FusedTile::kRows8U, FusedTile::stripRows(CV_8U, edge, sms, 0));
        EXPECT_EQ(FusedTile::kRows8U, FusedTile::stripRows(CV_8U, edge - 1, sms, FusedTile::kRows8U));
        EXPECT_EQ(FusedTile::kShortRows, FusedTile::stripRows(CV_8U, edge, sms, FusedTile::kShortRows));
        EXPECT_EQ(FusedTile::kShortRows, FusedTile::stripRows(CV_8U, edge - 1, sms, 12));   // not a strip height: the rule
        for (int depth : {CV_16U, CV_16S, CV_32F, CV_64F})
            for (long long blocks : {1LL, edge - 1, edge})
                EXPECT_EQ(cv::cuda::gaussian::tile::stripRows(depth), FusedTile::stripRows(depth, blocks, sms, FusedTile::kShortRows))
                    << cv::typeToString(depth);
    }
    // Batches: 8 rows up to kShortStripBatchRows rows whatever the block count, the rule above past it.
    const int tall = FusedTile::kShortStripBatchRows, edge = FusedTile::kShortStripWaves * 5 * 132;
    EXPECT_EQ(FusedTile::kShortRows, FusedTile::batchStripRows(CV_8U, edge, tall, 132, 0));
    EXPECT_EQ(FusedTile::kShortRows, FusedTile::batchStripRows(CV_8U, 1LL << 40, 1, 132, 0));
    EXPECT_EQ(FusedTile::kRows8U, FusedTile::batchStripRows(CV_8U, edge, tall + 1, 132, 0));
    EXPECT_EQ(FusedTile::kShortRows, FusedTile::batchStripRows(CV_8U, edge - 1, tall + 1, 132, 0));
    EXPECT_EQ(FusedTile::kRows8U, FusedTile::batchStripRows(CV_8U, edge, tall, 132, FusedTile::kRows8U)) << "forced wins";
    EXPECT_EQ(FusedTile::kShortRows, FusedTile::batchStripRows(CV_8U, edge, tall + 1, 132, FusedTile::kShortRows)) << "forced wins";
    for (int depth : {CV_16U, CV_16S, CV_32F, CV_64F})
        EXPECT_EQ(cv::cuda::gaussian::tile::stripRows(depth), FusedTile::batchStripRows(depth, 1, 1, 132, 0)) << cv::typeToString(depth);
    EXPECT_EQ(FusedTile::kShortRows, FusedTile::stripRows(CV_8U, 9, 0, 0)) << "unknown SM count: one";
    EXPECT_EQ(FusedTile::kRows8U, FusedTile::stripRows(CV_8U, 10, 0, 0)) << "unknown SM count: one";
}

// The fused batch kernel's warp tiles: a narrow row is one that fits 32 threads x 4 elements less
// two halos of the radius rounded up to 8 elements (worked out here, not by the tile), for every
// fused radius and channel count; each such tile holds whole items of every depth, and the four
// warps' tiles are the block's shared row. OPENCV_CUDAIMAGE_FUSED_WARP_TILES=1 turns them on in
// the fused path's choice, read at filter creation.
TEST(CudaImage_GaussianPlan, fused_warp_tiles_fit_rows_of_one_warp)
{
    namespace gs = cv::cuda::gaussian;
    typedef cudaimage_test::path::FusedWarpTile Warp;
    EXPECT_EQ(FusedTile::kCols, Warp::kTeams * Warp::kCols);
    EXPECT_EQ(FusedTile::kThreads, Warp::kTeams * 32);
    for (int cn = 1; cn <= 4; cn++)
        for (int r = FusedTile::kMinR; r <= FusedTile::kMaxR; r++)
        {
            const int halo = (r * cn + 7) / 8 * 8;
            const int outputs = 128 - 2 * halo;
            SCOPED_TRACE(cv::format("radius %d, %d channels: %d outputs", r, cn, outputs));
            EXPECT_TRUE(Warp::fits(outputs, r, cn));
            EXPECT_TRUE(Warp::fits(1, r, cn));
            EXPECT_FALSE(Warp::fits(outputs + 1, r, cn));
            for (int depth : {CV_8U, CV_16U, CV_16S, CV_32F, CV_64F})
                EXPECT_EQ(0, outputs % itemOutputs(depth)) << cv::typeToString(depth);
            EXPECT_GE(outputs, 16);
        }
    EXPECT_FALSE(gs::FusedPath::options().warpTiles);
    EXPECT_FALSE(choose(CV_8U, 1, 2).warpTiles);
    for (const char* v : {"0", "1", "on"})
    {
        setenv("OPENCV_CUDAIMAGE_FUSED_WARP_TILES", v, 1);
        const bool on = std::string(v) == "1";
        EXPECT_EQ(on, gs::FusedPath::options().warpTiles) << v;
        const PathChoice c = choosePath(query(CV_8U, 1, 2, 2), path::List::DeviceFacts(), path::List::options());
        EXPECT_EQ(path::Fused, c.index);
        EXPECT_EQ(on, c.warpTiles) << v;
    }
    unsetenv("OPENCV_CUDAIMAGE_FUSED_WARP_TILES");
}

}} // namespace opencv_test
