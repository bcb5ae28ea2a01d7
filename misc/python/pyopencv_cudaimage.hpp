// cv2 glue for cudaimage, included into cv2 after the generated type declarations and converters
// (and before the generated method tables, which pick up PYOPENCV_EXTRA_METHODS_cuda_SyncedMat).
//
// What lives here, and not in Python: everything Python-specific about cv2.cuda.SyncedMat, and
// cv2.cuda.DeviceInfo.name(), which OpenCV does not wrap (cv2.cudaimage.device_name() uses it).
// - host views: readHost() / writeHost() / readWriteHost() return NumPy arrays over the page-locked
//   memory (the generated methods would return copies), readHostCopy() a copy;
// - device exchange: __dlpack__ / __dlpack_device__ on SyncedMat, and deviceArray(), which returns a
//   cv2.cudaimage.DeviceArray: the explicit device view that carries __cuda_array_interface__.
// They are entries of the type's own method table, as OpenCV does for GpuMat.__dlpack__
// (modules/core/misc/python/pyopencv_cuda.hpp): they exist as soon as the type does, with static
// and heap types alike, so there is nothing to attach at import and nothing that can fail silently.
//
// Why SyncedMat itself has no __cuda_array_interface__: CuPy (every ufunc argument), Numba
// (is_cuda_array) and PyTorch (as_tensor) *probe* for that attribute with hasattr() on whatever they
// are given. Producing it needs a device pointer, i.e. a device access (an upload when the host is
// newer), and says nothing of whether the consumer will write (PyTorch even refuses the read-only
// flag). So the attribute is on the object an explicit access returns, where the intent is known;
// probing a SyncedMat costs nothing. __dlpack__ stays on SyncedMat: it is called only to consume.
#ifdef HAVE_OPENCV_CUDAIMAGE

#include "opencv2/cudaimage.hpp"
#include "dlpack/dlpack.h"   // OpenCV's 3rdparty copy; cv2 has it on its include path (core's glue uses it)

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

