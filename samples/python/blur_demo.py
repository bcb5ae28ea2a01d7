#!/usr/bin/env python3
"""cudaimage demo: Gaussian blur of a colour image on the GPU (cv2.cuda.createGaussianBlur on a
cv2.cuda.SyncedMat), or with CPU cv2.GaussianBlur when there is no CUDA device, saying plainly
which one it used.

    python3 samples/python/blur_demo.py [--input IMAGE] [--output-dir DIR] [--sigma 2] [--cpu]
                                        [--repeats N] [--no-matplotlib]

This is the seed tutorial's demo done with cudaimage. The tutorial converts the image to grey,
passes float data to a kernel that reads bytes, recompiles the kernel on every call and copies both
ways each time. Here the image stays in colour, the filter is built once
(cv2.cuda.createGaussianBlur), and a SyncedMat holds the image in pinned host memory and on the
device, copying only what is stale: one upload, one download, however many filters run.

Prints the CUDA device first (the tutorial's installation check), then the time per blur of the
GPU path (data on the device; and with the upload and download) against cv2.GaussianBlur on the
CPU, and the transfer counters. Writes DIR/blurred.png and DIR/side_by_side.png (original |
blurred, labelled with the path used): a matplotlib figure where matplotlib is installed, otherwise
drawn with OpenCV. Default input: samples/data/blur_test.png; default DIR: out/ at the repository
root. scripts/demo.sh runs it with the module build's cv2.

Both paths use the same arguments: kernel size from sigma by OpenCV's rule (13x13 for sigma 2 on
8-bit images) and BORDER_REPLICATE, cudaimage's default, so their outputs are identical (8-bit
results of the GPU filter are bit-exact with cv2.GaussianBlur; the demo checks it).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Callable, Optional, Sequence, TypeVar

import numpy as np
import cv2

T = TypeVar("T")

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_INPUT = os.path.normpath(os.path.join(HERE, "..", "data", "blur_test.png"))
DEFAULT_OUTPUT = os.path.normpath(os.path.join(HERE, "..", "..", "out"))
BORDER = cv2.BORDER_REPLICATE
KSIZE = (0, 0)   # derived from sigma (cv2.cuda.gaussianKernelSize: 13 for sigma 2 on 8-bit images)


def timed(fn: Callable[[], T], repeats: int) -> tuple[T, float]:
    """Runs fn once to warm up (CUDA context, module load, filter set-up), then `repeats` times;
    returns the last result and the mean milliseconds per call."""
    result = fn()
    start = time.perf_counter()
    for _ in range(repeats):
        result = fn()
    return result, (time.perf_counter() - start) * 1e3 / repeats


def blur_gpu(img: cv2.typing.MatLike, sigma: float, repeats: int) \
        -> tuple[cv2.typing.MatLike, dict[str, float], tuple[cv2.cuda.TransferStats, cv2.cuda.TransferStats]]:
    """The GPU path. Returns the blurred image, a dict of timings (ms) and the counters."""
    stream = cv2.cuda.Stream()
    src = cv2.cuda.SyncedMat(img)                       # host valid: a pinned copy of img
    dst = cv2.cuda.SyncedMat()                          # filled by the filter, on the device
    blur = cv2.cuda.createGaussianBlur(src.type(), -1, KSIZE, sigma, sigma, BORDER)   # built once

    t0 = time.perf_counter()
    dst = cv2.cuda.applyFilter(blur, src, dst, stream)  # one upload of src, blur into dst's device side
    blurred = dst.readHostCopy()                        # one download (waits for it)
    first_ms = (time.perf_counter() - t0) * 1e3
    stats = (src.stats(), dst.stats())

    # Data resident on the device: what a pipeline that keeps its images on the GPU pays per blur.
    src_dev = src.readDevice(stream)                    # no copy: the device side is valid
    out_dev = cv2.cuda.GpuMat(src_dev.size(), src_dev.type())

    def device_only() -> None:
        blur.apply(src_dev, out_dev, stream)
        stream.waitForCompletion()

    _, device_ms = timed(device_only, repeats)

    # New host data each time: upload + blur + download through the same SyncedMats (pinned memory).
    def with_transfers() -> cv2.typing.MatLike:
        src.writeHost()[...] = img                      # discard-write: nothing downloaded
        cv2.cuda.applyFilter(blur, src, dst, stream)
        return dst.readHost()

    _, transfer_ms = timed(with_transfers, repeats)

    # The one-shot form gives the same pixels.
    one_shot_dev = cv2.cuda.GaussianBlur(src_dev, KSIZE, sigma, sigmaY=sigma, borderType=BORDER, stream=stream)
    stream.waitForCompletion()
    one_shot = one_shot_dev.download()
    if not np.array_equal(one_shot, blurred):
        sys.exit("cv2.cuda.GaussianBlur and createGaussianBlur disagree")
    return blurred, {"device": device_ms, "transfers": transfer_ms, "first": first_ms}, stats


def blur_cpu(img: cv2.typing.MatLike, sigma: float, repeats: int) -> tuple[cv2.typing.MatLike, float]:
    return timed(lambda: cv2.GaussianBlur(img, KSIZE, sigma, sigmaY=sigma, borderType=BORDER), repeats)


def labelled(img: cv2.typing.MatLike, text: str, band: int = 28) -> cv2.typing.MatLike:
    """img with a dark band above it holding `text` (OpenCV drawing only)."""
    out = cv2.copyMakeBorder(img, band, 0, 0, 0, cv2.BORDER_CONSTANT, value=(32, 32, 32))
    scale = 0.55
    (w, _), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 1)
    while w > img.shape[1] - 12 and scale > 0.3:   # long labels on narrow images
        scale -= 0.05
        (w, _), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 1)
    cv2.putText(out, text, (6, band - 9), cv2.FONT_HERSHEY_SIMPLEX, scale, (255, 255, 255), 1, cv2.LINE_AA)
    return out


def save_figure(path: str, img: cv2.typing.MatLike, blurred: cv2.typing.MatLike, label: str,
                use_matplotlib: bool) -> str:
    """The tutorial's side-by-side figure: matplotlib where installed (and allowed), otherwise
    OpenCV drawing (original | blurred, pixel for pixel, each under a label band). Returns which."""
    if use_matplotlib:
        try:
            import matplotlib
            matplotlib.use("Agg")                       # no display needed
            import matplotlib.pyplot as plt
        except ImportError:
            pass
        else:
            fig = plt.figure(figsize=(12, 5))
            for i, (image, title) in enumerate(((img, "Original"), (blurred, label))):
                ax = fig.add_subplot(1, 2, i + 1)
                ax.imshow(cv2.cvtColor(image, cv2.COLOR_BGR2RGB))   # in colour, unlike the tutorial
                ax.set_title(title)
                ax.axis("off")
            fig.tight_layout()
            fig.savefig(path, dpi=100)
            plt.close(fig)
            return "matplotlib"
    side = np.hstack([labelled(img, "original"), labelled(blurred, label)])
    if not cv2.imwrite(path, side):
        sys.exit("cannot write %s" % path)
    return "OpenCV drawing"


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--input", default=DEFAULT_INPUT, help="colour image (default: %(default)s)")
    ap.add_argument("--output-dir", default=DEFAULT_OUTPUT, help="where the PNGs go (default: %(default)s)")
    ap.add_argument("--sigma", type=float, default=2.0, help="Gaussian sigma (default: %(default)s)")
    ap.add_argument("--cpu", action="store_true", help="use the CPU path even when there is a GPU")
    ap.add_argument("--repeats", type=int, default=10, help="timed runs after one warm-up (default: %(default)s)")
    ap.add_argument("--no-matplotlib", action="store_true",
                    help="draw side_by_side.png with OpenCV even when matplotlib is installed")
    args = ap.parse_args(argv)

    # The device first: the tutorial's installation check (-1: no driver, 0: no device).
    n = cv2.cuda.getCudaEnabledDeviceCount()
    use_gpu = n > 0 and not args.cpu
    if n > 0:
        info = cv2.cuda.DeviceInfo(0)
        print("CUDA device: %s (sm_%d%d, %d MiB)" % (cv2.cudaimage.device_name(0), info.majorVersion(),
                                                     info.minorVersion(), info.totalMemory() // (1 << 20)))
    if not use_gpu:
        print("no CUDA device: using the CPU path" if n < 1 else
              "CUDA device present, but --cpu given: using the CPU path")
    print("cv2 %s from %s" % (cv2.__version__, os.path.dirname(cv2.__file__)))

    img = cv2.imread(args.input, cv2.IMREAD_COLOR)
    if img is None:
        sys.exit("cannot read %s" % args.input)
    print("input: %s (%dx%d, %d channels)" % (args.input, img.shape[1], img.shape[0], img.shape[2]))

    sigma_text = "%g" % args.sigma
    mpix = img.shape[0] * img.shape[1] / 1e6

    def rate(ms: float) -> float:
        return mpix / (ms / 1e3) if ms > 0 else float("inf")

    cpu_blurred, cpu_ms = blur_cpu(img, args.sigma, args.repeats)
    if use_gpu:
        blurred, ms, stats = blur_gpu(img, args.sigma, args.repeats)
        label = "GPU cudaimage sigma=%s" % sigma_text
        print("path: %s" % label)
        print("time: %.3f ms per blur (cv2.cuda createGaussianBlur on the GPU, data already on the device; "
              "mean of %d after a warm-up), %.1f Mpixel/s" % (ms["device"], args.repeats, rate(ms["device"])))
        print("      %.3f ms per blur with upload and download (SyncedMat, pinned memory), %.1f Mpixel/s"
              % (ms["transfers"], rate(ms["transfers"])))
        print("      %.3f ms for the first call (filter set-up, allocations, upload, blur, download)" % ms["first"])
        print("CPU:  %.3f ms per blur (cv2.GaussianBlur, %d threads), %.1f Mpixel/s; GPU speed-up %.1fx "
              "(data on the device), %.1fx (with transfers)"
              % (cpu_ms, cv2.getNumThreads(), rate(cpu_ms), cpu_ms / ms["device"], cpu_ms / ms["transfers"]))
        src_stats, dst_stats = stats
        print("transfers for the first blur: %d upload (%d bytes), %d download (%d bytes)"
              % (src_stats.uploads + dst_stats.uploads, src_stats.uploadBytes + dst_stats.uploadBytes,
                 src_stats.downloads + dst_stats.downloads, src_stats.downloadBytes + dst_stats.downloadBytes))
        same = np.array_equal(blurred, cpu_blurred)
        print("identical to cv2.GaussianBlur: %s" % ("yes" if same else "NO, max difference %d" % int(
            np.abs(blurred.astype(np.int16) - cpu_blurred.astype(np.int16)).max())))
    else:
        blurred = cpu_blurred
        label = "CPU cv2.GaussianBlur sigma=%s%s" % (sigma_text, " (no GPU)" if n < 1 else "")
        print("path: %s" % label)
        print("time: %.3f ms per blur (cv2.GaussianBlur on the CPU, %d threads; mean of %d after a warm-up), "
              "%.1f Mpixel/s" % (cpu_ms, cv2.getNumThreads(), args.repeats, rate(cpu_ms)))

    os.makedirs(args.output_dir, exist_ok=True)
    blurred_path = os.path.join(args.output_dir, "blurred.png")
    side_path = os.path.join(args.output_dir, "side_by_side.png")
    if not cv2.imwrite(blurred_path, blurred):
        sys.exit("cannot write %s" % blurred_path)
    how = save_figure(side_path, img, blurred, label, not args.no_matplotlib)
    print("figure: %s (%s)" % (side_path, how))
    print("wrote %s and %s" % (blurred_path, side_path))
    return 0


if __name__ == "__main__":
    sys.exit(main())
