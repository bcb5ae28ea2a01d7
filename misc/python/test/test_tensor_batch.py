"""The batched Gaussian blur from Python: cv2.cuda.createGaussianBlurBatch / cv2.cuda.GaussianBlurBatch
on lists of GpuMats and stacked images, and cv2.cudaimage.tensor.gaussian_blur_batch on PyTorch and
CuPy tensors (NHWC, NCHW, NHW; every dtype; per-image sigma), each image against cv2.GaussianBlur on
the host (uint8 / uint16 identical). Zero copy is checked by pointer (out= and in place keep the
tensor's memory), stream order by blurring on a side stream right after the producer's work there.

The ksize and sigma rules (an int or a (w, h) tuple is one kernel for every image, a list one per
image with exactly N entries) and the other argument checks run without a GPU (they fail before any
CUDA call). A refused call changes nothing: the issue's reproducer and a seeded sequence of good and
refused calls on the process-wide filters check every good result against the CPU. The rest skips
without a CUDA device, and the tensor cases without PyTorch or CuPy.
"""
import unittest

import numpy as np
import cv2

from cudaimage_test_support import gpu_available, torch_cannot_run

try:
    import torch
    HAVE_TORCH = torch.cuda.is_available() and torch_cannot_run() is None
except ImportError:
    torch = None
    HAVE_TORCH = False

try:
    import cupy
    cupy.cuda.runtime.getDeviceCount()
    HAVE_CUPY = True
except Exception:   # no CuPy, or no device for it
    cupy = None
    HAVE_CUPY = False

from cv2.cudaimage import tensor as cit

TOL = {np.uint8: 0, np.uint16: 0, np.int16: 1, np.float32: 1e-5, np.float64: 1e-12}


def random_batch(rng, shape, dtype):
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return rng.integers(info.min, int(info.max) + 1, size=shape, dtype=dtype)
    return (rng.random(shape) * 200 - 100).astype(dtype)


def cpu_blur(img, sigma, ksize=(0, 0), border=cv2.BORDER_REPLICATE):
    return cv2.GaussianBlur(img, ksize, sigma, sigmaY=sigma, borderType=border)


class ArgumentsTest(unittest.TestCase):
    """Refused before any CUDA call (no GPU needed)."""

    def test_factory_checks_its_arguments(self):
        with self.assertRaisesRegex(cv2.error, "createGaussianBlurBatch: srcType is CV_8UC5"):
            cv2.cuda.createGaussianBlurBatch(cv2.CV_8UC(5), -1, (0, 0), 1.0)
        with self.assertRaisesRegex(cv2.error, "createGaussianBlurBatch: rowBorderMode is 99"):
            cv2.cuda.createGaussianBlurBatch(cv2.CV_8UC1, -1, (0, 0), 1.0, 0, 99)

    def test_tensor_helper_refuses_what_it_cannot_view(self):
        with self.assertRaisesRegex(TypeError, "not a CUDA array"):
            cit.gaussian_blur_batch(np.zeros((2, 8, 8, 3), np.uint8), 1.0)


class FakeCudaArray:
    """A CUDA array interface over no memory: enough for the checks that run before any CUDA call."""

    def __init__(self, shape, typestr="|u1"):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr, "data": (0x10000, False),
                                         "strides": None, "version": 3}


