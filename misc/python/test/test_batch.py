#!/usr/bin/env python3
"""cv2.cuda.processBatchGaussian (a batch over every GPU) and the several-GPU additions to SyncedMat.

Checks values (against cv2.GaussianBlur) and order, not only shapes. GPU tests skip without a CUDA
device; argument errors are checked everywhere (they are raised before any CUDA call).
"""
import unittest

import numpy as np
import cv2

from cudaimage_test_support import gpu_available


SM = cv2.cuda.SyncedMat
CROSS_DEVICE_REFUSE, CROSS_DEVICE_MIGRATE = 0, 1
PEER_COPY = 8   # cv::cuda::TransferStats::PEER_COPY


def constant(name, value):
    """A generated constant under either of the names OpenCV's generator may give it."""
    for holder, attr in ((cv2.cuda, "SyncedMat_" + name), (SM, name), (cv2.cuda, "TransferStats_" + name)):
        if hasattr(holder, attr):
            return getattr(holder, attr)
    return value


def cpu_blur(img, sigma):
    return cv2.GaussianBlur(img, (0, 0), sigma, sigmaY=sigma, borderType=cv2.BORDER_REPLICATE)


def images_of_mixed_sizes_and_types():
    rng = np.random.default_rng(8)
    out = []
    for i, (h, w) in enumerate([(1, 1), (1, 37), (37, 1), (113, 113), (480, 640), (61, 97)]):
        if i % 2:
            out.append(rng.integers(0, 65536, size=(h, w), dtype=np.uint16))
        else:
            out.append(rng.integers(0, 256, size=(h, w, 3), dtype=np.uint8))
    return out


class BatchBindingTest(unittest.TestCase):
    """No GPU needed."""

    def test_binding_exists_and_is_documented(self):
        self.assertIn("processBatch", cv2.cuda.processBatchGaussian.__doc__ or "")

    def test_bad_input_raises_before_touching_the_gpu(self):
        with self.assertRaises(cv2.error) as ctx:
            cv2.cuda.processBatchGaussian([], (3, 3), 1.0)
        self.assertIn("images is empty", str(ctx.exception))
        with self.assertRaises(cv2.error) as ctx:
            cv2.cuda.processBatchGaussian([np.zeros((4, 4), np.uint8), np.zeros((0, 0), np.uint8)], (3, 3), 1.0)
        self.assertIn("images[1] is empty", str(ctx.exception))
        with self.assertRaises(cv2.error) as ctx:
            cv2.cuda.processBatchGaussian([np.zeros((4, 4), np.uint8)], (4, 3), 1.0)
        self.assertIn("ksize.width is 4", str(ctx.exception))
        # processBatchGaussian's own names: the image whose type is refused, borderType.
        with self.assertRaises(cv2.error) as ctx:
            cv2.cuda.processBatchGaussian([np.zeros((4, 4), np.uint8), np.zeros((4, 4), np.int8)], (3, 3), 1.0)
        self.assertIn("cv::cuda::processBatchGaussian: images[1] type is CV_8SC1; allowed: ", str(ctx.exception))
        with self.assertRaises(cv2.error) as ctx:
            cv2.cuda.processBatchGaussian([np.zeros((4, 4), np.uint8)], (3, 3), 1.0, borderType=99)
        self.assertIn("cv::cuda::processBatchGaussian: borderType is 99; allowed: BORDER_CONSTANT (0)", str(ctx.exception))
        self.assertNotIn("rowBorderMode", str(ctx.exception))
        with self.assertRaises(cv2.error) as ctx:
            cv2.cuda.processBatchGaussian([np.zeros((4, 4), np.uint8)], (3, 3), 1.0, devices=[-1])
        self.assertIn("devices[0] is -1", str(ctx.exception))
        with self.assertRaises(cv2.error) as ctx:
            cv2.cuda.processBatchGaussian([np.zeros((4, 4), np.uint8)], (3, 3), 1.0, devices=[0, 0])
        self.assertIn("devices lists CUDA device 0 twice", str(ctx.exception))

    def test_cross_device_policy_and_peer_copy_counters(self):
        self.assertEqual(CROSS_DEVICE_MIGRATE, constant("CROSS_DEVICE_MIGRATE", CROSS_DEVICE_MIGRATE))
        self.assertEqual(PEER_COPY, constant("PEER_COPY", PEER_COPY))
        m = SM(4, 4, cv2.CV_8UC1)
        self.assertEqual(CROSS_DEVICE_REFUSE, m.crossDevicePolicy())
        view = SM(m, (1, 1, 2, 2))
        m.setCrossDevicePolicy(CROSS_DEVICE_MIGRATE)
        self.assertEqual(CROSS_DEVICE_MIGRATE, view.crossDevicePolicy())
        with self.assertRaises(cv2.error) as ctx:
            m.setCrossDevicePolicy(5)
        self.assertIn("policy is 5", str(ctx.exception))
        st = m.stats()
        self.assertEqual(0, st.peerCopies)
        self.assertEqual(0, st.peerCopyBytes)
        self.assertEqual(0, st.count(PEER_COPY))
        reason_name = getattr(cv2.cuda, "TransferStats_reasonName", None) or cv2.cuda.TransferStats.reasonName
        self.assertEqual("PEER_COPY", reason_name(PEER_COPY))


@unittest.skipUnless(gpu_available(), "needs a CUDA device")
class BatchGpuTest(unittest.TestCase):
    def test_results_equal_cpu_in_input_order(self):
        images = images_of_mixed_sizes_and_types()
        for devices in ([], [cv2.cuda.getDevice()]):
            results = cv2.cuda.processBatchGaussian(images, (0, 0), 2.0, devices=devices)
            self.assertEqual(len(images), len(results))
            for i, (img, res) in enumerate(zip(images, results)):
                expected = cpu_blur(img, 2.0)
                self.assertEqual(expected.dtype, res.dtype, i)
                self.assertEqual(expected.shape, res.shape, i)
                self.assertTrue(np.array_equal(expected, res), "image %d differs" % i)

    def test_unknown_device_is_refused(self):
        n = cv2.cuda.getCudaEnabledDeviceCount()
        with self.assertRaises(cv2.error) as ctx:
            cv2.cuda.processBatchGaussian([np.zeros((4, 4), np.uint8)], (3, 3), 1.0, devices=[n])
        self.assertIn("devices[0] is %d" % n, str(ctx.exception))

    def test_move_to_own_device_copies_nothing(self):
        m = SM(np.full((8, 8), 3, np.uint8))
        dev = cv2.cuda.getDevice()
        m.moveToDevice(dev)
        self.assertEqual(dev, m.deviceId())
        self.assertEqual(0, m.stats().peerCopies)


if __name__ == "__main__":
    unittest.main()
