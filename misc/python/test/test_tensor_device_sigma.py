"""cv2.cudaimage.tensor.gaussian_blur_batch with sigmas that stay on the device: a torch CUDA
tensor (or CuPy array) as sigma, with ksize one kernel for every image, on a stacked batch, goes to
GaussianBatchFilter.applyStackedDeviceSigma and is never read back.

Without a GPU: when that path is taken (and the reason given when it is not), and the checks of a
device sigma that come before any CUDA call (count, shape, dtype), on stand-in arrays over no
memory. On the GPU (PyTorch; CuPy for its case): float32, float64 and float16 sigmas, one value and
one per image, NHWC and NCHW, sigma_y on the device, the values <= 0 / NaN rule, each image against
cv2.GaussianBlur on the host (uint8 and uint16 identical); wrong count, shape or device refused
naming sigma; no synchronisation (the call returns while the stream is still busy with a
torch.cuda._sleep enqueued before it, where the read-back path waits); a CUDA graph captured once
and replayed with new sigma values written into the same memory, three rounds, each exact.
"""
import unittest
from unittest import mock

import numpy as np
import cv2

from cudaimage_test_support import capture_torch_graph, gpu_available, torch_cannot_run, usable_cupy
from cv2.cudaimage import tensor as cit

try:
    import torch
    HAVE_TORCH = gpu_available() and torch.cuda.is_available() and torch_cannot_run() is None
except ImportError:
    torch = None
    HAVE_TORCH = False

cupy = usable_cupy()
HAVE_CUPY = cupy is not None

SLEEP_CYCLES = 100_000_000      # torch.cuda._sleep: tens of milliseconds on any current GPU


class FakeCudaArray:
    """A CUDA array interface over no memory: enough for the checks that run before any CUDA call."""

    def __init__(self, shape, typestr="|u1"):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr, "data": (0x10000, False),
                                         "strides": None, "version": 3}


class _FakeDevice:
    def __init__(self, index):
        self.id = index


class FakeCupySigma:
    """What gaussian_blur_batch reads of a CuPy sigma array before any CUDA call: its library (by
    module name), dtype, shape and device; over no memory."""
    __module__ = "cupy._fake"

    def __init__(self, shape, dtype=np.float32, device=0):
        self.shape = tuple(shape)
        self.ndim = len(self.shape)
        self.size = int(np.prod(self.shape)) if self.shape else 1
        self.dtype = np.dtype(dtype)
        self.device = _FakeDevice(device)
        self.__cuda_array_interface__ = {"shape": self.shape, "typestr": self.dtype.str, "data": (0x20000, False),
                                         "strides": None, "version": 3}


