#!/usr/bin/env python3
"""The C++ samples (samples/cpp/*.cpp) and the command-line tool cudaimage-blur, run as programs and
checked by their output files and messages against cv2 (values, not only exit codes).

Where the programs are found (the first that exists):
* tool: $CUDAIMAGE_BLUR_TOOL; the GPU bundle's bin/ ($CUDAIMAGE_BUNDLE, set by run-all.sh); the
  module build's bin/ next to the imported cv2 ($OPENCV_BUILD/bin); build-standalone/ of the
  repository;
* samples: $CUDAIMAGE_SAMPLES_BIN; the bundle's bin/samples/; build-standalone/samples/ (the samples
  are built by the standalone build only).
A test whose program is not found is skipped, saying so.

Without a CUDA device the samples run their CPU part and exit 77 (checked), and the tool's GPU path
must fail with a clear message; the tool's --cpu path and its command-line errors need no GPU.
"""
import os
import subprocess
import tempfile
import unittest

import numpy as np
import cv2

from cudaimage_test_support import gpu_available

HERE = os.path.dirname(os.path.abspath(__file__))
SKIPPED = 77


def _ancestors(d, levels=5):
    for _ in range(levels):
        yield d
        d = os.path.dirname(d)


def _first_executable(candidates):
    for c in candidates:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


def find_tool():
    bundle = os.environ.get("CUDAIMAGE_BUNDLE")
    cv2_dir = os.path.dirname(os.path.abspath(cv2.__file__))          # .../python_loader/cv2
    candidates = [os.environ.get("CUDAIMAGE_BLUR_TOOL"),
                  bundle and os.path.join(bundle, "bin", "cudaimage-blur")]
    candidates += [os.path.join(d, "bin", "cudaimage-blur") for d in _ancestors(cv2_dir, 4)]
    candidates += [os.path.join(d, "build-standalone", "cudaimage-blur") for d in _ancestors(HERE)]
    return _first_executable(candidates)


def find_samples_bin():
    bundle = os.environ.get("CUDAIMAGE_BUNDLE")
    candidates = [os.environ.get("CUDAIMAGE_SAMPLES_BIN"), bundle and os.path.join(bundle, "bin", "samples")]
    candidates += [os.path.join(d, "build-standalone", "samples") for d in _ancestors(HERE)]
    for c in candidates:
        if c and os.path.isdir(c):
            return c
    return None


def find_test_image():
    for d in _ancestors(HERE):
        p = os.path.join(d, "samples", "data", "blur_test.png")
        if os.path.isfile(p):
            return p
    return None


TOOL = find_tool()
SAMPLES_BIN = find_samples_bin()
TEST_IMAGE = find_test_image()


def run(cmd, timeout=600):
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                          timeout=timeout)
    return proc.returncode, proc.stdout, proc.stderr


def cpu_blur(img, sigma, border, ksize=(0, 0)):
    """What cudaimage computes: cv2.GaussianBlur, with WRAP through copyMakeBorder (which
    cv2.GaussianBlur rejects)."""
    if border != cv2.BORDER_WRAP:
        return cv2.GaussianBlur(img, ksize, sigma, sigmaY=sigma, borderType=border)
    depth = {np.dtype(np.uint8): cv2.CV_8U, np.dtype(np.uint16): cv2.CV_16U}[img.dtype]   # the tests' images
    k = ksize[0] or cv2.cuda.gaussianKernelSize(sigma, depth)
    r = k // 2
    padded = cv2.copyMakeBorder(img, r, r, r, r, cv2.BORDER_WRAP)
    out = cv2.GaussianBlur(padded, (k, k), sigma, sigmaY=sigma, borderType=cv2.BORDER_REPLICATE)
    return out[r:r + img.shape[0], r:r + img.shape[1]]


