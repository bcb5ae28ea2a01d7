#!/usr/bin/env python3
"""cv2.cuda.SyncedMat from Python: host views, device views, CUDA array interface, DLPack, counters.

Checks values and transfer counts, not only shapes. GPU tests skip without a CUDA device; CuPy and
PyTorch tests skip when those packages are absent.
"""
import unittest

import numpy as np
import cv2

try:
    import cupy
except Exception:  # ImportError, or a CuPy without a usable CUDA
    cupy = None
try:
    import torch
except Exception:
    torch = None


def gpu_available():
    try:
        return cv2.cuda.getCudaEnabledDeviceCount() > 0
    except cv2.error:
        return False


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
        self.assertIsInstance(SM.__dict__.get("__cuda_array_interface__"), property)

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


    def test_dlpack_capsule_releases_its_holder(self):
        import ctypes
        import gc
        ci = cv2.cudaimage
        before = len(ci._live)
        cap = ci._dlpack_capsule(cv2.cuda.GpuMat(), 0)       # an empty header: no CUDA call
        self.assertEqual(before + 1, len(ci._live))
        del cap                                               # never consumed: the destructor frees
        gc.collect()
        self.assertEqual(before, len(ci._live))
        cap = ci._dlpack_capsule(cv2.cuda.GpuMat(), 0)
        managed = ctypes.cast(ci._PyCapsule_GetPointer(id(cap), ctypes.addressof(ci._DLTENSOR_NAME)),
                              ctypes.POINTER(ci._DLManagedTensor))
        self.assertEqual(2, managed.contents.dl_tensor.device.device_type)   # kDLCUDA
        used = ctypes.create_string_buffer(b"used_dltensor")               # what a consumer does
        ctypes.pythonapi.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]
        ctypes.pythonapi.PyCapsule_SetName(cap, used)
        managed.contents.deleter(managed)
        self.assertEqual(before, len(ci._live))
        del cap
        gc.collect()
        self.assertEqual(before, len(ci._live))


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
        cai = m.__cuda_array_interface__
        self.assertEqual(3, cai["version"])
        self.assertEqual((3, 4), cai["shape"])
        self.assertEqual("<f4", cai["typestr"])
        self.assertEqual(1, cai["stream"])                  # legacy default stream
        self.assertFalse(cai["data"][1])
        self.assertEqual(DEVICE_VALID, m.state())           # a read-write access
        ro = m.deviceArray(readonly=True).__cuda_array_interface__
        self.assertTrue(ro["data"][1])
        self.assertEqual(cai["data"][0], ro["data"][0])
        s = cv2.cuda.Stream()
        self.assertEqual(int(s.cudaPtr()), m.deviceArray(s).__cuda_array_interface__["stream"])

    @unittest.skipIf(cupy is None, "needs CuPy")
    def test_cupy_kernel_writes_into_synced_mat(self):
        m = SM(64, 32, cv2.CV_32FC1)                        # uninitialised: handed out for writing
        arr = cupy.asarray(m)
        self.assertEqual((64, 32), arr.shape)
        self.assertEqual(m.__cuda_array_interface__["data"][0], arr.data.ptr)
        arr[...] = cupy.arange(64 * 32, dtype=cupy.float32).reshape(64, 32) * 2
        host = m.readHost()                                 # downloads after the CuPy kernel
        np.testing.assert_array_equal(np.arange(64 * 32, dtype=np.float32).reshape(64, 32) * 2, host)
        self.assertEqual((0, 0, 1, 64 * 32 * 4), counts(m))   # one download, nothing hidden

    @unittest.skipIf(torch is None or not (torch is not None and torch.cuda.is_available()), "needs PyTorch with CUDA")
    def test_torch_reads_without_copy(self):
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


if __name__ == "__main__":
    unittest.main()
