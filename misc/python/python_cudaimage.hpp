// Python-only glue for cv::cuda::SyncedMat. OpenCV's binding generator parses misc/python/python_*.hpp
// (so this declaration becomes cv2.cuda.syncedMatHostView) and cv2 includes it; the definition is in
// pyopencv_cudaimage.hpp, compiled into cv2 only (never into the library), next to the methods it
// adds to cv2.cuda.SyncedMat (readHost() & co. returning views, deviceArray(), DLPack).
// cv2.cudaimage.host_view() (misc/python/package/cudaimage) calls it.
#ifndef OPENCV_CUDAIMAGE_PYTHON_CUDAIMAGE_HPP
#define OPENCV_CUDAIMAGE_PYTHON_CUDAIMAGE_HPP

#include "opencv2/cudaimage.hpp"

namespace cv { namespace cuda {

/** @brief Python glue: a host access of @p m as a NumPy array viewing the page-locked memory (no
copy); the array keeps the memory alive (after releaseHost() or the end of the SyncedMat too).
@param m The SyncedMat.
@param access 0: readHost() (the array is read-only), 1: writeHost(), 2: readWriteHost().
 */
CV_EXPORTS_W Mat syncedMatHostView(SyncedMat& m, int access);

}} // namespace cv::cuda

#endif
