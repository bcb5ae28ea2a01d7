// The switch of the tensor-core paths (src/paths/tensor_core, tensor_core_16u, tensor_core_32f),
// shared by the three units: a filter reads it once, at creation, into its options.
#ifndef CUDAIMAGE_TENSOR_CORE_MODE_HPP
#define CUDAIMAGE_TENSOR_CORE_MODE_HPP

#include <cstdlib>
#include <string>

namespace cv { namespace cuda { namespace gaussian {

/** OPENCV_CUDAIMAGE_TENSOR_CORES, read at filter creation: unset, 1/on/true/yes: the tensor-core
 * paths where they measured faster (each unit's tuning row); 0/off/false/no: never (the CUDA-core
 * kernels, same results); all: at every radius it can take (for comparisons). */
enum class TensorCoreMode { Off, Auto, All };

inline TensorCoreMode tensorCoreMode()
{
    const char* v = std::getenv("OPENCV_CUDAIMAGE_TENSOR_CORES");
    if (!v)
        return TensorCoreMode::Auto;
    const std::string s(v);
    if (s == "0" || s == "OFF" || s == "off" || s == "FALSE" || s == "false" || s == "NO" || s == "no")
        return TensorCoreMode::Off;
    return s == "all" || s == "ALL" ? TensorCoreMode::All : TensorCoreMode::Auto;
}

}}} // namespace cv::cuda::gaussian

#endif
