// cv::cuda::createGaussianBlur against CPU cv::GaussianBlur: exact for 8U/16U, documented
// tolerances for 16S/32F/64F; every border, sub-matrices, in place, sizes from 1x1 up.
#include "test_precomp.hpp"
#include <algorithm>
#include "gaussian_reference.hpp"
#include "gaussian_path_ids.hpp"
#include "../src/gaussian_filter_options.hpp"
#include "opencv2/cudaimage/gaussian_blur_batch.hpp"

namespace opencv_test { namespace {

const int kDepths[] = {CV_8U, CV_16U, CV_16S, CV_32F, CV_64F};
const int kBorders[] = {cv::BORDER_REPLICATE, cv::BORDER_REFLECT_101, cv::BORDER_REFLECT, cv::BORDER_WRAP, cv::BORDER_CONSTANT};

struct Kernel { Size ksize; double sx, sy; };
std::ostream& operator<<(std::ostream& os, const Kernel& k)
{ return os << "ksize=" << k.ksize << " sigma=(" << k.sx << "," << k.sy << ")"; }

// Small and large sigma, fixed binomial tables (sigma 0, ksize <= 9), sigma-derived sizes,
// independent x/y; not OpenCV's own sigma-in-[0,1] sample.
const Kernel kKernels[] = {
    {Size(1, 1), 0, 0},   {Size(3, 3), 0, 0},    {Size(5, 5), 1.1, 0}, {Size(7, 7), 0, 0},
    {Size(9, 9), 0, 0},   {Size(0, 0), 0.3, 0},  {Size(0, 0), 2, 0},   {Size(13, 13), 2, 0},
    {Size(31, 31), 5, 0}, {Size(7, 31), 1, 5},   {Size(0, 0), 1.5, 3.5}, {Size(61, 61), 10, 0},
    {Size(151, 151), 30, 0}, {Size(1, 15), 0, 3}};

std::string borderName(int b)
{
    static const char* names[] = {"CONSTANT", "REPLICATE", "REFLECT", "WRAP", "REFLECT_101"};
    std::string s = names[b & 7];
    return (b & cv::BORDER_ISOLATED) ? s + "|ISOLATED" : s;
}

// Largest |a-b| allowed for a depth, relative to the largest absolute input value.
double tolerance(int depth, double maxAbs)
{
    switch (depth)
    {
    case CV_8U: case CV_16U: return 0;
    case CV_16S: return 1;
    case CV_32F: return 1e-5 * std::max(maxAbs, 1.0);
    default: return 1e-12 * std::max(maxAbs, 1.0);
    }
}

double maxAbs(const Mat& m) { double lo, hi; cv::minMaxIdx(m.reshape(1), &lo, &hi); return std::max(std::abs(lo), std::abs(hi)); }

::testing::AssertionResult near(const Mat& expected, const Mat& actual, double tol, const std::string& what)
{
    if (expected.size() != actual.size() || expected.type() != actual.type())
        return ::testing::AssertionFailure() << what << ": size/type " << actual.size() << "/" << actual.type()
                                             << " expected " << expected.size() << "/" << expected.type();
    Mat diff;
    cv::absdiff(expected.reshape(1), actual.reshape(1), diff);
    double worst; cv::Point where;
    cv::minMaxLoc(diff, nullptr, &worst, nullptr, &where);
    if (worst <= tol)
        return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << what << ": max |diff| " << worst << " > " << tol << " at (x=" << where.x / expected.channels()
                                         << ", y=" << where.y << ", c=" << where.x % expected.channels() << ")";
}

Mat gpuBlur(const GpuMat& src, int dstType, const Kernel& k, int rowBorder, int colBorder)
{
    cv::Ptr<cv::cuda::Filter> f = cv::cuda::createGaussianBlur(src.type(), dstType, k.ksize, k.sx, k.sy, rowBorder, colBorder);
    GpuMat d;
    f->apply(src, d);
    Mat out;
    d.download(out);
    return out;
}

// What CPU cv::GaussianBlur gives; it rejects BORDER_WRAP, so for WRAP the reference model
// (checked against the CPU through copyMakeBorder(WRAP) in CudaImage_GaussianReference) stands in.
Mat cpuGaussian(const Mat& src, const Kernel& k, int border) { return cpuGaussianBlur(src, src.depth(), k.ksize, k.sx, k.sy, border); }

// CPU bit-exact result for a sub-matrix whose neighbours are real: blur (ISOLATED) the region grown
// by the kernel radius, extrapolated relative to the parent, and keep its centre.
Mat cpuFixedPointOnRoi(const Mat& parent, cv::Rect roi, const Kernel& k, int border)
{
    Size ks = k.ksize;
    if (ks.width <= 0) ks.width = cv::cuda::gaussianKernelSize(k.sx, parent.depth());
    if (ks.height <= 0) ks.height = cv::cuda::gaussianKernelSize(k.sy > 0 ? k.sy : k.sx, parent.depth());
    const int rx = ks.width / 2, ry = ks.height / 2;
    Mat padded;
    cv::copyMakeBorder(parent, padded, ry, ry, rx, rx, border, cv::Scalar::all(0));
    Mat grown = padded(cv::Rect(roi.x, roi.y, roi.width + 2 * rx, roi.height + 2 * ry)).clone();
    Mat out; // the grown region's own border never reaches the centre
    cv::GaussianBlur(grown, out, ks, k.sx, k.sy, cv::BORDER_REPLICATE | cv::BORDER_ISOLATED);
    return out(cv::Rect(rx, ry, roi.width, roi.height)).clone();
}

//////////////////////////////////////////////////////////////////////////////////////////////
// Argument checks: no GPU needed (they happen before any CUDA call).

TEST(CudaImage_GaussianBlur_Args, rejects_bad_arguments_before_any_cuda_call)
{
    using cv::cuda::createGaussianBlur;
    EXPECT_THROW(createGaussianBlur(CV_8SC1, -1, Size(3, 3), 1), cv::Exception);       // depth
    EXPECT_THROW(createGaussianBlur(CV_32SC1, -1, Size(3, 3), 1), cv::Exception);
    EXPECT_THROW(createGaussianBlur(CV_8UC(5), -1, Size(3, 3), 1), cv::Exception);     // channels
    EXPECT_THROW(createGaussianBlur(CV_8UC1, CV_16UC1, Size(3, 3), 1), cv::Exception); // pair
    EXPECT_THROW(createGaussianBlur(CV_8UC3, CV_32FC1, Size(3, 3), 1), cv::Exception);
    EXPECT_THROW(createGaussianBlur(CV_8UC1, -1, Size(4, 3), 1), cv::Exception);       // even
    EXPECT_THROW(createGaussianBlur(CV_8UC1, -1, Size(3, -3), 1), cv::Exception);      // negative
    EXPECT_THROW(createGaussianBlur(CV_8UC1, -1, Size(0, 0), -1), cv::Exception);      // sigma<0, ksize 0
    EXPECT_THROW(createGaussianBlur(CV_8UC1, -1, Size(0, 0), 0), cv::Exception);
    EXPECT_THROW(createGaussianBlur(CV_8UC1, -1, Size(3, 3), std::nan("")), cv::Exception);
    EXPECT_THROW(createGaussianBlur(CV_8UC1, -1, Size(3, 3), 1, HUGE_VAL), cv::Exception);
    EXPECT_THROW(createGaussianBlur(CV_8UC1, -1, Size(3, 3), 1, 0, 5), cv::Exception); // border
    EXPECT_THROW(createGaussianBlur(CV_8UC1, -1, Size(3, 3), 1, 0, cv::BORDER_REPLICATE, 7), cv::Exception);
    EXPECT_THROW(createGaussianBlur(CV_8UC1, -1, Size(1 << 21 | 1, 3), 1), cv::Exception); // too large

    EXPECT_NO_THROW(createGaussianBlur(CV_8UC1, -1, Size(0, 0), 2));
    EXPECT_NO_THROW(createGaussianBlur(CV_64FC4, CV_32FC4, Size(3, 0), 0, 2, cv::BORDER_WRAP, cv::BORDER_REFLECT | cv::BORDER_ISOLATED));
}

TEST(CudaImage_GaussianBlur_Args, messages_name_the_parameter_and_the_allowed_values)
{
    try { cv::cuda::createGaussianBlur(CV_8UC1, -1, Size(4, 3), 1); FAIL() << "no exception"; }
    catch (const cv::Exception& e)
    {
        EXPECT_NE(e.msg.find("ksize.width is 4"), std::string::npos) << e.msg;
        EXPECT_NE(e.msg.find("odd"), std::string::npos) << e.msg;
    }
    try { cv::cuda::createGaussianBlur(CV_8UC1, -1, Size(3, 3), 1, 0, 9); FAIL() << "no exception"; }
    catch (const cv::Exception& e) { EXPECT_NE(e.msg.find("rowBorderMode is 9"), std::string::npos) << e.msg; }
    try { cv::cuda::createGaussianBlur(CV_8SC1, -1, Size(3, 3), 1); FAIL() << "no exception"; }
    catch (const cv::Exception& e) { EXPECT_NE(e.msg.find("srcType is CV_8SC1"), std::string::npos) << e.msg; }
}

TEST(CudaImage_GaussianBlur_Args, apply_rejects_empty_wrong_type_and_host_input)
{
    // A wrapped null stream: Stream::Null() itself needs a driver, and would make these throw
    // for the wrong reason on a machine without one.
    cv::cuda::Stream stream = cv::cuda::StreamAccessor::wrapStream(0);
    cv::Ptr<cv::cuda::Filter> f = cv::cuda::createGaussianBlur(CV_8UC1, -1, Size(3, 3), 1);
    GpuMat empty, out;
    EXPECT_THROW(f->apply(empty, out, stream), cv::Exception);
    GpuMat wrong(4, 4, CV_16UC1, (void*)16, 8 * 4); // header only: rejected before any access
    EXPECT_THROW(f->apply(wrong, out, stream), cv::Exception);
    Mat host(4, 4, CV_8UC1, cv::Scalar(1));
    EXPECT_THROW(f->apply(host, out, stream), cv::Exception);
    EXPECT_THROW(cv::cuda::GaussianBlur(empty, out, Size(3, 3), 1, 0, cv::BORDER_REPLICATE, stream), cv::Exception);
}

TEST(CudaImage_GaussianBlur_Args, apply_rejects_partial_overlap)
{
    // Headers over fake device memory: the overlap check runs before any CUDA call.
    uchar* fake = reinterpret_cast<uchar*>(size_t(1) << 20);
    GpuMat whole(64, 64, CV_8UC1, fake, 64);
    GpuMat src = whole(cv::Rect(0, 0, 32, 32)), dst = whole(cv::Rect(8, 8, 32, 32));
    cv::Ptr<cv::cuda::Filter> f = cv::cuda::createGaussianBlur(CV_8UC1, -1, Size(3, 3), 1);
    cv::cuda::Stream stream = cv::cuda::StreamAccessor::wrapStream(0);
    EXPECT_THROW(f->apply(src, dst, stream), cv::Exception);
}

//////////////////////////////////////////////////////////////////////////////////////////////
// The reference model against CPU cv::GaussianBlur (no GPU needed).

TEST(CudaImage_GaussianReference, matches_cpu_GaussianBlur)
{
    cv::RNG rng(12345);
    const Size sizes[] = {Size(1, 1), Size(17, 1), Size(1, 13), Size(23, 19)};
    const Kernel kernels[] = {{Size(3, 3), 0, 0}, {Size(0, 0), 2, 0}, {Size(7, 31), 1, 5}, {Size(41, 41), 12, 0}};
    for (int depth : kDepths)
        for (int cn : {1, 3})
            for (Size sz : sizes)
                for (const Kernel& k : kernels)
                    for (int border : kBorders)
                    {
                        Mat src = randomMat(sz, CV_MAKETYPE(depth, cn), rng), cpu;
                        if (border == cv::BORDER_WRAP) // the CPU filter has no WRAP: pad, blur, crop
                            cpu = cpuFixedPointOnRoi(src, cv::Rect(0, 0, sz.width, sz.height), k, border);
                        else
                            cv::GaussianBlur(src, cpu, k.ksize, k.sx, k.sy, border);
                        GaussianArgs a{k.ksize, k.sx, k.sy, border, border};
                        Mat ref = referenceGaussianBlur(src, depth, a);
                        ASSERT_TRUE(near(cpu, ref, tolerance(depth, maxAbs(src)), "reference")) << cv::typeToString(src.type()) << " " << sz << " " << k << " " << borderName(border);
                    }
}

//////////////////////////////////////////////////////////////////////////////////////////////
// GPU against CPU.

typedef ::testing::TestWithParam<std::tuple<int, int, int>> CudaImage_GaussianBlur_Small;

// 1x1, 1xN, Nx1 and 113x113 (prime), every kernel above, whole image / sub-matrix / isolated
// sub-matrix, in place and not, one border per test instance.
TEST_P(CudaImage_GaussianBlur_Small, matches_cpu)
{
    CUDAIMAGE_REQUIRE_GPU();
    const int depth = std::get<0>(GetParam()), cn = std::get<1>(GetParam()), border = std::get<2>(GetParam());
    const int type = CV_MAKETYPE(depth, cn);
    cv::RNG rng(depth * 131 + cn * 17 + border);
    const Size sizes[] = {Size(1, 1), Size(37, 1), Size(1, 37), Size(113, 113)};
    for (Size sz : sizes)
        for (const Kernel& k : kKernels)
        {
            SCOPED_TRACE(cv::format("%s %dx%d ", cv::typeToString(type).c_str(), sz.width, sz.height) + borderName(border));
            std::ostringstream ks; ks << k; SCOPED_TRACE(ks.str());
            const Mat parent = randomMat(Size(sz.width + 9, sz.height + 7), type, rng);
            const cv::Rect roi(4, 3, sz.width, sz.height);
            const double tol = tolerance(depth, maxAbs(parent));
            GpuMat gParent(parent);

            // Whole image, not in place and in place.
            Mat whole = parent(roi).clone();
            const Mat cpu = cpuGaussian(whole, k, border);
            GpuMat g(whole);
            EXPECT_TRUE(near(cpu, gpuBlur(g, type, k, border, border), tol, "whole"));
            cv::cuda::createGaussianBlur(type, type, k.ksize, k.sx, k.sy, border)->apply(g, g);
            Mat inPlace; g.download(inPlace);
            EXPECT_TRUE(near(cpu, inPlace, tol, "in place"));

            // 32F output: for 8U/16U the fixed-point sum before rounding (8U: exact in float, so
            // rounding it half-up gives the 8U result; 16U: rounded to float once).
            Mat f32 = gpuBlur(GpuMat(whole), CV_MAKETYPE(CV_32F, cn), k, border, border);
            if (depth == CV_8U || depth == CV_16U)
                EXPECT_TRUE(near(referenceGaussianBlur(whole, CV_32F, GaussianArgs{k.ksize, k.sx, k.sy, border, border}), f32, 0, "32F output"));
            else
            {
                Mat cpu32; cpu.convertTo(cpu32, CV_32F);
                // 16S: the CPU result is rounded (0.5) and float has 1/128 resolution at 32767.
                EXPECT_TRUE(near(cpu32, f32, depth == CV_16S ? 0.5 + 1.0 / 128 : std::max(tol, 1e-5 * maxAbs(parent)), "32F output"));
            }
            if (depth == CV_8U)
            {
                Mat rounded(f32.size(), type);
                for (int i = 0; i < (int)f32.total() * cn; i++)
                    rounded.ptr<uchar>()[i] = (uchar)std::floor(f32.ptr<float>()[i] + 0.5);
                EXPECT_TRUE(near(cpu, rounded, 0, "8U via 32F output, rounded"));
            }

            // Isolated sub-matrix: the ROI is the whole image.
            const Mat cpuIso = cpuGaussian(parent(roi), k, border | cv::BORDER_ISOLATED);
            EXPECT_TRUE(near(cpuIso, gpuBlur(gParent(roi), type, k, border | cv::BORDER_ISOLATED, -1), tol, "isolated ROI"));

            // Sub-matrix with real neighbours.
            Mat gpuRoi = gpuBlur(gParent(roi), type, k, border, border);
            const Mat cpuRoi = cpuGaussian(parent(roi), k, border);
            if (depth == CV_8U || depth == CV_16U)
            {
                EXPECT_TRUE(near(cpuFixedPointOnRoi(parent, roi, k, border), gpuRoi, 0, "ROI vs fixed-point CPU"));
                // The CPU's own sub-matrix path rounds each tap separately (no error diffusion):
                // it strays from its bit-exact result by a few levels.
                EXPECT_TRUE(near(cpuRoi, gpuRoi, 3, "ROI vs CPU"));
            }
            else
                EXPECT_TRUE(near(cpuRoi, gpuRoi, tol, "ROI"));
        }
}

INSTANTIATE_TEST_CASE_P(CudaImage, CudaImage_GaussianBlur_Small,
    ::testing::Combine(::testing::ValuesIn(kDepths), ::testing::Values(1, 2, 3, 4), ::testing::ValuesIn(kBorders)));

typedef ::testing::TestWithParam<std::tuple<int, int>> CudaImage_GaussianBlur_Large;

// Full HD and an odd large frame, sigma 1..30 and a 251x251 kernel (radius 125: the large-radius
// path for 1 and 3 channels, two passes for 4, whose tile ends at radius 122), REPLICATE and
// REFLECT_101.
TEST_P(CudaImage_GaussianBlur_Large, matches_cpu)
{
    CUDAIMAGE_REQUIRE_GPU();
    const int depth = std::get<0>(GetParam()), cn = std::get<1>(GetParam()), type = CV_MAKETYPE(depth, cn);
    cv::RNG rng(depth * 7 + cn);
    const Kernel kernels[] = {{Size(7, 7), 1, 0}, {Size(13, 13), 2, 0}, {Size(31, 31), 5, 0}, {Size(0, 0), 10, 0}, {Size(181, 181), 30, 0},
                              {Size(251, 251), 0, 0}};
    for (Size sz : {Size(1920, 1080), Size(997, 1013)})
    {
        const Mat src = randomMat(sz, type, rng);
        GpuMat g(src);
        for (const Kernel& k : kernels)
            for (int border : {cv::BORDER_REPLICATE, cv::BORDER_REFLECT_101})
            {
                std::ostringstream ks; ks << k;
                SCOPED_TRACE(cv::typeToString(type) + cv::format(" %dx%d ", sz.width, sz.height) + ks.str() + " " + borderName(border));
                Mat cpu;
                cv::GaussianBlur(src, cpu, k.ksize, k.sx, k.sy, border);
                EXPECT_TRUE(near(cpu, gpuBlur(g, type, k, border, border), tolerance(depth, maxAbs(src)), "large"));
            }
    }
}

INSTANTIATE_TEST_CASE_P(CudaImage, CudaImage_GaussianBlur_Large,
    ::testing::Combine(::testing::ValuesIn(kDepths), ::testing::Values(1, 3, 4)));

// Every boundary of the path choice (src/gaussian_paths.hpp; the choice itself is tested without a
// GPU in test_gaussian_plan.cpp), on the device, taken from the units' constants
// (test/gaussian_path_ids.hpp): the ends of the fused and large-radius ranges, the last radius with
// a large-radius tile for the channel count, and the radius on each side of each. Each against CPU cv::GaussianBlur, with a separate dst (the
// path the plan names) and in place (two passes). Wide enough for several large tiles per row.
typedef ::testing::TestWithParam<std::tuple<int, int>> CudaImage_GaussianBlur_PathBoundaries;

TEST_P(CudaImage_GaussianBlur_PathBoundaries, matches_cpu)
{
    CUDAIMAGE_REQUIRE_GPU();
    const int depth = std::get<0>(GetParam()), cn = std::get<1>(GetParam()), type = CV_MAKETYPE(depth, cn);
    cv::RNG rng(depth * 11 + cn);
    const Mat src = randomMat(Size(2003, 53), type, rng);
    const double tol = tolerance(depth, maxAbs(src));
    GpuMat g(src);
    int smem = 0;
    ASSERT_EQ(cudaSuccess, cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, cv::cuda::getDevice()));
    for (int r : path::boundaryRadii(depth, cn))
    {
        const gs::PathChoice c = gs::choosePath(path::query(depth, cn, r, r, static_cast<size_t>(smem)));
        SCOPED_TRACE(cv::format("%s radius %d: %s (%s)", cv::typeToString(type).c_str(), r,
                                c.name, c.reason));
        const Kernel k{Size(2 * r + 1, 2 * r + 1), 0, 0};
        for (int border : {r % 2 ? cv::BORDER_REFLECT_101 : cv::BORDER_CONSTANT})
        {
            const Mat cpu = cpuGaussian(src, k, border);
            try
            {
                EXPECT_TRUE(near(cpu, gpuBlur(g, type, k, border, border), tol, "separate dst " + borderName(border)));
                GpuMat inPlace = g.clone();
                cv::cuda::createGaussianBlur(type, -1, k.ksize, 0, 0, border)->apply(inPlace, inPlace);
                Mat out;
                inPlace.download(out);
                EXPECT_TRUE(near(cpu, out, tol, "in place " + borderName(border)));
            }
            catch (const cv::Exception& e)
            {
                ADD_FAILURE() << e.what();
            }
        }
    }
}

INSTANTIATE_TEST_CASE_P(CudaImage, CudaImage_GaussianBlur_PathBoundaries,
    ::testing::Combine(::testing::ValuesIn(kDepths), ::testing::Values(1, 2, 3, 4)));

// The fused kernels' 8U strips (FusedTile::stripRows: 8 rows below the threshold, 16 from it;
// batchStripRows), on both sides: one apply per side at the fused path's first and last radius for 1
// and 4 channels (images one block wide, heights ending inside a strip), and batches of one-block
// images of every radius on both sides of the block and the height thresholds; exact against the CPU.
TEST(CudaImage_GaussianBlur_PathBoundaries, fused_8U_strip_rows_on_both_sides)
{
    CUDAIMAGE_REQUIRE_GPU();
    int sms = 0;
    ASSERT_EQ(cudaSuccess, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, cv::cuda::getDevice()));
    const long long edge = static_cast<long long>(path::FusedTile::kShortStripWaves) * 5 * sms;
    const int rows16 = path::FusedTile::kRows8U;
    cv::RNG rng(4242);
    // 8UC1 at radius 8 would take the tensor cores: the filters here are made without them.
    const auto noTensorCores = path::optionsWith(cv::cuda::gaussian::TensorCoreMode::Off);
    for (int cn : {1, 4})
        for (int r : {path::FusedTile::kMinR, path::FusedTile::kMaxR})
            for (long long blocks : {edge - 1, edge})
            {
                const int type = CV_MAKETYPE(CV_8U, cn);
                const int width = (path::FusedTile::kCols - 2 * path::FusedTile::halo(r, cn)) / cn;   // one block across
                const int height = static_cast<int>(blocks * rows16) - (blocks == edge ? 9 : 3);
                SCOPED_TRACE(cv::format("%s radius %d, %dx%d: %lld blocks of 16 rows (threshold %lld)",
                                        cv::typeToString(type).c_str(), r, width, height, blocks, edge));
                const Mat src = randomMat(Size(width, height), type, rng);
                const Kernel k{Size(2 * r + 1, 2 * r + 1), 0, 0};
                GpuMat out;
                cv::cuda::gaussian::createGaussianBlurWithOptions(type, -1, k.ksize, 0, 0, cv::BORDER_REFLECT_101,
                                                                  cv::BORDER_REFLECT_101, noTensorCores)
                    ->apply(GpuMat(src), out);
                EXPECT_EQ(0, countDifferent(cpuGaussian(src, k, cv::BORDER_REFLECT_101), Mat(out)));
            }
    // Batches (FusedTile::batchStripRows): one-block images of every radius; up to
    // kShortStripBatchRows rows 8-row strips whatever the count, taller ones by the block count:
    // one image fewer than the threshold and then as many, short and tall.
    const int tallest = path::FusedTile::kShortStripBatchRows;
    const long long tallStrips = (tallest + 1 + rows16 - 1) / rows16;
    struct BatchSide { int height; long long count; };
    for (const BatchSide side : {BatchSide{rows16, edge - 1}, BatchSide{rows16, edge}, BatchSide{tallest, (edge + tallStrips - 1) / tallStrips},
                                 BatchSide{tallest + 1, (edge - 1) / tallStrips}, BatchSide{tallest + 1, (edge + tallStrips - 1) / tallStrips}})
    {
        SCOPED_TRACE(cv::format("batch of %lld one-block images up to %d rows (threshold %lld blocks, %d rows)", side.count,
                                side.height, edge, tallest));
        std::vector<Mat> host;
        std::vector<GpuMat> src, dst;
        std::vector<Size> ksizes;
        for (long long i = 0; i < side.count; i++)
        {
            const int r = path::FusedTile::kMinR + static_cast<int>(i % path::FusedTile::kMaxR);
            // Image 0 has the batch's height; the others end anywhere in their last strip.
            const int height = i == 0 ? side.height : side.height - static_cast<int>(i % 7);
            host.push_back(randomMat(Size(40 + static_cast<int>(i % 7), height), CV_8UC3, rng));
            src.emplace_back(host.back());
            ksizes.push_back(Size(2 * r + 1, 2 * r + 1));
        }
        cv::cuda::GaussianBlurBatch(src, dst, {0.0}, {}, ksizes, cv::BORDER_REFLECT_101);
        for (size_t i = 0; i < src.size(); i++)
        {
            Mat got;
            dst[i].download(got);
            ASSERT_EQ(0, countDifferent(cpuGaussian(host[i], Kernel{ksizes[i], 0, 0}, cv::BORDER_REFLECT_101), got)) << "image " << i;
        }
    }
}

