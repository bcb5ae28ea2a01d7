// The 8U tensor-core path (src/paths/tensor_core; 16U and 32F: test_gaussian_tensor_cores_16u.cpp
// and _32f.cpp): its taps and where its rule takes it (pure host functions: run without a GPU) and,
// on the device, unaligned destinations, BORDER_WRAP, a CV_32F destination and more strips than the
// grid has blocks. Every radius of every tensor-core path against the CPU on the device:
// test_gaussian_tensor_cores_every_radius.cpp.
#include "test_precomp.hpp"
#include "gaussian_path_ids.hpp"
#include "tensor_cores_switch.hpp"

#include <vector>

namespace opencv_test { namespace {

typedef gs::TensorCoreTile Tile;

// The path's taps for a filter.
gs::TensorTaps8U tensorTaps(int depth, int channels, const gs::Taps1D& x, const gs::Taps1D& y)
{
    return unitTaps<gs::TensorCorePath>(depth, channels, x, y);
}

// 2r+1 fixed-point taps, all bytes (their sum does not matter to the packing).
gs::Taps1D byteTaps(int r, uint32_t centre = 200) { return fixedTaps(r, centre, 1, 97); }

TEST(CudaImage_GaussianTensorCores, taps_are_centred_and_the_chunks_cover_the_windows)
{
    TensorCoresSwitch on("1");
    for (int cn = 1; cn <= 4 && !HasFatalFailure(); cn++)
    {
        SCOPED_TRACE(cv::format("%d channels", cn));
        forEachTapShape(Tile::kMinR, Tile::kMaxR, [](int r) { return byteTaps(r); },
                        [cn](int R, int rX, int rY, const gs::Taps1D& tx, const gs::Taps1D& ty) {
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
        });
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
        gs::PathQuery q = path::query(CV_8U, cn, r, r, smem, 132);
        q.horizontalTapsBelowOne = taps;   // false: a horizontal tap of 256 (the CUDA-core kernels still run)
        return q;
    };
    const size_t sm90 = 227 * 1024, sm80 = 163 * 1024, sm86 = 99 * 1024;
    const gs::tuning::RadiusThreshold& sm90Row = gs::tensorCoreTuning(90);
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

}} // namespace