class DeviceSigmaRulesTest(unittest.TestCase):
    """When the sigmas stay on the device, and the refusals that come before any CUDA call."""

    def test_when_the_sigmas_stay_on_the_device(self):
        s = FakeCupySigma((8,))
        self.assertTrue(cit._is_device_array(s))
        self.assertFalse(cit._is_device_array(np.ones(8, np.float32)))
        self.assertFalse(cit._is_device_array([1.0] * 8))
        ok = cit._device_path_refusal(s, None, [(5, 5)], 5, True, 16, 16)
        self.assertEqual(ok, "")
        self.assertEqual(cit._device_path_refusal(s, FakeCupySigma(()), [(3, 5)], (3, 5), True, 16, 16), "")
        cases = [((s, None, [], None, True, 16, 16), "ksize is None"),
                 ((s, None, [(3, 3), (5, 5)], [3, 5], True, 16, 16), "ksize is one kernel per image"),
                 ((s, None, [(0, 5)], (0, 5), True, 16, 16), "ksize \\(0, 5\\) has a 0"),
                 ((s, None, [(5, 5)], 5, False, 16, 16), "do not lie one below the other"),
                 ((s, None, [(5, 5)], 5, True, 1, 16), "the images are 16 x 1"),
                 ((s, 1.0, [(5, 5)], 5, True, 16, 16), "sigma_y is a host value while sigma is on the device"),
                 ((s, [1.0] * 8, [(5, 5)], 5, True, 16, 16), "sigma_y is a host value"),
                 ((1.0, s, [(5, 5)], 5, True, 16, 16), "sigma is a host value and sigma_y a CUDA array"),
                 ((np.ones(8), None, [(5, 5)], 5, True, 16, 16), "sigma is not a CUDA array")]
        for args, why in cases:
            with self.subTest(why=why):
                self.assertRegex(cit._device_path_refusal(*args), why)

    def test_refused_before_any_cuda_call(self):
        """Through gaussian_blur_batch on an array interface over no memory: a device sigma is
        checked (count, shape, dtype) before the device, the stream and the filter."""
        x, out = FakeCudaArray((8, 16, 16, 3)), FakeCudaArray((8, 16, 16, 3))
        with self.assertRaisesRegex(ValueError, "gaussian_blur_batch: sigma has 3 values for 8 images; allowed: one "
                                                "or one per image"):
            cit.gaussian_blur_batch(x, FakeCupySigma((3,)), ksize=5, out=out)
        with self.assertRaisesRegex(ValueError, "sigma has 0 values for 8 images"):
            cit.gaussian_blur_batch(x, FakeCupySigma((0,)), ksize=(5, 3), out=out)
        with self.assertRaisesRegex(ValueError, "sigma_y has 2 values for 8 images"):
            cit.gaussian_blur_batch(x, FakeCupySigma((8,)), FakeCupySigma((2,)), ksize=5, out=out)
        with self.assertRaisesRegex(TypeError, "sigma has shape \\(2, 4\\); allowed"):
            cit.gaussian_blur_batch(x, FakeCupySigma((2, 4)), ksize=5, out=out)
        with self.assertRaisesRegex(TypeError, "sigma has dtype complex64; allowed: a real dtype"):
            cit.gaussian_blur_batch(x, FakeCupySigma((8,), np.complex64), ksize=5, out=out)
        planes = FakeCudaArray((2, 3, 16, 16), "<f4")                      # NCHW: N is 2, not 6
        with self.assertRaisesRegex(ValueError, "sigma has 6 values for 2 images"):
            cit.gaussian_blur_batch(planes, FakeCupySigma((6,)), ksize=5, layout="NCHW",
                                    out=FakeCudaArray((2, 3, 16, 16), "<f4"))


def meant(v):
    """The sigma a device value means: one not above 0 (NaN included) is OpenCV's sigma 0."""
    return v if v > 0 else 0.0


def reference(host, ksize, sx, sy, layout, border):
    """Every image of a NumPy batch (NCHW: every plane with its image's sigmas) blurred by
    cv2.GaussianBlur with its sigmas as the device reads them (the values <= 0 rule applied)."""
    n = host.shape[0]
    sx = list(sx) * n if len(sx) == 1 else list(sx)
    sy = [0.0] * n if sy is None else (list(sy) * n if len(sy) == 1 else list(sy))
    out = np.empty_like(host)
    for i in range(n):
        a, b = meant(sx[i]), meant(sy[i])
        if layout == "NCHW":
            for c in range(host.shape[1]):
                out[i, c] = cv2.GaussianBlur(host[i, c], ksize, a, sigmaY=b, borderType=border)
        else:
            out[i] = cv2.GaussianBlur(host[i], ksize, a, sigmaY=b, borderType=border).reshape(host[i].shape)
    return out


def random_batch(rng, shape, dtype):
    info = np.iinfo(dtype)
    return rng.integers(info.min, int(info.max) + 1, size=shape, dtype=dtype)


