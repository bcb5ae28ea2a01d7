#ifndef OPENCV_CUDAIMAGE_GAUSSIAN_BLUR_HPP
#define OPENCV_CUDAIMAGE_GAUSSIAN_BLUR_HPP

#include "opencv2/core/cuda.hpp"
#include "opencv2/cudafilters.hpp"

namespace cv { namespace cuda {

//! @addtogroup cudaimage_gaussian
//! @{

/** @brief Creates a Gaussian blur filter that matches CPU cv::GaussianBlur.

A drop-in for cv::cuda::createGaussianFilter (same parameters) without its limits, and with
clamped (BORDER_REPLICATE) borders by default.

- Types: CV_8U, CV_16U, CV_16S, CV_32F, CV_64F with 1 to 4 channels.
- Exactness: for CV_8U and CV_16U every output pixel is identical to CPU cv::GaussianBlur with the
  same arguments (the same fixed-point arithmetic: taps with 8 or 16 fraction bits quantised by
  error diffusion, integer sums, one rounding). CV_16S is within 1 level, CV_32F within
  1e-5 of the largest absolute input value, CV_64F within 1e-12 of it.
- Borders: CPU cv::GaussianBlur rejects BORDER_WRAP; here it gives the CPU result on the image padded
  with cv::copyMakeBorder(BORDER_WRAP).
- Kernel: any odd size from 1 to 2^20-1 in each direction; a zero size is derived from sigma with
  OpenCV's rule (gaussianKernelSize); sigma <= 0 is derived from the size by cv::getGaussianKernel;
  sigmaY <= 0 means sigmaX. Taps come from cv::getGaussianKernel.
- Sub-matrices: by default a source that is a region of a larger GpuMat reads the real pixels
  around it (as CPU cv::GaussianBlur does) and extrapolates only beyond the parent image. With
  BORDER_ISOLATED in a border mode, the region is treated as the whole image. For CV_8U/CV_16U
  sub-matrices without BORDER_ISOLATED the CPU switches to a floating-point path that depends on its
  SIMD width and rounds each tap separately; this filter keeps the fixed-point arithmetic, so it is
  identical to CPU cv::GaussianBlur(BORDER_ISOLATED) over the region grown by the kernel radius, and
  within 3 levels (the CPU's own error) of CPU cv::GaussianBlur on the sub-matrix itself.
- Streams: apply() is asynchronous on the given stream and never synchronises the host or the
  device. The taps are built on the host at creation. The fused paths take them as kernel
  parameters and allocate nothing; the two-pass path takes its taps and scratch image per call
  from a stream-ordered memory pool on the given stream, so nothing is kept per stream, every
  call (the first included) can be captured in a CUDA graph, and one filter object may be used
  from several streams at once.
- In place: `dst` may be the same matrix as `src`; a partial overlap is refused.

@param srcType Source type (see above).
@param dstType -1 or srcType, or CV_32FC(cn): the unrounded result as float (for 8U the exact
  fixed-point value; for 16U that value rounded once to float).
@param ksize Kernel size; each of width and height is 0 or odd and positive.
@param sigmaX Gaussian sigma in x; finite.
@param sigmaY Gaussian sigma in y; finite; <= 0 means sigmaX.
@param rowBorderMode Border in x: BORDER_REPLICATE (default), BORDER_REFLECT_101, BORDER_REFLECT,
  BORDER_WRAP, BORDER_CONSTANT (zeros), optionally | BORDER_ISOLATED.
@param columnBorderMode Border in y; -1 means rowBorderMode.

Invalid arguments raise cv::Exception naming the parameter, its value and what is allowed,
before any CUDA call.
@sa cv::GaussianBlur, cv::getGaussianKernel, cv::cuda::createGaussianFilter, gaussianKernelSize
 */
CV_EXPORTS_W Ptr<Filter> createGaussianBlur(int srcType, int dstType, Size ksize,
                                            double sigmaX, double sigmaY = 0,
                                            int rowBorderMode = BORDER_REPLICATE,
                                            int columnBorderMode = -1);

/** @brief Blurs a GpuMat with a Gaussian, like CPU cv::GaussianBlur (one-shot form).

Equivalent to `createGaussianBlur(src.type(), src.type(), ksize, sigmaX, sigmaY, borderType,
borderType)->apply(src, dst, stream)`; the filter is kept per thread and reused while the
arguments stay the same, so repeated calls allocate nothing.

@param src Source GpuMat (CV_8U, CV_16U, CV_16S, CV_32F or CV_64F; 1 to 4 channels).
@param dst Destination, same size and type as src; may be src itself.
@param ksize Kernel size (0 or odd per direction).
@param sigmaX Gaussian sigma in x.
@param sigmaY Gaussian sigma in y; <= 0 means sigmaX.
@param borderType Border mode (default BORDER_REPLICATE), optionally | BORDER_ISOLATED.
@param stream Stream for the asynchronous call.
@sa createGaussianBlur, cv::GaussianBlur
 */
CV_EXPORTS_W void GaussianBlur(InputArray src, OutputArray dst, Size ksize,
                               double sigmaX, double sigmaY = 0,
                               int borderType = BORDER_REPLICATE,
                               Stream& stream = Stream::Null());

/** @brief The kernel size CPU cv::GaussianBlur derives from sigma when it is given a size of 0.

OpenCV's rule: `cvRound(sigma * (depth == CV_8U ? 3 : 4) * 2 + 1) | 1`, i.e. about 3 sigma on each
side of the centre for 8-bit images and 4 sigma for the other depths, rounded half to even and made
odd. createGaussianBlur and GaussianBlur use it for a zero ksize.width (from sigmaX) or ksize.height
(from sigmaY, or sigmaX when sigmaY <= 0). Examples: sigma 2 gives 13 for CV_8U and 17 for the other
depths; sigma 0.05 gives 1 (no blur) for every depth.

@param sigma Gaussian sigma; finite and > 0, and small enough that the size before rounding stays
  within 2^20-1, the largest that createGaussianBlur accepts: sigma up to (2^20-2)/6 = 174762.33 for
  CV_8U, (2^20-2)/8 = 131071.75 for the other depths.
@param depth Depth of the image (not its type): CV_8U (default), CV_16U, CV_16S, CV_32F or CV_64F.
@return The kernel size: odd, from 1 to 2^20-1.

Invalid arguments raise cv::Exception naming the parameter, its value and what is allowed, the
same checks that createGaussianBlur applies to a size it derives. Needs no CUDA device.
@sa cv::GaussianBlur, cv::getGaussianKernel, createGaussianBlur
 */
CV_EXPORTS_W int gaussianKernelSize(double sigma, int depth = CV_8U);

//! @}

}} // namespace cv::cuda

#endif