class KsizeAndSigmaRulesTest(unittest.TestCase):
    """ksize: an int or a (w, h) tuple is one kernel for every image; a list (array, any non-tuple
    sequence) is one per image and has exactly N entries. sigma: a number is every image; a
    sequence, array or tensor has one value (every image) or N. Checked before any CUDA call."""

    def test_an_int_or_a_tuple_is_one_kernel_for_every_image(self):
        self.assertEqual(cit._ksizes(5, 8, 1), [(5, 5)])
        self.assertEqual(cit._ksizes((3, 5), 8, 1), [(3, 5)])
        self.assertEqual(cit._ksizes((3, 5), 2, 1), [(3, 5)])           # N = 2: still one kernel
        self.assertEqual(cit._ksizes(np.int64(7), 3, 1), [(7, 7)])
        self.assertEqual(cit._ksizes(np.array(9), 3, 1), [(9, 9)])
        self.assertEqual(cit._ksizes(None, 3, 1), [])

    def test_a_list_is_one_kernel_per_image(self):
        self.assertEqual(cit._ksizes([3, 5], 2, 1), [(3, 3), (5, 5)])   # N = 2: two kernels
        self.assertEqual(cit._ksizes([(3, 5), 7], 2, 1), [(3, 5), (7, 7)])
        self.assertEqual(cit._ksizes([[3, 5], [5, 7]], 2, 1), [(3, 5), (5, 7)])
        self.assertEqual(cit._ksizes(np.array([3, 5, 7]), 3, 1), [(3, 3), (5, 5), (7, 7)])
        self.assertEqual(cit._ksizes(np.array([[3, 5], [5, 7]]), 2, 1), [(3, 5), (5, 7)])
        self.assertEqual(cit._ksizes(range(1, 6, 2), 3, 1), [(1, 1), (3, 3), (5, 5)])
        self.assertEqual(cit._ksizes([3, (1, 5)], 2, 3), [(3, 3)] * 3 + [(1, 5)] * 3)   # NCHW: per plane

    def test_a_list_of_another_length_is_refused(self):
        for ksize, n in (([3, 5], 8), ([3], 8), ([3, 5, 7], 2), (np.array([3, 5]), 3), ([], 1)):
            with self.subTest(ksize=ksize, n=n):
                with self.assertRaisesRegex(ValueError, "ksize is a list of %d entries for %d images" % (len(ksize), n)):
                    cit._ksizes(ksize, n, 1)

    def test_malformed_ksize_is_refused(self):
        with self.assertRaisesRegex(ValueError, "ksize is the tuple \\(3, 5, 7\\); a tuple is one kernel"):
            cit._ksizes((3, 5, 7), 3, 1)
        with self.assertRaisesRegex(ValueError, "ksize is the tuple"):
            cit._ksizes((3.0, 5), 3, 1)
        with self.assertRaisesRegex(TypeError, "ksize\\[1\\] is 'a'"):
            cit._ksizes([3, "a"], 2, 1)
        with self.assertRaisesRegex(TypeError, "ksize\\[0\\] is \\(3, 5, 7\\)"):
            cit._ksizes([(3, 5, 7), 3], 2, 1)
        with self.assertRaisesRegex(TypeError, "ksize is a str"):
            cit._ksizes("3", 1, 1)
        with self.assertRaisesRegex(TypeError, "ksize is a float"):
            cit._ksizes(3.0, 1, 1)

    def test_sigma_forms(self):
        self.assertEqual(cit._sigmas(1, 4, 1, "sigma"), [1.0])
        self.assertEqual(cit._sigmas(np.float32(1.5), 4, 1, "sigma"), [1.5])
        self.assertEqual(cit._sigmas(np.array(2.5), 4, 1, "sigma"), [2.5])           # 0-d: every image
        self.assertEqual(cit._sigmas([0.5], 4, 1, "sigma"), [0.5])                   # one value: every image
        self.assertEqual(cit._sigmas((0.5, 1.0), 2, 3, "sigma"), [0.5] * 3 + [1.0] * 3)
        self.assertEqual(cit._sigmas(np.array([1, 2, 3]), 3, 1, "sigma_y"), [1.0, 2.0, 3.0])
        self.assertEqual(cit._sigmas(None, 3, 1, "sigma"), [])
        with self.assertRaisesRegex(ValueError, "sigma has 2 values for 3 images"):
            cit._sigmas([1.0, 2.0], 3, 1, "sigma")
        with self.assertRaisesRegex(TypeError, "sigma_y is a str"):
            cit._sigmas("1.0", 3, 1, "sigma_y")
        with self.assertRaisesRegex(TypeError, "sigma is \\[\\[1.0, 2.0\\]\\]; allowed: a number"):
            cit._sigmas([[1.0, 2.0]], 2, 1, "sigma")

    def test_the_call_refuses_before_any_cuda_call(self):
        """Through gaussian_blur_batch on an array interface over no memory: the argument checks
        come before the stream and the filter (the first CUDA calls)."""
        x, out = FakeCudaArray((8, 16, 16, 3)), FakeCudaArray((8, 16, 16, 3))
        with self.assertRaisesRegex(ValueError, "ksize is a list of 2 entries for 8 images"):
            cit.gaussian_blur_batch(x, 1.0, ksize=[3, 5], out=out)
        with self.assertRaisesRegex(ValueError, "ksize is the tuple"):
            cit.gaussian_blur_batch(x, 1.0, ksize=(3, 5, 7), out=out)
        with self.assertRaisesRegex(ValueError, "sigma has 3 values for 8 images"):
            cit.gaussian_blur_batch(x, [1.0, 2.0, 3.0], out=out)
        planes = FakeCudaArray((2, 3, 16, 16), "<f4")                                # NCHW: N is 2, not 6
        with self.assertRaisesRegex(ValueError, "ksize is a list of 6 entries for 2 images"):
            cit.gaussian_blur_batch(planes, 1.0, ksize=[3] * 6, layout="NCHW", out=FakeCudaArray((2, 3, 16, 16), "<f4"))