// 16U vertical sums are 32-bit integers on the fused paths (src/cuda/gaussian_depth.cuh): a 16-bit
// pixel times taps that sum to 2^16 stays below 2^32. At the bound: images at 65535 and at the
// extremes (0 / 65535 stripes), a kernel whose centre tap is all of 2^16 (tiny sigma), and the
// radius at each end of the fused and large-radius kernels' ranges; exact against the CPU.
TEST(CudaImage_GaussianBlur_PathBoundaries, sixteen_bit_sums_at_their_bound)
{
    CUDAIMAGE_REQUIRE_GPU();
    const Size size(1037, 301);
    Mat maxed(size, CV_16UC1, cv::Scalar(65535)), stripes(size, CV_16UC1);
    for (int y = 0; y < size.height; y++)
        for (int x = 0; x < size.width; x++)
            stripes.at<ushort>(y, x) = ((x / 3 + y / 2) % 2) ? 65535 : 0;
    struct Case { Size ksize; double sigma; };
    auto square = [](int r) { return Size(2 * r + 1, 2 * r + 1); };
    const Case cases[] = {{square(path::FusedTile::kMinR), 0.01}, {square(path::FusedTile::kMinR), 0},
                          {square(path::FusedTile::kMaxR), 0}, {square(path::LargeTile::kMinR), 0},
                          {square(path::LargeTile::kMaxR), 0}, {square(path::LargeTile::kMaxR), 1000}};
    for (int cn : {1, 3})
        for (const Mat& plane : {maxed, stripes})
            for (const Case& k : cases)
            {
                Mat src;
                cv::merge(std::vector<Mat>(cn, plane), src);
                const int type = src.type();
                SCOPED_TRACE(cv::format("%s ksize %d sigma %g, %s", cv::typeToString(type).c_str(), k.ksize.width,
                                        k.sigma, plane.data == maxed.data ? "all 65535" : "0/65535 stripes"));
                Mat cpu, out;
                cv::GaussianBlur(src, cpu, k.ksize, k.sigma, k.sigma, cv::BORDER_REPLICATE);
                GpuMat g(src), d;
                cv::cuda::createGaussianBlur(type, -1, k.ksize, k.sigma, k.sigma, cv::BORDER_REPLICATE)->apply(g, d);
                d.download(out);
                EXPECT_TRUE(near(cpu, out, 0, "16U at the integer bound"));
                if (plane.data == maxed.data)
                {
                    double lo = 0, hi = 0;
                    cv::minMaxLoc(out.reshape(1), &lo, &hi);
                    EXPECT_EQ(65535, lo);   // a constant image stays constant: no sum wrapped
                }
            }
}

