#ifndef OPENCV_CUDAIMAGE_GAUSSIAN_BLUR_BATCH_HPP
#define OPENCV_CUDAIMAGE_GAUSSIAN_BLUR_BATCH_HPP

#include <vector>
#include "opencv2/core.hpp"
#include "opencv2/core/cuda.hpp"

namespace cv { namespace cuda {

//! @addtogroup cudaimage_gaussian
//! @{

/** @brief Gaussian blur of many device images at once, each image identical to cv::GaussianBlur on it.

A batch of N images of one type (same size or not) is blurred by a number of kernel launches that
does not grow with N: each image takes the kernel path it would take alone (createGaussianBlur),
and the images that share a path and its kernel instance go in one launch (the CUDA-core kernels:
one image per blockIdx.z; the tensor-core kernels: every image's tiles in one sequence that the
device's resident blocks take in turn, any radius in one launch). Each image may have its own kernel: per-image
sigmaX, sigmaY and ksize (an empty list: the filter's own; one value: every image; N values: one
per image). Every result equals what createGaussianBlur() with that image's kernel gives for it,
so the exactness of createGaussianBlur holds per image (8U/16U identical to CPU cv::GaussianBlur).

Each image's call and taps (built on the host, as createGaussianBlur builds them) go to the device in
one stream-ordered copy per apply() (a few hundred bytes per image; images of one kernel share their
taps), from page-locked staging that the filter keeps, into stream-ordered pool memory: apply() is
asynchronous on the caller's stream, never synchronises, and can be captured in a CUDA graph (a
captured call's descriptors are kept with the filter for the graph's replays).

Limits of the constant number of launches: images whose kernel radius exceeds the single-kernel
paths' range (see createGaussianBlur; radius above 128, or above 122 for 4 channels), images blurred
in place (dst the same view as src), and 1-row or 1-column images are blurred each by its own call of
the two-pass path (two launches per image). Several batch images may not write into another image's
source (StsBadArg).

One filter object may serve several streams; its calls are serialised by a lock (they are short:
the host work of a call).
 */
class CV_EXPORTS_W GaussianBatchFilter : public Algorithm
{
public:
    /** @brief Blurs a list of images.
    @param src Non-empty list of non-empty GpuMats of the filter's srcType (sizes may differ).
    @param dst Results: resized to src.size(); dst[i] of src[i]'s size and the filter's dstType is
      written in place (so it may wrap memory of a tensor), any other dst[i] is (re)allocated. dst[i]
      may be src[i] itself (in place, see the limits above).
    @param sigmaX Empty (the filter's), one value (every image) or src.size() values.
    @param sigmaY Same; a value <= 0 means that image's sigmaX.
    @param ksize Same; a zero width or height is derived from that image's sigma (OpenCV's rule).
    @param stream Stream for the asynchronous call.
    Bad input throws cv::Exception naming the image index and the parameter, before any CUDA call. */
    CV_WRAP virtual void apply(const std::vector<GpuMat>& src, CV_IN_OUT std::vector<GpuMat>& dst,
                               const std::vector<double>& sigmaX = std::vector<double>(),
                               const std::vector<double>& sigmaY = std::vector<double>(),
                               const std::vector<Size>& ksize = std::vector<Size>(),
                               Stream& stream = Stream::Null()) = 0;

    /** @brief Blurs N images stored one below the other in one matrix (a tensor's memory).

    Image n is rows [n * imageRows, (n + 1) * imageRows) of src, blurred as a whole image of its own
    (its borders are its own edges: BORDER_ISOLATED). An NHWC tensor (N, H, W, C) is a matrix of
    N * H rows, W columns and C channels with imageRows = H; an NCHW tensor (N, C, H, W) is N * C
    single-channel images of H rows (repeat each image's sigma C times).
    @param src Matrix of N * imageRows rows of the filter's srcType.
    @param dst Result, src's size and the filter's dstType; written in place when it has them
      (otherwise (re)allocated); may be src itself.
    @param imageRows Rows of one image, > 0, dividing src.rows.
    @param sigmaX Empty, one or N values (see apply()).
    @param sigmaY Empty, one or N values.
    @param ksize Empty, one or N values.
    @param stream Stream for the asynchronous call. */
    CV_WRAP virtual void applyStacked(const GpuMat& src, CV_IN_OUT GpuMat& dst, int imageRows,
                                      const std::vector<double>& sigmaX = std::vector<double>(),
                                      const std::vector<double>& sigmaY = std::vector<double>(),
                                      const std::vector<Size>& ksize = std::vector<Size>(),
                                      Stream& stream = Stream::Null()) = 0;

