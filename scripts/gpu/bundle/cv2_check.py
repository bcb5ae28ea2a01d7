"""First check of the GPU bundle (run by run-all.sh): the bundle's cv2 is the one imported, it
has cudaimage's bindings, it sees a CUDA device, and a GpuMat upload/download round trip is exact.

Exit status: 0 passed, 77 no CUDA device and REQUIRE_GPU=0 (skipped), 1 failed.
"""
import os
import sys


def main():
    bundle = os.path.realpath(os.environ["CUDAIMAGE_BUNDLE"])
    require_gpu = os.environ.get("REQUIRE_GPU", "0") == "1"

    import numpy as np
    import cv2

    n = cv2.cuda.getCudaEnabledDeviceCount()
    print(cv2.__file__, cv2.__version__, n)
    print("python", sys.version.split()[0], "numpy", np.__version__)
    if not os.path.realpath(cv2.__file__).startswith(bundle + os.sep):
        print("FAIL: cv2 comes from %s, not from the bundle %s (another cv2 shadows ours)" % (cv2.__file__, bundle))
        return 1
    missing = [f for f in ("GaussianBlur", "createGaussianBlur") if not hasattr(cv2.cuda, f)]
    if missing:
        print("FAIL: cv2.cuda lacks %s: cv2 was built without cudaimage's bindings" % ", ".join(missing))
        return 1
    if n < 1:
        why = "no CUDA driver" if n < 0 else "no CUDA device"
        print("%s (getCudaEnabledDeviceCount() = %d): GPU checks %s" % (why, n, "FAILED" if require_gpu else "skipped"))
        return 1 if require_gpu else 77

    sys.stdout.flush()
    cv2.cuda.printCudaDeviceInfo(0)   # C++ printf: flush ours first so the lines do not interleave
    info = cv2.cuda.DeviceInfo(0)
    if not info.isCompatible():
        print("FAIL: the device (sm_%d%d) has no code in this build (see CUDA_ARCH_BIN)" % (info.majorVersion(), info.minorVersion()))
        return 1

    rng = np.random.default_rng(1)
    for shape, dtype in (((480, 640, 3), np.uint8), ((113, 257), np.uint16), ((1, 1001, 4), np.float32)):
        if np.issubdtype(dtype, np.integer):
            a = rng.integers(0, np.iinfo(dtype).max, size=shape, dtype=dtype, endpoint=True)
        else:
            a = rng.standard_normal(shape).astype(dtype)
        g = cv2.cuda.GpuMat()
        g.upload(a)
        b = g.download().reshape(a.shape)
        if b.dtype != a.dtype or not np.array_equal(a, b):
            print("FAIL: GpuMat round trip changed a %s %s array" % (shape, np.dtype(dtype).name))
            return 1
        print("GpuMat round trip %s %s: exact" % (shape, np.dtype(dtype).name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
