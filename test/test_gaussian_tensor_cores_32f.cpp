// The 32F tensor-core path (src/paths/tensor_core_32f: TF32 products with BF16 corrections): its
// taps, its tile and where its rule takes it (pure host functions: run without a GPU) and, on the
// device, within the float tolerance (1e-5 of the image's largest magnitude) of CPU
// cv::GaussianBlur: unaligned destinations, BORDER_WRAP, rectangular kernels, more strips than the
// grid has blocks, and NaN and Inf reaching exactly the CPU's pixels. Every radius against the CPU
// on the device: test_gaussian_tensor_cores_every_radius.cpp.
#include "test_precomp.hpp"
#include "gaussian_path_ids.hpp"
#include "tensor_cores_switch.hpp"

#include <cmath>
#include <limits>
#include <vector>

namespace opencv_test { namespace {

typedef gs::TensorCore32FTile Tile32;

gs::TensorTaps32F tensorTaps32(int depth, int channels, const gs::Taps1D& x, const gs::Taps1D& y)
{
    return unitTaps<gs::TensorCore32FPath>(depth, channels, x, y);
}

// 2r+1 distinct real taps (their sum does not matter to the placement).
gs::Taps1D realTaps(int r)
{
    gs::Taps1D t;
    for (int m = 0; m <= 2 * r; m++)
        t.real.push_back(0.001 + m * 1e-4 + (m == r ? 0.5 : 0.0));
    return t;
}

TEST(CudaImage_GaussianTensorCores32F, taps_are_centred_and_the_tile_holds_every_radius)
{
    forEachTapShape(Tile32::kMinR, Tile32::kMaxR, realTaps, [](int R, int rX, int rY, const gs::Taps1D& tx, const gs::Taps1D& ty) {
        const gs::TensorTaps32F t = tensorTaps32(CV_32F, 1, tx, ty);
        ASSERT_TRUE(t.valid);
        EXPECT_EQ(R, t.r);
        EXPECT_EQ(rX, t.rx);
        EXPECT_EQ(rY, t.ry);
        for (int k = 0; k <= 2 * Tile32::kMaxR; k++)
        {
            const int mx = k - (R - rX), my = k - (R - rY);
            EXPECT_EQ(mx >= 0 && mx <= 2 * rX ? static_cast<float>(tx.real[mx]) : 0.f, t.h[k]) << "h[" << k << "]";
            EXPECT_EQ(my >= 0 && my <= 2 * rY ? static_cast<float>(ty.real[my]) : 0.f, t.v[k]) << "v[" << k << "]";
        }
        // K chunks: the fewest 8-row blocks over a 16-row half's window, 8-pixel ones over
        // an 8-output block's; a strip's source rows hold both halves' windows.
        const int vc = Tile32::vChunks(R), hc = Tile32::hChunks(R);
        EXPECT_GE(8 * vc, 16 + 2 * R);
        EXPECT_LT(8 * (vc - 1), 16 + 2 * R);
        EXPECT_GE(8 * hc, 8 + 2 * R);
        EXPECT_LT(8 * (hc - 1), 8 + 2 * R);
        EXPECT_GE(Tile32::sourceRows(R), 32 + 2 * R);
        // The halo: the radius and the chunk reads past the window, on 16-pixel steps; the
        // outputs whole 32-output tasks; the last task's last chunk (c = hc - 1, block 3)
        // inside the tile's sums.
        const int halo = Tile32::halo(R), outputs = Tile32::outputs(R);
        EXPECT_GE(halo, R + 7);
        EXPECT_LT(halo - 16, R + 7);
        EXPECT_EQ(0, halo % 16);
        EXPECT_EQ(Tile32::kCols - 2 * halo, outputs);
        EXPECT_EQ(0, outputs % 32);
        EXPECT_GE(outputs, 32);
        EXPECT_LE((halo - R) + (outputs - 32) + 8 * (hc - 1 + 3) + 7, Tile32::kCols - 1);
        // The tap arrays hold every entry a lane reads: vertical entries -3 .. vc + 1 and
        // horizontal 0 .. hc - 1, each 8q + (-7 .. 7) around kTapBase.
        EXPECT_GE(Tile32::kTapBase + 8 * -3 - 7, 0);
        EXPECT_LT(Tile32::kTapBase + 8 * (vc + 1) + 7, Tile32::kTapSlots);
        EXPECT_LT(Tile32::kTapBase + 8 * (hc - 1) + 7, Tile32::kTapSlots);
    });
    // By hand: sigma 30 (32F kernels reach 4 sigma: radius 120): halo 128, 512 outputs, 32 + 31
    // chunks; shared memory 32 x 772 x 4 + 6 x 320 x 4 = 106,496 bytes at every radius: two blocks
    // fit an sm_90 SM (228 KiB, 1 KiB reserved per block), one an A100's (164 KiB).
    EXPECT_EQ(128, Tile32::halo(120));
    EXPECT_EQ(512, Tile32::outputs(120));
    EXPECT_EQ(32, Tile32::vChunks(120));
    EXPECT_EQ(31, Tile32::hChunks(120));
    EXPECT_EQ(480, Tile32::outputs(Tile32::kMaxR));
    EXPECT_EQ(size_t(106496), Tile32::maxSharedBytes());
    EXPECT_LE(2 * (Tile32::maxSharedBytes() + 1024), size_t(228 * 1024));
    // Refused: another depth or channel count, a radius beyond the tile's range.
    EXPECT_FALSE(tensorTaps32(CV_16U, 1, realTaps(3), realTaps(3)).valid);
    EXPECT_FALSE(tensorTaps32(CV_64F, 1, realTaps(3), realTaps(3)).valid);
    EXPECT_FALSE(tensorTaps32(CV_32F, 2, realTaps(3), realTaps(3)).valid);
    EXPECT_FALSE(tensorTaps32(CV_32F, 1, realTaps(Tile32::kMaxR + 1), realTaps(3)).valid);
    EXPECT_TRUE(tensorTaps32(CV_32F, 1, realTaps(Tile32::kMaxR), realTaps(0)).valid);
}

// Where choosePath() takes the 32F path: 32F, one channel, from the row's minimum (the switch at
// `all`: radius 1) to 128, on a device that holds the tile (sm_90 and sm_80) and runs the code.
TEST(CudaImage_GaussianTensorCores32F, path_choice)
{
    auto query = [](int r, int cn, size_t smem) { return path::query(CV_32F, cn, r, r, smem, 132); };
    const size_t sm90 = 227 * 1024, sm80 = 163 * 1024, sm86 = 99 * 1024;
    for (int r = 1; r <= Tile32::kMaxR + 2; r++)
        for (bool anyRadius : {false, true})
        {
            SCOPED_TRACE(cv::format("radius %d%s", r, anyRadius ? ", switch at all" : ""));
            const gs::GaussianPaths::Options opts = path::optionsWith(anyRadius ? gs::TensorCoreMode::All : gs::TensorCoreMode::Auto);
            for (int cc : {90, 80})
            {
                const size_t smem = cc == 90 ? sm90 : sm80;
                const bool tensor = r >= (anyRadius ? Tile32::kMinR : gs::tensorCore32FTuning(cc).minRadius()) && r <= Tile32::kMaxR;
                const gs::PathChoice c = gs::choosePath(query(r, 1, smem), path::factsFor(cc), opts);
                EXPECT_EQ(tensor ? path::TensorCore32F : path::cudaCorePath(CV_32F, 1, r, smem), c.index) << c.reason;
                if (tensor)
                {
                    EXPECT_EQ(Tile32::outputs(r), c.tileOutputs);
                    EXPECT_EQ(Tile32::sharedBytes(r), c.sharedBytes);
                    EXPECT_EQ(Tile32::kBlocksPerSM * 132, c.residentBlocks);
                }
            }
            const int cudaCores = path::cudaCorePath(CV_32F, 1, r, sm90);
            EXPECT_EQ(path::cudaCorePath(CV_32F, 1, r, sm86), gs::choosePath(query(r, 1, sm86), path::factsFor(86), opts).index);
            EXPECT_EQ(cudaCores, gs::choosePath(query(r, 1, sm90), path::factsFor(90, false), opts).index);
            EXPECT_EQ(cudaCores, gs::choosePath(query(r, 1, sm90), path::factsFor(90), path::optionsWith(gs::TensorCoreMode::Off)).index);
            for (int cn : {2, 3, 4})
                EXPECT_EQ(path::cudaCorePath(CV_32F, cn, r, sm90), gs::choosePath(query(r, cn, sm90), path::factsFor(90), opts).index);
            gs::PathQuery other = query(r, 1, sm90);
            other.depth = CV_64F;
            EXPECT_NE(path::TensorCore32F, gs::choosePath(other, path::factsFor(90), opts).index);
        }
}

double toleranceOf(const Mat& src) { return 1e-5 * std::max(cv::norm(src, cv::NORM_INF), 1.0); }

// Largest difference between two float images.
double maxDifference(const Mat& a, const Mat& b) { return cv::norm(a, b, cv::NORM_INF); }

// An unaligned destination (a sub-matrix at an odd column: no 8-byte stores), BORDER_WRAP against
// the CUDA-core kernels, rectangular kernels, and more tiles than the grid has blocks.
TEST(CudaImage_GaussianTensorCores32F, unaligned_dst_wrap_rectangles_and_more_tiles_than_blocks)
{
    CUDAIMAGE_REQUIRE_GPU();
    cv::RNG rng(9);
    const Mat src = randomMat(Size(777, 131), CV_32FC1, rng);
    const GpuMat g(src);
    const double tol = toleranceOf(src);
    for (int r : {Tile32::kMinR, 3, 9, 30, 90, Tile32::kMaxR})
    {
        SCOPED_TRACE(cv::format("radius %d", r));
        Mat cpu;
        cv::GaussianBlur(src, cpu, Size(2 * r + 1, 2 * r + 1), 0, 0, cv::BORDER_REFLECT_101);
        GpuMat big(src.rows + 2, src.cols + 5, CV_32FC1, cv::Scalar(7));
        GpuMat view = big(cv::Rect(3, 1, src.cols, src.rows));
        EXPECT_LE(maxDifference(cpu, blurOnDevice(g, -1, r, cv::BORDER_REFLECT_101, "all", &view)), tol);
        Mat around;
        big.download(around);
        EXPECT_EQ(7.f, around.at<float>(0, 0));
        EXPECT_EQ(7.f, around.at<float>(around.rows - 1, around.cols - 1));   // nothing written outside the view
        EXPECT_EQ(7.f, around.at<float>(1, 2));
        EXPECT_EQ(7.f, around.at<float>(1, 3 + src.cols));
        EXPECT_LE(maxDifference(blurOnDevice(g, -1, r, cv::BORDER_WRAP, "0"), blurOnDevice(g, -1, r, cv::BORDER_WRAP, "all")), 2 * tol);
        // wider than tall and taller than wide (the shorter direction's taps zero-padded)
        for (int other : {0, r / 3})
        {
            Mat wide, tall;
            cv::GaussianBlur(src, wide, Size(2 * r + 1, 2 * other + 1), 0, 0, cv::BORDER_REPLICATE);
            cv::GaussianBlur(src, tall, Size(2 * other + 1, 2 * r + 1), 0, 0, cv::BORDER_REPLICATE);
            EXPECT_LE(maxDifference(wide, blurOnDevice(g, -1, r, cv::BORDER_REPLICATE, "all", nullptr, other)), tol) << "ry " << other;
            if (other > 0)   // (rx 0: one column, not filtered across: the two-pass path)
            {
                EXPECT_LE(maxDifference(tall, blurOnDevice(g, -1, other, cv::BORDER_REPLICATE, "all", nullptr, r)), tol) << "rx " << other;
            }
        }
    }
    const Mat tallImage = randomMat(Size(40, 32 * 1000 + 45), CV_32FC1, rng);   // 1,002 strips of one tile
    const GpuMat gt(tallImage);
    for (int r : {5, 30})
    {
        Mat cpu;
        cv::GaussianBlur(tallImage, cpu, Size(2 * r + 1, 2 * r + 1), 0, 0, cv::BORDER_REPLICATE);
        EXPECT_LE(maxDifference(cpu, blurOnDevice(gt, -1, r, cv::BORDER_REPLICATE, "all")), toleranceOf(tallImage)) << "radius " << r;
    }
}

// NaN and +-Inf: a tile whose source window holds one is computed again on the CUDA cores with
// the filter's own taps, so the masks are the CPU's (the Toeplitz matrices' zero taps would spread
// them: 0 x Inf is NaN), and the tiles around stay on the tensor cores, within the tolerance.
TEST(CudaImage_GaussianTensorCores32F, nan_and_inf_reach_the_cpus_pixels_only)
{
    CUDAIMAGE_REQUIRE_GPU();
    cv::RNG rng(10);
    Mat src = randomMat(Size(2100, 150), CV_32FC1, rng);
    src.at<float>(50, 100) = std::numeric_limits<float>::quiet_NaN();
    src.at<float>(60, 900) = std::numeric_limits<float>::infinity();
    src.at<float>(61, 903) = -std::numeric_limits<float>::infinity();   // +Inf and -Inf meet: NaN
    src.at<float>(0, 2099) = std::numeric_limits<float>::infinity();     // at the image's corner
    src.at<float>(140, 1500) = 3.0e38f;                                   // finite, near FLT_MAX
    const GpuMat g(src);
    for (int rx : {1, 9, 30, 128})
        for (int ry : {rx, rx / 3 + 1})
        {
            SCOPED_TRACE(cv::format("rx %d, ry %d", rx, ry));
            Mat cpu;
            cv::GaussianBlur(src, cpu, Size(2 * rx + 1, 2 * ry + 1), 0, 0, cv::BORDER_REFLECT_101);
            const Mat gpu = blurOnDevice(g, -1, rx, cv::BORDER_REFLECT_101, "all", nullptr, ry);
            int maskDiffers = 0;
            double finiteDiff = 0, maxFinite = 0;
            for (int y = 0; y < src.rows; y++)
                for (int x = 0; x < src.cols; x++)
                {
                    const float c = cpu.at<float>(y, x), d = gpu.at<float>(y, x);
                    if (std::isnan(c) != std::isnan(d) || std::isinf(c) != std::isinf(d) || (std::isinf(c) && c != d))
                        maskDiffers++;
                    else if (std::isfinite(c))
                    {
                        finiteDiff = std::max(finiteDiff, std::fabs(static_cast<double>(c) - d));
                        maxFinite = std::max(maxFinite, std::fabs(static_cast<double>(c)));
                    }
                }
            EXPECT_EQ(0, maskDiffers);
            EXPECT_LE(finiteDiff, 1e-5 * 3.0e38);
            // the image outside the two marked pixels' windows: within the tolerance of its own values
            Mat cpuPart = cpu(cv::Rect(0, 90, 1400, 20)), gpuPart = gpu(cv::Rect(0, 90, 1400, 20));
            if (ry < 30)
            {
                EXPECT_LE(maxDifference(cpuPart, gpuPart), 1e-5 * 1000);
            }
        }
}

}} // namespace