// 4-channel sigmas whose radius (123, 128, 124 with today's tile) leaves the large-radius kernel no
// tile: CPU cv::GaussianBlur takes them; so must we, exactly for 8U. 1 and 3 channels of the same
// sigma alongside.
TEST(CudaImage_GaussianBlur_PathBoundaries, four_channel_sigmas_beyond_the_large_tile)
{
    CUDAIMAGE_REQUIRE_GPU();
    struct Case { int depth; Size size; double sigma; };
    const Case cases[] = {{CV_8U, Size(600, 700), 41.0}, {CV_8U, Size(600, 700), 42.6}, {CV_32F, Size(500, 600), 31.0}};
    cv::RNG rng(14);
    for (const Case& k : cases)
        for (int cn : {4, 3, 1})
        {
            const int type = CV_MAKETYPE(k.depth, cn);
            SCOPED_TRACE(cv::format("%s %dx%d sigma %g", cv::typeToString(type).c_str(), k.size.width, k.size.height, k.sigma));
            const Mat src = randomMat(k.size, type, rng);
            Mat cpu, out;
            cv::GaussianBlur(src, cpu, Size(0, 0), k.sigma, 0, cv::BORDER_REPLICATE);
            try
            {
                GpuMat g(src), d;
                cv::cuda::createGaussianBlur(type, -1, Size(0, 0), k.sigma)->apply(g, d);
                d.download(out);
                EXPECT_TRUE(near(cpu, out, tolerance(k.depth, maxAbs(src)), "4-channel sigma"));
            }
            catch (const cv::Exception& e)
            {
                ADD_FAILURE() << e.what();
            }
        }
}

