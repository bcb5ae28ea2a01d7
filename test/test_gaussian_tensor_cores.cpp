// The 8U large-radius kernel's horizontal pass on the tensor cores (src/cuda/gaussian_imma.cuh):
// where it applies (a pure function: runs without a GPU) and, on the device, that it is bit-exact
// with CPU cv::GaussianBlur at every radius it serves, with the pass on and switched off.
#include "test_precomp.hpp"
#include "../src/gaussian_plan.hpp"
#include "../src/gaussian_launch.hpp"

#include <cstdlib>

namespace opencv_test { namespace {

using namespace cudaimage_test;
using cv::Mat;
using cv::Size;
using cv::cuda::GpuMat;
namespace gs = cv::cuda::gaussian;

// The horizontal taps the large-radius kernel pads to (src/cuda/gaussian_fused_large.cu): `lead`
// zeros in front so that (r + lead) * channels is a multiple of 4, then a multiple of 4 in all.
int paddedTaps(int r, int channels)
{
    int lead = 0;
    while (((r + lead) * channels) % 4 != 0)
        lead++;
    return (lead + 2 * r + 1 + 3) / 4 * 4;
}

TEST(CudaImage_GaussianTensorCores, chunks_cover_the_window_and_fit_the_table)
{
    const int maxChunks = gs::FusedLargeTapsT<float>::kImmaMaxChunks;
    const int minR = gs::kTensorCoreMinRadius, maxR = gs::geometry::LargeTile::kMaxR;
    ASSERT_GE(minR, gs::geometry::LargeTile::kMinR);
    for (int r = gs::geometry::LargeTile::kMinR; r <= maxR; r++)
    {
        const int nh = paddedTaps(r, 1);
        const int chunks = gs::tensorCoreChunks(CV_8U, 1, r, nh, true, true);
        SCOPED_TRACE(cv::format("radius %d, %d padded taps", r, nh));
        if (r < minR)
        {
            EXPECT_EQ(0, chunks);                     // the FP32 pass measures faster there
            continue;
        }
        EXPECT_GE(32 * chunks, 16 + nh - 1);          // 16 outputs' window
        EXPECT_LT(32 * (chunks - 1), 16 + nh - 1);    // and no chunk more
        EXPECT_LE(chunks, maxChunks);                 // the kernel's shared table
    }
    EXPECT_EQ(maxChunks, gs::tensorCoreChunks(CV_8U, 1, maxR, paddedTaps(maxR, 1), true, true));
    EXPECT_EQ(0, gs::tensorCoreChunks(CV_8U, 1, minR - 1, paddedTaps(minR - 1, 1), true, true));
    EXPECT_LT(0, gs::tensorCoreChunks(CV_8U, 1, minR, paddedTaps(minR, 1), true, true));
    // Where it does not apply: the kernel's FP32 pass.
    const int nh = paddedTaps(40, 1);
    EXPECT_EQ(0, gs::tensorCoreChunks(CV_8U, 1, 40, nh, true, false));   // switched off
    EXPECT_EQ(0, gs::tensorCoreChunks(CV_8U, 1, 40, nh, false, true));   // a tap above 255
    EXPECT_EQ(0, gs::tensorCoreChunks(CV_8U, 3, 40, paddedTaps(40, 3), true, true));
    for (int depth : {CV_16U, CV_16S, CV_32F, CV_64F})
        EXPECT_EQ(0, gs::tensorCoreChunks(depth, 1, 40, nh, true, true));
}

// OPENCV_CUDAIMAGE_TENSOR_CORES for the filters created in one scope (read at creation).
struct TensorCoresSwitch
{
    explicit TensorCoresSwitch(bool on) { setenv("OPENCV_CUDAIMAGE_TENSOR_CORES", on ? "1" : "0", 1); }
    ~TensorCoresSwitch() { unsetenv("OPENCV_CUDAIMAGE_TENSOR_CORES"); }
};

Mat blurOnDevice(const GpuMat& src, int dstType, int r, int border, bool tensorCores)
{
    TensorCoresSwitch sw(tensorCores);
    cv::Ptr<cv::cuda::Filter> f = cv::cuda::createGaussianBlur(src.type(), dstType, Size(2 * r + 1, 2 * r + 1), 0, 0, border, border);
    GpuMat d;
    f->apply(src, d);
    Mat out;
    d.download(out);
    return out;
}

// Every radius of the large-radius kernel (9..128; the tensor-core pass from kTensorCoreMinRadius),
// on an image two tiles wide at every radius and a sub-matrix of it (unaligned rows: the byte-wise
// stores), with the pass on and off, two borders. 8-bit results are bit-exact; a CV_32F destination
// takes the FP32 pass and is checked too.
TEST(CudaImage_GaussianTensorCores, every_radius_matches_cpu_with_the_pass_on_and_off)
{
    CUDAIMAGE_REQUIRE_GPU();
    cv::RNG rng(2026);
    const Mat parent = randomMat(Size(1700, 45), CV_8UC1, rng);
    const cv::Rect roiRect(3, 2, 1693, 41);
    const GpuMat whole(parent);
    const GpuMat roi = whole(roiRect);
    for (int r = gs::geometry::LargeTile::kMinR; r <= gs::geometry::LargeTile::kMaxR; r++)
    {
        const int border = r % 2 ? cv::BORDER_REPLICATE : cv::BORDER_REFLECT_101;
        SCOPED_TRACE(cv::format("radius %d, border %d", r, border));
        Mat cpuWhole, cpuRoi;
        cv::GaussianBlur(parent, cpuWhole, Size(2 * r + 1, 2 * r + 1), 0, 0, border);
        cv::GaussianBlur(parent(roiRect).clone(), cpuRoi, Size(2 * r + 1, 2 * r + 1), 0, 0, border | cv::BORDER_ISOLATED);
        for (bool on : {true, false})
        {
            SCOPED_TRACE(on ? "tensor cores" : "FP32 pass");
            EXPECT_EQ(0, countDifferent(cpuWhole, blurOnDevice(whole, -1, r, border, on)));
            EXPECT_EQ(0, countDifferent(cpuRoi, blurOnDevice(roi, -1, r, border | cv::BORDER_ISOLATED, on)));
        }
    }
    // CV_32F destination of an 8U source: unrounded, the FP32 pass whatever the switch says
    const int r = 40;
    Mat cpu32;
    cv::GaussianBlur(parent, cpu32, Size(2 * r + 1, 2 * r + 1), 0, 0, cv::BORDER_REPLICATE);
    const Mat gpu32 = blurOnDevice(whole, CV_32F, r, cv::BORDER_REPLICATE, true);
    ASSERT_EQ(CV_32FC1, gpu32.type());
    int wrong = 0;   // the CPU rounds the same sums half up: floor(s + 1/2)
    for (int y = 0; y < gpu32.rows; y++)
        for (int x = 0; x < gpu32.cols; x++)
            wrong += cvFloor(gpu32.at<float>(y, x) + 0.5f) != cpu32.at<uchar>(y, x);
    EXPECT_EQ(0, wrong);
}

}} // namespace
