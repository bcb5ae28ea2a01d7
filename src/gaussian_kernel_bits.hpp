// cv::getGaussianKernel's bits and OpenCV's fixed-point taps, in code that compiles for the host
// and for the device: the host builds a filter's taps with it (gaussian_taps.cpp), the device a
// batch's taps from sigmas it was given or reads itself (src/cuda/batch_tap_maker.cuh).
//
// OpenCV computes the kernel in its software double (softfloat.cpp), whose add, mul and div are
// IEEE 754 operations rounded to nearest even; its exp is a table-and-polynomial algorithm made of
// such operations (softdouble_exp.hpp). Every operation below is one IEEE operation rounded once:
// on the device the _rn intrinsics (never contracted into a multiply-add), on the host a store to
// a volatile (softdouble_exp.hpp's rounded()). GPUs compute doubles with subnormals and in
// round-to-nearest, so on the device the result is OpenCV's for every argument; the host guards
// against a flushing FPU where it calls this (softdoubleExpHardware).
#ifndef CUDAIMAGE_GAUSSIAN_KERNEL_BITS_HPP
#define CUDAIMAGE_GAUSSIAN_KERNEL_BITS_HPP

#include <cstdint>
#include <cstring>
#include <cmath>
#include "gaussian_tile.hpp"

