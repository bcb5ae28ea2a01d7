// The CPU "gold" twin of cv::cuda::createGaussianBlur: plain loops, no tiling, 64-bit sums.
// It is itself compared with CPU cv::GaussianBlur (test_gaussian_reference.cpp) and then stands in
// for it where cv::GaussianBlur cannot express the case (different row and column borders,
// fixed-point arithmetic on sub-matrices).
#ifndef CUDAIMAGE_TEST_GAUSSIAN_REFERENCE_HPP
#define CUDAIMAGE_TEST_GAUSSIAN_REFERENCE_HPP

#include "opencv2/core.hpp"

namespace cudaimage_test {

struct GaussianArgs
{
    cv::Size ksize;
    double sigmaX = 0, sigmaY = 0;
    int rowBorder = cv::BORDER_REPLICATE;     // may include BORDER_ISOLATED
    int columnBorder = cv::BORDER_REPLICATE;
};

/** Blurs `src` (a sub-matrix reads its parent's pixels unless a border has BORDER_ISOLATED).
 * dstDepth is src's depth or CV_32F (8U/16U: the fixed-point sum before rounding). */
cv::Mat referenceGaussianBlur(const cv::Mat& src, int dstDepth, const GaussianArgs& args);

/** The fixed-point taps (fractionBits 8 or 16) that CPU cv::GaussianBlur uses. */
std::vector<int64_t> referenceFixedTaps(int ksize, double sigma, int fractionBits);

} // namespace cudaimage_test

#endif
