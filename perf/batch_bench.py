#!/usr/bin/env python3
"""Many small images at once: cudaimage's batched Gaussian blur against a loop of our filters and the
GPU peers that blur batches, in one run (doc/performance.md, "Batches"). Also the fixed cost of one
apply() on one image, the part of a small image's time that is not its own work.

    python3 perf/batch_bench.py [--out results.jsonl] [--md table.md] [--quick]
        [--cases a,b,...] [--peers ours,loop,kornia,torchvision,cupy,cvcuda,dali,dali-dynamic] [--check-args]

Batch cases (per-image sigma uniform in the range; ksize from sigma by OpenCV's rule for 8U, the
same rule for every peer; BORDER_REPLICATE):
  rgb224     256 x 224x224x3 uint8 NHWC, sigma 0.1..2
  rgb512     64 x 512x512x3 uint8 NHWC, sigma 0.1..2
  gray64     1024 x 64x64x1 uint8 NHWC, sigma 0.1..2
  rgb16      4096 x 16x16x3 uint8 NHWC, sigma 0.1..2 (the smallest images, the largest N)
  hd1080     16 x 1080x1920x3 uint8 NHWC, sigma 0.1..2 (the largest images, the smallest N)
  f32nchw    256 x 3x224x224 float32 NCHW (PyTorch), sigma 0.1..2
  u16gray    256 x 224x224x1 uint16, sigma 0.1..2
  varsize    256 x HxWx3 uint8, sides uniform in 32..640, sigma 0.1..5 (a list of GpuMats)
  rgb224wide 256 x 224x224x3 uint8 NHWC, sigma 0.1..30 (radius up to 90: mostly tensor cores)
  u16wide    256 x 224x224x1 uint16, sigma 0.1..20 (radius up to 80)
  f32wide    256 x 224x224x1 float32, sigma 0.1..20 (radius up to 80)
Peers, each as its users would call it, on the same torch stream:
  ours         cv2.cudaimage.tensor.gaussian_blur_batch(x, sigmas, out=y) (varsize:
               GaussianBatchFilter.apply on a list of GpuMats over torch tensors); beside it
               ours-new-sigmas (new per-image sigmas every call), ours-stacked
               (GaussianBatchFilter.applyStacked on GpuMat views made once: the C++ call alone) and
               ours-device-sigma (applyStackedDeviceSigma with a CUDA sigma tensor redrawn on the
               device before every call, one kernel size: the largest sigma's)
  loop         one cv2.cuda.createGaussianBlur filter per image (made outside the timing), apply()
               on each image in turn, dst preallocated
  kornia       kornia.filters.gaussian_blur2d(x, (k, k), sigma (B, 2) tensor, "replicate",
               separable=True) on float32 NCHW, k the batch's largest; uint8 converted to float and
               rounded back inside the timing
  torchvision  torchvision.transforms.v2.functional.gaussian_blur, one call per distinct sigma (here
               one per image) on NCHW uint8 / float32 views
  cupy         cupyx.scipy.ndimage.gaussian_filter per image, mode="nearest", truncate = (k//2)/sigma
  cvcuda       cvcuda.gaussian on an ImageBatchVarShape with per-image kernel-size and sigma tensors,
               and on one NHWC tensor with one sigma (when cvcuda imports)
  dali         NVIDIA DALI's fn.gaussian_blur in a pipeline (batch_size = the batch, prefetch_queue_depth
               1) fed by fn.external_source: the images on the GPU (HWC or CHW per sample, no_copy),
               per-image sigma and window_size (= k) as CPU argument inputs; feed_input, run(stream),
               the output copied into y with nvidia.dali.plugin.pytorch.feed_ndarray on the torch
               stream. DALI's border is reflect-101 (no other choice): exactness shows it. dali-dynamic:
               the same blur through DALI's dynamic mode (nvidia.dali.experimental.dynamic, an
               EvalContext on the torch stream), its output copied into y. Both give DALI sigmas
               changed by one float32 step in every call (new kernels every call, as ours-new-sigmas).
               Carried to the GPU machine by scripts/gpu/pack-peer-parts.sh / join-peer-parts.sh
Timing: CUDA events on the torch stream around one batch, 3 warm-up batches, median of --reps;
random data (the stream idle before the call: the host's work for the call is inside the time).
Host time: the wall time of one call (enqueue only) with the stream idle before it. Back to back:
10 calls between the events, per call (the host's work of one call overlapping the GPU's of the
previous, as in a training loop).
Exactness: images 0..7 of each case downloaded and compared with cv2.GaussianBlur on the CPU:
differing elements / elements and max |diff| (float: relative to max |input|).
Host lists (part "hostlist"): 256 x 224x224x3 uint8 NumPy images through cv2.cuda.processBatchGaussian
(sigma 1.5), wall time per call (median of --reps after 2 warm-ups), with a new results list and with
results given (the same arrays each call); beside it the page-locked PCIe transfer of the same bytes
both ways (torch, pinned, H2D then D2H, and both at once on two streams) and the host's copy of the
bytes into fresh arrays (NumPy, one thread), the stages a host list cannot avoid.
Single images (part "single"): back-to-back apply() of one filter on one GpuMat with dst
preallocated (and with a new dst per call), device time per call from events around 200 calls,
host time per call, beside a torch copy of the same bytes.
"""
import argparse
import ctypes
import json
import statistics
import sys
import time

