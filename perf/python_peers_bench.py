#!/usr/bin/env python3
"""GPU peers for perf/gaussian_bench.cu's table: PyTorch, CV-CUDA, CuPy and kornia Gaussian blurs,
timed like gaussian_bench (CUDA events on one stream, warm-up, median of repeated runs, random
data) and checked against CPU cv2.GaussianBlur. Writes JSON lines that gaussian_bench merges with
--peers.

    python3 perf/python_peers_bench.py [--out peers.jsonl] [--size 16384] [--quick]
        [--peers pytorch,cvcuda,cupy,kornia] [--types 8UC1,...] [--sigmas 1,2,...]
        [--check-size 1024] [--budget-s 300] [--no-tf32] [--check-args]

Cases: the same as gaussian_bench: 8UC1, 8UC3, 8UC4, 16UC1, 32FC1 x sigma 1, 2, 5, 10, 30 with
ksize = 2*round(3 sigma)+1 (both directions), BORDER_REPLICATE, a SIZE x SIZE image.

Each peer is called as its users would call it; "timed" below is what the CUDA events bracket.
* pytorch  what a PyTorch user would write: the image as a float32 NCHW CUDA tensor, replicate
           padding (torch.nn.functional.pad, once, all four sides), then two depthwise conv2d
           (groups=C), vertical (k x 1) and horizontal (1 x k), with OpenCV's 1-D taps
           (cv2.getGaussianKernel, as float32). 8U/16U sources are converted to float32 and the
           result rounded, clamped and converted back inside the timed call (a user pays that);
           the HWC -> NCHW layout change is done once, outside the timing (a user would keep
           NCHW tensors). cuDNN settings are torch's defaults (benchmark=False; allow_tf32 as
           torch sets it, recorded in the meta line): what a user gets without tuning.
           (torchvision's gaussian_blur would use one k x k 2-D kernel and reflect padding; the
           separable form is the faster of the two and replicate padding matches the table.)
* cvcuda   cvcuda.gaussian_into on NHWC (batch 1) tensors wrapping torch CUDA tensors
           (cvcuda.as_tensor(t, "NHWC")), cvcuda.Border.REPLICATE, on the same CUDA stream
           (cvcuda.as_stream). Timed: the call alone.
* cupy     cupyx.scipy.ndimage.gaussian_filter(x, sigma, mode="nearest", truncate=(k//2)/sigma,
           output=y) on the HWC image itself: x is a CuPy array on the torch tensor's memory
           (cupy.asarray through __cuda_array_interface__, else DLPack: no copy), H x W with
           sigma (s, s) for one channel, H x W x C with sigma (s, s, 0) otherwise; y is a
           preallocated array of the source dtype; CuPy runs on the torch stream
           (cupy.cuda.ExternalStream). Timed: the call alone, which uploads the taps (computed
           in float64 by NumPy on the host, cast to float32 on the device), runs two correlate1d
           passes (vertical, horizontal) through a scratch array of the output dtype, with
           float32 taps and sums for 8U, 16U and 32F (the weights dtype is
           promote_types(input, float32); float64 only for wider integers). An integer output is
           truncated toward zero, not rounded, after each pass (SciPy's rule; CuPy 14's
           cupyx/scipy/ndimage/_filters_core.py, cast<Y>). It stands for SciPy-style GPU code:
           cuCIM's cucim.skimage.filters.gaussian runs a vendored copy of this function (on a
           float copy of an integer image), and dask-image's CuPy path calls it on each chunk
           (through dask.array.map_overlap).
* kornia   kornia.filters.gaussian_blur2d(x, (k, k), (s, s), border_type="replicate",
           separable=True) on a float32 NCHW tensor (sigma as a (1, 2) tensor where a version
           refuses the tuple). Kornia computes its taps on the device in every call and runs two
           filter2d passes (F.pad of one axis, then a depthwise conv2d). As for pytorch: 8U/16U
           converted to float32 and rounded, clamped and converted back inside the timed call
           (Kornia itself returns float32 for integer input); HWC -> NCHW once, outside.
cvcuda, cupy and kornia are optional: without `import cvcuda` (or `cupy`, `kornia`), or when a
first small call on the stream fails, their lines say "not run" with the reason.

Exactness: each peer also runs on the top-left CHECK x CHECK crop of the same random image and is
compared with cv2.GaussianBlur(crop, (k, k), sigma, borderType=cv2.BORDER_REPLICATE) on the CPU:
8U/16U: elements that differ, their fraction, max |diff|; 32F: max |diff| / max |input|.

Timing: a peer whose call would take more than --scale-above-ms at full size (estimated from the
crop) is timed on a smaller top-left sub-image and scaled by the pixel count ("scaled": true, as
gaussian_bench's '*'). Repetitions follow the first full call's time (20 / 10 / 5 / 3 / 1), and
cells not reached within --budget-s are written as "not run". Each line:

    {"peer": "pytorch", "type": "8UC1", "sigma": 1, "ksize": 7, "width": 16384, "height": 16384,
     "status": "ok", "ms": 1.23, "reps": 20, "scaled": false, "timed_width": 16384, ...,
     "wall_ms": 1.30, "check_size": 1024, "differing": 12, "elements": 1048576, "fraction": 1e-05,
     "max_diff": 1, "note": "..."}

status is ok, unsupported (the peer rejects the case: "note" says why), error or not run. The first
line is {"peer": "meta", ...}: versions (torch, CUDA, cuDNN, cvcuda, cupy, kornia, cv2), GPU name,
settings; "<peer>_missing" gives the reason where an optional peer does not run.
Runtime on an H200 at 16384^2: about 3-5 minutes for the four peers (CuPy compiles one kernel per
type, ksize and axis on first use; see the time printed at the end).
"""
import argparse
import datetime
import json
import math
import platform
import sys
import time

