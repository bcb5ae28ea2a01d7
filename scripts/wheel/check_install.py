#!/usr/bin/env python3
"""Checks an installed opencv-cudaimage wheel, as a pip user has it (scripts/wheel/test-wheel.sh here,
scripts/gpu/bundle/wheel-check.sh on the GPU machine). Run it with the environment's interpreter,
outside the source tree and without PYTHONPATH.

    check_install.py --prefix VENV [--opencv-version 5.1.0] [--require-gpu]

1. every shared object of the installed package resolves (ldd): our libraries from the wheel's
   opencv_cudaimage.libs/, NPP from the nvidia-npp wheel or the machine (which one is printed);
2. cv2 and cv2.cudaimage are imported from VENV (not from the source tree, a build tree or another
   cv2), and no OpenCV distribution from PyPI shares their site-packages;
3. cv2.__version__, the bindings (cv2.cuda.createGaussianBlur, GaussianBlur, SyncedMat,
   processBatchGaussian, cv2.cudaimage.DeviceArray) and argument errors raised before any CUDA
   call (no GPU needed);
4. the device count, said plainly: -1 no CUDA driver, 0 no device. With --require-gpu, no device
   is a failure; with a device, one 8-bit blur on it equals cv2.GaussianBlur.
Exit status 0 if every check passed.
"""
import argparse
import glob
import os
import re
import subprocess
import sys

OFFICIAL = ("opencv-python", "opencv-contrib-python", "opencv-python-headless", "opencv-contrib-python-headless")
failures = []


def check(ok, what, detail=""):
    print("  %s %s%s" % ("ok  " if ok else "FAIL", what, (": " + detail) if detail else ""))
    if not ok:
        failures.append(what)


