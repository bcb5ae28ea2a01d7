// The tensor-core paths, 8U (src/paths/tensor_core) and 16U (src/paths/tensor_core_16u; 32F:
// test_gaussian_tensor_cores_32f.cpp): their taps
// and where their rules take them (pure host functions: run without a GPU) and, on the device, that
// they are bit-exact with CPU cv::GaussianBlur at every radius they serve, with the paths on and
// switched off, at every border, on sub-matrices, unaligned destinations and more strips than the
// grid has blocks.
#include "test_precomp.hpp"
#include "gaussian_path_ids.hpp"
#include "tensor_cores_switch.hpp"

#include <algorithm>
#include <cstdlib>
#include <tuple>
#include <vector>

namespace opencv_test { namespace {

using namespace cudaimage_test;
using cv::Mat;
using cv::Size;
using cv::cuda::GpuMat;
namespace gs = cv::cuda::gaussian;
namespace path = cudaimage_test::path;
typedef gs::TensorCoreTile Tile;

// The path's taps for a filter.
gs::TensorTaps8U tensorTaps(int depth, int channels, const gs::Taps1D& x, const gs::Taps1D& y)
{
    gs::FilterTaps f;
    f.depth = depth;
    f.channels = channels;
    f.x = x;
    f.y = y;
    return gs::TensorCorePath::prepare(f);
}

// 2r+1 fixed-point taps, all bytes (their sum does not matter to the packing).
gs::Taps1D byteTaps(int r, uint32_t centre = 200)
{
    gs::Taps1D t;
    for (int m = 0; m <= 2 * r; m++)
        t.fixed.push_back(m == r ? centre : 1 + static_cast<uint32_t>(m % 97));
    t.real.assign(t.fixed.size(), 0.0);
    return t;
}

TEST(CudaImage_GaussianTensorCores, taps_are_centred_and_the_chunks_cover_the_windows)
{
    TensorCoresSwitch on("1");
    for (int cn = 1; cn <= 4; cn++)
        for (int R = Tile::kMinR; R <= Tile::kMaxR; R++)
            for (int rx : {R, R / 2})   // square and wider-than-tall kernels, and the other way round
            {
                const gs::Taps1D x = byteTaps(rx), y = byteTaps(R);
                for (bool swap : {false, true})
                {
                    const gs::Taps1D& tx = swap ? y : x;
                    const gs::Taps1D& ty = swap ? x : y;
                    const int rX = static_cast<int>(tx.fixed.size()) / 2, rY = static_cast<int>(ty.fixed.size()) / 2;
                    SCOPED_TRACE(cv::format("%d channels, rx %d, ry %d", cn, rX, rY));
                    const gs::TensorTaps8U t = tensorTaps(CV_8U, cn, tx, ty);
                    ASSERT_TRUE(t.valid);
                    EXPECT_EQ(R, t.r);
                    EXPECT_EQ(cn, t.channels);
                    // the planes are channel-planar: one channel's window whatever cn
                    EXPECT_EQ(0, (t.r + t.lead) % 4);   // 4-byte window loads
                    EXPECT_LT(t.lead, 4);
                    EXPECT_TRUE(t.lead == 0 || (t.r + t.lead - 1) % 4 != 0);   // the smallest such lead
                    EXPECT_EQ(t.lead + 2 * R + 1, t.nh);
                    const int window = 16 + t.nh - 1;   // pixels 16 outputs read
                    EXPECT_GE(32 * t.hChunks, window);
                    EXPECT_LT(32 * (t.hChunks - 1), window);
                    EXPECT_GE(32 * t.vChunks, 16 + 2 * R);   // the source rows of a 16-row half
                    EXPECT_LT(32 * (t.vChunks - 1), 16 + 2 * R);
                    EXPECT_GE(Tile::sourceRows(R), Tile::kRows + 2 * R);   // ... and of the 32-row strip
                    EXPECT_LE(Tile::sharedBytes(R, cn), Tile::maxSharedBytes(cn));
                    // The halo (pixels) holds the window's lead and radius on the left and the
                    // radius on the right, and starts every tile on a 32-byte sector: halo and
                    // outputs whole sectors; outputs whole 16-pixel tasks, at least one.
                    const int halo = Tile::halo(R, cn), outputs = Tile::outputs(R, cn);
                    EXPECT_GE(halo, R + t.lead);
                    EXPECT_EQ(0, halo * cn % 32);
                    EXPECT_LT(halo - Tile::haloAlign(cn), R + 4);   // the least such halo
                    EXPECT_EQ((Tile::pixels(cn) - 2 * halo) * cn, outputs);
                    EXPECT_EQ(0, outputs % 32);
                    EXPECT_EQ(0, outputs % (16 * cn));
                    EXPECT_GE(outputs, 16 * cn);
                    EXPECT_LE(outputs, Tile::outStride(cn));
                    EXPECT_EQ(Tile::cols(cn), Tile::pixels(cn) * cn);
                    EXPECT_EQ(0, Tile::cols(cn) % 32);   // whole warp groups of the vertical pass
                    for (int k = 0; k < static_cast<int>(sizeof(t.h)); k++)
                    {
                        const int m = k - t.lead - (R - rX);
                        EXPECT_EQ(m >= 0 && m <= 2 * rX ? tx.fixed[m] : 0u, t.h[k]) << "h[" << k << "]";
                    }
                    for (int k = 0; k < static_cast<int>(sizeof(t.v)); k++)
                    {
                        const int m = k - (R - rY);
                        EXPECT_EQ(m >= 0 && m <= 2 * rY ? ty.fixed[m] : 0u, t.v[k]) << "v[" << k << "]";
                    }
                }
            }
    // By hand: radius 128 (lead 0, 257 taps): ceil((16 + 256) / 32) = 9 horizontal chunks, whatever
    // the channel count, ceil((16 + 256) / 32) = 9 vertical ones per half; radius 90 (lead 2, 183
    // taps): ceil((16 + 182) / 32) = 7. A half's 16 + 2r rows take one chunk up to radius 8, two up
    // to 24.
    EXPECT_EQ(9, Tile::hChunks(128));
    EXPECT_EQ(9, Tile::vChunks(128));
    EXPECT_EQ(7, Tile::hChunks(90));
    EXPECT_EQ(1, Tile::vChunks(8));
    EXPECT_EQ(2, Tile::vChunks(9));
    EXPECT_EQ(2, Tile::vChunks(24));
    EXPECT_EQ(3, Tile::vChunks(25));
    EXPECT_EQ(48, Tile::sourceRows(1));
    // Halos in pixels: radius 6, one channel: 10 -> 32 (tile 960); sigma 30 (radius 90): 94 -> 96
    // for every channel count (832 of 1024 pixels for one and two channels, 320 of 512 for three and
    // four); radius 128, 4 channels: 132 -> 136 (240 pixels).
    EXPECT_EQ(32, Tile::halo(6, 1));
    EXPECT_EQ(960, Tile::outputs(6, 1));
    EXPECT_EQ(832, Tile::outputs(90, 1));
    EXPECT_EQ(1664, Tile::outputs(90, 2));
    EXPECT_EQ(960, Tile::outputs(90, 3));
    EXPECT_EQ(96, Tile::halo(90, 4));
    EXPECT_EQ(1280, Tile::outputs(90, 4));
    EXPECT_EQ(136, Tile::halo(128, 4));
    EXPECT_EQ(960, Tile::outputs(128, 4));
    EXPECT_EQ(3, gs::tile::windowLead(5, 1));   // 5 + 3 = 8
    EXPECT_EQ(1, gs::tile::windowLead(5, 2));   // (5 + 1) * 2 = 12
    EXPECT_EQ(3, gs::tile::windowLead(5, 3));   // (5 + 3) * 3 = 24
    EXPECT_EQ(0, gs::tile::windowLead(5, 4));
}

TEST(CudaImage_GaussianTensorCores, taps_are_refused_where_the_path_cannot_run)
{
    const gs::Taps1D ok = byteTaps(5);
    {
        TensorCoresSwitch on("1");
        EXPECT_TRUE(tensorTaps(CV_8U, 1, ok, ok).valid);
        EXPECT_EQ(gs::TensorCoreMode::Auto, gs::tensorCoreMode());
        EXPECT_FALSE(tensorTaps(CV_8U, 1, byteTaps(0, 255), byteTaps(0, 255)).valid);   // 1x1
        EXPECT_TRUE(tensorTaps(CV_8U, 1, byteTaps(1), byteTaps(0, 255)).valid);         // 3x1: ry padded
        EXPECT_FALSE(tensorTaps(CV_8U, 1, byteTaps(1), byteTaps(0, 256)).valid);        // a 1-tap column: 256
        EXPECT_FALSE(tensorTaps(CV_8U, 1, byteTaps(5, 256), ok).valid);                 // horizontal tap 256
        EXPECT_FALSE(tensorTaps(CV_8U, 1, ok, byteTaps(5, 256)).valid);                 // vertical tap 256
        EXPECT_TRUE(tensorTaps(CV_8U, 1, byteTaps(Tile::kMaxR), ok).valid);
        EXPECT_FALSE(tensorTaps(CV_8U, 1, byteTaps(Tile::kMaxR + 1), ok).valid);
        EXPECT_FALSE(tensorTaps(CV_8U, 1, ok, byteTaps(Tile::kMaxR + 1)).valid);
        for (int cn : {2, 3, 4})
            EXPECT_TRUE(tensorTaps(CV_8U, cn, ok, ok).valid);
        EXPECT_FALSE(tensorTaps(CV_8U, 5, ok, ok).valid);
        for (int depth : {CV_16U, CV_16S, CV_32F, CV_64F})
            EXPECT_FALSE(tensorTaps(depth, 1, ok, ok).valid);
    }
    {
        TensorCoresSwitch all("all");
        EXPECT_TRUE(tensorTaps(CV_8U, 1, ok, ok).valid);
        EXPECT_EQ(gs::TensorCoreMode::All, gs::tensorCoreMode());
    }
    for (const char* off : {"0", "off", "false", "no"})
    {
        TensorCoresSwitch sw(off);
        EXPECT_EQ(gs::TensorCoreMode::Off, gs::tensorCoreMode()) << off;
        EXPECT_EQ(gs::TensorCoreMode::Off, gs::TensorCorePath::options().mode) << off;   // the unit's option, read at creation
    }
}

// Where choosePath() takes the path: every radius from the tuned minimum (the sm_90 row; with the
// switch at `all`: the tile's first radius) to the last radius whose tile keeps an item for the
// channel count, when the taps are bytes, the device holds the kernel's largest tile (sm_80, sm_90)
// and the kernel's code for it is for sm_80 or later; otherwise the CUDA-core kernels. Every limit
// comes from the units' constants (test/gaussian_path_ids.hpp).
TEST(CudaImage_GaussianTensorCores, path_choice)
{
    auto query = [](int r, int cn, bool taps, size_t smem) {
        gs::PathQuery q;
        q.depth = CV_8U;
        q.channels = cn;
        q.rx = q.ry = r;
        q.horizontalTapsBelowOne = taps;   // false: a horizontal tap of 256 (the CUDA-core kernels still run)
        q.sharedMemOptIn = smem;
        q.multiprocessors = 132;
        return q;
    };
    const size_t sm90 = 227 * 1024, sm80 = 163 * 1024, sm86 = 99 * 1024;
    const gs::TensorCoreTuning& sm90Row = gs::tensorCoreTuning(90);
    // By hand: one channel 2 x 32 x 1056 + 64 + 32 x 1040 = 100,928 fixed bytes, 2 and 4 channels
    // 2 x 32 x 2080 + 64 + 32 x 2064 = 199,232, 3 channels 2 x 32 x 1568 + 64 + 32 x 1424 =
    // 145,984; plus 512 per Toeplitz matrix (radius 128: 9 + 9). An sm_80 (163 KiB) holds the one-
    // and three-channel tiles.
    EXPECT_EQ(size_t(100928 + (9 + 9) * 512), Tile::maxSharedBytes(1));    // 110,144
    EXPECT_EQ(size_t(199232 + (9 + 9) * 512), Tile::maxSharedBytes(2));    // 208,448
    EXPECT_EQ(size_t(145984 + (9 + 9) * 512), Tile::maxSharedBytes(3));    // 155,200
    EXPECT_EQ(size_t(199232 + (9 + 9) * 512), Tile::maxSharedBytes(4));    // 208,448
    EXPECT_EQ(size_t(100928 + (1 + 1) * 512), Tile::sharedBytes(6, 1));    // sigma 2: 1 + 1 matrices
    for (int cn = 1; cn <= 4; cn++)
        for (int r = 1; r <= Tile::kMaxR + 2; r++)
            for (bool anyRadius : {false, true})
            {
                SCOPED_TRACE(cv::format("%d channels, radius %d%s", cn, r, anyRadius ? ", switch at all" : ""));
                const gs::GaussianPaths::Options opts = path::optionsWith(anyRadius ? gs::TensorCoreMode::All : gs::TensorCoreMode::Auto);
                const int lastTile = path::lastRadiusOf<Tile>(cn, CV_8U);
                const int cudaCores = path::cudaCorePath(CV_8U, cn, r, sm90);
                EXPECT_EQ(Tile::kMaxR, lastTile);   // every radius keeps a tile
                for (size_t smem : {sm90, sm80})
                {
                    const bool tensor = r >= (anyRadius ? Tile::kMinR : sm90Row.minRadius(cn)) && r <= lastTile &&
                                        Tile::maxSharedBytes(cn) <= smem;
                    const gs::PathChoice c = gs::choosePath(query(r, cn, true, smem), path::factsFor(90), opts);
                    EXPECT_EQ(tensor ? path::TensorCore : path::cudaCorePath(CV_8U, cn, r, smem), c.index) << c.reason;
                    if (tensor)
                    {
                        EXPECT_EQ(Tile::outputs(r, cn), c.tileOutputs);
                        EXPECT_EQ(0, c.tileOutputs % 16);
                        EXPECT_GE(c.tileOutputs, 16);
                        EXPECT_EQ(Tile::sharedBytes(r, cn), c.sharedBytes);
                        EXPECT_EQ(Tile::blocksPerSM(cn) * 132, c.residentBlocks);
                    }
                    else
                        EXPECT_EQ(0, c.residentBlocks);
                }
                // The tile does not fit; no valid taps; the kernel's code for the device is for
                // sm_75 (a stub); the switch off.
                EXPECT_EQ(path::cudaCorePath(CV_8U, cn, r, sm86), gs::choosePath(query(r, cn, true, sm86), path::factsFor(90), opts).index);
                EXPECT_EQ(cudaCores, gs::choosePath(query(r, cn, false, sm90), path::factsFor(90), opts).index);
                EXPECT_EQ(cudaCores, gs::choosePath(query(r, cn, true, sm90), path::factsFor(90, false), opts).index);
                EXPECT_EQ(cudaCores, gs::choosePath(query(r, cn, true, sm90), path::factsFor(90), path::optionsWith(gs::TensorCoreMode::Off)).index);
            }
    // The rules before it still decide first.
    gs::PathQuery inPlace = query(5, 1, true, sm90);
    inPlace.dstInSrcAllocation = true;
    EXPECT_EQ(path::TwoPass, gs::choosePath(inPlace).index);
    gs::PathQuery unit = query(5, 1, true, sm90);
    unit.unitRowOrColumn = true;
    EXPECT_EQ(path::TwoPass, gs::choosePath(unit).index);
}

// The image and its sub-matrix `roiRect` (BORDER_ISOLATED) blurred at radius r on the device, with
// the path at every radius it can take ("all") and off, each bit-identical to CPU cv::GaussianBlur.
void expectOnAndOffMatchCpu(const Mat& parent, const cv::Rect& roiRect, int r, int border)
{
    const GpuMat whole(parent);
    const GpuMat roi = whole(roiRect);
    Mat cpuWhole, cpuRoi;
    cv::GaussianBlur(parent, cpuWhole, Size(2 * r + 1, 2 * r + 1), 0, 0, border);
    cv::GaussianBlur(parent(roiRect).clone(), cpuRoi, Size(2 * r + 1, 2 * r + 1), 0, 0, border | cv::BORDER_ISOLATED);
    for (const char* mode : {"all", "0"})
    {
        SCOPED_TRACE(cv::format("OPENCV_CUDAIMAGE_TENSOR_CORES=%s", mode));
        EXPECT_EQ(0, countDifferent(cpuWhole, blurOnDevice(whole, -1, r, border, mode)));
        EXPECT_EQ(0, countDifferent(cpuRoi, blurOnDevice(roi, -1, r, border | cv::BORDER_ISOLATED, mode)));
    }
}

// Every radius 1..128 on an image at least two tiles wide and tall enough for strips whose source rows are all
// inside (the kernel's fast loads) besides the edge strips, and on a sub-matrix of it (unaligned
// rows: the byte-wise loads and stores), with the path on and off, every border. One test per
// radius, so that gtest shards (and sanitizer runs split over shards) can spread the sweep.
typedef ::testing::TestWithParam<int> CudaImage_GaussianTensorCores_EveryRadius;

TEST_P(CudaImage_GaussianTensorCores_EveryRadius, matches_cpu_with_the_path_on_and_off)
{
    CUDAIMAGE_REQUIRE_GPU();
    const int r = GetParam();
    cv::RNG rng(2026);
    const Mat parent = randomMat(Size(1100, 420), CV_8UC1, rng);
    const cv::Rect roiRect(3, 2, 1093, 411);
    const int borders[] = {cv::BORDER_REPLICATE, cv::BORDER_REFLECT_101, cv::BORDER_REFLECT, cv::BORDER_CONSTANT};
    const int border = borders[r % 4];
    SCOPED_TRACE(cv::format("radius %d, border %d", r, border));
    expectOnAndOffMatchCpu(parent, roiRect, r, border);
}

INSTANTIATE_TEST_CASE_P(CudaImage, CudaImage_GaussianTensorCores_EveryRadius,
                        ::testing::Range(int(Tile::kMinR), int(Tile::kMaxR) + 1));

// The radii where the path's choice or geometry changes, found from the tile and the units (so a
// changed limit is swept where it then is): the ends of the CUDA-core ranges and of the tuning
// rows' thresholds, each change of the vertical or horizontal chunk count, each change of the
// halo for 3 channels (every 32 pixels; the 2- and 4-channel halos change at 16 and 8 pixels, and
// their first changes are swept) and the last radius with a tile per channel count, each with its
// neighbours, and the largest radius; plus a spread between.
std::vector<int> channelSweepRadii()
{
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

// 2, 3 and 4 channels at those radii, with the path on and off, on a sub-matrix too, the image
// wider than two of the widest tiles (every radius then has interior tiles with neighbours on both
// sides). One test per channel count and radius, so that shards spread them.
typedef ::testing::TestWithParam<std::tuple<int, int>> CudaImage_GaussianTensorCores_Channels;

TEST_P(CudaImage_GaussianTensorCores_Channels, match_cpu_with_the_path_on_and_off)
{
    CUDAIMAGE_REQUIRE_GPU();
    const int cn = std::get<0>(GetParam());
    const int r = std::get<1>(GetParam());
    cv::RNG rng(2027 + cn);
    const int width = 2 * Tile::outputs(Tile::kMinR, cn) / cn + 77;   // 2061 pixels for 2 channels, 973 for 3, 1069 for 4
    const Mat parent = randomMat(Size(width, 300), CV_8UC(cn), rng);
    const cv::Rect roiRect(1, 3, width - 5, 290);
    const int border = r % 2 ? cv::BORDER_REPLICATE : cv::BORDER_REFLECT_101;
    SCOPED_TRACE(cv::format("%d channels, radius %d, border %d", cn, r, border));
    expectOnAndOffMatchCpu(parent, roiRect, r, border);
}

INSTANTIATE_TEST_CASE_P(CudaImage, CudaImage_GaussianTensorCores_Channels,
                        ::testing::Combine(::testing::Values(2, 3, 4), ::testing::ValuesIn(channelSweepRadii())));

// A destination that is a sub-matrix at an odd column (no 16-byte stores), BORDER_WRAP (against
// the reference model, as the CPU rejects it), and a CV_32F destination (unrounded: the CUDA-core
// kernels whatever the switch says).
TEST(CudaImage_GaussianTensorCores, unaligned_dst_wrap_and_float_dst)
{
    CUDAIMAGE_REQUIRE_GPU();
    cv::RNG rng(7);
    const Mat src = randomMat(Size(777, 131), CV_8UC1, rng);
    const GpuMat g(src);
    for (int r : {Tile::kMinR, 3, path::FusedTile::kMaxR, path::LargeTile::kMinR, 30, 90, Tile::kMaxR})
    {
        SCOPED_TRACE(cv::format("radius %d", r));
        Mat cpu;
        cv::GaussianBlur(src, cpu, Size(2 * r + 1, 2 * r + 1), 0, 0, cv::BORDER_REFLECT_101);
        GpuMat big(src.rows + 2, src.cols + 5, CV_8UC1, cv::Scalar(7));
        GpuMat view = big(cv::Rect(3, 1, src.cols, src.rows));
        EXPECT_EQ(0, countDifferent(cpu, blurOnDevice(g, -1, r, cv::BORDER_REFLECT_101, "all", &view)));
        Mat around;
        big.download(around);
        EXPECT_EQ(7, around.at<uchar>(0, 0));
        EXPECT_EQ(7, around.at<uchar>(around.rows - 1, around.cols - 1));   // nothing written outside the view

        EXPECT_EQ(0, countDifferent(blurOnDevice(g, -1, r, cv::BORDER_WRAP, "0"), blurOnDevice(g, -1, r, cv::BORDER_WRAP, "all")));
    }
    const int r = 40;
    Mat cpu8;
    cv::GaussianBlur(src, cpu8, Size(2 * r + 1, 2 * r + 1), 0, 0, cv::BORDER_REPLICATE);
    const Mat gpu32 = blurOnDevice(g, CV_32F, r, cv::BORDER_REPLICATE, "all");
    ASSERT_EQ(CV_32FC1, gpu32.type());
    int wrong = 0;   // the CPU rounds the same sums half up: floor(s + 1/2)
    for (int y = 0; y < gpu32.rows; y++)
        for (int x = 0; x < gpu32.cols; x++)
            wrong += cvFloor(gpu32.at<float>(y, x) + 0.5f) != cpu8.at<uchar>(y, x);
    EXPECT_EQ(0, wrong);
}

// Many more tiles than the grid has blocks (65,581 strips of one tile; two blocks per SM), at radius
// 5 (one vertical chunk) and 30 (three): the kernel's loop over its tiles.
TEST(CudaImage_GaussianTensorCores, more_tiles_than_the_grid_has_blocks)
{
    CUDAIMAGE_REQUIRE_GPU();
    cv::RNG rng(11);
    const Mat src = randomMat(Size(40, 65536 * 32 + 45), CV_8UC1, rng);
    const GpuMat g(src);
    for (int r : {5, 30})
    {
        Mat cpu;
        cv::GaussianBlur(src, cpu, Size(2 * r + 1, 2 * r + 1), 0, 0, cv::BORDER_REPLICATE);
        EXPECT_EQ(0, countDifferent(cpu, blurOnDevice(g, -1, r, cv::BORDER_REPLICATE, "all"))) << "radius " << r;
    }
}

// ---- 16U, one channel (src/paths/tensor_core_16u) ------------------------------------------------
typedef gs::TensorCore16UTile Tile16;

gs::TensorTaps16U tensorTaps16(int depth, int channels, const gs::Taps1D& x, const gs::Taps1D& y)
{
    gs::FilterTaps f;
    f.depth = depth;
    f.channels = channels;
    f.x = x;
    f.y = y;
    return gs::TensorCore16UPath::prepare(f);
}

// 2r+1 taps of 16 fraction bits, below 2^16 (their sum does not matter to the split).
gs::Taps1D wordTaps(int r, uint32_t centre = 40000)
{
    gs::Taps1D t;
    for (int m = 0; m <= 2 * r; m++)
        t.fixed.push_back(m == r ? centre : 1 + static_cast<uint32_t>((m * 7919) % 65535));
    t.real.assign(t.fixed.size(), 0.0);
    return t;
}

TEST(CudaImage_GaussianTensorCores16U, taps_split_into_bytes_and_the_tile_holds_every_radius)
{
    for (int R = Tile16::kMinR; R <= Tile16::kMaxR; R++)
        for (int rx : {R, R / 2})
            for (bool swap : {false, true})
            {
                const gs::Taps1D a = wordTaps(rx), b = wordTaps(R);
                const gs::Taps1D& tx = swap ? b : a;
                const gs::Taps1D& ty = swap ? a : b;
                const int rX = static_cast<int>(tx.fixed.size()) / 2, rY = static_cast<int>(ty.fixed.size()) / 2;
                SCOPED_TRACE(cv::format("rx %d, ry %d", rX, rY));
                const gs::TensorTaps16U t = tensorTaps16(CV_16U, 1, tx, ty);
                ASSERT_TRUE(t.valid);
                EXPECT_EQ(R, t.r);
                EXPECT_EQ(0, (t.r + t.lead) % 4);   // 16-byte window loads of four sums
                EXPECT_LT(t.lead, 4);
                EXPECT_EQ(t.lead + 2 * R + 1, t.nh);
                EXPECT_GE(32 * t.hChunks, 16 + t.nh - 1);
                EXPECT_LT(32 * (t.hChunks - 1), 16 + t.nh - 1);
                EXPECT_GE(32 * t.vChunks, 16 + 2 * R);
                EXPECT_LT(32 * (t.vChunks - 1), 16 + 2 * R);
                for (int k = 0; k < 2 * Tile16::kMaxR + 4; k++)
                {
                    const int m = k - t.lead - (R - rX);
                    EXPECT_EQ(m >= 0 && m <= 2 * rX ? tx.fixed[m] : 0u, 256u * t.hHi[k] + t.hLo[k]) << "h[" << k << "]";
                }
                for (int k = 0; k < 2 * Tile16::kMaxR + 1; k++)
                {
                    const int m = k - (R - rY);
                    EXPECT_EQ(m >= 0 && m <= 2 * rY ? ty.fixed[m] : 0u, 256u * t.vHi[k] + t.vLo[k]) << "v[" << k << "]";
                }
                // The halo holds the lead and radius on the left and the radius on the right (the
                // windows' reads run at most 26 pixels past the tile, inside the sums' row), on
                // 32-byte sectors; the outputs are whole 16-pixel tasks.
                const int halo = Tile16::halo(R), outputs = Tile16::outputs(R);
                EXPECT_GE(halo, R + t.lead);
                EXPECT_EQ(0, halo * 2 % 32);
                EXPECT_LT(halo - 16, R + 4);
                EXPECT_EQ(Tile16::kCols - 2 * halo, outputs);
                EXPECT_EQ(0, outputs % 16);
                EXPECT_GE(outputs, 16);
                EXPECT_LE(2 * outputs, Tile16::kOutStride);
                EXPECT_LE(halo - (R + t.lead) + outputs + 32 * t.hChunks - 16 + 15, Tile16::kSumStride);
            }
    // By hand: radius 90 (lead 2): 7 + 7 chunks, halo 96, 832 outputs; radius 128: 9 + 9 chunks, halo
    // 144, 736 outputs; shared memory 32 x 1072 x 4 + 64 + 32 x 2064 = 203,328 bytes and 1,024 per
    // chunk (high and low bytes): 221,760 at radius 128 (sm_90 holds it, an A100's 163 KiB does not).
    EXPECT_EQ(7, Tile16::hChunks(90));
    EXPECT_EQ(832, Tile16::outputs(90));
    EXPECT_EQ(736, Tile16::outputs(128));
    EXPECT_EQ(size_t(203328 + 18 * 1024), Tile16::maxSharedBytes());
    // Refused: a tap of 2^16 (all the weight on one), another depth, channel count or radius.
    EXPECT_FALSE(tensorTaps16(CV_16U, 1, wordTaps(3), wordTaps(0, 65536)).valid);
    EXPECT_FALSE(tensorTaps16(CV_16U, 1, wordTaps(3, 65536), wordTaps(3)).valid);
    EXPECT_TRUE(tensorTaps16(CV_16U, 1, wordTaps(3, 65535), wordTaps(3)).valid);
    EXPECT_FALSE(tensorTaps16(CV_16U, 2, wordTaps(3), wordTaps(3)).valid);
    EXPECT_FALSE(tensorTaps16(CV_8U, 1, wordTaps(3), wordTaps(3)).valid);
    EXPECT_FALSE(tensorTaps16(CV_16U, 1, wordTaps(Tile16::kMaxR + 1), wordTaps(3)).valid);
}

// Where choosePath() takes the 16U path: 16U, one channel, from the sm_90 row's minimum (the switch
// at `all`: radius 1) to 128, taps below 1.0, on a device that holds the tile and runs the code.
TEST(CudaImage_GaussianTensorCores16U, path_choice)
{
    auto query = [](int r, int cn, bool taps, size_t smem) {
        gs::PathQuery q;
        q.depth = CV_16U;
        q.channels = cn;
        q.rx = q.ry = r;
        q.verticalTapsBelowOne = taps;
        q.sharedMemOptIn = smem;
        q.multiprocessors = 132;
        return q;
    };
    const size_t sm90 = 227 * 1024, sm80 = 163 * 1024;
    for (int r = 1; r <= Tile16::kMaxR + 2; r++)
        for (bool anyRadius : {false, true})
        {
            SCOPED_TRACE(cv::format("radius %d%s", r, anyRadius ? ", switch at all" : ""));
            const gs::GaussianPaths::Options opts = path::optionsWith(anyRadius ? gs::TensorCoreMode::All : gs::TensorCoreMode::Auto);
            const bool tensor = r >= (anyRadius ? Tile16::kMinR : gs::tensorCore16UTuning(90).minRadius) && r <= Tile16::kMaxR;
            const gs::PathChoice c = gs::choosePath(query(r, 1, true, sm90), path::factsFor(90), opts);
            EXPECT_EQ(tensor ? path::TensorCore16U : path::cudaCorePath(CV_16U, 1, r, sm90), c.index) << c.reason;
            if (tensor)
            {
                EXPECT_EQ(Tile16::outputs(r), c.tileOutputs);
                EXPECT_EQ(Tile16::sharedBytes(r), c.sharedBytes);
                EXPECT_EQ(Tile16::kBlocksPerSM * 132, c.residentBlocks);
            }
            const int cudaCores = path::cudaCorePath(CV_16U, 1, r, sm90);
            EXPECT_EQ(path::cudaCorePath(CV_16U, 1, r, sm80), gs::choosePath(query(r, 1, true, sm80), path::factsFor(80), opts).index);
            EXPECT_EQ(cudaCores, gs::choosePath(query(r, 1, false, sm90), path::factsFor(90), opts).index);
            EXPECT_EQ(cudaCores, gs::choosePath(query(r, 1, true, sm90), path::factsFor(90, false), opts).index);
            EXPECT_EQ(cudaCores, gs::choosePath(query(r, 1, true, sm90), path::factsFor(90), path::optionsWith(gs::TensorCoreMode::Off)).index);
            for (int cn : {2, 3, 4})
                EXPECT_EQ(path::cudaCorePath(CV_16U, cn, r, sm90), gs::choosePath(query(r, cn, true, sm90), path::factsFor(90), opts).index);
        }
}

// Every radius 1..128 on a 16-bit image two tiles wide and more (interior tiles, the image's edges)
// with values over the whole range (vertical sums up to 2^32 - 2^16), and on a sub-matrix of it,
// with the path at every radius and off, every border, against the CPU. One test per radius.
typedef ::testing::TestWithParam<int> CudaImage_GaussianTensorCores16U_EveryRadius;

TEST_P(CudaImage_GaussianTensorCores16U_EveryRadius, matches_cpu_with_the_path_on_and_off)
{
    CUDAIMAGE_REQUIRE_GPU();
    const int r = GetParam();
    cv::RNG rng(2029);
    Mat parent = randomMat(Size(2 * Tile16::outputs(Tile16::kMinR) + 77, 300), CV_16UC1, rng);
    parent(cv::Rect(40, 40, 300, 120)).setTo(cv::Scalar(65535));   // a saturated patch: the largest sums
    const cv::Rect roiRect(3, 2, parent.cols - 7, 291);
    const int borders[] = {cv::BORDER_REPLICATE, cv::BORDER_REFLECT_101, cv::BORDER_REFLECT, cv::BORDER_CONSTANT};
    const int border = borders[r % 4];
    SCOPED_TRACE(cv::format("16UC1, radius %d, border %d", r, border));
    expectOnAndOffMatchCpu(parent, roiRect, r, border);
}

INSTANTIATE_TEST_CASE_P(CudaImage, CudaImage_GaussianTensorCores16U_EveryRadius,
                        ::testing::Range(int(Tile16::kMinR), int(Tile16::kMaxR) + 1));

// An unaligned destination (a sub-matrix at an odd column: no 16-byte stores), BORDER_WRAP against
// the CUDA-core kernels, and more tiles than the grid has blocks (one block per SM).
TEST(CudaImage_GaussianTensorCores16U, unaligned_dst_wrap_and_more_tiles_than_blocks)
{
    CUDAIMAGE_REQUIRE_GPU();
    cv::RNG rng(8);
    const Mat src = randomMat(Size(777, 131), CV_16UC1, rng);
    const GpuMat g(src);
    for (int r : {Tile16::kMinR, 3, 9, 30, 90, Tile16::kMaxR})
    {
        SCOPED_TRACE(cv::format("radius %d", r));
        Mat cpu;
        cv::GaussianBlur(src, cpu, Size(2 * r + 1, 2 * r + 1), 0, 0, cv::BORDER_REFLECT_101);
        GpuMat big(src.rows + 2, src.cols + 5, CV_16UC1, cv::Scalar(7));
        GpuMat view = big(cv::Rect(3, 1, src.cols, src.rows));
        EXPECT_EQ(0, countDifferent(cpu, blurOnDevice(g, -1, r, cv::BORDER_REFLECT_101, "all", &view)));
        Mat around;
        big.download(around);
        EXPECT_EQ(7, around.at<uint16_t>(0, 0));
        EXPECT_EQ(7, around.at<uint16_t>(around.rows - 1, around.cols - 1));   // nothing written outside the view
        EXPECT_EQ(0, countDifferent(blurOnDevice(g, -1, r, cv::BORDER_WRAP, "0"), blurOnDevice(g, -1, r, cv::BORDER_WRAP, "all")));
    }
    const Mat tall = randomMat(Size(40, 32 * 1000 + 45), CV_16UC1, rng);   // 1,002 strips of one tile
    const GpuMat gt(tall);
    for (int r : {5, 30})
    {
        Mat cpu;
        cv::GaussianBlur(tall, cpu, Size(2 * r + 1, 2 * r + 1), 0, 0, cv::BORDER_REPLICATE);
        EXPECT_EQ(0, countDifferent(cpu, blurOnDevice(gt, -1, r, cv::BORDER_REPLICATE, "all"))) << "radius " << r;
    }
}

}} // namespace
