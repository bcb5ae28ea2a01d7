"""Python additions to cv2.cuda.SyncedMat (loaded by cv2 at import, as cv2.cudaimage).

The generated binding gives cv2.cuda.SyncedMat with the C++ methods. This module adds:

* host views instead of copies: ``readHost()`` returns a *read-only* NumPy array viewing the
  page-locked memory, ``writeHost()`` and ``readWriteHost()`` writable views; the arrays keep the
  memory alive. ``readHostCopy()`` returns an independent copy.
* ``__cuda_array_interface__`` (version 3) and ``__dlpack__`` / ``__dlpack_device__``: zero-copy
  exchange with CuPy, PyTorch, Numba... Taking the device pointer counts as a device *read-write*
  access (the host becomes stale); ``deviceArray(stream, readonly=True)`` asks for a read access.
  An UNINITIALIZED SyncedMat is handed out as a write access (there is nothing to read yet).

Streams. ``__dlpack__(stream=s)`` performs the access on the consumer's stream ``s`` (1: legacy
default, 2: per-thread default, other: a cudaStream_t; None: legacy default; -1: no ordering, the
legacy default stream is used): the consumer's stream is made to wait, on the GPU, for earlier work
on the SyncedMat, and later SyncedMat accesses from other streams wait for the consumer's work.
``__cuda_array_interface__`` performs the access on the legacy default stream and reports it
(``"stream": 1``); ``deviceArray(stream)`` uses and reports the given cv2.cuda.Stream.

Lifetime. A ``deviceArray()`` result and DLPack capsules hold the device buffer itself (a GpuMat
reference). ``__cuda_array_interface__`` consumers hold the SyncedMat (the CAI protocol keeps the
exporting object), so do not call ``releaseDevice()`` while they use the memory.
"""
import ctypes

import numpy as np

import cv2

__all__ = ["DeviceArray", "host_view", "device_array", "device_name"]

_cuda = cv2.cuda
_SyncedMat = _cuda.SyncedMat

_READ, _WRITE, _READ_WRITE = 0, 1, 2
_UNINITIALIZED = 0                      # cv::cuda::SyncedMat::UNINITIALIZED
_EVENT_DISABLE_TIMING = 2               # cv::cuda::Event::DISABLE_TIMING

_TYPESTR = {cv2.CV_8U: "|u1", cv2.CV_8S: "|i1", cv2.CV_16U: "<u2", cv2.CV_16S: "<i2",
            cv2.CV_32S: "<i4", cv2.CV_32F: "<f4", cv2.CV_64F: "<f8", cv2.CV_16F: "<f2"}
# DLPack type codes: 0 int, 1 uint, 2 float.
_DLTYPE = {cv2.CV_8U: (1, 8), cv2.CV_8S: (0, 8), cv2.CV_16U: (1, 16), cv2.CV_16S: (0, 16),
           cv2.CV_32S: (0, 32), cv2.CV_32F: (2, 32), cv2.CV_64F: (2, 64), cv2.CV_16F: (2, 16)}
_KDLCUDA = 2


def _null_stream():
    return _cuda.Stream.Null() if hasattr(_cuda.Stream, "Null") else _cuda.Stream_Null()


def _stream_from_handle(handle):
    """A cv2.cuda.Stream for a DLPack / CAI stream number."""
    if handle is None or handle == 1 or handle == -1:
        return _null_stream()
    if handle == 0:
        raise ValueError("stream=0 is ambiguous (DLPack / CUDA array interface): use 1 for the legacy "
                         "default stream, 2 for the per-thread default stream")
    return _cuda.wrapStream(int(handle))


def _cai_stream(stream):
    handle = int(stream.cudaPtr() or 0)
    return 1 if handle == 0 else handle


def device_name(index=0):
    """The CUDA device's name, e.g. 'NVIDIA H200' (cv2.cuda.DeviceInfo has no name() in Python).

    Taken from cv2.cuda.printShortCudaDeviceInfo, which prints it from C++: its output is captured
    at the file-descriptor level. Returns None without a device."""
    import os
    import re
    import sys
    import tempfile
    if _cuda.getCudaEnabledDeviceCount() <= index:
        return None
    sys.stdout.flush()
    libc = ctypes.CDLL(None)
    with tempfile.TemporaryFile() as tmp:
        saved = os.dup(1)
        try:
            os.dup2(tmp.fileno(), 1)
            _cuda.printShortCudaDeviceInfo(index)
            libc.fflush(None)
        finally:
            os.dup2(saved, 1)
            os.close(saved)
        tmp.seek(0)
        text = tmp.read().decode("utf-8", "replace")
    m = re.search(r'Device %d:\s*"([^"]+)"' % index, text)
    return m.group(1) if m else None


