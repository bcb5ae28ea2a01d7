#!/usr/bin/env python3
"""cv2.cuda.GaussianBlur / cv2.cuda.createGaussianBlur against cv2.GaussianBlur (values, not shapes)."""
import unittest

import numpy as np
import cv2

from cudaimage_test_support import gpu_available


def cpu_gaussian(src, ksize, sigma_x, sigma_y, border):
    """cv2.GaussianBlur, or for BORDER_WRAP (which it rejects) the blur of the wrap-padded image."""
    if border != cv2.BORDER_WRAP:
        return cv2.GaussianBlur(src, ksize, sigma_x, sigmaY=sigma_y, borderType=border)
    rx, ry = ksize[0] // 2, ksize[1] // 2
    padded = cv2.copyMakeBorder(src, ry, ry, rx, rx, cv2.BORDER_WRAP)
    out = cv2.GaussianBlur(padded, ksize, sigma_x, sigmaY=sigma_y, borderType=cv2.BORDER_REPLICATE)
    return out[ry:ry + src.shape[0], rx:rx + src.shape[1]]


class GaussianBlurBindingTest(unittest.TestCase):
    def test_bindings_exist_and_have_docstrings(self):
        for name in ("GaussianBlur", "createGaussianBlur"):
            fn = getattr(cv2.cuda, name)
            self.assertIn("GaussianBlur", fn.__doc__ or "", name)

    def test_bad_arguments_raise_before_touching_the_gpu(self):
        with self.assertRaises(cv2.error) as ctx:
            cv2.cuda.createGaussianBlur(cv2.CV_8UC1, -1, (4, 3), 1.0)
        self.assertIn("ksize.width is 4", str(ctx.exception))
        with self.assertRaises(cv2.error):
            cv2.cuda.createGaussianBlur(cv2.CV_8SC1, -1, (3, 3), 1.0)
        with self.assertRaises(cv2.error):
            cv2.cuda.createGaussianBlur(cv2.CV_8UC1, -1, (0, 0), -1.0)
        with self.assertRaises(cv2.error):
            cv2.cuda.createGaussianBlur(cv2.CV_8UC1, -1, (3, 3), float("nan"))

    def test_kernel_size_from_sigma(self):
        # The C++ tests check gaussianKernelSize against cv2.GaussianBlur's own choice; here the binding.
        self.assertIn("GaussianBlur", cv2.cuda.gaussianKernelSize.__doc__ or "")
        self.assertEqual(13, cv2.cuda.gaussianKernelSize(2.0))                     # 8-bit: 3 sigma a side
        self.assertEqual(13, cv2.cuda.gaussianKernelSize(2.0, cv2.CV_8U))
        self.assertEqual(17, cv2.cuda.gaussianKernelSize(2.0, cv2.CV_16U))         # others: 4 sigma a side
        self.assertEqual(17, cv2.cuda.gaussianKernelSize(sigma=2.0, depth=cv2.CV_32F))
        self.assertEqual(3, cv2.cuda.gaussianKernelSize(0.25))                     # 2.5 rounds to even, | 1
        self.assertEqual(1, cv2.cuda.gaussianKernelSize(0.05, cv2.CV_64F))
        for args, words in (((0.0,), ["sigma is 0", "> 0"]), ((float("nan"),), ["sigma is nan", "finite"]),
                            ((2e5,), ["sigma is 200000", "kernel size 1200001"]),
                            ((2.0, cv2.CV_8S), ["depth is 1"]), ((2.0, cv2.CV_8UC3), ["not a type"])):
            with self.assertRaises(cv2.error) as ctx:
                cv2.cuda.gaussianKernelSize(*args)
            for w in words:
                self.assertIn(w, str(ctx.exception), args)


