#!/usr/bin/env python3
"""`python -m cv2.cudaimage` (cv2.cudaimage.info), the self-check for bug reports: run as its users run
it (a subprocess with this test's interpreter and cv2), its output's lines and its exit status: 0
with a GPU (exactness and throughput included), the documented "no driver" (4) or "no GPU" (5)
without one, every version line printed either way. Also the rule that says whether a GPU runs a
library's machine code or JIT-compiles its PTX, and the fatbin reader (cv2.cudaimage._fatbin) on this
cv2's libraries and on made-up ones.
"""
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

import cv2
import cv2.cudaimage.info as info
from cv2.cudaimage import _fatbin

from cudaimage_test_support import gpu_available

KEYS = ("OpenCV", "cudaimage", "library", "Python", "CUDA runtime", "CUDA driver", "NPP", "device code", "GPUs",
        "result")


def self_check(*args):
    """Runs python -m cv2.cudaimage ARGS with this test's interpreter and cv2: (status, output)."""
    env = dict(os.environ)
    cv2_parent = os.path.dirname(os.path.dirname(os.path.abspath(cv2.__file__)))
    env["PYTHONPATH"] = os.pathsep.join([cv2_parent] + [p for p in [env.get("PYTHONPATH")] if p])
    proc = subprocess.run([sys.executable, "-m", "cv2.cudaimage"] + list(args), env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True, timeout=300)
    return proc.returncode, proc.stdout


def fields(output):
    """{key: [values]} of the output's `key: value` lines."""
    out = {}
    for line in output.splitlines()[1:]:
        key, sep, value = line.partition(":")
        if sep:
            out.setdefault(key.strip(), []).append(value.strip())
    return out


class SelfCheckRunTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.status, cls.output = self_check()
        cls.fields = fields(cls.output)

    def test_every_line_is_there(self):
        self.assertTrue(self.output.startswith("cudaimage self-check"), self.output)
        for key in KEYS:
            self.assertIn(key, self.fields, "no '%s:' line in:\n%s" % (key, self.output))

    def test_versions(self):
        self.assertTrue(self.fields["OpenCV"][0].startswith(cv2.__version__ + " ("), self.output)
        self.assertRegex(self.fields["CUDA runtime"][0], r"^\d+\.\d+ \(", self.output)
        self.assertRegex(self.fields["NPP"][0], r"^\d+\.\d+\.\d+ \(.*libnppc\.so", self.output)
        # the wheel adds a hash to the name: libopencv_cudaimage-<hash>.so.501
        self.assertRegex(self.fields["library"][0], r"libopencv_cudaimage(-[0-9a-f]+)?\.so", self.output)

    def test_device_code_of_cudaimage(self):
        lines = [v for v in self.fields["device code"] if v.startswith("libopencv_cudaimage")]
        self.assertEqual(len(lines), 1, self.output)
        self.assertRegex(lines[0], r": machine code (sm_\d+( |,)|none,).*PTX (compute_\d+|none)", self.output)
        self.assertNotIn("machine code none, PTX none", lines[0])

    def test_status_matches_the_result_line(self):
        result = self.fields["result"][-1]
        self.assertTrue(self.output.rstrip().splitlines()[-1].startswith("result:"), self.output)
        if self.status == 0:
            self.assertEqual(result, "OK", self.output)
        else:
            self.assertRegex(result, r"^FAILED \(exit %d\): \S" % self.status, self.output)

    @unittest.skipIf(gpu_available(), "this machine has a CUDA GPU")
    def test_without_gpu(self):
        # No driver (libcuda.so.1 missing): 4; a driver but no GPU visible: 5. Nothing was run.
        self.assertIn(self.status, (info.EXIT_NO_DRIVER, info.EXIT_NO_GPU), self.output)
        self.assertTrue(self.fields["GPUs"][0].startswith("none"), self.output)
        self.assertEqual(self.fields["checks"], ["skipped: no GPU to run them on"], self.output)
        if self.status == info.EXIT_NO_DRIVER:
            self.assertTrue(self.fields["CUDA driver"][0].startswith("not found"), self.output)
            self.assertIn("no CUDA driver", self.fields["result"][0])
        else:
            self.assertIn("no CUDA GPU visible", self.fields["result"][0])

    @unittest.skipUnless(gpu_available(), "no CUDA device")
    def test_with_gpu(self):
        self.assertEqual(self.status, 0, self.output)
        n = cv2.cuda.getCudaEnabledDeviceCount()
        self.assertEqual(self.fields["GPUs"], [str(n)], self.output)
        for i in range(n):
            self.assertRegex(self.fields["GPU %d" % i][0], r", sm_\d+ \(compute capability \d+\.\d+\), .*: runs ",
                             self.output)
            self.assertTrue(self.fields["exactness %d" % i][0].startswith("identical to CPU cv2.GaussianBlur"),
                            self.output)
            self.assertRegex(self.fields["throughput %d" % i][0], r"^\d+ GB/s ", self.output)


