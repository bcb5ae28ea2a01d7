#!/usr/bin/env python3
"""Smoke tests of the Python samples, run as their users run them (a subprocess):

* samples/python/blur_demo.py on the test card into a temporary folder, through the GPU path when
  there is a CUDA device and the CPU path otherwise; checks the pictures' values (blurred equals
  cv2.GaussianBlur with the demo's arguments, and really is blurred; the OpenCV-drawn figure is
  original | blurred pixel for pixel) and, on a GPU, the printed transfer counts and exactness.
* samples/python/pipeline_cupy_torch.py: without a GPU its CPU chain runs and it says the GPU chain
  was skipped; with one, 1 upload, 1 download, zero-copy and the CPU chain's pixels (CuPy and
  PyTorch steps are skipped, with a message, where those packages are absent).

The samples are found from this file upwards (misc/python/test/ in the repository, python-tests/ in
the GPU bundle) or at $CUDAIMAGE_SAMPLES_DIR.
"""
import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np
import cv2

from cudaimage_test_support import find_samples, gpu_available, torch_cannot_run


SAMPLES = find_samples("blur_demo.py")


def run_sample(test, script, *args):
    """Runs samples/python/<script> with this test's interpreter and cv2; returns its output and
    fails the test on a non-zero exit status."""
    env = dict(os.environ)
    # The sample must import the cv2 this test imported, whichever way it was found.
    cv2_parent = os.path.dirname(os.path.dirname(os.path.abspath(cv2.__file__)))
    env["PYTHONPATH"] = os.pathsep.join([cv2_parent] + [p for p in [env.get("PYTHONPATH")] if p])
    cmd = [sys.executable, os.path.join(SAMPLES, "python", script)] + list(args)
    proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, timeout=300)
    test.assertEqual(proc.returncode, 0, "%s failed:\n%s" % (script, proc.stdout))
    return proc.stdout


@unittest.skipIf(SAMPLES is None, "samples/python/blur_demo.py not found (set CUDAIMAGE_SAMPLES_DIR)")
class BlurDemoTest(unittest.TestCase):
    SIGMA = 2.0

    def run_demo(self, outdir, *extra):
        return run_sample(self, "blur_demo.py", "--input", self.input_path, "--output-dir", outdir,
                          "--sigma", str(self.SIGMA), "--repeats", "2", *extra)

    def setUp(self):
        self.input_path = os.path.join(SAMPLES, "data", "blur_test.png")
        self.assertTrue(os.path.isfile(self.input_path), self.input_path)
        self.original = cv2.imread(self.input_path, cv2.IMREAD_COLOR)
        self.assertIsNotNone(self.original)

    def check_outputs(self, outdir, stdout, expect_label):
        blurred_path = os.path.join(outdir, "blurred.png")
        side_path = os.path.join(outdir, "side_by_side.png")
        for p in (blurred_path, side_path):
            self.assertTrue(os.path.isfile(p), "%s missing; output:\n%s" % (p, stdout))
        blurred = cv2.imread(blurred_path, cv2.IMREAD_UNCHANGED)
        side = cv2.imread(side_path, cv2.IMREAD_UNCHANGED)
        h, w = self.original.shape[:2]
        self.assertEqual(blurred.shape, self.original.shape)
        self.assertEqual(blurred.dtype, np.uint8)

        # Values: the demo's arguments (ksize from sigma, BORDER_REPLICATE) through CPU OpenCV.
        # 8-bit cudaimage is bit-exact with it; 1 level of slack keeps this a smoke test
        # (test_gaussian_blur.py checks exactness).
        expected = cv2.GaussianBlur(self.original, (0, 0), self.SIGMA, sigmaY=self.SIGMA,
                                    borderType=cv2.BORDER_REPLICATE)
        diff = np.abs(blurred.astype(np.int16) - expected.astype(np.int16))
        self.assertLessEqual(int(diff.max()), 1, "blurred.png differs from cv2.GaussianBlur")

        # Really blurred: differs from the input, and the 1-pixel stripes lose most of their contrast.
        self.assertGreater(float(np.mean(np.abs(blurred.astype(np.int16) - self.original.astype(np.int16)))), 1.0)
        lap_in = cv2.Laplacian(cv2.cvtColor(self.original, cv2.COLOR_BGR2GRAY), cv2.CV_64F).var()
        lap_out = cv2.Laplacian(cv2.cvtColor(blurred, cv2.COLOR_BGR2GRAY), cv2.CV_64F).var()
        self.assertLess(lap_out, 0.1 * lap_in)

        self.assertIn("path: " + expect_label, stdout)
        if "(OpenCV drawing)" in stdout:
            # Side by side: original | blurred, each under a label band of the same height.
            self.assertEqual(side.shape[1], 2 * w)
            self.assertGreater(side.shape[0], h)
            band = side.shape[0] - h
            np.testing.assert_array_equal(side[band:, :w], self.original)
            np.testing.assert_array_equal(side[band:, w:], blurred)
        else:
            # A matplotlib figure: a landscape colour picture, not a blank page.
            self.assertIn("(matplotlib)", stdout)
            self.assertEqual(side.ndim, 3)
            self.assertGreater(side.shape[1], side.shape[0])
            self.assertGreater(float(side.std()), 10.0)

        if expect_label.startswith("GPU"):
            self.assertIn("transfers for the first blur: 1 upload (%d bytes), 1 download (%d bytes)"
                          % (self.original.nbytes, self.original.nbytes), stdout)
            self.assertIn("identical to cv2.GaussianBlur: yes", stdout)
            self.assertRegex(stdout, r"CPU: +[0-9.]+ ms per blur \(cv2.GaussianBlur")

    def test_demo_default_path(self):
        gpu = gpu_available()
        with tempfile.TemporaryDirectory() as d:
            out = self.run_demo(d)
            if gpu:
                self.assertTrue(out.startswith("CUDA device: "), out)   # the device first
                self.assertNotRegex(out.splitlines()[0], r"CUDA device: (CUDA )?device \d", "no device name")
                self.check_outputs(d, out, "GPU cudaimage sigma=2")
            else:
                self.assertIn("no CUDA device: using the CPU path", out)
                self.check_outputs(d, out, "CPU cv2.GaussianBlur sigma=2 (no GPU)")

    def test_demo_cpu_flag(self):
        with tempfile.TemporaryDirectory() as d:
            out = self.run_demo(d, "--cpu")
            self.check_outputs(d, out, "CPU cv2.GaussianBlur sigma=2")

    def test_demo_opencv_figure(self):
        with tempfile.TemporaryDirectory() as d:
            out = self.run_demo(d, "--no-matplotlib")
            self.assertIn("(OpenCV drawing)", out)
            self.check_outputs(d, out, "GPU cudaimage sigma=2" if gpu_available() else
                               "CPU cv2.GaussianBlur sigma=2 (no GPU)")


