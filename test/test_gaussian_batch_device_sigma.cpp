// Sigmas that stay on the device (GaussianBatchFilter::applyStackedDeviceSigma): each image bit for
// bit what createGaussianBlur gives it with its sigma (the taps built on the device, with
// cv::getGaussianKernel's bits), for every depth, channel counts 1, 3 and 4, kernel sizes on every
// batched path, CV_32F and CV_64F sigma arrays, one value per group of images, a separate sigmaY,
// and the values OpenCV's rules turn into a sigma from the kernel size (0, negative, NaN); a graph
// captured once replays with new sigma values; bad input is named before any CUDA call (those run
// without a GPU). The fresh host sigmas of apply()/applyStacked() take the same device tap maker:
// the batch tests and the unit sweep check them.
#include "test_precomp.hpp"
#include "gaussian_reference.hpp"
#include "opencv2/cudaimage/gaussian_blur_batch.hpp"

#include <cmath>
#include <limits>
#include <cuda_runtime_api.h>

namespace opencv_test { namespace {

// The sigma an image's value means: a value not above 0 is OpenCV's sigma 0 (from the kernel size).
double meant(double v) { return v > 0 ? v : 0.0; }

// Values as the device reads them (a CV_32F array holds floats).
std::vector<double> asStored(const std::vector<double>& v, int type)
{
    std::vector<double> out;
    for (double x : v)
        out.push_back(type == CV_32F ? static_cast<double>(static_cast<float>(x)) : x);
    return out;
}

GpuMat deviceValues(const std::vector<double>& v, int type)
{
    Mat m(1, static_cast<int>(v.size()), CV_64F);
    for (size_t i = 0; i < v.size(); i++)
        m.at<double>(0, static_cast<int>(i)) = v[i];
    m.convertTo(m, type);
    return GpuMat(m);
}

typedef ::testing::TestWithParam<std::tuple<int, int, Size>> CudaImage_GaussianBatch_DeviceSigma;

TEST_P(CudaImage_GaussianBatch_DeviceSigma, each_image_equals_the_single_filter)
{
    CUDAIMAGE_REQUIRE_GPU();
    const int depth = std::get<0>(GetParam()), cn = std::get<1>(GetParam());
    const Size ksize = std::get<2>(GetParam());
    const int type = CV_MAKETYPE(depth, cn);
    const int n = 12;
    const Size image(45, 38);
    cv::RNG rng(900 + type * 31 + ksize.width);
    for (int variant = 0; variant < 3; variant++)
    {
        // 0: one CV_32F value per image; 1: CV_64F, one per pair of images, with a CV_32F sigmaY per
        // image; 2: one CV_64F value for every image.
        const int xType = variant == 0 ? CV_32F : CV_64F;
        const int xCount = variant == 0 ? n : variant == 1 ? n / 2 : 1;
        std::vector<double> sx(xCount), sy;
        for (int j = 0; j < xCount; j++)
            sx[j] = rng.uniform(0.05, 0.6 * (ksize.width / 2) + 0.5);
        if (variant == 0)
        {
            sx[1] = 0.0;
            sx[2] = -3.0;
            sx[3] = std::numeric_limits<double>::quiet_NaN();
            sx[4] = 0.05;   // all the weight on the centre in both directions (8U, 16U: a fixed-point tap of 1.0)
        }
        if (variant == 1)
        {
            sy.resize(n);
            for (int i = 0; i < n; i++)
                sy[i] = i % 4 == 0 ? 0.0 : rng.uniform(0.05, 0.6 * (ksize.height / 2) + 0.5);
            sx[3] = 0.1;   // images 6, 7: a horizontal tap of 1.0, vertical taps below it
            sx[4] = 2.5;
            sy[9] = 0.1;   // image 9: a vertical tap of 1.0 only
        }
        sx = asStored(sx, xType);
        sy = asStored(sy, CV_32F);
        const Mat host = randomMat(Size(image.width, image.height * n), type, rng);
        GpuMat src(host), dst;
        const GpuMat gx = deviceValues(sx, xType), gy = sy.empty() ? GpuMat() : deviceValues(sy, CV_32F);
        Stream s;
        auto batch = cv::cuda::createGaussianBlurBatch(type, -1, Size(), 1.0);
        batch->applyStackedDeviceSigma(src, dst, image.height, gx, gy, ksize, s);
        const Mat got = toHost(dst, s);
        for (int i = 0; i < n; i++)
        {
            const double x = meant(sx[i / (n / xCount)]);
            const double y = sy.empty() ? x : (sy[i] > 0 ? sy[i] : x);
            const cv::Rect rows(0, i * image.height, image.width, image.height);
            GpuMat alone(host(rows).clone()), one;   // a whole image: its borders its own, as in the stack
            cv::cuda::createGaussianBlur(type, -1, ksize, x, y)->apply(alone, one, s);
            EXPECT_EQ(0, countDifferent(toHost(one, s), got(rows)))
                << cv::format("variant %d image %d sigma %.9g %.9g", variant, i, x, y);
        }
    }
}

// Kernel sizes on the fused path, across its boundary to the large-radius one, a rectangular kernel,
// and large radii (the tensor-core path for 32F, the large-radius one for the fixed-point depths).
INSTANTIATE_TEST_CASE_P(CudaImage, CudaImage_GaussianBatch_DeviceSigma,
                        ::testing::Combine(::testing::Values(CV_8U, CV_16U, CV_16S, CV_32F, CV_64F), ::testing::Values(1, 3, 4),
                                           ::testing::Values(Size(3, 3), Size(17, 17), Size(19, 19), Size(23, 7), Size(61, 61))));

TEST(CudaImage_GaussianBatch_DeviceSigma, the_largest_kernels_of_each_channel_count)
{
    CUDAIMAGE_REQUIRE_GPU();
    cv::RNG rng(4242);
    for (int cn : {1, 4})
    {
        const int type = CV_MAKETYPE(CV_8U, cn);
        const Size ksize = cn == 4 ? Size(245, 245) : Size(257, 257);
        const Mat host = randomMat(Size(300, 2 * 280), type, rng);
        GpuMat src(host), dst;
        const std::vector<double> sx = asStored({35.5, 20.25}, CV_32F);
        Stream s;
        cv::cuda::createGaussianBlurBatch(type, -1, Size(), 1.0)->applyStackedDeviceSigma(src, dst, 280, deviceValues(sx, CV_32F), GpuMat(), ksize, s);
        const Mat got = toHost(dst, s);
        for (int i = 0; i < 2; i++)
        {
            const cv::Rect rows(0, i * 280, 300, 280);
            EXPECT_EQ(0, countDifferent(cpuGaussianBlur(host(rows).clone(), CV_8U, ksize, sx[i], sx[i], cv::BORDER_REPLICATE), got(rows)))
                << "channels " << cn << " image " << i;
        }
    }
}

TEST(CudaImage_GaussianBatch_DeviceSigma, in_place)
{
    CUDAIMAGE_REQUIRE_GPU();
    cv::RNG rng(5);
    const Mat host = randomMat(Size(64, 4 * 50), CV_16UC1, rng);
    GpuMat data(host);
    const std::vector<double> sx = {1.5, 3.25, 0.7, 2.0};
    Stream s;
    cv::cuda::createGaussianBlurBatch(CV_16UC1, -1, Size(), 1.0)->applyStackedDeviceSigma(data, data, 50, deviceValues(sx, CV_64F), GpuMat(), Size(21, 21), s);
    const Mat got = toHost(data, s);
    for (int i = 0; i < 4; i++)
    {
        const cv::Rect rows(0, i * 50, 64, 50);
        EXPECT_EQ(0, countDifferent(cpuGaussianBlur(host(rows).clone(), CV_16U, Size(21, 21), sx[i], sx[i], cv::BORDER_REPLICATE), got(rows)))
            << "image " << i;
    }
}

// A graph captured once reads the sigma array at every replay: new values, new taps, exact.
TEST(CudaImage_GaussianBatch_DeviceSigma, captured_graph_replays_with_new_sigmas)
{
    CUDAIMAGE_REQUIRE_GPU();
    const int n = 8;
    const Size image(70, 52), ksize(23, 23);
    cv::RNG rng(1234);
    const Mat host = randomMat(Size(image.width, image.height * n), CV_8UC3, rng);
    GpuMat src(host), dst(src.size(), src.type());
    std::vector<double> sigmas(n, 1.0);
    GpuMat gx = deviceValues(sigmas, CV_32F);
    Stream s(cudaStreamNonBlocking);
    const cudaStream_t raw = cv::cuda::StreamAccessor::getStream(s);
    auto filter = cv::cuda::createGaussianBlurBatch(CV_8UC3, -1, Size(), 1.0);
    filter->applyStackedDeviceSigma(src, dst, image.height, gx, GpuMat(), ksize, s);   // warm-up
    s.waitForCompletion();
    cudaGraph_t graph = nullptr;
    ASSERT_EQ(cudaSuccess, cudaStreamBeginCapture(raw, cudaStreamCaptureModeGlobal));
    filter->applyStackedDeviceSigma(src, dst, image.height, gx, GpuMat(), ksize, s);
    ASSERT_EQ(cudaSuccess, cudaStreamEndCapture(raw, &graph));
    cudaGraphExec_t exec = nullptr;
    ASSERT_EQ(cudaSuccess, cudaGraphInstantiate(&exec, graph, 0));
    for (int round = 0; round < 3; round++)
    {
        for (double& v : sigmas)
            v = static_cast<float>(rng.uniform(0.1, 4.0));
        Mat values(1, n, CV_64F, sigmas.data());
        Mat f;
        values.convertTo(f, CV_32F);
        gx.upload(f, s);   // the same device memory: the graph's replay reads it
        ASSERT_EQ(cudaSuccess, cudaGraphLaunch(exec, raw));
        const Mat got = toHost(dst, s);
        for (int i = 0; i < n; i++)
        {
            const cv::Rect rows(0, i * image.height, image.width, image.height);
            EXPECT_EQ(0, countDifferent(cpuGaussianBlur(host(rows).clone(), CV_8U, ksize, sigmas[i], sigmas[i], cv::BORDER_REPLICATE), got(rows)))
                << cv::format("round %d image %d sigma %.9g", round, i, sigmas[i]);
        }
    }
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
}

// ---- bad input: named, before any CUDA call (no GPU needed) --------------------------------------

GpuMat fakeMat(int rows, int cols, int type)
{
    static uint64_t storage[64];
    return GpuMat(rows, cols, type, storage, 0);
}

TEST(CudaImage_GaussianBatch_DeviceSigma, bad_input_is_named_before_any_cuda_call)
{
    auto f = cv::cuda::createGaussianBlurBatch(CV_8UC1, -1, Size(), 1.0);
    const GpuMat src = fakeMat(40, 10, CV_8UC1);   // 4 images of 10 rows
    const GpuMat sigmas = fakeMat(1, 4, CV_32FC1);
    const char* tag = "batch-device-sigma";
    GpuMat dst;
    auto call = [&](const GpuMat& s, const GpuMat& x, const GpuMat& y, int rows, Size k) {
        return [&, s, x, y, rows, k] { GpuMat d; f->applyStackedDeviceSigma(s, d, rows, x, y, k, noCudaStream()); };
    };
    expectError(call(src, GpuMat(), GpuMat(), 10, Size(5, 5)), cv::Error::StsBadArg, {"sigmaX is empty"}, tag);
    expectError(call(src, fakeMat(1, 4, CV_16UC1), GpuMat(), 10, Size(5, 5)), cv::Error::StsUnsupportedFormat, {"sigmaX type"}, tag);
    expectError(call(src, fakeMat(1, 3, CV_32FC1), GpuMat(), 10, Size(5, 5)), cv::Error::StsUnmatchedSizes, {"sigmaX has 3 values for 4 images"}, tag);
    expectError(call(src, sigmas, fakeMat(1, 8, CV_64FC1), 10, Size(5, 5)), cv::Error::StsUnmatchedSizes, {"sigmaY has 8 values"}, tag);
    expectError(call(src, fakeMat(4, 4, CV_32FC1)(cv::Rect(0, 0, 2, 2)), GpuMat(), 10, Size(5, 5)), cv::Error::StsBadArg, {"sigmaX is not continuous"}, tag);
    expectError(call(src, sigmas, GpuMat(), 10, Size(4, 5)), cv::Error::StsOutOfRange, {"ksize.width is 4"}, tag);
    expectError(call(src, sigmas, GpuMat(), 10, Size(5, 0)), cv::Error::StsOutOfRange, {"ksize.height is 0"}, tag);
    expectError(call(src, sigmas, GpuMat(), 10, Size(259, 3)), cv::Error::StsOutOfRange, {"ksize.width is 259"}, tag);
    expectError(call(src, sigmas, GpuMat(), 10, Size(1, 1)), cv::Error::StsOutOfRange, {"ksize is 1 x 1"}, tag);
    expectError(call(src, sigmas, GpuMat(), 7, Size(5, 5)), cv::Error::StsBadArg, {"imageRows is 7"}, tag);
    expectError(call(fakeMat(4, 10, CV_8UC1), sigmas, GpuMat(), 1, Size(5, 5)), cv::Error::StsBadSize, {"at least 2 x 2"}, tag);
    expectError(call(fakeMat(40, 10, CV_16UC1), sigmas, GpuMat(), 10, Size(5, 5)), cv::Error::StsUnmatchedFormats, {"src type"}, tag);
}

}} // namespace opencv_test::<anonymous>
