// The taps in hardware doubles (src/softdouble_exp.hpp, gaussianKernelBitExact) against OpenCV's
// software double: cv::getGaussianKernel(n, sigma, CV_64F) bit for bit over random kernels (odd and
// even sizes, sigmas from 1e-3 to 250, sizes beyond the hardware's limit), cv::exp(cv::softdouble)
// bit for bit over random arguments, and the rule that shares the horizontal kernel with the
// vertical one. No GPU: these run in CI.
#include "test_precomp.hpp"
#include "../src/gaussian_call.hpp"
#include "../src/gaussian_taps.hpp"
#include "../src/softdouble_exp.hpp"
#include "../src/gaussian_path_query.hpp"
#include "opencv2/core/softfloat.hpp"

#include <cfloat>
#include <cstring>

namespace opencv_test { namespace {

bool sameBits(const double* a, const double* b, size_t n) { return std::memcmp(a, b, n * sizeof(double)) == 0; }

TEST(CudaImage_GaussianTaps, hardware_arithmetic_is_in_use_on_this_machine)
{
    // x86-64 and AArch64 with the default floating-point environment: the self-check passes. Were
    // it to fail, the taps would still be right (cv::exp) but a batch of new sigmas slow.
    EXPECT_TRUE(gs::softdoubleExpInHardware());
}

TEST(CudaImage_GaussianTaps, exp_matches_opencv_softdouble_bit_for_bit)
{
    cv::RNG rng(9001);
    int differ = 0;
    const int n = 1000000;
    for (int i = 0; i < n; i++)
    {
        // Uniform over the taps' range, and log-uniform towards 0 (the inner taps).
        const double x = i % 2 ? -rng.uniform(0.0, 800.0) : -std::exp(rng.uniform(-40.0, 7.5));
        const double got = gs::softdoubleExp(x), want = static_cast<double>(cv::exp(cv::softdouble(x)));
        if (!sameBits(&got, &want, 1) && differ++ < 5)
            ADD_FAILURE() << cv::format("exp(%.17g): %.17g, OpenCV %.17g", x, got, want);
    }
    for (double x : {0.0, -0.0, -1e-310, -700.0, -745.0, -746.0, -2047.99, -2048.0, -1e300,
                     -std::numeric_limits<double>::infinity()})
    {
        const double got = gs::softdoubleExp(x), want = static_cast<double>(cv::exp(cv::softdouble(x)));
        EXPECT_TRUE(sameBits(&got, &want, 1)) << cv::format("exp(%.17g): %.17g, OpenCV %.17g", x, got, want);
    }
    EXPECT_EQ(0, differ) << "of " << n << " arguments";
}

TEST(CudaImage_GaussianTaps, kernel_matches_cv_getGaussianKernel_bit_for_bit)
{
    cv::RNG rng(9002);
    int differ = 0, kernels = 0;
    for (int i = 0; i < 200000; i++)
    {
        const double sigma = std::exp(rng.uniform(std::log(1e-3), std::log(250.0)));
        int n = cvRound(sigma * (i % 2 ? 3 : 4) * 2 + 1) | 1;   // both of OpenCV's ksize rules
        if (i % 5 == 0)
            n = 2 * rng.uniform(0, 40) + 1;                      // explicit sizes, small sigma or large
        if (i % 17 == 0)
            n += 1;                                              // even (cv::getGaussianKernel takes them)
        const std::vector<double> got = gs::gaussianKernelBitExact(n, sigma);
        const cv::Mat want = cv::getGaussianKernel(n, sigma, CV_64F);
        kernels++;
        if ((got.size() != static_cast<size_t>(n) || !sameBits(got.data(), want.ptr<double>(), n)) && differ++ < 5)
            ADD_FAILURE() << cv::format("n %d sigma %.17g", n, sigma);
    }
    // Sigma <= 0 (OpenCV's tables and its sigma from n), a sigma whose square underflows, and sizes
    // beyond the hardware's limit (cv::getGaussianKernel itself) and at it.
    const std::pair<int, double> edges[] = {{1, 0}, {3, 0}, {5, -1}, {7, 0}, {9, 0}, {11, 0}, {31, 0}, {4, 0},
                                            {13, 1e-200}, {1, 2.0}, {2, 2.0}, {46341, 9000.0}, {46343, 9000.0},
                                            {21, 1e-3}, {1001, 0.5}};
    for (const auto& e : edges)
    {
        const std::vector<double> got = gs::gaussianKernelBitExact(e.first, e.second);
        const cv::Mat want = cv::getGaussianKernel(e.first, e.second, CV_64F);
        kernels++;
        EXPECT_TRUE(got.size() == static_cast<size_t>(e.first) && sameBits(got.data(), want.ptr<double>(), e.first))
            << cv::format("n %d sigma %.17g", e.first, e.second);
    }
    EXPECT_EQ(0, differ) << "of " << kernels << " kernels";
}

// CPU cv::GaussianBlur takes the horizontal kernel for the vertical one when the sizes match and
// the sigmas differ by less than DBL_EPSILON (createGaussianKernels), even if they are not equal.
TEST(CudaImage_GaussianTaps, vertical_kernel_is_the_horizontal_one_within_dbl_epsilon)
{
    const double sx = 0.5, sy = std::nextafter(0.5, 1.0);   // differ by 1.1e-16 < DBL_EPSILON
    ASSERT_NE(sx, sy);
    ASSERT_LT(std::abs(sx - sy), DBL_EPSILON);
    const gs::FilterTaps t = gs::filterTaps(CV_8UC1, cv::Size(0, 0), sx, sy);
    ASSERT_EQ(t.x.real.size(), t.y.real.size());
    EXPECT_TRUE(sameBits(t.x.real.data(), t.y.real.data(), t.x.real.size()));
    EXPECT_EQ(t.x.fixed, t.y.fixed);
    const gs::FilterTaps apart = gs::filterTaps(CV_8UC1, cv::Size(0, 0), 0.5, 0.5 + 4 * DBL_EPSILON);
    const cv::Mat y = cv::getGaussianKernel(static_cast<int>(apart.y.real.size()), 0.5 + 4 * DBL_EPSILON, CV_64F);
    EXPECT_TRUE(sameBits(apart.y.real.data(), y.ptr<double>(), apart.y.real.size()));
}

// The code the device's tap maker runs (src/gaussian_kernel_bits.hpp) without the host's guards:
// every odd size the batched kernels take with sigma <= 0 (OpenCV's fixed kernels and its sigma
// from n), and sigmas small enough that taps fall into the subnormal range, where the device has
// no fallback to cv::getGaussianKernel (its doubles keep subnormals, as this host's do).
TEST(CudaImage_GaussianTaps, device_kernel_code_matches_cv_getGaussianKernel_bit_for_bit)
{
    const gs::SoftdoubleExpConstants& c = gs::softdoubleExpConstants();
    std::vector<double> got(gs::kMaxBatchTaps);
    int kernels = 0, differ = 0;
    cv::RNG rng(8086);
    for (int n = 1; n <= gs::kMaxBatchTaps; n += 2)
        for (double sigma : {0.0, -2.0, 1e-3, 0.02, 0.07, rng.uniform(0.1, 1.0), rng.uniform(1.0, 60.0), 1e6})
        {
            gs::gaussianKernelOf(c, n, sigma, got.data());
            const cv::Mat want = cv::getGaussianKernel(n, sigma, CV_64F);
            kernels++;
            if (!sameBits(got.data(), want.ptr<double>(), n) && differ++ < 5)
                ADD_FAILURE() << cv::format("n %d sigma %.17g", n, sigma);
        }
    EXPECT_EQ(0, differ) << "of " << kernels << " kernels";
}

// OpenCV's getGaussianKernelFixedPoint_ED in its own software double, for the reference.
std::vector<uint32_t> softdoubleFixedPoint(const std::vector<double>& k, int bits)
{
    const int n = static_cast<int>(k.size());
    const int64_t one = int64_t(1) << bits;
    const cv::softdouble scale(one);
    std::vector<uint32_t> out(n);
    cv::softdouble err = cv::softdouble::zero();
    int64_t sum = 0;
    for (int i = 0; i < n / 2; i++)
    {
        const cv::softdouble adjusted = cv::softdouble(k[i]) * scale + err;
        const int64_t v = cvRound64(adjusted);
        err = adjusted - cv::softdouble(v);
        out[i] = out[n - 1 - i] = static_cast<uint32_t>(v);
        sum += v;
    }
    out[n / 2] = static_cast<uint32_t>(one - 2 * sum);
    return out;
}

TEST(CudaImage_GaussianTaps, fixed_point_taps_match_opencv_error_diffusion)
{
    cv::RNG rng(31337);
    std::vector<uint32_t> got(gs::kMaxBatchTaps);
    for (int trial = 0; trial < 3000; trial++)
    {
        const int n = 2 * rng.uniform(0, 129) + 1;
        const double sigma = trial % 7 == 0 ? 0.0 : std::exp(rng.uniform(std::log(0.05), std::log(80.0)));
        const std::vector<double> k = gs::gaussianKernelBitExact(n, sigma);
        for (int bits : {8, 16})
        {
            gs::fixedPointTapsOf(k.data(), n, bits, got.data());
            const std::vector<uint32_t> want = softdoubleFixedPoint(k, bits);
            ASSERT_TRUE(std::equal(want.begin(), want.end(), got.begin())) << cv::format("n %d sigma %.17g bits %d", n, sigma, bits);
        }
    }
}

// Below sigmaWithTapsBelowOne a fixed-point kernel may be all centre; above it none is (the batch
// builds the taps of such kernels on the device without looking at them).
TEST(CudaImage_GaussianTaps, no_kernel_above_the_byte_tap_sigma_bound_puts_all_weight_on_one_tap)
{
    for (int bits : {8, 16})
    {
        const double bound = bits == 8 ? 0.4 : 0.3;   // gaussian_blur_batch.cpp's sigmaWithTapsBelowOne
        for (int n = 3; n <= gs::kMaxBatchTaps; n += 2)
            for (double sigma = bound; sigma < bound + 0.5; sigma += 0.01)
            {
                const gs::FilterTaps t = gs::filterTaps(bits == 8 ? CV_8UC1 : CV_16UC1, cv::Size(n, n), sigma, sigma);
                ASSERT_LT(t.x.fixed[n / 2], 1u << bits) << cv::format("n %d sigma %.3f bits %d", n, sigma, bits);
            }
        // and the bound is needed: a smaller sigma does it
        const double small = bits == 8 ? 0.25 : 0.19;
        EXPECT_EQ(1u << bits, gs::filterTaps(bits == 8 ? CV_8UC1 : CV_16UC1, cv::Size(5, 5), small, small).x.fixed[2]);
    }
}

}} // namespace opencv_test::<anonymous>
