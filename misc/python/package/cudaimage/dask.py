"""Gaussian blur of Dask arrays: images larger than one GPU or one machine, exact across chunk seams.

    import dask.array as da
    from cv2.cudaimage import dask as cdask          # or: import cv2.cudaimage.dask
    x = da.from_zarr("in.zarr")                      # H x W or H x W x C; NumPy or CuPy chunks
    y = cdask.gaussian_blur(x, (0, 0), 2.0)          # lazy; same chunks and dtype as x
    y.to_zarr("out.zarr")                            # chunk by chunk, never the whole image

Dask is optional: ``import cv2`` and ``cv2.cudaimage`` never import it, only this module does.

How it stays exact. Output pixel p needs the input within the kernel radius r (per axis) around it,
and at the real image edges the border the caller asked for. Each chunk is given a halo of exactly
r pixels from its neighbours (as ``dask.array.map_overlap`` does, with the strips copied so that
a chunk is freed once its own blur has run), blurred whole and cropped back to the chunk: every
kept pixel then sees the same window as in a blur of the whole image, so the same arithmetic gives
the same value. The real image edges never get Dask's padding (Dask has no REFLECT_101: its
'reflect' is OpenCV's REFLECT): an edge chunk has no halo on that side and OpenCV itself
extrapolates there, with the requested border, from the chunk's own pixels, which are the image's
pixels next to that edge. That is exact as long as the chunk holds the r+1 rows REFLECT_101 reads,
so along an axis cut into several chunks every chunk is made at least r long (neighbouring chunks
merged; the result is rechunked back to the input's chunks); an axis shorter than that is taken as
one chunk, and the blur of that chunk is the blur of the whole axis. BORDER_WRAP takes its halo
from the opposite edge.

Results, against ``cv2.GaussianBlur`` of the whole image with the same arguments:

* uint8, uint16: identical (the CPU path runs cv2.GaussianBlur per chunk; the GPU path runs
  cv2.cuda.createGaussianBlur, which is bit-exact with it);
* int16: within 1; float32: within 1e-5 * max|input|; float64: within 1e-12 * max|input| (the
  module's guarantees; the CPU path's differences in the tests are below 1e-7 and 1e-15 x
  max|input|: cv2.GaussianBlur itself does not sum every column of a float image in one order).
* BORDER_WRAP, which cv2.GaussianBlur takes only for uint8 and uint16, gives for every type the
  blur of the image padded by ``cv2.copyMakeBorder(..., BORDER_WRAP)`` (as cv2.cuda.GaussianBlur).

Devices. ``device="cpu"``: cv2.GaussianBlur per chunk. ``device="gpu"``: the GPU of each worker
(give each ``dask worker`` its own GPU with CUDA_VISIBLE_DEVICES; the device used is the worker
thread's current CUDA device, 0 unless changed); checked before any task runs: on every worker of
the current ``distributed`` client when there is one with workers, otherwise on this machine.
``device="auto"``: each worker uses its GPU when ``cv2.cuda.getCudaEnabledDeviceCount() > 0``
there, the CPU otherwise. NumPy chunks go through page-locked ``cv2.cuda.SyncedMat`` staging kept
per worker thread and image type, grown to the largest block seen (one upload, one download per
chunk, no allocation per chunk); CuPy chunks stay on their GPU (``cv2.cuda.createGpuMatFromCudaMemory`` over
the CuPy memory, on CuPy's current stream, no host round trip) and the result chunks are CuPy
arrays. Filters (``cv2.cuda.createGaussianBlur``) are kept per worker process, per device and
parameters.
"""
from __future__ import annotations

import collections
import math
import numbers
import re
import sys
import threading
from typing import Literal, Sequence

import numpy as np
import numpy.typing as npt

import cv2
import dask.array as da

__all__ = ["gaussian_blur", "kernel_size", "worker_stats", "reset_worker_stats", "SUPPORTED_DTYPES",
           "SUPPORTED_BORDERS"]