// Different row and column borders: cv::GaussianBlur takes one border, so the reference model decides.
TEST(CudaImage_GaussianBlur_MixedBorders, matches_reference)
{
    CUDAIMAGE_REQUIRE_GPU();
    cv::RNG rng(77);
    for (int depth : kDepths)
        for (int rowB : kBorders)
            for (int colB : kBorders)
            {
                if (rowB == colB) continue;
                const Mat src = randomMat(Size(29, 23), CV_MAKETYPE(depth, 2), rng);
                const Kernel k{Size(0, 0), 1.7, 3.1};
                GaussianArgs a{k.ksize, k.sx, k.sy, rowB, colB};
                EXPECT_TRUE(near(referenceGaussianBlur(src, depth, a), gpuBlur(GpuMat(src), src.type(), k, rowB, colB),
                                 tolerance(depth, maxAbs(src)), "mixed borders"))
                    << borderName(rowB) << " x " << borderName(colB) << " depth " << depth;
            }
}

// One filter, two streams, no host synchronisation between the calls.
TEST(CudaImage_GaussianBlur_Streams, one_filter_on_two_streams)
{
    CUDAIMAGE_REQUIRE_GPU();
    cv::RNG rng(5);
    const Mat a = randomMat(Size(640, 480), CV_8UC3, rng), b = randomMat(Size(320, 200), CV_8UC3, rng);
    cv::Ptr<cv::cuda::Filter> f = cv::cuda::createGaussianBlur(CV_8UC3, -1, Size(0, 0), 2.5);
    cv::cuda::Stream s1, s2;
    GpuMat ga, gb, ra, rb;
    ga.upload(a, s1); gb.upload(b, s2);
    for (int i = 0; i < 10; i++) { f->apply(ga, ra, s1); f->apply(gb, rb, s2); }
    Mat outA, outB, cpuA, cpuB;
    ra.download(outA, s1); rb.download(outB, s2);
    s1.waitForCompletion(); s2.waitForCompletion();
    cv::GaussianBlur(a, cpuA, Size(0, 0), 2.5, 0, cv::BORDER_REPLICATE);
    cv::GaussianBlur(b, cpuB, Size(0, 0), 2.5, 0, cv::BORDER_REPLICATE);
    EXPECT_TRUE(near(cpuA, outA, 0, "stream 1"));
    EXPECT_TRUE(near(cpuB, outB, 0, "stream 2"));
}

