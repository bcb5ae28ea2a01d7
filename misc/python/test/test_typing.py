#!/usr/bin/env python3
"""cv2's typing stubs (made by OpenCV's generator: scripts/build/cv2_typing_stubs.py) and mypy --strict
on the Python samples and on misc/python/typing/typed_usage.py (every public name of cudaimage's
Python API); a wrong call, such as a str passed as sigma, must make mypy fail. No GPU needed (mypy
reads the stubs; cv2 is not imported). Skipped, saying why, when mypy is not installed
(scripts/build/python-requirements.txt pins it) or the cv2 found has no stubs.
"""
import importlib.util
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import unittest

from cudaimage_test_support import find_samples

HERE = os.path.dirname(os.path.abspath(__file__))
TYPING_DIR = os.path.normpath(os.path.join(HERE, "..", "typing"))      # misc/python/typing
GLUE = os.path.normpath(os.path.join(HERE, "..", "pyopencv_cudaimage.hpp"))
SAMPLES = find_samples("blur_demo.py")


def cv2_package():
    """The folder of the cv2 package Python would import (without importing it), or None."""
    spec = importlib.util.find_spec("cv2")
    if spec is None or not spec.submodule_search_locations:
        return None
    return list(spec.submodule_search_locations)[0]


CV2 = cv2_package()
STUBS = CV2 is not None and os.path.isfile(os.path.join(CV2, "py.typed")) \
    and os.path.isfile(os.path.join(CV2, "cuda", "__init__.pyi"))
NO_STUBS = "cv2 (%s) has no typing stubs (py.typed, cuda/__init__.pyi): scripts/build/build-module.sh " \
           "makes them" % CV2
HAS_MYPY = importlib.util.find_spec("mypy") is not None


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def stub_class(text, name):
    """The body of `class name` in a stub file (up to the next top-level statement)."""
    m = re.search(r"^class %s\b.*?:\n(.*?)(?=^\S)" % re.escape(name), text, re.M | re.S)
    return m.group(1) if m else None


@unittest.skipUnless(STUBS, NO_STUBS)
class StubFilesTest(unittest.TestCase):
    """What the stubs hold, read as text."""

    @classmethod
    def setUpClass(cls):
        cls.cuda = read(os.path.join(CV2, "cuda", "__init__.pyi"))
        cls.top = read(os.path.join(CV2, "__init__.pyi"))

    def test_cuda_names(self):
        for name in ("SyncedMat", "GpuMat", "Stream", "Event", "DeviceInfo", "Filter", "TransferStats"):
            self.assertIsNotNone(stub_class(self.cuda, name), "class %s missing from cv2/cuda/__init__.pyi" % name)
        for name in ("createGaussianBlur", "GaussianBlur", "applyFilter", "applyFilterInPlace",
                     "processBatchGaussian", "getCudaEnabledDeviceCount", "syncedMatHostView"):
            self.assertRegex(self.cuda, r"(?m)^def %s\(" % name, "cv2.cuda.%s missing from the stubs" % name)

    def test_device_sigma_method(self):
        body = stub_class(self.cuda, "GaussianBatchFilter")
        self.assertIsNotNone(body, "class GaussianBatchFilter missing from cv2/cuda/__init__.pyi")
        self.assertRegex(body, r"def applyStackedDeviceSigma\(self, src: GpuMat, dst: GpuMat, imageRows: int, "
                               r"sigmaX: GpuMat, sigmaY: GpuMat, ksize: cv2\.typing\.Size")

    def test_sigma_is_float(self):
        self.assertRegex(self.cuda, r"(?m)^def createGaussianBlur\(srcType: int, dstType: int, "
                                    r"ksize: cv2\.typing\.Size, sigmaX: float, sigmaY: float = \.\.\.")

    def test_cudaimage_reexported(self):
        # The loader imports cv2.cudaimage with cv2: `import cv2; cv2.cudaimage.device_name()` type-checks.
        self.assertIn("from cv2 import cudaimage as cudaimage", self.top)
        self.assertTrue(os.path.isfile(os.path.join(CV2, "cudaimage", "__init__.py")))

    @unittest.skipUnless(os.path.isfile(GLUE), "misc/python/pyopencv_cudaimage.hpp not found next to the tests")
    def test_glue_methods_declared(self):
        """Every method the hand-written glue adds to a cv2 class is in that class's stub."""
        glue = read(GLUE)
        tables = re.findall(r"#define PYOPENCV_EXTRA_METHODS_cuda_(\w+) \\\n(.*?)\n\n", glue, re.S)
        self.assertTrue(tables, "no PYOPENCV_EXTRA_METHODS_cuda_* table in %s" % GLUE)
        for cls, table in tables:
            body = stub_class(self.cuda, cls)
            self.assertIsNotNone(body, "class %s missing from the stubs" % cls)
            methods = re.findall(r'\{"(\w+)",', table)
            self.assertTrue(methods, cls)
            for method in methods:
                self.assertRegex(body, r"def %s\(" % re.escape(method),
                                 "cv2.cuda.%s.%s (added by %s) is not in the stubs: add it to GLUE_METHODS of "
                                 "scripts/build/cv2_typing_stubs.py" % (cls, method, os.path.basename(GLUE)))