@unittest.skipUnless(gpu_available(), "needs a CUDA device (cv2.cuda.getCudaEnabledDeviceCount() < 1)")
class GaussianBlurGpuTest(unittest.TestCase):
    def setUp(self):
        self.rng = np.random.default_rng(2024)

    def _random(self, shape, dtype):
        if np.issubdtype(dtype, np.integer):
            info = np.iinfo(dtype)
            return self.rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=dtype)
        return (self.rng.random(shape) * 2000 - 1000).astype(dtype)

    def test_one_shot_errors_name_its_own_parameters(self):
        """cv2.cuda.GaussianBlur reports src's type and borderType as it names them, not as the
        createGaussianBlur it calls does (srcType, rowBorderMode). On a GPU only: OpenCV's generated
        binding evaluates the stream's default, Stream::Null(), before it reads the arguments, and
        without a driver that ends the process (the C++ tests check the same messages without a
        GPU: CudaImage_BadInput.oneshot_*)."""
        for image, args, kwargs, words in (
                (np.zeros((4, 4), np.uint8), ((3, 3), 1.0), {"borderType": 99},
                 ["cv::cuda::GaussianBlur: borderType is 99; allowed: BORDER_CONSTANT (0)", "BORDER_WRAP (3)"]),
                (np.zeros((4, 4), np.uint8), ((3, 3), 1.0), {"borderType": -1}, ["cv::cuda::GaussianBlur: borderType is -1;"]),
                (np.zeros((4, 4, 3), np.int8), ((3, 3), 1.0), {},
                 ["cv::cuda::GaussianBlur: src type is CV_8SC3; allowed: depth CV_8U"]),
                (np.zeros((4, 4), np.uint16), ((4, 3), 1.0), {}, ["cv::cuda::GaussianBlur: ksize.width is 4; allowed: "]),
                (np.zeros((4, 4), np.float32), ((3, 3), 1.0), {"sigmaY": float("inf")},
                 ["cv::cuda::GaussianBlur: sigmaY is inf"])):
            g = cv2.cuda.GpuMat()
            g.upload(image)
            with self.assertRaises(cv2.error) as ctx:
                cv2.cuda.GaussianBlur(g, *args, **kwargs)
            message = str(ctx.exception)
            for w in words:
                self.assertIn(w, message, kwargs)
            for other in ("createGaussianBlur", "rowBorderMode", "srcType"):
                self.assertNotIn(other, message, kwargs)

    def test_one_shot_is_bit_exact_for_8u_and_16u(self):
        for dtype in (np.uint8, np.uint16):
            for shape in ((480, 640), (480, 640, 3), (97, 113, 4)):
                for sigma in (0.8, 2.0, 7.5):
                    src = self._random(shape, dtype)
                    expected = cv2.GaussianBlur(src, (0, 0), sigma, borderType=cv2.BORDER_REPLICATE)
                    g = cv2.cuda.GpuMat()
                    g.upload(src)
                    out = cv2.cuda.GaussianBlur(g, (0, 0), sigma).download()
                    np.testing.assert_array_equal(out, expected, err_msg=f"{dtype} {shape} sigma={sigma}")

    def test_filter_object_with_borders_and_float_types(self):
        for dtype, tol in ((np.int16, 1), (np.float32, 1e-2), (np.float64, 1e-9)):
            src = self._random((200, 300, 3), dtype)
            for border in (cv2.BORDER_REFLECT_101, cv2.BORDER_REFLECT, cv2.BORDER_WRAP, cv2.BORDER_CONSTANT):
                expected = cpu_gaussian(src, (9, 15), 2.0, 3.0, border)
                g = cv2.cuda.GpuMat()
                g.upload(src)
                f = cv2.cuda.createGaussianBlur(g.type(), -1, (9, 15), 2.0, 3.0, border)
                out = f.apply(g).download()
                np.testing.assert_allclose(out.astype(np.float64), expected.astype(np.float64), atol=tol,
                                           err_msg=f"{dtype} border={border}")

    def test_stream_and_float_output(self):
        src = self._random((256, 256), np.uint8)
        stream = cv2.cuda.Stream()
        g = cv2.cuda.GpuMat()
        g.upload(src, stream)
        f = cv2.cuda.createGaussianBlur(cv2.CV_8UC1, cv2.CV_32FC1, (0, 0), 3.0)
        out = f.apply(g, stream=stream)
        host = out.download(stream)
        stream.waitForCompletion()
        expected = cv2.GaussianBlur(src, (0, 0), 3.0, borderType=cv2.BORDER_REPLICATE)
        self.assertEqual(host.dtype, np.float32)
        np.testing.assert_array_equal(np.floor(host.astype(np.float64) + 0.5).astype(np.uint8), expected)


if __name__ == "__main__":
    unittest.main()
