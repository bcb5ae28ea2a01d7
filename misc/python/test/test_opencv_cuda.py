#!/usr/bin/env python3
"""The OpenCV our scripts build is whole: the expected version, and OpenCV's own NPP-backed CUDA
functions are real (built against NPP, not stubs that raise StsNotImplemented) and, with a GPU,
agree with their CPU counterparts. Also the device's name, which
cudaimage adds to cv2.cuda.DeviceInfo."""
import os
import unittest

import numpy as np
import cv2

from cudaimage_test_support import gpu_available, npp_cannot_run


# Functions that call NPP in OpenCV's cudaarithm / cudafilters.
NPP_BACKED = ("flip", "transpose", "threshold", "meanStdDev", "rectStdDev", "magnitude",
              "createBoxFilter", "createMorphologyFilter", "createBoxMaxFilter", "createBoxMinFilter",
              "createRowSumFilter", "createColumnSumFilter")


class OpenCVBuildTest(unittest.TestCase):
    def test_version_is_the_line_built(self):
        # scripts/test.sh says which line it built (OPENCV_LINE); otherwise one of the two we support.
        line = os.environ.get("CUDAIMAGE_OPENCV_LINE")
        if line:
            self.assertTrue(cv2.__version__.startswith(line + "."), (cv2.__version__, line))
        else:
            self.assertRegex(cv2.__version__, r"^(5\.[1-9]|4\.1[4-9])\.")

    def test_cuda_functions_exist(self):
        for name in ("createGaussianBlur", "GaussianBlur", "SyncedMat") + NPP_BACKED:
            self.assertTrue(hasattr(cv2.cuda, name), name)

    def test_built_with_cuda(self):
        info = cv2.getBuildInformation()
        self.assertRegex(info, r"NVIDIA CUDA:\s+YES")


class DeviceNameTest(unittest.TestCase):
    """cv2.cuda.DeviceInfo.name(), which cudaimage's cv2 glue adds (OpenCV does not wrap it), and
    cv2.cudaimage.device_name() on top of it."""

    def test_device_info_has_a_name_method(self):
        self.assertTrue(callable(getattr(cv2.cuda.DeviceInfo, "name", None)))
        self.assertIn("name()", cv2.cuda.DeviceInfo.name.__doc__)

    def test_an_index_without_a_device_is_refused(self):
        count = max(cv2.cuda.getCudaEnabledDeviceCount(), 0)
        for index in (-1, count, count + 5):
            with self.assertRaises(ValueError) as ctx:
                cv2.cudaimage.device_name(index)
            self.assertIn("index is %d" % index, str(ctx.exception))
            self.assertIn("no CUDA device" if count == 0 else "%d CUDA device(s)" % count, str(ctx.exception))
        with self.assertRaises(TypeError):
            cv2.cudaimage.device_name(0.0)

    @unittest.skipUnless(gpu_available(), "no CUDA device")
    def test_name_of_each_device(self):
        for index in range(cv2.cuda.getCudaEnabledDeviceCount()):
            name = cv2.cudaimage.device_name(index)
            self.assertIsInstance(name, str)
            self.assertRegex(name, r"\w")
            self.assertEqual(name, cv2.cuda.DeviceInfo(index).name())
        self.assertEqual(cv2.cudaimage.device_name(), cv2.cudaimage.device_name(0))


@unittest.skipUnless(gpu_available(), "no CUDA device")
class NppBackedFunctionsTest(unittest.TestCase):
    """Each against the CPU on random data (never zeros); tolerances as OpenCV's own tests."""

    def setUp(self):
        reason = npp_cannot_run()
        if reason:
            self.skipTest(reason)
        rng = np.random.default_rng(13)
        self.img = rng.integers(0, 256, (1031, 1024), dtype=np.uint8)
        self.g = cv2.cuda.GpuMat(self.img)

    def test_box_filter(self):
        f = cv2.cuda.createBoxFilter(cv2.CV_8UC1, -1, (5, 5))
        got = f.apply(self.g).download()
        want = cv2.blur(self.img, (5, 5))
        # NPP rounds the mean differently (at most 1 level; OpenCV's test allows it); borders
        # differ in handling, so the interior is compared.
        diff = np.abs(got[2:-2, 2:-2].astype(int) - want[2:-2, 2:-2])
        self.assertLessEqual(int(diff.max()), 1)

    def test_erode_and_dilate(self):
        kernel = np.ones((3, 3), np.uint8)
        for op, cpu in ((cv2.MORPH_ERODE, cv2.erode), (cv2.MORPH_DILATE, cv2.dilate)):
            f = cv2.cuda.createMorphologyFilter(op, cv2.CV_8UC1, kernel)
            got = f.apply(self.g).download()
            want = cpu(self.img, kernel)
            np.testing.assert_array_equal(got[1:-1, 1:-1], want[1:-1, 1:-1])

    def test_flip_transpose_threshold(self):
        for code in (0, 1, -1):
            np.testing.assert_array_equal(cv2.cuda.flip(self.g, code).download(), cv2.flip(self.img, code))
        np.testing.assert_array_equal(cv2.cuda.transpose(self.g).download(), self.img.T)
        _, got = cv2.cuda.threshold(self.g, 127, 255, cv2.THRESH_BINARY)
        _, want = cv2.threshold(self.img, 127, 255, cv2.THRESH_BINARY)
        np.testing.assert_array_equal(got.download(), want)

    def test_mean_std_dev(self):
        res = cv2.cuda.meanStdDev(self.g)
        # Depending on the binding: (mean, stddev) scalars, or one GpuMat / array [mean, stddev].
        if isinstance(res, tuple):
            got = [float(np.ravel(r)[0]) for r in res[:2]]
        else:
            got = list(np.ravel(res.download() if hasattr(res, "download") else res)[:2])
        want_mean, want_std = cv2.meanStdDev(self.img)
        self.assertAlmostEqual(got[0], float(want_mean[0, 0]), places=3)
        self.assertAlmostEqual(got[1], float(want_std[0, 0]), places=3)

if __name__ == "__main__":
    unittest.main()