_CV_DEPTH = collections.OrderedDict([
    (np.dtype(np.uint8), cv2.CV_8U), (np.dtype(np.uint16), cv2.CV_16U), (np.dtype(np.int16), cv2.CV_16S),
    (np.dtype(np.float32), cv2.CV_32F), (np.dtype(np.float64), cv2.CV_64F)])
SUPPORTED_DTYPES = tuple(_CV_DEPTH)


def _cv_type(dtype, channels):
    """OpenCV's type code of an image of `dtype` with `channels` channels (CV_CN_SHIFT is 3 in
    OpenCV 4 and 5 in OpenCV 5: never compute it by hand)."""
    return cv2.CV_MAKETYPE(_CV_DEPTH[np.dtype(dtype)], channels)

SUPPORTED_BORDERS = (cv2.BORDER_REPLICATE, cv2.BORDER_REFLECT_101, cv2.BORDER_REFLECT, cv2.BORDER_WRAP,
                     cv2.BORDER_CONSTANT)
_DEVICES = ("auto", "gpu", "cpu")

# What one call needs in every task (small: it is part of every task of the graph).
_Plan = collections.namedtuple("_Plan", [
    "cv_type",      # CV_MAKETYPE(depth, channels)
    "ksize",        # (width, height) as the caller gave it (0: derived from sigma)
    "sigma_x", "sigma_y",
    "border",       # one of SUPPORTED_BORDERS, without BORDER_ISOLATED
    "device",       # "auto" | "gpu" | "cpu"
    "wrap_pad",     # CPU WRAP: padding per axis (rows, cols) for axes of one chunk
])


def _type_name(obj):
    t = type(obj)
    return "%s.%s" % (t.__module__, t.__qualname__)


# The checks open their messages with `func`, the public function the caller called.
def _check_int(name, value, func="gaussian_blur"):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError("%s: %s must be an int, got %r (%s)" % (func, name, value, _type_name(value)))
    return int(value)


def _check_sigma(name, value, func="gaussian_blur"):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError("%s: %s must be a real number, got %r (%s)" % (func, name, value, _type_name(value)))
    return float(value)


def _check_ksize(ksize, func="gaussian_blur"):
    if isinstance(ksize, numbers.Integral) and not isinstance(ksize, (bool, np.bool_)):
        ksize = (int(ksize), int(ksize))
    if not isinstance(ksize, (tuple, list)) or len(ksize) != 2:
        raise TypeError("%s: ksize must be (width, height) (or one int for both), got %r" % (func, ksize))
    return tuple(_check_int(name, k, func) for name, k in zip(("ksize.width", "ksize.height"), ksize))


# What cv2.cuda.createGaussianBlur calls the parameters that the functions here name otherwise: they
# take one borderType for both directions. ksize.width, ksize.height, sigmaX and sigmaY are spelled
# alike; srcType never reaches it unchecked (dtype and channels are checked here first).
_CREATE_PREFIX = "cv::cuda::createGaussianBlur: "
_CREATE_NAMES = {"rowBorderMode": "borderType", "columnBorderMode": "borderType"}
_CREATE_NAME_RE = re.compile(r"\b(%s)\b" % "|".join(_CREATE_NAMES))


def _check_values(cv_type, ksize, sigma_x, sigma_y, border, func="gaussian_blur"):
    """The values, checked by C++: cv2.cuda.createGaussianBlur checks every argument before any CUDA
    call (so also on a machine without a GPU or driver) and says which one is wrong, its value and
    what is allowed. Its cv2.error becomes a ValueError with that message, opened by `func` and
    with the parameter named as `func` names it (borderType, not rowBorderMode)."""
    try:
        cv2.cuda.createGaussianBlur(cv_type, -1, ksize, sigma_x, sigma_y, border, border)
    except cv2.error as e:
        message = str(getattr(e, "err", None) or e).strip()
        if message.startswith(_CREATE_PREFIX):
            message = message[len(_CREATE_PREFIX):]
        message = _CREATE_NAME_RE.sub(lambda m: _CREATE_NAMES[m.group(1)], message)
        raise ValueError("%s: %s" % (func, message)) from e


