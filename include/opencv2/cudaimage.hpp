/** @file
 * cudaimage: CUDA image processing for OpenCV.
 *  - cv::cuda::SyncedMat: a host (page-locked) and a device image kept in step, with explicit
 *    access modes, stream-ordered transfers and transfer counters.
 *  - cv::cuda::createGaussianBlur / cv::cuda::GaussianBlur: a cv::cuda::Filter that matches CPU
 *    cv::GaussianBlur (bit-exact for 8U and 16U), any kernel size, every depth and border.
 *  - cv::cuda::createGaussianBlurBatch / cv::cuda::GaussianBlurBatch: many device images (a tensor's
 *    or a list) at once, each with its own sigma, in a number of launches that does not grow with N.
 *  - cv::cuda::BatchProcessor / cv::cuda::processBatch: a filter applied to a list of images
 *    spread over every GPU of the host, results in input order.
 */
#ifndef OPENCV_CUDAIMAGE_HPP
#define OPENCV_CUDAIMAGE_HPP

#ifndef __cplusplus
#  error cudaimage.hpp header must be compiled as C++
#endif

/** @defgroup cudaimage CUDA image processing: synchronised images and Gaussian blur
  @{
    @defgroup cudaimage_syncedmat Host/device synchronised image
    @defgroup cudaimage_gaussian Gaussian blur
    @defgroup cudaimage_batch Batches over several GPUs
  @}
 */

#include "opencv2/cudaimage/synced_mat.hpp"
#include "opencv2/cudaimage/gaussian_blur.hpp"
#include "opencv2/cudaimage/gaussian_blur_batch.hpp"
#include "opencv2/cudaimage/batch.hpp"

#endif
