// Gaussian taps exactly as CPU cv::GaussianBlur builds them (smooth.dispatch.cpp, OpenCV 4.10).
#ifndef CUDAIMAGE_GAUSSIAN_TAPS_HPP
#define CUDAIMAGE_GAUSSIAN_TAPS_HPP

#include <vector>
#include <cstdint>
#include "opencv2/core.hpp"

namespace cv { namespace cuda { namespace gaussian {

/** The source depths the Gaussian blur takes (those CPU cv::GaussianBlur takes): 8U, 16U, 16S, 32F, 64F. */
inline bool isGaussianDepth(int depth)
{
    return depth == CV_8U || depth == CV_16U || depth == CV_16S || depth == CV_32F || depth == CV_64F;
}

/** Largest kernel size accepted in each direction: keeps tap tables (and a pathological launch) bounded. */
constexpr int kMaxKernelSize = (1 << 20) - 1;

/** The size OpenCV derives from sigma, before cvRound(...) | 1 (cv::cuda::gaussianKernelSize): sigma
 * times 3 (CV_8U) or 4 (other depths) on each side, plus the centre. The argument checks bound
 * this value (at most kMaxKernelSize), so that a huge sigma is refused before it is rounded. */
inline double derivedKernelExtent(double sigma, int depth) { return sigma * (depth == CV_8U ? 3 : 4) * 2 + 1; }

/** The largest sigma whose derivedKernelExtent stays within kMaxKernelSize (174762.33 for CV_8U,
 * 131071.75 for the other depths). */
inline double largestDerivingSigma(int depth) { return (kMaxKernelSize - 1) / (derivedKernelExtent(1, depth) - 1); }

/** Kernel size and sigma after OpenCV's rules: sigmaY <= 0 takes sigmaX; a zero ksize is derived
 * from sigma by cv::cuda::gaussianKernelSize; sigma <= 0 is derived from ksize by
 * cv::getGaussianKernel. `depth` is the source depth (it selects the ksize rule). Expects arguments
 * that createGaussianBlur has checked. */
struct GaussianShape
{
    Size ksize;
    double sigmaX = 0, sigmaY = 0;
};
GaussianShape resolveShape(int depth, Size ksize, double sigmaX, double sigmaY);

/** One direction's taps. `real` comes from cv::getGaussianKernel(n, sigma, CV_64F) (the bit-exact
 * softdouble kernel); `fixed` is that kernel quantised to `fractionBits` bits with OpenCV's error
 * diffusion (sum exactly 1 << fractionBits), used by the 8U (8 bits) and 16U (16 bits) paths. */
struct Taps1D
{
    std::vector<double> real;
    std::vector<uint32_t> fixed;
};
Taps1D makeTaps(int ksize, double sigma, int fractionBits);

/** cv::getGaussianKernel(n, sigma, CV_64F), bit for bit, computed in hardware doubles where that
 * gives the same bits (softdouble_exp.hpp), else by cv::getGaussianKernel. Exported for the
 * tests (test/test_gaussian_taps_bit_exact.cpp), not part of the API. */
CV_EXPORTS std::vector<double> gaussianKernelBitExact(int n, double sigma);

/** Fraction bits of CPU cv::GaussianBlur's fixed-point path for a depth: 8 (8U), 16 (16U), 0 (none). */
constexpr int fixedPointBits(int depth) { return depth == CV_8U ? 8 : depth == CV_16U ? 16 : 0; }

}}} // namespace cv::cuda::gaussian

#endif