def kernel_size(dtype: npt.DTypeLike, ksize: int | Sequence[int], sigmaX: float,
                sigmaY: float = 0) -> tuple[int, int]:
    """(width, height) of the kernel cv2.GaussianBlur uses for an image of ``dtype`` with these
    arguments: a size of 0 is derived from its sigma (``cv2.cuda.gaussianKernelSize``), sigmaY <= 0
    means sigmaX. The halo of each chunk is half of it. Raises TypeError naming the argument for a
    wrong type, ValueError with the message of cv2.cuda.createGaussianBlur for a value it refuses."""
    dt = np.dtype(dtype)
    if dt not in _CV_DEPTH:
        raise TypeError("kernel_size: dtype %s is not supported; supported: %s"
                        % (dt, ", ".join(str(d) for d in SUPPORTED_DTYPES)))
    ksize = _check_ksize(ksize, "kernel_size")
    sx, sy = _check_sigma("sigmaX", sigmaX, "kernel_size"), _check_sigma("sigmaY", sigmaY, "kernel_size")
    _check_values(_cv_type(dt, 1), ksize, sx, sy, cv2.BORDER_REPLICATE, "kernel_size")
    return _kernel_size(dt, ksize, sx, sy)


def _kernel_size(dtype, ksize, sigma_x, sigma_y):
    """kernel_size() of checked arguments."""
    depth = _CV_DEPTH[np.dtype(dtype)]
    return (ksize[0] or cv2.cuda.gaussianKernelSize(sigma_x, depth),
            ksize[1] or cv2.cuda.gaussianKernelSize(sigma_y if sigma_y > 0 else sigma_x, depth))


def _is_cupy(a):
    return type(a).__module__.split(".")[0] == "cupy"


def _grow_chunks(chunks, minimum):
    """Chunks along one axis with every chunk >= minimum, merging neighbours (a short tail joins the
    chunk before it); one chunk when the axis itself is shorter than 2 * minimum allows."""
    if minimum <= 0 or len(chunks) == 1 or min(chunks) >= minimum:
        return tuple(chunks)
    out, acc = [], 0
    for c in chunks:
        acc += c
        if acc >= minimum:
            out.append(acc)
            acc = 0
    if acc:
        if out:
            out[-1] += acc
        else:
            out.append(acc)
    return tuple(out)


def _local_gpu_count():
    try:
        return max(int(cv2.cuda.getCudaEnabledDeviceCount()), 0)
    except (AttributeError, cv2.error):
        return 0


_gpu_count_cache = []


def _gpu_count():
    """CUDA devices this process sees (asked once)."""
    if not _gpu_count_cache:
        _gpu_count_cache.append(_local_gpu_count())
    return _gpu_count_cache[0]


def _worker_gpu_info():
    """Run on each worker by device='gpu' (client.run): its device count and where it runs."""
    import os
    import socket
    return {"gpus": _local_gpu_count(), "host": socket.gethostname(),
            "CUDA_VISIBLE_DEVICES": os.environ.get("CUDA_VISIBLE_DEVICES")}


def _current_client():
    """The current dask.distributed client, or None (distributed is not imported for this)."""
    if "distributed" not in sys.modules:
        return None
    try:
        client = sys.modules["distributed"].default_client()
    except (ValueError, AttributeError):
        return None
    return client if getattr(client, "status", None) == "running" else None


def _require_gpu():
    client = _current_client()
    if client is not None:
        infos = client.run(_worker_gpu_info)
        if infos:
            missing = sorted(w for w, info in infos.items() if info["gpus"] < 1)
            if missing:
                raise RuntimeError(
                    "gaussian_blur: device='gpu' but %d of the client's %d workers see no CUDA device "
                    "(cv2.cuda.getCudaEnabledDeviceCount() < 1): %s; use device='auto' or 'cpu', or give "
                    "each worker a GPU (CUDA_VISIBLE_DEVICES)" % (len(missing), len(infos), ", ".join(missing)))
            return
    if _local_gpu_count() < 1:
        raise RuntimeError("gaussian_blur: device='gpu' but this machine has no CUDA device "
                           "(cv2.cuda.getCudaEnabledDeviceCount() < 1); use device='auto' or 'cpu'")