@unittest.skipIf(TOOL is None, "cudaimage-blur not found (module build: scripts/build/build-module.sh; or set CUDAIMAGE_BLUR_TOOL)")
@unittest.skipIf(TEST_IMAGE is None, "samples/data/blur_test.png not found")
class BlurToolTest(unittest.TestCase):
    BORDERS = {"replicate": cv2.BORDER_REPLICATE, "reflect101": cv2.BORDER_REFLECT_101,
               "reflect": cv2.BORDER_REFLECT, "wrap": cv2.BORDER_WRAP, "constant": cv2.BORDER_CONSTANT}

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.img = cv2.imread(TEST_IMAGE, cv2.IMREAD_COLOR)

    def tearDown(self):
        self.tmp.cleanup()

    def out(self, name="out.png"):
        return os.path.join(self.tmp.name, name)

    def blur(self, *args, input_path=None, expect_rc=0):
        rc, out, err = run([TOOL, input_path or TEST_IMAGE, self.out()] + list(args))
        self.assertEqual(rc, expect_rc, "cudaimage-blur %s: exit %d\n%s%s" % (" ".join(args), rc, out, err))
        return out, err

    def test_help(self):
        rc, out, err = run([TOOL, "--help"])
        self.assertEqual(rc, 0, err)
        for text in ("usage: cudaimage-blur IN OUT --sigma S", "--ksize", "--border", "reflect101",
                     "--cpu", "--bench", "exit status"):
            self.assertIn(text, out)

    def test_bad_command_lines_exit_2(self):
        cases = [([], "expected IN and OUT"),
                 ([TEST_IMAGE, self.out()], "--sigma is required"),
                 ([TEST_IMAGE, self.out(), "--sigma", "abc"], "--sigma needs a finite number, got 'abc'"),
                 ([TEST_IMAGE, self.out(), "--sigma", "-1"], "must be >= 0"),
                 ([TEST_IMAGE, self.out(), "--sigma", "0"], "--sigma 0 needs --ksize"),
                 ([TEST_IMAGE, self.out(), "--sigma", "2", "--ksize", "4"], "--ksize must be 0 or odd, got '4'"),
                 ([TEST_IMAGE, self.out(), "--sigma", "2", "--border", "mirror"], "--border must be replicate, reflect101"),
                 ([TEST_IMAGE, self.out(), "--sigma", "2", "--frobnicate"], "unknown option '--frobnicate'"),
                 ([TEST_IMAGE, self.out(), "--sigma"], "--sigma needs a value"),
                 ([TEST_IMAGE, self.out("out.nosuchformat"), "--sigma", "2"], "no image format")]
        for args, message in cases:
            rc, out, err = run([TOOL] + args)
            self.assertEqual(rc, 2, "%s: exit %d, %s" % (args, rc, err))
            self.assertIn("cudaimage-blur: error: ", err)
            self.assertIn(message, err, args)
            self.assertIn("--help", err)
            self.assertEqual(out, "")
            self.assertFalse(os.path.exists(self.out()))

    def test_io_failures_exit_1(self):
        missing = os.path.join(self.tmp.name, "missing.png")
        _, err = self.blur("--sigma", "2", "--cpu", input_path=missing, expect_rc=1)
        self.assertIn("cannot open '%s'" % missing, err)
        not_image = os.path.join(self.tmp.name, "text.png")
        with open(not_image, "w") as f:
            f.write("not an image\n")
        _, err = self.blur("--sigma", "2", "--cpu", input_path=not_image, expect_rc=1)
        self.assertIn("cannot read '%s' as an image" % not_image, err)
        rc, _, err = run([TOOL, TEST_IMAGE, os.path.join(self.tmp.name, "no", "such", "dir.png"), "--sigma", "2", "--cpu"])
        self.assertEqual(rc, 1, err)
        self.assertIn("cannot write", err)

    def test_cpu_values_every_border(self):
        for name, border in self.BORDERS.items():
            out, _ = self.blur("--sigma", "2", "--border", name, "--cpu")
            self.assertIn("on CPU", out)
            got = cv2.imread(self.out(), cv2.IMREAD_UNCHANGED)
            np.testing.assert_array_equal(got, cpu_blur(self.img, 2.0, border), name)

    def test_cpu_16bit_grey_ksize_quiet(self):
        grey16 = (cv2.cvtColor(self.img, cv2.COLOR_BGR2GRAY).astype(np.uint16) * 257)
        path = self.out("grey16.png")
        self.assertTrue(cv2.imwrite(path, grey16))
        out, _ = self.blur("--sigma", "1.5", "--ksize", "9", "--cpu", "-q", input_path=path)
        self.assertEqual(out, "")
        got = cv2.imread(self.out(), cv2.IMREAD_UNCHANGED)
        self.assertEqual(got.dtype, np.uint16)
        np.testing.assert_array_equal(got, cv2.GaussianBlur(grey16, (9, 9), 1.5, borderType=cv2.BORDER_REPLICATE))

    def test_cpu_bench(self):
        out, _ = self.blur("--sigma", "2", "--cpu", "--bench", "2")
        self.assertRegex(out, r"cv::GaussianBlur +[0-9.]+ ms +[0-9.]+ Mpixel/s +[0-9.]+ GB/s")

    def test_gpu(self):
        if not gpu_available():
            _, err = self.blur("--sigma", "2", expect_rc=1)
            self.assertRegex(err, r"no CUDA (driver|device) \(use --cpu")
            self.skipTest("no CUDA device: GPU path refused as expected")
        for name, border in self.BORDERS.items():
            out, _ = self.blur("--sigma", "2", "--border", name)
            self.assertIn("on GPU ", out)
            got = cv2.imread(self.out(), cv2.IMREAD_UNCHANGED)
            np.testing.assert_array_equal(got, cpu_blur(self.img, 2.0, border), name)   # 8-bit: bit-exact
        out, _ = self.blur("--sigma", "3", "--bench", "5")
        self.assertRegex(out, r"blur on the device \(data resident\) +[0-9.]+ ms .* GB/s")
        self.assertRegex(out, r"upload \+ blur \+ download \(pinned memory\) +[0-9.]+ ms")
        # 1 + 5 uploads of the source, 1 + 5 downloads of the result.
        self.assertIn("transfers: 6 uploads", out)
        self.assertIn("6 downloads", out)