class SelfCheckOptionsTest(unittest.TestCase):

    def test_help(self):
        status, out = self_check("--help")
        self.assertEqual(status, 0, out)
        self.assertIn("--no-checks", out)

    def test_bad_option(self):
        status, out = self_check("--no-such-option")
        self.assertEqual(status, 2, out)

    def test_no_checks(self):
        status, out = self_check("--no-checks")
        f = fields(out)
        self.assertNotIn("exactness 0", f, out)
        if gpu_available():
            self.assertEqual(status, 0, out)
            self.assertEqual(f["checks"], ["skipped (--no-checks)"], out)
        else:
            self.assertIn(status, (info.EXIT_NO_DRIVER, info.EXIT_NO_GPU), out)


class DeviceCodeRuleTest(unittest.TestCase):
    """code_for(): machine code of the same major version and a minor not above the GPU's runs;
    otherwise the newest PTX not above the GPU's is JIT-compiled; otherwise nothing runs."""

    def code(self, sass, ptx):
        return info.DeviceCode("libx.so", tuple(sass), tuple(ptx))

    def test_machine_code(self):
        self.assertEqual(info.code_for(self.code([90], []), 90), ("sass", 90))
        self.assertEqual(info.code_for(self.code([75, 80, 86], []), 89), ("sass", 86))   # sm_86 runs on 8.9
        self.assertEqual(info.code_for(self.code([80, 90], [90]), 87), ("sass", 80))

    def test_ptx(self):
        self.assertEqual(info.code_for(self.code([90], [90]), 100), ("ptx", 90))         # other major: PTX
        self.assertEqual(info.code_for(self.code([86], [80]), 80), ("ptx", 80))          # sm_86 is above 8.0
        self.assertEqual(info.code_for(self.code([90], [75, 90]), 120), ("ptx", 90))     # newest not above

    def test_none(self):
        self.assertEqual(info.code_for(self.code([90], []), 100), ("none", 0))
        self.assertEqual(info.code_for(self.code([90], [90]), 86), ("none", 0))          # PTX 9.0 > 8.6
        self.assertEqual(info.code_for(self.code([], []), 90), ("none", 0))

    def test_force_ptx_jit(self):
        # CUDA_FORCE_PTX_JIT=1: the driver ignores machine code.
        self.assertEqual(info.code_for(self.code([90], [90]), 90, force_ptx=True), ("ptx", 90))
        self.assertEqual(info.code_for(self.code([90], []), 90, force_ptx=True), ("none", 0))