namespace pycv_cudaimage {

using cv::cuda::GpuMat;
using cv::cuda::Stream;
using cv::cuda::SyncedMat;

// --- shared helpers -----------------------------------------------------------------------------

static SyncedMat* selfSyncedMat(PyObject* self)
{
    cv::Ptr<SyncedMat>* p = 0;
    if (!pyopencv_cuda_SyncedMat_getp(self, p) || !p || !*p)
    {
        failmsgp("Incorrect type of self (must be 'cuda_SyncedMat' or its derivative)");
        return 0;
    }
    return p->get();
}

// The CUDA array interface's "typestr" of an OpenCV depth; NULL for the depths NumPy cannot name.
static const char* caiTypestr(int depth)
{
    switch (depth)
    {
    case CV_8U:  return "|u1";
    case CV_8S:  return "|i1";
    case CV_16U: return "<u2";
    case CV_16S: return "<i2";
    case CV_32S: return "<i4";
    case CV_32F: return "<f4";
    case CV_64F: return "<f8";
    case CV_16F: return "<f2";
    default:     return 0;
    }
}

// DLPack's type of an OpenCV depth; false for depths this export does not describe.
static bool dlpackType(int depth, DLDataType& t)
{
    t.lanes = 1;
    switch (depth)
    {
    case CV_8U:  t.code = kDLUInt;  t.bits = 8;  return true;
    case CV_8S:  t.code = kDLInt;   t.bits = 8;  return true;
    case CV_16U: t.code = kDLUInt;  t.bits = 16; return true;
    case CV_16S: t.code = kDLInt;   t.bits = 16; return true;
    case CV_32S: t.code = kDLInt;   t.bits = 32; return true;
    case CV_32F: t.code = kDLFloat; t.bits = 32; return true;
    case CV_64F: t.code = kDLFloat; t.bits = 64; return true;
    case CV_16F: t.code = kDLFloat; t.bits = 16; return true;
    default:     return false;
    }
}

// The stream number of the CUDA array interface (v3) and DLPack for a cv::cuda::Stream: 1 is the
// legacy default stream (0 is disallowed as ambiguous), anything else the cudaStream_t.
static long long streamNumber(const Stream& s)
{
    const void* handle = s.cudaPtr();
    return handle ? (long long)(intptr_t)handle : 1;
}

// A DLPack / CUDA array interface stream number -> cv::cuda::Stream: None, 1 (legacy default) and
// -1 (the consumer asks for no ordering) give Stream::Null(), 2 the per-thread default stream, other
// values are a cudaStream_t. False with a Python error (0 is refused as the standards say). A Ptr,
// because a default-constructed cv::cuda::Stream would create a CUDA stream.
static bool streamFromNumber(PyObject* number, cv::Ptr<Stream>& out, bool& ordered)
{
    long long handle = 1;
    if (number && number != Py_None)
    {
        handle = PyLong_AsLongLong(number);
        if (handle == -1 && PyErr_Occurred())
            return false;
    }
    if (handle == 0)
    {
        PyErr_SetString(PyExc_ValueError, "stream=0 is ambiguous (DLPack / CUDA array interface): use 1 for the "
                                          "legacy default stream, 2 for the per-thread default stream");
        return false;
    }
    ordered = handle != -1;
    try
    {
        out = cv::makePtr<Stream>((handle == 1 || handle == -1) ? Stream::Null()
                                                                : cv::cuda::wrapStream((size_t)handle));
    }
    catch (const cv::Exception& e)
    {
        pyRaiseCVException(e);
        return false;
    }
    return true;
}

// The device access behind deviceArray() and __dlpack__: a read, or a read-write one (a discard
// write while nothing is valid yet: there is nothing to read, and reading would throw). Called with
// the GIL released; throws cv::Exception.
static GpuMat deviceAccess(SyncedMat& m, Stream& stream, bool readonly)
{
    if (readonly)
        return m.readDevice(stream);
    return m.state() == SyncedMat::UNINITIALIZED ? m.writeDevice(stream) : m.readWriteDevice(stream);
}

// --- DLPack export ------------------------------------------------------------------------------
// The capsule owns a DLManagedTensor inside a holder with the shape, the strides and a GpuMat
// header: the GpuMat's reference count keeps the device memory alive until the consumer calls the
// deleter (or, for a capsule never consumed, until the capsule goes). No Python object is involved,
// so the deleter may run on any thread without the GIL.

struct DLPackHolder
{
    DLManagedTensor managed;
    int64_t shape[3];
    int64_t strides[3];
    GpuMat gpu;
};

static void dlpackDeleter(DLManagedTensor* managed)
{
    delete static_cast<DLPackHolder*>(managed->manager_ctx);
}

static const char* const kDLTensor = "dltensor";
static const char* const kUsedDLTensor = "used_dltensor";

static void dlpackCapsuleDestructor(PyObject* capsule)
{
    if (PyCapsule_IsValid(capsule, kUsedDLTensor))
        return;     // consumed: the consumer calls the deleter
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    DLManagedTensor* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, kDLTensor));
    if (managed)
        managed->deleter(managed);
    else
        PyErr_WriteUnraisable(capsule);
    PyErr_Restore(type, value, traceback);
}

// A "dltensor" capsule (unversioned DLPack: the one every consumer accepts; it has no read-only
// flag) describing `gpu` on CUDA device `device`. New reference, or NULL with a Python error.
static PyObject* dlpackCapsule(const GpuMat& gpu, int device)
{
    DLDataType dtype;
    if (!dlpackType(gpu.depth(), dtype))
    {
        PyErr_Format(PyExc_BufferError, "__dlpack__: depth %d of this image has no DLPack type here", gpu.depth());
        return NULL;
    }
    const size_t esz1 = gpu.elemSize1();
    if (gpu.step % esz1 != 0)
    {
        PyErr_SetString(PyExc_BufferError, "__dlpack__: the row step is not a whole number of elements");
        return NULL;
    }
    DLPackHolder* h = new DLPackHolder();
    h->gpu = gpu;
    const int cn = gpu.channels();
    h->shape[0] = gpu.rows;
    h->shape[1] = gpu.cols;
    h->shape[2] = cn;
    h->strides[0] = (int64_t)(gpu.step / esz1);     // DLPack strides count elements, not bytes
    h->strides[1] = cn;
    h->strides[2] = 1;
    DLTensor& t = h->managed.dl_tensor;
    t.data = gpu.data;
    t.device.device_type = kDLCUDA;
    t.device.device_id = device;
    t.ndim = cn == 1 ? 2 : 3;
    t.dtype = dtype;
    t.shape = h->shape;
    t.strides = h->strides;
    t.byte_offset = 0;
    h->managed.manager_ctx = h;
    h->managed.deleter = dlpackDeleter;
    PyObject* capsule = PyCapsule_New(&h->managed, kDLTensor, dlpackCapsuleDestructor);
    if (!capsule)
        delete h;
    return capsule;
}