# --- per worker process: statistics, filters, staging ----------------------------------------------

_STATS_LOCK = threading.Lock()
_STATS = collections.Counter()


def _count(**kw):
    with _STATS_LOCK:
        _STATS.update(kw)


def worker_stats() -> dict[str, int]:
    """Counters of this process (run it on workers with ``client.run(worker_stats)``): blocks blurred
    on the CPU (``cpu_blocks``), on the GPU from NumPy (``gpu_numpy_blocks``, with ``uploads`` /
    ``downloads`` and their bytes through the staging SyncedMats) and from CuPy (``gpu_cupy_blocks``),
    ``staging_allocations`` (SyncedMat pairs created: one per worker thread and image type, again
    only when a block is larger than all before) and ``filters_created``; and this process's ``pid``."""
    import os
    with _STATS_LOCK:
        out = dict(_STATS)
    for k in ("cpu_blocks", "gpu_numpy_blocks", "gpu_cupy_blocks", "staging_allocations",
              "filters_created", "uploads", "upload_bytes", "downloads", "download_bytes"):
        out.setdefault(k, 0)
    out["pid"] = os.getpid()
    return out


def reset_worker_stats() -> None:
    with _STATS_LOCK:
        _STATS.clear()


class _DeviceMemoryWatch(object):
    """Peak device memory in use on this process's current GPU (total - free, cudaMemGetInfo through
    cv2.cuda.DeviceInfo), sampled every 20 ms by a thread: with one worker per GPU, the worker's own
    use plus its CUDA context."""

    def __init__(self):
        self.info = cv2.cuda.DeviceInfo() if _local_gpu_count() > 0 else None
        self.baseline = self.peak = self.used()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def used(self):
        return None if self.info is None else (self.info.totalMemory() - self.info.freeMemory()) / 2.0**20

    def run(self):
        while not self.stop.wait(0.02):
            u = self.used()
            if u is not None:
                self.peak = max(self.peak, u)

    def finish(self):
        self.stop.set()
        self.thread.join()
        return self.baseline, self.peak


_DEVICE_WATCH = [None]


def start_device_memory_watch() -> None:
    """Starts sampling this process's device memory in use (run it on workers with
    ``client.run(start_device_memory_watch)``). The watch lives in this module, so that a later
    ``client.run(stop_device_memory_watch)`` finds it (a function defined in a script is pickled by
    value, with a fresh copy of any state it keeps, on every call)."""
    if _DEVICE_WATCH[0] is not None:
        _DEVICE_WATCH[0].finish()
    _DEVICE_WATCH[0] = _DeviceMemoryWatch()


def stop_device_memory_watch() -> tuple[float, float] | tuple[None, None]:
    """Stops the watch; returns (MiB in use when it started, peak MiB in use), or (None, None) without
    a GPU or a watch."""
    watch, _DEVICE_WATCH[0] = _DEVICE_WATCH[0], None
    return watch.finish() if watch is not None else (None, None)


_FILTERS_LOCK = threading.Lock()
_FILTERS = {}


def _gpu_filter(device, plan):
    """One cv2.cuda.createGaussianBlur per device and parameters in this process (a filter may be
    used from several threads and streams at once). BORDER_ISOLATED: the block (a sub-matrix of the
    staging image) is the whole image; its real-edge sides get the requested border from its own
    pixels, its halo sides are cropped."""
    key = (device, plan.cv_type, plan.ksize, plan.sigma_x, plan.sigma_y, plan.border)
    with _FILTERS_LOCK:
        f = _FILTERS.get(key)
        if f is None:
            border = plan.border | cv2.BORDER_ISOLATED
            f = cv2.cuda.createGaussianBlur(plan.cv_type, -1, plan.ksize, plan.sigma_x, plan.sigma_y, border, border)
            _FILTERS[key] = f
            _count(filters_created=1)
        return f


