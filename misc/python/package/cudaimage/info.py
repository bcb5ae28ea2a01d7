"""The self-check behind ``python -m cv2.cudaimage``: what a bug report needs, and whether it works.

Prints, as ``key: value`` lines:

* versions and where each part was loaded from: OpenCV (the cv2 extension), cudaimage (the wheel's
  version, or "module build"), the CUDA runtime (OpenCV links it statically: its version is the
  one in cv2.getBuildInformation()), the CUDA driver (libcuda.so.1) and NPP (libnppc);
* the GPU code each CUDA library of this cv2 holds (read from the libraries' .nv_fatbin sections,
  no CUDA tool needed): machine code (SASS, sm_XY) and PTX (compute_XY);
* each visible GPU: name, compute capability, memory, and whether every library runs machine code
  on it, or the driver JIT-compiles PTX for it (the first use then takes longer, and the driver
  caches the result: ~/.nv/ComputeCache), or there is no code for it;
* on each GPU, an exactness check (random 8-bit images, 1 and 3 channels, sigma 0.8 to 7.5, against
  CPU cv2.GaussianBlur: must be identical) and a throughput figure (GB/s of image read and written,
  timed with CUDA events), about a second in all.

Exit status (also printed on the last line, with the reason):

====  ===========================================================================================
0     everything present, every check passed
1     a Python error (e.g. ``import cv2`` itself failed: a library such as NPP or libcudart not found)
2     bad command line
3     this cv2 is not a cudaimage build (no cv2.cuda.SyncedMat, no CUDA, or NPP not loaded)
4     no usable CUDA driver (libcuda.so.1 not found, or older than the CUDA runtime)
5     no CUDA GPU visible (none present, or hidden by CUDA_VISIBLE_DEVICES)
6     a visible GPU for which a library holds neither machine code nor usable PTX
7     a check failed: a result differs from CPU cv2.GaussianBlur, or a CUDA error
====  ===========================================================================================

Everything that can be found is printed before the status, also without a GPU.
"""
from __future__ import annotations

import argparse
import ctypes
import os
import re
import sys
import time
from typing import Callable, NamedTuple, Optional, Sequence

import numpy as np

import cv2
from cv2.cudaimage._fatbin import KIND_ELF, KIND_PTX, fatbin_entries

EXIT_OK = 0
EXIT_NOT_CUDAIMAGE = 3
EXIT_NO_DRIVER = 4
EXIT_NO_GPU = 5
EXIT_UNSUPPORTED_GPU = 6
EXIT_CHECK_FAILED = 7


class DeviceCode(NamedTuple):
    """The GPU code of one library: compute capabilities as major * 10 + minor (90: sm_90)."""
    library: str
    sass: tuple[int, ...]
    ptx: tuple[int, ...]