// The checks of a __dlpack__ request that need no device: copy=True is refused (this is a zero-copy
// export), a dl_device other than CUDA is refused. Returns the requested CUDA device id, -1 if none.
static bool checkDLPackRequest(PyObject* dlDevice, PyObject* copy, int& requestedDevice)
{
    requestedDevice = -1;
    if (copy && copy != Py_None)
    {
        const int c = PyObject_IsTrue(copy);
        if (c < 0)
            return false;
        if (c)
        {
            PyErr_SetString(PyExc_BufferError, "__dlpack__: SyncedMat exports its device memory without copying "
                                               "(copy=True refused)");
            return false;
        }
    }
    if (dlDevice && dlDevice != Py_None)
    {
        int type = 0, id = 0;
        if (!PyArg_ParseTuple(dlDevice, "ii:dl_device", &type, &id))
            return false;
        if (type != kDLCUDA)
        {
            PyErr_Format(PyExc_BufferError, "__dlpack__: SyncedMat exports CUDA memory (kDLCUDA = %d), not the "
                                            "requested device type %d", (int)kDLCUDA, type);
            return false;
        }
        requestedDevice = id;
    }
    return true;
}

static bool checkDLPackDevice(int requestedDevice, int device)
{
    if (requestedDevice >= 0 && requestedDevice != device)
    {
        PyErr_Format(PyExc_BufferError, "__dlpack__: the memory is on CUDA device %d, not on the requested %d",
                     device, requestedDevice);
        return false;
    }
    return true;
}

static const char* dlpackKeywords[] = { "stream", "max_version", "dl_device", "copy", NULL };

// --- DeviceArray: the explicit device view ------------------------------------------------------

struct DeviceArrayObject
{
    PyObject_HEAD
    GpuMat* gpu;        // the view; its reference count holds the device memory
    Stream* stream;     // where the access was made
    int device;
    int readonly;
};

static PyObject* deviceArrayType();

static PyObject* newDeviceArray(const GpuMat& gpu, const Stream& stream, int device, bool readonly)
{
    PyTypeObject* type = (PyTypeObject*)deviceArrayType();
    if (!type)
        return NULL;
    DeviceArrayObject* self = (DeviceArrayObject*)PyType_GenericAlloc(type, 0);
    if (!self)
        return NULL;
    self->gpu = new GpuMat(gpu);
    self->stream = new Stream(stream);
    self->device = device;
    self->readonly = readonly ? 1 : 0;
    return (PyObject*)self;
}

static void deviceArrayDealloc(PyObject* obj)
{
    DeviceArrayObject* self = (DeviceArrayObject*)obj;
    delete self->gpu;
    delete self->stream;
    PyTypeObject* type = Py_TYPE(obj);
    freefunc tpFree = (freefunc)PyType_GetSlot(type, Py_tp_free);
    tpFree(obj);
    Py_DECREF(type);    // instances of a heap type hold a reference to it
}

static PyObject* deviceArrayNew(PyTypeObject*, PyObject*, PyObject*)
{
    PyErr_SetString(PyExc_TypeError, "cv2.cudaimage.DeviceArray is made by SyncedMat.deviceArray(), which "
                                     "performs the device access it describes");
    return NULL;
}

static PyObject* deviceArrayRepr(PyObject* obj)
{
    const DeviceArrayObject* self = (const DeviceArrayObject*)obj;
    const std::string s = cv::format("<cv2.cudaimage.DeviceArray %dx%d %s, %s, CUDA device %d>",
                                     self->gpu->rows, self->gpu->cols, cv::typeToString(self->gpu->type()).c_str(),
                                     self->readonly ? "read-only" : "read-write", self->device);
    return PyUnicode_FromString(s.c_str());
}

