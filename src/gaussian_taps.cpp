#include "precomp.hpp"
#include "gaussian_taps.hpp"

namespace cv { namespace cuda { namespace gaussian {

GaussianShape resolveShape(int depth, Size ksize, double sigmaX, double sigmaY)
{
    GaussianShape s;
    if (sigmaY <= 0)
        sigmaY = sigmaX;
    const double perSide = depth == CV_8U ? 3 : 4;
    if (ksize.width <= 0 && sigmaX > 0)
        ksize.width = cvRound(sigmaX * perSide * 2 + 1) | 1;
    if (ksize.height <= 0 && sigmaY > 0)
        ksize.height = cvRound(sigmaY * perSide * 2 + 1) | 1;
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
