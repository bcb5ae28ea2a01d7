#ifndef OPENCV_CUDAIMAGE_GAUSSIAN_BLUR_HPP
#define OPENCV_CUDAIMAGE_GAUSSIAN_BLUR_HPP

#include "opencv2/core/cuda.hpp"
#include "opencv2/cudafilters.hpp"

namespace cv { namespace cuda {

//! @addtogroup cudaimage_gaussian
//! @{

CV_EXPORTS_W Ptr<Filter> createGaussianBlur(int srcType, int dstType, Size ksize,
                                            double sigmaX, double sigmaY = 0,
                                            int rowBorderMode = BORDER_REPLICATE,
                                            int columnBorderMode = -1);

CV_EXPORTS_W void GaussianBlur(InputArray src, OutputArray dst, Size ksize,
                               double sigmaX, double sigmaY = 0,
                               int borderType = BORDER_REPLICATE,
                               Stream& stream = Stream::Null());

//! @}

}} // namespace cv::cuda

#endif