@unittest.skipUnless(gpu_available(), "needs a CUDA device")
class GpuMatBatchTest(unittest.TestCase):
    def test_list_with_per_image_sigma_and_sizes(self):
        rng = np.random.default_rng(1)
        imgs = [random_batch(rng, (h, w, 3), np.uint8) for h, w in ((31, 40), (224, 224), (5, 3), (100, 17))]
        sigmas = [0.1, 1.5, 2.0, 5.0]
        src = [cv2.cuda.GpuMat(i) for i in imgs]
        dst = cv2.cuda.GaussianBlurBatch(src, [], sigmas)
        self.assertEqual(len(dst), len(imgs))
        for i, (img, s) in enumerate(zip(imgs, sigmas)):
            np.testing.assert_array_equal(dst[i].download(), cpu_blur(img, s), err_msg="image %d" % i)

    def test_stacked_images_and_in_place(self):
        rng = np.random.default_rng(2)
        batch = random_batch(rng, (8 * 64, 48), np.uint16)
        sigmas = list(rng.uniform(0.1, 3.0, 8))
        f = cv2.cuda.createGaussianBlurBatch(cv2.CV_16UC1, -1, (0, 0), 1.0)
        g = cv2.cuda.GpuMat(batch)
        out = f.applyStacked(g, None, 64, sigmas)
        ptr = g.cudaPtr()
        f.applyStacked(g, g, 64, sigmas)                      # in place
        self.assertEqual(ptr, g.cudaPtr())
        for name, got in (("out", out.download()), ("in place", g.download())):
            for i in range(8):
                np.testing.assert_array_equal(got[64 * i:64 * (i + 1)], cpu_blur(batch[64 * i:64 * (i + 1)], sigmas[i]),
                                              err_msg="%s image %d" % (name, i))

    def test_bad_sigma_is_named_by_index(self):
        src = [cv2.cuda.GpuMat(np.zeros((8, 8), np.uint8)) for _ in range(3)]
        with self.assertRaisesRegex(cv2.error, "image 1: sigmaX is nan"):
            cv2.cuda.GaussianBlurBatch(src, [], [1.0, float("nan"), 1.0])
        with self.assertRaisesRegex(cv2.error, "sigmaX has 2 values for 3 images"):
            cv2.cuda.GaussianBlurBatch(src, [], [1.0, 2.0])


def _check_batch(test, host, got, sigmas, layout, tol):
    """Every image (NCHW: every plane with its image's sigma) against cv2.GaussianBlur."""
    for i in range(host.shape[0]):
        s = float(sigmas[i])
        if layout == "NCHW":
            for c in range(host.shape[1]):
                want = cpu_blur(host[i, c], s)
                np.testing.assert_allclose(got[i, c], want, rtol=0, atol=tol * max(1.0, float(np.abs(host).max())),
                                           err_msg="image %d plane %d sigma %g" % (i, c, s))
        else:
            want = cpu_blur(host[i], s)
            g = got[i]
            if want.ndim == 2 and g.ndim == 3:
                g = g[:, :, 0]
            np.testing.assert_allclose(g, want, rtol=0, atol=tol * max(1.0, float(np.abs(host).max())) if tol else 0,
                                       err_msg="image %d sigma %g" % (i, s))


