"""Helpers shared by the Python tests (not a test module itself)."""
import os


def gpu_available():
    """Whether this process sees a CUDA device (False without a driver, or for a cv2 without CUDA)."""
    import cv2
    try:
        return cv2.cuda.getCudaEnabledDeviceCount() > 0
    except (AttributeError, cv2.error):
        return False


def find_samples(marker):
    """The repository's (or the GPU bundle's) samples/ folder: $CUDAIMAGE_SAMPLES_DIR, else the
    first samples/ above this file that holds samples/python/<marker>; None if there is none."""
    env = os.environ.get("CUDAIMAGE_SAMPLES_DIR")
    if env:
        return env
    d = os.path.dirname(os.path.abspath(__file__))
    for _ in range(5):
        candidate = os.path.join(d, "samples")
        if os.path.isfile(os.path.join(candidate, "python", marker)):
            return candidate
        d = os.path.dirname(d)
    return None


def _forced_ptx_jit():
    """Whether CUDA_FORCE_PTX_JIT=1 makes the driver refuse machine code on a visible GPU."""
    return os.environ.get("CUDA_FORCE_PTX_JIT", "0") not in ("", "0") and gpu_available()


def npp_cannot_run():
    """Why NPP's own kernels cannot run on device 0 under this process's driver settings, or None.

    Only CUDA_FORCE_PTX_JIT=1 is considered: it makes the driver refuse machine code, and NPP 13.0
    carries PTX for its newest architecture only (compute_121 in 13.0.1), which cannot be compiled
    for an older GPU. OpenCV's NPP-backed functions then fail with "no kernel image"; cudaimage's
    and OpenCV's own kernels still run from their PTX. Without the variable NPP's machine code
    (sm_75 ... sm_121) is used and a failure is a failure."""
    if not _forced_ptx_jit():
        return None
    import cv2
    from cv2.cudaimage import info
    dev = cv2.cuda.DeviceInfo(0)
    cc = dev.majorVersion() * 10 + dev.minorVersion()
    unrunnable = []
    for path in info.loaded_libraries():
        name = os.path.basename(path)
        # libnppc (NPP's core: versions, stream contexts) holds no image kernels.
        if not name.startswith("libnpp") or name.startswith("libnppc"):
            continue
        code = info.library_code(path)
        if (code.sass or code.ptx) and info.code_for(code, cc, force_ptx=True)[0] == "none":
            unrunnable.append("%s (PTX %s)" % (name, info.arch_list(code.ptx, "compute")))
    if not unrunnable:
        return None
    return ("CUDA_FORCE_PTX_JIT=1 and NPP holds no PTX the driver can compile for sm_%d: %s"
            % (cc, "; ".join(unrunnable)))


def torch_cannot_run():
    """Why PyTorch's CUDA kernels cannot run on device 0 under this process's driver settings, or None.

    As for NPP (npp_cannot_run): only CUDA_FORCE_PTX_JIT=1 is considered. PyTorch's wheels carry
    machine code for their architectures and PTX only where torch.cuda.get_arch_list() names a
    compute_XY; with none at or below the GPU's, forced JIT leaves PyTorch no kernel to run (its
    first operation fails with "no kernel image is available"). None without PyTorch or a GPU."""
    if not _forced_ptx_jit():
        return None
    try:
        import torch
        if not torch.cuda.is_available():
            return None
        major, minor = torch.cuda.get_device_capability(0)
        archs = torch.cuda.get_arch_list()
    except Exception:   # no PyTorch, or one that cannot report: the tests that need it skip anyway
        return None
    cc = 10 * major + minor
    ptx = [a for a in archs if a.startswith("compute_") and a[8:].isdigit() and int(a[8:]) <= cc]
    if ptx:
        return None
    return ("CUDA_FORCE_PTX_JIT=1 and PyTorch %s holds no PTX the driver can compile for sm_%d (its "
            "architectures: %s)" % (torch.__version__, cc, " ".join(archs) or "none"))


def usable_cupy():
    """CuPy when it imports and sees a device that cv2 sees too, else None."""
    try:
        import cupy
        cupy.cuda.runtime.getDeviceCount()
    except Exception:   # no CuPy, or no device for it
        return None
    return cupy if gpu_available() else None


def capture_torch_graph(call, **graph_args):
    """PyTorch's capture pattern: one warm-up call on a side stream, then `call` captured into a
    torch.cuda.CUDAGraph (graph_args go to torch.cuda.graph, e.g. capture_error_mode); returns the
    graph and what the captured call returned."""
    import torch
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        call()
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g, **graph_args):
        result = call()
    return g, result
