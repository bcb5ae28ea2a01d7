// What the host side of the Gaussian blur hands to its CUDA launchers (src/cuda/).
#ifndef CUDAIMAGE_GAUSSIAN_LAUNCH_HPP
#define CUDAIMAGE_GAUSSIAN_LAUNCH_HPP

#include <cstddef>
#include <cuda_runtime_api.h>

namespace cv { namespace cuda { namespace gaussian {

/** A separable pass plan. The source is described by its whole image (for sub-matrices: the
 * parent, so real pixels outside the ROI are used) and the ROI's offset in it.
 *
 * Pass 1 (rows) filters, for each j in [0, rows + 2*ry), whole-image row
 * mapRow(roiY - ry + j) horizontally into scratch row j (a zero row where the vertical border is
 * constant). Pass 2 (columns) filters scratch rows [y, y + 2*ry] into output row y, so it has no
 * border logic and works in place (the source is fully read before the destination is written). */
struct SeparablePlan
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
    bool dstAligned4 = false; //!< dst and dstStep are multiples of 4 output elements (vector stores)

    unsigned char* scratch = nullptr;  //!< (height + 2*ry) rows of width*channels work elements
    size_t scratchStep = 0;

    const void* tapsX = nullptr; int rx = 0; //!< 2*rx+1 taps on the device (uint32 fixed or float/double)
    const void* tapsY = nullptr; int ry = 0;
    int rowBorder = 0, columnBorder = 0;     //!< cv::BorderTypes without BORDER_ISOLATED

    const float* tapsXf = nullptr;           //!< the taps as float (fused path): 8U fixed-point integers, 16S/32F as CPU
    const float* tapsYf = nullptr;
};

/** Bytes of one scratch element for a source depth (the pass-1 result type). */
size_t scratchElemSize(int depth);

/** Enqueues both passes on `stream`; never synchronises. Any radius, and in place (the source
 * is fully read by pass 1 before pass 2 writes). Throws cv::Exception on launch errors. */
void runSeparable(const SeparablePlan& plan, cudaStream_t stream);

/** Whether the fused single-kernel path (src/cuda/gaussian_fused.cu) handles a case: depth 8U,
 * 16S or 32F (float is exact for 8U), 1 <= ry <= 8, and a staged row that fits in shared memory.
 * The caller also needs a destination outside the source's allocation. */
bool fusedApplies(int depth, int channels, int rx, int ry);

/** Fused path: one kernel, no scratch image. Not in place. */
void runFused(const SeparablePlan& plan, cudaStream_t stream);

}}} // namespace cv::cuda::gaussian

#endif
