// From a filter and one image to what the path choice and the kernels need (PathQuery, BlurCall),
// shared by the single-image filter (gaussian_blur.cpp) and the batch (gaussian_blur_batch.cpp), so
// that an image of a batch is described exactly as apply() describes it.
#ifndef CUDAIMAGE_GAUSSIAN_CALL_HPP
#define CUDAIMAGE_GAUSSIAN_CALL_HPP

#include "opencv2/core/cuda.hpp"
#include "gaussian_blur_call.hpp"
#include "gaussian_paths.hpp"

namespace cv { namespace cuda { namespace gaussian {

/** What the path choice needs of the current device, queried once per device (a call costs one
 * cudaGetDevice for it): the shared facts, and each path unit's own (GaussianPaths::deviceFacts). */
struct DeviceLimits
{
    size_t sharedMemOptIn = 0;   //!< opt-in shared memory per block, which bounds the fused kernels'
                                 //!< tiles: 64 KiB on sm_75, 99 KiB on sm_86/89, 163 KiB on sm_80, 227 KiB on sm_90
    int multiprocessors = 0;     //!< SMs, which size persistent grids (132 on the H100/H200 SXM)
    int computeCapability = 0;   //!< 10 * major + minor: the row of each path's tuning table
    GaussianPaths::DeviceFacts paths;
};

/** The current device's limits (a CUDA call: only after the argument checks). */
const DeviceLimits& deviceLimits();

/** What a filter fixes for all its calls: types, borders and the kernel's radii. */
struct FilterShape
{
    int srcType = 0, dstType = 0;
    int rowBorder = BORDER_REPLICATE, columnBorder = BORDER_REPLICATE;   //!< without BORDER_ISOLATED
    bool isolated = false;
    int rx = 0, ry = 0;                                                  //!< ksize / 2
    bool horizontalTapsBelowOne = true, verticalTapsBelowOne = true;       //!< tapsBelowOne()
};

/** The taps CPU cv::GaussianBlur builds for these (checked: checkArguments) arguments. Host only.
 * Exported for the tests (test/test_gaussian_taps_bit_exact.cpp), not part of the API. */
CV_EXPORTS FilterTaps filterTaps(int srcType, Size ksize, double sigmaX, double sigmaY);

/** A filter's shape from its taps and its (checked) arguments: dstType -1 is srcType,
 * columnBorderMode -1 is rowBorderMode, BORDER_ISOLATED in either makes the filter isolated. */
FilterShape filterShape(const FilterTaps& taps, int srcType, int dstType, int rowBorderMode, int columnBorderMode);

/** The same from the kernel's size and whether its fixed-point taps are below one (tapsBelowOne),
 * for a kernel whose taps the device builds. */
FilterShape filterShape(Size ksize, bool horizontalTapsBelowOne, bool verticalTapsBelowOne, int srcType, int dstType,
                        int rowBorderMode, int columnBorderMode);

/** Throws cv::Exception (StsOutOfRange) when `src`'s rows or row length exceed what the kernels
 * index (the two-pass path's scratch rows bound the row too). No CUDA call. */
void checkImageFits(const GpuMat& src, int srcType, int ksizeHeight, const char* function);

/** Throws cv::Exception (StsBadArg) when `dst` (allocated, of `src`'s size and `dstType`) partly
 * overlaps `src`: in place (the same view) is fine. No CUDA call. */
void checkNoPartialOverlap(const GpuMat& src, const GpuMat& dst, int dstType, const char* function);

/** One image's call and query: `src` read as CPU cv::GaussianBlur reads it (a ROI's real
 * neighbours unless the filter is isolated; a single row or column not filtered across), written to
 * `dst` (allocated). The query's device fields come from `limits`. No CUDA call. */
BlurCall describeCall(const GpuMat& src, const GpuMat& dst, const FilterShape& f, const DeviceLimits& limits, PathQuery& q);

/** The query's fields that come from the kernel (its radii, whether its taps fit a byte). */
void setKernel(PathQuery& q, const FilterShape& f);

/** The call of another image of `call`'s size, types, steps, class and kernel radii: whole images
 * (no ROI) at `src` and `dst`, their vector-access flags recomputed. No CUDA call. */
BlurCall movedCall(const BlurCall& call, const unsigned char* src, unsigned char* dst);

}}} // namespace cv::cuda::gaussian

#endif
