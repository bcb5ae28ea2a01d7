#include "precomp.hpp"
#include <cmath>
#include "gaussian_taps.hpp"

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

Taps1D makeTaps(int ksize, double sigma, int fractionBits)
{
    Taps1D t;
    Mat k = getGaussianKernel(ksize, sigma, CV_64F);
    t.real.assign(k.ptr<double>(), k.ptr<double>() + ksize);
    if (fractionBits == 0)
        return t;

    // Error diffusion as in OpenCV's getGaussianKernelFixedPoint_ED: walk the outer taps
    // carrying the rounding error inwards; the centre tap takes whatever makes the sum exact.
    // k[i] * 2^bits is exact in double, so the one rounding per step matches softdouble.
    const int64_t one = int64_t(1) << fractionBits;
    const int half = ksize / 2;
    t.fixed.assign(ksize, 0);
    double err = 0;
    int64_t sum = 0;
    for (int i = 0; i < half; i++)
    {
        const double adjusted = t.real[i] * double(one) + err;
        const int64_t v = cvRound(adjusted);
        err = adjusted - double(v);
        t.fixed[i] = t.fixed[ksize - 1 - i] = static_cast<uint32_t>(v);
        sum += v;
    }
    t.fixed[half] = static_cast<uint32_t>(one - 2 * sum);
    return t;
}

}}} // namespace cv::cuda::gaussian
