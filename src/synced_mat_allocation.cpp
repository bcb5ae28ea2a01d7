// Allocation of a SyncedMat storage's two images (synced_mat_storage.hpp). Each image is made in a
// temporary and committed only on success, so running out of memory leaves the object as it was.
#include "precomp.hpp"
#include "synced_mat_storage.hpp"

using namespace cv;
using namespace cv::cuda;
using cv::cuda::detail::typeName;

void SyncedMat::Impl::allocateHost(const char* func)
{
    if (!host_.empty())
        return;
    const int cur = getDevice();
    MatAllocator* pinned = HostMem::getAllocator(HostMem::PAGE_LOCKED);
    Mat m;
    m.allocator = pinned;
    String why;
    try
    {
        m.create(size_, type_);
        // Mat::create silently falls back to ordinary memory when a custom allocator throws
        // (e.g. the locked-memory limit of a container): refuse that, transfers would not be
        // asynchronous.
        if (!m.u || m.u->currAllocator != pinned)
            why = "cudaHostAlloc failed and OpenCV fell back to pageable memory";
    }
    catch (const cv::Exception& e)
    {
        why = e.err;
    }
    if (!why.empty())
    {
        m.release();
        (void)cudaGetLastError();
        CV_Error_(Error::StsNoMem, ("%s: cannot allocate %zu bytes of page-locked host memory for a "
                                    "%dx%d %s image: %s", func, payloadBytes(), size_.width,
                                    size_.height, typeName(type_).c_str(), why.c_str()));
    }
    host_ = m;
    if (device_ < 0)
        device_ = cur;
}

GpuMat SyncedMat::Impl::newDeviceImage(int cur, const char* func) const
{
    GpuMat m;
    try
    {
        m.create(size_, type_);
    }
    catch (const cv::Exception& e)
    {
        (void)cudaGetLastError();   // do not leave the error for the next launch check
        CV_Error_(Error::StsNoMem, ("%s: cannot allocate %zu bytes of device memory on device %d for "
                                    "a %dx%d %s image: %s", func, payloadBytes(), cur, size_.width,
                                    size_.height, typeName(type_).c_str(), e.err.c_str()));
    }
    return m;
}

void SyncedMat::Impl::allocateDevice(const char* func)
{
    if (!dev_.empty())
        return;
    const int cur = getDevice();
    dev_ = newDeviceImage(cur, func);
    if (device_ < 0)
        device_ = cur;
}
