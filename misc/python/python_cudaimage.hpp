// Python-only glue for cv::cuda::SyncedMat, compiled into cv2 (never into the library): OpenCV's
// binding generator parses misc/python/python_*.hpp and cv2 includes them. It exposes
//   cv2.cuda.syncedMatHostView(m, access) -> numpy.ndarray viewing the page-locked memory,
// used by cv2.cudaimage (misc/python/package/cudaimage) to make SyncedMat.readHost() & co.
// return views instead of copies. The NumPy conversion is in pyopencv_cudaimage.hpp.
#ifndef OPENCV_CUDAIMAGE_PYTHON_CUDAIMAGE_HPP
#define OPENCV_CUDAIMAGE_PYTHON_CUDAIMAGE_HPP

#include "opencv2/cudaimage.hpp"

namespace cv { namespace cuda {

//! A host view of a SyncedMat; cv2 converts it to a NumPy array over the same memory that keeps
//! the memory alive (read-only for access 0).
struct SyncedMatHostArray
{
    Mat view;
    bool writable;
};

/** @brief Python glue: a host access of @p m returned as a NumPy array viewing the page-locked
memory (no copy), alive as long as the array.
@param m The SyncedMat.
@param access 0: readHost() (read-only array), 1: writeHost(), 2: readWriteHost().
 */
CV_EXPORTS_W inline SyncedMatHostArray syncedMatHostView(SyncedMat& m, int access)
{
    CV_CheckGE(access, 0, "syncedMatHostView: access must be 0 (read), 1 (write) or 2 (read-write)");
    CV_CheckLE(access, 2, "syncedMatHostView: access must be 0 (read), 1 (write) or 2 (read-write)");
    SyncedMatHostArray r;
    r.view = access == 0 ? m.readHost() : access == 1 ? m.writeHost() : m.readWriteHost();
    r.writable = access != 0;
    return r;
}

}} // namespace cv::cuda

#endif