// The access was made when the view was; this only describes it (no CUDA call).
static PyObject* deviceArrayCAI(PyObject* obj, void*)
{
    const DeviceArrayObject* self = (const DeviceArrayObject*)obj;
    const GpuMat& g = *self->gpu;
    const char* typestr = caiTypestr(g.depth());
    if (!typestr)
    {
        PyErr_Format(PyExc_TypeError, "__cuda_array_interface__: depth %d has no NumPy type", g.depth());
        return NULL;
    }
    const Py_ssize_t rows = g.rows, cols = g.cols, cn = g.channels();
    const Py_ssize_t step = (Py_ssize_t)g.step, esz = (Py_ssize_t)g.elemSize(), esz1 = (Py_ssize_t)g.elemSize1();
    PyObject* shape = cn == 1 ? Py_BuildValue("(nn)", rows, cols) : Py_BuildValue("(nnn)", rows, cols, cn);
    PyObject* strides = cn == 1 ? Py_BuildValue("(nn)", step, esz) : Py_BuildValue("(nnn)", step, esz, esz1);
    PyObject* data = Py_BuildValue("(NO)", PyLong_FromVoidPtr(g.data), self->readonly ? Py_True : Py_False);
    return Py_BuildValue("{s:N,s:s,s:N,s:N,s:i,s:L}", "shape", shape, "typestr", typestr, "strides", strides,
                         "data", data, "version", 3, "stream", streamNumber(*self->stream));
}

static PyObject* deviceArrayGpuMat(PyObject* obj, void*)
{
    return pyopencv_from(*((DeviceArrayObject*)obj)->gpu);
}

static PyObject* deviceArrayStream(PyObject* obj, void*)
{
    return pyopencv_from(*((DeviceArrayObject*)obj)->stream);
}

static PyObject* deviceArrayReadonly(PyObject* obj, void*)
{
    return PyBool_FromLong(((DeviceArrayObject*)obj)->readonly);
}

static PyObject* deviceArrayDeviceId(PyObject* obj, void*)
{
    return PyLong_FromLong(((DeviceArrayObject*)obj)->device);
}

static PyObject* deviceArrayDLPackDevice(PyObject* obj, PyObject*)
{
    return Py_BuildValue("(ii)", (int)kDLCUDA, ((DeviceArrayObject*)obj)->device);
}

// The access already ran on self->stream; a consumer on another stream is ordered after it on the
// GPU (an event), as the DLPack standard asks of the producer.
static PyObject* deviceArrayDLPack(PyObject* obj, PyObject* args, PyObject* kw)
{
    DeviceArrayObject* self = (DeviceArrayObject*)obj;
    PyObject *pyStream = NULL, *maxVersion = NULL, *dlDevice = NULL, *copy = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|OOOO:__dlpack__", (char**)dlpackKeywords,
                                     &pyStream, &maxVersion, &dlDevice, &copy))
        return NULL;
    int requestedDevice = -1;
    if (!checkDLPackRequest(dlDevice, copy, requestedDevice) || !checkDLPackDevice(requestedDevice, self->device))
        return NULL;
    cv::Ptr<Stream> consumer;   // None: the legacy default stream, as the standard says
    bool ordered = false;
    if (!streamFromNumber(pyStream, consumer, ordered))
        return NULL;
    if (ordered && consumer->cudaPtr() != self->stream->cudaPtr())
    {
        Stream& producer = *self->stream;
        ERRWRAP2(
            cv::cuda::Event event(cv::cuda::Event::DISABLE_TIMING);
            event.record(producer);
            consumer->waitEvent(event));
    }
    return dlpackCapsule(*self->gpu, self->device);
}

static PyGetSetDef deviceArrayGetSet[] =
{
    {(char*)"__cuda_array_interface__", deviceArrayCAI, NULL,
     (char*)"CUDA array interface v3 of the view: \"data\" is (pointer, readonly), \"stream\" the stream of the access.", NULL},
    {(char*)"gpumat", deviceArrayGpuMat, NULL, (char*)"The view as a cv2.cuda.GpuMat (the same device memory).", NULL},
    {(char*)"stream", deviceArrayStream, NULL, (char*)"The cv2.cuda.Stream the access was made on.", NULL},
    {(char*)"readonly", deviceArrayReadonly, NULL, (char*)"True for a read access (the host stays valid).", NULL},
    {(char*)"device_id", deviceArrayDeviceId, NULL, (char*)"CUDA device of the memory.", NULL},
    {NULL, NULL, NULL, NULL, NULL}
};

static PyMethodDef deviceArrayMethods[] =
{
    {"__dlpack__", CV_PY_FN_WITH_KW(deviceArrayDLPack),
     "__dlpack__(stream=None, max_version=None, dl_device=None, copy=None) -> \"dltensor\" capsule holding the device "
     "memory; the consumer's stream is ordered after the access. Unversioned DLPack: the capsule has no read-only flag."},
    {"__dlpack_device__", CV_PY_FN_NOARGS(deviceArrayDLPackDevice), "__dlpack_device__() -> (2, device id): kDLCUDA"},
    {NULL, NULL, 0, NULL}
};

