// The one way src/ launches a kernel: launchChecked(name, kernel, grid, block, sharedBytes, stream,
// args...) enqueues it with cudaLaunchKernelEx and turns that launch's own error (a bad
// configuration, no code for the device, too much shared memory, a sticky error of the context)
// into a cv::Exception naming the kernel; a launch that succeeded is reported to the tests' observer
// (launch_record.hpp).
//
// Why not <<<...>>> and cudaGetLastError(): the last error also holds what unrelated earlier work
// left pending (a caught allocation failure of the caller's own GpuMat, say), so a check after the
// launch would report it as ours, and clearing it before the launch would throw the caller's error
// away. The launch's return value is the launch's alone: nothing is cleared before, nothing of
// another call is reported. scripts/ci/check-launches.sh keeps src/ free of any other launch.
#ifndef CUDAIMAGE_CUDA_CHECKED_LAUNCH_CUH
#define CUDAIMAGE_CUDA_CHECKED_LAUNCH_CUH

#include <utility>
#include <cuda_runtime.h>
#include "../cuda_check.hpp"
#include "../launch_record.hpp"

namespace cv { namespace cuda { namespace gaussian {

template <class... Params, class... Args>
void launchChecked(const char* name, void (*kernel)(Params...), dim3 grid, dim3 block, size_t sharedBytes,
                   cudaStream_t stream, Args&&... args)
{
    cudaLaunchConfig_t config = {};
    config.gridDim = grid;
    config.blockDim = block;
    config.dynamicSmemBytes = sharedBytes;
    config.stream = stream;
    const cudaError_t err = cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...);
    if (err != cudaSuccess)
    {
        // The launch's error is also the runtime's last error now: it is reported here, so it must
        // not meet the caller's next check a second time.
        (void)cudaGetLastError();
        detail::throwCudaError(err, cv::format("launch of %s", name).c_str(), CV_Func, __FILE__, __LINE__);
    }
    recordLaunch(name, static_cast<unsigned long long>(grid.x) * grid.y * grid.z);
}

}}} // namespace cv::cuda::gaussian

#endif
