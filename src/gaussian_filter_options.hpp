// Filters whose kernel paths' options (GaussianPaths::Options: the tensor-core switch, the fused
// kernel's strip rows) are given instead of read from the environment at creation: how the tests
// and benchmarks force a path without touching the process environment. Exported for them, not
// part of the API.
#ifndef CUDAIMAGE_GAUSSIAN_FILTER_OPTIONS_HPP
#define CUDAIMAGE_GAUSSIAN_FILTER_OPTIONS_HPP

#include "opencv2/cudaimage/gaussian_blur.hpp"
#include "opencv2/cudaimage/gaussian_blur_batch.hpp"
#include "gaussian_paths.hpp"

namespace cv { namespace cuda { namespace gaussian {

/** createGaussianBlur with these options. */
CV_EXPORTS Ptr<Filter> createGaussianBlurWithOptions(int srcType, int dstType, Size ksize, double sigmaX, double sigmaY,
                                                     int rowBorderMode, int columnBorderMode,
                                                     const GaussianPaths::Options& options);

/** createGaussianBlurBatch with these options. */
CV_EXPORTS Ptr<GaussianBatchFilter> createGaussianBlurBatchWithOptions(int srcType, int dstType, Size ksize, double sigmaX,
                                                                       double sigmaY, int rowBorderMode, int columnBorderMode,
                                                                       const GaussianPaths::Options& options);

}}} // namespace cv::cuda::gaussian

#endif
