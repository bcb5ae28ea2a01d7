#!/usr/bin/env python3
"""cudaimage demo: Gaussian blur of a colour image on the GPU (cv2.cuda.GaussianBlur), or with
CPU cv2.GaussianBlur when there is no CUDA device, saying plainly which one it used.

    python3 samples/python/blur_demo.py [--input IMAGE] [--output-dir DIR] [--sigma 2] [--cpu]

Writes DIR/blurred.png and DIR/side_by_side.png (original | blurred, labelled with the path used)
and prints the time per blur. Default input: samples/data/blur_test.png; default DIR: out/ at the
repository root. scripts/demo.sh runs it with the module build's cv2.

Both paths use the same arguments: kernel size from sigma by OpenCV's rule (13x13 for sigma 2 on
8-bit images) and BORDER_REPLICATE, cudaimage's default, so their outputs are identical (8-bit
results of cv2.cuda.GaussianBlur are bit-exact with cv2.GaussianBlur).
"""
import argparse
import os
import sys
import time

import numpy as np
import cv2

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_INPUT = os.path.normpath(os.path.join(HERE, "..", "data", "blur_test.png"))
DEFAULT_OUTPUT = os.path.normpath(os.path.join(HERE, "..", "..", "out"))
BORDER = cv2.BORDER_REPLICATE
KSIZE = (0, 0)   # derived from sigma: cvRound(sigma * 3 * 2 + 1) | 1 for 8-bit images


def cuda_device_count():
    """Number of usable CUDA devices; 0 for a cv2 without CUDA or without a driver."""
    try:
        return max(cv2.cuda.getCudaEnabledDeviceCount(), 0)
    except (AttributeError, cv2.error):
        return 0


def device_name(index=0):
    try:
        info = cv2.cuda.DeviceInfo(index)
        return "%s (sm_%d%d, %d MiB)" % (info.name(), info.majorVersion(), info.minorVersion(),
                                         info.totalMemory() // (1 << 20))
    except (AttributeError, cv2.error):
        return "CUDA device %d" % index


def timed(fn, repeats):
    """Runs fn once to warm up (CUDA context, module load, filter set-up), then `repeats` times;
    returns the last result and the mean milliseconds per call."""
    result = fn()
    start = time.perf_counter()
    for _ in range(repeats):
        result = fn()
    return result, (time.perf_counter() - start) * 1e3 / repeats


def blur_gpu(img, sigma, repeats):
    src = cv2.cuda.GpuMat()
    src.upload(img)
    dst = cv2.cuda.GpuMat(src.size(), src.type())
    stream = cv2.cuda.Stream()

    def run():
        cv2.cuda.GaussianBlur(src, KSIZE, sigma, dst, sigmaY=sigma, borderType=BORDER, stream=stream)
        stream.waitForCompletion()
        return dst

    _, ms = timed(run, repeats)
    return dst.download(), ms


def blur_cpu(img, sigma, repeats):
    return timed(lambda: cv2.GaussianBlur(img, KSIZE, sigma, sigmaY=sigma, borderType=BORDER), repeats)


def labelled(img, text, band=28):
    """img with a dark band above it holding `text` (OpenCV drawing only)."""
    out = cv2.copyMakeBorder(img, band, 0, 0, 0, cv2.BORDER_CONSTANT, value=(32, 32, 32))
    scale = 0.55
    (w, _), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 1)
    while w > img.shape[1] - 12 and scale > 0.3:   # long labels on narrow images
        scale -= 0.05
        (w, _), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 1)
    cv2.putText(out, text, (6, band - 9), cv2.FONT_HERSHEY_SIMPLEX, scale, (255, 255, 255), 1, cv2.LINE_AA)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--input", default=DEFAULT_INPUT, help="colour image (default: %(default)s)")
    ap.add_argument("--output-dir", default=DEFAULT_OUTPUT, help="where the PNGs go (default: %(default)s)")
    ap.add_argument("--sigma", type=float, default=2.0, help="Gaussian sigma (default: %(default)s)")
    ap.add_argument("--cpu", action="store_true", help="use the CPU path even when there is a GPU")
    ap.add_argument("--repeats", type=int, default=10, help="timed runs after one warm-up (default: %(default)s)")
    args = ap.parse_args(argv)

    print("cv2 %s from %s" % (cv2.__version__, os.path.dirname(cv2.__file__)))
    n = cuda_device_count()
    use_gpu = n > 0 and not args.cpu
    if use_gpu:
        print("CUDA device: %s" % device_name(0))
    elif n < 1:
        print("no CUDA device: using the CPU path")
    else:
        print("CUDA device present, but --cpu given: using the CPU path")

    img = cv2.imread(args.input, cv2.IMREAD_COLOR)
    if img is None:
        sys.exit("cannot read %s" % args.input)
    print("input: %s (%dx%d, %d channels)" % (args.input, img.shape[1], img.shape[0], img.shape[2]))

    sigma_text = "%g" % args.sigma
    if use_gpu:
        blurred, ms = blur_gpu(img, args.sigma, args.repeats)
        label = "GPU cudaimage sigma=%s" % sigma_text
        what = "cv2.cuda.GaussianBlur on the GPU, data already on the device"
    else:
        blurred, ms = blur_cpu(img, args.sigma, args.repeats)
        label = "CPU cv2.GaussianBlur sigma=%s%s" % (sigma_text, " (no GPU)" if n < 1 else "")
        what = "cv2.GaussianBlur on the CPU"

    os.makedirs(args.output_dir, exist_ok=True)
    blurred_path = os.path.join(args.output_dir, "blurred.png")
    side_path = os.path.join(args.output_dir, "side_by_side.png")
    side = np.hstack([labelled(img, "original"), labelled(blurred, label)])
    for path, image in ((blurred_path, blurred), (side_path, side)):
        if not cv2.imwrite(path, image):
            sys.exit("cannot write %s" % path)

    mpix = img.shape[0] * img.shape[1] / 1e6
    print("path: %s" % label)
    print("time: %.3f ms per blur (%s; mean of %d after a warm-up), %.1f Mpixel/s"
          % (ms, what, args.repeats, mpix / (ms / 1e3) if ms > 0 else float("inf")))
    print("wrote %s and %s" % (blurred_path, side_path))
    return 0


if __name__ == "__main__":
    sys.exit(main())
