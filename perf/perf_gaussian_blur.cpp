// Gaussian blur, ours and the peers, with the same parameters (the OpenCV way to compare):
//   opencv_perf_cudaimage --gtest_filter='*Gaussian*' [--perf_min_samples=50]
// Sizes, sigmas and kernel sizes follow the side-by-side table's (perf/bench_support.hpp).
#include "perf_precomp.hpp"
#include "bench_support.hpp"

namespace opencv_test { namespace {

typedef tuple<Size, MatType, double> Size_Type_Sigma;
typedef perf::TestBaseWithParam<Size_Type_Sigma> GaussianBlurPerf;

#define GAUSS_SIZES testing::Values(Size(3840, 2160), Size(16384, 16384))
#define GAUSS_TYPES testing::Values(CV_8UC1, CV_8UC3, CV_8UC4, CV_16UC1, CV_32FC1)
#define GAUSS_SIGMAS testing::ValuesIn(cudaimage_bench::kTableSigmas)

// The table's kernel size for every type: each type is timed with the same kernel.
Size ksizeFor(double sigma) { const int k = cudaimage_bench::tableKsize(sigma); return Size(k, k); }

PERF_TEST_P(GaussianBlurPerf, cudaimage, testing::Combine(GAUSS_SIZES, GAUSS_TYPES, GAUSS_SIGMAS))
{
    const Size size = get<0>(GetParam());
    const int type = get<1>(GetParam());
    const double sigma = get<2>(GetParam());
    if (!PERF_RUN_CUDA())
        throw SkipTestException("needs a CUDA device");
    Mat src(size, type);
    declare.in(src, WARMUP_RNG);
    cv::cuda::GpuMat d_src(src), d_dst;
    Ptr<cuda::Filter> f = cuda::createGaussianBlur(type, type, ksizeFor(sigma), sigma, sigma, BORDER_REPLICATE);
    // The harness does not synchronise; time until the GPU has finished.
    TEST_CYCLE() { f->apply(d_src, d_dst); cv::cuda::Stream::Null().waitForCompletion(); }
    SANITY_CHECK_NOTHING();
}

// The ceiling: a device-to-device copy of the same image (one read, one write), to report the
// filters as a fraction of it.
PERF_TEST_P(GaussianBlurPerf, device_copy, testing::Combine(GAUSS_SIZES, GAUSS_TYPES, testing::Values(0.0)))
{
    const Size size = get<0>(GetParam());
    const int type = get<1>(GetParam());
    if (!PERF_RUN_CUDA())
        throw SkipTestException("needs a CUDA device");
    Mat src(size, type);
    declare.in(src, WARMUP_RNG);
    cv::cuda::GpuMat d_src(src), d_dst(size, type);
    TEST_CYCLE() { d_src.copyTo(d_dst); cv::cuda::Stream::Null().waitForCompletion(); }
    SANITY_CHECK_NOTHING();
}

// OpenCV's cudafilters Gaussian: only 8U/16U/32F with 1 or 4 channels and ksize <= 32.
PERF_TEST_P(GaussianBlurPerf, cudafilters_createGaussianFilter, testing::Combine(GAUSS_SIZES, GAUSS_TYPES, GAUSS_SIGMAS))
{
    const Size size = get<0>(GetParam());
    const int type = get<1>(GetParam());
    const double sigma = get<2>(GetParam());
    const Size ks = ksizeFor(sigma);
    if (!PERF_RUN_CUDA())
        throw SkipTestException("needs a CUDA device");
    if (CV_MAT_CN(type) == 3 || ks.width > 32)
        throw SkipTestException("createGaussianFilter does not accept this case");
    Mat src(size, type);
    declare.in(src, WARMUP_RNG);
    cv::cuda::GpuMat d_src(src), d_dst;
    Ptr<cuda::Filter> f = cuda::createGaussianFilter(type, type, ks, sigma, sigma, BORDER_REPLICATE);
    // The harness does not synchronise; time until the GPU has finished.
    TEST_CYCLE() { f->apply(d_src, d_dst); cv::cuda::Stream::Null().waitForCompletion(); }
    SANITY_CHECK_NOTHING();
}

// CPU cv::GaussianBlur (all cores), 4K only: the 16K cases take minutes per sample.
PERF_TEST_P(GaussianBlurPerf, cpu_GaussianBlur,
            testing::Combine(testing::Values(Size(3840, 2160)), GAUSS_TYPES, GAUSS_SIGMAS))
{
    const Size size = get<0>(GetParam());
    const int type = get<1>(GetParam());
    const double sigma = get<2>(GetParam());
    Mat src(size, type), dst(size, type);
    declare.in(src, WARMUP_RNG).out(dst);
    TEST_CYCLE() cv::GaussianBlur(src, dst, ksizeFor(sigma), sigma, sigma, BORDER_REPLICATE);
    SANITY_CHECK_NOTHING();
}

}} // namespace