@unittest.skipUnless(gpu_available() and HAVE_TORCH, "needs a CUDA device and PyTorch")
class TorchTensorTest(unittest.TestCase):
    def test_layouts_and_dtypes(self):
        rng = np.random.default_rng(3)
        cases = [("NHWC", (16, 40, 36, 3), np.uint8), ("NCHW", (6, 3, 33, 41), np.float32),
                 ("NHWC", (5, 24, 20, 1), np.uint16), ("NHW", (7, 19, 23), np.int16),
                 ("NHWC", (3, 17, 15, 4), np.float64), ("NCHW", (4, 2, 30, 30), np.uint8)]
        for layout, shape, dtype in cases:
            with self.subTest(layout=layout, shape=shape, dtype=dtype.__name__):
                host = random_batch(rng, shape, dtype)
                x = torch.from_numpy(host).cuda()
                sigmas = torch.tensor(rng.uniform(0.1, 2.0, shape[0]))
                y = cit.gaussian_blur_batch(x, sigmas, layout=layout)
                self.assertIsInstance(y, torch.Tensor)
                self.assertEqual(y.shape, x.shape)
                _check_batch(self, host, y.cpu().numpy(), sigmas.numpy(), layout, TOL[dtype])

    def test_out_and_in_place_keep_the_memory(self):
        rng = np.random.default_rng(4)
        host = random_batch(rng, (32, 224, 224, 3), np.uint8)
        x = torch.from_numpy(host).cuda()
        out = torch.empty_like(x)
        ptr = out.data_ptr()
        sigmas = rng.uniform(0.1, 2.0, 32)
        y = cit.gaussian_blur_batch(x, list(sigmas), out=out)
        self.assertIs(y, out)
        self.assertEqual(ptr, y.data_ptr())
        xp = x.data_ptr()
        z = cit.gaussian_blur_batch(x, sigmas, out=x)           # in place
        self.assertEqual(xp, z.data_ptr())
        torch.cuda.synchronize()
        _check_batch(self, host, y.cpu().numpy(), sigmas, "NHWC", 0)
        _check_batch(self, host, z.cpu().numpy(), sigmas, "NHWC", 0)

    def test_a_slice_of_a_batch_and_channels_last(self):
        rng = np.random.default_rng(5)
        host = random_batch(rng, (10, 3, 28, 28), np.float32)
        x = torch.from_numpy(host).cuda()
        part = x[::2]                                           # images apart: a list of views
        y = cit.gaussian_blur_batch(part, 1.3, layout="NCHW")
        _check_batch(self, host[::2], y.cpu().numpy(), [1.3] * 5, "NCHW", 1e-5)
        cl = x.contiguous(memory_format=torch.channels_last)    # NCHW shape, NHWC memory
        y = cit.gaussian_blur_batch(cl.permute(0, 2, 3, 1), 0.8, layout="NHWC")
        _check_batch(self, host.transpose(0, 2, 3, 1), y.cpu().numpy(), [0.8] * 10, "NHWC", 1e-5)
        with self.assertRaisesRegex(ValueError, "rows are not contiguous"):
            cit.gaussian_blur_batch(x.transpose(2, 3), 1.0, layout="NCHW")
        with self.assertRaisesRegex(ValueError, "ambiguous"):
            cit.gaussian_blur_batch(torch.zeros((2, 3, 3, 3), dtype=torch.uint8, device="cuda"), 1.0)

    def test_tensor_views_equal_the_array_interface(self):
        """The wrapper reads a tensor's pointer, shape and strides from the tensor itself: exactly
        what its __cuda_array_interface__ says, for every layout a batch can come in."""
        x = torch.from_numpy(np.arange(6 * 3 * 20 * 22, dtype=np.float32).reshape(6, 3, 20, 22)).cuda()
        u16 = torch.from_numpy(np.zeros((4, 9, 7, 2), np.uint16)).cuda()
        cases = [x, x[::2], x[:, :, 1:, :], x.permute(0, 2, 3, 1), x.contiguous(memory_format=torch.channels_last),
                 x[:1], x[:, :1], x[:, :, :, :1], x.to(torch.uint8), x.to(torch.int16)[..., 3:4], u16, u16[:, :, ::2],
                 x.double().requires_grad_()]
        for i, t in enumerate(cases):
            with self.subTest(case=i, shape=tuple(t.shape), stride=t.stride(), dtype=str(t.dtype)):
                v = cit._View(t, "x")
                cai = t.detach().__cuda_array_interface__
                self.assertEqual(v.ptr, cai["data"][0])
                self.assertEqual(v.shape, tuple(cai["shape"]))
                self.assertEqual(v.itemsize, t.element_size())
                want = cai.get("strides")
                if want is None:
                    want, step = [], t.element_size()
                    for n in reversed(t.shape):
                        want.insert(0, step)
                        step *= n
                self.assertEqual(v.strides, tuple(want))
        with self.assertRaisesRegex(TypeError, "dtype"):
            cit.gaussian_blur_batch(torch.zeros((2, 8, 8, 1), dtype=torch.int32, device="cuda"), 1.0)

    def test_ordered_with_the_producers_stream(self):
        rng = np.random.default_rng(6)
        host = random_batch(rng, (64, 128, 128, 3), np.uint8)
        s = torch.cuda.Stream()
        with torch.cuda.stream(s):
            x = torch.from_numpy(host).pin_memory().cuda(non_blocking=True)   # made on s
            x = x.flip(0).flip(0)                                   # more work on s
            y = cit.gaussian_blur_batch(x, 1.7)                      # on s: after the copy
            z = y.clone()                                            # on s: after the blur
        s.synchronize()
        _check_batch(self, host, z.cpu().numpy(), [1.7] * 64, "NHWC", 0)