import numpy as np

CASES = ["rgb224", "rgb512", "gray64", "rgb16", "hd1080", "f32nchw", "u16gray", "varsize", "rgb224wide", "u16wide", "f32wide"]
PARTS = ["single", "hostlist"]
PEERS = ["ours", "loop", "kornia", "torchvision", "cupy", "cvcuda", "dali", "dali-dynamic"]
SINGLE = [("64x64 8UC1", 64, 64, 1, 2.0), ("224x224 8UC3", 224, 224, 3, 1.5), ("512x512 8UC3", 512, 512, 3, 2.0),
          ("1920x1080 8UC3", 1920, 1080, 3, 2.0), ("3840x2160 8UC1", 3840, 2160, 1, 2.0),
          ("3840x2160 8UC3", 3840, 2160, 3, 2.0)]


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="-")
    ap.add_argument("--md", default="")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--cases", default=",".join(CASES + PARTS))
    ap.add_argument("--peers", default=",".join(PEERS))
    ap.add_argument("--check-args", action="store_true")
    args = ap.parse_args()
    cases = [c for c in args.cases.split(",") if c]
    peers = [p for p in args.peers.split(",") if p]
    for what, given, known in (("case", cases, CASES + PARTS), ("peer", peers, PEERS)):
        bad = [g for g in given if g not in known]
        if bad or not given:
            ap.error("unknown %s(s) %s; known: %s" % (what, ",".join(bad) or "(none)", ",".join(known)))
    if args.check_args:
        return 0
    reps = 5 if args.quick else args.reps

    import cv2
    import torch
    from cv2.cudaimage import tensor as cit

    out = sys.stdout if args.out == "-" else open(args.out, "w")
    rows = []

    def emit(rec):
        out.write(json.dumps(rec) + "\n")
        out.flush()
        rows.append(rec)

    stream = torch.cuda.current_stream()
    cvs = cv2.cuda.wrapStream(stream.cuda_stream) if stream.cuda_stream else cv2.cuda.Stream.Null()
    versions = {"torch": torch.__version__, "cv2": cv2.__version__, "gpu": torch.cuda.get_device_name(0)}
    mods = {}
    for name, mod in (("kornia", "kornia"), ("torchvision", "torchvision"), ("cupy", "cupy"), ("cvcuda", "cvcuda")):
        try:
            mods[name] = __import__(mod)
            if name == "torchvision":
                import torchvision.transforms.v2.functional  # noqa: F401
            versions[name] = getattr(mods[name], "__version__", "?")
        except Exception as e:   # optional peer
            versions[name + "_missing"] = "%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")
    # DALI: a package inside nvidia/ (importlib, not __import__, which returns nvidia itself); the
    # pipeline API (with its PyTorch plugin) and the dynamic mode, each optional on its own.
    import importlib
    for name, names in (("dali", ("nvidia.dali", "nvidia.dali.fn", "nvidia.dali.types", "nvidia.dali.plugin.pytorch")),
                        ("dali-dynamic", ("nvidia.dali.experimental.dynamic",))):
        if name not in peers:
            continue
        try:
            mods[name] = [importlib.import_module(m) for m in names]
            versions["dali"] = importlib.import_module("nvidia.dali").__version__
        except Exception as e:   # optional peer
            versions[name + "_missing"] = "%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")
    emit(dict(peer="meta", **versions))

    def time_gpu(fn, n=reps):
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        times = []
        for _ in range(n):
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record(stream)
            fn()
            b.record(stream)
            b.synchronize()
            times.append(a.elapsed_time(b))
        return statistics.median(times)

    def host_time(fn, n=10):
        ts = []
        for _ in range(n):
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            fn()
            ts.append((time.perf_counter() - t0) * 1e3)
        torch.cuda.synchronize()
        return statistics.median(ts)

    rng = np.random.default_rng(2026)

    for case in [c for c in cases if c not in PARTS]:
        n, h, w, c, dtype, layout, smax = {
            "rgb224": (256, 224, 224, 3, np.uint8, "NHWC", 2.0), "rgb512": (64, 512, 512, 3, np.uint8, "NHWC", 2.0),
            "gray64": (1024, 64, 64, 1, np.uint8, "NHWC", 2.0), "rgb16": (4096, 16, 16, 3, np.uint8, "NHWC", 2.0),
            "hd1080": (16, 1080, 1920, 3, np.uint8, "NHWC", 2.0), "f32nchw": (256, 224, 224, 3, np.float32, "NCHW", 2.0),
            "u16gray": (256, 224, 224, 1, np.uint16, "NHWC", 2.0), "varsize": (256, 0, 0, 3, np.uint8, "list", 5.0),
            # sigmas up to 20-30: most images on the tensor-core kernels (radius 9..90)
            "rgb224wide": (256, 224, 224, 3, np.uint8, "NHWC", 30.0), "u16wide": (256, 224, 224, 1, np.uint16, "NHWC", 20.0),
            "f32wide": (256, 224, 224, 1, np.float32, "NHWC", 20.0)}[case]
        sigmas = rng.uniform(0.1, smax, n)
        depth = {np.uint8: cv2.CV_8U, np.uint16: cv2.CV_16U, np.float32: cv2.CV_32F}[dtype]
        ks = [cv2.cuda.gaussianKernelSize(float(s), depth) for s in sigmas]
        if case == "varsize":
            sizes = [(int(rng.integers(32, 641)), int(rng.integers(32, 641))) for _ in range(n)]
            hosts = [rng.integers(0, 256, (hh, ww, c), dtype=np.uint8) for hh, ww in sizes]
            xs = [torch.from_numpy(a).cuda() for a in hosts]
            ys = [torch.empty_like(x) for x in xs]
            nbytes = sum(a.nbytes for a in hosts)
        else:
            shape = (n, c, h, w) if layout == "NCHW" else (n, h, w, c)
            if dtype == np.float32:
                host = (rng.random(shape, dtype=np.float32) * 255).astype(np.float32)
            else:
                host = rng.integers(0, np.iinfo(dtype).max + 1, shape, dtype=dtype)
            x = torch.from_numpy(host).cuda()
            y = torch.empty_like(x)
            hosts = [host[i] for i in range(n)]
            xs, ys = [x[i] for i in range(n)], [y[i] for i in range(n)]
            nbytes = host.nbytes
        torch.cuda.synchronize()
        base = dict(case=case, images=n, bytes=nbytes)
        # The copy of the same bytes (read + write), the bandwidth reference.
        if case == "varsize":
            flat_x = torch.cat([t.reshape(-1) for t in xs])
            flat_y = torch.empty_like(flat_x)
            copy_ms = time_gpu(lambda: flat_y.copy_(flat_x))
        else:
            copy_ms = time_gpu(lambda: y.copy_(x))
        emit(dict(base, peer="copy", ms=copy_ms))
        log("%s: copy %.4f ms" % (case, copy_ms))

        def to_gpumat(t):
            hh, ww = t.shape[0], t.shape[1]
            cn = t.shape[2] if t.dim() == 3 else 1
            return cv2.cuda.createGpuMatFromCudaMemory(hh, ww, cv2.CV_MAKETYPE(depth, cn), t.data_ptr(), t.stride(0) * t.element_size())

        def check(results, name, kfix=None):
            """Images 0..7 against cv2.GaussianBlur: (differing fraction, max |diff| (relative for float));
            kfix: one kernel size for every image instead of each sigma's."""
            diff = tot = 0
            worst = 0.0
            for i in range(8):
                src = hosts[i]
                got = results(i)
                k = kfix or ks[i]
                if layout == "NCHW":
                    want = np.stack([cv2.GaussianBlur(src[p], (k, k), sigmas[i], borderType=cv2.BORDER_REPLICATE)
                                     for p in range(c)])
                else:
                    want = cv2.GaussianBlur(src, (k, k), sigmas[i], borderType=cv2.BORDER_REPLICATE).reshape(src.shape)
                d = np.abs(want.astype(np.float64) - got.astype(np.float64).reshape(want.shape))
                if dtype == np.float32:
                    worst = max(worst, float(d.max()) / max(1.0, float(np.abs(src).max())))
                    diff += int((d > 1e-5 * max(1.0, float(np.abs(src).max()))).sum())
                else:
                    worst = max(worst, float(d.max()))
                    diff += int((d > 0).sum())
                tot += d.size
            return diff / tot, worst

        def run_peer(name, fn, results, note="", kfix=None, timed=None):
            """fn: the call checked for exactness; timed (default fn): the call timed."""
            try:
                fn()
                torch.cuda.synchronize()
                frac, worst = check(results, name, kfix)
                fn = timed or fn
                ms = time_gpu(fn)
                hms = host_time(fn)
                # Back to back (a training loop's view): 10 calls between the events, per call.
                pms = time_gpu(lambda: [fn() for _ in range(10)], max(reps // 2, 5)) / 10
                emit(dict(base, peer=name, ms=ms, host_ms=hms, pipelined_ms=pms, copy_fraction=copy_ms / ms, differing=frac,
                          max_diff=worst, note=note))
                log("%s %s: %.4f ms (host %.4f, back to back %.4f), %.1f %% of copy, differing %.4f, max %g"
                    % (case, name, ms, hms, pms, 100 * copy_ms / ms, frac, worst))
            except Exception as e:   # a peer that refuses the case is reported, not fatal
                emit(dict(base, peer=name, status="error", note="%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")))
                log("%s %s: error %s" % (case, name, e))

        get_y = lambda i: ys[i].cpu().numpy()
        if "ours" in peers:
            if case == "varsize":
                f = cv2.cuda.createGaussianBlurBatch(cv2.CV_8UC3, -1, (0, 0), 1.0)
                gx = [to_gpumat(t) for t in xs]
                gy = [to_gpumat(t) for t in ys]
                sl = [float(s) for s in sigmas]
                run_peer("ours", lambda: f.apply(gx, gy, sl, [], [], cvs), get_y, "GaussianBatchFilter.apply, list of GpuMats")
            else:
                sl = [float(s) for s in sigmas]
                run_peer("ours", lambda: cit.gaussian_blur_batch(x, sl, out=y, layout=layout), get_y,
                         "cv2.cudaimage.tensor.gaussian_blur_batch")
                # New sigmas in every call (an augmentation pipeline): their taps are built on the device.
                fresh = iter(range(1, 10 ** 9))
                run_peer("ours-new-sigmas", lambda: cit.gaussian_blur_batch(x, [s * (1 + 1e-9 * next(fresh)) for s in sl], out=y, layout=layout),
                         get_y, "new per-image sigmas in every call (taps built on the device per call)")
                # The same batch without the Python wrapper (views, layout, stream made once): the
                # C++ call's host part alone, to tell the two apart.
                planes = c if layout == "NCHW" else 1
                cv_type = cv2.CV_MAKETYPE(depth, 1 if layout == "NCHW" else c)
                row_bytes = w * (1 if layout == "NCHW" else c) * x.element_size()
                fs = cv2.cuda.createGaussianBlurBatch(cv_type, -1, (0, 0), 1.0)
                gsx = cv2.cuda.createGpuMatFromCudaMemory(n * planes * h, w, cv_type, x.data_ptr(), row_bytes)
                gsy = cv2.cuda.createGpuMatFromCudaMemory(n * planes * h, w, cv_type, y.data_ptr(), row_bytes)
                slp = [s for s in sl for _ in range(planes)]
                run_peer("ours-stacked", lambda: fs.applyStacked(gsx, gsy, h, slp, [], [], cvs), get_y,
                         "GaussianBatchFilter.applyStacked on GpuMat views made once (no Python wrapper)")
                # Sigmas on the device, drawn there before every call (a training loop's
                # torch.empty(n, device="cuda").uniform_()), one kernel size for the batch (the
                # largest sigma's, as a transform's kernel_size): no host work per image.
                if hasattr(fs, "applyStackedDeviceSigma"):
                    kmax = cv2.cuda.gaussianKernelSize(float(smax), depth)
                    sdev = torch.tensor(sigmas, dtype=torch.float32, device="cuda")
                    sigmas_checked = sdev.cpu().double().numpy()
                    gsig = cv2.cuda.createGpuMatFromCudaMemory(1, n, cv2.CV_32FC1, sdev.data_ptr())
                    none = cv2.cuda.GpuMat()
                    saved = sigmas.copy()
                    sigmas[:] = sigmas_checked   # the float32 values the device reads, for the check
                    def draw_and_blur():
                        sdev.uniform_(0.1, smax)
                        fs.applyStackedDeviceSigma(gsx, gsy, h, gsig, none, (kmax, kmax), cvs)
                    run_peer("ours-device-sigma", lambda: fs.applyStackedDeviceSigma(gsx, gsy, h, gsig, none, (kmax, kmax), cvs),
                             get_y, "sigma a CUDA tensor drawn on the device before every call (its uniform_ inside the "
                             "time), ksize %d for every image (exactness: against cv2.GaussianBlur with that ksize)" % kmax,
                             kfix=kmax, timed=draw_and_blur)
                    sigmas[:] = saved
        if "loop" in peers:
            if layout == "NCHW":
                filters = [cv2.cuda.createGaussianBlur(cv2.CV_32FC1, -1, (0, 0), float(s)) for s in sigmas]
                pairs = [(cv2.cuda.createGpuMatFromCudaMemory(h, w, cv2.CV_32FC1, x[i, k].data_ptr(), w * 4),
                          cv2.cuda.createGpuMatFromCudaMemory(h, w, cv2.CV_32FC1, y[i, k].data_ptr(), w * 4), i)
                         for i in range(n) for k in range(c)]
            else:
                filters = [cv2.cuda.createGaussianBlur(cv2.CV_MAKETYPE(depth, c), -1, (0, 0), float(s)) for s in sigmas]
                pairs = [(to_gpumat(xs[i]), to_gpumat(ys[i]), i) for i in range(n)]

            def loop():
                for a, b, i in pairs:
                    filters[i].apply(a, b, cvs)
            run_peer("loop", loop, get_y, "createGaussianBlur per image, apply() in turn")
        if "kornia" in peers and "kornia" in mods and case != "varsize":
            kornia = mods["kornia"]
            kmax = max(ks)
            sig = torch.tensor(np.stack([sigmas, sigmas], 1), dtype=torch.float32, device="cuda")
            xin = x if layout == "NCHW" else x.permute(0, 3, 1, 2)
            yout = y if layout == "NCHW" else y.permute(0, 3, 1, 2)

            def kb():
                r = kornia.filters.gaussian_blur2d(xin.float(), (kmax, kmax), sig, border_type="replicate", separable=True)
                if dtype != np.float32:
                    r = r.round_().clamp_(0, np.iinfo(dtype).max)
                yout.copy_(r)
            run_peer("kornia", kb, get_y, "gaussian_blur2d, (B,2) sigma, k = largest of the batch (%d)" % kmax)
        if "torchvision" in peers and "torchvision" in mods and case != "varsize":
            import torchvision.transforms.v2.functional as TF
            xin = x if layout == "NCHW" else x.permute(0, 3, 1, 2)
            yout = y if layout == "NCHW" else y.permute(0, 3, 1, 2)

            def tv():
                for i in range(n):
                    yout[i:i + 1].copy_(TF.gaussian_blur(xin[i:i + 1], [ks[i], ks[i]], [float(sigmas[i])] * 2))
            run_peer("torchvision", tv, get_y, "v2.functional.gaussian_blur per distinct sigma (reflect border)")
        if "cupy" in peers and "cupy" in mods and case != "varsize":
            cp = mods["cupy"]
            import cupyx.scipy.ndimage as ndi
            ext = cp.cuda.ExternalStream(stream.cuda_stream)
            cx, cy = cp.asarray(x), cp.asarray(y)

            def cb():
                with ext:
                    for i in range(n):
                        s = float(sigmas[i])
                        sig = (0, s, s) if layout == "NCHW" else ((s, s, 0) if c > 1 else (s, s, 0))
                        ndi.gaussian_filter(cx[i], sig, mode="nearest", truncate=(ks[i] // 2) / s, output=cy[i])
            run_peer("cupy", cb, get_y, "cupyx gaussian_filter per image")
        if "cvcuda" in peers and "cvcuda" in mods:
            cvcuda = mods["cvcuda"]
            try:
                try:
                    cst = cvcuda.as_stream(stream)                     # the torch stream itself
                except Exception:
                    cst = cvcuda.as_stream(int(stream.cuda_stream))    # its cudaStream_t handle
                if case != "varsize" and layout == "NHWC":
                    tin, tout = cvcuda.as_tensor(x, "NHWC"), cvcuda.as_tensor(y, "NHWC")
                    k1, s1 = max(ks), float(np.median(sigmas))
                    run_peer("cvcuda-nhwc", lambda: cvcuda.gaussian_into(tout, tin, (k1, k1), (s1, s1), cvcuda.Border.REPLICATE, stream=cst),
                             get_y, "one NHWC tensor, one sigma (%g): exactness vs per-image sigma not meaningful" % s1)
                # One image per image (NCHW: per plane, with its image's kernel), in the format of its dtype.
                fmt = {(np.uint8, 1): cvcuda.Format.U8, (np.uint8, 3): cvcuda.Format.RGB8, (np.uint16, 1): cvcuda.Format.U16,
                       (np.float32, 1): cvcuda.Format.F32}[(dtype, 1 if layout == "NCHW" else c)]
                planes = ([(xs[i][k], ys[i][k], i) for i in range(n) for k in range(c)] if layout == "NCHW"
                          else [(xs[i], ys[i], i) for i in range(n)])
                srcs = cvcuda.ImageBatchVarShape(len(planes))
                dsts = cvcuda.ImageBatchVarShape(len(planes))
                for a, b, _ in planes:
                    srcs.pushback(cvcuda.as_image(a, fmt))
                    dsts.pushback(cvcuda.as_image(b, fmt))
                ksz = cvcuda.as_tensor(torch.tensor([[ks[i], ks[i]] for _, _, i in planes], dtype=torch.int32, device="cuda"), "NC")
                sgm = cvcuda.as_tensor(torch.tensor([[sigmas[i], sigmas[i]] for _, _, i in planes], dtype=torch.float64, device="cuda"), "NC")
                run_peer("cvcuda-varshape", lambda: cvcuda.gaussian_into(dsts, srcs, (max(ks), max(ks)), ksz, sgm, cvcuda.Border.REPLICATE, stream=cst),
                         get_y, "ImageBatchVarShape, per-image kernel size and sigma" + (" (one image per plane)" if layout == "NCHW" else ""))
            except Exception as e:
                emit(dict(base, peer="cvcuda", status="error", note="%s: %s" % (type(e).__name__, e)))
        if ("dali" in mods or "dali-dynamic" in mods) and dtype in (np.uint8, np.uint16, np.float32):
            # Per sample: HWC (NHWC cases, varsize) or CHW (NCHW); sigma and window_size are per-sample
            # argument inputs, which DALI takes from the CPU. Every call gets sigmas one float32 step
            # away from the last call's (DALI keeps a sample's kernel while its arguments stay the
            # same), as ours-new-sigmas; the check runs the first call, with the float32 sigmas.
            sample_layout = "CHW" if layout == "NCHW" else "HWC"
            sig32 = sigmas.astype(np.float32)
            sig_calls = [sig32, np.nextafter(sig32, np.float32(np.inf))]
            win = np.array(ks, dtype=np.int32)
            turn = iter(range(10 ** 9))
            next_sigmas = lambda: sig_calls[next(turn) % 2]
            saved = sigmas.copy()
            sigmas[:] = sig32   # the values DALI computes with, for the check
            src = xs if case == "varsize" else x
            note_border = "; border reflect-101 (DALI has no replicate): the edges differ from BORDER_REPLICATE"
            if "dali" in mods:
                try:
                    dali, fn, dtypes, dali_torch = mods["dali"]
                    dali_dtype = {np.uint8: dtypes.UINT8, np.uint16: dtypes.UINT16, np.float32: dtypes.FLOAT}[dtype]

                    @dali.pipeline_def(batch_size=n, num_threads=4, device_id=torch.cuda.current_device(), prefetch_queue_depth=1)
                    def blur_pipe():
                        images = fn.external_source(name="images", device="gpu", layout=sample_layout, dtype=dali_dtype, ndim=3,
                                                    no_copy=True)
                        sigma = fn.external_source(name="sigma", device="cpu", dtype=dtypes.FLOAT, ndim=0)
                        window = fn.external_source(name="window", device="cpu", dtype=dtypes.INT32, ndim=0)
                        return fn.gaussian_blur(images, sigma=sigma, window_size=window)
                    pipe = blur_pipe()
                    pipe.build()
                    raw_stream = ctypes.c_void_p(stream.cuda_stream)

                    def to_torch(t, dst):
                        if dtype == np.uint16:   # feed_ndarray's type table has no UINT16: the copy it makes, by hand
                            assert t.shape() == list(dst.shape), (t.shape(), dst.shape)
                            t.copy_to_external(ctypes.c_void_p(dst.data_ptr()), raw_stream, non_blocking=True)
                        else:
                            dali_torch.feed_ndarray(t, dst, cuda_stream=stream)

                    def dali_blur():
                        pipe.feed_input("images", src, cuda_stream=stream)   # the images are ready on the torch stream
                        pipe.feed_input("sigma", next_sigmas())
                        pipe.feed_input("window", win)
                        out, = pipe.run(stream)                              # outputs bound to the torch stream
                        if case == "varsize":
                            for i in range(n):
                                to_torch(out[i], ys[i])
                        else:
                            to_torch(out.as_tensor(), y)
                    run_peer("dali", dali_blur, get_y, "pipeline: external_source (GPU, %s, no_copy) + per-image sigma and window_size "
                             "(CPU argument inputs), gaussian_blur, run(torch stream), feed_ndarray into y%s" % (sample_layout, note_border))
                except Exception as e:
                    emit(dict(base, peer="dali", status="error", note="%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")))
            if "dali-dynamic" in mods:
                try:
                    ndd, = mods["dali-dynamic"]
                    ctx = ndd.EvalContext(device_id=torch.cuda.current_device(), cuda_stream=stream)

                    def dali_dynamic_blur():
                        with ctx:
                            out = ndd.gaussian_blur(ndd.as_batch(src, layout=sample_layout), sigma=ndd.as_batch(next_sigmas()),
                                                    window_size=ndd.as_batch(win), device="gpu")
                            if case == "varsize":
                                for t, d in zip(out, ys):
                                    d.copy_(t.torch())
                            else:
                                y.copy_(out.torch())
                    run_peer("dali-dynamic", dali_dynamic_blur, get_y, "dynamic mode: gaussian_blur(as_batch(x, %s), sigma=as_batch, "
                             "window_size=as_batch) in an EvalContext on the torch stream, .torch() copied into y%s"
                             % (sample_layout, note_border))
                except Exception as e:
                    emit(dict(base, peer="dali-dynamic", status="error",
                              note="%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")))
            sigmas[:] = saved

    if "single" in cases:
        for label, w, h, c, sigma in SINGLE:
            host = rng.integers(0, 256, (h, w, c) if c > 1 else (h, w), dtype=np.uint8)
            g = cv2.cuda.GpuMat(host)
            d = cv2.cuda.GpuMat(g.size(), g.type())
            f = cv2.cuda.createGaussianBlur(g.type(), -1, (0, 0), sigma)
            t = torch.from_numpy(host).cuda()
            tc = torch.empty_like(t)
            calls = 200
            rec = dict(case="single", image=label, sigma=sigma)
            for name, fn in (("apply_dst_given", lambda: f.apply(g, d, cvs)), ("apply_new_dst", lambda: f.apply(g, None, cvs)),
                             ("torch_copy", lambda: tc.copy_(t))):
                for _ in range(20):
                    fn()
                torch.cuda.synchronize()
                a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                t0 = time.perf_counter()
                a.record(stream)
                for _ in range(calls):
                    fn()
                b.record(stream)
                host_us = (time.perf_counter() - t0) * 1e6 / calls
                b.synchronize()
                rec[name + "_us"] = a.elapsed_time(b) * 1e3 / calls
                rec[name + "_host_us"] = host_us
                # One call's device time alone (the stream idle before it): the kernel plus launch.
                rec[name + "_one_us"] = time_gpu(fn, 20) * 1e3
            emit(rec)
            log("single %s: %s" % (label, {k: round(v, 2) for k, v in rec.items() if k.endswith("us")}))

    if "hostlist" in cases:
        n, sigma = 256, 1.5
        images = [rng.integers(0, 256, (224, 224, 3), dtype=np.uint8) for _ in range(n)]
        nbytes = sum(a.nbytes for a in images)
        given = [np.empty_like(a) for a in images]

        def wall_ms(fn, runs=max(reps, 5)):
            for _ in range(2):
                fn()
            ts = []
            for _ in range(runs):
                t0 = time.perf_counter()
                fn()
                ts.append((time.perf_counter() - t0) * 1e3)
            return statistics.median(ts)

        rec = dict(case="hostlist", images=n, bytes=nbytes)
        rec["new_results_ms"] = wall_ms(lambda: cv2.cuda.processBatchGaussian(images, (0, 0), sigma))
        rec["given_results_ms"] = wall_ms(lambda: cv2.cuda.processBatchGaussian(images, (0, 0), sigma, results=given))
        blurred = cv2.cuda.processBatchGaussian(images, (0, 0), sigma)
        rec["differing"] = float(sum(int(np.count_nonzero(cv2.GaussianBlur(images[i], (0, 0), sigma, borderType=cv2.BORDER_REPLICATE) != blurred[i]))
                                     for i in range(8)) / sum(images[i].size for i in range(8)))
        back = cv2.cuda.processBatchGaussian(images, (0, 0), sigma, results=given)
        rec["given_results_written_in_place"] = all(np.shares_memory(b, g) for b, g in zip(back, given))
        pinned_in = torch.empty(nbytes, dtype=torch.uint8).pin_memory()
        pinned_out = torch.empty(nbytes, dtype=torch.uint8).pin_memory()
        dev_a = torch.empty(nbytes, dtype=torch.uint8, device="cuda")
        dev_b = torch.empty(nbytes, dtype=torch.uint8, device="cuda")
        pinned_in.copy_(torch.from_numpy(np.concatenate([a.reshape(-1) for a in images])))
        other = torch.cuda.Stream()

        def both_ways():
            dev_a.copy_(pinned_in, non_blocking=True)
            pinned_out.copy_(dev_a, non_blocking=True)
            torch.cuda.synchronize()

        def overlapped():
            dev_a.copy_(pinned_in, non_blocking=True)
            with torch.cuda.stream(other):
                pinned_out.copy_(dev_b, non_blocking=True)
            torch.cuda.synchronize()
        rec["pcie_both_ways_ms"] = wall_ms(both_ways)
        rec["pcie_overlapped_ms"] = wall_ms(overlapped)
        rec["host_copy_new_arrays_ms"] = wall_ms(lambda: [a.copy() for a in images])
        rec["host_copy_given_ms"] = wall_ms(lambda: [np.copyto(g, a) for g, a in zip(given, images)])
        emit(rec)
        log("hostlist: %s" % {k: (round(v, 3) if isinstance(v, float) else v) for k, v in rec.items()})

    if args.md:
        with open(args.md, "w") as md:
            md.write("| case | peer | ms | host ms | back to back ms | % of copy | differing | max diff | note |\n|---|---|---|---|---|---|---|---|---|\n")
            for r in rows:
                if r.get("peer") in (None, "meta") or r.get("case") in PARTS:
                    continue
                md.write("| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n" % (
                    r["case"], r["peer"], "%.4f" % r["ms"] if "ms" in r else r.get("status", ""),
                    "%.4f" % r["host_ms"] if "host_ms" in r else "", "%.4f" % r["pipelined_ms"] if "pipelined_ms" in r else "",
                    "%.1f" % (100 * r["copy_fraction"]) if "copy_fraction" in r else "",
                    "%.4f" % r["differing"] if "differing" in r else "", "%g" % r["max_diff"] if "max_diff" in r else "", r.get("note", "")))
            md.write("\n| image | apply, dst given: device us/call | host us/call | one call alone us | new dst each call us/call | torch copy us/call |\n|---|---|---|---|---|---|\n")
            for r in rows:
                if r.get("case") == "single":
                    md.write("| %s | %.2f | %.2f | %.2f | %.2f | %.2f |\n" % (r["image"], r["apply_dst_given_us"], r["apply_dst_given_host_us"],
                                                                      r["apply_dst_given_one_us"], r["apply_new_dst_us"], r["torch_copy_us"]))
            for r in rows:
                if r.get("case") == "hostlist":
                    md.write("\n| host list (%d x 224x224x3 NumPy) | ms |\n|---|---|\n" % r["images"])
                    for k in ("new_results_ms", "given_results_ms", "pcie_both_ways_ms", "pcie_overlapped_ms",
                              "host_copy_new_arrays_ms", "host_copy_given_ms"):
                        md.write("| %s | %.3f |\n" % (k[:-3].replace("_", " "), r[k]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