namespace cv { namespace cuda { namespace gaussian {

/** The constants of OpenCV's f64_exp: its 64-entry table of 2^(i/64), the polynomial's
 * coefficients (x^5 .. x^0, divided by polyScale) and the scales. Built and checked on the host
 * (softdouble_exp.cpp), passed to device code by value. */
struct SoftdoubleExpConstants
{
    static constexpr int kTableBits = 6;
    double polyScale = 0, prescale = 0, postscale = 0, maxValue = 0;
    double poly[6] = {};
    double table[1 << kTableBits] = {};
};

namespace ieee {

CUDAIMAGE_HOST_DEVICE inline double mul(double a, double b)
{
#if defined(__CUDA_ARCH__)
    return __dmul_rn(a, b);
#else
    volatile double r = a * b;
    return r;
#endif
}

CUDAIMAGE_HOST_DEVICE inline double add(double a, double b)
{
#if defined(__CUDA_ARCH__)
    return __dadd_rn(a, b);
#else
    volatile double r = a + b;
    return r;
#endif
}

CUDAIMAGE_HOST_DEVICE inline double sub(double a, double b) { return add(a, -b); }

CUDAIMAGE_HOST_DEVICE inline double div(double a, double b)
{
#if defined(__CUDA_ARCH__)
    return __ddiv_rn(a, b);
#else
    volatile double r = a / b;
    return r;
#endif
}

/** a * b + c rounded once (softfloat's mulAdd). */
CUDAIMAGE_HOST_DEVICE inline double fusedMulAdd(double a, double b, double c)
{
#if defined(__CUDA_ARCH__)
    return __fma_rn(a, b, c);
#else
    return std::fma(a, b, c);
#endif
}

/** Round half to even, to an integral double (the default rounding mode on the host). */
CUDAIMAGE_HOST_DEVICE inline double roundEven(double v)
{
#if defined(__CUDA_ARCH__)
    return rint(v);
#else
    return std::nearbyint(v);
#endif
}

CUDAIMAGE_HOST_DEVICE inline uint64_t bitsOf(double d)
{
#if defined(__CUDA_ARCH__)
    return static_cast<uint64_t>(__double_as_longlong(d));
#else
    uint64_t b;
    std::memcpy(&b, &d, sizeof b);
    return b;
#endif
}

CUDAIMAGE_HOST_DEVICE inline double fromBits(uint64_t b)
{
#if defined(__CUDA_ARCH__)
    return __longlong_as_double(static_cast<long long>(b));
#else
    double d;
    std::memcpy(&d, &b, sizeof d);
    return d;
#endif
}

} // namespace ieee

/** The exponent t of the power of two that scales exp(x) (0 .. 2047; 0: the result is zero). */
CUDAIMAGE_HOST_DEVICE inline int softdoubleExpScale(const SoftdoubleExpConstants&, double x0)
{
    const int n = static_cast<int>(ieee::roundEven(x0));
    const int t = (n >> SoftdoubleExpConstants::kTableBits) + 1023;
    return t < 0 ? 0 : (t > 2047 ? 2047 : t);
}

/** x * 64 / ln 2, clamped as f64_exp clamps it (|x| >= 2048), for a finite x. */
CUDAIMAGE_HOST_DEVICE inline double softdoubleExpArgument(const SoftdoubleExpConstants& c, double x)
{
    const uint64_t b = ieee::bitsOf(x);
    if (((b >> 52) & 0x7ff) > 1023 + 10)
        return (b >> 63) ? -c.maxValue : c.maxValue;
    return ieee::mul(x, c.prescale);
}

/** OpenCV's f64_exp (cv::exp(cv::softdouble)) step for step. */
CUDAIMAGE_HOST_DEVICE inline double softdoubleExpOf(const SoftdoubleExpConstants& c, double x)
{
    const uint64_t b = ieee::bitsOf(x);
    if (((b >> 52) & 0x7ff) == 0x7ff)                       // NaN, or an infinity
        return (b & 0xfffffffffffffull) ? x : ((b >> 63) ? 0.0 : x);
    const double x0 = softdoubleExpArgument(c, x);
    const double nearest = ieee::roundEven(x0);
    const int n = static_cast<int>(nearest);
    const double scale = ieee::fromBits(static_cast<uint64_t>(softdoubleExpScale(c, x0)) << 52);
    const double y = ieee::mul(ieee::sub(x0, nearest), c.postscale);
    double p = c.poly[0];
    for (int k = 1; k < 6; k++)
        p = ieee::add(ieee::mul(p, y), c.poly[k]);
    return ieee::mul(ieee::mul(ieee::mul(scale, c.polyScale), c.table[n & ((1 << SoftdoubleExpConstants::kTableBits) - 1)]), p);
}

/** cv::getGaussianKernel(n, sigma <= 0)'s fixed kernels (n = 1, 3, 5, 7, 9): value i of n, or 0
 * where OpenCV derives the kernel from sigma = 0.15 n + 0.35 (gaussianSigmaFromSize). */
CUDAIMAGE_HOST_DEVICE inline double smallGaussianTap(int n, int i)
{
    const int half = n / 2, k = i <= half ? i : n - 1 - i;   // symmetric
    switch (n)
    {
    case 1: return 1.0;
    case 3: return k == 0 ? 0.25 : 0.5;
    case 5: return k == 0 ? 0.0625 : k == 1 ? 0.25 : 0.375;
    case 7: return k == 0 ? 0.03125 : k == 1 ? 0.109375 : k == 2 ? 0.21875 : 0.28125;
    case 9: return (k == 0 ? 4 : k == 1 ? 13 : k == 2 ? 30 : k == 3 ? 51 : 60) / 256.0;
    default: return 0;
    }
}

/** Whether cv::getGaussianKernel(n, sigma) is one of its fixed kernels. */
CUDAIMAGE_HOST_DEVICE inline bool isSmallGaussian(int n, double sigma) { return !(sigma > 0) && n <= 9 && (n & 1); }

/** OpenCV's sigma for a kernel of n taps given sigma <= 0: 0.15 n + 0.35, one rounding. */
CUDAIMAGE_HOST_DEVICE inline double gaussianSigmaFromSize(int n) { return ieee::fusedMulAdd(static_cast<double>(n), 0.15, 0.35); }

/** -1 / (8 sigma^2) of getGaussianKernelBitExact, sigma > 0 (else from n). */
CUDAIMAGE_HOST_DEVICE inline double gaussianScale2X(int n, double sigma)
{
    const double s = sigma > 0 ? sigma : gaussianSigmaFromSize(n);
    return ieee::div(-0.125, ieee::mul(s, s));
}

/** Unnormalised value i (0 <= i < (n - 1) / 2) of the kernel: exp(x^2 * scale2X), x = 2i + 1 - n. */
CUDAIMAGE_HOST_DEVICE inline double gaussianTapExp(const SoftdoubleExpConstants& c, int n, int i, double scale2X)
{
    const int x = 2 * i + 1 - n;
    return softdoubleExpOf(c, ieee::mul(static_cast<double>(x * x), scale2X));
}

/** 1 / sum of the kernel from its unnormalised values v[0 .. (n - 1) / 2), summed in OpenCV's order. */
CUDAIMAGE_HOST_DEVICE inline double gaussianNormaliser(const double* v, int n)
{
    const int half = (n - 1) / 2;
    double sum = 0;
    for (int i = 0; i < half; i++)
        sum = ieee::add(sum, v[i]);
    sum = ieee::mul(sum, 2.0);
    sum = ieee::add(sum, 1.0);
    if ((n & 1) == 0)
        sum = ieee::add(sum, 1.0);
    return ieee::div(1.0, sum);
}

/** cv::getGaussianKernel(n, sigma, CV_64F) into out[0 .. n), n >= 1, bit for bit (any sigma: <= 0
 * takes OpenCV's fixed kernels or its sigma from n). One thread's loop; the device's tap maker
 * spreads the exps over a block with the same steps. */
CUDAIMAGE_HOST_DEVICE inline void gaussianKernelOf(const SoftdoubleExpConstants& c, int n, double sigma, double* out)
{
    if (isSmallGaussian(n, sigma))
    {
        for (int i = 0; i < n; i++)
            out[i] = smallGaussianTap(n, i);
        return;
    }
    const double scale2X = gaussianScale2X(n, sigma);
    const int half = (n - 1) / 2;
    for (int i = 0; i < half; i++)
        out[i] = gaussianTapExp(c, n, i, scale2X);
    const double mul1 = gaussianNormaliser(out, n);
    for (int i = 0; i < half; i++)
        out[i] = out[n - 1 - i] = ieee::mul(out[i], mul1);
    out[half] = mul1;
    if ((n & 1) == 0)
        out[half + 1] = mul1;
}

/** OpenCV's getGaussianKernelFixedPoint_ED: the odd kernel `real` of n taps quantised to
 * `fractionBits` bits, the rounding error carried inwards from the outer taps, the centre taking
 * whatever makes the sum exactly 1 << fractionBits. real[i] * 2^bits is exact, so each step rounds
 * once, as softdouble's. */
CUDAIMAGE_HOST_DEVICE inline void fixedPointTapsOf(const double* real, int n, int fractionBits, uint32_t* out)
{
    const int64_t one = int64_t(1) << fractionBits;
    const int half = n / 2;
    double err = 0;
    int64_t sum = 0;
    for (int i = 0; i < half; i++)
    {
        const double adjusted = ieee::add(ieee::mul(real[i], static_cast<double>(one)), err);
        const int64_t v = static_cast<int64_t>(ieee::roundEven(adjusted));
        err = ieee::sub(adjusted, static_cast<double>(v));
        out[i] = out[n - 1 - i] = static_cast<uint32_t>(v);
        sum += v;
    }
    out[half] = static_cast<uint32_t>(one - 2 * sum);
}

}}} // namespace cv::cuda::gaussian

#endif