@unittest.skipUnless(HAS_MYPY, "mypy is not installed in this Python (scripts/build/python-requirements.txt "
                               "pins it: bash scripts/build/python-env.sh)")
@unittest.skipUnless(STUBS, NO_STUBS)
@unittest.skipUnless(os.path.isfile(os.path.join(TYPING_DIR, "typed_usage.py")),
                     "misc/python/typing/typed_usage.py not found next to the tests")
class MypyStrictTest(unittest.TestCase):

    def mypy(self, *files):
        """mypy with misc/python/typing/mypy.ini (strict) on files, seeing the cv2 under test: (status, output)."""
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([os.path.dirname(CV2)] + [p for p in [env.get("PYTHONPATH")] if p])
        cache = os.path.join(tempfile.gettempdir(), "cudaimage-mypy-cache-%d" % os.getuid())
        cmd = [sys.executable, "-m", "mypy", "--config-file", os.path.join(TYPING_DIR, "mypy.ini"),
               "--cache-dir", cache, "--no-color-output", "--show-error-codes"] + list(files)
        proc = subprocess.run(cmd, env=env, cwd=tempfile.gettempdir(), stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, universal_newlines=True, timeout=600)
        return proc.returncode, proc.stdout

    def test_typed_usage_and_samples(self):
        files = [os.path.join(TYPING_DIR, "typed_usage.py")]
        if SAMPLES is not None:
            files += sorted(os.path.join(SAMPLES, "python", n) for n in os.listdir(os.path.join(SAMPLES, "python"))
                            if n.endswith(".py"))
        status, out = self.mypy(*files)
        self.assertEqual(status, 0, "mypy --strict failed:\n" + out)
        self.assertIn("Success: no issues found in %d source files" % len(files), out)

    def test_wrong_calls_fail(self):
        """Each line marked `# wrong` is a call with a wrong argument type; mypy must report each,
        and nothing else."""
        code = textwrap.dedent('''\
            import dask.array as da
            import numpy as np
            import cv2
            import cv2.cudaimage.dask
            import cv2.cudaimage.transforms

            image = np.zeros((4, 4), np.uint8)
            blur = cv2.cuda.createGaussianBlur(cv2.CV_8UC1, -1, (0, 0), 2.0)
            g = cv2.cuda.GpuMat()
            m = cv2.cuda.SyncedMat(image)
            cv2.cuda.createGaussianBlur(cv2.CV_8UC1, -1, (0, 0), "2.0")  # wrong: sigma as str
            cv2.cuda.GaussianBlur(g, (0, 0), "2.0")  # wrong
            cv2.cuda.processBatchGaussian([image], (0, 0), "2.0")  # wrong
            cv2.cuda.applyFilter(blur, g, g)  # wrong: GpuMat for SyncedMat
            m.deviceArray(readonly="yes")  # wrong
            cv2.cudaimage.device_name("0")  # wrong
            cv2.cudaimage.dask.gaussian_blur(da.zeros((4, 4)), (0, 0), "2.0")  # wrong
            cv2.cudaimage.transforms.GaussianBlur("3")  # wrong: kernel_size as str
            cv2.cudaimage.transforms.RandomGaussianBlur(3, (0.1, 2.0), p="0.5")  # wrong
            cv2.cudaimage.transforms.GaussianBlur(3, device_sigma="yes")  # wrong: device_sigma as str
            ''')
        wrong = [i + 1 for i, line in enumerate(code.splitlines()) if "# wrong" in line]
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "wrong_calls.py")
            with open(path, "w") as f:
                f.write(code)
            status, out = self.mypy(path)
        self.assertEqual(status, 1, "mypy should fail on the wrong calls:\n" + out)
        flagged = sorted({int(n) for n in re.findall(r"wrong_calls\.py:(\d+): error:", out)})
        self.assertEqual(flagged, wrong, "lines mypy flagged vs lines with a wrong call:\n" + out)


if __name__ == "__main__":
    unittest.main()