@unittest.skipUnless(HAVE_TORCH, "needs a CUDA device and PyTorch with CUDA")
class TorchDeviceSigmaTest(unittest.TestCase):

    def setUp(self):
        self.rng = np.random.default_rng(40)

    def check(self, host, y, ksize, sx, sy=None, layout="NHWC", border=cv2.BORDER_REPLICATE, msg=""):
        torch.cuda.synchronize()
        got = y.cpu().numpy()
        want = reference(host, ksize, sx, sy, layout, border)
        for i in range(host.shape[0]):
            np.testing.assert_array_equal(got[i], want[i], err_msg="%s image %d" % (msg, i))

    @staticmethod
    def values(t):
        """A sigma tensor's values as the device reads them (float16 converted to float32 exactly)."""
        return t.detach().double().cpu().reshape(-1).tolist()

    def test_dtypes_counts_and_layouts(self):
        cases = [("NHWC", (6, 40, 36, 3), np.uint8, (7, 5)), ("NCHW", (4, 3, 33, 41), np.uint8, 9),
                 ("NHWC", (5, 24, 30, 1), np.uint16, (5, 11)), ("NCHW", (3, 2, 30, 30), np.uint16, (3, 3))]
        for layout, shape, dtype, ksize in cases:
            n = shape[0]
            kpair = (ksize, ksize) if isinstance(ksize, int) else ksize
            host = random_batch(self.rng, shape, dtype)
            x = torch.from_numpy(host).cuda()
            for sdtype in (torch.float32, torch.float64, torch.float16):
                for count in (1, n):
                    with self.subTest(layout=layout, dtype=dtype.__name__, sigma=str(sdtype), count=count):
                        sig = torch.tensor(self.rng.uniform(0.2, 3.0, count), device="cuda").to(sdtype)
                        y = cit.gaussian_blur_batch(x, sig, ksize=ksize, layout=layout)
                        self.check(host, y, kpair, self.values(sig), layout=layout)
            with self.subTest(layout=layout, sigma="0-d"):
                sig = torch.tensor(1.25, device="cuda")
                y = cit.gaussian_blur_batch(x, sig, ksize=ksize, layout=layout, border=cv2.BORDER_REFLECT_101)
                self.check(host, y, kpair, [1.25], layout=layout, border=cv2.BORDER_REFLECT_101)

    def test_non_contiguous_and_integer_sigmas(self):
        host = random_batch(self.rng, (4, 32, 32, 3), np.uint8)
        x = torch.from_numpy(host).cuda()
        wide = torch.tensor([0.5, 9.0, 1.5, 9.0, 2.5, 9.0, 3.5, 9.0], device="cuda")
        y = cit.gaussian_blur_batch(x, wide[::2], ksize=7)                  # a strided view: made contiguous
        self.check(host, y, (7, 7), [0.5, 1.5, 2.5, 3.5])
        ints = torch.tensor([1, 2, 3, 1], dtype=torch.int32, device="cuda")
        y = cit.gaussian_blur_batch(x, ints, ksize=(9, 5))
        self.check(host, y, (9, 5), [1.0, 2.0, 3.0, 1.0])

    def test_sigma_y_on_the_device(self):
        host = random_batch(self.rng, (6, 30, 34, 3), np.uint8)
        x = torch.from_numpy(host).cuda()
        sx = torch.tensor([0.6, 1.2, 2.0, 2.6, 0.9, 1.7], device="cuda")
        sy = torch.tensor([2.2, 0.0, 0.5, -1.0, 3.0, 1.0], device="cuda", dtype=torch.float64)
        y = cit.gaussian_blur_batch(x, sx, sy, ksize=(9, 13))
        self.check(host, y, (9, 13), self.values(sx), self.values(sy))   # sigma_y <= 0: the image's sigma
        y = cit.gaussian_blur_batch(x, sx, sy[:1], ksize=(9, 13))           # one sigma_y for every image
        self.check(host, y, (9, 13), self.values(sx), self.values(sy[:1]))

    def test_values_not_above_zero_mean_sigma_from_ksize(self):
        host = random_batch(self.rng, (5, 28, 28, 1), np.uint8)
        x = torch.from_numpy(host).cuda()
        sig = torch.tensor([0.0, -1.0, float("nan"), 1.5, -0.0], device="cuda")
        for ksize in ((5, 5), (3, 9), (15, 7)):
            with self.subTest(ksize=ksize):
                y = cit.gaussian_blur_batch(x, sig, ksize=ksize)
                self.check(host, y, ksize, self.values(sig))
                got = y.cpu().numpy()
                for i in (0, 1, 2, 4):                              # each as cv2.GaussianBlur with sigma 0
                    np.testing.assert_array_equal(got[i], cv2.GaussianBlur(host[i], ksize, 0, borderType=cv2.BORDER_REPLICATE).reshape(got[i].shape))

    def test_in_place_out_and_stream(self):
        host = random_batch(self.rng, (8, 24, 40, 3), np.uint8)
        sig = torch.tensor(self.rng.uniform(0.3, 2.5, 8), device="cuda", dtype=torch.float32)
        x = torch.from_numpy(host).cuda()
        ptr = x.data_ptr()
        self.assertIs(cit.gaussian_blur_batch(x, sig, ksize=5, out=x), x)
        self.assertEqual(x.data_ptr(), ptr)
        self.check(host, x, (5, 5), self.values(sig))
        x = torch.from_numpy(host).cuda()
        out = torch.empty_like(x)
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            half = sig.half()                                       # made on the side stream
        y = cit.gaussian_blur_batch(x, half, ksize=5, out=out, stream=side)   # converted on `side` too
        self.assertIs(y, out)
        side.synchronize()
        self.check(host, y, (5, 5), self.values(half))

    def test_a_one_by_one_kernel_is_a_copy(self):
        host = random_batch(self.rng, (3, 20, 20, 3), np.uint8)
        x = torch.from_numpy(host).cuda()
        y = cit.gaussian_blur_batch(x, torch.tensor([0.5, 1.0, 2.0], device="cuda"), ksize=1)
        torch.cuda.synchronize()
        np.testing.assert_array_equal(y.cpu().numpy(), host)

    def test_refusals(self):
        x = torch.zeros((4, 16, 16, 3), dtype=torch.uint8, device="cuda")
        with self.assertRaisesRegex(ValueError, "gaussian_blur_batch: sigma has 3 values for 4 images"):
            cit.gaussian_blur_batch(x, torch.ones(3, device="cuda"), ksize=5)
        with self.assertRaisesRegex(ValueError, "sigma_y has 2 values for 4 images"):
            cit.gaussian_blur_batch(x, torch.ones(4, device="cuda"), torch.ones(2, device="cuda"), ksize=5)
        with self.assertRaisesRegex(TypeError, "sigma has shape \\(2, 2\\)"):
            cit.gaussian_blur_batch(x, torch.ones((2, 2), device="cuda"), ksize=5)
        with self.assertRaisesRegex(TypeError, "sigma has dtype torch.bool"):
            cit.gaussian_blur_batch(x, torch.ones(4, dtype=torch.bool, device="cuda"), ksize=5)
        with self.assertRaisesRegex(ValueError, "sigma requires grad"):
            cit.gaussian_blur_batch(x, torch.ones(4, device="cuda", requires_grad=True), ksize=5)
        with self.assertRaisesRegex(cv2.error, "ksize.width is 4"):
            cit.gaussian_blur_batch(x, torch.ones(4, device="cuda"), ksize=(4, 5))
        with self.assertRaisesRegex(cv2.error, "ksize.height is 259"):
            cit.gaussian_blur_batch(x, torch.ones(4, device="cuda"), ksize=(5, 259))
        sig = torch.ones(4, device="cuda")
        if torch.cuda.device_count() > 1:
            with self.assertRaisesRegex(ValueError, "sigma is on CUDA device 1 and x on device 0"):
                cit.gaussian_blur_batch(x, sig.to("cuda:1"), ksize=5)
        real = cit._array_device
        with mock.patch.object(cit, "_array_device", side_effect=lambda o: 1 if o is sig else real(o)):
            with self.assertRaisesRegex(ValueError, "sigma is on CUDA device 1 and x on device %d; allowed: a sigma "
                                                    "on x's device" % x.device.index):
                cit.gaussian_blur_batch(x, sig, ksize=5)
        torch.cuda.synchronize()

    def test_no_synchronisation(self):
        """The call returns while the stream is still sleeping: it did not wait for the device. An
        event recorded right after the sleep tells whether a call waited for it; the same sigma
        with ksize=None is read back, and that call does wait (so the test can tell)."""
        host = random_batch(self.rng, (16, 64, 64, 3), np.uint8)
        x = torch.from_numpy(host).cuda()
        cases = [("float32", torch.tensor(self.rng.uniform(0.3, 3.0, 16), device="cuda", dtype=torch.float32), None),
                 ("float16, sigma_y float64", torch.tensor(self.rng.uniform(0.3, 3.0, 16), device="cuda").half(),
                  torch.tensor(self.rng.uniform(0.3, 3.0, 16), device="cuda", dtype=torch.float64))]
        for name, sig, sig_y in cases:
            with self.subTest(case=name):
                y = cit.gaussian_blur_batch(x, sig, sig_y, ksize=(11, 9))   # warm-up: the filter, its kernels
                torch.cuda.synchronize()
                slept = torch.cuda.Event()
                torch.cuda._sleep(SLEEP_CYCLES)
                slept.record()
                y = cit.gaussian_blur_batch(x, sig, sig_y, ksize=(11, 9))
                self.assertFalse(torch.cuda.current_stream().query(), "the call waited for the device")
                self.assertFalse(slept.query(), "the call waited for the device")
                self.check(host, y, (11, 9), self.values(sig), None if sig_y is None else self.values(sig_y))
        sig = cases[0][1]
        slept = torch.cuda.Event()
        torch.cuda._sleep(SLEEP_CYCLES)
        slept.record()
        cit.gaussian_blur_batch(x, sig)                              # ksize None: read back, waits
        self.assertTrue(slept.query(), "the read-back did not wait: the test cannot tell a wait")
        torch.cuda.synchronize()

    def test_graph_replays_with_new_sigmas(self):
        cases = [("NHWC, one per image, float32", (8, 48, 40, 3), "NHWC", torch.float32, 8, (9, 7)),
                 ("NCHW, one per image, float64", (4, 3, 33, 35), "NCHW", torch.float64, 4, 11),
                 ("NHWC, one value, float16 (converted in the graph)", (6, 30, 30, 1), "NHWC", torch.float16, 1, 5)]
        for name, shape, layout, sdtype, count, ksize in cases:
            with self.subTest(case=name):
                kpair = (ksize, ksize) if isinstance(ksize, int) else ksize
                x = torch.empty(shape, dtype=torch.uint8, device="cuda")
                y = torch.empty_like(x)
                s = torch.ones(count, dtype=sdtype, device="cuda")
                g, _ = capture_torch_graph(lambda: cit.gaussian_blur_batch(x, s, ksize=ksize, layout=layout, out=y))
                for round_ in range(3):
                    host = random_batch(self.rng, shape, np.uint8)
                    x.copy_(torch.from_numpy(host))
                    s.copy_(torch.tensor(self.rng.uniform(0.2, 3.0, count)).to(sdtype))
                    g.replay()
                    self.check(host, y, kpair, self.values(s), layout=layout, msg="round %d" % round_)

    def test_capture_refusal_says_how_to_avoid_the_read_back(self):
        x = torch.zeros((4, 16, 16, 3), dtype=torch.uint8, device="cuda")
        y = torch.empty_like(x)
        sig = torch.ones(4, device="cuda")
        cit.gaussian_blur_batch(x, sig, ksize=5, out=y)
        torch.cuda.synchronize()
        for kwargs, why in (({}, "here ksize is None"), ({"ksize": [5, 5, 5, 5]}, "here ksize is one kernel per image"),
                            ({"ksize": 5, "sigma_y": 1.0}, "here sigma_y is a host value")):
            with self.subTest(why=why):
                with self.assertRaisesRegex(RuntimeError, "sigma is a CUDA array and the current stream is being "
                                                          "captured.*pass ksize as one kernel for every image.*" + why):
                    with torch.cuda.graph(torch.cuda.CUDAGraph()):
                        cit.gaussian_blur_batch(x, sig, out=y, **kwargs)
                torch.cuda.synchronize()


@unittest.skipUnless(HAVE_CUPY, "needs a CUDA device and CuPy")
class CupyDeviceSigmaTest(unittest.TestCase):

    def test_cupy_sigmas(self):
        rng = np.random.default_rng(41)
        host = random_batch(rng, (6, 30, 26, 3), np.uint8)
        x = cupy.asarray(host)
        for dtype in (np.float32, np.float64, np.float16, np.int32):
            with self.subTest(dtype=np.dtype(dtype).name):
                values = rng.uniform(0.3, 3.0, 6).astype(dtype)
                sig = cupy.asarray(values)
                y = cit.gaussian_blur_batch(x, sig, ksize=(7, 5))
                got = cupy.asnumpy(y)
                want = reference(host, (7, 5), values.astype(np.float64).tolist(), None, "NHWC",
                                 cv2.BORDER_REPLICATE)
                np.testing.assert_array_equal(got, want)


if __name__ == "__main__":
    unittest.main()