class _Staging(object):
    """Page-locked source and destination SyncedMats of one type on one device (capacity rows x
    cols), with a stream; a block uses the top-left ROI of each."""

    def __init__(self, rows, cols, cv_type):
        self.src = cv2.cuda.SyncedMat(rows, cols, cv_type)
        self.dst = cv2.cuda.SyncedMat(rows, cols, cv_type)
        self.rows, self.cols = rows, cols
        self.stream = cv2.cuda.Stream()
        _count(staging_allocations=1)


_thread_local = threading.local()


def _staging_for(rows, cols, cv_type, device):
    """This thread's staging for (type, device), grown to hold a rows x cols block."""
    stagings = getattr(_thread_local, "stagings", None)
    if stagings is None:
        stagings = _thread_local.stagings = {}
    key = (cv_type, device)
    st = stagings.get(key)
    if st is None or rows > st.rows or cols > st.cols:
        if st is not None:
            rows, cols = max(rows, st.rows), max(cols, st.cols)
        stagings.pop(key, None)                             # free the old pair before the new one
        st = stagings[key] = _Staging(rows, cols, cv_type)
    return st


def _host_view(m, access):
    # cv2.cudaimage (the parent package, loaded by cv2) adds readHost()/writeHost() as NumPy views.
    from cv2 import cudaimage
    return cudaimage.host_view(m, access)


# --- per block -----------------------------------------------------------------------------------

def _assemble(center, parts):
    """The chunk with its halo strips around it, and the halo sizes ((top, bottom), (left, right))."""
    xp = sys.modules["cupy"] if _is_cupy(center) else np

    def cat(seq, axis):
        seq = [a for a in seq if a is not None]
        return seq[0] if len(seq) == 1 else xp.concatenate(seq, axis=axis)
    g = parts.get
    top = cat([g("above_left"), g("above"), g("above_right")], 1) if "above" in parts else None
    bottom = cat([g("below_left"), g("below"), g("below_right")], 1) if "below" in parts else None
    block = cat([top, cat([g("left"), center, g("right")], 1), bottom], 0)

    def size(name, axis):
        return parts[name].shape[axis] if name in parts else 0
    return block, ((size("above", 0), size("below", 0)), (size("left", 1), size("right", 1)))


def _crop(a, halos):
    (t, b), (l, r) = halos
    return a[t:a.shape[0] - b, l:a.shape[1] - r]


def _blur_cpu(block, plan, halos):
    a = np.ascontiguousarray(block)
    border = plan.border
    if border == cv2.BORDER_WRAP:
        # Axes of several chunks have their wrap halo; pad the axes of one chunk (the whole axis)
        # with copyMakeBorder's WRAP, then blur: the border used for the padded block never reaches
        # a kept pixel. (cv2.GaussianBlur takes WRAP only for 8U/16U.)
        py, px = plan.wrap_pad
        if py or px:
            a = cv2.copyMakeBorder(a, py, py, px, px, cv2.BORDER_WRAP)
            halos = [(h[0] + p, h[1] + p) for h, p in zip(halos, (py, px))]
        border = cv2.BORDER_REPLICATE
    out = cv2.GaussianBlur(a, plan.ksize, plan.sigma_x, sigmaY=plan.sigma_y, borderType=border)
    _count(cpu_blocks=1)
    return np.ascontiguousarray(_crop(out, halos))


