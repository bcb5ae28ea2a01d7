// cv2 converters for cudaimage (included into cv2 after the generated type declarations).
#ifdef HAVE_OPENCV_CUDAIMAGE

#include "opencv2/cudaimage.hpp"

// SyncedMat is a shared handle: by-value and by-reference arguments copy the handle (the storage
// is shared), results become new Python objects sharing the storage.
CV_PY_TO_CLASS(cuda::SyncedMat)
CV_PY_FROM_CLASS(cuda::SyncedMat)

static const char* const kSyncedMatHostCapsule = "cv2.cuda.SyncedMat.host";

static void pyopencv_cudaimage_release_host_view(PyObject* capsule)
{
    delete static_cast<cv::Mat*>(PyCapsule_GetPointer(capsule, kSyncedMatHostCapsule));
}

// A NumPy array over the Mat's memory; its base is a capsule owning a Mat header, whose reference
// count keeps the page-locked memory alive after releaseHost() or the SyncedMat's end.
template<>
PyObject* pyopencv_from(const cv::cuda::SyncedMatHostArray& v)
{
    const cv::Mat& m = v.view;
    if (m.empty())
        Py_RETURN_NONE;
    int typenum;
    switch (m.depth())
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
    const int cn = m.channels();
    const int nd = cn == 1 ? 2 : 3;
    npy_intp dims[3] = { m.rows, m.cols, cn };
    npy_intp strides[3] = { (npy_intp)m.step[0], (npy_intp)m.elemSize(), (npy_intp)m.elemSize1() };
    PyObject* owner = PyCapsule_New(new cv::Mat(m), kSyncedMatHostCapsule, pyopencv_cudaimage_release_host_view);
    if (!owner)
        return NULL;
    PyObject* arr = PyArray_New(&PyArray_Type, nd, dims, typenum, strides, m.data, (int)m.elemSize1(),
                                v.writable ? NPY_ARRAY_WRITEABLE : 0, NULL);
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

#endif // HAVE_OPENCV_CUDAIMAGE