class FatbinReaderTest(unittest.TestCase):

    def test_this_cv2(self):
        libs = info.loaded_libraries()
        path = info.find_library(libs, "libopencv_cudaimage")
        self.assertIsNotNone(path, "libopencv_cudaimage is not loaded in this process")
        codes = {os.path.basename(c.library): c for c in info.device_code(libs)}
        name = os.path.basename(path)
        self.assertIn(name, codes)
        code = codes[name]
        self.assertTrue(code.sass or code.ptx, code)
        for a in code.sass + code.ptx:
            self.assertTrue(50 <= a <= 130, code)
        # OpenCV's own CUDA libraries of this tree hold the architectures its build information lists.
        build = cv2.getBuildInformation()
        m = re.search(r"NVIDIA GPU arch:[ \t]*([0-9 ]*)", build)
        core = codes.get(os.path.basename(info.find_library(libs, "libopencv_cudaarithm") or ""))
        if m and core is not None and m.group(1).split():
            self.assertEqual(sorted(int(a) for a in m.group(1).split()), list(core.sass), build)

    def test_synthetic_library(self):
        # Two containers (the second on an 8-byte boundary), then the zeros that pad the section.
        first = fatbin_container([(_fatbin.KIND_ELF, 90, 100), (_fatbin.KIND_PTX, 90, 50)])
        second = fatbin_container([(_fatbin.KIND_ELF, 75, 30)])
        section = first + bytes(-len(first) % 8) + second + bytes(24)
        entries = _fatbin.fatbin_entries(self.write(elf_with_section(b".nv_fatbin", section)))
        self.assertEqual([(e.name, e.size) for e in entries],
                         [("sm_90", ENTRY_HEADER + 100), ("compute_90", ENTRY_HEADER + 50), ("sm_75", ENTRY_HEADER + 30)])
        code = info.library_code(self.path)
        self.assertEqual((code.sass, code.ptx), ((75, 90), (90,)))

    def test_no_gpu_code(self):
        self.assertEqual(_fatbin.fatbin_entries(self.write(elf_with_section(b".rodata", bytes(64)))), [])

    def test_refused(self):
        not_fatbin = fatbin_container([(_fatbin.KIND_ELF, 90, 8)]) + b"not a fatbin"
        for data, why in ((b"", "not a 64-bit little-endian ELF"), (b"#!/bin/sh\n" * 8, "not a 64-bit little-endian ELF"),
                          (elf_with_section(b".nv_fatbin", not_fatbin), "no fatbin container at offset 88")):
            with self.subTest(why=why), self.assertRaisesRegex(ValueError, why):
                _fatbin.fatbin_entries(self.write(data))
        self.assertEqual(info.device_code([self.path]), [])   # the self-check skips what it cannot read

    def write(self, data):
        """Writes ``data`` to a temporary file libopencv_test.so; returns its path (self.path)."""
        folder = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, folder)
        self.path = os.path.join(folder, "libopencv_test.so")
        with open(self.path, "wb") as f:
            f.write(data)
        return self.path


ENTRY_HEADER = 64


def fatbin_container(entries):
    """A fatbin container of (kind, arch, payload size) entries, laid out as nvcc writes them."""
    body = b""
    for kind, arch, size in entries:
        header = struct.pack("<HHIQ", kind, 0, ENTRY_HEADER, size) + bytes(12) + struct.pack("<I", arch)
        body += header + bytes(ENTRY_HEADER - len(header)) + bytes(size)
    return struct.pack("<IHHQ", _fatbin.FATBIN_MAGIC, 1, 16, len(body)) + body


def elf_with_section(name, data):
    """A minimal 64-bit little-endian ELF image whose only sections are ``name`` (holding ``data``)
    and the section-name table."""
    names = b"\0" + name + b"\0.shstrtab\0"
    shoff = (64 + len(data) + len(names) + 7) & ~7
    header = b"\x7fELF\x02\x01\x01" + bytes(9) + struct.pack("<HHIQQQIHHHHHH", 3, 62, 1, 0, 0, shoff, 0, 64, 0, 0, 64, 3, 2)

    def section(name_at, offset, size):
        return struct.pack("<IIQQQQIIQQ", name_at, 1, 0, 0, offset, size, 0, 0, 1, 0)
    body = header + data + names
    return (body + bytes(shoff - len(body)) + bytes(64) + section(1, 64, len(data))
            + section(len(name) + 2, 64 + len(data), len(names)))


if __name__ == "__main__":
    unittest.main()