class Failure(Exception):
    """A missing part or a failed check: its exit status and message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


# --- what is loaded, and from where ----------------------------------------------------------------

def loaded_libraries() -> list[str]:
    """Paths of the shared objects mapped into this process (Linux: /proc/self/maps), in map order."""
    paths: list[str] = []
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                parts = line.split(None, 5)
                if len(parts) == 6 and parts[5].startswith("/") and ".so" in parts[5]:
                    path = parts[5].strip()
                    if path not in paths:
                        paths.append(path)
    except OSError:
        pass
    return paths


def find_library(paths: Sequence[str], name: str) -> Optional[str]:
    """The first path of library ``name`` (e.g. 'libnppc': libnppc.so.13; also the wheel's renamed
    copies, NAME-HASH.so.N), or None."""
    pattern = re.compile(r"%s(-[0-9a-f]+)?\.(so|abi3|cpython)" % re.escape(name))
    return next((p for p in paths if pattern.match(os.path.basename(p))), None)


def cuda_version_text(v: int) -> str:
    """CUDA's version number (13000) as text ('13.0')."""
    return "%d.%d" % (v // 1000, (v % 1000) // 10)


def build_cuda_version() -> Optional[str]:
    """The CUDA version cv2 was built with ('13.0'), from cv2.getBuildInformation()."""
    m = re.search(r"NVIDIA CUDA:\s*YES \(ver ([0-9.]+)", cv2.getBuildInformation())
    return m.group(1) if m else None


def driver_version() -> tuple[Optional[int], str]:
    """(cuDriverGetVersion(), where libcuda.so.1 is) or (None, why it could not be asked)."""
    try:
        lib = ctypes.CDLL("libcuda.so.1")
    except OSError as e:
        return None, "not found (%s)" % e
    v = ctypes.c_int(0)
    rc = lib.cuDriverGetVersion(ctypes.byref(v))
    path = find_library(loaded_libraries(), "libcuda") or "libcuda.so.1"
    if rc != 0:
        return None, "%s: cuDriverGetVersion failed (CUresult %d)" % (path, rc)
    return v.value, path


def npp_version(path: str) -> Optional[str]:
    """nppGetLibVersion() of the libnppc at ``path`` ('13.0.1'), None if it cannot be asked."""
    class NppLibraryVersion(ctypes.Structure):
        _fields_ = [("major", ctypes.c_int), ("minor", ctypes.c_int), ("build", ctypes.c_int)]
    try:
        fn = ctypes.CDLL(path).nppGetLibVersion
    except (OSError, AttributeError):
        return None
    fn.restype = ctypes.POINTER(NppLibraryVersion)
    v = fn().contents
    return "%d.%d.%d" % (v.major, v.minor, v.build)


def cudaimage_version() -> str:
    """The opencv-cudaimage distribution's version when this cv2 is that wheel's, else 'module build'."""
    here = os.path.realpath(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    try:
        from importlib import metadata
        dist = metadata.distribution("opencv-cudaimage")
        if os.path.realpath(str(dist.locate_file("cv2"))) == here:
            return "%s (wheel opencv-cudaimage)" % dist.version
    except Exception:   # not installed, or metadata unreadable: say what it is instead
        pass
    return "module build (not installed as the opencv-cudaimage wheel)"


# --- the GPU code of a library ---------------------------------------------------------------------

def library_code(path: str) -> DeviceCode:
    """The GPU code of the library at ``path``, read from its .nv_fatbin section (cv2.cudaimage._fatbin;
    only the headers are read). Raises OSError or ValueError when the file cannot be read as ELF."""
    entries = fatbin_entries(path)
    return DeviceCode(path, tuple(sorted({e.arch for e in entries if e.kind == KIND_ELF})),
                      tuple(sorted({e.arch for e in entries if e.kind == KIND_PTX})))


def device_code(paths: Sequence[str]) -> list[DeviceCode]:
    """The GPU code of each OpenCV library (and the cv2 extension) among ``paths`` that holds any."""
    out = []
    for path in paths:
        base = os.path.basename(path)
        if not (base.startswith("libopencv_") or base.startswith("cv2")):
            continue
        try:
            code = library_code(path)
        except (OSError, ValueError):
            continue
        if code.sass or code.ptx:
            out.append(code)
    return out


def code_for(code: DeviceCode, cc: int, force_ptx: bool = False) -> tuple[str, int]:
    """How a GPU of compute capability ``cc`` (major * 10 + minor) runs ``code``: ('sass', arch)
    when it holds machine code the GPU runs (same major, minor not above the GPU's), else ('ptx',
    arch) for the newest PTX not above the GPU's (the driver JIT-compiles it), else ('none', 0).
    ``force_ptx``: as the driver with CUDA_FORCE_PTX_JIT=1, which ignores machine code."""
    if not force_ptx:
        sass = [a for a in code.sass if a // 10 == cc // 10 and a <= cc]
        if sass:
            return "sass", max(sass)
    ptx = [a for a in code.ptx if a <= cc]
    if ptx:
        return "ptx", max(ptx)
    return "none", 0


def arch_list(archs: Sequence[int], prefix: str) -> str:
    return " ".join("%s_%d" % (prefix, a) for a in archs) or "none"


# --- checks on one GPU -----------------------------------------------------------------------------

SIGMAS = (0.8, 1.5, 3.0, 7.5)
CHECK_SHAPE = (1080, 1920)
THROUGHPUT_SHAPE = (8192, 8192)   # 64 MiB in, 64 MiB out: more than any GPU's L2 cache


def exactness_check(rng: np.random.Generator) -> str:
    """Random 8-bit images (1 and 3 channels) blurred by cv2.cuda.createGaussianBlur and by CPU
    cv2.GaussianBlur, for each sigma of SIGMAS (ksize derived from sigma), REFLECT_101 border:
    returns a summary, raises Failure when a pixel differs."""
    border = cv2.BORDER_REFLECT_101
    compared = 0
    for channels in (1, 3):
        shape = CHECK_SHAPE + ((channels,) if channels > 1 else ())
        image = rng.integers(0, 256, size=shape, dtype=np.uint8)
        src = cv2.cuda.GpuMat()
        src.upload(image)
        for sigma in SIGMAS:
            f = cv2.cuda.createGaussianBlur(cv2.CV_8UC(channels), -1, (0, 0), sigma, sigma, border, border)
            gpu = f.apply(src).download()
            cpu = cv2.GaussianBlur(image, (0, 0), sigma, sigmaY=sigma, borderType=border)
            if gpu.shape != cpu.shape or not np.array_equal(gpu, cpu):
                diff = np.abs(gpu.astype(np.int16) - cpu.astype(np.int16)) if gpu.shape == cpu.shape else None
                raise Failure(EXIT_CHECK_FAILED, "exactness: 8UC%d sigma %g differs from CPU cv2.GaussianBlur (%s)" % (
                    channels, sigma, "shape %r vs %r" % (gpu.shape, cpu.shape) if diff is None else
                    "%d pixels differ, by up to %d" % (int(np.count_nonzero(diff)), int(diff.max()))))
            compared += 1
    return "identical to CPU cv2.GaussianBlur (%d cases: 8UC1 and 8UC3 %dx%d, sigma %s, ksize from sigma)" % (
        compared, CHECK_SHAPE[1], CHECK_SHAPE[0], ", ".join("%g" % s for s in SIGMAS))


def throughput(iterations: int = 20, sigma: float = 2.0) -> str:
    """GB/s of a 8UC1 blur of THROUGHPUT_SHAPE (bytes read + written per second), timed with CUDA
    events on one stream after a warm-up."""
    rows, cols = THROUGHPUT_SHAPE
    stream = cv2.cuda.Stream()
    src = cv2.cuda.GpuMat(rows, cols, cv2.CV_8UC1, (7,))
    dst = cv2.cuda.GpuMat(rows, cols, cv2.CV_8UC1)
    f = cv2.cuda.createGaussianBlur(cv2.CV_8UC1, -1, (0, 0), sigma)
    for _ in range(3):
        f.apply(src, dst, stream)
    start, stop = cv2.cuda.Event(), cv2.cuda.Event()
    start.record(stream)
    for _ in range(iterations):
        f.apply(src, dst, stream)
    stop.record(stream)
    stop.waitForCompletion()
    ms = cv2.cuda.Event.elapsedTime(start, stop) / iterations
    gbps = 2.0 * rows * cols / (ms * 1e6)
    return "%.0f GB/s (8UC1 %dx%d, sigma %g: %.3f ms per image, read + written once, CUDA events)" % (
        gbps, cols, rows, sigma, ms)


# --- the report ------------------------------------------------------------------------------------

def main(argv: Optional[Sequence[str]] = None, out: Callable[[str], None] = print) -> int:
    ap = argparse.ArgumentParser(prog="python -m cv2.cudaimage", description=__doc__.split("\n")[0])
    ap.add_argument("--no-checks", action="store_true", help="print versions and GPUs only (no exactness and "
                    "throughput run)")
    args = ap.parse_args(argv)

    def line(key: str, value: str) -> None:
        out("%-14s %s" % (key + ":", value))

    status, reason = EXIT_OK, "OK"

    def fail(code: int, message: str) -> None:
        nonlocal status, reason
        if status == EXIT_OK:
            status, reason = code, message

    out("cudaimage self-check (python -m cv2.cudaimage)")
    libs = loaded_libraries()
    cv2_ext = find_library(libs, "cv2")
    line("OpenCV", "%s (%s)" % (cv2.__version__, cv2_ext or os.path.dirname(os.path.abspath(cv2.__file__ or "?"))))
    line("cudaimage", cudaimage_version())
    lib_cudaimage = find_library(libs, "libopencv_cudaimage")
    line("library", lib_cudaimage or "libopencv_cudaimage not loaded")
    line("Python", "%s, NumPy %s" % (sys.version.split()[0], np.__version__))
    has_module = hasattr(cv2, "cuda") and hasattr(cv2.cuda, "SyncedMat") and lib_cudaimage is not None
    if not has_module:
        fail(EXIT_NOT_CUDAIMAGE, "this cv2 has no cudaimage module (cv2.cuda.SyncedMat): it is not a cudaimage build")

    runtime = build_cuda_version()
    cudart = find_library(libs, "libcudart")
    line("CUDA runtime", "%s (%s)" % (runtime, cudart or "linked statically into OpenCV's libraries")
         if runtime else "none: this OpenCV was built without CUDA")
    if runtime is None:
        fail(EXIT_NOT_CUDAIMAGE, "this cv2 was built without CUDA")

    driver, driver_where = driver_version()
    line("CUDA driver", "%s (%s)" % (cuda_version_text(driver), driver_where) if driver else driver_where)
    if driver is None:
        fail(EXIT_NO_DRIVER, "no CUDA driver: libcuda.so.1 cannot be loaded (install NVIDIA's driver; in a "
             "container, run it with the GPU exposed, e.g. docker --gpus all)")
    elif runtime and driver // 1000 < int(runtime.split(".")[0]):
        fail(EXIT_NO_DRIVER, "the CUDA driver supports CUDA %s; this build needs a CUDA %s.x driver or newer" % (
            cuda_version_text(driver), runtime.split(".")[0]))

    nppc = find_library(libs, "libnppc")
    npp = npp_version(nppc) if nppc else None
    line("NPP", "%s (%s)" % (npp or "version unknown", nppc) if nppc else "not loaded")
    if nppc is None:
        fail(EXIT_NOT_CUDAIMAGE, "NPP (libnppc) is not loaded: this cv2 was built without NPP")

    codes = device_code(libs)
    for c in codes:
        line("device code", "%s: machine code %s, PTX %s" % (os.path.basename(c.library), arch_list(c.sass, "sm"),
                                                              arch_list(c.ptx, "compute")))
    if not codes:
        line("device code", "no library with GPU code found")
    env = ["%s=%s" % (k, os.environ[k]) for k in ("CUDA_VISIBLE_DEVICES", "CUDA_FORCE_PTX_JIT",
                                                    "CUDA_DISABLE_PTX_JIT", "CUDA_CACHE_PATH") if k in os.environ]
    if env:
        line("environment", " ".join(env))
    force_ptx = os.environ.get("CUDA_FORCE_PTX_JIT", "0") not in ("", "0")

    count = cv2.cuda.getCudaEnabledDeviceCount() if hasattr(cv2, "cuda") else 0
    devices = list(range(count)) if count > 0 else []
    line("GPUs", str(len(devices)) if devices else
         "none (cv2.cuda.getCudaEnabledDeviceCount() = %d%s)" % (
             count, ": no driver, or a driver older than the runtime" if count < 0 else ""))
    if driver is not None and count == 0:
        fail(EXIT_NO_GPU, "no CUDA GPU visible (none in this machine or container, or CUDA_VISIBLE_DEVICES "
             "hides them)")
    elif driver is not None and count < 0:
        fail(EXIT_NO_DRIVER, "the CUDA driver cannot be used (cv2.cuda.getCudaEnabledDeviceCount() = -1)")

    runnable = []
    for i in devices:
        info = cv2.cuda.DeviceInfo(i)
        cc = info.majorVersion() * 10 + info.minorVersion()
        ways = [(c, code_for(c, cc, force_ptx)) for c in codes]
        missing = [os.path.basename(c.library) for c, (kind, _) in ways if kind == "none"]
        jit = ["%s (compute_%d)" % (os.path.basename(c.library), a) for c, (kind, a) in ways if kind == "ptx"]
        if missing:
            how = "UNSUPPORTED: no machine code or PTX for sm_%d in %s" % (cc, ", ".join(missing))
            fail(EXIT_UNSUPPORTED_GPU, "GPU %d (%s, sm_%d) is not supported by this build: %s holds no code for it"
                 % (i, info.name(), cc, ", ".join(missing)))
        elif jit:
            how = "runs PTX that the driver JIT-compiles at first use%s: %s" % (
                " (CUDA_FORCE_PTX_JIT)" if force_ptx else "", ", ".join(jit))
            runnable.append(i)
        else:
            how = "runs machine code (sm_%d) from every library" % cc
            runnable.append(i)
        line("GPU %d" % i, "%s, sm_%d (compute capability %d.%d), %.0f GiB, %d SMs: %s" % (
            info.name(), cc, cc // 10, cc % 10, info.totalMemory() / 2.0**30, info.multiProcessorCount(), how))

    if args.no_checks:
        line("checks", "skipped (--no-checks)")
    elif not runnable:
        line("checks", "skipped: no GPU to run them on" if not devices else
             "skipped: no GPU that this build can run on")
    else:
        rng = np.random.default_rng(20261203)
        for i in runnable:
            try:
                cv2.cuda.setDevice(i)
                t0 = time.perf_counter()
                g = cv2.cuda.GpuMat(8, 8, cv2.CV_8UC1, (0,))
                cv2.cuda.createGaussianBlur(cv2.CV_8UC1, -1, (0, 0), 1.0).apply(g).download()
                first = time.perf_counter() - t0
                line("first call %d" % i, "%.2f s (CUDA context, loading the kernels; with PTX, their JIT "
                     "compilation unless the driver's cache holds it)" % first)
                line("exactness %d" % i, exactness_check(rng))
                line("throughput %d" % i, throughput())
            except Failure as e:
                line("exactness %d" % i, "FAILED: %s" % e)
                fail(e.status, "GPU %d: %s" % (i, e))
            except cv2.error as e:
                line("checks %d" % i, "FAILED: %s" % (getattr(e, "err", None) or str(e).strip()))
                fail(EXIT_CHECK_FAILED, "GPU %d: CUDA/OpenCV error during the checks: %s" % (
                    i, getattr(e, "err", None) or str(e).strip()))

    line("result", "OK" if status == EXIT_OK else "FAILED (exit %d): %s" % (status, reason))
    return status


if __name__ == "__main__":
    sys.exit(main())
