"""cv2.cudaimage.tensor under autograd and under CUDA graph capture.

Gradients. The backward of gaussian_blur_batch is My^T @ G @ Mx per image, with the operator
matrices of cv2.cudaimage._tensor_grad. The chain is checked in three links:

1. (NumPy, no torch, no GPU) the operator-matrix forward My @ X @ Mx^T equals CPU cv2.GaussianBlur
   in float64 for every border (BORDER_WRAP, which cv2.GaussianBlur refuses for floats: the blur of
   the image padded by copyMakeBorder(WRAP)), derived and explicit ksize, sigma_y of its own, images
   smaller than the kernel; the border mapping equals cv2.borderInterpolate;
2. (torch on the CPU, no GPU) the autograd Function's backward is the adjoint of that matrix
   forward: torch.autograd.gradcheck and gradgradcheck in float64 through the Function with the
   matrix forward in place of the GPU blur, every layout, per-image kernels;
3. (GPU) gradcheck through gaussian_blur_batch itself, whose forward is the library's kernels.

Graphs (GPU): gaussian_blur_batch(xs, sigmas, out=ys) captured by torch.cuda.graph in every
capture_error_mode, replayed on new data, every image against cv2.GaussianBlur (uint8 identical);
a sigma on the device is refused during capture with a message, and the capture stays usable.
"""
import inspect
import unittest

import numpy as np
import cv2

from cudaimage_test_support import capture_torch_graph, gpu_available, torch_cannot_run

try:
    import torch
    HAVE_TORCH = True
    HAVE_TORCH_CUDA = torch.cuda.is_available() and torch_cannot_run() is None
except ImportError:
    torch = None
    HAVE_TORCH = HAVE_TORCH_CUDA = False

from cv2.cudaimage import _tensor_grad as tg
from cv2.cudaimage import tensor as cit

BORDERS = {"CONSTANT": cv2.BORDER_CONSTANT, "REPLICATE": cv2.BORDER_REPLICATE, "REFLECT": cv2.BORDER_REFLECT,
           "WRAP": cv2.BORDER_WRAP, "REFLECT_101": cv2.BORDER_REFLECT_101}


def cpu_reference(img, ksize, sigma_x, sigma_y, border, depth):
    """cv2.GaussianBlur, or for BORDER_WRAP (refused by it for floats) the blur of the image padded
    by copyMakeBorder(WRAP), an axis of length 1 not padded (OpenCV blurs a single row or column
    only along it)."""
    if border != cv2.BORDER_WRAP:
        out = cv2.GaussianBlur(img, ksize, sigma_x, sigmaY=sigma_y, borderType=border)
        return out.reshape(img.shape)
    kw, _, kh, _ = tg.resolve(depth, ksize, sigma_x, sigma_y)
    ry = kh // 2 if img.shape[0] > 1 else 0
    rx = kw // 2 if img.shape[1] > 1 else 0
    padded = cv2.copyMakeBorder(img, ry, ry, rx, rx, cv2.BORDER_WRAP)
    out = cv2.GaussianBlur(padded, ksize, sigma_x, sigmaY=sigma_y, borderType=cv2.BORDER_REPLICATE)
    return out.reshape(padded.shape)[ry:ry + img.shape[0], rx:rx + img.shape[1]]


# (rows, cols, ksize, sigma_x, sigma_y): derived and explicit kernels, sigma_y of its own, sigma 0
# (derived from ksize, OpenCV's table for ksize <= 7 and its formula above), a kernel wider than
# the image, single rows and columns.
CASES = [(9, 11, (0, 0), 1.0, 0.0), (9, 11, (5, 7), 0.0, 0.0), (9, 11, (0, 0), 3.0, 0.7),
         (9, 11, (3, 9), 1.2, 0.0), (12, 10, (11, 0), 0.0, 2.0), (7, 4, (0, 0), 10.0, 0.0),
         (2, 3, (0, 0), 2.5, 0.0), (1, 5, (3, 3), 0.0, 0.0), (6, 1, (0, 0), 1.5, 0.0), (16, 13, (1, 1), 0.0, 0.0)]