def host_view(m, access="r"):
    """A NumPy array viewing ``m``'s page-locked host memory: access 'r' (read-only array),
    'w' (discard-write) or 'rw'. Same as m.readHost() / m.writeHost() / m.readWriteHost()."""
    code = {"r": _READ, "w": _WRITE, "rw": _READ_WRITE}[access]
    return _cuda.syncedMatHostView(m, code)


def _device_access(m, stream, readonly):
    if readonly:
        return m.readDevice(stream)
    if m.state() == _UNINITIALIZED:      # nothing to read yet: hand it out for writing
        return m.writeDevice(stream)
    return m.readWriteDevice(stream)


def _describe(g):
    """shape, strides (bytes), depth of a GpuMat view."""
    cols, rows = g.size()
    cn = g.channels()
    esz, esz1 = g.elemSize(), g.elemSize1()
    shape = (rows, cols) if cn == 1 else (rows, cols, cn)
    strides = (g.step, esz) if cn == 1 else (g.step, esz, esz1)
    return shape, strides, g.depth()


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class _DLManagedTensor(ctypes.Structure):
    pass


_DLDELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(_DLManagedTensor))
_DLManagedTensor._fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p),
                             ("deleter", _DLDELETER)]

# Exported tensors still referenced by a consumer: address of the DLManagedTensor -> its holder
# (the ctypes structures, shape/strides arrays and the GpuMat keeping the device memory alive).
_live = {}


@_DLDELETER
def _dl_deleter(managed):
    _live.pop(ctypes.cast(managed, ctypes.c_void_p).value, None)


_PyCapsule_New = ctypes.pythonapi.PyCapsule_New
_PyCapsule_New.restype = ctypes.py_object
_PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
_PyCapsule_IsValid = ctypes.pythonapi.PyCapsule_IsValid
_PyCapsule_IsValid.restype = ctypes.c_int
_PyCapsule_IsValid.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
_PyCapsule_GetPointer = ctypes.pythonapi.PyCapsule_GetPointer
_PyCapsule_GetPointer.restype = ctypes.c_void_p
_PyCapsule_GetPointer.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
_CAPSULE_DESTRUCTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
# PyCapsule keeps a pointer to its name, not a copy: the name must outlive every capsule.
_DLTENSOR_NAME = ctypes.create_string_buffer(b"dltensor")


@_CAPSULE_DESTRUCTOR
def _capsule_destructor(capsule):
    # A capsule still named "dltensor" was never consumed: release what it holds.
    if _PyCapsule_IsValid(capsule, ctypes.addressof(_DLTENSOR_NAME)):
        _live.pop(_PyCapsule_GetPointer(capsule, ctypes.addressof(_DLTENSOR_NAME)), None)


def _check_dlpack_request(device_id, dl_device, copy):
    if copy:
        raise BufferError("SyncedMat exports its device memory without copying (copy=True refused)")
    if dl_device is not None and tuple(dl_device) != (_KDLCUDA, device_id):
        raise BufferError("SyncedMat lives on %r, not on the requested %r" % ((_KDLCUDA, device_id), tuple(dl_device)))


