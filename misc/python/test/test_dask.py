#!/usr/bin/env python3
"""cv2.cudaimage.dask.gaussian_blur: Dask arrays blurred chunk by chunk, compared with a blur of the
whole image (values, not shapes).

* Arguments (no cluster): every bad input raises TypeError / ValueError naming the parameter when
  gaussian_blur is called, before any task runs; importing cv2.cudaimage does not import Dask.
* CPU path under a distributed cluster of processes (LocalCluster, 2 workers of 1 thread): random
  shapes, chunkings (1-pixel, radius-sized, irregular), dtypes, channel counts, kernels and borders
  against whole-image cv2.GaussianBlur: identical for uint8 / uint16, within the documented
  tolerance for int16 / float32 / float64; every border on chunkings with 1-pixel edge chunks;
  images smaller than the kernel; output chunks, dtype and chunk type as the input's.
* The deployment shape, on loopback: a `dask scheduler` process and two `dask worker` processes
  (one per GPU on a GPU machine, CUDA_VISIBLE_DEVICES set per worker), both seen running blur
  tasks; samples/python/blur_zarr.py against that scheduler and on its own (Zarr in, Zarr out).
* blur_zarr.py's bands: bit for bit the whole-image blur where the radius crosses band boundaries
  (every border, bands of several rows of chunks, chunks shorter than the radius); the most data
  Dask holds at once stays a few chunks as the image grows.
* GPU (skipped without a CUDA device): the same comparisons on the GPU path with NumPy chunks
  (SyncedMat staging, counted) and with CuPy chunks (skipped without CuPy).

Skipped as a whole, with the reason, when dask or distributed are not installed
(pip install -r scripts/build/python-requirements.txt).
"""
import importlib.util
import json
import logging
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import numpy as np
import cv2

from cudaimage_test_support import find_samples

MISSING = [m for m in ("dask", "distributed") if importlib.util.find_spec(m) is None]
if not MISSING:
    import dask
    import dask.array as da
    import distributed
    from cv2.cudaimage import dask as cdask
HAVE_ZARR = importlib.util.find_spec("zarr") is not None

try:
    import cupy
    cupy.cuda.runtime.getDeviceCount()
except Exception:  # ImportError, or a CuPy without a usable CUDA
    cupy = None

needs_dask = unittest.skipIf(MISSING, "needs %s (pip install -r scripts/build/python-requirements.txt)" % " and ".join(MISSING))


def gpu_count():
    try:
        return max(cv2.cuda.getCudaEnabledDeviceCount(), 0)
    except (AttributeError, cv2.error):
        return 0


SAMPLES = find_samples("blur_zarr.py")
BORDERS = (cv2.BORDER_REPLICATE, cv2.BORDER_REFLECT_101, cv2.BORDER_REFLECT, cv2.BORDER_CONSTANT, cv2.BORDER_WRAP)
BORDER_NAMES = {cv2.BORDER_REPLICATE: "REPLICATE", cv2.BORDER_REFLECT_101: "REFLECT_101",
                cv2.BORDER_REFLECT: "REFLECT", cv2.BORDER_CONSTANT: "CONSTANT", cv2.BORDER_WRAP: "WRAP"}
DTYPES = (np.uint8, np.uint16, np.int16, np.float32, np.float64)
CALL_TIMEOUT = 240          # seconds for one batch of computations


def subprocess_env():
    """This interpreter's environment with the cv2 this test imported first on the path."""
    env = dict(os.environ)
    cv2_parent = os.path.dirname(os.path.dirname(os.path.abspath(cv2.__file__)))
    env["PYTHONPATH"] = os.pathsep.join([cv2_parent] + [p for p in [env.get("PYTHONPATH")] if p])
    return env


def reference(a, ksize, sigma_x, sigma_y, border):
    """Whole-image blur: cv2.GaussianBlur, or for BORDER_WRAP where it refuses it (int16, floats)
    the blur of the image padded by copyMakeBorder(WRAP) (an axis of length 1 is not padded: OpenCV
    blurs a single row or column only along it)."""
    try:
        out = cv2.GaussianBlur(a, ksize, sigma_x, sigmaY=sigma_y, borderType=border)
    except cv2.error:
        if border != cv2.BORDER_WRAP:
            raise
        kx, ky = cdask.kernel_size(a.dtype, ksize, sigma_x, sigma_y)
        ry = ky // 2 if a.shape[0] > 1 else 0
        rx = kx // 2 if a.shape[1] > 1 else 0
        padded = cv2.copyMakeBorder(a, ry, ry, rx, rx, cv2.BORDER_WRAP)
        out = cv2.GaussianBlur(padded, ksize, sigma_x, sigmaY=sigma_y, borderType=cv2.BORDER_REPLICATE)
        out = out[ry:ry + a.shape[0], rx:rx + a.shape[1]]
    return out.reshape(a.shape)


def tolerance(a):
    """The module's documented tolerance against cv2.GaussianBlur."""
    scale = float(np.abs(a.astype(np.float64)).max()) if a.size else 0.0
    return {np.dtype(np.uint8): 0, np.dtype(np.uint16): 0, np.dtype(np.int16): 1,
            np.dtype(np.float32): 1e-5 * scale, np.dtype(np.float64): 1e-12 * scale}[a.dtype]


def random_image(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype.kind in "ui":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=dtype)
    return ((rng.random(shape) * 2 - 1) * 1000).astype(dtype)


