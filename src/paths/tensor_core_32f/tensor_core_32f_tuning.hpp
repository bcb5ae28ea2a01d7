// The tensor-core-32f path's per-architecture threshold (the table's shape and lookup:
// src/gaussian_tuning.hpp): from which radius a filter takes this path instead of the CUDA-core
// kernels, where it measured at least as fast; each row names the GPU, image, type and times that
// set it, or says that it repeats another architecture's value unmeasured.
#ifndef CUDAIMAGE_PATHS_TENSOR_CORE_32F_TUNING_HPP
#define CUDAIMAGE_PATHS_TENSOR_CORE_32F_TUNING_HPP

#include "../../gaussian_tuning.hpp"

namespace cv { namespace cuda { namespace gaussian {

/** sm_90: from radius 13, measured on an H100 (gaussian_bench --sweep --sweep-types 32FC1,
 * doc/design-record.md#tuning-tables): 16384^2, the CUDA-core kernels faster up to radius 12 (0.83 against 1.18 ms at 1,
 * 1.27 against 1.34 at 12; at 10 the large-radius kernel's slower 1.52 against 1.34), the tensor
 * cores from 15 (1.46 against 1.63 ms; 4.52 against 5.89 at 90, 5.46 against 7.39 at 120). The
 * tile (104 KiB) fits sm_80 and sm_90; the A100 row repeats sm_90's value, unmeasured. */
constexpr tuning::RadiusThreshold kTensorCore32FTuning[] = {
    {90, "H100, H200", true, 13, 13, "H100, 16384x16384 32FC1, radius 12: 1.34 against 1.27 ms on the CUDA cores, radius 15: 1.46 against 1.63"},
    {80, "A100", false, 13, 13, "sm_90's value, not measured on an A100"},
    {0, "any other", false, 13, 13, "sm_90's value, not measured there"},
};
/** The row for a device of compute capability `cc`. */
constexpr const tuning::RadiusThreshold& tensorCore32FTuning(int cc) { return tuning::forArch(kTensorCore32FTuning, cc); }

}}} // namespace cv::cuda::gaussian

#endif
