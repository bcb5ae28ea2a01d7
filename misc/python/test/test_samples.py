#!/usr/bin/env python3
"""Smoke test of samples/python/blur_demo.py: runs it on the test card into a temporary folder,
through the GPU path when there is a CUDA device and the CPU path otherwise, and checks the
pictures' values (blurred equals cv2.GaussianBlur with the demo's arguments, and really is blurred).

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


def find_samples():
    env = os.environ.get("CUDAIMAGE_SAMPLES_DIR")
    if env:
        return env
    d = os.path.dirname(os.path.abspath(__file__))
    for _ in range(5):
        candidate = os.path.join(d, "samples")
        if os.path.isfile(os.path.join(candidate, "python", "blur_demo.py")):
            return candidate
        d = os.path.dirname(d)
    return None


SAMPLES = find_samples()


@unittest.skipIf(SAMPLES is None, "samples/python/blur_demo.py not found (set CUDAIMAGE_SAMPLES_DIR)")
class BlurDemoTest(unittest.TestCase):
    SIGMA = 2.0

    def run_demo(self, outdir, *extra):
        env = dict(os.environ)
        # The demo must import the cv2 this test imported, whichever way it was found.
        cv2_parent = os.path.dirname(os.path.dirname(os.path.abspath(cv2.__file__)))
        env["PYTHONPATH"] = os.pathsep.join([cv2_parent] + [p for p in [env.get("PYTHONPATH")] if p])
        cmd = [sys.executable, os.path.join(SAMPLES, "python", "blur_demo.py"),
               "--input", self.input_path, "--output-dir", outdir, "--sigma", str(self.SIGMA),
               "--repeats", "2"] + list(extra)
        proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              universal_newlines=True, timeout=300)
        self.assertEqual(proc.returncode, 0, "blur_demo.py failed:\n" + proc.stdout)
        return proc.stdout

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

        # Side by side: original | blurred, each under a label band of the same height.
        self.assertEqual(side.shape[1], 2 * w)
        self.assertGreater(side.shape[0], h)
        band = side.shape[0] - h
        np.testing.assert_array_equal(side[band:, :w], self.original)
        np.testing.assert_array_equal(side[band:, w:], blurred)
        self.assertIn("path: " + expect_label, stdout)

    def test_demo_default_path(self):
        gpu = cv2.cuda.getCudaEnabledDeviceCount() > 0
        with tempfile.TemporaryDirectory() as d:
            out = self.run_demo(d)
            if gpu:
                self.assertIn("CUDA device:", out)
                self.check_outputs(d, out, "GPU cudaimage sigma=2")
            else:
                self.assertIn("no CUDA device: using the CPU path", out)
                self.check_outputs(d, out, "CPU cv2.GaussianBlur sigma=2 (no GPU)")

    def test_demo_cpu_flag(self):
        with tempfile.TemporaryDirectory() as d:
            out = self.run_demo(d, "--cpu")
            self.check_outputs(d, out, "CPU cv2.GaussianBlur sigma=2")


if __name__ == "__main__":
    unittest.main()
