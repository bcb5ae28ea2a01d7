// The tensor-core path's per-architecture thresholds (the table's shape and lookup:
// src/gaussian_tuning.hpp): from which radius an 8U filter with byte taps takes this path instead
// of the CUDA-core fused kernels, for 1 channel and for 2-4 channels, where it measured at least as
// fast.
#ifndef CUDAIMAGE_PATHS_TENSOR_CORE_TUNING_HPP
#define CUDAIMAGE_PATHS_TENSOR_CORE_TUNING_HPP

#include "../../gaussian_tuning.hpp"

namespace cv { namespace cuda { namespace gaussian {

/** sm_90: from radius 9 for every channel count, where the CUDA-core fused kernel (radius 1..8) hands
 * over to the large-radius one. One channel, measured on an H100 with the edge-column fused kernel
 * (gaussian_bench --sweep, doc/design-record.md#tuning-tables): the fused kernel is faster up to radius 8
 * (16384^2: 0.333 against 0.435 ms at radius 6, 0.375 against 0.435 at 8; 3840x2160: 24 against
 * 37 us at 6), the tensor cores from 9 (0.553 against 0.794 ms; 1.72 against 5.46 ms at 128). 2-4
 * channels, the channel-planar kernel on the H200 (--sweep-types 8UC4,8UC3, doc/design-record.md#tensor-core-8u-alternatives): the
 * fused kernel faster up to radius 8 (8UC4 1.45 against 1.91 ms, 8UC3 1.09 against 1.63), the
 * tensor cores from 9 (8UC4 2.37 against 3.10 ms, 8UC3 1.96 against 2.32).
 * sm_86/89 never take the path (their 99 KiB of shared memory per block hold no tensor-core tile);
 * their rows only complete the table. */
constexpr tuning::RadiusThreshold kTensorCoreTuning[] = {
    {90, "H100, H200", true, 9, 9, "H100, 16384x16384 8UC1, radius 9: 0.553 against 0.794 ms on the CUDA cores; H200, 8UC4 / 8UC3 at radius 9: 2.37 / 1.96 against 3.10 / 2.32 ms"},
    {89, "L4, L40S, RTX 40xx", false, 9, 9, "sm_90's values; the tensor-core tile does not fit (99 KiB)"},
    {86, "A10, RTX 30xx", false, 9, 9, "sm_90's values; the tensor-core tile does not fit (99 KiB)"},
    {80, "A100", false, 9, 9, "sm_90's values, not measured on an A100"},
    {0, "any other", false, 9, 9, "sm_90's values, not measured there"},
};

/** The row for a device of compute capability `cc`. */
constexpr const tuning::RadiusThreshold& tensorCoreTuning(int cc) { return tuning::forArch(kTensorCoreTuning, cc); }

}}} // namespace cv::cuda::gaussian

#endif
