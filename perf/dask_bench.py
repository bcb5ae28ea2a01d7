#!/usr/bin/env python3
"""Side-by-side benchmark of Gaussian blurs of one large Dask array, in megapixels per second.

    python3 perf/dask_bench.py OUT [--size 16384x16384] [--chunks 4096] [--dtypes uint8,float32]
                               [--sigmas 2,5] [--runs 5] [--threads 4] [--scheduler ADDRESS]

Writes OUT.json (every run's time) and OUT.md (the table). Contenders, all with BORDER_REPLICATE /
mode 'nearest' and the same kernel radius (OpenCV's rule, cv2.cuda.gaussianKernelSize; dask-image
gets truncate = radius / sigma):

* cudaimage.dask gpu, NumPy chunks    gaussian_blur(device="gpu"): SyncedMat staging per thread
* cudaimage.dask gpu, CuPy chunks     gaussian_blur on CuPy chunks: no host round trip
* cudaimage.dask cpu, NumPy chunks    gaussian_blur(device="cpu"): cv2.GaussianBlur per chunk
* dask-image, CuPy chunks             dask_image.ndfilters.gaussian_filter (cupyx.scipy.ndimage)
* dask-image, NumPy chunks            dask_image.ndfilters.gaussian_filter (scipy.ndimage)
* cv2.cuda whole image (device)       one cv2.cuda.createGaussianBlur over the whole image already on
                                      the GPU, where it fits: the ceiling without Dask
* cv2.cuda whole image (host)         the same with upload and download (pageable memory)

The input is random, persisted first (host memory for NumPy chunks, GPU memory for CuPy chunks);
each contender's result is persisted (and the GPU synchronised) and dropped. One warm-up run, then
the median of --runs. A contender whose package (CuPy, dask-image) or device is missing is listed
with the reason. Each contender is also run once on a small image (--check-size) and its largest
difference from whole-image cv2.GaussianBlur is reported (0 = identical).
"""
import argparse
import datetime
import json
import platform
import statistics
import sys
import time

import numpy as np
import cv2

try:
    import dask
    import dask.array as da
    from cv2.cudaimage import dask as cdask
except ImportError as e:
    sys.exit("dask_bench: %s (pip install -r scripts/build/python-requirements.txt)" % e)

try:
    import cupy
    cupy.cuda.runtime.getDeviceCount()
    CUPY_WHY = None
except Exception as e:  # ImportError, or a CuPy without a usable CUDA
    cupy, CUPY_WHY = None, "CuPy unavailable (%s: %s)" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")
try:
    import dask_image.ndfilters as dask_ndfilters
    DASK_IMAGE_WHY = None
except Exception as e:
    dask_ndfilters, DASK_IMAGE_WHY = None, "dask-image unavailable (%s: %s)" % (type(e).__name__, e)


def package_version(name):
    try:
        from importlib.metadata import version
        return version(name)
    except Exception:
        return None


def gpu_count():
    try:
        return max(cv2.cuda.getCudaEnabledDeviceCount(), 0)
    except (AttributeError, cv2.error):
        return 0


def size_arg(text):
    h, w = (int(v) for v in text.lower().split("x"))
    return h, w


class Runner(object):
    """Persists dask arrays on the local threaded scheduler or a distributed client."""

    def __init__(self, scheduler, threads):
        self.client = None
        self.threads = threads
        if scheduler:
            import distributed
            self.client = distributed.Client(scheduler, timeout="60s")

    def persist(self, y):
        if self.client is None:
            return y.persist(scheduler="threads", num_workers=self.threads)
        import distributed
        y = self.client.persist(y)
        distributed.wait(y)
        return y

    def gpu_sync(self):
        def sync():
            if cupy is not None:
                cupy.cuda.runtime.deviceSynchronize()
            return True
        if self.client is None:
            sync()
        else:
            self.client.run(sync)

    def compute(self, y):
        if self.client is None:
            return y.compute(scheduler="threads", num_workers=self.threads)
        return self.client.compute(y).result()


