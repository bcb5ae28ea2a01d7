// What one apply() hands to the kernel path that blurs it: the images and the borders. Every path's
// launcher takes it; the two-pass path extends it with its own scratch (src/paths/two_pass).
#ifndef CUDAIMAGE_GAUSSIAN_BLUR_CALL_HPP
#define CUDAIMAGE_GAUSSIAN_BLUR_CALL_HPP

#include <cstddef>

namespace cv { namespace cuda { namespace gaussian {

/** One call's images. The source is described by its whole image (for sub-matrices: the parent, so
 * real pixels outside the ROI are used) and the ROI's offset in it. Passed to kernels by value. */
struct BlurCall
{
    int depth = 0;          //!< source depth (CV_8U, CV_16U, CV_16S, CV_32F, CV_64F)
    int channels = 1;
    bool floatOutput = false; //!< destination is CV_32F (unrounded) rather than the source depth

    const unsigned char* srcWhole = nullptr; //!< pixel (0,0) of the whole source image
    size_t srcStep = 0;
    int wholeWidth = 0, wholeHeight = 0;
    int roiX = 0, roiY = 0, width = 0, height = 0;

    unsigned char* dst = nullptr;
    size_t dstStep = 0;
    bool dstAligned4 = false;  //!< dst and dstStep are multiples of 4 output elements (vector stores)
    bool dstAligned16 = false; //!< dst and dstStep are multiples of 16 bytes (fused paths' item stores)
    bool srcAligned4 = false;  //!< srcWhole, srcStep and roiX*channels allow 4-element vector loads

    int rx = 0, ry = 0;        //!< the radii filtered with (0 in a direction not filtered across)
    bool unitX = false, unitY = false; //!< a single column / row not filtered across (one-tap kernel there)
    int rowBorder = 0, columnBorder = 0;     //!< cv::BorderTypes without BORDER_ISOLATED
};

}}} // namespace cv::cuda::gaussian

#endif