class OperatorMatrixTest(unittest.TestCase):
    """Link 1: the matrices the backward transposes are the forward (NumPy and CPU cv2 only)."""

    def test_border_index_is_border_interpolate(self):
        for name, border in BORDERS.items():
            for n in range(1, 7):
                p = np.arange(-4 * n - 3, 5 * n + 3)
                got = tg.border_index(p, n, border)
                want = [cv2.borderInterpolate(int(q), n, border) for q in p]
                self.assertEqual(got.tolist(), want, "%s n=%d" % (name, n))

    def test_kernel_size_rule(self):
        # cvRound rounds half to even: 0.3125 * 8 + 1 = 3.5 -> 4 -> 5, 1.5625 * 8 + 1 = 13.5 -> 14 -> 15
        for sigma, want in ((1.0, 9), (0.5, 5), (0.1, 3), (2.0, 17), (0.3125, 5), (1.5625, 15)):
            self.assertEqual(tg.kernel_size(sigma, cv2.CV_32F), want, sigma)
        self.assertEqual(tg.kernel_size(1.0, cv2.CV_8U), 7)
        self.assertEqual(tg.resolve(cv2.CV_64F, (0, 0), 1.0, 0.0), (9, 1.0, 9, 1.0))
        self.assertEqual(tg.resolve(cv2.CV_64F, (5, 0), 1.0, 2.0), (5, 1.0, 17, 2.0))
        self.assertEqual(tg.resolve(cv2.CV_64F, (3, 5), -1.0, 0.0), (3, 0.0, 5, 0.0))

    def test_matrix_forward_equals_cv2_gaussian_blur(self):
        rng = np.random.default_rng(11)
        for name, border in BORDERS.items():
            for h, w, ksize, sx, sy in CASES:
                for dtype, depth, tol in ((np.float64, cv2.CV_64F, 1e-12), (np.float32, cv2.CV_32F, 1e-6)):
                    with self.subTest(border=name, shape=(h, w), ksize=ksize, sigma=(sx, sy), dtype=dtype.__name__):
                        x = (rng.random((h, w, 2)) * 200 - 100).astype(dtype)
                        want = cpu_reference(x, ksize, sx, sy, border, depth).astype(np.float64)
                        kw, rsx, kh, rsy = tg.resolve(depth, ksize, sx, sy)
                        mx = tg.axis_matrix(w, kw, rsx, border, dtype == np.float32)
                        my = tg.axis_matrix(h, kh, rsy, border, dtype == np.float32)
                        got = np.einsum("ij,jkc,lk->ilc", my, x.astype(np.float64), mx)
                        np.testing.assert_allclose(got, want.reshape(got.shape), rtol=0,
                                                   atol=tol * float(np.abs(x).max()))

    def test_float32_taps_are_the_float_kernel(self):
        for ksize, sigma in ((9, 1.0), (5, 0.0), (31, 4.5)):
            np.testing.assert_array_equal(tg.taps(ksize, sigma, True),
                                          cv2.getGaussianKernel(ksize, sigma, ktype=cv2.CV_32F).ravel())


def _matrix_blur(layout, shape, sx, sy, ks, border):
    """A CPU stand-in for the GPU forward: My @ X @ Mx^T per image, in torch, float64."""
    to_planes = {"NHWC": lambda t: t.permute(0, 3, 1, 2), "NHW": lambda t: t.unsqueeze(1), "NCHW": lambda t: t}[layout]
    back = {"NHWC": lambda t: t.permute(0, 2, 3, 1), "NHW": lambda t: t.squeeze(1), "NCHW": lambda t: t}[layout]
    n, _, h, w = to_planes(torch.empty(shape)).shape
    ops = []
    for i in range(n):
        kw, rsx, kh, rsy = tg.resolve(cv2.CV_64F, tg._pick(ks, i, (0, 0)), tg._pick(sx, i, 1.0), tg._pick(sy, i, 0.0))
        ops.append((torch.from_numpy(tg.axis_matrix(h, kh, rsy, border)),
                    torch.from_numpy(tg.axis_matrix(w, kw, rsx, border)).T))
    my = torch.stack([o[0] for o in ops]).unsqueeze(1)          # (n, 1, h, h)
    mxt = torch.stack([o[1] for o in ops]).unsqueeze(1)         # (n, 1, w, w)

    def blur(x):
        return back(my @ to_planes(x) @ mxt)
    return blur