def _dlpack_capsule(g, device_id):
    shape, strides, depth = _describe(g)
    esz1 = g.elemSize1()
    holder = _DLManagedTensor()
    shape_arr = (ctypes.c_int64 * len(shape))(*shape)
    strides_arr = (ctypes.c_int64 * len(shape))(*[s // esz1 for s in strides])   # in elements
    code, bits = _DLTYPE[depth]
    t = holder.dl_tensor
    t.data = int(g.cudaPtr())
    t.device = _DLDevice(_KDLCUDA, device_id)
    t.ndim = len(shape)
    t.dtype = _DLDataType(code, bits, 1)
    t.shape = shape_arr
    t.strides = strides_arr
    t.byte_offset = 0
    address = ctypes.addressof(holder)
    holder.manager_ctx = address
    holder.deleter = _dl_deleter
    _live[address] = (holder, shape_arr, strides_arr, g)
    return _PyCapsule_New(address, ctypes.addressof(_DLTENSOR_NAME),
                          ctypes.cast(_capsule_destructor, ctypes.c_void_p))


class DeviceArray(object):
    """A device view of a SyncedMat that holds the device memory (a cv2.cuda.GpuMat) and exposes
    ``__cuda_array_interface__`` (v3, with its stream) and ``__dlpack__``. The access was made on
    ``stream``; a DLPack consumer's stream is ordered after it, but work a consumer does on other
    streams is not tracked by the SyncedMat: for that, pass the SyncedMat itself to the consumer
    (its ``__dlpack__`` makes the access on the consumer's stream)."""

    def __init__(self, gpumat, stream, readonly, device_id):
        self.gpumat = gpumat
        self.stream = stream
        self.readonly = readonly
        self.device_id = device_id

    @property
    def __cuda_array_interface__(self):
        shape, strides, depth = _describe(self.gpumat)
        return {"shape": shape, "typestr": _TYPESTR[depth], "strides": strides,
                "data": (int(self.gpumat.cudaPtr()), bool(self.readonly)), "version": 3,
                "stream": _cai_stream(self.stream)}

    def __dlpack_device__(self):
        return (_KDLCUDA, self.device_id)

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        _check_dlpack_request(self.device_id, dl_device, copy)
        # Our access already ran on self.stream; order the consumer's stream after it.
        if stream is not None and stream != -1:
            consumer = _stream_from_handle(stream)
            if int(consumer.cudaPtr() or 0) != int(self.stream.cudaPtr() or 0):
                event = _cuda.Event(_EVENT_DISABLE_TIMING)
                event.record(self.stream)
                consumer.waitEvent(event)
        return _dlpack_capsule(self.gpumat, self.device_id)


def device_array(m, stream=None, readonly=False):
    """Device access of ``m`` on ``stream`` (cv2.cuda.Stream, default: legacy default stream) as a
    DeviceArray; a read-write access unless ``readonly``."""
    if stream is None:
        stream = _null_stream()
    g = _device_access(m, stream, readonly)
    return DeviceArray(g, stream, readonly, m.deviceId())


# --- methods added to cv2.cuda.SyncedMat ----------------------------------------------------------

def _readHost(self):
    """readHost() -> read-only numpy.ndarray viewing the page-locked memory (downloads if stale)."""
    return _cuda.syncedMatHostView(self, _READ)


def _writeHost(self):
    """writeHost() -> writable numpy.ndarray viewing the page-locked memory (discard: no download)."""
    return _cuda.syncedMatHostView(self, _WRITE)


def _readWriteHost(self):
    """readWriteHost() -> writable numpy.ndarray viewing the page-locked memory."""
    return _cuda.syncedMatHostView(self, _READ_WRITE)


def _readHostCopy(self):
    """readHostCopy() -> an independent numpy.ndarray copy of the host data."""
    return np.array(_cuda.syncedMatHostView(self, _READ), copy=True)


def _deviceArray(self, stream=None, readonly=False):
    """deviceArray([stream[, readonly]]) -> DeviceArray (CAI v3 / DLPack) holding the device memory."""
    return device_array(self, stream, readonly)


def _cuda_array_interface(self):
    return device_array(self).__cuda_array_interface__


def _dlpack(self, stream=None, max_version=None, dl_device=None, copy=None):
    """__dlpack__(stream=None, ...) -> a "dltensor" capsule; the device access (read-write) is made
    on the consumer's stream. max_version is accepted; the capsule is the unversioned kind."""
    _check_dlpack_request(_dlpack_device(self)[1], dl_device, copy)
    s = _stream_from_handle(stream)
    g = _device_access(self, s, False)
    return _dlpack_capsule(g, self.deviceId())


def _dlpack_device(self):
    device = self.deviceId()
    return (_KDLCUDA, device if device >= 0 else _cuda.getDevice())


_ADDITIONS = {
    "readHost": _readHost,
    "writeHost": _writeHost,
    "readWriteHost": _readWriteHost,
    "readHostCopy": _readHostCopy,
    "deviceArray": _deviceArray,
    "__cuda_array_interface__": property(_cuda_array_interface),
    "__dlpack__": _dlpack,
    "__dlpack_device__": _dlpack_device,
}

# cv2 built with the limited API (this project's configuration) creates heap types, which accept
# new attributes; a cv2 with static types does not, and then only the functions of this module
# (host_view, device_array) are available.
PATCHED = True
for _name, _value in _ADDITIONS.items():
    try:
        setattr(_SyncedMat, _name, _value)
    except (TypeError, AttributeError):
        PATCHED = False
