// The tensor-core-16u path's per-architecture threshold (the table's shape and lookup:
// src/gaussian_tuning.hpp): from which radius a filter takes this path instead of the CUDA-core
// kernels, where it measured at least as fast; each row names the GPU, image, type and times that
// set it, or says that it repeats another architecture's value unmeasured.
#ifndef CUDAIMAGE_PATHS_TENSOR_CORE_16U_TUNING_HPP
#define CUDAIMAGE_PATHS_TENSOR_CORE_16U_TUNING_HPP

#include "../../gaussian_tuning.hpp"

namespace cv { namespace cuda { namespace gaussian {

/** sm_90: from radius 9, measured on the H200 (gaussian_bench --sweep --sweep-types 16UC1,
 * doc/design-record.md#tuning-tables): 16384^2, the CUDA-core fused kernel faster up to radius 8 (0.80 against 0.93 ms),
 * the tensor cores from 9 (1.22 against 1.27 ms; 2.97 against 7.89 at 90). The other rows repeat
 * it, unmeasured: the tile needs 218 KiB of shared memory, which only sm_90 (and later) holds. */
constexpr tuning::RadiusThreshold kTensorCore16UTuning[] = {
    {90, "H100, H200", true, 9, 9, "H200, 16384x16384 16UC1, radius 9: 1.22 against 1.27 ms on the CUDA cores (radius 8: 0.93 against 0.80)"},
    {80, "A100", false, 9, 9, "sm_90's value; the tile (218 KiB) does not fit an A100 (163 KiB)"},
    {0, "any other", false, 9, 9, "sm_90's value, not measured there"},
};
/** The row for a device of compute capability `cc`. */
constexpr const tuning::RadiusThreshold& tensorCore16UTuning(int cc) { return tuning::forArch(kTensorCore16UTuning, cc); }

}}} // namespace cv::cuda::gaussian

#endif
