// The Gaussian blur's argument checks, shared by its entry points: createGaussianBlur, the one-shot
// GaussianBlur and processBatchGaussian. Each entry point passes the names it gives its parameters,
// so that a bad argument is reported as its caller spelled it (createGaussianBlur's rowBorderMode is
// the one-shot's borderType), with its value and what is allowed. No check makes a CUDA call.
#ifndef CUDAIMAGE_GAUSSIAN_ARGUMENTS_HPP
#define CUDAIMAGE_GAUSSIAN_ARGUMENTS_HPP

#include <string>
#include "opencv2/core.hpp"

namespace cv { namespace cuda { namespace gaussian {

/** What an entry point calls its parameters. ksize.width, ksize.height, sigmaX and sigmaY are
 * spelled alike by every entry point and are not listed. */
struct ArgumentNames
{
    std::string function;       ///< opens the message: "cv::cuda::createGaussianBlur"
    std::string srcType;        ///< "srcType", or how the caller names the image whose type it is ("src type")
    std::string dstType;        ///< "dstType"
    std::string rowBorder;      ///< "rowBorderMode", or "borderType" where one border serves both directions
    std::string columnBorder;   ///< "columnBorderMode", or "borderType"
};

/** createGaussianBlur's names. */
const ArgumentNames& createGaussianBlurNames();

/** Throws cv::Exception naming the first bad argument (names.function, then the parameter as
 * `names` spell it, its value and what is allowed). dstType -1 means srcType; columnBorderMode -1
 * means rowBorderMode. */
void checkArguments(int srcType, int dstType, Size ksize, double sigmaX, double sigmaY,
                    int rowBorderMode, int columnBorderMode, const ArgumentNames& names);

}}} // namespace cv::cuda::gaussian

#endif
