// New images for a SyncedMat storage's two sides (synced_mat_storage.hpp). They are made apart from
// the storage and only the state machine commits them (allocateHost, allocateDevice, moveLocked in
// synced_mat_storage.cpp), so running out of memory leaves the object as it was.
#include "precomp.hpp"
#include "synced_mat_storage.hpp"

using namespace cv;
using namespace cv::cuda;
using cv::cuda::detail::typeName;

Mat SyncedMat::Impl::newHostImage(const char* func) const
{
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
    return m;
}

GpuMat SyncedMat::Impl::newDeviceImage(int device, const char* func) const
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
                                    "a %dx%d %s image: %s", func, payloadBytes(), device, size_.width,
                                    size_.height, typeName(type_).c_str(), e.err.c_str()));
    }
    return m;
}
