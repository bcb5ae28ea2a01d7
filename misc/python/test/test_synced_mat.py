#!/usr/bin/env python3
"""cv2.cuda.SyncedMat from Python: host views, device views, CUDA array interface, DLPack, counters.

Checks values and transfer counts, not only shapes. GPU tests skip without a CUDA device; CuPy and
PyTorch tests skip when those packages are absent.

Interop costs are checked separately for the three things a library does with an object: *probe*
(hasattr(x, "__cuda_array_interface__"), as CuPy, Numba and PyTorch do with whatever they are given:
must cost nothing), *read* (an explicit m.deviceArray(readonly=True): at most one upload, the host
stays valid) and *write* (m.deviceArray() or DLPack: at most one upload, the host becomes stale).
"""
import unittest

import numpy as np
import cv2

from cudaimage_test_support import gpu_available, torch_cannot_run

try:
    import cupy
except Exception:  # ImportError, or a CuPy without a usable CUDA
    cupy = None
try:
    import torch
except Exception:
    torch = None


SM = cv2.cuda.SyncedMat
UNINITIALIZED, HOST_VALID, DEVICE_VALID, BOTH_VALID = 0, 1, 2, 3
# TransferStats reasons
READ_HOST, READ_WRITE_HOST, WRITE_HOST_PARTIAL, PREFETCH_DOWNLOAD = 0, 1, 2, 3
READ_DEVICE, READ_WRITE_DEVICE, WRITE_DEVICE_PARTIAL, PREFETCH_UPLOAD = 4, 5, 6, 7


def cv_error_message(fn, *args):
    """The message of the cv2.error raised by fn(*args). A throwing constructor surfaces in cv2 as
    SystemError caused by the cv2.error (a quirk of OpenCV 4.10's generated __init__)."""
    try:
        fn(*args)
    except cv2.error as e:
        return str(e)
    except SystemError as e:
        if isinstance(e.__cause__, cv2.error):
            return str(e.__cause__)
        raise
    raise AssertionError("no cv2.error raised")


def counts(m):
    st = m.stats()
    return (st.uploads, st.uploadBytes, st.downloads, st.downloadBytes)


