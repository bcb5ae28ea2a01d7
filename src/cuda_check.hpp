// CUDA runtime error checks that raise cv::Exception (Error::GpuApiCallError) with the call,
// the CUDA error name and text. Our own, so the sources need no OpenCV-private header and build
// both inside OpenCV and against an installed OpenCV.
#ifndef CUDAIMAGE_CUDA_CHECK_HPP
#define CUDAIMAGE_CUDA_CHECK_HPP

#include <cuda_runtime_api.h>
#include "opencv2/core/base.hpp"
#include "opencv2/core/utility.hpp"

namespace cv { namespace cuda { namespace detail {
inline void throwCudaError(cudaError_t err, const char* call, const char* func, const char* file, int line)
{
    cv::error(cv::Error::GpuApiCallError,
              cv::format("%s failed: %s (%s)", call, cudaGetErrorName(err), cudaGetErrorString(err)),
              func, file, line);
}
}}} // namespace cv::cuda::detail

#define CUDAIMAGE_CHECK(call)                                                                   \
    do {                                                                                        \
        const cudaError_t cudaimage_err_ = (call);                                              \
        if (cudaimage_err_ != cudaSuccess)                                                      \
            ::cv::cuda::detail::throwCudaError(cudaimage_err_, #call, CV_Func, __FILE__, __LINE__); \
    } while (0)

#endif
