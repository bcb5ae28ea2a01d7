// cv2 glue for cudaimage, included into cv2 after the generated type declarations and converters.
#ifdef HAVE_OPENCV_CUDAIMAGE

#include "opencv2/cudaimage.hpp"

// SyncedMat is a shared handle: by-value and by-reference arguments copy the handle (the storage
// is shared); results become new Python objects sharing the storage.
CV_PY_TO_CLASS(cuda::SyncedMat)
CV_PY_FROM_CLASS(cuda::SyncedMat)

static const char* const kSyncedMatHostCapsule = "cv2.cuda.SyncedMat.host";

static void pyopencv_cudaimage_release_host_view(PyObject* capsule)
{
    delete static_cast<cv::Mat*>(PyCapsule_GetPointer(capsule, kSyncedMatHostCapsule));
}

// A NumPy array over the memory of `view`, whose base is a capsule owning a Mat header: its
// reference count keeps the page-locked memory alive. New reference, or NULL with a Python error.
static PyObject* pyopencv_cudaimage_host_array(const cv::Mat& view, bool writable)
{
    int typenum;
    switch (view.depth())
    {
    case CV_8U:  typenum = NPY_UBYTE; break;
    case CV_8S:  typenum = NPY_BYTE; break;
    case CV_16U: typenum = NPY_USHORT; break;
    case CV_16S: typenum = NPY_SHORT; break;
    case CV_32S: typenum = NPY_INT; break;
    case CV_32F: typenum = NPY_FLOAT; break;
    case CV_64F: typenum = NPY_DOUBLE; break;
    case CV_16F: typenum = NPY_HALF; break;
    default:
        PyErr_SetString(PyExc_TypeError, "SyncedMat host view: unsupported depth");
        return NULL;
    }
    const int cn = view.channels();
    const int nd = cn == 1 ? 2 : 3;
    npy_intp dims[3] = { view.rows, view.cols, cn };
    npy_intp strides[3] = { (npy_intp)view.step[0], (npy_intp)view.elemSize(), (npy_intp)view.elemSize1() };
    PyObject* owner = PyCapsule_New(new cv::Mat(view), kSyncedMatHostCapsule, pyopencv_cudaimage_release_host_view);
    if (!owner)
        return NULL;
    PyObject* arr = PyArray_New(&PyArray_Type, nd, dims, typenum, strides, view.data, (int)view.elemSize1(),
                                writable ? NPY_ARRAY_WRITEABLE : 0, NULL);
    if (!arr)
    {
        Py_DECREF(owner);
        return NULL;
    }
    if (PyArray_SetBaseObject((PyArrayObject*)arr, owner) < 0)  // steals owner
    {
        Py_DECREF(arr);
        return NULL;
    }
    return arr;
}

// The result is a Mat header over that array (NumPy allocator, no copy): cv2 converts it back to the
// very same array object.
cv::Mat cv::cuda::syncedMatHostView(cv::cuda::SyncedMat& m, int access)
{
    CV_CheckGE(access, 0, "syncedMatHostView: access must be 0 (read), 1 (write) or 2 (read-write)");
    CV_CheckLE(access, 2, "syncedMatHostView: access must be 0 (read), 1 (write) or 2 (read-write)");
    const cv::Mat view = access == 0 ? m.readHost() : access == 1 ? m.writeHost() : m.readWriteHost();
    PyEnsureGIL gil;    // the generated wrapper released it around this call
    PyObject* arr = pyopencv_cudaimage_host_array(view, access != 0);
    if (!arr)
    {
        PyErr_Clear();
        CV_Error(cv::Error::StsError, "syncedMatHostView: cannot create the NumPy array");
    }
    cv::Mat result;
    const bool ok = pyopencv_to(arr, result, ArgInfo("view", 0));
    Py_DECREF(arr);     // result holds its own reference
    if (!ok || result.data != view.data)
    {
        PyErr_Clear();
        CV_Error(cv::Error::StsError, "syncedMatHostView: the NumPy array could not be wrapped without a copy");
    }
    return result;
}

#endif // HAVE_OPENCV_CUDAIMAGE