def make_input(shape, chunks, dtype, seed=0):
    rng = da.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        return rng.random(shape, chunks=chunks).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=shape, chunks=chunks, endpoint=True, dtype=dtype)


def contenders(dtype, sigma):
    """(name, needs, chunk kind, function of the input dask array) for one configuration."""
    kx, _ = cdask.kernel_size(dtype, (0, 0), sigma)
    truncate = (kx // 2) / sigma
    rep = cv2.BORDER_REPLICATE
    out = [
        ("cudaimage.dask gpu, NumPy chunks", "gpu", "numpy",
         lambda x: cdask.gaussian_blur(x, (0, 0), sigma, sigma, rep, device="gpu")),
        ("cudaimage.dask gpu, CuPy chunks", "gpu+cupy", "cupy",
         lambda x: cdask.gaussian_blur(x, (0, 0), sigma, sigma, rep, device="gpu")),
        ("cudaimage.dask cpu, NumPy chunks", "", "numpy",
         lambda x: cdask.gaussian_blur(x, (0, 0), sigma, sigma, rep, device="cpu")),
        ("dask-image, CuPy chunks", "gpu+cupy+dask_image", "cupy",
         lambda x: dask_ndfilters.gaussian_filter(x, sigma, mode="nearest", truncate=truncate)),
        ("dask-image, NumPy chunks", "dask_image", "numpy",
         lambda x: dask_ndfilters.gaussian_filter(x, sigma, mode="nearest", truncate=truncate)),
    ]
    return out, kx


def missing(needs, n_gpu):
    for need in filter(None, needs.split("+")):
        if need == "gpu" and n_gpu < 1:
            return "no CUDA device"
        if need == "cupy" and cupy is None:
            return CUPY_WHY
        if need == "dask_image" and dask_ndfilters is None:
            return DASK_IMAGE_WHY
    return None


def to_cupy(x):
    return x.map_blocks(cupy.asarray, dtype=x.dtype, meta=cupy.empty((0,) * x.ndim, dtype=x.dtype))


def as_numpy(a):
    return cupy.asnumpy(a) if cupy is not None and isinstance(a, cupy.ndarray) else np.asarray(a)


def time_runs(fn, runs):
    fn()                                                    # warm-up: filters, staging, kernels
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return times


def bench_dask(runner, name, kind, build, x_numpy, x_cupy, runs):
    x = x_cupy if kind == "cupy" else x_numpy

    def once():
        y = runner.persist(build(x))
        if kind == "cupy" or name.startswith("cudaimage.dask gpu"):
            runner.gpu_sync()
        del y
    return time_runs(once, runs)


def bench_whole_image(image, sigma, runs, with_transfers):
    """cv2.cuda.createGaussianBlur over the whole image: device-resident, or host to host."""
    cv_type = {np.dtype(np.uint8): cv2.CV_8U, np.dtype(np.uint16): cv2.CV_16U, np.dtype(np.int16): cv2.CV_16S,
               np.dtype(np.float32): cv2.CV_32F, np.dtype(np.float64): cv2.CV_64F}[image.dtype]
    f = cv2.cuda.createGaussianBlur(cv_type, -1, (0, 0), sigma, sigma, cv2.BORDER_REPLICATE)
    stream = cv2.cuda.Stream()
    src, dst = cv2.cuda.GpuMat(), cv2.cuda.GpuMat()
    src.upload(image, stream)
    stream.waitForCompletion()

    def once():
        if with_transfers:
            src.upload(image, stream)
        f.apply(src, dst, stream)
        if with_transfers:
            dst.download(stream)
        stream.waitForCompletion()
    return time_runs(once, runs)


def whole_image_check(image, sigma):
    cv_type = {np.dtype(np.uint8): cv2.CV_8U, np.dtype(np.float32): cv2.CV_32F, np.dtype(np.uint16): cv2.CV_16U,
               np.dtype(np.int16): cv2.CV_16S, np.dtype(np.float64): cv2.CV_64F}[image.dtype]
    f = cv2.cuda.createGaussianBlur(cv_type, -1, (0, 0), sigma, sigma, cv2.BORDER_REPLICATE)
    g = cv2.cuda.GpuMat()
    g.upload(image)
    return f.apply(g).download()


def max_diff(a, b):
    return float(np.abs(a.astype(np.float64) - b.astype(np.float64)).max())


def device_name():
    if gpu_count() < 1:
        return "no CUDA device"
    try:
        from cv2 import cudaimage
        return cudaimage.device_name(0)
    except Exception:
        return "device 0"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", help="output prefix: writes OUT.json and OUT.md")
    ap.add_argument("--size", type=size_arg, default=(16384, 16384), help="HxW (default 16384x16384)")
    ap.add_argument("--chunks", type=int, default=4096, help="square chunk side (default %(default)s)")
    ap.add_argument("--dtypes", default="uint8,float32", help="comma-separated (default %(default)s)")
    ap.add_argument("--sigmas", default="2,5", help="comma-separated (default %(default)s)")
    ap.add_argument("--runs", type=int, default=5, help="timed runs after one warm-up; median (default %(default)s)")
    ap.add_argument("--threads", type=int, default=4, help="local scheduler threads (default %(default)s)")
    ap.add_argument("--scheduler", metavar="ADDRESS", help="a dask.distributed scheduler instead of local threads")
    ap.add_argument("--check-size", type=int, default=1024, help="side of the exactness check image (default %(default)s)")
    ap.add_argument("--only", help="comma-separated substrings: run only contenders whose name contains one")
    args = ap.parse_args(argv)

    n_gpu = gpu_count()
    runner = Runner(args.scheduler, args.threads)
    h, w = args.size
    meta = {
        "date": datetime.datetime.now().isoformat(timespec="seconds"), "host": platform.node(),
        "gpu": device_name(), "cv2": cv2.__version__, "dask": dask.__version__,
        "dask_image": package_version("dask-image"),
        "cupy": None if cupy is None else cupy.__version__, "numpy": np.__version__,
        "python": platform.python_version(), "size": [h, w], "chunks": args.chunks, "runs": args.runs,
        "scheduler": args.scheduler or "threads (%d)" % args.threads, "check_size": args.check_size, "border": "BORDER_REPLICATE / mode 'nearest'",
    }
    print("dask_bench: %dx%d, chunks %d, %s, %s; GPU: %s" % (h, w, args.chunks, meta["scheduler"], args.dtypes, meta["gpu"]))
    only = [s.strip() for s in args.only.split(",")] if args.only else None
    results = []
    for dtype_name in args.dtypes.split(","):
        dtype = np.dtype(dtype_name.strip())
        x_numpy = runner.persist(make_input((h, w), args.chunks, dtype))
        x_cupy = runner.persist(to_cupy(x_numpy)) if cupy is not None and n_gpu > 0 else None
        check_image = np.asarray(make_input((args.check_size, args.check_size), args.check_size, dtype, seed=1).compute())
        check_numpy = da.from_array(check_image, chunks=max(args.check_size // 4, 1))
        check_cupy = to_cupy(check_numpy) if x_cupy is not None else None
        whole = None
        for sigma in (float(s) for s in args.sigmas.split(",")):
            reference = cv2.GaussianBlur(check_image, (0, 0), sigma, sigmaY=sigma, borderType=cv2.BORDER_REPLICATE)
            entries, ksize = contenders(dtype, sigma)
            for name, needs, kind, build in entries:
                row = {"contender": name, "dtype": dtype.name, "sigma": sigma, "ksize": ksize}
                if only and not any(s in name for s in only):
                    continue
                why = missing(needs, n_gpu)
                if why:
                    row["skipped"] = why
                else:
                    try:
                        got = runner.compute(build(check_cupy if kind == "cupy" else check_numpy))
                        row["max_abs_diff_vs_cv2"] = max_diff(as_numpy(got), reference)
                        times = bench_dask(runner, name, kind, build, x_numpy, x_cupy, args.runs)
                        row.update(times_s=times, median_s=statistics.median(times),
                                   mp_per_s=h * w / 1e6 / statistics.median(times))
                    except Exception as e:   # e.g. out of memory: report it, go on with the others
                        row["error"] = "%s: %s" % (type(e).__name__, str(e).strip().splitlines()[-1] if str(e).strip() else "")
                results.append(row)
                print("  %-34s %-8s sigma %-4g %s" % (name, dtype.name, sigma, summary(row)))
            for with_transfers in (False, True):
                name = "cv2.cuda whole image (%s)" % ("host" if with_transfers else "device")
                if only and not any(s in name for s in only):
                    continue
                row = {"contender": name, "dtype": dtype.name, "sigma": sigma, "ksize": ksize}
                if n_gpu < 1:
                    row["skipped"] = "no CUDA device"
                else:
                    try:
                        if whole is None:
                            whole = np.asarray(runner.compute(x_numpy))
                        row["max_abs_diff_vs_cv2"] = max_diff(whole_image_check(check_image, sigma), reference)
                        times = bench_whole_image(whole, sigma, args.runs, with_transfers)
                        row.update(times_s=times, median_s=statistics.median(times),
                                   mp_per_s=h * w / 1e6 / statistics.median(times))
                    except (cv2.error, MemoryError) as e:
                        row["error"] = "does not fit or failed: %s" % str(e).strip().splitlines()[-1]
                results.append(row)
                print("  %-34s %-8s sigma %-4g %s" % (name, dtype.name, sigma, summary(row)))
        del x_numpy, x_cupy, whole

    with open(args.out + ".json", "w") as f:
        json.dump({"meta": meta, "results": results}, f, indent=1)
    with open(args.out + ".md", "w") as f:
        f.write(markdown(meta, results))
    print("wrote %s.json and %s.md" % (args.out, args.out))
    return 0


def summary(row):
    if "skipped" in row:
        return "skipped: %s" % row["skipped"]
    if "error" in row:
        return "error: %s" % row["error"]
    return "%8.1f MP/s (median %.3f s of %d; max |diff| vs cv2 %g)" % (
        row["mp_per_s"], row["median_s"], len(row["times_s"]), row["max_abs_diff_vs_cv2"])


def markdown(meta, results):
    names = []
    for r in results:
        if r["contender"] not in names:
            names.append(r["contender"])
    configs = []
    for r in results:
        key = (r["dtype"], r["sigma"], r["ksize"])
        if key not in configs:
            configs.append(key)
    lines = ["# Gaussian blur of a Dask array: %dx%d, chunks %d" % (meta["size"][0], meta["size"][1], meta["chunks"]), "",
             "%s; GPU: %s; cv2 %s, dask %s, dask-image %s, CuPy %s, NumPy %s, Python %s; scheduler: %s; "
             "%s; median of %d runs after one warm-up. Megapixels per second (higher is better); in brackets the "
             "largest difference from whole-image cv2.GaussianBlur on a %s check image."
             % (meta["date"], meta["gpu"], meta["cv2"], meta["dask"], meta["dask_image"], meta["cupy"], meta["numpy"],
                meta["python"], meta["scheduler"], meta["border"], meta["runs"],
                "%dx%d" % (meta["check_size"], meta["check_size"])), "",
             "| type | sigma (ksize) | " + " | ".join(names) + " |",
             "|---|---|" + "---|" * len(names)]
    for dtype, sigma, ksize in configs:
        cells = []
        for name in names:
            r = next((r for r in results if (r["dtype"], r["sigma"], r["ksize"], r["contender"]) == (dtype, sigma, ksize, name)), None)
            if r is None:
                cells.append("")
            elif "skipped" in r:
                cells.append("skipped: %s" % r["skipped"])
            elif "error" in r:
                cells.append("error: %s" % r["error"])
            else:
                cells.append("%.1f (%g)" % (r["mp_per_s"], r["max_abs_diff_vs_cv2"]))
        lines.append("| %s | %g (%d) | %s |" % (dtype, sigma, ksize, " | ".join(cells)))
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
