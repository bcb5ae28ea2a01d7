// The tensor-core switch for the filters of one scope, and one blur on the device under it: what the
// tensor-core tests (test_gaussian_tensor_cores*.cpp) share.
#ifndef CUDAIMAGE_TEST_TENSOR_CORES_SWITCH_HPP
#define CUDAIMAGE_TEST_TENSOR_CORES_SWITCH_HPP

#include <cstdlib>
#include "test_precomp.hpp"

namespace cudaimage_test {

// OPENCV_CUDAIMAGE_TENSOR_CORES for the filters created in one scope (read at creation): "1" (the
// default: where the path measured faster), "all" (every radius it can take), "0" (never).
struct TensorCoresSwitch
{
    explicit TensorCoresSwitch(const char* mode) { setenv("OPENCV_CUDAIMAGE_TENSOR_CORES", mode, 1); }
    ~TensorCoresSwitch() { unsetenv("OPENCV_CUDAIMAGE_TENSOR_CORES"); }
};

// src blurred on the device with a (2 rx + 1) x (2 ry + 1) kernel (ry < 0: square), the switch at
// `tensorCores`, into dstView when given.
inline cv::Mat blurOnDevice(const cv::cuda::GpuMat& src, int dstType, int r, int border, const char* tensorCores,
                            cv::cuda::GpuMat* dstView = nullptr, int ry = -1)
{
    TensorCoresSwitch sw(tensorCores);
    cv::Ptr<cv::cuda::Filter> f = cv::cuda::createGaussianBlur(src.type(), dstType, cv::Size(2 * r + 1, 2 * (ry < 0 ? r : ry) + 1), 0, 0,
                                                               border, border);
    cv::cuda::GpuMat own;
    cv::cuda::GpuMat& d = dstView ? *dstView : own;
    f->apply(src, d);
    cv::Mat out;
    d.download(out);
    return out;
}

} // namespace cudaimage_test

#endif