static PyObject* deviceArrayType()
{
    static PyObject* type = NULL;   // created once, under the GIL, and kept for the process
    if (!type)
    {
        static PyType_Slot slots[] =
        {
            {Py_tp_dealloc, (void*)deviceArrayDealloc},
            {Py_tp_new, (void*)deviceArrayNew},
            {Py_tp_repr, (void*)deviceArrayRepr},
            {Py_tp_getset, (void*)deviceArrayGetSet},
            {Py_tp_methods, (void*)deviceArrayMethods},
            {Py_tp_doc, (void*)
             "A device view of a cv2.cuda.SyncedMat, made by SyncedMat.deviceArray(stream, readonly): the access "
             "(and any upload) happened then, on `stream`. It exposes __cuda_array_interface__ (v3) and "
             "__dlpack__ for CuPy, Numba, PyTorch... and holds the device memory (a GpuMat reference) as long as "
             "it, or what a consumer made of it, lives. Enqueue the work that uses it before the next access to "
             "the SyncedMat from another stream; with readonly=True, do not write through it (consumers do "
             "not enforce the flag, and the host copy would silently stay stale)."},
            {0, NULL}
        };
        static PyType_Spec spec = { "cv2.cudaimage.DeviceArray", sizeof(DeviceArrayObject), 0, Py_TPFLAGS_DEFAULT, slots };
        type = PyType_FromSpec(&spec);
    }
    return type;
}

// --- methods of cv2.cuda.SyncedMat --------------------------------------------------------------

template<int Access>
static PyObject* hostView(PyObject* self, PyObject*)
{
    SyncedMat* m = selfSyncedMat(self);
    if (!m)
        return NULL;
    cv::Mat view;
    ERRWRAP2(view = Access == 0 ? m->readHost() : Access == 1 ? m->writeHost() : m->readWriteHost());
    return pyopencv_cudaimage_host_array(view, Access != 0);
}

static PyObject* readHostCopy(PyObject* self, PyObject*)
{
    SyncedMat* m = selfSyncedMat(self);
    if (!m)
        return NULL;
    cv::Mat view;
    ERRWRAP2(view = m->readHost());
    return pyopencv_from(view);     // not NumPy-allocated: converted by copying
}

static PyObject* deviceArray(PyObject* self, PyObject* args, PyObject* kw)
{
    SyncedMat* m = selfSyncedMat(self);
    if (!m)
        return NULL;
    PyObject* pyStream = NULL;
    int readonly = 0;
    const char* keywords[] = { "stream", "readonly", NULL };
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|Op:deviceArray", (char**)keywords, &pyStream, &readonly))
        return NULL;
    cv::Ptr<Stream> given;      // not a Stream object: its default constructor creates a CUDA stream
    if (pyStream && pyStream != Py_None && !pyopencv_to(pyStream, given, ArgInfo("stream", 0)))
        return NULL;
    GpuMat view;
    cv::Ptr<Stream> stream;
    int device = -1;
    ERRWRAP2(
        stream = given ? given : cv::makePtr<Stream>(Stream::Null());
        view = deviceAccess(*m, *stream, readonly != 0);
        device = m->deviceId());
    return newDeviceArray(view, *stream, device, readonly != 0);
}

// The consumer's conversion: a read-write device access on the consumer's stream (a DLPack capsule
// cannot say read-only), made now, so the consumer's later work on that stream is ordered after it.
static PyObject* dlpack(PyObject* self, PyObject* args, PyObject* kw)
{
    SyncedMat* m = selfSyncedMat(self);
    if (!m)
        return NULL;
    PyObject *pyStream = NULL, *maxVersion = NULL, *dlDevice = NULL, *copy = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|OOOO:__dlpack__", (char**)dlpackKeywords,
                                     &pyStream, &maxVersion, &dlDevice, &copy))
        return NULL;
    int requestedDevice = -1;
    if (!checkDLPackRequest(dlDevice, copy, requestedDevice))
        return NULL;
    cv::Ptr<Stream> stream;
    bool ordered = false;   // -1 (no ordering) still makes the access on the legacy default stream
    if (!streamFromNumber(pyStream, stream, ordered))
        return NULL;
    int device = m->deviceId();
    if (requestedDevice >= 0)
    {
        if (device < 0)
        {
            ERRWRAP2(device = cv::cuda::getDevice());   // not allocated yet: the access allocates here
        }
        if (!checkDLPackDevice(requestedDevice, device))
            return NULL;
    }
    GpuMat view;
    ERRWRAP2(
        view = deviceAccess(*m, *stream, false);
        device = m->deviceId());
    return dlpackCapsule(view, device);
}

