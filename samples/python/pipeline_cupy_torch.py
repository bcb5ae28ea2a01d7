#!/usr/bin/env python3
"""One image, three GPU libraries, no needless copies: a cv2.cuda.SyncedMat handed zero-copy to
CuPy (``__cuda_array_interface__`` of an explicit device view) and PyTorch (DLPack) between two
cudaimage blurs, with the transfer counters printed after every step.

    python3 samples/python/pipeline_cupy_torch.py [--input IMAGE] [--output PATH] [--sigma 1.5]

Steps, all on the GPU, on the same device memory:

1. cudaimage Gaussian blur, in place (cv2.cuda.applyFilterInPlace): the one upload;
2. CuPy: ``cupy.asarray(m.deviceArray())`` views the SyncedMat's device memory (a read-write
   device access: the SyncedMat itself has no ``__cuda_array_interface__``, so that libraries
   probing for it cost nothing); invert the image in place;
3. PyTorch: ``torch.from_dlpack(m)`` views the same memory; scale it by 0.8 in place;
4. cudaimage Gaussian blur again;
5. ``m.readHost()``: the one download.

The counters stay at 1 upload and 0 downloads until step 5, and the device pointer CuPy and
PyTorch see is the SyncedMat's own. The result is checked against the same chain on the CPU
(cv2.GaussianBlur and NumPy). A step whose library is missing is skipped with a message (the chain
then runs without it, on both sides); without a CUDA device only the CPU chain runs.
Exit status: 0 done (or skipped for want of a device); 1 the GPU chain differs from the CPU's.
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import Any, Optional, Sequence

import numpy as np
import cv2

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_INPUT = os.path.normpath(os.path.join(HERE, "..", "data", "blur_test.png"))
BORDER = cv2.BORDER_REPLICATE
SCALE = 0.8


def import_cupy() -> tuple[Any, Optional[str]]:
    try:
        import cupy
        cupy.cuda.runtime.getDeviceCount()   # a CuPy that cannot reach the driver is no use
        return cupy, None
    except Exception as e:   # ImportError, or CuPy without a usable CUDA
        return None, "%s: %s" % (type(e).__name__, e)


def import_torch() -> tuple[Any, Optional[str]]:
    try:
        import torch
    except Exception as e:
        return None, "%s: %s" % (type(e).__name__, e)
    if not torch.cuda.is_available():
        return None, "PyTorch %s has no usable CUDA" % torch.__version__
    return torch, None


def scale_like_torch(a: cv2.typing.MatLike) -> cv2.typing.MatLike:
    """NumPy twin of the PyTorch step: float32 multiply, round half to even, back to uint8."""
    return (np.asarray(a, dtype=np.float32) * np.float32(SCALE)).round().astype(np.uint8)   # round: rint


def cpu_chain(img: cv2.typing.MatLike, sigma: float, with_cupy: bool, with_torch: bool) -> cv2.typing.MatLike:
    a = cv2.GaussianBlur(img, (0, 0), sigma, sigmaY=sigma, borderType=BORDER)
    if with_cupy:
        a = np.bitwise_not(a)                   # 255 - a for uint8
    if with_torch:
        a = scale_like_torch(a)
    return cv2.GaussianBlur(a, (0, 0), sigma, sigmaY=sigma, borderType=BORDER)


def counters(m: cv2.cuda.SyncedMat) -> str:
    s = m.stats()
    return "uploads %d (%d bytes), downloads %d (%d bytes)" % (s.uploads, s.uploadBytes, s.downloads, s.downloadBytes)


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--input", default=DEFAULT_INPUT, help="colour image (default: %(default)s)")
    ap.add_argument("--output", help="write the result here (PNG, ...)")
    ap.add_argument("--sigma", type=float, default=1.5, help="sigma of both blurs (default: %(default)s)")
    args = ap.parse_args(argv)

    n = cv2.cuda.getCudaEnabledDeviceCount()   # -1: no driver, 0: no device
    if n > 0:
        print("CUDA device: %s" % cv2.cudaimage.device_name(0))
    else:
        print("no CUDA device: only the CPU chain runs")
    cupy, cupy_why = import_cupy()
    torch, torch_why = import_torch()
    print("CuPy: %s" % (cupy.__version__ if cupy else "skipped (%s)" % cupy_why))
    print("PyTorch: %s" % (torch.__version__ if torch else "skipped (%s)" % torch_why))

    img = cv2.imread(args.input, cv2.IMREAD_COLOR)
    if img is None:
        sys.exit("cannot read %s" % args.input)
    print("input: %s (%dx%d, %d channels, %d bytes)" % (args.input, img.shape[1], img.shape[0], img.shape[2], img.nbytes))
    expected = cpu_chain(img, args.sigma, cupy is not None, torch is not None)
    print("CPU chain: done (cv2.GaussianBlur%s%s, cv2.GaussianBlur)"
          % (", 255 - x" if cupy else "", ", rint(x * %g)" % SCALE if torch else ""))
    if n < 1:
        print("no CUDA device: GPU chain skipped (this sample needs a GPU; the CPU chain above ran)")
        return 0

    m = cv2.cuda.SyncedMat(img)                 # host valid: a pinned copy, nothing on the device yet
    blur = cv2.cuda.createGaussianBlur(m.type(), -1, (0, 0), args.sigma, args.sigma, BORDER)
    print("0. SyncedMat from the image:             %s" % counters(m))

    # Our filters run on the legacy default stream, as CuPy's and PyTorch's default streams do;
    # the SyncedMat also orders other streams itself (events), e.g. torch.from_dlpack's stream.
    null: cv2.cuda.Stream = (cv2.cuda.Stream.Null() if hasattr(cv2.cuda.Stream, "Null")
                             else getattr(cv2.cuda, "Stream_Null")())
    cv2.cuda.applyFilterInPlace(blur, m, null)
    print("1. cudaimage blur (in place):            %s" % counters(m))
    device_ptr = m.readDevice(null).cudaPtr()   # device valid: no copy, just the address
    same_memory = True

    if cupy is not None:
        x = cupy.asarray(m.deviceArray(null))   # explicit read-write access, by the CUDA array interface
        same_memory &= x.data.ptr == device_ptr
        cupy.bitwise_not(x, out=x)              # 255 - x, in place on the SyncedMat's memory
        print("2. CuPy 255 - x (in place):              %s; same memory: %s" % (counters(m), x.data.ptr == device_ptr))
        del x
    if torch is not None:
        t = torch.from_dlpack(m)                # DLPack on torch's current stream: read-write access
        same_memory &= t.data_ptr() == device_ptr
        t.copy_(torch.round(t.to(torch.float32) * SCALE).to(torch.uint8))   # round: half to even
        print("3. PyTorch rint(x * %g) (in place):      %s; same memory: %s"
              % (SCALE, counters(m), t.data_ptr() == device_ptr))
        del t

    cv2.cuda.applyFilterInPlace(blur, m, null)
    print("4. cudaimage blur (in place):            %s" % counters(m))
    result = m.readHostCopy()                   # the one download
    print("5. readHost():                           %s" % counters(m))

    s = m.stats()
    ok_counts = s.uploads == 1 and s.downloads == 1 and s.uploadBytes == img.nbytes and s.downloadBytes == img.nbytes
    same = np.array_equal(result, expected)
    print("transfers: %s (expected 1 and 1: nothing was copied that need not be)" % ("OK" if ok_counts else "UNEXPECTED"))
    print("zero-copy: %s" % ("CuPy and PyTorch used the SyncedMat's device memory" if same_memory else "NO: a library copied"))
    print("matches the CPU chain: %s" % ("yes" if same else "NO, max difference %d"
                                         % int(np.abs(result.astype(np.int16) - expected.astype(np.int16)).max())))
    if args.output and not cv2.imwrite(args.output, result):
        sys.exit("cannot write %s" % args.output)
    return 0 if (ok_counts and same and same_memory) else 1


if __name__ == "__main__":
    sys.exit(main())