    //! @brief The type of the images the filter takes.
    /** @brief Blurs N stacked images (as applyStacked) with per-image sigmas that are read on the
    device: the host never sees them, so the call stays asynchronous, draws nothing from the host
    when the sigmas change, and a CUDA graph captured once replays with whatever values the sigma
    arrays hold at replay time. The taps are built on the device with the bits of
    cv::getGaussianKernel (8U/16U results identical to CPU cv::GaussianBlur with that image's sigma
    and ksize).

    Sigma values: a value that is not above 0 (zero, negative, NaN) means OpenCV's sigma for the
    kernel size (as sigma = 0 in cv::GaussianBlur); a sigmaY that is not above 0 is the image's
    sigmaX. The kernel size is fixed for the call (as torchvision's transforms fix it), so the paths
    are chosen without the sigmas; for 8U and 16U they are chosen as if a kernel might put all its
    weight on one tap (a sigma below about 0.3), which keeps the byte-product tensor-core paths out.
    @param src Matrix of N * imageRows rows of the filter's srcType; each image at least 2 x 2.
    @param dst Result, src's size and the filter's dstType; written in place when it has them
      (otherwise (re)allocated); may be src itself.
    @param imageRows Rows of one image, > 0, dividing src.rows.
    @param sigmaX Device array of CV_32FC1 or CV_64FC1 values, continuous, of 1 or of a divisor
      K of N values: value j serves images [j N / K, (j + 1) N / K) (so an NCHW tensor's C planes
      per image share their image's value). It must hold its values when `stream` reaches the call.
    @param sigmaY Empty (sigmaX) or as sigmaX (its own count).
    @param ksize Kernel size of every image: odd, 3 to 257 in each direction (at most the radius
      the single-kernel batched paths take for the channel count: 245 for 4 channels).
    @param stream Stream for the asynchronous call. */
    CV_WRAP virtual void applyStackedDeviceSigma(const GpuMat& src, CV_IN_OUT GpuMat& dst, int imageRows,
                                                 const GpuMat& sigmaX, const GpuMat& sigmaY, Size ksize,
                                                 Stream& stream = Stream::Null()) = 0;

    CV_WRAP virtual int srcType() const = 0;
    //! @brief The type of its results.
    CV_WRAP virtual int dstType() const = 0;
};

/** @brief Creates a batched Gaussian blur: the arguments of createGaussianBlur, whose ksize and
sigmas are each image's unless apply() gives per-image ones. Invalid arguments raise cv::Exception
naming the parameter, before any CUDA call.
@param srcType Source type: CV_8U, CV_16U, CV_16S, CV_32F or CV_64F with 1 to 4 channels.
@param dstType -1 or srcType, or CV_32FC(cn) (see createGaussianBlur).
@param ksize Default kernel size (0 or odd per direction).
@param sigmaX Default sigma in x.
@param sigmaY Default sigma in y; <= 0 means sigmaX.
@param rowBorderMode Border in x (default BORDER_REPLICATE), optionally | BORDER_ISOLATED.
@param columnBorderMode Border in y; -1 means rowBorderMode.
@sa createGaussianBlur, GaussianBlurBatch */
CV_EXPORTS_W Ptr<GaussianBatchFilter> createGaussianBlurBatch(int srcType, int dstType, Size ksize, double sigmaX,
                                                             double sigmaY = 0, int rowBorderMode = BORDER_REPLICATE,
                                                             int columnBorderMode = -1);

/** @brief Blurs a list of device images, each with its own sigma (one-shot form of
createGaussianBlurBatch; the filter is kept per thread while the type and border stay the same).
@param src Non-empty list of GpuMats of one type.
@param dst Results (see GaussianBatchFilter::apply).
@param sigmaX One value (every image) or src.size() values.
@param sigmaY Empty (sigmaX), one or src.size() values; <= 0 means sigmaX.
@param ksize Empty (derived from sigma), one or src.size() values.
@param borderType Border mode (default BORDER_REPLICATE), optionally | BORDER_ISOLATED.
@param stream Stream for the asynchronous call. */
CV_EXPORTS_W void GaussianBlurBatch(const std::vector<GpuMat>& src, CV_IN_OUT std::vector<GpuMat>& dst,
                                    const std::vector<double>& sigmaX,
                                    const std::vector<double>& sigmaY = std::vector<double>(),
                                    const std::vector<Size>& ksize = std::vector<Size>(),
                                    int borderType = BORDER_REPLICATE, Stream& stream = Stream::Null());

//! @}

}} // namespace cv::cuda

#endif