@unittest.skipIf(SAMPLES_BIN is None, "C++ samples not built (scripts/build/build-standalone.sh; or set CUDAIMAGE_SAMPLES_BIN)")
@unittest.skipIf(TEST_IMAGE is None, "samples/data/blur_test.png not found")
class CppSamplesTest(unittest.TestCase):
    def sample(self, name, *args):
        exe = os.path.join(SAMPLES_BIN, name)
        if not os.access(exe, os.X_OK):
            self.skipTest("%s not built" % exe)
        rc, out, err = run([exe] + list(args))
        expected = 0 if gpu_available() else SKIPPED
        self.assertEqual(rc, expected, "%s: exit %d (expected %d)\n%s%s" % (name, rc, expected, out, err))
        return out

    def test_blur(self):
        img = cv2.imread(TEST_IMAGE, cv2.IMREAD_COLOR)
        with tempfile.TemporaryDirectory() as d:
            out = self.sample("blur", TEST_IMAGE, "--output-dir", d, "--repeats", "3")
            self.assertRegex(out, r"CPU cv::GaussianBlur: +[0-9.]+ ms per blur")
            if not gpu_available():
                self.assertIn("no CUDA device", out.splitlines()[0])
                return
            self.assertTrue(out.startswith("CUDA device: "), out)
            self.assertIn("transfers: src 1 upload(s), 0 download(s); dst 0 upload(s), 1 download(s)", out)
            self.assertIn("max |GPU - CPU| = 0, one-shot cv::cuda::GaussianBlur: 0", out)
            blurred = cv2.imread(os.path.join(d, "blurred.png"), cv2.IMREAD_UNCHANGED)
            np.testing.assert_array_equal(blurred, cv2.GaussianBlur(img, (0, 0), 2.0, borderType=cv2.BORDER_REPLICATE))
            side = cv2.imread(os.path.join(d, "side_by_side.png"), cv2.IMREAD_UNCHANGED)
            h, w = img.shape[:2]
            np.testing.assert_array_equal(side[-h:, :w], img)
            np.testing.assert_array_equal(side[-h:, w:], blurred)

    def test_pipeline(self):
        with tempfile.TemporaryDirectory() as d:
            result_path = os.path.join(d, "pipeline.png")
            out = self.sample("pipeline", TEST_IMAGE, "--output", result_path)
            self.assertIn("CPU chain: blur(sigma 1) -> sharpen 3x3 -> blur(sigma 2) done", out)
            if not gpu_available():
                return
            self.assertIn("OK: one upload, one download", out)
            self.assertRegex(out, r"transfers: 1 upload\(s\) .*, 1 download\(s\)")
            # The chain on the CPU, from the output file (PNG keeps BGRA).
            bgra = cv2.cvtColor(cv2.imread(TEST_IMAGE, cv2.IMREAD_COLOR), cv2.COLOR_BGR2BGRA)
            k = np.array([[0, -1, 0], [-1, 5, -1], [0, -1, 0]], np.float32)
            a = cv2.GaussianBlur(bgra, (0, 0), 1.0, borderType=cv2.BORDER_REPLICATE)
            a = cv2.filter2D(a, -1, k, borderType=cv2.BORDER_REPLICATE)
            a = cv2.GaussianBlur(a, (0, 0), 2.0, borderType=cv2.BORDER_REPLICATE)
            got = cv2.imread(result_path, cv2.IMREAD_UNCHANGED)
            self.assertEqual(got.shape, a.shape)
            self.assertLessEqual(int(np.abs(got.astype(np.int16) - a.astype(np.int16)).max()), 1)

    def test_video_blur(self):
        out = self.sample("video_blur", "--frames", "24", "--size", "320x240", "--input", TEST_IMAGE)
        if not gpu_available():
            self.assertIn("no CUDA device", out)
            return
        self.assertIn("check: first 8 frames of the pipelined path equal CPU cv::GaussianBlur", out)
        self.assertRegex(out, r"host->device [0-9.]+ GB/s, device->host [0-9.]+ GB/s")
        self.assertRegex(out, r"pipelined blur \(2 streams\): +[0-9.]+ fps")

    def test_help(self):
        for name in ("blur", "pipeline"):
            exe = os.path.join(SAMPLES_BIN, name)
            if os.access(exe, os.X_OK):
                rc, out, _ = run([exe, "--help"])
                self.assertEqual(rc, 0)
                self.assertIn("usage:", out)


if __name__ == "__main__":
    unittest.main()
