// The calling thread's stream capture mode, relaxed for one scope.
//
// While any stream captures into a CUDA graph in global mode (cudaStreamBeginCapture's default and
// strictest mode), every thread is refused "potentially unsafe" runtime calls, and a refused call
// also invalidates the capture. The calls a filter makes once, on its first apply() on a device,
// put no work on a stream but may be such calls (creating the memory pool, setting or asking for a
// kernel's attributes): they are made in relaxed mode, so that a first call can be captured. Never
// around stream work or allocations: a cudaMalloc that relaxed mode lets through would be baked
// into the graph, and its cudaFree would free memory the graph still uses.
#ifndef CUDAIMAGE_CUDA_CAPTURE_MODE_HPP
#define CUDAIMAGE_CUDA_CAPTURE_MODE_HPP

#include <cuda_runtime_api.h>
#include "../cuda_check.hpp"

namespace cv { namespace cuda { namespace gaussian {

class RelaxedCaptureMode
{
public:
    RelaxedCaptureMode() { CUDAIMAGE_CHECK(cudaThreadExchangeStreamCaptureMode(&mode_)); }
    ~RelaxedCaptureMode() { (void)cudaThreadExchangeStreamCaptureMode(&mode_); }   // the caller's mode again
    RelaxedCaptureMode(const RelaxedCaptureMode&) = delete;
    RelaxedCaptureMode& operator=(const RelaxedCaptureMode&) = delete;

private:
    cudaStreamCaptureMode mode_ = cudaStreamCaptureModeRelaxed;
};

}}} // namespace cv::cuda::gaussian

#endif