class SyncedMatBindingTest(unittest.TestCase):
    """No GPU needed."""

    def test_python_additions_are_installed(self):
        import cv2.cudaimage  # noqa: F401  (loaded by cv2 itself)
        for name in ("readHost", "writeHost", "readWriteHost", "readHostCopy", "deviceArray",
                     "__dlpack__", "__dlpack_device__"):
            self.assertTrue(hasattr(SM, name), name)
        # The CUDA array interface lives on the explicit device view, not on the SyncedMat.
        self.assertNotIn("__cuda_array_interface__", dir(SM))
        self.assertIn("__cuda_array_interface__", dir(cv2.cudaimage.DeviceArray))

    def test_interop_methods_are_part_of_the_type(self):
        # Defined in C++ (misc/python/pyopencv_cudaimage.hpp) in the type's own method table, as
        # OpenCV does for GpuMat.__dlpack__: nothing is attached at import, so nothing can fail to be.
        for name in ("readHost", "writeHost", "readWriteHost", "readHostCopy", "deviceArray",
                     "__dlpack__", "__dlpack_device__"):
            self.assertIn(name, SM.__dict__, name)
            self.assertEqual("method_descriptor", type(SM.__dict__[name]).__name__, name)
        self.assertIn("NumPy", SM.readHost.__doc__)       # ours, not the generated copy-returning one
        da = cv2.cudaimage.DeviceArray
        self.assertIsInstance(da, type)
        self.assertEqual("cv2.cudaimage", da.__module__)
        for name in ("__cuda_array_interface__", "__dlpack__", "__dlpack_device__", "gpumat",
                     "stream", "readonly", "device_id"):
            self.assertIn(name, da.__dict__, name)
        with self.assertRaises(TypeError):                   # made by SyncedMat.deviceArray() only
            da()

    def test_probing_for_the_cuda_array_interface_costs_nothing(self):
        # CuPy (every ufunc argument), Numba (is_cuda_array) and PyTorch (as_tensor) ask
        # hasattr(x, "__cuda_array_interface__") of whatever they are given: no access, no
        # allocation, no CUDA call (so it also holds without a GPU).
        m = SM(16, 16, cv2.CV_8UC1)
        self.assertFalse(hasattr(m, "__cuda_array_interface__"))
        self.assertIsNone(getattr(m, "__cuda_array_interface__", None))
        self.assertEqual(UNINITIALIZED, m.state())
        self.assertFalse(m.isDeviceAllocated())
        self.assertEqual(-1, m.deviceId())
        self.assertEqual((0, 0, 0, 0), counts(m))

    def test_dlpack_request_is_checked_before_any_cuda_call(self):
        m = SM(8, 8, cv2.CV_8UC1)
        with self.assertRaisesRegex(BufferError, "copy"):
            m.__dlpack__(copy=True)
        with self.assertRaisesRegex(BufferError, "kDLCUDA"):
            m.__dlpack__(dl_device=(1, 0))                   # kDLCPU
        with self.assertRaisesRegex(ValueError, "ambiguous"):
            m.__dlpack__(stream=0)
        self.assertEqual(UNINITIALIZED, m.state())
        self.assertFalse(m.isDeviceAllocated())
        self.assertEqual((0, 0, 0, 0), counts(m))
        with self.assertRaises(TypeError):
            m.deviceArray(stream=5)                          # not a cv2.cuda.Stream

    def test_size_type_and_state_without_gpu(self):
        m = SM(480, 640, cv2.CV_8UC3)
        self.assertFalse(m.empty())
        self.assertEqual((640, 480), m.size())
        self.assertEqual(cv2.CV_8UC3, m.type())
        self.assertEqual(3, m.channels())
        self.assertEqual(UNINITIALIZED, m.state())
        self.assertFalse(m.isHostAllocated())
        self.assertEqual(-1, m.deviceId())
        st = m.stats()
        self.assertEqual((0, 0, 0, 0), (st.uploads, st.uploadBytes, st.downloads, st.downloadBytes))
        reason_name = getattr(cv2.cuda, "TransferStats_reasonName", None) or cv2.cuda.TransferStats.reasonName
        self.assertEqual("READ_DEVICE", reason_name(READ_DEVICE))

    def test_errors_before_the_gpu(self):
        self.assertIn("rows=-1", cv_error_message(SM, -1, 4, cv2.CV_8UC1))
        m = SM(16, 16, cv2.CV_8UC1)
        self.assertIn("uninitialised", cv_error_message(m.readHost))
        self.assertIn("uninitialised", cv_error_message(m.readHostCopy))
        self.assertTrue(SM().empty())
        self.assertIn("empty", cv_error_message(SM().readHost))
        self.assertIn("inside", cv_error_message(SM, m, (10, 10, 8, 8)))
        self.assertIn("access must be", cv_error_message(cv2.cuda.syncedMatHostView, m, 3))
        view = SM(m, (4, 4, 8, 8))
        self.assertEqual((8, 8), view.size())
        self.assertTrue(view.isSubmatrix())
        self.assertTrue(view.sharesStorageWith(m))