@unittest.skipUnless(HAVE_TORCH, "needs PyTorch")
class AdjointTest(unittest.TestCase):
    """Link 2: the Function's backward is the adjoint of the matrix forward (torch on the CPU)."""

    def test_gradcheck_of_the_function_with_the_matrix_forward(self):
        f = tg.function()
        rng = np.random.default_rng(12)
        cases = [("NHWC", (2, 9, 11, 2), [0.8, 1.7], [], []), ("NCHW", (2, 2, 9, 11), [1.0], [2.0], [(3, 5)]),
                 ("NHW", (3, 7, 6), [0.6, 0.6, 1.4], [], [5, 5, 3]), ("NHWC", (3, 8, 5, 1), [1.2, 0.0, 1.2], [],
                                                                     [(0, 0), (5, 3), (0, 0)])]
        for layout, shape, sx, sy, ks in cases:
            ks = [(k, k) if isinstance(k, int) else k for k in ks]
            for name, border in BORDERS.items():
                with self.subTest(layout=layout, border=name, sigma=sx, ksize=ks):
                    x = torch.from_numpy(rng.random(shape)).requires_grad_()
                    plan = tg._Plan(layout, cv2.CV_64F, sx, sy, ks, border)
                    fn = _matrix_blur(layout, shape, sx, sy, ks, border)
                    self.assertTrue(torch.autograd.gradcheck(lambda t: f.apply(t, fn, plan), (x,)))
                    if layout == "NCHW":                     # the backward is itself differentiable
                        self.assertTrue(torch.autograd.gradgradcheck(lambda t: f.apply(t, fn, plan), (x,)))

    def test_backward_is_the_transpose_on_a_basis_vector(self):
        """One image, REPLICATE: the gradient of y[i, j] is row i of My times row j of Mx (outer)."""
        f = tg.function()
        x = torch.zeros((1, 6, 7), dtype=torch.float64, requires_grad=True)
        plan = tg._Plan("NHW", cv2.CV_64F, [1.3], [], [], cv2.BORDER_REPLICATE)
        y = f.apply(x, _matrix_blur("NHW", (1, 6, 7), [1.3], [], [], cv2.BORDER_REPLICATE), plan)
        y[0, 0, 6].backward()
        mx = tg.axis_matrix(7, tg.kernel_size(1.3, cv2.CV_64F), 1.3, cv2.BORDER_REPLICATE)
        my = tg.axis_matrix(6, tg.kernel_size(1.3, cv2.CV_64F), 1.3, cv2.BORDER_REPLICATE)
        np.testing.assert_allclose(x.grad[0].numpy(), np.outer(my[0], mx[6]), rtol=0, atol=1e-15)