def random_chunks(rng, n, radius):
    """A chunking of an axis of length n: 1-pixel, radius-sized, random regular or irregular."""
    kind = rng.integers(0, 5)
    if kind == 0 and n <= 12:
        return (1,) * n
    if kind == 1 and radius > 0:
        return max(radius, 1)
    if kind == 2:
        return int(rng.integers(1, n + 1))
    if kind == 3:                                           # irregular, small ones at the edges
        sizes, left = [], n
        while left:
            c = int(min(left, rng.integers(1, max(2, n // 3) + 1)))
            sizes.append(c)
            left -= c
        return tuple(sizes)
    return n


def random_kernel(rng, dtype):
    """(ksize, sigmaX, sigmaY) as a user passes them to cv2.GaussianBlur."""
    kind = rng.integers(0, 4)
    if kind == 0:                                           # derived from sigma
        return (0, 0), float(rng.uniform(0.3, 5.0)), 0.0
    if kind == 1:                                           # explicit size, sigma from the size
        return (int(rng.integers(0, 13)) * 2 + 1, int(rng.integers(0, 13)) * 2 + 1), 0.0, 0.0
    if kind == 2:                                           # both, sigmaX != sigmaY
        return (int(rng.integers(0, 8)) * 2 + 1, int(rng.integers(0, 8)) * 2 + 1), \
            float(rng.uniform(0.2, 4.0)), float(rng.uniform(0.2, 4.0))
    return (0, 0), float(rng.uniform(0.3, 3.0)), float(rng.uniform(0.3, 6.0))


def random_cases(seed, count, max_side=60):
    rng = np.random.default_rng(seed)
    cases = []
    for i in range(count):
        dtype = DTYPES[i % len(DTYPES)]
        h = int(rng.integers(1, max_side + 1)) if rng.random() > 0.1 else 1
        w = int(rng.integers(1, max_side + 1)) if rng.random() > 0.1 else 1
        channels = [None, 1, 2, 3, 4][int(rng.integers(0, 5))]
        shape = (h, w) if channels is None else (h, w, channels)
        ksize, sx, sy = random_kernel(rng, dtype)
        kx, ky = cdask.kernel_size(dtype, ksize, sx, sy)
        chunks = (random_chunks(rng, h, ky // 2), random_chunks(rng, w, kx // 2))
        if channels is not None:
            chunks += (-1,)
        border = BORDERS[int(rng.integers(0, len(BORDERS)))]
        cases.append(dict(image=random_image(rng, shape, dtype), chunks=chunks, ksize=ksize, sx=sx, sy=sy,
                          border=border))
    return cases


def describe(case):
    a = case["image"]
    return "%s %s chunks=%s ksize=%s sigma=(%g, %g) border=%s" % (
        a.dtype, a.shape, case["chunks"], case["ksize"], case["sx"], case["sy"], BORDER_NAMES[case["border"]])


class CompareMixin(object):
    def check_cases(self, cases, compute, device="cpu", to_chunks=None):
        """Blurs every case through gaussian_blur (computed together by `compute`) and compares with
        the whole-image reference. `to_chunks` maps a NumPy dask array to the chunk type under test."""
        arrays = []
        for case in cases:
            x = da.from_array(case["image"], chunks=case["chunks"])
            if to_chunks is not None:
                x = to_chunks(x)
            y = cdask.gaussian_blur(x, case["ksize"], case["sx"], case["sy"], case["border"], device=device)
            self.assertEqual(x.chunks, y.chunks, describe(case))
            self.assertEqual(x.dtype, y.dtype, describe(case))
            self.assertIs(type(x._meta), type(y._meta), describe(case))
            arrays.append(y)
        results = compute(arrays)
        worst = {}
        for case, got in zip(cases, results):
            if cupy is not None and isinstance(got, cupy.ndarray):
                got = cupy.asnumpy(got)
            a = case["image"]
            expected = reference(a, case["ksize"], case["sx"], case["sy"], case["border"])
            self.assertEqual(expected.shape, got.shape, describe(case))
            self.assertEqual(expected.dtype, got.dtype, describe(case))
            diff = float(np.abs(got.astype(np.float64) - expected.astype(np.float64)).max())
            self.assertLessEqual(diff, tolerance(a), describe(case))
            worst[a.dtype.name] = max(worst.get(a.dtype.name, 0.0), diff)
        return worst


def raiser(block):
    raise AssertionError("a task ran")


@needs_dask
class ArgumentTest(unittest.TestCase):
    """Bad input raises when gaussian_blur is called: the input's own tasks would fail if run."""

    def image(self, shape=(16, 16), dtype=np.uint8, chunks=8):
        return da.zeros(shape, dtype=dtype, chunks=chunks).map_blocks(raiser, dtype=dtype)

    def assert_error(self, exc, words, *args, **kwargs):
        with self.assertRaises(exc) as ctx:
            cdask.gaussian_blur(*args, **kwargs)
        for w in words:
            self.assertIn(w, str(ctx.exception))

    def test_importing_cv2_cudaimage_does_not_import_dask(self):
        code = "import sys, cv2, cv2.cudaimage; print(sorted(m for m in ('dask', 'distributed') if m in sys.modules))"
        out = subprocess.run([sys.executable, "-c", code], env=subprocess_env(), stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, universal_newlines=True, timeout=120)
        self.assertEqual(0, out.returncode, out.stdout)
        self.assertEqual("[]", out.stdout.strip().splitlines()[-1])

    def test_bad_array(self):
        self.assert_error(TypeError, ["arr", "dask.array.Array", "numpy.ndarray"], np.zeros((8, 8), np.uint8), (3, 3), 1.0)
        self.assert_error(ValueError, ["arr", "1 dimensions"], da.zeros(8, chunks=4), (3, 3), 1.0)
        self.assert_error(ValueError, ["arr", "4 dimensions"], da.zeros((4, 4, 2, 2), chunks=2), (3, 3), 1.0)
        self.assert_error(ValueError, ["arr", "empty"], da.zeros((0, 8), chunks=4), (3, 3), 1.0)
        for channels in (5, 513):   # 513: a type code would wrap it to 1
            self.assert_error(ValueError, ["%d channels" % channels, "1 to 4"],
                              da.zeros((8, 8, channels), dtype=np.uint8, chunks=(4, 4, -1)), (3, 3), 1.0)
        self.assert_error(ValueError, ["channel axis", "one chunk"], self.image((16, 16, 4), chunks=(8, 8, 2)), (3, 3), 1.0)
        for dtype in (np.int8, np.int32, np.float16, np.bool_, np.complex64, ">u2"):
            self.assert_error(TypeError, ["dtype", "supported"], da.zeros((8, 8), dtype=dtype, chunks=4), (3, 3), 1.0)

    def test_bad_kernel(self):
        # Values are checked by cv2.cuda.createGaussianBlur: its messages, as ValueError from gaussian_blur.
        x = self.image()
        self.assert_error(ValueError, ["gaussian_blur: ksize.width is 4; allowed: ", "odd number"], x, (4, 3), 1.0)
        self.assert_error(ValueError, ["ksize.height is 2", "odd number"], x, (3, 2), 1.0)
        self.assert_error(ValueError, ["ksize.height is -1"], x, (3, -1), 1.0)
        self.assert_error(ValueError, ["ksize.width is 1048577", "1048575"], x, (1 << 20) + 1, 1.0)
        self.assert_error(TypeError, ["ksize"], x, (3,), 1.0)
        self.assert_error(TypeError, ["ksize.width", "int"], x, (3.0, 3), 1.0)
        self.assert_error(ValueError, ["ksize.width is 0 and sigmaX is -1", "sigmaX > 0"], x, (0, 0), -1.0)
        self.assert_error(ValueError, ["ksize.width is 0 and sigmaX is 0", "sigmaX > 0"], x, (0, 3), 0.0)
        # sigmaY <= 0 means sigmaX, so a zero height with both <= 0 is judged on sigmaX.
        self.assert_error(ValueError, ["ksize.height is 0 and sigmaX is 0", "sigmaX > 0"], x, (3, 0), 0.0, -2.0)
        self.assert_error(ValueError, ["sigmaY is nan", "finite"], x, (3, 3), 1.0, float("nan"))
        self.assert_error(ValueError, ["sigmaX is inf", "finite"], x, (0, 0), float("inf"))
        self.assert_error(ValueError, ["sigmaX is 200000", "ksize.width 1200001"], x, (0, 0), 2e5)
        self.assert_error(TypeError, ["sigmaX", "real number"], x, (3, 3), "2")
        with self.assertRaises(ValueError) as ctx:
            cdask.kernel_size(np.uint8, (4, 3), 1.0)
        self.assertTrue(str(ctx.exception).startswith("kernel_size: ksize.width is 4; allowed: "), str(ctx.exception))
        with self.assertRaises(TypeError) as ctx:
            cdask.kernel_size(np.uint8, (3, 3), "1")
        self.assertTrue(str(ctx.exception).startswith("kernel_size: sigmaX must be a real number"), str(ctx.exception))

    def test_bad_border_and_device(self):
        x = self.image()
        for border in (cv2.BORDER_TRANSPARENT, 6, 99, -1, 99 | cv2.BORDER_ISOLATED):
            # Named as gaussian_blur names it (createGaussianBlur, which checks it, says rowBorderMode).
            with self.assertRaises(ValueError) as ctx:
                cdask.gaussian_blur(x, (3, 3), 1.0, 0, border)
            message = str(ctx.exception)
            self.assertTrue(message.startswith("gaussian_blur: borderType is %d; allowed: " % border), message)
            self.assertIn("BORDER_REFLECT_101", message)
            self.assertNotIn("rowBorderMode", message)
            self.assertNotIn("createGaussianBlur", message)
        with self.assertRaises(ValueError) as ctx:
            cdask.gaussian_blur(x, (3, 3), 1.0, borderType=99)
        self.assertIn("gaussian_blur: borderType is 99;", str(ctx.exception))
        self.assert_error(TypeError, ["borderType"], x, (3, 3), 1.0, 0, 1.5)
        self.assert_error(ValueError, ["device", "'auto'"], x, (3, 3), 1.0, device="cuda")
        if gpu_count() < 1:
            self.assert_error(RuntimeError, ["device='gpu'", "no CUDA device"], x, (3, 3), 1.0, device="gpu")

    def test_valid_arguments_build_without_running_anything(self):
        x = self.image((16, 16, 3), chunks=(5, 7, -1))
        for ksize, sx, sy in (((3, 5), 0.0, 0.0), ((0, 0), 2.0, 0.0), ((3, 0), 1.0, -1.0), (5, 1.0, 0.0),
                              ((3, 3), -1.0, 0.0)):
            for border in BORDERS + (cv2.BORDER_DEFAULT | cv2.BORDER_ISOLATED,):
                y = cdask.gaussian_blur(x, ksize, sx, sy, border, device="cpu")
                self.assertEqual(x.chunks, y.chunks)
        with self.assertRaisesRegex(AssertionError, "a task ran"):
            y.compute(scheduler="synchronous")

    def test_opencv_type_of_each_dtype_and_channel_count(self):
        """The type the GPU path gives SyncedMat and createGaussianBlur (CV_CN_SHIFT is 5 in OpenCV 5:
        a type computed as depth + ((cn - 1) << 3) is another depth there)."""
        makers = {np.uint8: cv2.CV_8UC, np.uint16: cv2.CV_16UC, np.int16: cv2.CV_16SC,
                  np.float32: cv2.CV_32FC, np.float64: cv2.CV_64FC}
        for dtype, make in makers.items():
            for cn in (1, 2, 3, 4):
                self.assertEqual(make(cn), cdask._cv_type(dtype, cn), (dtype, cn))

    def test_kernel_size_follows_opencv(self):
        # A zero size is cv2.cuda.gaussianKernelSize of its sigma (the C++ tests check that against
        # cv2.GaussianBlur); sigmaY <= 0 means sigmaX; a given size is kept.
        self.assertEqual((13, 13), cdask.kernel_size(np.uint8, (0, 0), 2.0))      # 3 sigma a side for uint8
        self.assertEqual((17, 17), cdask.kernel_size(np.uint16, (0, 0), 2.0))     # 4 sigma a side otherwise
        self.assertEqual((3, 3), cdask.kernel_size(np.uint8, (0, 0), 0.25))
        for dtype, depth in ((np.uint8, cv2.CV_8U), (np.int16, cv2.CV_16S), (np.float64, cv2.CV_64F)):
            for sx, sy in ((0.7, 0), (1.3, 2.9), (4.0, -1.0)):
                self.assertEqual((cv2.cuda.gaussianKernelSize(sx, depth), cv2.cuda.gaussianKernelSize(sy if sy > 0 else sx, depth)),
                                 cdask.kernel_size(dtype, (0, 0), sx, sy))
        self.assertEqual((13, 25), cdask.kernel_size(np.float32, (13, 0), 1.0, 3.0))
        self.assertEqual((5, 7), cdask.kernel_size(np.float32, (5, 7), -1.0))


@needs_dask
class LocalSchedulerTest(CompareMixin, unittest.TestCase):
    """Each border on chunkings made to catch seam and edge mistakes (threads, no cluster)."""

    def compute(self, arrays):
        return dask.compute(*arrays, scheduler="threads", num_workers=2)

    def test_every_border_with_one_pixel_edge_chunks(self):
        rng = np.random.default_rng(16)
        cases = []
        for border in BORDERS:
            for dtype in DTYPES:
                for ksize, sx in (((0, 0), 2.5), ((7, 3), 0.0), ((1, 11), 0.0)):
                    shape = (29, 41, 3) if dtype in (np.uint8, np.float32) else (29, 41)
                    chunks = ((1, 3, 20, 4, 1), (1, 1, 2, 30, 6, 1))
                    if len(shape) == 3:
                        chunks += (-1,)
                    cases.append(dict(image=random_image(rng, shape, dtype), chunks=chunks, ksize=ksize, sx=sx,
                                      sy=0.0, border=border))
        self.check_cases(cases, self.compute)

    def test_radius_sized_and_one_pixel_chunks(self):
        rng = np.random.default_rng(17)
        cases = []
        for border in BORDERS:
            for dtype in (np.uint8, np.uint16, np.float64):
                for sigma in (0.8, 2.4):
                    r = cdask.kernel_size(dtype, (0, 0), sigma)[0] // 2
                    for shape, chunks in (((19, 23), (r, r)), ((19, 23), (max(r - 1, 1), r + 1)), ((7, 9), (1, 1))):
                        cases.append(dict(image=random_image(rng, shape, dtype), chunks=chunks, ksize=(0, 0),
                                          sx=sigma, sy=0.0, border=border))
        self.check_cases(cases, self.compute)

    def test_images_smaller_than_the_kernel(self):
        rng = np.random.default_rng(18)
        cases = []
        for border in BORDERS:
            for dtype in DTYPES:
                for shape, chunks in (((1, 1), (1, 1)), ((1, 17), (1, 2)), ((17, 1), (3, 1)), ((2, 3), (1, 1)),
                                      ((6, 40, 2), (1, 7, -1)), ((40, 5), (9, 1))):
                    cases.append(dict(image=random_image(rng, shape, dtype), chunks=chunks, ksize=(0, 0), sx=6.0,
                                      sy=2.0, border=border))
        self.check_cases(cases, self.compute)

    def test_random_cases_match_whole_image_blur(self):
        seed = int(os.environ.get("CUDAIMAGE_DASK_SEED", "20261202")) + 1
        count = int(os.environ.get("CUDAIMAGE_DASK_CASES", "60")) * 5
        worst = self.check_cases(random_cases(seed, count), self.compute)
        print("\n  %d random cases (seed %d), largest difference per dtype: %s"
              % (count, seed, ", ".join("%s %g" % kv for kv in sorted(worst.items()))))

    def test_chunks_are_restored_after_merging_small_ones(self):
        x = da.from_array(np.arange(30 * 20, dtype=np.float32).reshape(30, 20), chunks=((1, 2, 27), (3, 3, 3, 11)))
        y = cdask.gaussian_blur(x, (0, 0), 2.0, device="cpu")
        self.assertEqual(x.chunks, y.chunks)


@needs_dask
class DistributedCpuTest(CompareMixin, unittest.TestCase):
    """The CPU path through a cluster of processes: the task functions travel to other processes."""

    @classmethod
    def setUpClass(cls):
        cls.cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                               dashboard_address=None, silence_logs=logging.ERROR)
        cls.client = distributed.Client(cls.cluster, timeout="60s")
        cls.client.wait_for_workers(2, timeout=120)
        cls.client.run(cv2.setNumThreads, 1)                # modest CPU: one thread per worker
        cls.client.run(cdask.reset_worker_stats)

    @classmethod
    def tearDownClass(cls):
        cls.client.close(timeout=30)
        cls.cluster.close(timeout=30)

    def compute(self, arrays):
        futures = self.client.compute(arrays)
        distributed.wait(futures, timeout=CALL_TIMEOUT)
        return self.client.gather(futures)

    def test_random_cases_match_whole_image_blur(self):
        seed = int(os.environ.get("CUDAIMAGE_DASK_SEED", "20261202"))
        count = int(os.environ.get("CUDAIMAGE_DASK_CASES", "60"))
        cases = random_cases(seed, count)
        worst = self.check_cases(cases, self.compute, device="auto" if gpu_count() < 1 else "cpu")
        print("\n  %d random cases (seed %d), largest difference per dtype: %s"
              % (count, seed, ", ".join("%s %g" % kv for kv in sorted(worst.items()))))
        stats = self.client.run(cdask.worker_stats)
        self.assertEqual(2, len(stats))
        for worker, s in stats.items():
            self.assertGreater(s["cpu_blocks"], 0, "worker %s blurred nothing: %s" % (worker, s))
            self.assertEqual(0, s["gpu_numpy_blocks"] + s["gpu_cupy_blocks"])


    @unittest.skipIf(gpu_count() > 0, "this machine has a CUDA device")
    def test_gpu_device_is_checked_on_the_workers(self):
        x = da.zeros((16, 16), np.uint8, chunks=8).map_blocks(raiser, dtype=np.uint8)
        with self.assertRaises(RuntimeError) as ctx:
            cdask.gaussian_blur(x, (3, 3), 1.0, device="gpu")
        self.assertIn("2 of the client's 2 workers see no CUDA device", str(ctx.exception))


def _free_pid(proc, timeout=20):
    """Stops a process this test started: SIGINT (distributed closes cleanly), then SIGKILL."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout)


@needs_dask
class ClusterCommandLineTest(unittest.TestCase):
    """The documented deployment on one machine: `dask scheduler`, one `dask worker` per GPU (two
    here; CUDA_VISIBLE_DEVICES per worker where there are GPUs), Client(address)."""

    START_TIMEOUT = 120

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.procs = []
        cls.logs = []
        try:
            cls.start_cluster()
        except BaseException:
            cls.stop_cluster()
            raise

    @classmethod
    def spawn(cls, name, args, env):
        log = open(os.path.join(cls.tmp.name, name + ".log"), "w")
        cls.logs.append(log)
        cls.procs.append(subprocess.Popen([sys.executable, "-m"] + args, env=env, stdout=log,
                                          stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL))

    @classmethod
    def start_cluster(cls):
        env = subprocess_env()
        scheduler_file = os.path.join(cls.tmp.name, "scheduler.json")
        # port 0: the scheduler picks a free port and writes its address into the scheduler file
        cls.spawn("scheduler", ["distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0",
                                "--no-dashboard", "--scheduler-file", scheduler_file], env)
        deadline = time.time() + cls.START_TIMEOUT
        while not os.path.exists(scheduler_file):
            if cls.procs[0].poll() is not None or time.time() > deadline:
                raise RuntimeError("dask scheduler did not start:\n" + cls.log_text("scheduler"))
            time.sleep(0.2)
        time.sleep(0.2)                                     # the file is written in one go; be safe
        with open(scheduler_file) as f:
            cls.address = json.load(f)["address"]
        n = gpu_count()
        cls.visible = []
        for i in range(2):
            wenv = dict(env)
            if n > 0:
                wenv["CUDA_VISIBLE_DEVICES"] = str(i % n)   # one GPU per worker (shared if only one)
            cls.visible.append(wenv.get("CUDA_VISIBLE_DEVICES"))
            cls.spawn("worker%d" % i, ["distributed.cli.dask_worker", cls.address, "--name", "worker%d" % i,
                                       "--nthreads", "1", "--no-nanny", "--no-dashboard", "--host", "127.0.0.1",
                                       "--death-timeout", "60"], wenv)
        cls.client = distributed.Client(cls.address, timeout="60s")
        try:
            cls.client.wait_for_workers(2, timeout=cls.START_TIMEOUT)
        except Exception:
            raise RuntimeError("dask workers did not join:\n" + cls.log_text("worker0") + cls.log_text("worker1"))

    @classmethod
    def log_text(cls, name):
        try:
            with open(os.path.join(cls.tmp.name, name + ".log")) as f:
                return "--- %s ---\n%s" % (name, f.read()[-4000:])
        except OSError:
            return ""

    @classmethod
    def stop_cluster(cls):
        client = getattr(cls, "client", None)
        if client is not None:
            try:
                client.close(timeout=20)
            except Exception:
                pass
        for p in reversed(cls.procs):                       # workers first, then the scheduler
            _free_pid(p)
        for log in cls.logs:
            log.close()
        cls.tmp.cleanup()

    @classmethod
    def tearDownClass(cls):
        cls.stop_cluster()

    def test_both_workers_blur_and_match_whole_image(self):
        rng = np.random.default_rng(5)
        a = random_image(rng, (300, 260, 3), np.uint8)
        b = random_image(rng, (97, 131), np.uint16)
        self.client.run(cdask.reset_worker_stats)
        x = da.from_array(a, chunks=(23, 31, -1))
        y = cdask.gaussian_blur(x, (0, 0), 3.0, borderType=cv2.BORDER_REFLECT_101)       # device="auto"
        z = cdask.gaussian_blur(da.from_array(b, chunks=(10, 7)), (9, 5), 0.0, borderType=cv2.BORDER_CONSTANT)
        with distributed.get_task_stream(self.client) as ts:
            futures = self.client.compute([y, z])
            distributed.wait(futures, timeout=CALL_TIMEOUT)
        got_y, got_z = self.client.gather(futures)
        np.testing.assert_array_equal(cv2.GaussianBlur(a, (0, 0), 3.0, borderType=cv2.BORDER_REFLECT_101), got_y)
        np.testing.assert_array_equal(cv2.GaussianBlur(b, (9, 5), 0.0, borderType=cv2.BORDER_CONSTANT), got_z)

        workers = self.client.scheduler_info()["workers"]
        self.assertEqual(2, len(workers))
        stats = self.client.run(cdask.worker_stats)
        gpus = self.client.run(cdask._worker_gpu_info)
        ran = {t["worker"] for t in ts.data}
        for address in workers:
            s = stats[address]
            blocks = s["cpu_blocks"] + s["gpu_numpy_blocks"]
            print("\n  %s (%s, CUDA_VISIBLE_DEVICES=%s): %d CPU blocks, %d GPU blocks"
                  % (address, workers[address].get("name"), gpus[address]["CUDA_VISIBLE_DEVICES"],
                     s["cpu_blocks"], s["gpu_numpy_blocks"]), end="")
            self.assertIn(address, ran)
            self.assertGreater(blocks, 0, "worker %s ran no blur task: %s" % (address, s))
            if gpus[address]["gpus"] > 0:                   # device="auto" took the GPU there
                self.assertEqual(0, s["cpu_blocks"])
                self.assertEqual(s["gpu_numpy_blocks"], s["uploads"])
        self.assertEqual(sorted(v for v in self.visible if v is not None),
                         sorted(g["CUDA_VISIBLE_DEVICES"] for g in gpus.values() if g["CUDA_VISIBLE_DEVICES"] is not None))

    @unittest.skipIf(SAMPLES is None or not HAVE_ZARR, "needs samples/python/blur_zarr.py and zarr")
    def test_blur_zarr_sample_on_the_cluster(self):
        out = run_blur_zarr(self, self.tmp.name, "--scheduler", self.address)     # 4 bands, rows carried on workers
        self.assertIn("bands: 4 of up to 64 rows", out)
        # One line per worker; one that blurred on its GPU reports that GPU's peak memory (the watch
        # is started and stopped by two client.run calls: it must outlive the first).
        lines = [l for l in out.splitlines() if l.startswith("worker ")]
        self.assertEqual(2, len(lines), out)
        for line in lines:
            m = re.search(r"device memory: (.*); blocks: (\d+) CPU, (\d+) GPU \(NumPy\), (\d+) GPU \(CuPy\)", line)
            self.assertIsNotNone(m, line)
            gpu_blocks = int(m.group(3)) + int(m.group(4))
            if gpu_blocks > 0:
                self.assertRegex(m.group(1), r"^peak \d+ MiB in use on its GPU", line)
            else:
                self.assertEqual("no GPU", m.group(1), line)


def run_blur_zarr(test, folder, *extra):
    """blur_zarr.py --make-test-image, then blur it (with `extra` arguments); the output equals
    cv2.GaussianBlur of the whole input."""
    import zarr
    script = os.path.join(SAMPLES, "python", "blur_zarr.py")
    src = os.path.join(folder, "in%s.zarr" % len(extra))
    dst = os.path.join(folder, "out%s.zarr" % len(extra))

    def run(*args):
        p = subprocess.run([sys.executable, script] + list(args), env=subprocess_env(), stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, universal_newlines=True, timeout=300)
        test.assertEqual(0, p.returncode, p.stdout)
        return p.stdout

    run("--make-test-image", "250x310", "--chunks", "64", "--dtype", "uint16", src)
    out = run(src, dst, "--sigma", "2.5", "--border", "reflect101", *extra)    # radius 10: 4 bands of 64 rows
    test.assertIn("MP/s", out)
    a = np.asarray(zarr.open_array(src, mode="r")[...])
    b = zarr.open_array(dst, mode="r")
    test.assertEqual((250, 310), a.shape)
    test.assertEqual(np.uint16, a.dtype)
    test.assertGreater(int(a.max()) - int(a.min()), 1000)     # a real pattern, not a constant
    test.assertEqual(zarr.open_array(src, mode="r").chunks, b.chunks)
    np.testing.assert_array_equal(cv2.GaussianBlur(a, (0, 0), 2.5, borderType=cv2.BORDER_REFLECT_101), b[...])
    return out


def blur_zarr_script(test, *args):
    """Runs blur_zarr.py; its output."""
    p = subprocess.run([sys.executable, os.path.join(SAMPLES, "python", "blur_zarr.py")] + list(args),
                       env=subprocess_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, timeout=300)
    test.assertEqual(0, p.returncode, p.stdout)
    return p.stdout


def load_blur_zarr():
    spec = importlib.util.spec_from_file_location("blur_zarr_sample", os.path.join(SAMPLES, "python", "blur_zarr.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@needs_dask
@unittest.skipIf(SAMPLES is None or not HAVE_ZARR, "needs samples/python/blur_zarr.py and zarr")
class BlurZarrSampleTest(unittest.TestCase):
    def test_make_image_and_blur_it_locally(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = run_blur_zarr(self, tmp, "--device", "cpu")
            self.assertIn("peak", out)
            self.assertIn("bands: 4 of up to 64 rows", out)

    def test_bands_match_whole_image(self):
        """Band by band (the halo below read, the halo above carried from the band before): the
        whole-image cv2.GaussianBlur, bit for bit, where the kernel radius crosses band boundaries,
        with every border (WRAP: the halos of the first and last bands from the other end), with
        bands of several rows of chunks, with a last band shorter than the others, and with chunks
        shorter than the radius (bands raised to whole rows of chunks at least the radius tall)."""
        import zarr
        rng = np.random.default_rng(11)
        cases = [  # shape, dtype, chunks, sigma, border, band rows, (bands, rows of the tallest)
            ((250, 310), np.uint16, 64, 2.5, "reflect101", 1, (4, 64)),         # radius 10
            ((250, 310), np.uint16, 64, 2.5, "wrap", 1, (4, 64)),
            ((200, 150, 3), np.uint8, 32, 3.0, "reflect", 2, (3, 72)),           # radius 9; an 8-row tail joins
            ((203, 77), np.uint8, 40, 6.0, "constant", 1, (5, 43)),              # radius 18; a 3-row tail joins
            ((150, 90), np.uint16, 8, 2.5, "replicate", 1, (9, 22)),             # radius 10 > chunk 8: bands of 2
            ((150, 90, 2), np.uint16, 8, 2.5, "wrap", 1, (9, 22)),               # rows of chunks; a 6-row tail joins
            ((97, 64), np.uint8, 16, 1.2, "replicate", 3, (2, 49)),              # radius 4; a 1-row tail joins
        ]
        borders = {"reflect101": cv2.BORDER_REFLECT_101, "reflect": cv2.BORDER_REFLECT, "replicate": cv2.BORDER_REPLICATE,
                   "constant": cv2.BORDER_CONSTANT, "wrap": cv2.BORDER_WRAP}
        with tempfile.TemporaryDirectory() as tmp:
            for n, (shape, dtype, chunks, sigma, border, band_rows, (nbands, tallest)) in enumerate(cases):
                with self.subTest(shape=shape, dtype=dtype.__name__, chunks=chunks, border=border, band_rows=band_rows):
                    a = random_image(rng, shape, dtype)
                    src, dst = os.path.join(tmp, "in%d.zarr" % n), os.path.join(tmp, "out%d.zarr" % n)
                    zarr.create_array(store=src, shape=shape, chunks=(chunks, chunks) + shape[2:], dtype=dtype)[...] = a
                    out = blur_zarr_script(self, src, dst, "--sigma", str(sigma), "--border", border, "--band-rows",
                                           str(band_rows), "--device", "cpu")
                    self.assertIn("bands: %d of up to %d rows" % (nbands, tallest), out)
                    b = zarr.open_array(dst, mode="r")
                    self.assertEqual(zarr.open_array(src, mode="r").chunks, b.chunks)
                    expected = cv2.GaussianBlur(a, (0, 0), sigma, borderType=borders[border]).reshape(a.shape)
                    np.testing.assert_array_equal(expected, b[...])

    def test_band_bounds(self):
        bounds = load_blur_zarr().band_bounds
        self.assertEqual([(0, 64), (64, 128), (128, 192), (192, 250)], bounds((64, 64, 64, 58), 1, 10))
        self.assertEqual([(0, 128), (128, 250)], bounds((64, 64, 64, 58), 2, 10))
        self.assertEqual([(0, 250)], bounds((64, 64, 64, 58), 9, 10))
        self.assertEqual([(0, 16), (16, 40)], bounds((8,) * 5, 1, 10))                # 8-row tail joins
        self.assertEqual([(0, 16), (16, 32), (32, 50)], bounds((8, 8, 8, 8, 8, 8, 2), 1, 10))   # 2-row tail joins
        self.assertEqual([(0, 64), (64, 70)], bounds((64, 6), 1, 0))                             # radius 0
        self.assertEqual([(0, 7)], bounds((7,), 1, 30))                                          # one band: the image
        for chunks in ((64, 64, 64, 58), (8,) * 19, (30, 30, 30, 7), (1,) * 25, (5, 5, 5)):
            for band_rows in (1, 2, 3):
                for radius in (0, 1, 4, 10, 31):
                    b = bounds(chunks, band_rows, radius)
                    self.assertEqual(0, b[0][0])
                    self.assertEqual(sum(chunks), b[-1][1])
                    edges = set(np.cumsum(chunks).tolist())
                    for (r0, r1), (s0, _) in zip(b, b[1:]):
                        self.assertEqual(r1, s0)
                        self.assertIn(r1, edges)
                    if len(b) > 1:
                        self.assertGreaterEqual(min(r1 - r0 for r0, r1 in b), radius, (chunks, band_rows, radius, b))

    def test_memory_stays_a_few_chunks(self):
        """The most data Dask holds at once (the sample reports it, in chunks: chunks, halo strips
        and the rows carried to the next band) stays a few chunks: an image 4 times wider and taller
        than another (16 times the pixels) holds well under 4 times as much (the carried rows,
        radius x width, add 1.1 chunks here; the threads' timing moves a few chunks either way)."""
        import re
        import zarr
        held = {}
        with tempfile.TemporaryDirectory() as tmp:
            for side in (256, 1024):
                src, dst = os.path.join(tmp, "in%d.zarr" % side), os.path.join(tmp, "out%d.zarr" % side)
                blur_zarr_script(self, "--make-test-image", "%dx%d" % (side, side), "--chunks", "64", src)
                # Two threads, as on a 2-core machine: the memory held grows with the threads
                # (about a chunk each), not with the image.
                out = blur_zarr_script(self, src, dst, "--sigma", "2", "--device", "cpu", "--threads", "2")  # radius 6
                m = re.search(r"most data held by Dask at once: [0-9.]+ MiB \(([0-9.]+) chunks\)", out)
                self.assertIsNotNone(m, out)
                held[side] = float(m.group(1))
                a = zarr.open_array(src, mode="r")[...]
                np.testing.assert_array_equal(cv2.GaussianBlur(a, (0, 0), 2.0, borderType=cv2.BORDER_REPLICATE),
                                              zarr.open_array(dst, mode="r")[...])
        print("\n  most data held at once: %s chunks" % ", ".join("%dx%d: %.1f" % (s, s, held[s]) for s in sorted(held)))
        # 1024 x 1024: 16 x 16 chunks, 16 bands of 16 chunks (a blur of the whole image as one graph
        # held about a hundred chunks). Against the image's growth, not the scheduling: with every
        # core busy 256 x 256 held 4.4 chunks and 1024 x 1024 8.0 (in other runs 4.4-4.6 and
        # 5.6-7.0).
        self.assertLess(held[1024], 10)
        self.assertLess(held[1024], 4 * held[256])

    def test_test_image_does_not_depend_on_chunks(self):
        import zarr
        script = os.path.join(SAMPLES, "python", "blur_zarr.py")
        with tempfile.TemporaryDirectory() as tmp:
            images = []
            for chunks in ("16", "100"):
                path = os.path.join(tmp, "img%s.zarr" % chunks)
                p = subprocess.run([sys.executable, script, "--make-test-image", "70x90", "--channels", "3",
                                    "--chunks", chunks, path], env=subprocess_env(), stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, universal_newlines=True, timeout=300)
                self.assertEqual(0, p.returncode, p.stdout)
                images.append(zarr.open_array(path, mode="r")[...])
            self.assertEqual((70, 90, 3), images[0].shape)
            np.testing.assert_array_equal(images[0], images[1])


@needs_dask
@unittest.skipUnless(gpu_count() > 0, "needs a CUDA device (cv2.cuda.getCudaEnabledDeviceCount() < 1)")
class GpuTest(CompareMixin, unittest.TestCase):
    def compute(self, arrays):
        return dask.compute(*arrays, scheduler="threads", num_workers=4)

    def test_numpy_chunks_through_synced_mat_staging(self):
        cdask.reset_worker_stats()
        cases = random_cases(20261203, 150, max_side=200)
        worst = self.check_cases(cases, self.compute, device="gpu")
        s = cdask.worker_stats()
        print("\n  GPU, NumPy chunks: largest difference per dtype: %s; %s"
              % (", ".join("%s %g" % kv for kv in sorted(worst.items())), s))
        self.assertGreater(s["gpu_numpy_blocks"], 0)
        self.assertEqual(0, s["cpu_blocks"])
        self.assertEqual(s["gpu_numpy_blocks"], s["uploads"])       # one upload and one download per block
        self.assertEqual(s["gpu_numpy_blocks"], s["downloads"])

    def test_staging_is_reused_not_made_per_chunk(self):
        cdask.reset_worker_stats()
        a = random_image(np.random.default_rng(4), (512, 512), np.uint16)
        y = cdask.gaussian_blur(da.from_array(a, chunks=64), (0, 0), 1.5, device="gpu")
        np.testing.assert_array_equal(cv2.GaussianBlur(a, (0, 0), 1.5, borderType=cv2.BORDER_REPLICATE),
                                      y.compute(scheduler="threads", num_workers=2))
        s = cdask.worker_stats()
        self.assertEqual(64, s["gpu_numpy_blocks"])
        self.assertEqual(64, s["uploads"])
        self.assertEqual(64, s["downloads"])
        # per thread: the first pair, grown at most twice (taller, wider block)
        self.assertLessEqual(s["staging_allocations"], 2 * 3)
        self.assertLessEqual(s["filters_created"], 1)   # one filter per process and parameters

    def test_every_border_on_the_gpu(self):
        rng = np.random.default_rng(19)
        cases = []
        for border in BORDERS:
            for dtype in DTYPES:
                for shape, chunks in (((29, 41, 3), ((1, 3, 20, 4, 1), (1, 1, 2, 30, 6, 1), -1)),
                                      ((1, 17), (1, 2)), ((40, 5), (9, 1)), ((300, 200), (64, 50))):
                    cases.append(dict(image=random_image(rng, shape, dtype), chunks=chunks, ksize=(0, 0), sx=2.5,
                                      sy=0.0, border=border))
        self.check_cases(cases, self.compute, device="gpu")

    def test_auto_uses_the_gpu(self):
        cdask.reset_worker_stats()
        a = random_image(np.random.default_rng(3), (256, 256), np.uint8)
        y = cdask.gaussian_blur(da.from_array(a, chunks=64), (0, 0), 2.0).compute(scheduler="threads")
        np.testing.assert_array_equal(cv2.GaussianBlur(a, (0, 0), 2.0, borderType=cv2.BORDER_REPLICATE), y)
        self.assertEqual(16, cdask.worker_stats()["gpu_numpy_blocks"])

    @unittest.skipIf(cupy is None, "needs CuPy")
    def test_cupy_chunks_stay_on_the_device(self):
        cdask.reset_worker_stats()
        cases = random_cases(20261204, 100, max_side=200)
        worst = self.check_cases(cases, self.compute, device="auto", to_chunks=lambda x: x.map_blocks(cupy.asarray))
        s = cdask.worker_stats()
        print("\n  GPU, CuPy chunks: largest difference per dtype: %s; %s"
              % (", ".join("%s %g" % kv for kv in sorted(worst.items())), s))
        self.assertGreater(s["gpu_cupy_blocks"], 0)
        self.assertEqual(0, s["uploads"] + s["downloads"] + s["cpu_blocks"])   # no host round trip

    @unittest.skipIf(cupy is None, "needs CuPy")
    def test_cupy_chunks_refuse_cpu(self):
        x = da.from_array(np.zeros((8, 8), np.uint8), chunks=4).map_blocks(cupy.asarray)
        with self.assertRaisesRegex(ValueError, "CuPy chunks but device='cpu'"):
            cdask.gaussian_blur(x, (3, 3), 1.0, device="cpu")


if __name__ == "__main__":
    unittest.main()
