#!/usr/bin/env python3
"""One Gaussian blur case for Nsight Compute: a random SIZE x SIZE image of TYPE on the GPU,
cv2.cuda.createGaussianBlur(...).apply() twice (the first warms up; profile the second).

    PYTHONPATH=$B/lib/python LD_LIBRARY_PATH=$B/lib:$B/lib/carried \\
    ncu --clock-control none -k regex:'fused|gaussian' --launch-skip 1 --launch-count 1 \\
        --section SpeedOfLight --section Occupancy --section WarpStateStats \\
        --section ComputeWorkloadAnalysis --section LaunchStats \\
        python3 perf/ncu_gaussian_case.py 16UC1 10 [--size 8192]

TYPE is 8UC1..8UC4, 16UC1..16UC4 or 32FC1..32FC4; ksize = 2 round(3 sigma) + 1, BORDER_REPLICATE,
as perf/gaussian_bench.cu's table (perf/results/2026-12-04-H200-ncu-missed-cells.txt)."""
import argparse

import numpy as np
import cv2

from python_peers_bench import ksize_for   # the table's rule (beside this file in perf/)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("type")
    ap.add_argument("sigma", type=float)
    ap.add_argument("--size", type=int, default=8192)
    args = ap.parse_args()
    depth, cn = args.type.split("C")
    cn = int(cn)
    shape = (args.size, args.size, cn) if cn > 1 else (args.size, args.size)
    rng = np.random.default_rng(1)
    if depth == "8U":
        a = rng.integers(0, 256, shape, dtype=np.uint8)
    elif depth == "16U":
        a = rng.integers(0, 65536, shape, dtype=np.uint16)
    elif depth == "32F":
        a = rng.random(shape, dtype=np.float32) * 255
    else:
        raise SystemExit("type must be 8U, 16U or 32F with 1 to 4 channels: %s" % args.type)
    src = cv2.cuda.GpuMat(a)
    dst = cv2.cuda.GpuMat(src.size(), src.type())
    k = ksize_for(args.sigma)
    f = cv2.cuda.createGaussianBlur(src.type(), src.type(), (k, k), args.sigma, args.sigma, cv2.BORDER_REPLICATE)
    for _ in range(2):
        f.apply(src, dst)
    dst.download()
    print("%s sigma %g ksize %d: done" % (args.type, args.sigma, k))


if __name__ == "__main__":
    main()