@unittest.skipUnless(gpu_available() and HAVE_TORCH_CUDA, "needs a CUDA device and PyTorch")
class GradientTest(unittest.TestCase):
    """Link 3: through gaussian_blur_batch on the GPU."""

    def test_gradcheck_every_border_and_layout(self):
        rng = np.random.default_rng(13)
        cases = [("NHWC", (2, 9, 11, 2), [0.8, 1.7], None), ("NCHW", (2, 2, 9, 11), [1.1, 0.6], None),
                 ("NHWC", (2, 9, 11, 2), [1.0, 0.0], [(3, 5), 7]), ("NCHW", (2, 2, 9, 11), 1.3, (5, 3)),
                 ("NHW", (3, 7, 6), [0.6, 2.0, 0.6], None)]
        for layout, shape, sigma, ksize in cases:
            for name, border in BORDERS.items():
                with self.subTest(layout=layout, border=name, sigma=sigma, ksize=ksize):
                    x = torch.from_numpy(rng.random(shape)).cuda().requires_grad_()

                    def fn(t):
                        return cit.gaussian_blur_batch(t, sigma, ksize=ksize, layout=layout, border=border)
                    y = fn(x)
                    self.assertIsNotNone(y.grad_fn)
                    with torch.no_grad():
                        torch.testing.assert_close(y, cit.gaussian_blur_batch(x, sigma, ksize=ksize, layout=layout,
                                                                              border=border), rtol=0, atol=0)
                    self.assertTrue(torch.autograd.gradcheck(fn, (x,)))

    def test_float32_gradient_close_to_float64(self):
        rng = np.random.default_rng(14)
        host = rng.random((4, 3, 40, 33))
        g = torch.from_numpy(rng.random(host.shape)).cuda()
        grads = []
        for dtype in (torch.float64, torch.float32):
            x = torch.from_numpy(host).cuda().to(dtype).requires_grad_()
            y = cit.gaussian_blur_batch(x, [0.7, 1.5, 0.7, 3.0], sigma_y=[1.0, 1.5, 2.0, 0.0], layout="NCHW",
                                        border=cv2.BORDER_REFLECT_101)
            y.backward(g.to(dtype))
            grads.append(x.grad.double())
        torch.testing.assert_close(grads[1], grads[0], rtol=0, atol=1e-5 * float(grads[0].abs().max()))

    def test_sum_of_the_blur_is_the_column_sums(self):
        """d sum(y) / dx = My^T 1 (x) Mx^T 1: 1 everywhere inside, the border's weights at the edges;
        for REPLICATE and the reflections every tap lands somewhere, so the total is the pixel count."""
        x = torch.rand((2, 30, 20, 3), device="cuda", dtype=torch.float64, requires_grad=True)
        for name, border in BORDERS.items():
            x.grad = None
            cit.gaussian_blur_batch(x, 2.0, border=border).sum().backward()
            if border != cv2.BORDER_CONSTANT:
                self.assertAlmostEqual(float(x.grad.sum()), x.numel(), delta=1e-9 * x.numel(), msg=name)
            inner = x.grad[:, 12:18, 9:11]                       # no border maps a tap here
            torch.testing.assert_close(inner, torch.ones_like(inner), rtol=0, atol=1e-12)

    def test_refusals_under_autograd(self):
        x = torch.rand((2, 8, 8, 1), device="cuda", requires_grad=True)
        with self.assertRaisesRegex(RuntimeError, "in place \\(out=x\\) on a tensor that requires grad"):
            cit.gaussian_blur_batch(x, 1.0, out=x)
        with self.assertRaisesRegex(RuntimeError, "out= does not support automatic differentiation"):
            cit.gaussian_blur_batch(x, 1.0, out=torch.empty_like(x))
        s = torch.tensor([1.0, 2.0], requires_grad=True)
        with self.assertRaisesRegex(ValueError, "sigma requires grad, but the blur is not differentiable"):
            cit.gaussian_blur_batch(x, s)
        with self.assertRaisesRegex(ValueError, "sigma_y requires grad"):
            cit.gaussian_blur_batch(x.detach(), 1.0, sigma_y=s)
        y = cit.gaussian_blur_batch(x, s.detach())
        self.assertIsNotNone(y.grad_fn)
        with torch.no_grad():                                    # no autograd: out= and in place as always
            self.assertIsNone(cit.gaussian_blur_batch(x, s).grad_fn)
            out = torch.empty_like(x)
            self.assertIs(cit.gaussian_blur_batch(x, 1.0, out=out), out)
        with self.assertRaisesRegex(ValueError, "sigma has 3 values for 2 images"):
            cit.gaussian_blur_batch(x, [1.0, 2.0, 3.0])         # checked as without autograd


def _capture_modes():
    """The capture_error_mode values this PyTorch takes (the argument came with PyTorch 2.1)."""
    if not HAVE_TORCH_CUDA or "capture_error_mode" not in inspect.signature(torch.cuda.graph.__init__).parameters:
        return []
    return ["global", "thread_local", "relaxed"]