def _blur_gpu_numpy(block, plan, halos):
    device = cv2.cuda.getDevice()
    rows, cols = block.shape[:2]
    st = _staging_for(rows, cols, plan.cv_type, device)
    roi = (0, 0, cols, rows)
    src = cv2.cuda.SyncedMat(st.src, roi)
    dst = cv2.cuda.SyncedMat(st.dst, roi)
    before_src, before_dst = st.src.stats(), st.dst.stats()
    np.copyto(_host_view(src, "w"), block)                   # into pinned memory; device now stale
    cv2.cuda.applyFilter(_gpu_filter(device, plan), src, dst, st.stream)   # upload, blur
    out = np.array(_crop(_host_view(dst, "r"), halos))       # download (waits for it), copy out
    after_src, after_dst = st.src.stats(), st.dst.stats()
    _count(gpu_numpy_blocks=1, uploads=after_src.uploads - before_src.uploads,
           upload_bytes=after_src.uploadBytes - before_src.uploadBytes,
           downloads=after_dst.downloads - before_dst.downloads,
           download_bytes=after_dst.downloadBytes - before_dst.downloadBytes)
    return out


def _null_stream():
    return cv2.cuda.Stream.Null() if hasattr(cv2.cuda.Stream, "Null") else cv2.cuda.Stream_Null()


def _blur_gpu_cupy(block, plan, halos):
    import cupy
    if not hasattr(cv2.cuda, "createGpuMatFromCudaMemory"):
        raise RuntimeError("gaussian_blur: CuPy chunks need cv2.cuda.createGpuMatFromCudaMemory "
                           "(OpenCV >= 4.8); this cv2 is %s" % cv2.__version__)
    device = block.device.id
    with cupy.cuda.Device(device):                          # the CUDA runtime's current device too
        a = cupy.ascontiguousarray(block)
        out = cupy.empty_like(a)
        rows, cols = a.shape[:2]
        src = cv2.cuda.createGpuMatFromCudaMemory(rows, cols, plan.cv_type, a.data.ptr, a.strides[0])
        dst = cv2.cuda.createGpuMatFromCudaMemory(rows, cols, plan.cv_type, out.data.ptr, out.strides[0])
        s = cupy.cuda.get_current_stream()
        stream = cv2.cuda.wrapStream(s.ptr) if s.ptr else _null_stream()
        _gpu_filter(device, plan).apply(src, dst, stream)     # ordered with CuPy's work on s
        result = cupy.ascontiguousarray(_crop(out, halos))   # on s too, after the blur
    _count(gpu_cupy_blocks=1)
    return result


def _blur_block(center, *strips, plan=None, layout=()):
    """One chunk and its halo strips (named by ``layout``) -> the blurred chunk."""
    block, halos = _assemble(center, dict(zip(layout, strips)))
    squeeze = block.ndim == 3 and block.shape[2] == 1        # OpenCV sees H x W x 1 as H x W
    a = block[:, :, 0] if squeeze else block
    if _is_cupy(a):
        if plan.device == "cpu":
            raise RuntimeError("gaussian_blur: a CuPy chunk reached a task with device='cpu'")
        if _gpu_count() < 1:
            raise RuntimeError("gaussian_blur: a CuPy chunk, but cv2 in this worker sees no CUDA device")
        out = _blur_gpu_cupy(a, plan, halos)
    else:
        if plan.device == "gpu" and _gpu_count() < 1:
            import socket
            raise RuntimeError("gaussian_blur: device='gpu' but this worker (host %s) has no CUDA device "
                               "(cv2.cuda.getCudaEnabledDeviceCount() < 1)" % socket.gethostname())
        use_gpu = plan.device == "gpu" or (plan.device == "auto" and _gpu_count() > 0)
        out = _blur_gpu_numpy(a, plan, halos) if use_gpu else _blur_cpu(a, plan, halos)
    return out[:, :, None] if squeeze else out


def _strip(block, rows, cols):
    """A copy of the part of a neighbouring block that a halo needs: rows and cols are each None
    (all), ("first", n) or ("last", n). A copy, not a view, so that the block is freed once its own
    blur has run, not when its last neighbour's has."""
    def index(spec, size):
        if spec is None:
            return slice(None)
        return slice(0, spec[1]) if spec[0] == "first" else slice(size - spec[1], size)
    return block[index(rows, block.shape[0]), index(cols, block.shape[1])].copy()