static PyObject* dlpackDevice(PyObject* self, PyObject*)
{
    SyncedMat* m = selfSyncedMat(self);
    if (!m)
        return NULL;
    int device = -1;
    ERRWRAP2(
        device = m->deviceId();
        if (device < 0)
            device = cv::cuda::getDevice());   // not allocated yet: it will be on the current device
    return Py_BuildValue("(ii)", (int)kDLCUDA, device);
}

static PyObject* deviceArrayTypeOf(PyObject*, PyObject*)
{
    PyObject* type = deviceArrayType();
    Py_XINCREF(type);
    return type;
}

// --- cv2.cuda.DeviceInfo.name() ----------------------------------------------------------------------

// OpenCV declares DeviceInfo::name() without CV_WRAP (it returns a const char*), so cv2 gives every
// property of a device but its name.
static PyObject* deviceInfoName(PyObject* self, PyObject*)
{
    cv::Ptr<cv::cuda::DeviceInfo>* p = 0;
    if (!pyopencv_cuda_DeviceInfo_getp(self, p) || !p || !*p)
        return failmsgp("Incorrect type of self (must be 'cuda_DeviceInfo' or its derivative)");
    std::string name;
    ERRWRAP2(name = (*p)->name());
    return pyopencv_from(name);
}

} // namespace pycv_cudaimage

#define PYOPENCV_EXTRA_METHODS_cuda_DeviceInfo \
  {"name", CV_PY_FN_NOARGS(pycv_cudaimage::deviceInfoName), \
   "name() -> str: the device's name, e.g. 'NVIDIA H200' (cv::cuda::DeviceInfo::name())."},

// First in the method table, so readHost & co. replace the generated (copying) methods of the same
// name: without METH_COEXIST, CPython keeps the first definition of a name and skips repeats.
#define PYOPENCV_EXTRA_METHODS_cuda_SyncedMat \
  {"readHost", CV_PY_FN_NOARGS(pycv_cudaimage::hostView<0>), \
   "readHost() -> read-only NumPy array viewing the page-locked host memory (no copy; downloads first if the " \
   "host is stale). The array keeps the memory alive."}, \
  {"writeHost", CV_PY_FN_NOARGS(pycv_cudaimage::hostView<1>), \
   "writeHost() -> writable NumPy array viewing the page-locked host memory; discard: never downloads."}, \
  {"readWriteHost", CV_PY_FN_NOARGS(pycv_cudaimage::hostView<2>), \
   "readWriteHost() -> writable NumPy array viewing the page-locked host memory (downloads if stale)."}, \
  {"readHostCopy", CV_PY_FN_NOARGS(pycv_cudaimage::readHostCopy), \
   "readHostCopy() -> an independent NumPy copy of the host data (a read access: downloads if stale)."}, \
  {"deviceArray", CV_PY_FN_WITH_KW(pycv_cudaimage::deviceArray), \
   "deviceArray([stream[, readonly]]) -> cv2.cudaimage.DeviceArray: a device access on stream (default: the " \
   "legacy default stream), read-write unless readonly=True (then the host stays valid), whose result carries " \
   "__cuda_array_interface__ and __dlpack__. The explicit way to hand a SyncedMat to CuPy, Numba, PyTorch."}, \
  {"__dlpack__", CV_PY_FN_WITH_KW(pycv_cudaimage::dlpack), \
   "__dlpack__(stream=None, max_version=None, dl_device=None, copy=None) -> \"dltensor\" capsule: a read-write " \
   "device access on the consumer's stream (a discard write while uninitialised); the capsule holds the device " \
   "memory. For a read-only export use deviceArray(stream, readonly=True).__dlpack__()."}, \
  {"__dlpack_device__", CV_PY_FN_NOARGS(pycv_cudaimage::dlpackDevice), \
   "__dlpack_device__() -> (2, device id): kDLCUDA and the storage's device (the current one before allocation)."}, \
  {"_deviceArrayType", CV_PY_FN_NOARGS_(pycv_cudaimage::deviceArrayTypeOf, METH_STATIC), \
   "_deviceArrayType() -> the type deviceArray() returns (published as cv2.cudaimage.DeviceArray)."},

#endif // HAVE_OPENCV_CUDAIMAGE
