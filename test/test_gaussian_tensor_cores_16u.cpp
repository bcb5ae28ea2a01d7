// The 16U tensor-core path (src/paths/tensor_core_16u: one channel, the 16-bit taps split into high
// and low bytes): its taps and tile at every radius and where its rule takes it (pure host
// functions: run without a GPU) and, on the device, an unaligned destination, BORDER_WRAP and more
// strips than the grid has blocks. Every radius against the CPU on the device:
// test_gaussian_tensor_cores_every_radius.cpp.
#include "test_precomp.hpp"
#include "gaussian_path_ids.hpp"
#include "tensor_cores_switch.hpp"

#include <cstdint>
#include <vector>

namespace opencv_test { namespace {

typedef gs::TensorCore16UTile Tile16;

// The path's taps for a filter.
gs::TensorTaps16U tensorTaps16(int depth, int channels, const gs::Taps1D& x, const gs::Taps1D& y)
{
    return unitTaps<gs::TensorCore16UPath>(depth, channels, x, y);
}

// 2r+1 taps of 16 fraction bits, below 2^16 (their sum does not matter to the split).
gs::Taps1D wordTaps(int r, uint32_t centre = 40000) { return fixedTaps(r, centre, 7919, 65535); }

TEST(CudaImage_GaussianTensorCores16U, taps_split_into_bytes_and_the_tile_holds_every_radius)
{
    forEachTapShape(Tile16::kMinR, Tile16::kMaxR, [](int r) { return wordTaps(r); },
                    [](int R, int rX, int rY, const gs::Taps1D& tx, const gs::Taps1D& ty) {
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
    });
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
        gs::PathQuery q = path::query(CV_16U, cn, r, r, smem, 132);
        q.verticalTapsBelowOne = taps;
        return q;
    };
    const size_t sm90 = 227 * 1024, sm80 = 163 * 1024;
    for (int r = 1; r <= Tile16::kMaxR + 2; r++)
        for (bool anyRadius : {false, true})
        {
            SCOPED_TRACE(cv::format("radius %d%s", r, anyRadius ? ", switch at all" : ""));
            const gs::GaussianPaths::Options opts = path::optionsWith(anyRadius ? gs::TensorCoreMode::All : gs::TensorCoreMode::Auto);
            const bool tensor = r >= (anyRadius ? Tile16::kMinR : gs::tensorCore16UTuning(90).minRadius()) && r <= Tile16::kMaxR;
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