@unittest.skipUnless(gpu_available(), "needs a CUDA device (cv2.cuda.getCudaEnabledDeviceCount() < 1)")
class SyncedMatGpuTest(unittest.TestCase):
    def setUp(self):
        self.rng = np.random.default_rng(7)

    def test_host_views_share_pinned_memory(self):
        a = self.rng.integers(0, 256, (48, 64, 3), dtype=np.uint8)
        m = SM(a)
        self.assertEqual(HOST_VALID, m.state())
        r = m.readHost()
        np.testing.assert_array_equal(a, r)
        self.assertFalse(r.flags.writeable)               # a read access gives a read-only view
        w = m.writeHost()
        self.assertTrue(w.flags.writeable)
        self.assertEqual(r.__array_interface__["data"][0], w.__array_interface__["data"][0])   # same memory
        w[:] = 5
        self.assertTrue((r == 5).all())                     # a view, not a copy
        c = m.readHostCopy()
        w[:] = 6
        self.assertTrue((c == 5).all())                     # the copy is independent
        self.assertEqual((0, 0, 0, 0), counts(m))

    def test_host_view_outlives_release_host(self):
        m = SM(np.full((8, 8), 3, np.uint8))
        v = m.readHost()
        m.upload()
        m.releaseHost()                                     # the array keeps the memory alive
        self.assertTrue((v == 3).all())
        np.testing.assert_array_equal(np.full((8, 8), 3, np.uint8), m.readHost())

    def test_device_access_shares_memory_and_counts(self):
        a = self.rng.integers(0, 65536, (33, 17), dtype=np.uint16)
        m = SM(a)
        s = cv2.cuda.Stream()
        g = m.readDevice(s)
        self.assertIsInstance(g, cv2.cuda.GpuMat)
        d = g.download(s)
        s.waitForCompletion()
        np.testing.assert_array_equal(a, d)
        self.assertEqual((1, a.nbytes, 0, 0), counts(m))
        self.assertEqual(1, m.stats().count(READ_DEVICE))
        g2 = m.readWriteDevice(s)
        self.assertEqual(g.cudaPtr(), g2.cudaPtr())
        g2.setTo((9,), s)
        np.testing.assert_array_equal(np.full_like(a, 9), m.readHost())
        self.assertEqual((1, a.nbytes, 1, a.nbytes), counts(m))

    def test_filter_chain_costs_one_upload_and_one_download(self):
        a = self.rng.integers(0, 256, (120, 160, 4), dtype=np.uint8)
        f = cv2.cuda.createGaussianFilter(cv2.CV_8UC4, cv2.CV_8UC4, (5, 5), 1.5)
        s = cv2.cuda.Stream()
        m = SM(a)
        for _ in range(3):
            cv2.cuda.applyFilterInPlace(f, m, s)
        out = m.readHost()
        g = cv2.cuda.GpuMat()
        g.upload(a)
        for _ in range(3):
            g = f.apply(g)
        np.testing.assert_array_equal(g.download(), out)
        self.assertEqual((1, a.nbytes, 1, a.nbytes), counts(m))
        dst = cv2.cuda.applyFilter(f, m, SM(), s)           # empty dst: created, returned
        self.assertEqual(DEVICE_VALID, dst.state())
        self.assertEqual((1, a.nbytes, 1, a.nbytes), counts(m))

    def test_cuda_array_interface(self):
        m = SM(np.arange(12, dtype=np.float32).reshape(3, 4))
        self.assertFalse(hasattr(m, "__cuda_array_interface__"))   # only on the device view
        d = m.deviceArray()
        cai = d.__cuda_array_interface__
        self.assertEqual(3, cai["version"])
        self.assertEqual((3, 4), cai["shape"])
        self.assertEqual("<f4", cai["typestr"])
        self.assertEqual((d.gpumat.step, 4), cai["strides"])
        self.assertEqual(1, cai["stream"])                  # legacy default stream
        self.assertFalse(cai["data"][1])
        self.assertEqual(DEVICE_VALID, m.state())           # a read-write access
        self.assertFalse(d.readonly)
        self.assertEqual(m.deviceId(), d.device_id)
        self.assertEqual((2, m.deviceId()), d.__dlpack_device__())
        ro = m.deviceArray(readonly=True).__cuda_array_interface__
        self.assertTrue(ro["data"][1])
        self.assertEqual(cai["data"][0], ro["data"][0])
        s = cv2.cuda.Stream()
        ds = m.deviceArray(s)
        self.assertEqual(int(s.cudaPtr()), ds.__cuda_array_interface__["stream"])
        self.assertEqual(int(s.cudaPtr()), int(ds.stream.cudaPtr()))
        s.waitForCompletion()
        self.assertEqual((1, 48, 0, 0), counts(m))          # one upload for all of it

    def test_probe_costs_nothing(self):
        a = self.rng.integers(0, 256, (48, 64, 3), dtype=np.uint8)
        m = SM(a)
        self.assertFalse(hasattr(m, "__cuda_array_interface__"))
        self.assertEqual((2, cv2.cuda.getDevice()), m.__dlpack_device__())
        np.testing.assert_array_equal(a, m.readHost())
        self.assertEqual((0, 0, 0, 0), counts(m))
        self.assertEqual(HOST_VALID, m.state())
        self.assertFalse(m.isDeviceAllocated())
        m.upload()                                          # both valid: a probe keeps it so
        self.assertFalse(hasattr(m, "__cuda_array_interface__"))
        self.assertEqual(BOTH_VALID, m.state())
        try:
            from numba import cuda as numba_cuda
            numba_probe = numba_cuda.is_available()
        except Exception:
            numba_probe = False
        if numba_probe:
            self.assertFalse(numba_cuda.is_cuda_array(m))
        np.testing.assert_array_equal(a, m.readHost())
        self.assertEqual((1, a.nbytes, 0, 0), counts(m))

    def test_device_array_read_keeps_the_host_valid(self):
        a = self.rng.integers(0, 65536, (33, 17), dtype=np.uint16)
        m = SM(a)
        d = m.deviceArray(readonly=True)
        self.assertEqual((1, a.nbytes, 0, 0), counts(m))
        self.assertEqual(1, m.stats().count(READ_DEVICE))
        self.assertEqual(BOTH_VALID, m.state())
        self.assertTrue(d.readonly)
        for _ in range(3):                                  # reading the interface is free
            cai = d.__cuda_array_interface__
            self.assertTrue(cai["data"][1])
            self.assertEqual(((33, 17), "<u2"), (cai["shape"], cai["typestr"]))
        np.testing.assert_array_equal(a, d.gpumat.download())
        np.testing.assert_array_equal(a, m.readHost())      # still valid: no download
        self.assertEqual((1, a.nbytes, 0, 0), counts(m))

    def test_device_array_write_makes_the_host_stale(self):
        a = self.rng.integers(0, 256, (20, 30, 4), dtype=np.uint8)
        m = SM(a)
        d = m.deviceArray()
        self.assertEqual((1, a.nbytes, 0, 0), counts(m))
        self.assertEqual(1, m.stats().count(READ_WRITE_DEVICE))
        self.assertEqual(DEVICE_VALID, m.state())
        self.assertFalse(d.__cuda_array_interface__["data"][1])
        d.gpumat.setTo((1, 2, 3, 4))
        expected = np.empty_like(a)
        expected[...] = (1, 2, 3, 4)
        np.testing.assert_array_equal(expected, m.readHost())
        self.assertEqual((1, a.nbytes, 1, a.nbytes), counts(m))
        u = SM(4, 5, cv2.CV_32FC1)                          # nothing to read: a discard write
        u.deviceArray()
        self.assertEqual(((0, 0, 0, 0), DEVICE_VALID), (counts(u), u.state()))
        self.assertIn("uninitialised", cv_error_message(SM(4, 5, cv2.CV_32FC1).deviceArray, None, True))

    def test_device_memory_lives_as_long_as_the_exports(self):
        # An unconsumed DLPack capsule and a DeviceArray hold the device buffer (a GpuMat reference)
        # after releaseDevice(), and give it back when they go. Measured with cudaMemGetInfo.
        import gc
        info = cv2.cuda.DeviceInfo()
        a = np.zeros((4096, 32768), np.uint8)               # 128 MiB
        m = SM(a)

        def free_bytes():
            gc.collect()
            return info.freeMemory()

        before = free_bytes()
        for make in (lambda: m.__dlpack__(), lambda: m.deviceArray(), lambda: m.deviceArray(readonly=True)):
            export = make()
            m.download()
            m.releaseDevice()                               # the SyncedMat lets go of its buffer...
            self.assertFalse(m.isDeviceAllocated())
            self.assertLess(free_bytes(), before - a.nbytes // 2)   # ...the export still holds it
            del export
            self.assertGreater(free_bytes(), before - a.nbytes // 4)
        np.testing.assert_array_equal(a, m.readHost())

    @unittest.skipIf(cupy is None, "needs CuPy")
    def test_cupy_probe_read_and_write_counts(self):
        a = self.rng.standard_normal((64, 32)).astype(np.float32)
        m = SM(a)
        self.assertFalse(hasattr(m, "__cuda_array_interface__"))   # CuPy's own test
        self.assertEqual((0, 0, 0, 0), counts(m))
        x = cupy.asarray(m.deviceArray(readonly=True))     # read: one upload, host still valid
        self.assertEqual((1, a.nbytes, 0, 0), counts(m))
        np.testing.assert_array_equal(a, cupy.asnumpy(x))
        np.testing.assert_array_equal(a, m.readHost())
        self.assertEqual((1, a.nbytes, 0, 0), counts(m))
        y = cupy.asarray(m.deviceArray())                  # write: no copy, host stale
        self.assertEqual(x.data.ptr, y.data.ptr)
        self.assertEqual(DEVICE_VALID, m.state())
        y *= 2
        np.testing.assert_array_equal(a * 2, m.readHost())
        self.assertEqual((1, a.nbytes, 1, a.nbytes), counts(m))
        z = cupy.from_dlpack(m)                             # DLPack: a read-write access too
        self.assertEqual(z.data.ptr, y.data.ptr)
        self.assertEqual(DEVICE_VALID, m.state())
        self.assertEqual((1, a.nbytes, 1, a.nbytes), counts(m))

    @unittest.skipIf(cupy is None, "needs CuPy")
    def test_cupy_kernel_writes_into_synced_mat(self):
        m = SM(64, 32, cv2.CV_32FC1)                        # uninitialised: handed out for writing
        d = m.deviceArray()
        arr = cupy.asarray(d)
        self.assertEqual((64, 32), arr.shape)
        self.assertEqual(d.__cuda_array_interface__["data"][0], arr.data.ptr)
        arr[...] = cupy.arange(64 * 32, dtype=cupy.float32).reshape(64, 32) * 2
        host = m.readHost()                                 # downloads after the CuPy kernel
        np.testing.assert_array_equal(np.arange(64 * 32, dtype=np.float32).reshape(64, 32) * 2, host)
        self.assertEqual((0, 0, 1, 64 * 32 * 4), counts(m))   # one download, nothing hidden

    @unittest.skipIf(torch is None or not (torch is not None and torch.cuda.is_available()), "needs PyTorch with CUDA")
    def test_torch_reads_without_copy(self):
        if torch_cannot_run():
            self.skipTest(torch_cannot_run())
        a = self.rng.integers(0, 256, (40, 30, 4), dtype=np.uint8)
        m = SM(a)
        t = torch.from_dlpack(m)
        self.assertEqual((40, 30, 4), tuple(t.shape))
        self.assertEqual(t.data_ptr(), m.readDevice().cudaPtr())   # the same memory
        np.testing.assert_array_equal(a, t.cpu().numpy())
        t += 1                                              # torch writes on its stream
        torch.cuda.synchronize()
        np.testing.assert_array_equal(a + 1, m.readHost())
        self.assertEqual((1, a.nbytes, 1, a.nbytes), counts(m))

    @unittest.skipIf(torch is None or not (torch is not None and torch.cuda.is_available()), "needs PyTorch with CUDA")
    def test_torch_probe_read_and_write_counts(self):
        if torch_cannot_run():
            self.skipTest(torch_cannot_run())
        a = self.rng.integers(0, 200, (40, 30, 4), dtype=np.uint8)
        m = SM(a)
        self.assertFalse(hasattr(m, "__cuda_array_interface__"))   # what torch.as_tensor asks first
        self.assertEqual((0, 0, 0, 0), counts(m))
        # Read. PyTorch refuses a read-only CUDA array interface, so a read-only view goes by DLPack.
        r = torch.from_dlpack(m.deviceArray(readonly=True))
        self.assertEqual((1, a.nbytes, 0, 0), counts(m))
        self.assertEqual(BOTH_VALID, m.state())
        np.testing.assert_array_equal(a, r.cpu().numpy())
        np.testing.assert_array_equal(a, m.readHost())      # no download
        self.assertEqual((1, a.nbytes, 0, 0), counts(m))
        # Write, through the CUDA array interface of a read-write view.
        w = torch.as_tensor(m.deviceArray(), device="cuda")
        self.assertEqual(r.data_ptr(), w.data_ptr())        # no copy
        self.assertEqual(DEVICE_VALID, m.state())
        w += 1
        torch.cuda.synchronize()
        np.testing.assert_array_equal(a + 1, m.readHost())
        self.assertEqual((1, a.nbytes, 1, a.nbytes), counts(m))


if __name__ == "__main__":
    unittest.main()
