// cv::exp(cv::softdouble) computed in hardware double arithmetic, bit for bit.
//
// CPU cv::GaussianBlur builds its taps with cv::getGaussianKernel, in OpenCV's software double
// (softfloat.cpp). Its add, mul and div are IEEE 754 operations rounded to nearest even, exactly
// what the FPU does; its exp is OpenCV's own table-and-polynomial algorithm (f64_exp), made of
// such operations. So the whole kernel can be computed with hardware doubles and the same bits
// come out, about 30 times faster: a batch that draws a new sigma for every image builds its taps
// in the time of its upload. This file holds that exp; gaussian_taps.cpp the rest of the kernel.
//
// Conditions for the same bits, each checked where it is used: round-to-nearest mode, no excess
// precision (FLT_EVAL_METHOD 0), no fused multiply-add (every product is stored before it is
// added: rounded() below), no flush of subnormals (arguments whose result is near the subnormal
// range take cv::exp itself). And a self-check: the first call compares this exp with cv::exp on
// arguments that reach every table entry; should any differ, cv::exp is used for the process.
#ifndef CUDAIMAGE_SOFTDOUBLE_EXP_HPP
#define CUDAIMAGE_SOFTDOUBLE_EXP_HPP

#include "opencv2/core/cvdef.h"
#include "gaussian_kernel_bits.hpp"

namespace cv { namespace cuda { namespace gaussian {

/** A product or sum forced to memory: the compiler cannot fuse it into a multiply-add (which
 * rounds once where OpenCV's software double rounds twice). */
inline double rounded(double v)
{
    volatile double r = v;
    return r;
}

/** cv::exp(cv::softdouble(x)), bit for bit, for x <= 0 (the taps' arguments). Exported for the
 * tests, as the two below; not part of the API. */
CV_EXPORTS double softdoubleExp(double x);

/** The hardware evaluation alone, for callers that asked softdoubleExpInHardware() once for many
 * arguments: cv::exp(cv::softdouble(x)) bit for bit, or NaN where it could differ (a result at or
 * below 2^-960, where a subnormal intermediate could meet a flush-to-zero FPU). */
CV_EXPORTS double softdoubleExpHardware(double x);

/** The exp's constants (checked against cv::exp by the self-check), for device code. */
CV_EXPORTS const SoftdoubleExpConstants& softdoubleExpConstants();

/** Whether softdoubleExp() runs in hardware arithmetic (false: it calls cv::exp, because the
 * self-check or the floating-point environment ruled the hardware out). For the tests. */
CV_EXPORTS bool softdoubleExpInHardware();

}}} // namespace cv::cuda::gaussian

#endif
