#include "precomp.hpp"
#include <algorithm>
#include <cmath>
#include "gaussian_taps.hpp"
#include "softdouble_exp.hpp"

namespace cv { namespace cuda {

int gaussianKernelSize(double sigma, int depth)
{
    if (!gaussian::isGaussianDepth(depth))
        CV_Error_(Error::StsUnsupportedFormat,
                  ("cv::cuda::gaussianKernelSize: depth is %d; allowed: CV_8U (%d), CV_16U (%d), CV_16S (%d), "
                   "CV_32F (%d) or CV_64F (%d), a depth and not a type (CV_MAT_DEPTH(type))",
                   depth, CV_8U, CV_16U, CV_16S, CV_32F, CV_64F));
    if (!std::isfinite(sigma))
        CV_Error_(Error::StsBadArg, ("cv::cuda::gaussianKernelSize: sigma is %g; allowed: a finite number > 0", sigma));
    if (!(sigma > 0))
        CV_Error_(Error::StsBadArg,
                  ("cv::cuda::gaussianKernelSize: sigma is %g; allowed: a number > 0 (a kernel size is derived "
                   "from a positive sigma)", sigma));
    const double extent = gaussian::derivedKernelExtent(sigma, depth);
    if (!(extent <= gaussian::kMaxKernelSize))
        CV_Error_(Error::StsOutOfRange,
                  ("cv::cuda::gaussianKernelSize: sigma is %g, which makes the kernel size %.0f; allowed: sigma up "
                   "to %.9g (the kernel size at most %d)", sigma, extent, gaussian::largestDerivingSigma(depth),
                   gaussian::kMaxKernelSize));
    return cvRound(extent) | 1;
}

namespace gaussian {

GaussianShape resolveShape(int depth, Size ksize, double sigmaX, double sigmaY)
{
    GaussianShape s;
    if (sigmaY <= 0)
        sigmaY = sigmaX;
    if (ksize.width <= 0 && sigmaX > 0)
        ksize.width = gaussianKernelSize(sigmaX, depth);
    if (ksize.height <= 0 && sigmaY > 0)
        ksize.height = gaussianKernelSize(sigmaY, depth);
    s.ksize = ksize;
    s.sigmaX = std::max(sigmaX, 0.0);
    s.sigmaY = std::max(sigmaY, 0.0);
    return s;
}

namespace {

// The largest kernel whose squared tap offsets fit OpenCV's int arithmetic ((n - 1)^2 < 2^31):
// beyond it cv::getGaussianKernel's `x*x` overflows, and only cv::getGaussianKernel itself gives
// its bits.
constexpr int kLargestHardwareKernel = 46341;

// The smallest tap value the hardware computes; below it a subnormal could appear.
constexpr double kSmallestHardwareTap = 0x1p-900;

} // namespace

std::vector<double> gaussianKernelBitExact(int n, double sigma)
{
    // OpenCV's getGaussianKernelBitExact (smooth.dispatch.cpp), step for step, in hardware doubles
    // (softdouble_exp.hpp says why the bits are the same). sigma <= 0 (tables, and sigma from n by
    // a fused multiply-add) and the largest kernels take cv::getGaussianKernel.
    std::vector<double> out;
    if (sigma > 0 && n <= kLargestHardwareKernel && softdoubleExpInHardware())
    {
        out.resize(n);
        gaussianKernelOf(softdoubleExpConstants(), n, sigma, out.data());
        // A value near the subnormal range could meet a flushing FPU (NaN fails the test too).
        if (std::all_of(out.begin(), out.end(), [](double v) { return v >= kSmallestHardwareTap; }))
            return out;
    }
    Mat k = getGaussianKernel(n, sigma, CV_64F);
    out.assign(k.ptr<double>(), k.ptr<double>() + n);
    return out;
}

Taps1D makeTaps(int ksize, double sigma, int fractionBits)
{
    Taps1D t;
    t.real = gaussianKernelBitExact(ksize, sigma);
    if (fractionBits == 0)
        return t;

    t.fixed.resize(ksize);
    fixedPointTapsOf(t.real.data(), ksize, fractionBits, t.fixed.data());
    return t;
}

}}} // namespace cv::cuda::gaussian