def inside(path, root):
    return os.path.realpath(path).startswith(os.path.realpath(root) + os.sep)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--prefix", required=True, help="the virtual environment the wheel is installed in")
    ap.add_argument("--opencv-version", help="expected cv2.__version__")
    ap.add_argument("--require-gpu", action="store_true")
    args = ap.parse_args()

    print("python %s (%s)" % (sys.version.split()[0], sys.executable))
    check(os.path.realpath(sys.prefix) == os.path.realpath(args.prefix), "interpreter of %s" % args.prefix, sys.prefix)
    check(not os.environ.get("PYTHONPATH"), "no PYTHONPATH", os.environ.get("PYTHONPATH", ""))

    from importlib import metadata
    try:
        ours = metadata.distribution("opencv-cudaimage")
    except metadata.PackageNotFoundError:
        check(False, "opencv-cudaimage installed", "pip install dist/opencv_cudaimage-*.whl")
        return 1
    site = os.path.realpath(str(ours.locate_file("")))
    print("opencv-cudaimage %s in %s" % (ours.version, site))

    print("1. libraries (ldd), before any import")
    objects = sorted(glob.glob(os.path.join(site, "cv2", "**", "*.so"), recursive=True)
                     + glob.glob(os.path.join(site, "opencv_cudaimage.libs", "*.so*")))
    check(len(objects) > 1, "shared objects installed", "%d" % len(objects))
    npp_dirs = set()
    for obj in objects:
        out = subprocess.run(["ldd", obj], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             universal_newlines=True).stdout
        missing = re.findall(r"^\s*(\S+) => not found", out, re.M)
        check(not missing, "%s resolves" % os.path.relpath(obj, site),
              ", ".join(missing) + " not found (NPP: pip install nvidia-npp, or the CUDA 13 toolkit's on "
              "LD_LIBRARY_PATH)" if missing else "")
        for soname, path in re.findall(r"^\s*(\S+) => (/\S+)", out, re.M):
            if re.match(r"lib.+-[0-9a-f]{8}\.so", soname) and not inside(path, site):   # ours, renamed
                check(False, "%s from the wheel" % soname, path)
            if soname.startswith("libnpp"):
                npp_dirs.add(os.path.dirname(os.path.realpath(path)))
    for d in sorted(npp_dirs):
        print("  NPP: %s (%s)" % (d, "nvidia-npp wheel" if inside(d, site) else "the machine's, not a wheel"))

    if failures:
        print("install checks: %d FAILED before importing cv2: %s" % (len(failures), "; ".join(failures)))
        return 1

    print("2. where cv2 comes from")
    import numpy as np
    import cv2
    import cv2.cudaimage
    print("  numpy %s" % np.__version__)
    for name, mod in (("cv2", cv2), ("cv2.cudaimage", cv2.cudaimage)):
        check(inside(mod.__file__, site), "%s from the environment" % name, mod.__file__)
    native_file = getattr(getattr(cv2, "_native", None), "__file__", None) or ""   # set by OpenCV's loader
    check(inside(native_file, site), "the cv2 extension from the environment", native_file)
    for dist in metadata.distributions():
        name = (dist.metadata["Name"] or "").lower()
        if name in OFFICIAL:
            where = os.path.realpath(str(dist.locate_file("")))
            msg = "%s %s in %s" % (name, dist.version, where)
            if where == site:
                check(False, "no OpenCV package from PyPI beside ours", msg + " (pip uninstall it, then reinstall ours)")
            else:
                print("  note: %s: another site-packages, after ours on sys.path" % msg)

    print("3. version, bindings, argument errors")
    if args.opencv_version:
        check(cv2.__version__ == args.opencv_version, "cv2.__version__ == %s" % args.opencv_version, cv2.__version__)
    for name in ("createGaussianBlur", "GaussianBlur", "SyncedMat", "processBatchGaussian", "GpuMat"):
        check(hasattr(cv2.cuda, name), "cv2.cuda.%s" % name)
    check(isinstance(getattr(cv2.cudaimage, "DeviceArray", None), type), "cv2.cudaimage.DeviceArray")
    cuda_line = re.search(r"NVIDIA CUDA:\s*(.*)", cv2.getBuildInformation())
    check(bool(cuda_line) and cuda_line.group(1).startswith("YES"), "cv2 built with CUDA",
          cuda_line.group(1) if cuda_line else "no 'NVIDIA CUDA' line in cv2.getBuildInformation()")
    bad_calls = (
        ("even ksize", lambda: cv2.cuda.createGaussianBlur(cv2.CV_8UC1, -1, (4, 3), 1.0), "ksize.width is 4"),
        ("8S type", lambda: cv2.cuda.createGaussianBlur(cv2.CV_8SC1, -1, (3, 3), 1.0), "srcType is CV_8SC1"),
        ("ksize 0 with sigma -1", lambda: cv2.cuda.createGaussianBlur(cv2.CV_8UC1, -1, (0, 0), -1.0), "sigmaX is -1"),
        ("NaN sigma", lambda: cv2.cuda.createGaussianBlur(cv2.CV_8UC1, -1, (3, 3), float("nan")), "sigmaX is nan"),
    )
    for what, call, needle in bad_calls:
        try:
            call()
            check(False, "cv2.error for %s" % what, "nothing raised")
        except cv2.error as e:
            msg = re.sub(r"^.*error: \([^)]*\) | in function .*$", "", str(e).strip())
            check(needle in msg, "cv2.error for %s" % what, msg)
    m = cv2.cuda.SyncedMat(4, 5, cv2.CV_8UC3)
    check(m.size() == (5, 4) and m.type() == cv2.CV_8UC3 and m.stats().uploads == 0, "SyncedMat without a GPU")

    print("4. device")
    n = cv2.cuda.getCudaEnabledDeviceCount()
    said = {-1: "no CUDA driver", 0: "no CUDA device"}.get(n, "%d CUDA device(s)" % n)
    print("  cv2.cuda.getCudaEnabledDeviceCount() = %d: %s" % (n, said))
    if n < 1:
        if args.require_gpu:
            check(False, "a CUDA device (--require-gpu)", said)
    else:
        print("  device 0: %s" % cv2.cudaimage.device_name(0))
        img = np.random.default_rng(3).integers(0, 256, (241, 317, 3), dtype=np.uint8)
        g = cv2.cuda.GpuMat()
        g.upload(img)
        out = cv2.cuda.createGaussianBlur(cv2.CV_8UC3, -1, (0, 0), 2.0).apply(g).download()
        ref = cv2.GaussianBlur(img, (0, 0), 2.0, borderType=cv2.BORDER_REPLICATE)
        check(np.array_equal(out, ref), "GPU blur equals cv2.GaussianBlur (8UC3, sigma 2)")

    print("install checks: %s" % ("all passed" if not failures else "%d FAILED: %s" % (len(failures), "; ".join(failures))))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