# (name, row offset, column offset) of each neighbour whose strip a block's halo holds.
_NEIGHBOURS = (("above", -1, 0), ("below", 1, 0), ("left", 0, -1), ("right", 0, 1), ("above_left", -1, -1),
               ("above_right", -1, 1), ("below_left", 1, -1), ("below_right", 1, 1))


def _halo_blur_graph(x, depth, periodic, plan, meta):
    """The graph: per block, one task per halo strip it needs (cut from the neighbouring input block,
    where that block is) and one blur task taking its block and those strips. What map_overlap
    does, without its concatenation and alias tasks and with copied strips; the real image edges
    get no strip (OpenCV's border is applied there), BORDER_WRAP takes them from the other end."""
    from dask.base import tokenize
    from dask.highlevelgraph import HighLevelGraph
    from dask.utils import apply
    token = tokenize(x.name, x.chunks, depth, periodic, plan)
    name, strip_name = "cudaimage-gaussian_blur-" + token, "cudaimage-halo-" + token
    numblocks, extra = x.numblocks[:2], (0,) * (x.ndim - 2)

    def neighbour(index, offset, axis):
        k = index + offset
        if offset == 0 or 0 <= k < numblocks[axis]:
            return k
        return k % numblocks[axis] if periodic else None

    def side(offset, n):                                   # the neighbour's rows/columns facing us
        return None if offset == 0 else ("last", n) if offset < 0 else ("first", n)

    dsk = {}
    for i in range(numblocks[0]):
        for j in range(numblocks[1]):
            layout, keys = [], []
            for part, di, dj in _NEIGHBOURS:
                if (di and not depth[0]) or (dj and not depth[1]):
                    continue
                ni, nj = neighbour(i, di, 0), neighbour(j, dj, 1)
                if ni is None or nj is None:
                    continue
                key = (strip_name, ni, nj, di + 1, dj + 1)
                dsk[key] = (_strip, (x.name, ni, nj) + extra, side(di, depth[0]), side(dj, depth[1]))
                layout.append(part)
                keys.append(key)
            dsk[(name, i, j) + extra] = (apply, _blur_block, [(x.name, i, j) + extra] + keys,
                                         {"plan": plan, "layout": tuple(layout)})
    graph = HighLevelGraph.from_collections(name, dsk, dependencies=[x])
    return da.Array(graph, name, x.chunks, meta=meta)


# --- the public function -------------------------------------------------------------------------