@unittest.skipUnless(gpu_available() and HAVE_TORCH_CUDA, "needs a CUDA device and PyTorch")
class GraphCaptureTest(unittest.TestCase):
    def _check(self, host, got, sigmas, layout="NHWC"):
        for i in range(host.shape[0]):
            if layout == "NCHW":
                for c in range(host.shape[1]):
                    want = cv2.GaussianBlur(host[i, c], (0, 0), sigmas[i], borderType=cv2.BORDER_REPLICATE)
                    np.testing.assert_array_equal(got[i, c], want, err_msg="image %d plane %d" % (i, c))
            else:
                want = cv2.GaussianBlur(host[i], (0, 0), sigmas[i], borderType=cv2.BORDER_REPLICATE)
                np.testing.assert_array_equal(got[i], want.reshape(got[i].shape), err_msg="image %d" % i)

    def _capture_and_replay(self, mode, call, xs, rng):
        """Warm-up on a side stream, capture, new data into xs, replay: the replayed result."""
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            xs.copy_(torch.from_numpy(rng.integers(0, 256, xs.shape, dtype=np.uint8)))
            call()
        torch.cuda.current_stream().wait_stream(s)
        torch.cuda.synchronize()
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g, capture_error_mode=mode):
            result = call()
        host = rng.integers(0, 256, xs.shape, dtype=np.uint8)
        xs.copy_(torch.from_numpy(host))
        g.replay()
        torch.cuda.synchronize()
        return host, result, g

    def test_captured_batch_replays_exactly_in_every_mode(self):
        modes = _capture_modes()
        if not modes:
            self.skipTest("this PyTorch has no capture_error_mode (PyTorch 2.1 and later)")
        rng = np.random.default_rng(15)
        sigmas = [0.4 + 0.35 * i for i in range(8)]              # Python floats: read on the host
        for mode in modes:
            with self.subTest(mode=mode, case="stacked, out="):
                xs = torch.empty((8, 64, 48, 3), dtype=torch.uint8, device="cuda")
                ys = torch.empty_like(xs)
                host, result, _ = self._capture_and_replay(
                    mode, lambda: cit.gaussian_blur_batch(xs, sigmas, out=ys), xs, rng)
                self.assertIs(result, ys)
                self._check(host, ys.cpu().numpy(), sigmas)
            with self.subTest(mode=mode, case="out=None (graph pool)"):
                xs = torch.empty((8, 33, 40, 1), dtype=torch.uint8, device="cuda")
                host, result, g = self._capture_and_replay(mode, lambda: cit.gaussian_blur_batch(xs, sigmas), xs, rng)
                self._check(host, result.cpu().numpy(), sigmas)
            with self.subTest(mode=mode, case="NCHW, per-image ksize"):
                xs = torch.empty((4, 3, 30, 31), dtype=torch.uint8, device="cuda")
                ys = torch.empty_like(xs)
                ks = [(0, 0)] * 4
                host, _, _ = self._capture_and_replay(
                    mode, lambda: cit.gaussian_blur_batch(xs, sigmas[:4], ksize=ks, layout="NCHW", out=ys), xs, rng)
                self._check(host, ys.cpu().numpy(), sigmas[:4], "NCHW")
            with self.subTest(mode=mode, case="images apart (a list of views)"):
                big = torch.empty((16, 40, 40, 3), dtype=torch.uint8, device="cuda")
                xs = big[::2]
                ys = torch.empty((8, 40, 40, 3), dtype=torch.uint8, device="cuda")

                g, _ = capture_torch_graph(lambda: cit.gaussian_blur_batch(xs, sigmas, out=ys), capture_error_mode=mode)
                host = rng.integers(0, 256, xs.shape, dtype=np.uint8)
                xs.copy_(torch.from_numpy(host))
                g.replay()
                torch.cuda.synchronize()
                self._check(host, ys.cpu().numpy(), sigmas)

    def test_a_sigma_on_the_device_is_refused_during_capture(self):
        modes = _capture_modes() or [None]
        xs = torch.zeros((4, 16, 16, 3), dtype=torch.uint8, device="cuda")
        ys = torch.empty_like(xs)
        sig = torch.tensor([0.5, 1.0, 1.5, 2.0], device="cuda")
        cit.gaussian_blur_batch(xs, sig, out=ys)                 # outside capture: read back, fine
        torch.cuda.synchronize()
        for mode in modes:
            with self.subTest(mode=mode):
                g = torch.cuda.CUDAGraph()
                kwargs = {} if mode is None else {"capture_error_mode": mode}
                with self.assertRaisesRegex(RuntimeError, "sigma is a CUDA array and the current stream is being "
                                                          "captured"):
                    with torch.cuda.graph(g, **kwargs):
                        cit.gaussian_blur_batch(xs, sig, out=ys)
                torch.cuda.synchronize()                          # the capture ended cleanly
        rng = np.random.default_rng(16)
        host = rng.integers(0, 256, xs.shape, dtype=np.uint8)
        xs.copy_(torch.from_numpy(host))
        cit.gaussian_blur_batch(xs, sig, out=ys)
        torch.cuda.synchronize()
        self._check(host, ys.cpu().numpy(), sig.tolist())
        host_sig = sig.cpu().numpy()
        with torch.cuda.graph(torch.cuda.CUDAGraph()):            # a host array is fine during capture
            cit.gaussian_blur_batch(xs, host_sig, out=ys)


if __name__ == "__main__":
    unittest.main()
