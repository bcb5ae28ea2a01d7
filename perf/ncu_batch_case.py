#!/usr/bin/env python3
"""One batch case for Nsight Compute and for the host's share of a batch call: N random images of
H x W x C uint8 stacked in one CUDA buffer (CuPy), per-image sigma uniform in [0.1, SMAX], through
cv2.cudaimage.tensor.gaussian_blur_batch, called twice (the first warms up; profile the second).

    PYTHONPATH=$B/lib/python LD_LIBRARY_PATH=$B/lib:$B/lib/carried \\
    ncu --clock-control none -k regex:Batch --launch-skip 8 \\
        --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats \\
        python3 perf/ncu_batch_case.py 256 224 224 3 [--smax 2]

--repeat K calls it K times instead of twice (a host profiler's run: py-spy record --native).
--host-slope instead times the host part of a call (wall time of the enqueue, the stream idle
before it) for N/8, N/4, N/2 and N images, with one sigma for all and with a sigma per image: the
slope is the host cost per image."""
import argparse
import statistics
import time

import numpy as np
import cv2
from cv2.cudaimage import tensor


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("n", type=int)
    ap.add_argument("h", type=int)
    ap.add_argument("w", type=int)
    ap.add_argument("c", type=int)
    ap.add_argument("--smax", type=float, default=2.0)
    ap.add_argument("--host-slope", action="store_true")
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    import cupy
    rng = np.random.default_rng(3)
    shape = (args.n, args.h, args.w, args.c)
    x = cupy.asarray(rng.integers(0, 256, shape, dtype=np.uint8))
    y = cupy.empty_like(x)
    sigmas = rng.uniform(0.1, args.smax, args.n)
    if not args.host_slope:
        for _ in range(args.repeat):
            tensor.gaussian_blur_batch(x, sigmas, out=y)
            cupy.cuda.get_current_stream().synchronize()
        cupy.cuda.runtime.deviceSynchronize()
        print("%d x %dx%dx%d: done" % shape)
        return
    for per_image in (False, True):
        for n in (args.n // 8, args.n // 4, args.n // 2, args.n):
            s = sigmas[:n] if per_image else 1.5
            xs, ys = x[:n], y[:n]
            ts = []
            for k in range(23):
                cupy.cuda.runtime.deviceSynchronize()
                t0 = time.perf_counter()
                tensor.gaussian_blur_batch(xs, s, out=ys)
                if k >= 3:
                    ts.append((time.perf_counter() - t0) * 1e6)
            print("host_slope per_image_sigma=%d n=%d host_us=%.1f" % (per_image, n, statistics.median(ts)))


if __name__ == "__main__":
    main()