// One filter whose paths change between calls: single-kernel first (no device taps), then in place
// on a non-blocking stream (the two-pass path uploads its taps on its first call), then both again
// on a second stream. Every result equals the CPU's.
TEST(CudaImage_GaussianBlur_Streams, fused_then_two_pass_on_non_blocking_streams)
{
    CUDAIMAGE_REQUIRE_GPU();
    cv::RNG rng(6);
    for (int type : {CV_8UC1, CV_16UC3, CV_32FC4})
    {
        SCOPED_TRACE(cv::typeToString(type));
        const Mat src = randomMat(Size(333, 211), type, rng);
        Mat cpu;
        cv::GaussianBlur(src, cpu, Size(0, 0), 1.5, 0, cv::BORDER_REPLICATE);
        const double tol = tolerance(CV_MAT_DEPTH(type), maxAbs(src));
        cv::Ptr<cv::cuda::Filter> f = cv::cuda::createGaussianBlur(type, -1, Size(0, 0), 1.5);
        cv::cuda::Stream s1(cudaStreamNonBlocking), s2(cudaStreamNonBlocking);
        for (cv::cuda::Stream* s : {&s1, &s2})
        {
            GpuMat g, out;
            g.upload(src, *s);
            f->apply(g, out, *s);   // separate dst: single kernel
            f->apply(g, g, *s);     // in place: two passes
            Mat fused, inPlace;
            out.download(fused, *s);
            g.download(inPlace, *s);
            s->waitForCompletion();
            EXPECT_TRUE(near(cpu, fused, tol, "separate dst"));
            EXPECT_TRUE(near(cpu, inPlace, tol, "in place"));
        }
    }
}
// Larger than 2^31 bytes and taller than 65535 rows: 64-bit offsets and the y grid loop.
TEST(CudaImage_GaussianBlur_Huge, more_than_2GiB_and_65535_rows)
{
    CUDAIMAGE_REQUIRE_GPU();
    size_t freeMem = 0, total = 0;
    cv::cuda::DeviceInfo().queryMemory(total, freeMem);
    const Size sz(32800, 70000); // 2.14e9 bytes of 8UC1
    if (freeMem < size_t(12) << 30)
        CUDAIMAGE_SKIP("needs 12 GiB of free device memory");
    cv::RNG rng(3);
    Mat src(sz, CV_8UC1);
    rng.fill(src, cv::RNG::UNIFORM, 0, 256);
    Mat cpu, out;
    cv::GaussianBlur(src, cpu, Size(7, 7), 0, 0, cv::BORDER_REPLICATE);
    GpuMat g(src), d;
    cv::cuda::GaussianBlur(g, d, Size(7, 7), 0);
    d.download(out);
    EXPECT_TRUE(near(cpu, out, 0, "huge"));
}

}} // namespace opencv_test