import numpy as np

TYPES = ["8UC1", "8UC3", "8UC4", "16UC1", "32FC1"]
SIGMAS = [1, 2, 5, 10, 30]
PEERS = ["pytorch", "cvcuda", "cupy", "kornia"]


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def ksize_for(sigma):
    """The table's kernel size, 2*round(3 sigma)+1, rounding half away from zero: the C++ benchmarks'
    cudaimage_bench::tableKsize (perf/bench_support.hpp), restated because Python cannot include
    that header; perf/ncu_gaussian_case.py imports it from here."""
    return 2 * int(math.floor(3 * sigma + 0.5)) + 1


def parse_type(name):
    depth, cn = name.split("C")
    return depth, int(cn)


def first_line(e):
    text = str(e).strip().splitlines()
    return "%s: %s" % (type(e).__name__, text[0] if text else "")


def json_number(v):
    return int(v) if float(v).is_integer() else v


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="-", help="JSON lines file (default: stdout)")
    ap.add_argument("--size", type=int, default=16384)
    ap.add_argument("--quick", action="store_true", help="at most 5 repetitions")
    ap.add_argument("--peers", default=",".join(PEERS), help="a comma-separated subset of " + ",".join(PEERS))
    ap.add_argument("--types", default=",".join(TYPES))
    ap.add_argument("--sigmas", default=",".join(str(s) for s in SIGMAS))
    ap.add_argument("--check-size", type=int, default=1024)
    ap.add_argument("--scale-above-ms", type=float, default=1500.0,
                    help="time on a sub-image and scale when a full-size call is estimated above this")
    ap.add_argument("--no-tf32", action="store_true",
                    help="torch.backends.cudnn.allow_tf32 = False (default: torch's setting, True: convolutions "
                         "may run in TF32, 10-bit mantissa)")
    ap.add_argument("--budget-s", type=float, default=300.0,
                    help="cells not started within this many seconds are written as 'not run'")
    ap.add_argument("--check-args", action="store_true",
                    help="check the arguments (peer and type names, sigmas) and exit: 0 when they are valid, "
                         "2 otherwise; imports and runs nothing (perf/run-gaussian-bench.sh calls it first)")
    args = ap.parse_args()
    # Names checked before anything is imported or run, so that a misspelt one fails at once.
    peers = [p for p in args.peers.split(",") if p]
    types = [t for t in args.types.split(",") if t]
    for what, given, known in (("peer", peers, PEERS), ("type", types, TYPES)):
        unknown = [g for g in given if g not in known]
        if unknown or not given:
            ap.error("unknown %s(s) %s; known: %s" % (what, ",".join(unknown) or "(none given)", ",".join(known)))
    try:
        sigmas = [float(s) for s in args.sigmas.split(",") if s]
    except ValueError as e:
        ap.error("--sigmas: %s" % e)
    if not sigmas or not all(s > 0 for s in sigmas):
        ap.error("--sigmas is %r; allowed: positive numbers, comma-separated" % args.sigmas)
    if args.check_args:
        return

    t_start = time.time()
    import cv2
    import torch
    import torch.nn.functional as F

    if not torch.cuda.is_available():
        sys.exit("python_peers_bench: torch sees no CUDA device")
    if args.no_tf32:
        torch.backends.cudnn.allow_tf32 = False
    dev = torch.device("cuda")
    # The optional peers: a module, or None and the reason ("<peer>_missing" in the meta line).
    cvcuda = cupy = cupy_ndimage = kornia = None
    CVCUDA_WHY = CUPY_WHY = KORNIA_WHY = "not in --peers"
    if "cvcuda" in peers:
        try:
            import cvcuda
            CVCUDA_WHY = None
        except Exception as e:  # ImportError, or a library it cannot load
            cvcuda, CVCUDA_WHY = None, "cvcuda not importable (%s)" % first_line(e)
    if "cupy" in peers:
        try:
            import cupy
            import cupyx.scipy.ndimage as cupy_ndimage
            CUPY_WHY = None
        except Exception as e:
            cupy, CUPY_WHY = None, "cupy not importable (%s)" % first_line(e)
    if "kornia" in peers:
        try:
            import kornia
            import kornia.filters
            KORNIA_WHY = None
        except Exception as e:
            kornia, KORNIA_WHY = None, "kornia not importable (%s)" % first_line(e)
    cupy_version = getattr(cupy, "__version__", None)
    kornia_version = getattr(kornia, "__version__", None)

    N = args.size
    CHECK = min(args.check_size, N)
    out = sys.stdout if args.out == "-" else open(args.out, "w")

    def emit(rec):
        out.write(json.dumps(rec) + "\n")
        out.flush()

    stream = torch.cuda.Stream()
    cv_stream = None
    if cvcuda:
        try:
            cv_stream = cvcuda.as_stream(stream)                 # the torch stream itself
        except Exception as e:
            try:
                cv_stream = cvcuda.as_stream(int(stream.cuda_stream))  # its cudaStream_t handle
            except Exception:
                cvcuda, CVCUDA_WHY = None, "cvcuda.as_stream failed (%s)" % first_line(e)
                log("python_peers_bench: " + CVCUDA_WHY)

    def as_cupy(t):
        """A CuPy array on a CUDA tensor's memory, no copy: __cuda_array_interface__, else DLPack,
        else (a torch that exports neither for uint16) its int16 view, viewed back as uint16."""
        a, errors = None, []
        for make in (cupy.asarray, cupy.from_dlpack):
            try:
                a = make(t)
                break
            except Exception as e:
                errors.append(first_line(e))
        if a is None and t.dtype == getattr(torch, "uint16", None):
            a = as_cupy(t.view(torch.int16)).view(cupy.uint16)
        if a is None:
            raise RuntimeError("no CuPy view of a %s tensor (%s)" % (t.dtype, "; ".join(errors)))
        strides = [(n, st * t.element_size()) for n, st in zip(t.shape, t.stride())]
        if a.data.ptr != t.data_ptr() or a.shape != tuple(t.shape) or any(
                n > 1 and st != ast for (n, st), ast in zip(strides, a.strides)):
            raise RuntimeError("the CuPy array is not a view of the tensor (copied or reshaped)")
        return a

    cp_stream = None
    if cupy:
        try:
            cp_stream = cupy.cuda.ExternalStream(int(stream.cuda_stream))  # the torch stream itself
            # A first small call: CUDA runtime, NVRTC and the zero-copy view, before any case.
            with torch.cuda.stream(stream):
                t = torch.full((8, 8), 3.0, device=dev, dtype=torch.float32)
                u = torch.empty_like(t)
                with cp_stream:
                    cupy_ndimage.gaussian_filter(as_cupy(t), (1.0, 1.0), mode="nearest", truncate=3.0,
                                                 output=as_cupy(u))
            stream.synchronize()
            if not float((u - 3.0).abs().max()) < 1e-4:  # a constant image stays constant (NaN fails too)
                raise RuntimeError("a small gaussian_filter gave wrong values")
        except Exception as e:
            cupy, CUPY_WHY = None, "cupy unusable (%s)" % first_line(e)
            log("python_peers_bench: " + CUPY_WHY)
    # kornia 0.7-0.9 take sigma as a tuple of floats or a (B, 2) tensor; the tuple is what a user
    # writes (0.9 fills it on the device, no host synchronisation), the tensor where it is refused.
    kornia_sigma = None
    if kornia:
        failures = []
        for form in ("tuple", "tensor"):
            try:
                sig = (1.0, 1.0) if form == "tuple" else torch.tensor([[1.0, 1.0]], dtype=torch.float32)
                with torch.cuda.stream(stream):
                    t = torch.ones(1, 1, 8, 8, device=dev, dtype=torch.float32)
                    y = kornia.filters.gaussian_blur2d(t, (3, 3), sig, border_type="replicate", separable=True)
                stream.synchronize()
                if tuple(y.shape) != (1, 1, 8, 8) or not float((y - 1.0).abs().max()) < 1e-4:
                    raise RuntimeError("wrong values")
                kornia_sigma = form
                break
            except Exception as e:
                failures.append("sigma as a %s: %s" % (form, first_line(e)))
        if kornia_sigma is None:
            kornia, KORNIA_WHY = None, "kornia.filters.gaussian_blur2d failed (%s)" % "; ".join(failures)
            log("python_peers_bench: " + KORNIA_WHY)
    tf32 = getattr(torch.backends.cudnn, "allow_tf32", None)
    meta = {"peer": "meta", "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
            "gpu": torch.cuda.get_device_name(0), "width": N, "height": N, "check_size": CHECK,
            "python": platform.python_version(), "numpy": np.__version__, "cv2": cv2.__version__,
            "torch": torch.__version__, "torch_cuda": torch.version.cuda,
            "cudnn": torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None,
            "cudnn_benchmark": bool(torch.backends.cudnn.benchmark), "cudnn_allow_tf32": tf32,
            "cvcuda": getattr(cvcuda, "__version__", None) if cvcuda else None,
            "cupy": cupy_version, "kornia": kornia_version, "kornia_sigma": kornia_sigma,
            "peers": peers}
    for name, why in (("cvcuda", CVCUDA_WHY), ("cupy", CUPY_WHY), ("kornia", KORNIA_WHY)):
        if why:
            meta[name + "_missing"] = why
    emit(meta)
    log("python_peers_bench: %s, torch %s (CUDA %s, cuDNN %s, allow_tf32 %s), cvcuda %s, cupy %s, kornia %s, "
        "cv2 %s, %dx%d" % (meta["gpu"], meta["torch"], meta["torch_cuda"], meta["cudnn"], tf32,
                           meta["cvcuda"] or CVCUDA_WHY, CUPY_WHY or cupy_version, KORNIA_WHY or kornia_version,
                           meta["cv2"], N, N))

    ev_a = torch.cuda.Event(enable_timing=True)
    ev_b = torch.cuda.Event(enable_timing=True)

    def event_ms(fn):
        ev_a.record(stream)
        fn()
        ev_b.record(stream)
        ev_b.synchronize()
        return ev_a.elapsed_time(ev_b)

    def median_ms(fn, reps, warmup):
        for _ in range(warmup):
            fn()
        t, wall = [], []
        for _ in range(reps):
            w0 = time.perf_counter()
            t.append(event_ms(fn))
            wall.append((time.perf_counter() - w0) * 1000)
        t.sort()
        wall.sort()
        return t[len(t) // 2], wall[len(wall) // 2]  # gaussian_bench's median: t[n / 2]

    # 16U: torch.uint16 has limited operator support (PyTorch >= 2.3: conversions, copies); probe it.
    u16_ok, u16_why = True, None
    try:
        with torch.cuda.stream(stream):
            p = torch.arange(0, 65536, 257, device=dev, dtype=torch.int32).to(torch.uint16)
            q = p.to(torch.float32).round_().clamp_(0, 65535).to(torch.uint16)
            if int(q.to(torch.int32).max()) != 65535 or q.cpu().numpy().dtype != np.uint16:
                raise RuntimeError("uint16 round trip gave wrong values")
        stream.synchronize()
    except Exception as e:
        u16_ok, u16_why = False, "torch.uint16 unusable (%s): 16U held as int32" % first_line(e)
        log("python_peers_bench: " + u16_why)

    gen = torch.Generator(device=dev)

    def random_hwc(depth, cn, seed):
        gen.manual_seed(seed)
        shape = (N, N, cn)
        if depth == "8U":
            t = torch.randint(0, 256, shape, generator=gen, device=dev, dtype=torch.uint8)
        elif depth == "16U":
            t = torch.randint(0, 65536, shape, generator=gen, device=dev, dtype=torch.int32)
            if u16_ok:
                t = t.to(torch.uint16)
        else:  # finite floats in [0, 255), as gaussian_bench's randomMat
            t = torch.rand(shape, generator=gen, device=dev, dtype=torch.float32) * 255.0
        stream.synchronize()
        return t

    def to_numpy(t, depth):
        if depth == "16U":
            return t.to(torch.int32).cpu().numpy().astype(np.uint16)
        return t.cpu().numpy()

    def exactness(got, ref, src, depth):
        """got/ref: numpy arrays of the same shape; 8U/16U: differing elements; 32F: relative."""
        d = np.abs(got.astype(np.float64) - ref.astype(np.float64))
        r = {"check_size": CHECK, "elements": int(d.size)}
        if depth == "32F":
            scale = float(np.abs(src.astype(np.float64)).max()) or 1.0
            r["max_diff"] = float(d.max())
            r["max_rel_diff"] = float(d.max()) / scale
            r["differing"] = int(np.count_nonzero(d > 1e-5 * scale))  # beyond float noise
        else:
            r["differing"] = int(np.count_nonzero(d))
            r["max_diff"] = int(d.max())
        r["fraction"] = r["differing"] / float(d.size)
        return r

    class Unsupported(Exception):
        pass

    # The peers. prepare(hwc) -> (run, result): run() enqueues one blur of that image on `stream`
    # (what is timed), result() returns it as an HWC tensor. Everything runs with `stream` current.

    class Float32NchwPeer(object):
        """A blur of float32 NCHW tensors (filter32); 8U/16U converted to float32 and the result
        rounded, clamped and converted back, inside the timed call."""

        def __init__(self, depth, cn, note):
            self.depth, self.cn = depth, cn
            self.maxv = {"8U": 255, "16U": 65535}.get(depth)
            self.note = note
            if depth != "32F":
                self.note += "; %s->float32->round/clamp in the timed call" % depth
            if depth == "16U" and not u16_ok:
                self.note += "; " + u16_why

        def blur(self, x):
            y = x if x.dtype == torch.float32 else x.to(torch.float32)
            y = self.filter32(y)
            if self.maxv is not None:
                y = y.round_().clamp_(0, self.maxv).to(x.dtype)
            return y

        def prepare(self, hwc):
            """Per image, outside timing: HWC -> NCHW once (a PyTorch user keeps NCHW tensors)."""
            x = hwc.permute(2, 0, 1).unsqueeze(0).contiguous()

            def run():
                self.blur(x)
            return run, (lambda: self.blur(x)[0].permute(1, 2, 0).contiguous())

    class TorchPeer(Float32NchwPeer):
        name = "pytorch"

        def __init__(self, depth, cn, k, sigma):
            Float32NchwPeer.__init__(self, depth, cn,
                                     "separable depthwise conv2d, replicate pad once (4 sides), float32")
            self.r = k // 2
            taps = cv2.getGaussianKernel(k, sigma).ravel().astype(np.float32)  # OpenCV's 1-D taps
            w = torch.from_numpy(taps).to(dev)
            self.wy = w.view(1, 1, k, 1).repeat(cn, 1, 1, 1).contiguous()  # vertical, per channel
            self.wx = w.view(1, 1, 1, k).repeat(cn, 1, 1, 1).contiguous()  # horizontal

        def filter32(self, y):
            r = self.r
            y = F.pad(y, (r, r, r, r), mode="replicate")
            y = F.conv2d(y, self.wy, groups=self.cn)
            return F.conv2d(y, self.wx, groups=self.cn)

    class KorniaPeer(Float32NchwPeer):
        name = "kornia"

        def __init__(self, depth, cn, k, sigma):
            Float32NchwPeer.__init__(
                self, depth, cn, "kornia.filters.gaussian_blur2d(separable=True, border_type='replicate'), "
                "float32 NCHW, sigma as a %s" % ("tuple" if kornia_sigma == "tuple" else "(1, 2) tensor"))
            self.k = k
            if kornia_sigma == "tuple":
                self.sigma = (float(sigma), float(sigma))
            else:
                self.sigma = torch.tensor([[sigma, sigma]], dtype=torch.float32)

        def filter32(self, y):
            return kornia.filters.gaussian_blur2d(y, (self.k, self.k), self.sigma, border_type="replicate",
                                                  separable=True)

    class CvcudaPeer(object):
        name = "cvcuda"

        def __init__(self, depth, cn, k, sigma):
            self.k, self.sigma = k, sigma
            self.note = "cvcuda.gaussian_into, NHWC batch 1, Border.REPLICATE"
            if depth == "16U" and not u16_ok:
                raise Unsupported("no U16 buffer to wrap: " + u16_why)

        def prepare(self, hwc):
            src = hwc.unsqueeze(0).contiguous()     # NHWC, batch 1 (a view of the HWC tensor)
            dst = torch.empty_like(src)
            cs = cvcuda.as_tensor(src, "NHWC")
            cd = cvcuda.as_tensor(dst, "NHWC")
            k, s = self.k, self.sigma

            def run():
                cvcuda.gaussian_into(cd, cs, (k, k), (s, s), cvcuda.Border.REPLICATE, stream=cv_stream)

            def result():
                run()
                stream.synchronize()
                return dst[0]
            return run, result

    class CupyPeer(object):
        name = "cupy"

        def __init__(self, depth, cn, k, sigma):
            self.cn = cn
            self.sigma = (sigma, sigma) if cn == 1 else (sigma, sigma, 0.0)  # 0: the channel axis is skipped
            self.truncate = (k // 2) / float(sigma)  # radius int(truncate * sigma + 0.5) = k // 2
            self.note = "cupyx.scipy.ndimage.gaussian_filter, mode='nearest', %s on the tensor's memory, output= of " \
                        "the source dtype, " % ("HxW" if cn == 1 else "HxWxC, sigma (s, s, 0)")
            if depth == "32F":
                self.note += "float32 taps, sums and scratch"
            elif depth == "16U" and not u16_ok:
                self.note += "float64 taps and sums (int32 input), truncated to int32 after each pass; " + u16_why
            else:
                self.note += "float32 taps and sums, truncated (not rounded) to %s after each pass" % depth

        def prepare(self, hwc):
            src = hwc.view(hwc.shape[0], hwc.shape[1]) if self.cn == 1 else hwc  # views of the HWC image
            dst = torch.empty_like(src)
            with cp_stream:
                x, y = as_cupy(src), as_cupy(dst)
            sigma, truncate = self.sigma, self.truncate

            def run():
                with cp_stream:
                    cupy_ndimage.gaussian_filter(x, sigma, mode="nearest", truncate=truncate, output=y)

            def result():
                run()
                stream.synchronize()
                return dst
            return run, result

    def unavailable(name):
        """Why an optional peer does not run, or None."""
        return {"cvcuda": CVCUDA_WHY if cvcuda is None else None, "cupy": CUPY_WHY if cupy is None else None,
                "kornia": KORNIA_WHY if kornia is None else None}.get(name)

    def run_case(peer_cls, depth, cn, sigma, k, full, crop, ref, crop_np):
        rec = {"peer": peer_cls.name, "type": "%sC%d" % (depth, cn), "sigma": json_number(sigma), "ksize": k,
               "width": N, "height": N}
        why = unavailable(peer_cls.name)
        if why:
            rec.update(status="not run", note=why)
            return rec
        if time.time() - t_start > args.budget_s:
            rec.update(status="not run", note="time budget (--budget-s %g) spent" % args.budget_s)
            return rec
        try:
            peer = peer_cls(depth, cn, k, sigma)
            rec["note"] = peer.note
            # Exactness on the crop (this is also the first call: library set-up, cuDNN, kernels).
            run_c, result_c = peer.prepare(crop)
            got = to_numpy(result_c(), depth).reshape(crop_np.shape)
            torch.cuda.synchronize()
            rec.update(exactness(got, ref, crop_np, depth))
            # Estimate a full-size call from the crop (over-estimates small kernels: launch costs).
            probe, _ = median_ms(run_c, 3, 1)
            est = probe * (N * N) / float(CHECK * CHECK)
            side = N
            if est > args.scale_above_ms:
                side = int(N * math.sqrt(300.0 / est)) // 256 * 256
                side = max(min(side, N), min(CHECK, N))
            sub = full if side == N else full[:side, :side].contiguous()
            run = peer.prepare(sub)[0]
            first = event_ms(run)          # the first call at this size, also a warm-up
            if first > 3000:
                reps, warmup = 1, 0
            elif first > 1000:
                reps, warmup = 3, 0
            elif first > 200:
                reps, warmup = 5, 1
            elif first > 20:
                reps, warmup = 10, 2
            else:
                reps, warmup = 20, 2
            if args.quick:
                reps = min(reps, 5)
            if reps == 1:
                ms, wall = first, None
            else:
                ms, wall = median_ms(run, reps, warmup)
            torch.cuda.synchronize()
            scale = (N * N) / float(side * side)
            rec.update(status="ok", ms=ms * scale, reps=reps, scaled=side != N, timed_width=side,
                       timed_height=side, estimated_ms=est)
            if wall is not None:
                rec["wall_ms"] = wall * scale
            del run, run_c, result_c, sub
        except Unsupported as e:
            rec.update(status="unsupported", note=str(e))
        except Exception as e:
            msg = first_line(e)
            low = msg.lower()
            unsupported = any(w in low for w in ("invalid", "unsupported", "not supported", "not implemented"))
            rec.update(status="unsupported" if unsupported else "error", note=msg)
            try:
                torch.cuda.synchronize()
            except Exception as e2:  # a sticky CUDA error: the rest of the run will fail too
                rec["note"] += "; then " + first_line(e2)
        return rec

    classes = {c.name: c for c in (TorchPeer, CvcudaPeer, CupyPeer, KorniaPeer)}
    peer_classes = [classes[p] for p in PEERS if p in peers]
    results = []
    torch.cuda.set_stream(stream)  # every torch call below (and cvcuda's and CuPy's, by their handles) on one stream
    for ti, tname in enumerate(types):
        depth, cn = parse_type(tname)
        full = random_hwc(depth, cn, 12345 + ti)
        crop = full[:CHECK, :CHECK].contiguous()
        crop_np = to_numpy(crop, depth)
        for sigma in sigmas:
            k = ksize_for(sigma)
            ref = cv2.GaussianBlur(crop_np, (k, k), sigma, sigmaY=sigma, borderType=cv2.BORDER_REPLICATE)
            ref = ref.reshape(crop_np.shape)
            for pc in peer_classes:
                t0 = time.time()
                rec = run_case(pc, depth, cn, sigma, k, full, crop, ref, crop_np)
                emit(rec)
                results.append(rec)
                if rec["status"] == "ok":
                    ex = ("max rel diff %.2g" % rec["max_rel_diff"]) if depth == "32F" else \
                         ("%d/%d differ (%.3g %%), max diff %d" % (rec["differing"], rec["elements"],
                                                                 100 * rec["fraction"], rec["max_diff"]))
                    log("%-7s %-5s sigma %-4g k%-3d %10.3f ms%s  [%s]  (%.1f s)"
                        % (pc.name, tname, sigma, k, rec["ms"], "*" if rec["scaled"] else " ", ex, time.time() - t0))
                else:
                    log("%-7s %-5s sigma %-4g k%-3d %s: %s" % (pc.name, tname, sigma, k, rec["status"], rec.get("note", "")))
        del full, crop
        torch.cuda.empty_cache()
        if cupy:
            cupy.get_default_memory_pool().free_all_blocks()  # its scratch arrays
    log("python_peers_bench: %d lines in %.0f s (* = timed on a sub-image, scaled by the pixel count)"
        % (len(results) + 1, time.time() - t_start))
    if out is not sys.stdout:
        out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
