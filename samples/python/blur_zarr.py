#!/usr/bin/env python3
"""Blur a chunked Zarr image larger than memory through Dask, band by band, into another Zarr.

    python3 samples/python/blur_zarr.py IN.zarr OUT.zarr --sigma S [--band-rows N] [--scheduler ADDRESS]
    python3 samples/python/blur_zarr.py --make-test-image 20000x30000 IN.zarr [OUT.zarr --sigma S]

The image (H x W, or H x W x C with C = 1 to 4; uint8, uint16, int16, float32 or float64) is blurred
in horizontal bands of --band-rows rows of chunks (default 1; more where that is fewer rows than
the kernel radius r), one band after another: each band with r halo rows above and below it (none
beyond the real top and bottom; from the other end with --border wrap) is blurred by
cv2.cudaimage.dask.gaussian_blur (chunk by chunk, each chunk with its own halo, on each worker's GPU
when it has one, else with cv2.GaussianBlur), cropped to its own rows and written to them in
OUT.zarr (whole chunks). The band's false top and bottom edges reach only the halo rows' own
output, which is dropped, so the result is exactly the whole-image result for 8- and 16-bit images
(within gaussian_blur's tolerances for the others). The halo below a band is read from the next row
of chunks; the halo above it is carried from the band before (cut from its last chunks as they are
blurred): every input chunk is read twice. In a band of one row of chunks Dask goes from left to
right and frees each chunk once it is blurred, so this process, or each worker, holds a few chunks
at a time however large the image; a taller band trades memory (rows of chunks, growing with the
image's width) for fewer reads (1 + 1/N per chunk).

--make-test-image HxW writes a synthetic image to IN.zarr first (rings and a gradient plus
hash noise computed from each pixel's coordinates: deterministic, the same for any --chunks,
generated chunk by chunk; nothing is downloaded).

Without --scheduler the blur runs in this process (Dask's threads, --threads N of them, one progress bar for all the
bands); with --scheduler tcp://HOST:8786 it runs on that dask.distributed cluster (`dask scheduler`,
one `dask worker` per GPU; IN/OUT must be paths every worker can reach), with enough bands in flight
for two chunks per worker thread (at least two: the next band's tasks fill the threads the band
before leaves idle; the scheduler runs the earlier band's first). Prints the throughput in megapixels
per second and the peak resident memory of this process (and the most data Dask held at once) or of
each worker, and the peak device memory in use on its GPU.
"""
from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from typing import TYPE_CHECKING, Any, Callable, Generator, Optional, Sequence, TextIO, cast

import numpy as np
import numpy.typing as npt
import cv2

if TYPE_CHECKING:                    # Dask and Zarr are imported where used (this file loads without them)
    import dask.array as da
    import distributed
    import zarr
    from dask.typing import Key

    Blur = Callable[[da.Array], da.Array]
    Band = tuple[da.Array, Optional[da.Array]]

BORDERS = {"replicate": cv2.BORDER_REPLICATE, "reflect101": cv2.BORDER_REFLECT_101,
           "reflect": cv2.BORDER_REFLECT, "constant": cv2.BORDER_CONSTANT, "wrap": cv2.BORDER_WRAP}
DTYPES = ("uint8", "uint16", "int16", "float32", "float64")


def size_arg(text: str) -> tuple[int, int]:
    try:
        h, w = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError("expected HxW (e.g. 20000x30000), got %r" % text)
    if h < 1 or w < 1:
        raise argparse.ArgumentTypeError("height and width must be positive, got %r" % text)
    return h, w


def ksize_arg(text: str) -> tuple[int, int]:
    try:
        parts = [int(v) for v in text.lower().split("x")]
    except ValueError:
        raise argparse.ArgumentTypeError("expected K or WxH, got %r" % text)
    if len(parts) == 1:
        return parts[0], parts[0]
    if len(parts) == 2:
        return parts[0], parts[1]
    raise argparse.ArgumentTypeError("expected K or WxH, got %r" % text)


