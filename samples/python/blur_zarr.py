#!/usr/bin/env python3
"""Blur a chunked Zarr image larger than memory through Dask, chunk by chunk, into another Zarr.

    python3 samples/python/blur_zarr.py IN.zarr OUT.zarr --sigma S [--scheduler ADDRESS]
    python3 samples/python/blur_zarr.py --make-test-image 20000x30000 IN.zarr [OUT.zarr --sigma S]

The image (H x W, or H x W x C with C = 1 to 4; uint8, uint16, int16, float32 or float64) is read
chunk by chunk, blurred by cv2.cudaimage.dask.gaussian_blur (each chunk with a halo of the kernel
radius, on each worker's GPU when it has one, else with cv2.GaussianBlur; exactly the whole-image
result for 8- and 16-bit images) and written chunk by chunk with the input's chunks: no process
ever holds the image, only the chunks on the scheduler's front (a few rows of chunks, shared by the
workers).

--make-test-image HxW writes a synthetic image to IN.zarr first (rings and a gradient plus
hash noise computed from each pixel's coordinates: deterministic, the same for any --chunks,
generated chunk by chunk; nothing is downloaded).

Without --scheduler the blur runs in this process (Dask's threads, its progress bar); with
--scheduler tcp://HOST:8786 it runs on that dask.distributed cluster (`dask scheduler`, one
`dask worker` per GPU) and IN/OUT must be paths every worker can reach. Prints the throughput in
megapixels per second and the peak resident memory of this process or of each worker.
"""
import argparse
import os
import resource
import sys
import time

import numpy as np
import cv2

BORDERS = {"replicate": cv2.BORDER_REPLICATE, "reflect101": cv2.BORDER_REFLECT_101,
           "reflect": cv2.BORDER_REFLECT, "constant": cv2.BORDER_CONSTANT, "wrap": cv2.BORDER_WRAP}
DTYPES = ("uint8", "uint16", "int16", "float32", "float64")


def size_arg(text):
    try:
        h, w = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError("expected HxW (e.g. 20000x30000), got %r" % text)
    if h < 1 or w < 1:
        raise argparse.ArgumentTypeError("height and width must be positive, got %r" % text)
    return h, w


def ksize_arg(text):
    try:
        parts = [int(v) for v in text.lower().split("x")]
    except ValueError:
        raise argparse.ArgumentTypeError("expected K or WxH, got %r" % text)
    if len(parts) == 1:
        return parts[0], parts[0]
    if len(parts) == 2:
        return parts[0], parts[1]
    raise argparse.ArgumentTypeError("expected K or WxH, got %r" % text)


