// Which CUDA device things belong to, and the checks that refuse mixing devices.
//
// A filter's taps and scratch images live on the device it was created on; a GpuMat lives on the
// device that allocated it; a stream belongs to one device. Mixing them is never silently right:
// with peer access a kernel may read another device's memory over NVLink, without it the kernel
// faults (and loses the CUDA context). So objects record their device and refuse the others,
// with a message that names both devices.
#ifndef CUDAIMAGE_DEVICE_CHECK_HPP
#define CUDAIMAGE_DEVICE_CHECK_HPP

#include <atomic>
#include <cuda_runtime_api.h>
#include "opencv2/core.hpp"
#include "opencv2/core/cuda.hpp"

namespace cv { namespace cuda { namespace detail {

/** The calling thread's current device, or -1 when CUDA has no usable device (no driver, no GPU).
Never throws and leaves no CUDA error pending, so it may run before argument checks are done. */
int currentDeviceOrNone() noexcept;

/** The number of CUDA devices this process sees (0 without a driver or device); asked once. */
int visibleDeviceCount() noexcept;

/** The device whose memory @p ptr points into, or -1 for memory every device may use (managed,
page-locked host, ordinary host memory, or a pointer CUDA cannot classify: not ours to judge). */
int memoryDevice(const void* ptr);

/** Whether @p ptr is page-locked host memory (cudaHostAlloc, cudaHostRegister, cv::cuda::HostMem):
copies from and to it are asynchronous and need no staging. */
bool isPageLocked(const void* ptr);

/** The device @p stream belongs to, or -1 for the legacy and per-thread default streams (they
follow the calling thread's current device). */
int streamDevice(cudaStream_t stream);

/** The device an object was created on, and the check that what it is given lives there.

Recording needs no usable device (a filter can be created on a machine without a driver, where
only its argument checks run); an object created without one binds to the device of its first
check. */
class DeviceBinding
{
public:
    DeviceBinding() noexcept : device_(currentDeviceOrNone()) {}

    int device() const noexcept { return device_.load(); }

    /** Throws cv::Exception (StsBadArg) naming both devices when the calling thread's current
    device is not the recorded one, or @p src, a non-empty GpuMat @p dst or @p stream belongs to
    another device. @p func starts the message. */
    void check(const GpuMat& src, const _OutputArray& dst, Stream& stream, const char* func) const;

private:
    mutable std::atomic<int> device_;
};

/** Makes @p device the calling thread's current device for the scope (nothing when it already
is), and restores the previous one. */
class DeviceGuard
{
public:
    explicit DeviceGuard(int device);
    ~DeviceGuard();
    DeviceGuard(const DeviceGuard&) = delete;
    DeviceGuard& operator=(const DeviceGuard&) = delete;

private:
    int previous_ = -1;
};

/** Enables peer access between devices @p a and @p b in both directions where the hardware allows
(cudaDeviceCanAccessPeer), once per process; copies between them then go device to device
(NVLink or PCIe peer-to-peer) instead of through host memory. Returns whether @p b can read @p a
directly. Never disables it again, and a refusal is not an error (copies are then staged
through host memory by CUDA). */
bool enablePeerAccess(int a, int b);

/** Number of CUDA devices, or a cv::Exception (StsError) saying there is none. */
int deviceCountOrThrow(const char* func);

}}} // namespace cv::cuda::detail

#endif