def _mix(v: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """splitmix64's finaliser: uint64 -> well-mixed uint64 (wrapping arithmetic)."""
    v = (v ^ (v >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    v = (v ^ (v >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    mixed: npt.NDArray[Any] = v ^ (v >> np.uint64(31))
    return mixed


def pattern_block(dtype: npt.DTypeLike, full_shape: tuple[int, ...],
                  block_info: Optional[dict[Any, Any]] = None) -> npt.NDArray[Any]:
    """The test image's pixels in this block, from their global coordinates only."""
    assert block_info is not None                           # Dask passes it (the parameter is named so)
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


def make_test_image(path: str, hw: tuple[int, int], chunks: int, dtype: str, channels: int,
                    overwrite: bool) -> None:
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


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0      # Linux: KiB


def device_mib_text(baseline: Optional[float], peak: Optional[float]) -> str:
    if peak is None or baseline is None:
        return "no GPU"
    return "peak %.0f MiB in use on its GPU (%.0f MiB before the blur)" % (peak, baseline)


# --- bands ---------------------------------------------------------------------------------------

def band_bounds(row_chunks: Sequence[int], band_rows: int, radius: int) -> list[tuple[int, int]]:
    """Output rows [(r0, r1), ...] of the bands: band_rows rows of chunks each, more where that is
    fewer than `radius` image rows (a band at least as tall as its halo); a last band shorter than
    the radius joins the one before."""
    edges = np.cumsum((0,) + tuple(row_chunks)).tolist()
    n, bands, i = len(row_chunks), [], 0
    while i < n:
        j = min(n, i + band_rows)
        while j < n and edges[j] - edges[i] < radius:
            j += 1
        bands.append((edges[i], edges[j]))
        i = j
    if len(bands) > 1 and bands[-1][1] - bands[-1][0] < radius:
        bands[-2:] = [(bands[-2][0], bands[-1][1])]
    return bands


def _read(z: zarr.Array[Any], ranges: Sequence[tuple[int, int]], cols: tuple[int, int]) -> npt.NDArray[Any]:
    """Rows `ranges` ((start, stop), ...) and columns cols (start, stop) of the Zarr array z."""
    parts = [np.asarray(z[r0:r1, cols[0]:cols[1]]) for r0, r1 in ranges]
    return parts[0] if len(parts) == 1 else np.concatenate(parts, axis=0)


def _cut(block: npt.NDArray[Any], start: int, stop: int) -> npt.NDArray[Any]:
    return block[start:stop].copy()                         # a copy: the block is freed without it


def _after(block: npt.NDArray[Any], *done: npt.NDArray[Any]) -> npt.NDArray[Any]:
    return block


def _wrapped(a: int, b: int, h: int) -> tuple[tuple[int, int], ...]:
    """Rows a..b as ranges of rows of an image of height h, rows beyond an edge from the other end."""
    out = []
    while a < b:
        start = a % h
        stop = min(h, start + (b - a))
        out.append((start, stop))
        a += stop - start
    return tuple(out)


def band_input(z: zarr.Array[Any], chunks: tuple[tuple[int, ...], ...], r0: int, r1: int, radius: int, wrap: bool,
               above: Optional[da.Array] = None, last: bool = False) -> tuple[da.Array, int, Optional[da.Array]]:
    """The band's input, lazily: rows r0 - radius .. r1 + radius of the Zarr array z (chunks: its
    chunks, as Dask's), clipped at the real top and bottom, where the blur applies the border
    (from the other end with BORDER_WRAP); where row r0 is in it; and (None for the `last` band,
    or radius 0) its last `radius` rows, for the next band, which takes them as `above` instead
    of reading them again.

    One task per block reads it (the halo rows above and below a column of chunks as one block
    each). Those rows for the next band are cut (copied) from the band's last chunks by a task of
    their own, and the chunks they are cut from reach the blur only after it (a task that waits
    for them): each chunk is freed once it is blurred, not kept to the band's end for them."""
    import dask.array as da
    from dask.base import tokenize
    from dask.highlevelgraph import HighLevelGraph
    h = z.shape[0]
    a, b = (r0 - radius, r1 + radius) if wrap else (max(0, r0 - radius), min(h, r1 + radius))
    if above is not None and above.shape[0] != r0 - a:
        raise AssertionError("carried %d rows above row %d, need %d" % (above.shape[0], r0, r0 - a))
    token = tokenize(z.store_path if hasattr(z, "store_path") else str(z), chunks, r0, r1, radius, wrap,
                     above.name if above is not None else None, last)
    name, read_name, tail_name = "band-" + token, "band-read-" + token, "band-carried-" + token
    extra = (0,) * (len(z.shape) - 2)
    col_edges = np.cumsum((0,) + tuple(chunks[1])).tolist()
    cols = list(zip(col_edges[:-1], col_edges[1:]))
    row_edges = np.cumsum((0,) + tuple(chunks[0])).tolist()
    main = [(e0, e1) for e0, e1 in zip(row_edges[:-1], row_edges[1:]) if r0 <= e0 and e1 <= r1]
    cut_from = r1 - radius if radius and not last else r1
    meta = np.empty((0,) * len(z.shape), z.dtype)

    reads: dict[Key, Any] = {}
    tails: dict[Key, Any] = {}
    tail_rows: list[int] = []
    for k, (e0, e1) in enumerate(m for m in main if m[1] > cut_from):
        tail_rows.append(min(e1, r1) - max(e0, cut_from))
        for j, c in enumerate(cols):
            reads[(read_name, k, j) + extra] = (_read, z, ((e0, e1),), c)
            tails[(tail_name, k, j) + extra] = (_cut, (read_name, k, j) + extra, max(e0, cut_from) - e0, e1 - e0)
    rest = tuple((n,) for n in z.shape[2:])
    tail = None
    if tails:
        gated = [m for m in main if m[1] > cut_from]
        read_arr = da.Array(HighLevelGraph.from_collections(read_name, reads, []), read_name,
                            (tuple(e1 - e0 for e0, e1 in gated), tuple(chunks[1])) + rest, meta=meta)
        read_deps: list[Any] = [read_arr]
        tail = da.Array(HighLevelGraph.from_collections(tail_name, tails, read_deps), tail_name,
                        (tuple(tail_rows), tuple(chunks[1])) + rest, meta=meta)

    dsk: dict[Key, Any] = {}
    row_chunks: list[int] = []
    i = 0
    if above is not None:
        for k, n in enumerate(above.chunks[0]):
            for j in range(len(cols)):
                dsk[(name, i, j) + extra] = (_after, (above.name, k, j) + extra)
            row_chunks.append(n)
            i += 1
    elif a < r0:
        for j, c in enumerate(cols):
            dsk[(name, i, j) + extra] = (_read, z, _wrapped(a, r0, h), c)
        row_chunks.append(r0 - a)
        i += 1
    k = 0
    for e0, e1 in main:
        for j, c in enumerate(cols):
            if e1 > cut_from:
                waits = tuple((tail_name, kk, j) + extra for kk in range(len(tail_rows)))
                dsk[(name, i, j) + extra] = (_after, (read_name, k, j) + extra) + waits
            else:
                dsk[(name, i, j) + extra] = (_read, z, ((e0, e1),), c)
        k += e1 > cut_from
        row_chunks.append(e1 - e0)
        i += 1
    if r1 < b:
        for j, c in enumerate(cols):
            dsk[(name, i, j) + extra] = (_read, z, _wrapped(r1, b, h), c)
        row_chunks.append(b - r1)
    deps: list[Any] = [c for c in (above, tail) if c is not None] + ([read_arr] if tails else [])
    xb = da.Array(HighLevelGraph.from_collections(name, dsk, deps), name,
                  (tuple(row_chunks), tuple(chunks[1])) + rest, meta=meta)
    return xb, r0 - a, tail


def blurred_band(z: zarr.Array[Any], x: da.Array, r0: int, r1: int, radius: int, wrap: bool, blur: Blur,
                 above: Optional[da.Array] = None, last: bool = False) -> Band:
    """Output rows r0..r1, lazily, and (None for the `last` band) the band's last `radius` input
    rows: the halo above the next band, passed to it as `above` (see band_input). x: z as a
    Dask array (for the band that is the whole image).

    The band with its halo rows (band_input) is blurred as one image by `blur` (a lazy
    gaussian_blur) and cropped to the band. Its false top and bottom edges (halo rows, not the
    image's edges) get the border too, but that reaches only the halo rows' own output, dropped
    here: each kept row's window lies in the band with its halo, as in the whole image. The band
    that is the whole image is the whole image's blur."""
    if (r0, r1) == (0, x.shape[0]):
        return blur(x), None
    xb, top, tail = band_input(z, x.chunks, r0, r1, radius, wrap, above, last)
    return blur(xb)[top:top + (r1 - r0)], tail


def band_graphs(z: zarr.Array[Any], x: da.Array, out: zarr.Array[Any], bands: Sequence[tuple[int, int]], radius: int,
                wrap: bool, blur: Blur, first: Optional[Band] = None) \
        -> Generator[tuple[int, Any, Optional[da.Array]], Optional[da.Array], None]:
    """Per band, made when it is submitted (a generator): (its rows, its store into its rows of
    `out`, its last rows for the next band or None). The caller persists the store and those rows
    together (one graph: they share the reads) and sends the persisted rows back (`send`), which
    the next band takes as its halo above instead of reading them again: each input chunk is read
    twice (for its band, and for the halo below the band above), not three times. A band writes
    whole chunks of `out` (bands start and end on rows of chunks): no two tasks write one chunk.
    `first`: blurred_band(...) of the first band, already made."""
    import dask.array as da
    rest = tuple(slice(0, n) for n in x.shape[1:])
    above = None
    for i, (r0, r1) in enumerate(bands):
        last = i + 1 == len(bands)
        if i == 0 and first is not None:
            (y, tail), first = first, None
        else:
            y, tail = blurred_band(z, x, r0, r1, radius, wrap, blur, above, last)
        store = da.store(y, cast(Any, out), regions=(slice(r0, r1),) + rest, lock=False, compute=False)
        above = yield r1 - r0, store, tail


def _drive(jobs: Generator[tuple[int, Any, Optional[da.Array]], Optional[da.Array], None],
           submit: Callable[[int, Any, Optional[da.Array]], Optional[da.Array]]) -> None:
    """Runs the band_graphs generator: submit(rows, store, tail) returns the persisted tail."""
    job = next(jobs, None)
    while job is not None:
        tail = submit(*job)
        try:
            job = jobs.send(tail)
        except StopIteration:
            job = None


def run_bands_locally(jobs: Generator[tuple[int, Any, Optional[da.Array]], Optional[da.Array], None],
                      bar: BarOverBands, threads: Optional[int]) -> int:
    """Each band, one after the other, on `threads` of Dask's threads (None: one per CPU); the bar
    follows its tasks. Returns the most bytes of task results (chunks, halo strips, carried rows)
    Dask held at once: about one chunk per thread plus the halo strips and the carried rows."""
    from dask.base import persist
    from dask.callbacks import Callback

    class Watch(Callback):
        """The band's share of tasks done, and the bytes of results Dask's scheduler holds."""

        def __init__(self, peak: int) -> None:
            self.state: Optional[dict[str, Any]] = None
            self.held: dict[Key, int] = {}
            self.peak = peak

        def _start_state(self, dsk: Any, state: dict[str, Any]) -> None:
            self.state = state

        def _posttask(self, key: Key, result: Any, dsk: Any, state: dict[str, Any], worker_id: Any) -> None:
            self.held[key] = getattr(result, "nbytes", 0)
            for k in [k for k in self.held if k not in state["cache"]]:
                del self.held[k]
            self.peak = max(self.peak, sum(self.held.values()))

        def share(self) -> float:
            s = self.state
            if not s:
                return 0.0
            done = len(s["finished"])
            total = done + sum(len(s[k]) for k in ("ready", "waiting", "running"))
            return done / float(total) if total else 0.0

    peak = [0]

    def submit(rows: int, store: Any, tail: Optional[da.Array]) -> Optional[da.Array]:
        watch = Watch(peak[0])
        bar.band_rows, bar.band_share = rows, watch.share
        with watch:
            _, tail = persist(store, tail, scheduler="threads", num_workers=threads)
        peak[0] = watch.peak
        bar.band_rows, bar.band_share = 0, lambda: 0.0
        bar.band_done(rows)
        return tail
    _drive(jobs, submit)
    return peak[0]


def run_bands_on_cluster(client: distributed.Client,
                         jobs: Generator[tuple[int, Any, Optional[da.Array]], Optional[da.Array], None],
                         bar: BarOverBands, in_flight: int) -> None:
    """Each band on the cluster, `in_flight` bands at a time in the order of the image (the
    scheduler runs the earlier band's tasks first, the later bands' fill idle threads; the rows
    carried to the next band stay on the workers); the bar moves as bands complete."""
    import collections
    import distributed
    pending: collections.deque[tuple[int, list[Any]]] = collections.deque()

    def finish_oldest() -> None:
        rows, futures = pending.popleft()
        distributed.wait(futures)
        for f in futures:
            f.result()                                      # raises what a task raised
        bar.band_done(rows)

    def submit(rows: int, store: Any, tail: Optional[da.Array]) -> Optional[da.Array]:
        stored, tail = client.persist([store, tail]) if tail is not None else (client.persist(store), None)
        pending.append((rows, distributed.futures_of(stored)))
        while len(pending) >= in_flight:
            finish_oldest()
        return tail
    _drive(jobs, submit)
    while pending:
        finish_oldest()


class BarOverBands(object):
    """One text bar, as Dask's ProgressBar draws it, for all the bands: the share of the image's
    rows blurred and written, where `band_share()` (0..1) counts the current band's part."""

    def __init__(self, total_rows: int, nbands: int, width: int = 40, dt: float = 0.5,
                 out: Optional[TextIO] = None) -> None:
        self.total_rows, self.nbands, self.width, self.dt = total_rows, nbands, width, dt
        self.out = out or sys.stdout
        self.rows_done = self.bands_done = 0
        self.band_rows = 0
        self.band_share: Callable[[], float] = lambda: 0.0

    def __enter__(self) -> BarOverBands:
        import threading
        self.t0 = time.perf_counter()
        self.running = threading.Event()
        self.timer = threading.Thread(target=self._tick, daemon=True)
        self.timer.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.running.set()
        self.timer.join()
        self.draw(final=exc[0] is None)
        self.out.write("\n")
        self.out.flush()

    def band_done(self, rows: int) -> None:
        self.rows_done += rows
        self.bands_done += 1

    def _tick(self) -> None:
        while not self.running.wait(self.dt):
            self.draw()

    def draw(self, final: bool = False) -> None:
        from dask.utils import format_time
        rows = self.total_rows if final else min(self.total_rows, self.rows_done + self.band_rows * self.band_share())
        frac = rows / float(self.total_rows)
        self.out.write("\r[%-*s] | %d%% Completed | %d/%d bands | %s"
                       % (self.width, "#" * int(self.width * frac), int(100 * frac),
                          self.bands_done, self.nbands, format_time(time.perf_counter() - self.t0)))
        self.out.flush()


def main(argv: Optional[Sequence[str]] = None) -> int:
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
    ap.add_argument("--band-rows", type=int, default=1, metavar="N",
                    help="rows of chunks per band, more where that is fewer rows than the kernel radius "
                         "(default: %(default)s: the least memory)")
    ap.add_argument("--threads", type=int, metavar="N",
                    help="without --scheduler: Dask threads in this process (default: one per CPU); the "
                         "memory held grows with them, about one chunk each")
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
    if args.band_rows < 1:
        ap.error("--band-rows must be at least 1, got %d" % args.band_rows)
    if args.threads is not None and args.threads < 1:
        ap.error("--threads must be at least 1, got %d" % args.threads)
    for path in (args.output, args.input if args.make_test_image else None):
        if path and os.path.exists(path) and not args.overwrite:
            ap.error("%s exists (--overwrite to replace it)" % path)

    try:
        import dask.array as da
        import zarr
        from cv2.cudaimage import dask as cdask
    except ImportError as e:
        sys.exit("blur_zarr: %s (pip install -r scripts/build/python-requirements.txt)" % e)

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
        z = zarr.open_array(args.input, mode="r")
        x = da.from_zarr(z)
    except Exception as e:   # missing, or not a Zarr array
        sys.exit("blur_zarr: error: cannot open %s as a Zarr array: %s: %s" % (args.input, type(e).__name__, e))
    h, w = x.shape[:2]
    border = BORDERS[args.border]

    def blur(a: da.Array) -> da.Array:
        return cdask.gaussian_blur(a, args.ksize, args.sigma, args.sigma_y, border, device=args.device)
    try:
        kx, ky = cdask.kernel_size(x.dtype, args.ksize, args.sigma, args.sigma_y)
        radius = ky // 2
        bands = band_bounds(x.chunks[0], args.band_rows, radius)
        first = blurred_band(z, x, bands[0][0], bands[0][1], radius, border == cv2.BORDER_WRAP, blur,
                             last=len(bands) == 1)
    except (TypeError, ValueError, RuntimeError) as e:      # bad arguments or image, no GPU: before any work
        sys.exit("blur_zarr: error: %s" % e)
    chunk_bytes = max(x.blocks[0, 0].nbytes if x.ndim == 2 else x.blocks[0, 0, 0].nbytes, 1)
    row_bytes = x.nbytes / float(h)
    tallest = max(r1 - r0 for r0, r1 in bands)
    print("input: %s, shape %s, %s, chunks %s (%.1f MiB each), %.1f MiB in all"
          % (args.input, x.shape, x.dtype, "x".join(str(c[0]) for c in x.chunks), chunk_bytes / 2.0**20, x.nbytes / 2.0**20))
    print("blur: sigma %g/%g, kernel %dx%d (halo %d rows, %d columns), border %s, device %s"
          % (args.sigma, args.sigma_y if args.sigma_y > 0 else args.sigma, kx, ky, radius, kx // 2, args.border,
             args.device))
    edges = np.cumsum(x.chunks[0]).tolist()
    band_chunks = [sum(1 for e in edges if r0 < e <= r1) * x.numblocks[1] for r0, r1 in bands]
    in_flight = 1
    if client is not None:      # enough bands in flight for two chunks per worker thread, at least two
        threads = sum(wk.get("nthreads", 1) for wk in client.scheduler_info()["workers"].values())
        in_flight = max(2, -(-2 * threads // min(band_chunks)))
    print("bands: %d of up to %d rows (%d chunks, %.1f MiB), each with %d halo rows below it (read) and above "
          "it (carried from the band before); %d band(s) in flight"
          % (len(bands), tallest, max(band_chunks), tallest * row_bytes / 2.0**20, radius if len(bands) > 1 else 0,
             in_flight))

    # The output: the input's shape, dtype and chunks (as y.to_zarr makes it); each band writes
    # its own rows, whole chunks (bands start and end on chunk rows), so no two tasks write a chunk.
    try:
        out = zarr.create_array(store=args.output, shape=x.shape, chunks=tuple(c[0] for c in x.chunks),
                                dtype=x.dtype, overwrite=args.overwrite)
    except Exception as e:
        sys.exit("blur_zarr: error: cannot create %s: %s: %s" % (args.output, type(e).__name__, e))
    jobs = band_graphs(z, x, out, bands, radius, border == cv2.BORDER_WRAP, blur, first)

    rss_before = peak_rss_mib()                             # imports and the first band's graph
    if client is None:
        cdask.start_device_memory_watch()
    else:
        client.run(cdask.start_device_memory_watch)
    t0 = time.perf_counter()
    with BarOverBands(h, len(bands)) as bar:
        if client is None:
            held = run_bands_locally(jobs, bar, args.threads)
        else:
            run_bands_on_cluster(client, jobs, bar, in_flight)
    seconds = time.perf_counter() - t0
    mp = h * w / 1e6
    print("blurred %s -> %s: %.1f MP in %.2f s: %.1f MP/s (%.1f MiB/s of input, Zarr read and write included)"
          % (args.input, args.output, mp, seconds, mp / seconds, x.nbytes / 2.0**20 / seconds))
    if client is None:
        peak = peak_rss_mib()
        print("peak resident memory of this process: %.0f MiB, %.0f MiB above its peak before the blur "
              "(image %.0f MiB, one chunk %.1f MiB); most data held by Dask at once: %.1f MiB (%.1f chunks)"
              % (peak, peak - rss_before, x.nbytes / 2.0**20, chunk_bytes / 2.0**20, held / 2.0**20,
                 held / float(chunk_bytes)))
        print("device memory: %s" % device_mib_text(*cdask.stop_device_memory_watch()))
    else:
        peaks = client.run(peak_rss_mib)
        devices = client.run(cdask.stop_device_memory_watch)
        stats = client.run(cdask.worker_stats)
        for address in sorted(peaks):
            s = stats[address]
            print("worker %s: peak resident memory %.0f MiB (since it started); device memory: %s; "
                  "blocks: %d CPU, %d GPU (NumPy), %d GPU (CuPy)"
                  % (address, peaks[address], device_mib_text(*devices[address]), s["cpu_blocks"],
                     s["gpu_numpy_blocks"], s["gpu_cupy_blocks"]))
        client.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