def _mix(v):
    """splitmix64's finaliser: uint64 -> well-mixed uint64 (wrapping arithmetic)."""
    v = (v ^ (v >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    v = (v ^ (v >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return v ^ (v >> np.uint64(31))


def pattern_block(dtype, full_shape, block_info=None):
    """The test image's pixels in this block, from their global coordinates only."""
    (y0, y1), (x0, x1) = block_info[None]["array-location"][:2]
    h, w = full_shape[:2]
    yy = np.arange(y0, y1, dtype=np.float64)[:, None]
    xx = np.arange(x0, x1, dtype=np.float64)[None, :]
    cy, cx = (h - 1) / 2.0, (w - 1) / 2.0
    r = np.hypot(yy - cy, xx - cx)
    period = max(8.0, min(h, w) / 40.0)
    channels = full_shape[2] if len(full_shape) == 3 else 1
    planes = []
    with np.errstate(over="ignore"):
        key = (np.arange(y0, y1, dtype=np.uint64)[:, None] * np.uint64(0x9E3779B97F4A7C15)
               + np.arange(x0, x1, dtype=np.uint64)[None, :] * np.uint64(0xC2B2AE3D27D4EB4F))
        for c in range(channels):
            noise = (_mix(key + np.uint64(c + 1) * np.uint64(0x165667B19E3779F9)) >> np.uint64(11)).astype(np.float64)
            noise /= float(1 << 53)
            smooth = 0.5 + 0.25 * np.sin(r / period + c * 2.1) + 0.1 * (xx / max(w - 1, 1) - 0.5)
            planes.append(np.clip(0.85 * smooth + 0.15 * noise, 0.0, 1.0))
    v = np.stack(planes, axis=-1) if len(full_shape) == 3 else planes[0]
    dt = np.dtype(dtype)
    if dt.kind == "f":
        return v.astype(dt)
    info = np.iinfo(dt)
    return np.rint(info.min + v * (float(info.max) - info.min)).astype(dt)


def make_test_image(path, hw, chunks, dtype, channels, overwrite):
    import dask.array as da
    shape = hw + ((channels,) if channels > 1 else ())
    chunk_shape = (chunks, chunks) + ((channels,) if channels > 1 else ())
    x = da.map_blocks(pattern_block, dtype, shape, chunks=da.core.normalize_chunks(chunk_shape, shape),
                      dtype=dtype, meta=np.empty((0,) * len(shape), dtype))
    t0 = time.perf_counter()
    x.to_zarr(path, overwrite=overwrite)
    dt = time.perf_counter() - t0
    print("test image: %s, %dx%d, %d channel(s), %s, chunks %dx%d: written in %.2f s"
          % (path, shape[0], shape[1], channels, dtype, chunk_shape[0], chunk_shape[1], dt))


def peak_rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0      # Linux: KiB


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n\n".join(__doc__.split("\n\n")[2:]))
    ap.add_argument("input", metavar="IN.zarr", help="chunked Zarr array (H x W or H x W x C)")
    ap.add_argument("output", metavar="OUT.zarr", nargs="?", help="where to write the blurred image")
    ap.add_argument("--sigma", type=float, help="Gaussian sigma in x (required with OUT.zarr)")
    ap.add_argument("--sigma-y", type=float, default=0.0, help="sigma in y (default: --sigma)")
    ap.add_argument("--ksize", type=ksize_arg, default=(0, 0), help="K or WxH, odd (default: from sigma)")
    ap.add_argument("--border", choices=sorted(BORDERS), default="replicate", help="default: %(default)s")
    ap.add_argument("--device", choices=("auto", "gpu", "cpu"), default="auto", help="default: %(default)s")
    ap.add_argument("--scheduler", metavar="ADDRESS", help="dask.distributed scheduler, e.g. tcp://host:8786")
    ap.add_argument("--overwrite", action="store_true", help="replace existing Zarr arrays")
    g = ap.add_argument_group("test image")
    g.add_argument("--make-test-image", type=size_arg, metavar="HxW", help="write a synthetic image to IN.zarr first")
    g.add_argument("--chunks", type=int, default=1024, help="its square chunk side (default: %(default)s)")
    g.add_argument("--dtype", choices=DTYPES, default="uint8", help="its type (default: %(default)s)")
    g.add_argument("--channels", type=int, choices=(1, 2, 3, 4), default=1, help="its channels (default: %(default)s)")
    args = ap.parse_args(argv)
    if args.output and args.sigma is None:
        ap.error("--sigma is required to blur into OUT.zarr")
    if not args.output and not args.make_test_image:
        ap.error("nothing to do: give OUT.zarr (and --sigma), or --make-test-image")
    for path in (args.output, args.input if args.make_test_image else None):
        if path and os.path.exists(path) and not args.overwrite:
            ap.error("%s exists (--overwrite to replace it)" % path)

    try:
        import dask
        import dask.array as da
        from cv2.cudaimage import dask as cdask
    except ImportError as e:
        sys.exit("blur_zarr: %s (pip install -r scripts/python-requirements.txt)" % e)

    client = None
    if args.scheduler:
        import distributed
        client = distributed.Client(args.scheduler, timeout="60s")
        workers = client.scheduler_info()["workers"]
        print("cluster: %s, %d workers (%s)" % (args.scheduler, len(workers),
              ", ".join("%s: %d threads" % (w.get("name", a), w.get("nthreads", 0)) for a, w in workers.items())))

    if args.make_test_image:
        make_test_image(args.input, args.make_test_image, args.chunks, args.dtype, args.channels, args.overwrite)
    if not args.output:
        return 0

    try:
        x = da.from_zarr(args.input)
    except Exception as e:   # missing, or not a Zarr array
        sys.exit("blur_zarr: error: cannot open %s as a Zarr array: %s: %s" % (args.input, type(e).__name__, e))
    h, w = x.shape[:2]
    try:
        kx, ky = cdask.kernel_size(x.dtype, args.ksize, args.sigma, args.sigma_y)
        y = cdask.gaussian_blur(x, args.ksize, args.sigma, args.sigma_y, BORDERS[args.border], device=args.device)
    except (TypeError, ValueError, RuntimeError) as e:      # bad arguments or image, no GPU: before any work
        sys.exit("blur_zarr: error: %s" % e)
    chunk_bytes = max(x.blocks[0, 0].nbytes if x.ndim == 2 else x.blocks[0, 0, 0].nbytes, 1)
    print("input: %s, shape %s, %s, chunks %s (%.1f MiB each), %.1f MiB in all"
          % (args.input, x.shape, x.dtype, "x".join(str(c[0]) for c in x.chunks), chunk_bytes / 2.0**20, x.nbytes / 2.0**20))
    print("blur: sigma %g/%g, kernel %dx%d (halo %d rows, %d columns), border %s, device %s"
          % (args.sigma, args.sigma_y if args.sigma_y > 0 else args.sigma, kx, ky, ky // 2, kx // 2, args.border,
             args.device))
    store = y.to_zarr(args.output, overwrite=args.overwrite, compute=False)

    rss_before = peak_rss_mib()                             # imports and the graph
    t0 = time.perf_counter()
    if client is None:
        from dask.diagnostics import ProgressBar
        with ProgressBar(dt=0.5):
            dask.compute(store)
    else:
        import distributed
        future = client.compute(store)
        distributed.progress(future)                        # text bar; returns when done
        future.result()
    seconds = time.perf_counter() - t0
    mp = h * w / 1e6
    print("blurred %s -> %s: %.1f MP in %.2f s: %.1f MP/s (%.1f MiB/s of input, Zarr read and write included)"
          % (args.input, args.output, mp, seconds, mp / seconds, x.nbytes / 2.0**20 / seconds))
    if client is None:
        peak = peak_rss_mib()
        print("peak resident memory of this process: %.0f MiB, %.0f MiB above its peak before the blur "
              "(image %.0f MiB, one chunk %.1f MiB)" % (peak, peak - rss_before, x.nbytes / 2.0**20, chunk_bytes / 2.0**20))
    else:
        peaks = client.run(peak_rss_mib)
        stats = client.run(cdask.worker_stats)
        for address in sorted(peaks):
            s = stats[address]
            print("worker %s: peak resident memory %.0f MiB (since it started); blocks: %d CPU, %d GPU (NumPy), %d GPU (CuPy)"
                  % (address, peaks[address], s["cpu_blocks"], s["gpu_numpy_blocks"], s["gpu_cupy_blocks"]))
        client.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