@unittest.skipIf(SAMPLES is None, "samples/python/pipeline_cupy_torch.py not found (set CUDAIMAGE_SAMPLES_DIR)")
class PipelineCupyTorchTest(unittest.TestCase):
    def test_pipeline(self):
        if torch_cannot_run():   # the sample's PyTorch step would fail, not skip
            self.skipTest(torch_cannot_run())
        with tempfile.TemporaryDirectory() as d:
            result_path = os.path.join(d, "result.png")
            out = run_sample(self, "pipeline_cupy_torch.py", "--output", result_path)
            self.assertRegex(out, r"CuPy: (\d|skipped \()")
            self.assertRegex(out, r"PyTorch: (\d|skipped \()")
            self.assertIn("CPU chain: done", out)
            if not gpu_available():
                self.assertIn("no CUDA device: GPU chain skipped", out)
                self.assertFalse(os.path.exists(result_path))
                return
            self.assertTrue(out.startswith("CUDA device: "), out)
            self.assertIn("1. cudaimage blur (in place):            uploads 1", out)
            self.assertIn("transfers: OK", out)
            self.assertIn("zero-copy: CuPy and PyTorch used the SyncedMat's device memory", out)
            self.assertIn("matches the CPU chain: yes", out)
            self.assertNotIn("same memory: False", out)
            # Values: the sample's own check, repeated here from its output file for the
            # steps it ran (blur -> [255 - x] -> [rint(0.8 x)] -> blur, sigma 1.5, replicate).
            img = cv2.imread(os.path.join(SAMPLES, "data", "blur_test.png"), cv2.IMREAD_COLOR)
            a = cv2.GaussianBlur(img, (0, 0), 1.5, sigmaY=1.5, borderType=cv2.BORDER_REPLICATE)
            if "CuPy: skipped" not in out:
                a = 255 - a
            if "PyTorch: skipped" not in out:
                a = np.rint(a.astype(np.float32) * np.float32(0.8)).astype(np.uint8)
            a = cv2.GaussianBlur(a, (0, 0), 1.5, sigmaY=1.5, borderType=cv2.BORDER_REPLICATE)
            np.testing.assert_array_equal(cv2.imread(result_path, cv2.IMREAD_COLOR), a)


if __name__ == "__main__":
    unittest.main()