@unittest.skipUnless(gpu_available() and HAVE_TORCH, "needs a CUDA device and PyTorch")
class RefusalSequenceTest(unittest.TestCase):
    """A refused call changes nothing: cv2.cudaimage.tensor keeps one filter per type and border for
    the whole process, so a later good call on the same filter must give exactly the CPU's result,
    whatever was refused before it (kernels seen before the bad image included)."""

    def test_a_refusal_after_good_images_then_a_good_batch(self):
        """The reproducer: image 3 of 8 refused (sigma -1 after three images of sigma 1), then 32
        images whose sigmas include 1.0, on random data, every image equal to cv2.GaussianBlur."""
        rng = np.random.default_rng(20)
        x8 = torch.from_numpy(random_batch(rng, (8, 64, 64, 3), np.uint8)).cuda()
        f = cit._filter(cv2.CV_8UC3, cv2.BORDER_REPLICATE)
        with self.assertRaisesRegex(cv2.error, "image 3: "):
            cit.gaussian_blur_batch(x8, [1, 1, 1, -1, 1, 1, 1, 1])
        host = random_batch(rng, (32, 96, 96, 3), np.uint8)
        xs = torch.from_numpy(host).cuda()
        sigmas = [0.5 + 0.05 * i for i in range(32)]
        self.assertIn(1.0, sigmas)
        ys = cit.gaussian_blur_batch(xs, sigmas)
        self.assertIs(cit._filter(cv2.CV_8UC3, cv2.BORDER_REPLICATE), f)   # the same process-wide filter
        torch.cuda.synchronize()
        _check_batch(self, host, ys.cpu().numpy(), sigmas, "NHWC", 0)

    def test_random_sequence_of_good_and_bad_calls(self):
        """About 60 calls per dtype on one filter (one type, one border): good calls with per-image
        sigmas from a small set (so kernels repeat across calls) and sometimes per-image or common
        ksize, mixed with calls refused at a random image (negative, NaN or zero sigma; even ksize)
        or for a list of the wrong length. Every refusal raises; every good call equals the CPU."""
        pool = [0.3, 0.7, 1.0, 1.6, 2.5, 4.0]
        for dtype, border, tol in ((np.uint8, cv2.BORDER_REFLECT_101, 0), (np.float32, cv2.BORDER_REPLICATE, 1e-5)):
            rng = np.random.default_rng(21)
            h, w = 40, 36
            good = bad = 0
            for call in range(60):
                n = int(rng.integers(1, 7))
                host = random_batch(rng, (n, h, w, 3), dtype)
                x = torch.from_numpy(host).cuda()
                sigmas = [float(rng.choice(pool)) for _ in range(n)]
                ksize = None
                if rng.random() < 0.3:
                    ksize = [int(rng.choice([1, 3, 5, 7, 9])) for _ in range(n)]
                elif rng.random() < 0.15:
                    ksize = (int(rng.choice([3, 5])), int(rng.choice([5, 7])))
                kind = rng.choice(["good", "good", "good", "sigma", "ksize", "length"])
                if kind == "sigma":                               # refused whatever image i's ksize is:
                    i = int(rng.integers(n))                      # NaN always, <= 0 with ksize 0 (derived)
                    sigmas[i] = float(rng.choice([-1.0, float("nan"), 0.0]))
                    if ksize is not None:
                        ksize = list(ksize) if isinstance(ksize, list) else [ksize] * n
                        ksize[i] = 0
                    expect = "image %d: " % i
                elif kind == "ksize":
                    i = int(rng.integers(n))
                    ksize = ksize if isinstance(ksize, list) else [0] * n
                    ksize[i] = int(rng.choice([2, 4, 6]))
                    expect = "image %d: ksize" % i
                elif kind == "length":
                    if rng.random() < 0.5:
                        sigmas = sigmas + [1.0]
                        expect = "sigma has %d values for %d images" % (n + 1, n)
                    else:
                        ksize = [3] * (n + 1)
                        expect = "ksize is a list of %d entries for %d images" % (n + 1, n)
                with self.subTest(dtype=dtype.__name__, call=call, kind=str(kind), n=n, sigmas=sigmas, ksize=ksize):
                    if kind != "good":
                        with self.assertRaisesRegex((cv2.error, ValueError), expect):
                            cit.gaussian_blur_batch(x, sigmas, ksize=ksize, border=border)
                        bad += 1
                        continue
                    y = cit.gaussian_blur_batch(x, sigmas, ksize=ksize, border=border)
                    got = y.cpu().numpy()
                    for j in range(n):
                        k = ksize if isinstance(ksize, tuple) else (0, 0) if ksize is None else (ksize[j], ksize[j])
                        want = cpu_blur(host[j], sigmas[j], k, border)
                        np.testing.assert_allclose(got[j], want, rtol=0,
                                                   atol=tol * float(np.abs(host).max()),
                                                   err_msg="call %d image %d sigma %g ksize %s" % (call, j, sigmas[j], k))
                    good += 1
            self.assertGreater(good, 20)
            self.assertGreater(bad, 10)


@unittest.skipUnless(gpu_available() and HAVE_CUPY, "needs a CUDA device and CuPy")
class CupyTensorTest(unittest.TestCase):
    def test_nhwc_and_nchw(self):
        rng = np.random.default_rng(7)
        for layout, shape, dtype in (("NHWC", (12, 50, 40, 3), np.uint8), ("NCHW", (3, 4, 21, 33), np.float32)):
            with self.subTest(layout=layout):
                host = random_batch(rng, shape, dtype)
                x = cupy.asarray(host)
                sigmas = cupy.asarray(rng.uniform(0.1, 2.0, shape[0]))
                y = cit.gaussian_blur_batch(x, sigmas, layout=layout)
                self.assertIsInstance(y, cupy.ndarray)
                _check_batch(self, host, cupy.asnumpy(y), cupy.asnumpy(sigmas), layout, TOL[dtype])
                ptr = x.data.ptr
                cit.gaussian_blur_batch(x, sigmas, layout=layout, out=x)
                self.assertEqual(ptr, x.data.ptr)
                _check_batch(self, host, cupy.asnumpy(x), cupy.asnumpy(sigmas), layout, TOL[dtype])


if __name__ == "__main__":
    unittest.main()
