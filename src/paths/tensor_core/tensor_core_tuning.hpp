// The tensor-core path's per-architecture thresholds (the table's shape and lookup:
// src/gaussian_tuning.hpp): from which radius an 8U filter with byte taps takes this path instead
// of the CUDA-core fused kernels, for 1 channel and for 2-4 channels, where it measured at least as
// fast.
#ifndef CUDAIMAGE_PATHS_TENSOR_CORE_TUNING_HPP
#define CUDAIMAGE_PATHS_TENSOR_CORE_TUNING_HPP

#include "../../gaussian_tuning.hpp"

namespace cv { namespace cuda { namespace gaussian {

struct TensorCoreTuning
{
    int computeCapability;   //!< 10 * major + minor; 0: the default row
    const char* gpus;
    int minRadius1;          //!< one channel
    int minRadiusN;          //!< 2 to 4 channels
    const char* basis;       //!< where the numbers come from

    constexpr int minRadius(int channels) const { return channels == 1 ? minRadius1 : minRadiusN; }
};

/** sm_90, measured on the H200 (16384^2 and 3840x2160, sweep of gaussian_bench --sweep, perf/NOTES.md
 * sections 7.2, 7.3): one channel from radius 6 (0.411 against 0.414 ms at 16384^2, 41 against
 * 49 us at 4K; 0.53 against 1.01 ms at radius 9, 1.75 against 7.42 ms at 128; at radius 1..5 the
 * small CUDA-core kernel is faster, 0.28-0.39 against ~0.41 ms). 2-4 channels from radius 9, where
 * it replaces the large-radius CUDA-core kernel (8UC3/8UC4 at sigma 5, 10, 30 faster); at radius 6
 * (sigma 2) it measured slower (8UC3 1.32 against ~1.05 ms, 8UC4 1.81 against ~1.36 ms).
 * sm_86/89 never take the path (their 99 KiB of shared memory per block hold no tensor-core tile);
 * their rows only complete the table. */
constexpr TensorCoreTuning kTensorCoreTuning[] = {
    {90, "H100, H200", 6, 9, "measured on the H200"},
    {89, "L4, L40S, RTX 40xx", 6, 9, "sm_90's values; the tensor-core tile does not fit (99 KiB)"},
    {86, "A10, RTX 30xx", 6, 9, "sm_90's values; the tensor-core tile does not fit (99 KiB)"},
    {80, "A100", 6, 9, "sm_90's values, not measured on an A100"},
};
constexpr TensorCoreTuning kTensorCoreDefaultTuning = {0, "any other", 6, 9, "sm_90's values, not measured there"};

/** The row for a device of compute capability `cc`. */
constexpr const TensorCoreTuning& tensorCoreTuning(int cc)
{
    return tuning::forArch(kTensorCoreTuning, kTensorCoreDefaultTuning, cc);
}

}}} // namespace cv::cuda::gaussian

#endif