def gaussian_blur(arr: da.Array, ksize: int | Sequence[int], sigmaX: float, sigmaY: float = 0,
                  borderType: int = cv2.BORDER_REPLICATE, *,
                  device: Literal["auto", "gpu", "cpu"] = "auto") -> da.Array:
    """Gaussian blur of a Dask array, as cv2.GaussianBlur (CPU) and cv2.cuda.GaussianBlur give it on
    the whole image; lazy.

    @param arr dask.array.Array, H x W or H x W x C (C = 1 to 4, the channel axis in one chunk), of
      uint8, uint16, int16, float32 or float64, with NumPy or CuPy chunks; any chunking.
    @param ksize (width, height), each 0 (derived from sigma) or odd and positive; or one int.
    @param sigmaX Gaussian sigma in x (finite; <= 0: derived from ksize width, as in OpenCV).
    @param sigmaY Gaussian sigma in y; <= 0 means sigmaX.
    @param borderType cv2.BORDER_REPLICATE (default), BORDER_REFLECT_101 (= BORDER_DEFAULT),
      BORDER_REFLECT, BORDER_CONSTANT (zeros) or BORDER_WRAP; `| cv2.BORDER_ISOLATED` is accepted
      and changes nothing (the array is always the whole image).
    @param device "auto" (each worker's GPU where it has one, else its CPU), "gpu" or "cpu". CuPy
      chunks need "auto" or "gpu".
    @return dask.array.Array of arr's shape, dtype, chunks and chunk type.

    Every argument is checked here, before any task runs: TypeError naming the parameter for a
    wrong type; ValueError for a wrong value, naming it, its value and what is allowed (the kernel
    and border values are checked by cv2.cuda.createGaussianBlur and reported under the names
    here: ksize.width / ksize.height, sigmaX / sigmaY, borderType); RuntimeError for device="gpu"
    without a GPU.
    """
    if not isinstance(arr, da.Array):
        raise TypeError("gaussian_blur: arr must be a dask.array.Array, got %s (wrap an in-memory image "
                        "with dask.array.from_array(image, chunks=...))" % _type_name(arr))
    if arr.ndim not in (2, 3):
        raise ValueError("gaussian_blur: arr must be H x W or H x W x C, got %d dimensions (shape %r)"
                         % (arr.ndim, arr.shape))
    if any(isinstance(s, float) and math.isnan(s) for s in arr.shape):
        raise ValueError("gaussian_blur: arr has unknown chunk sizes (shape %r); call "
                         "arr.compute_chunk_sizes() first" % (arr.shape,))
    if arr.shape[0] < 1 or arr.shape[1] < 1:
        raise ValueError("gaussian_blur: arr is empty (shape %r)" % (arr.shape,))
    channels = 1
    if arr.ndim == 3:
        channels = arr.shape[2]
        if not 1 <= channels <= 4:   # here, not by OpenCV: a type code keeps the channel count modulo 512
            raise ValueError("gaussian_blur: arr has %d channels (shape %r); 1 to 4 are supported"
                             % (channels, arr.shape))
        if len(arr.chunks[2]) != 1:
            raise ValueError("gaussian_blur: arr's channel axis (axis 2) is cut into chunks %r; it must be "
                             "one chunk (arr.rechunk({2: -1}))" % (arr.chunks[2],))
    if arr.dtype not in _CV_DEPTH:
        raise TypeError("gaussian_blur: arr has dtype %s; supported: %s"
                        % (arr.dtype, ", ".join(str(d) for d in SUPPORTED_DTYPES)))
    ksize = _check_ksize(ksize)
    sigma_x, sigma_y = _check_sigma("sigmaX", sigmaX), _check_sigma("sigmaY", sigmaY)
    border = _check_int("borderType", borderType)
    cv_type = _cv_type(arr.dtype, channels)
    _check_values(cv_type, ksize, sigma_x, sigma_y, border)   # ksize, sigmas, border
    kx, ky = _kernel_size(arr.dtype, ksize, sigma_x, sigma_y)
    border &= ~cv2.BORDER_ISOLATED
    if not isinstance(device, str) or device not in _DEVICES:
        raise ValueError("gaussian_blur: device is %r; it must be one of %s" % (device, ", ".join(map(repr, _DEVICES))))
    meta = arr._meta
    cupy_chunks = _is_cupy(meta)
    if not cupy_chunks and not isinstance(meta, np.ndarray):
        raise TypeError("gaussian_blur: arr's chunks are %s; NumPy or CuPy arrays are supported" % _type_name(meta))
    if cupy_chunks and device == "cpu":
        raise ValueError("gaussian_blur: arr has CuPy chunks but device='cpu'; use device='gpu' or 'auto', "
                         "or move the chunks to the host (arr.map_blocks(cupy.asnumpy))")
    if device == "gpu":
        _require_gpu()

    radius = (ky // 2, kx // 2)
    grown = tuple(_grow_chunks(c, r) for c, r in zip(arr.chunks[:2], radius)) + arr.chunks[2:]
    x = arr.rechunk(grown) if grown != arr.chunks else arr
    depth = tuple(r if len(c) > 1 else 0 for r, c in zip(radius, x.chunks[:2]))
    wrap_pad = tuple(r if (len(c) == 1 and n > 1) else 0 for r, c, n in zip(radius, x.chunks[:2], x.shape[:2]))
    plan = _Plan(cv_type=cv_type, ksize=ksize, sigma_x=sigma_x,
                 sigma_y=sigma_y, border=border, device=device, wrap_pad=wrap_pad)
    y = _halo_blur_graph(x, depth, border == cv2.BORDER_WRAP, plan, meta)
    return y.rechunk(arr.chunks) if y.chunks != arr.chunks else y
