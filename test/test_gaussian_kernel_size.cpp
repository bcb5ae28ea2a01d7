// cv::cuda::gaussianKernelSize against CPU cv::GaussianBlur. OpenCV's rule for the kernel size of a
// zero ksize is written out here and in src/gaussian_taps.hpp only: the library, the other tests,
// the tool and the Python package call gaussianKernelSize. So this file checks the function against
// what CPU cv::GaussianBlur does (the same output with ksize 0 and with the size it returns, and a
// different output with the odd sizes next to it), against the rule as OpenCV states it, and against
// a few sizes worked out by hand. No GPU needed.
#include "test_precomp.hpp"

#include <cmath>
#include <limits>
#include <vector>

namespace opencv_test { namespace {

using cv::cuda::gaussianKernelSize;

const int kDepths[] = {CV_8U, CV_16U, CV_16S, CV_32F, CV_64F};

// OpenCV's rule as createGaussianKernels (imgproc/src/smooth.dispatch.cpp) writes it.
int opencvRule(double sigma, int depth) { return cvRound(sigma * (depth == CV_8U ? 3 : 4) * 2 + 1) | 1; }

double below(double v) { return std::nextafter(v, 0.0); }
double above(double v) { return std::nextafter(v, std::numeric_limits<double>::infinity()); }

// Sigmas at which the size before rounding, sigma * 2 * perSide + 1, is exactly n + 1/2 (the
// rounding boundaries; for odd n they decide between n and n + 2), with their neighbours.
std::vector<double> roundingBoundaries(int depth, int count)
{
    const double twicePerSide = depth == CV_8U ? 6 : 8;
    std::vector<double> sigmas;
    for (int n = 1; n <= count; n++)
    {
        const double s = (n - 0.5) / twicePerSide;
        sigmas.insert(sigmas.end(), {below(s), s, above(s)});
    }
    return sigmas;
}

cv::Mat cpuBlur(const Mat& src, Size ksize, double sigma)
{
    Mat out;
    cv::GaussianBlur(src, out, ksize, sigma, sigma, cv::BORDER_REFLECT_101);
    return out;
}

TEST(CudaImage_GaussianKernelSize, sizes_worked_out_by_hand)
{
    EXPECT_EQ(13, gaussianKernelSize(2.0));                    // 2 * 3 * 2 + 1
    EXPECT_EQ(13, gaussianKernelSize(2.0, CV_8U));
    EXPECT_EQ(17, gaussianKernelSize(2.0, CV_16U));            // 2 * 4 * 2 + 1
    EXPECT_EQ(7, gaussianKernelSize(1.0, CV_8U));
    EXPECT_EQ(9, gaussianKernelSize(1.0, CV_32F));
    EXPECT_EQ(25, gaussianKernelSize(3.0, CV_64F));
    EXPECT_EQ(3, gaussianKernelSize(0.25, CV_8U));             // 2.5 rounds to 2 (half to even), | 1
    EXPECT_EQ(13, gaussianKernelSize(1.75, CV_8U));            // 11.5 rounds to 12, | 1
    EXPECT_EQ(5, gaussianKernelSize(0.3125, CV_16S));          // 3.5 rounds to 4, | 1
    EXPECT_EQ(3, gaussianKernelSize(below(0.3125), CV_16S));   // just below 3.5 rounds to 3
    EXPECT_EQ(5, gaussianKernelSize(0.5, CV_8U));              // 4, | 1
    EXPECT_EQ(5, gaussianKernelSize(below(0.5), CV_8U));
    EXPECT_EQ(1, gaussianKernelSize(0.05, CV_8U));             // 1.3 rounds to 1: no blur
    EXPECT_EQ(1, gaussianKernelSize(0.06, CV_32F));            // 1.48 rounds to 1
    EXPECT_EQ(3, gaussianKernelSize(1.0 / 16, CV_32F));        // 1.5 rounds to 2, | 1
    const int largest = (1 << 20) - 1;
    EXPECT_EQ(largest, gaussianKernelSize((largest - 1) / 6.0, CV_8U));
    EXPECT_EQ(largest, gaussianKernelSize((largest - 1) / 8.0, CV_64F));
}

TEST(CudaImage_GaussianKernelSize, follows_the_rule_opencv_states)
{
    for (int depth : kDepths)
    {
        std::vector<double> sigmas = roundingBoundaries(depth, 400);
        for (int i = 1; i <= 20000; i++)
            sigmas.push_back(i / 1000.0);
        for (double s : {0.1, 0.3, 1.0 / 3, 2.0 / 3, 1e-300, 1e-9, 1e-3, 123.456, 1e4, 1e5, 131071.75})
            sigmas.push_back(s);
        for (double sigma : sigmas)
            ASSERT_EQ(opencvRule(sigma, depth), gaussianKernelSize(sigma, depth))
                << "sigma " << cv::format("%.17g", sigma) << ", depth " << cv::depthToString(depth);
    }
}

// The size CPU cv::GaussianBlur derives from sigma is the one gaussianKernelSize returns: the blur
// with ksize 0 equals, bit for bit, the blur with that size, on a whole image and on a sub-matrix.
// On the sub-matrix (whose neighbours the CPU reads, through its floating-point path for every
// depth) the odd sizes next to it, 2 less and 2 more, change the output for every sigma from 1 up
// (rounding boundaries among them, up to sigma 5): there the comparison decides, and the test
// requires that it does, so that it could fail. Below sigma 1 the taps that the neighbouring sizes
// add or drop are too small to change any output (on a whole 8-bit image, whose fixed-point taps
// beyond 3 sigma round to 0, even at larger sigmas), so there the size does not matter to the result.
TEST(CudaImage_GaussianKernelSize, is_the_size_cpu_gaussian_blur_uses)
{
    cv::RNG rng(20261203);
    const std::vector<double> common = {0.05, 1.0 / 16, below(1.0 / 16), 1.0 / 12, below(1.0 / 12), 0.25, 0.3,
                                        0.3125, below(0.3125), 2.5 / 6, below(2.5 / 6), above(2.5 / 6), 0.5,
                                        below(0.5), 0.75, 0.8, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.3, 4.0, 5.5, 7.0};
    for (int depth : kDepths)
    {
        std::vector<double> sigmas = common;
        for (double s : roundingBoundaries(depth, 40))
            sigmas.push_back(s);
        for (int cn : {1, 3})
        {
            const Mat whole = cudaimage_test::randomMat(Size(61 + 2 * 30, 47 + 2 * 30), CV_MAKETYPE(depth, cn), rng);
            const Mat roi = whole(cv::Rect(30, 30, 61, 47));
            for (double sigma : sigmas)
            {
                const std::string what = cv::format("sigma %.17g, %s", sigma, cv::typeToString(whole.type()).c_str());
                const int k = gaussianKernelSize(sigma, depth);
                EXPECT_MAT_EQ(cpuBlur(whole, Size(0, 0), sigma), cpuBlur(whole, Size(k, k), sigma)) << what << ", size " << k;
                const Mat derived = cpuBlur(roi, Size(0, 0), sigma);
                EXPECT_MAT_EQ(derived, cpuBlur(roi, Size(k, k), sigma)) << what << ", size " << k << ", sub-matrix";
                if (sigma < 1)
                    continue;
                const bool smallerDiffers = k < 3 || !cudaimage_test::matsEqual(derived, cpuBlur(roi, Size(k - 2, k - 2), sigma));
                const bool largerDiffers = !cudaimage_test::matsEqual(derived, cpuBlur(roi, Size(k + 2, k + 2), sigma));
                EXPECT_TRUE(smallerDiffers && largerDiffers)
                    << what << ": sizes " << k - 2 << " and " << k + 2 << " should give another output than " << k;
            }
        }
    }
}

template <typename F>
void expectError(F f, int code, const std::vector<std::string>& needles)
{
    cudaimage_test::expectError(f, code, needles, "KSIZE");
}

TEST(CudaImage_GaussianKernelSize, refuses_what_createGaussianBlur_refuses)
{
    expectError([] { gaussianKernelSize(0); }, cv::Error::StsBadArg, {"gaussianKernelSize: sigma is 0", "> 0"});
    expectError([] { gaussianKernelSize(-1.5, CV_32F); }, cv::Error::StsBadArg, {"sigma is -1.5", "> 0"});
    expectError([] { gaussianKernelSize(std::nan("")); }, cv::Error::StsBadArg, {"sigma is nan", "finite"});
    expectError([] { gaussianKernelSize(HUGE_VAL); }, cv::Error::StsBadArg, {"sigma is inf", "finite"});
    expectError([] { gaussianKernelSize(2e5); }, cv::Error::StsOutOfRange,
                {"sigma is 200000, which makes the kernel size 1200001", "sigma up to 174762.333", "at most 1048575"});
    expectError([] { gaussianKernelSize(1e10, CV_16U); }, cv::Error::StsOutOfRange,
                {"sigma is 1e+10, which makes the kernel size 80000000001", "sigma up to 131071.75"});
    expectError([] { gaussianKernelSize(above((((1 << 20) - 1) - 1) / 6.0)); }, cv::Error::StsOutOfRange, {"sigma is 174762"});
    expectError([] { gaussianKernelSize(2, CV_8S); }, cv::Error::StsUnsupportedFormat, {"depth is 1", "CV_8U (0)"});
    expectError([] { gaussianKernelSize(2, CV_8UC3); }, cv::Error::StsUnsupportedFormat, {"not a type"});
    expectError([] { gaussianKernelSize(2, -1); }, kAnyCode, {"depth is -1"});

    // createGaussianBlur refuses the same sigmas for a zero size.
    expectError([] { cv::cuda::createGaussianBlur(CV_8UC1, -1, Size(0, 0), 2e5); }, cv::Error::StsOutOfRange, {"sigmaX is 200000"});
}

}} // namespace opencv_test
