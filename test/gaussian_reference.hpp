// The CPU "gold" twin of cv::cuda::createGaussianBlur: plain loops, no tiling, 64-bit sums.
// It is itself compared with CPU cv::GaussianBlur (test_gaussian_reference.cpp) and then stands in
// for it where cv::GaussianBlur cannot express the case (different row and column borders,
// fixed-point arithmetic on sub-matrices).
#ifndef CUDAIMAGE_TEST_GAUSSIAN_REFERENCE_HPP
#define CUDAIMAGE_TEST_GAUSSIAN_REFERENCE_HPP

#include <algorithm>
#include <cmath>
#include <string>
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

/** The largest |difference| from CPU cv::GaussianBlur that createGaussianBlur documents for a
 * source depth on `src`: 0 for 8U/16U, 1 for 16S, 1e-5 (32F) or 1e-12 (64F) of max(1, max|src|). */
inline double documentedTolerance(int depth, const cv::Mat& src)
{
    double lo, hi;
    cv::minMaxIdx(src.reshape(1), &lo, &hi);
    const double scale = std::max(1.0, std::max(std::abs(lo), std::abs(hi)));
    return depth == CV_8U || depth == CV_16U ? 0 : depth == CV_16S ? 1 : depth == CV_32F ? 1e-5 * scale : 1e-12 * scale;
}

/** CPU cv::GaussianBlur of `src` into dstDepth; the reference model where cv::GaussianBlur cannot
 * express the case: BORDER_WRAP (it rejects it) or a dstDepth other than src's. */
cv::Mat cpuGaussianBlur(const cv::Mat& src, int dstDepth, cv::Size ksize, double sigmaX, double sigmaY, int border);

/** `got` has the size and type of `want` (the CPU's result for `src`) and is within the documented
 * tolerance for src's depth of it; `what` names the case in the failure. */
void expectWithinDocumentedTolerance(const cv::Mat& want, const cv::Mat& got, const cv::Mat& src, const std::string& what);

/** The fixed-point taps (fractionBits 8 or 16) that CPU cv::GaussianBlur uses. */
std::vector<int64_t> referenceFixedTaps(int ksize, double sigma, int fractionBits);

} // namespace cudaimage_test

#endif
