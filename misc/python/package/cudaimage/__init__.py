"""Python side of cv2.cuda.SyncedMat (loaded by cv2 at import, as cv2.cudaimage).

The methods below are part of cv2.cuda.SyncedMat itself (C++ glue in misc/python/
pyopencv_cudaimage.hpp, in the type's own method table: nothing is attached at import). This module
documents them, publishes the DeviceArray type and keeps small helper functions.

Host views instead of copies: ``readHost()`` returns a *read-only* NumPy array viewing the
page-locked memory, ``writeHost()`` (discard: never downloads) and ``readWriteHost()`` writable
views; the arrays keep the memory alive. ``readHostCopy()`` returns an independent copy.

Device exchange with CuPy, Numba, PyTorch... Three things a library can do with an object, and
what each costs:

* probe: ``hasattr(m, "__cuda_array_interface__")``, which CuPy (every ufunc argument), Numba
  (``is_cuda_array``) and PyTorch (``as_tensor``) ask of whatever they are given. A SyncedMat has no
  such attribute: probing is free (no access, no transfer, no CUDA call) and says False.
* read: ``d = m.deviceArray(stream, readonly=True)`` makes a device read access on ``stream``
  (uploads if the device is stale; the host stays valid) and returns a :class:`DeviceArray`, which
  carries ``__cuda_array_interface__`` (v3, ``"data": (pointer, True)``) and ``__dlpack__``. Reading
  the interface again costs nothing. Do not write through it: CuPy and Numba ignore the read-only
  flag, and the host copy would silently stay stale. PyTorch refuses a read-only CUDA array
  interface: use ``torch.from_dlpack(d)``.
* write: ``m.deviceArray(stream)`` (read-write: uploads if stale, the host becomes stale; a discard
  write while the SyncedMat is uninitialised), or DLPack on the SyncedMat itself:
  ``torch.from_dlpack(m)``, ``cupy.from_dlpack(m)``. ``__dlpack__`` is called only to consume, so
  it performs the access then, read-write (a DLPack capsule cannot say read-only), on the consumer's
  stream.

So ``cupy.asarray(m)`` is no longer the way in: write ``cupy.asarray(m.deviceArray())`` (or
``readonly=True``), or ``cupy.from_dlpack(m)``.

Streams. ``m.__dlpack__(stream=s)`` performs the access on the consumer's stream ``s`` (1: legacy
default, 2: per-thread default, other: a cudaStream_t; None: legacy default; -1: no ordering, the
legacy default stream is used; 0 is refused): the consumer's stream is made to wait, on the GPU,
for earlier work on the SyncedMat, and later SyncedMat accesses from other streams wait for the
consumer's work. ``deviceArray(stream)`` makes the access on ``stream`` (default: the legacy
default stream) and its interface reports it (``"stream"``: 1 for the legacy default stream); its
``__dlpack__(stream=s)`` orders ``s`` after that access. Work a consumer does on other streams is
not known to the SyncedMat: enqueue it before the next access from another stream.

Lifetime. A DeviceArray, and every DLPack capsule, holds the device buffer itself (a GpuMat
reference), and CUDA-array-interface consumers hold the DeviceArray: the memory stays valid after
``releaseDevice()`` or the end of the SyncedMat, until they are gone.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

import cv2

__all__ = ["DeviceArray", "host_view", "device_array", "device_name"]

_cuda = cv2.cuda

if TYPE_CHECKING:
    class DeviceArray:
        """The type of ``SyncedMat.deviceArray()`` results (defined in C++, in
        misc/python/pyopencv_cudaimage.hpp; not constructible from Python)."""
        @property
        def __cuda_array_interface__(self) -> dict[str, Any]: ...
        @property
        def gpumat(self) -> cv2.cuda.GpuMat: ...
        @property
        def stream(self) -> cv2.cuda.Stream: ...
        @property
        def readonly(self) -> bool: ...
        @property
        def device_id(self) -> int: ...
        def __dlpack__(self, stream: int | None = None, max_version: tuple[int, int] | None = None,
                       dl_device: tuple[int, int] | None = None, copy: bool | None = None) -> Any: ...
        def __dlpack_device__(self) -> tuple[int, int]: ...
else:
    #: The type of ``SyncedMat.deviceArray()`` results (defined in C++; not constructible from Python).
    DeviceArray = _cuda.SyncedMat._deviceArrayType()

_ACCESS = {"r": 0, "w": 1, "rw": 2}


def host_view(m: cv2.cuda.SyncedMat, access: Literal["r", "w", "rw"] = "r") -> cv2.typing.MatLike:
    """A NumPy array viewing ``m``'s page-locked host memory: access 'r' (read-only array),
    'w' (discard-write) or 'rw'. Same as m.readHost() / m.writeHost() / m.readWriteHost()."""
    return _cuda.syncedMatHostView(m, _ACCESS[access])


def device_array(m: cv2.cuda.SyncedMat, stream: cv2.cuda.Stream | None = None,
                 readonly: bool = False) -> DeviceArray:
    """Same as ``m.deviceArray(stream, readonly)``: a device access of ``m`` on ``stream``
    (cv2.cuda.Stream, default: legacy default stream), read-write unless ``readonly``."""
    return m.deviceArray(stream, readonly)


def device_name(index: int = 0) -> str:
    """The name of CUDA device ``index``, e.g. 'NVIDIA H200': ``cv2.cuda.DeviceInfo(index).name()``.

    Raises ValueError when this process sees no device of that index (without a GPU or a CUDA
    driver, every index), saying how many it sees."""
    import operator
    index = operator.index(index)
    count = max(_cuda.getCudaEnabledDeviceCount(), 0)
    if not 0 <= index < count:
        raise ValueError("device_name: index is %d; this process sees %s" % (
            index, "no CUDA device" if count == 0 else "%d CUDA device(s): 0 to %d" % (count, count - 1)))
    return _cuda.DeviceInfo(index).name()
