"""cv2.cudaimage.transforms: GaussianBlur (torchvision.transforms.v2.GaussianBlur's arguments) and
RandomGaussianBlur (kornia.augmentation.RandomGaussianBlur's), each blurred image against
cv2.GaussianBlur on the host with the sigma the transform drew (uint8 and uint16 identical, float32
within 1e-5, float64 within 1e-12), images not chosen unchanged, seeded runs identical, inside
torchvision.transforms.v2.Compose and nn.Sequential.

Without a GPU: the argument checks (constructors; inputs refused before any CUDA call: a NumPy
array, a host tensor, a dtype, a shape), the sigma draws (torchvision's with the same seed), and
with PyTorch the transforms' logic with the blur replaced by cv2.GaussianBlur on the host (which
images, which sigmas and kernels, shapes, tv_tensors). Also without a GPU, with torchvision: its
float32 blur equals cv2.GaussianBlur with BORDER_REFLECT_101 within 1e-6 (the border the transforms
default to). The rest skips without a CUDA device, PyTorch (or CuPy for the CuPy case) or torchvision.

Device draws (device_sigma, a CUDA generator): without a GPU, the argument checks and, with PyTorch,
the logic (one blur call with the sigma tensor and the fixed kernel, torch.where keeping the images
not chosen, NaN sigmas for them) with the draws on the CPU and the blur on the host; on the GPU,
seeded runs identical, each image exact against cv2.GaussianBlur with its last_sigmas value, the
images not chosen bit-identical to the input, no synchronisation, and a CUDA graph whose replays
draw new sigmas.
"""
import random
import unittest
from unittest import mock

import numpy as np
import cv2

from cudaimage_test_support import capture_torch_graph, gpu_available, torch_cannot_run, usable_cupy
from cv2.cudaimage import transforms as T

try:
    import torch
except ImportError:
    torch = None
HAVE_TORCH_CUDA = torch is not None and gpu_available() and torch.cuda.is_available() and torch_cannot_run() is None

try:
    from torchvision.transforms import v2
    from torchvision import tv_tensors
except ImportError:
    v2 = tv_tensors = None

cupy = usable_cupy()
HAVE_CUPY = cupy is not None

BORDERS = (cv2.BORDER_REFLECT_101, cv2.BORDER_REPLICATE, cv2.BORDER_REFLECT, cv2.BORDER_WRAP, cv2.BORDER_CONSTANT)
TOL = {np.uint8: 0, np.uint16: 0, np.int16: 1, np.float32: 1e-5, np.float64: 1e-12}


def random_images(rng, shape, dtype):
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return rng.integers(info.min, int(info.max) + 1, size=shape, dtype=dtype)
    return rng.random(shape).astype(dtype)                        # [0, 1): the tolerance is absolute


def cpu_reference(images, layout, kernel_size, sigmas, border, applied=None):
    """Each image of a (N, C, H, W) or (N, H, W, C) NumPy batch blurred by cv2.GaussianBlur with
    its sigma (each channel plane on its own), or copied where applied[i] is False."""
    out = np.empty_like(images)
    for i, s in enumerate(sigmas):
        if applied is not None and not applied[i]:
            out[i] = images[i]
            continue
        planes = images[i] if layout == "NCHW" else np.moveaxis(images[i], -1, 0)
        blurred = np.stack([cv2.GaussianBlur(np.ascontiguousarray(p), kernel_size, s, sigmaY=s, borderType=border)
                            for p in planes])
        out[i] = blurred if layout == "NCHW" else np.moveaxis(blurred, 0, -1)
    return out


class ArgumentsTest(unittest.TestCase):
    """The constructors' checks and the refusal of host arrays: no GPU, no PyTorch needed."""

    def test_kernel_size(self):
        self.assertEqual(T.GaussianBlur(5).kernel_size, (5, 5))
        self.assertEqual(T.GaussianBlur((3, 7)).kernel_size, (3, 7))         # (width, height)
        self.assertEqual(T.GaussianBlur([9]).kernel_size, (9, 9))
        self.assertEqual(T.GaussianBlur(np.int64(1)).kernel_size, (1, 1))
        self.assertEqual(T.RandomGaussianBlur(np.array([3, 5]), (0.1, 2.0)).kernel_size, (3, 5))
        for cls, extra in ((T.GaussianBlur, ()), (T.RandomGaussianBlur, ((0.1, 2.0),))):
            for bad in (4, 0, -3, (3, 4), (0, 3)):
                with self.subTest(cls=cls.__name__, kernel_size=bad):
                    with self.assertRaisesRegex(ValueError, "%s: kernel_size is .*odd and positive" % cls.__name__):
                        cls(bad, *extra)
            with self.assertRaisesRegex(ValueError, "kernel_size is \\(3, 5, 7\\); allowed"):
                cls((3, 5, 7), *extra)
            for bad in ("3", 3.0, True, None, (3.0, 5), (True, 3)):
                with self.subTest(cls=cls.__name__, kernel_size=bad):
                    with self.assertRaisesRegex(TypeError, "%s: kernel_size is" % cls.__name__):
                        cls(bad, *extra)

    def test_sigma(self):
        self.assertEqual(T.GaussianBlur(3).sigma, (0.1, 2.0))                # torchvision's default
        self.assertEqual(T.GaussianBlur(3, 1.5).sigma, (1.5, 1.5))
        self.assertEqual(T.GaussianBlur(3, [0.5]).sigma, (0.5, 0.5))
        self.assertEqual(T.GaussianBlur(3, (1, 1)).sigma, (1.0, 1.0))
        self.assertEqual(T.RandomGaussianBlur(3, np.array([0.2, 0.4])).sigma, (0.2, 0.4))
        for cls in (T.GaussianBlur, T.RandomGaussianBlur):
            for bad in ((2.0, 1.0), 0, -1.0, (0.0, 1.0), (-1.0, 1.0), float("nan"), (0.1, float("inf"))):
                with self.subTest(cls=cls.__name__, sigma=bad):
                    with self.assertRaisesRegex(ValueError, "%s: sigma is" % cls.__name__):
                        cls(3, bad)
            with self.assertRaisesRegex(ValueError, "%s: sigma has 3 values" % cls.__name__):
                cls(3, (0.1, 1.0, 2.0))
            for bad in ("1.0", None, True, ("a", 2.0), {0.1: 2.0}):
                with self.subTest(cls=cls.__name__, sigma=bad):
                    with self.assertRaisesRegex(TypeError, "%s: sigma is" % cls.__name__):
                        cls(3, bad)

    def test_p_border_layout_generator(self):
        self.assertEqual(T.RandomGaussianBlur(3, (0.1, 2.0)).p, 0.5)          # kornia's default
        for p in (0, 1, 0.25):
            self.assertEqual(T.RandomGaussianBlur(3, (0.1, 2.0), p).p, p)
        for bad in (-0.1, 1.5, float("nan")):
            with self.subTest(p=bad):
                with self.assertRaisesRegex(ValueError, "RandomGaussianBlur: p is .*in \\[0, 1\\]"):
                    T.RandomGaussianBlur(3, (0.1, 2.0), p=bad)
        for bad in ("0.5", None, True):
            with self.assertRaisesRegex(TypeError, "RandomGaussianBlur: p is a"):
                T.RandomGaussianBlur(3, (0.1, 2.0), p=bad)
        self.assertEqual(T.GaussianBlur(3).border, cv2.BORDER_REFLECT_101)  # torchvision's 'reflect' padding
        self.assertEqual(T.RandomGaussianBlur(3, 1.0).border, cv2.BORDER_REFLECT_101)
        for name, border in (("reflect", cv2.BORDER_REFLECT_101), ("replicate", cv2.BORDER_REPLICATE),
                             ("circular", cv2.BORDER_WRAP), ("constant", cv2.BORDER_CONSTANT)):
            self.assertEqual(T.RandomGaussianBlur(3, 1.0, border=name).border, border)
        for border in BORDERS:
            self.assertEqual(T.GaussianBlur(3, border=border).border, border)
        for cls, extra in ((T.GaussianBlur, ()), (T.RandomGaussianBlur, ((0.1, 2.0),))):
            for bad in (99, "mirror", cv2.BORDER_TRANSPARENT, None):
                with self.assertRaisesRegex(ValueError, "%s: border is" % cls.__name__):
                    cls(3, *extra, border=bad)
            with self.assertRaisesRegex(ValueError, "%s: layout is 'CHW'" % cls.__name__):
                cls(3, *extra, layout="CHW")
            with self.assertRaisesRegex(TypeError, "%s: generator is a int" % cls.__name__):
                cls(3, *extra, generator=42)
        with self.assertRaisesRegex(TypeError, "GaussianBlur: per_image is a str"):
            T.GaussianBlur(3, per_image="yes")
        with self.assertRaisesRegex(TypeError, "RandomGaussianBlur: same_on_batch is a int"):
            T.RandomGaussianBlur(3, 1.0, same_on_batch=1)

    def test_device_sigma(self):
        for cls, extra in ((T.GaussianBlur, ()), (T.RandomGaussianBlur, ((0.1, 2.0),))):
            self.assertIsNone(cls(3, *extra).device_sigma)                   # the default
            self.assertIs(cls(3, *extra, device_sigma=False).device_sigma, False)
            self.assertIs(cls(3, *extra, device_sigma=False, generator=random.Random(1)).device_sigma, False)
            for bad in ("yes", 1, 0.0):
                with self.assertRaisesRegex(TypeError, "%s: device_sigma is a %s; allowed: None"
                                            % (cls.__name__, type(bad).__name__)):
                    cls(3, *extra, device_sigma=bad)
            with self.assertRaisesRegex(ValueError, "%s: device_sigma=True" % cls.__name__):
                cls(3, *extra, device_sigma=True, generator=random.Random(1))   # no device draws from Python's

    def test_host_arrays_are_refused(self):
        for t in (T.GaussianBlur(3), T.RandomGaussianBlur(3, (0.1, 2.0), p=1.0)):
            with self.assertRaisesRegex(TypeError, "%s: x is a NumPy array on the host; .*move it to CUDA first"
                                        % type(t).__name__):
                t(np.zeros((3, 8, 8), np.uint8))
            with self.assertRaisesRegex(TypeError, "move it to CUDA first"):
                t([[1, 2], [3, 4]])

    def test_get_params_draws_in_the_range(self):
        rng = random.Random(5)
        values = [T.GaussianBlur.get_params(0.1, 2.0, rng) for _ in range(200)]
        self.assertTrue(all(0.1 <= v <= 2.0 for v in values))
        self.assertEqual(values, [T.GaussianBlur.get_params(0.1, 2.0, g) for g in [random.Random(5)] for _ in range(200)])
        self.assertEqual(T.GaussianBlur.get_params(1.5, 1.5, random.Random(0)), 1.5)


class FakeCudaTensor(torch.Tensor if torch is not None else object):
    """A host tensor that says it is on CUDA: enough for the checks that run before any CUDA call,
    and for the transforms' logic with the blur done on the host (HostBlurLogicTest)."""

    @property
    def is_cuda(self):
        return True


def fake_cuda(array):
    return torch.from_numpy(np.ascontiguousarray(array)).as_subclass(FakeCudaTensor)


def as_list(values):
    """last_sigmas / last_applied as a list: host draws are one, device draws a tensor (NaN kept)."""
    return values.tolist() if torch is not None and isinstance(values, torch.Tensor) else list(values)


@unittest.skipUnless(torch is not None, "PyTorch is not installed")
class TorchWithoutDeviceTest(unittest.TestCase):
    """What needs PyTorch but no device: modules, refusals before any CUDA call, the draws."""

    def test_modules_that_compose(self):
        for t in (T.GaussianBlur(3), T.RandomGaussianBlur(3, (0.1, 2.0))):
            self.assertIsInstance(t, torch.nn.Module)
            seq = torch.nn.Sequential(t, torch.nn.Identity())
            self.assertIn(type(t).__name__ + "(kernel_size=(3, 3)", repr(seq))
            if v2 is not None:
                self.assertIn(type(t).__name__, repr(v2.Compose([v2.RandomCrop(8), t])))

    def test_host_tensors_are_refused_before_any_cuda_call(self):
        for t in (T.GaussianBlur(3), T.RandomGaussianBlur(3, (0.1, 2.0), p=1.0)):
            name = type(t).__name__
            with self.assertRaisesRegex(ValueError, "%s: x is on the cpu device; .*move it to CUDA first \\(x.cuda\\(\\)"
                                        % name):
                t(torch.zeros(3, 8, 8, dtype=torch.uint8))
            with self.assertRaisesRegex(TypeError, "%s: x has dtype float16; allowed: uint8, uint16, int16, float32, "
                                        "float64" % name):
                t(fake_cuda(np.zeros((3, 8, 8), np.float16)))
            with self.assertRaisesRegex(TypeError, "x has dtype int32"):
                t(fake_cuda(np.zeros((3, 8, 8), np.int32)))
            with self.assertRaisesRegex(ValueError, "%s: x has shape \\(8, 8\\); allowed" % name):
                t(fake_cuda(np.zeros((8, 8), np.uint8)))
        with self.assertRaisesRegex(ValueError, "x has shape \\(2, 8, 8, 5\\) and layout 'NHWC', so 5 channels"):
            T.GaussianBlur(3, layout="NHWC")(fake_cuda(np.zeros((2, 8, 8, 5), np.uint8)))

    def test_device_sigma_needs_a_cuda_generator_or_none(self):
        for cls, extra in ((T.GaussianBlur, ()), (T.RandomGaussianBlur, ((0.1, 2.0),))):
            with self.assertRaisesRegex(ValueError, "%s: device_sigma=True draws on the device, and generator is a "
                                                    "CPU torch.Generator" % cls.__name__):
                cls(3, *extra, device_sigma=True, generator=torch.Generator())
            self.assertTrue(cls(3, *extra, device_sigma=True).device_sigma)   # PyTorch's default CUDA generator
            self.assertIn("device_sigma=True", repr(cls(3, *extra, device_sigma=True)))
            self.assertNotIn("device_sigma", repr(cls(3, *extra)))

    def test_sigma_draws_are_torchvision_s(self):
        """get_params and a call without per_image draw torch.empty(1).uniform_(min, max), as
        torchvision, from the global generator or the one given."""
        torch.manual_seed(11)
        expected = [torch.empty(1).uniform_(0.1, 2.0).item() for _ in range(3)]
        torch.manual_seed(11)
        self.assertEqual([T.GaussianBlur.get_params(0.1, 2.0) for _ in range(3)], expected)
        g = torch.Generator().manual_seed(11)
        self.assertEqual([T.GaussianBlur.get_params(0.1, 2.0, g) for _ in range(3)], expected)
        if v2 is not None and hasattr(v2.GaussianBlur, "get_params"):
            torch.manual_seed(11)
            self.assertEqual(v2.GaussianBlur.get_params(0.1, 2.0), expected[0])


def host_blur(x, sigma, sigma_y=None, ksize=None, *, layout=None, border=cv2.BORDER_REPLICATE, **kwargs):
    """gaussian_blur_batch's contract done on the host: one sigma (or one per image) and one kernel
    (or one per image, a list) for a 4-D batch."""
    images = x.numpy()
    n = images.shape[0]
    if isinstance(sigma, torch.Tensor):                               # device draws (on the CPU here)
        sigma = sigma.tolist()
        sigma = sigma * n if len(sigma) == 1 else sigma
    sigmas = list(sigma) if isinstance(sigma, list) else [sigma] * n
    ksizes = list(ksize) if isinstance(ksize, list) else [ksize] * n
    out = np.empty_like(images)
    for i in range(n):
        out[i] = cpu_reference(images[i:i + 1], layout, tuple(ksizes[i]), [sigmas[i]], border)[0]
    return torch.from_numpy(out)


@unittest.skipUnless(torch is not None, "PyTorch is not installed")
class HostBlurLogicTest(unittest.TestCase):
    """The transforms with gaussian_blur_batch replaced by host_blur: which images are blurred, with
    which sigma, kernel and border, the shapes and types given back. No device needed."""

    def setUp(self):
        patcher = mock.patch.object(T._tensor, "gaussian_blur_batch", side_effect=host_blur)
        self.blur = patcher.start()
        self.addCleanup(patcher.stop)
        self.rng = np.random.default_rng(3)

    def test_gaussian_blur_per_call_and_per_image(self):
        images = random_images(self.rng, (2, 3, 3, 20, 24), np.uint8)       # leading dimensions: a batch of 6
        flat = images.reshape(6, 3, 20, 24)
        for per_image in (False, True):
            t = T.GaussianBlur((5, 3), (0.5, 3.0), per_image=per_image, generator=torch.Generator().manual_seed(1))
            y = t(fake_cuda(images))
            self.assertEqual(tuple(y.shape), images.shape)
            self.assertEqual(y.dtype, torch.uint8)
            self.assertEqual(len(t.last_sigmas), 6)
            self.assertEqual(len(set(t.last_sigmas)), 6 if per_image else 1)
            self.assertTrue(all(0.5 <= s <= 3.0 for s in t.last_sigmas))
            ref = cpu_reference(flat, "NCHW", (5, 3), t.last_sigmas, cv2.BORDER_REFLECT_101)
            np.testing.assert_array_equal(y.numpy().reshape(flat.shape), ref)
            self.assertEqual(self.blur.call_args.kwargs["layout"], "NCHW")
            self.assertEqual(self.blur.call_count, 1 + per_image)            # one call per batch

    def test_single_image_and_nhwc(self):
        image = random_images(self.rng, (3, 17, 19), np.float32)
        t = T.GaussianBlur(3, 1.25)
        y = t(fake_cuda(image))
        self.assertEqual(t.last_sigmas, [1.25])
        np.testing.assert_allclose(y.numpy(), cpu_reference(image[None], "NCHW", (3, 3), [1.25],
                                                            cv2.BORDER_REFLECT_101)[0], rtol=0, atol=0)
        batch = random_images(self.rng, (4, 17, 19, 3), np.uint16)
        t = T.GaussianBlur((3, 5), (1.0, 2.0), per_image=True, border="replicate", layout="NHWC")
        y = t(fake_cuda(batch))
        np.testing.assert_array_equal(y.numpy(), cpu_reference(batch, "NHWC", (3, 5), t.last_sigmas,
                                                               cv2.BORDER_REPLICATE))

    def test_random_gaussian_blur_blurs_only_the_chosen(self):
        images = random_images(self.rng, (32, 2, 16, 16), np.uint8)
        t = T.RandomGaussianBlur(5, (0.5, 2.0), p=0.5, generator=torch.Generator().manual_seed(2))
        y = t(fake_cuda(images))
        applied = t.last_applied
        self.assertTrue(0 < sum(applied) < 32, applied)
        self.assertEqual([s is not None for s in t.last_sigmas], applied)
        sigmas = [s if s is not None else 1.0 for s in t.last_sigmas]
        np.testing.assert_array_equal(y.numpy(), cpu_reference(images, "NCHW", (5, 5), sigmas,
                                                               cv2.BORDER_REFLECT_101, applied))
        ksize = self.blur.call_args.args[3]
        self.assertEqual(ksize, [(5, 5) if a else (1, 1) for a in applied])  # a 1 x 1 kernel: a copy

    def test_p_zero_and_one_and_same_on_batch(self):
        images = random_images(self.rng, (8, 3, 12, 12), np.uint8)
        x = fake_cuda(images)
        t = T.RandomGaussianBlur(3, (0.5, 2.0), p=0.0)
        y = t(x)
        self.assertEqual(self.blur.call_count, 0)
        self.assertNotEqual(y.data_ptr(), x.data_ptr())                      # a new tensor
        np.testing.assert_array_equal(y.numpy(), images)
        self.assertEqual(t.last_applied, [False] * 8)
        t = T.RandomGaussianBlur(3, (0.5, 2.0), p=1.0)
        t(x)
        self.assertEqual(t.last_applied, [True] * 8)
        self.assertEqual(self.blur.call_args.args[3], (3, 3))
        t = T.RandomGaussianBlur(3, (0.5, 2.0), p=0.5, same_on_batch=True, generator=random.Random(4))
        for _ in range(6):
            t(x)
            self.assertEqual(len(set(t.last_applied)), 1)
            self.assertLessEqual(len(set(t.last_sigmas)), 1)

    def test_seeded_runs_are_identical(self):
        images = fake_cuda(random_images(self.rng, (6, 3, 16, 16), np.uint8))
        runs = []
        for _ in range(2):
            t = T.RandomGaussianBlur(3, (0.1, 2.0), p=0.5, generator=torch.Generator().manual_seed(9))
            runs.append((t(images).numpy(), t.last_sigmas))
        np.testing.assert_array_equal(runs[0][0], runs[1][0])
        self.assertEqual(runs[0][1], runs[1][1])

    def test_device_draws_logic(self):
        """device_sigma=True on a stand-in tensor whose device is the CPU: the draws are made there
        (torch's default generator), the blur gets the sigma tensor and the fixed kernel in one call,
        last_sigmas is the tensor."""
        images = random_images(self.rng, (6, 3, 16, 20), np.uint8)
        for per_image in (False, True):
            torch.manual_seed(4)
            t = T.GaussianBlur((5, 3), (0.5, 3.0), per_image=per_image, device_sigma=True)
            y = t(fake_cuda(images))
            self.assertIsInstance(t.last_sigmas, torch.Tensor)
            self.assertEqual(t.last_sigmas.dtype, torch.float32)             # torchvision's draw
            self.assertEqual(tuple(t.last_sigmas.shape), (6,))
            sigmas = t.last_sigmas.tolist()
            self.assertEqual(len(set(sigmas)), 6 if per_image else 1)
            torch.manual_seed(4)
            self.assertEqual(sigmas, torch.empty(6 if per_image else 1).uniform_(0.5, 3.0).tolist() * (1 if per_image
                                                                                                      else 6))
            self.assertIsInstance(self.blur.call_args.args[1], torch.Tensor)  # handed on as a tensor
            self.assertEqual(self.blur.call_args.args[3], (5, 3))
            np.testing.assert_array_equal(y.numpy(), cpu_reference(images, "NCHW", (5, 3), sigmas,
                                                                   cv2.BORDER_REFLECT_101))
        t = T.GaussianBlur(3, 1.25, device_sigma=True)                       # fixed: no draw, float64 as given
        t(fake_cuda(images))
        self.assertEqual(t.last_sigmas.dtype, torch.float64)
        self.assertEqual(t.last_sigmas.tolist(), [1.25] * 6)

    def test_random_gaussian_blur_device_draws_logic(self):
        for dtype in (np.uint8, np.uint16, np.float32):
            with self.subTest(dtype=dtype.__name__):
                images = random_images(self.rng, (32, 2, 12, 12), dtype)
                torch.manual_seed(6)
                t = T.RandomGaussianBlur(5, (0.5, 2.0), p=0.5, device_sigma=True)
                y = t(fake_cuda(images))
                self.assertEqual(self.blur.call_args.args[3], (5, 5))        # one kernel: every image blurred
                self.assertEqual(t.last_applied.dtype, torch.bool)
                applied = t.last_applied.tolist()
                self.assertTrue(0 < sum(applied) < 32, applied)
                sigmas = t.last_sigmas.tolist()
                self.assertEqual([s == s for s in sigmas], applied)           # NaN where not chosen
                torch.manual_seed(6)                                          # decisions, then a sigma per image
                self.assertEqual(applied, (torch.rand(32) < 0.5).tolist())
                drawn = torch.empty(32).uniform_(0.5, 2.0).tolist()
                self.assertEqual([s for s in sigmas if s == s], [d for d, a in zip(drawn, applied) if a])
                got = y.numpy()
                for i, a in enumerate(applied):
                    if not a:
                        np.testing.assert_array_equal(got[i], images[i])     # taken back: bit-identical
                np.testing.assert_array_equal(got, cpu_reference(images, "NCHW", (5, 5), [
                    s if s == s else 1.0 for s in sigmas], cv2.BORDER_REFLECT_101, applied))
        x = fake_cuda(random_images(self.rng, (4, 3, 8, 8), np.uint8))
        calls = self.blur.call_count
        t = T.RandomGaussianBlur(3, (0.5, 2.0), p=0.0, device_sigma=True)
        y = t(x)
        self.assertEqual(self.blur.call_count, calls)                        # p = 0: no blur
        self.assertTrue(torch.equal(y, x.as_subclass(torch.Tensor)))
        self.assertEqual(t.last_applied.tolist(), [False] * 4)
        self.assertTrue(all(s != s for s in t.last_sigmas.tolist()))
        t = T.RandomGaussianBlur(3, (0.5, 2.0), p=0.5, same_on_batch=True, device_sigma=True)
        for _ in range(6):
            t(x)
            self.assertEqual(len(set(t.last_applied.tolist())), 1)

    @unittest.skipUnless(tv_tensors is not None, "torchvision is not installed")
    def test_tv_tensors_stay_what_they_are(self):
        class FakeCudaImage(tv_tensors.Image):
            is_cuda = property(lambda self: True)

        image = torch.from_numpy(random_images(self.rng, (3, 16, 16), np.uint8)).as_subclass(FakeCudaImage)
        y = T.GaussianBlur(3, 1.0)(image)
        self.assertIsInstance(y, tv_tensors.Image)
        self.assertEqual(tuple(y.shape), (3, 16, 16))
        self.assertIs(type(self.blur.call_args.args[0]), torch.Tensor)       # the plain tensor is blurred


@unittest.skipUnless(v2 is not None, "torchvision is not installed")
class TorchvisionAgreementTest(unittest.TestCase):
    """torchvision's blur (its 'reflect' padding, float32) equals cv2.GaussianBlur with
    BORDER_REFLECT_101, the transforms' default border, and kernel_size (kx, ky) is (width,
    height): on the host, no device needed."""

    def test_float32(self):
        from torchvision.transforms.v2 import functional as F
        x = random_images(np.random.default_rng(0), (3, 37, 53), np.float32)
        for k, s in (((5, 7), 1.3), ((3, 3), 0.4), ((9, 5), 2.0), ((1, 5), 1.0)):
            theirs = F.gaussian_blur(torch.from_numpy(x), list(k), [s, s]).numpy()
            ours = cpu_reference(x[None], "NCHW", k, [s], cv2.BORDER_REFLECT_101)[0]
            np.testing.assert_allclose(theirs, ours, rtol=0, atol=1e-6, err_msg="kernel %s sigma %s" % (k, s))


@unittest.skipUnless(HAVE_TORCH_CUDA, "needs a CUDA device and PyTorch with CUDA")
class GpuTest(unittest.TestCase):
    """On the device: each image of the result against cv2.GaussianBlur on the host."""

    def setUp(self):
        self.rng = np.random.default_rng(7)

    def check(self, y, x_np, layout, t, applied=None):
        self.assertEqual(tuple(y.shape), x_np.shape)
        self.assertTrue(y.is_cuda)
        got = y.cpu().numpy()
        flat = (-1,) + x_np.shape[-3:]
        sigmas = [1.0 if s is None or s != s else s for s in as_list(t.last_sigmas)]   # None, NaN: not chosen
        applied = None if applied is None else as_list(applied)
        ref = cpu_reference(x_np.reshape(flat), layout, t.kernel_size, sigmas, t.border, applied)
        tol = TOL[x_np.dtype.type]
        if tol == 0:
            np.testing.assert_array_equal(got.reshape(flat), ref)
        else:
            np.testing.assert_allclose(got.reshape(flat), ref, rtol=0, atol=tol)

    def test_gaussian_blur_every_dtype(self):
        for dtype in (np.uint8, np.uint16, np.int16, np.float32, np.float64):
            for per_image in (False, True):
                with self.subTest(dtype=dtype.__name__, per_image=per_image):
                    x_np = random_images(self.rng, (5, 3, 33, 47), dtype)
                    t = T.GaussianBlur((5, 9), (0.1, 3.0), per_image=per_image)
                    x = torch.from_numpy(x_np).cuda()
                    y = t(x)
                    self.assertEqual(y.dtype, x.dtype)
                    self.assertNotEqual(y.data_ptr(), x.data_ptr())
                    self.assertEqual(len(set(t.last_sigmas)), 5 if per_image else 1)
                    self.check(y, x_np, "NCHW", t)
                    self.assertTrue(torch.equal(x.cpu(), torch.from_numpy(x_np)))   # not in place

    def test_shapes_layouts_borders(self):
        cases = [((3, 40, 30), "NCHW"), ((2, 3, 2, 24, 24), "NCHW"), ((4, 24, 32, 3), "NHWC"),
                 ((24, 32, 1), "NHWC"), ((6, 1, 64, 8), "NCHW")]
        for shape, layout in cases:
            for border in BORDERS:
                with self.subTest(shape=shape, layout=layout, border=border):
                    x_np = random_images(self.rng, shape, np.uint8)
                    t = T.GaussianBlur((7, 3), (0.5, 2.5), per_image=True, border=border, layout=layout)
                    self.check(t(torch.from_numpy(x_np).cuda()), x_np, layout, t)

    def test_channels_last_and_a_slice(self):
        x_np = random_images(self.rng, (4, 3, 20, 28), np.float32)
        x = torch.from_numpy(x_np).cuda()
        t = T.GaussianBlur(5, (0.5, 2.0), per_image=True)
        self.check(t(x.to(memory_format=torch.channels_last)), x_np, "NCHW", t)
        self.check(t(x[::2]), x_np[::2], "NCHW", t)

    def test_random_gaussian_blur(self):
        for dtype in (np.uint8, np.float32):
            with self.subTest(dtype=dtype.__name__):
                x_np = random_images(self.rng, (64, 3, 24, 24), dtype)
                x = torch.from_numpy(x_np).cuda()
                t = T.RandomGaussianBlur(5, (0.1, 2.0), p=0.5, generator=torch.Generator().manual_seed(1))
                y = t(x)
                self.assertTrue(0 < sum(t.last_applied) < 64)
                self.check(y, x_np, "NCHW", t, t.last_applied)
                got = y.cpu().numpy()
                for i, a in enumerate(t.last_applied):
                    if not a:                                               # a 1 x 1 kernel: exact copy
                        np.testing.assert_array_equal(got[i], x_np[i])

    def test_p_zero_and_one(self):
        x_np = random_images(self.rng, (8, 3, 16, 16), np.uint8)
        x = torch.from_numpy(x_np).cuda()
        y = T.RandomGaussianBlur(3, (0.5, 2.0), p=0.0)(x)
        self.assertNotEqual(y.data_ptr(), x.data_ptr())
        self.assertTrue(torch.equal(y, x))
        t = T.RandomGaussianBlur(3, (0.5, 2.0), p=1.0)
        y = t(x)
        self.assertEqual(t.last_applied, [True] * 8)
        self.check(y, x_np, "NCHW", t)

    def test_seeded_generators_give_identical_output(self):
        x = torch.from_numpy(random_images(self.rng, (16, 3, 32, 32), np.uint8)).cuda()
        for make in (lambda g: T.GaussianBlur(5, (0.1, 2.0), per_image=True, generator=g),
                     lambda g: T.RandomGaussianBlur(5, (0.1, 2.0), p=0.5, generator=g)):
            for device in ("cpu", "cuda"):
                outs = []
                for _ in range(2):
                    t = make(torch.Generator(device=device).manual_seed(123))
                    outs.append((t(x), as_list(t.last_sigmas)))
                self.assertTrue(torch.equal(outs[0][0], outs[1][0]))
                # NaN (an image not chosen, on the device) equals NaN here
                np.testing.assert_array_equal(np.array(outs[0][1], dtype=float), np.array(outs[1][1], dtype=float))
        torch.manual_seed(5)
        a = T.GaussianBlur(5, (0.1, 2.0))(x)
        torch.manual_seed(5)
        self.assertTrue(torch.equal(a, T.GaussianBlur(5, (0.1, 2.0))(x)))

    def test_in_sequential(self):
        x_np = random_images(self.rng, (4, 3, 24, 24), np.float32)
        blur = T.GaussianBlur(3, (0.5, 1.5), per_image=True)
        y = torch.nn.Sequential(blur, torch.nn.Identity())(torch.from_numpy(x_np).cuda())
        self.check(y, x_np, "NCHW", blur)

    @unittest.skipUnless(v2 is not None, "torchvision is not installed")
    def test_in_torchvision_compose(self):
        x_np = random_images(self.rng, (8, 3, 48, 48), np.uint8)
        x = torch.from_numpy(x_np).cuda()
        blur = T.RandomGaussianBlur(5, (0.1, 2.0), p=0.5, generator=torch.Generator().manual_seed(3))
        pipeline = v2.Compose([v2.RandomHorizontalFlip(p=0.0), blur, v2.ToDtype(torch.float32, scale=True),
                               v2.Normalize([0.5] * 3, [0.25] * 3)])
        y = pipeline(x)
        self.assertEqual(tuple(y.shape), x_np.shape)
        self.assertEqual(y.dtype, torch.float32)
        blurred = torch.round((y * 0.25 + 0.5) * 255).to(torch.uint8)
        self.check(blurred, x_np, "NCHW", blur, blur.last_applied)
        image = tv_tensors.Image(x[0])
        out = v2.Compose([T.GaussianBlur(3, 1.0)])(image)
        self.assertIsInstance(out, tv_tensors.Image)

    def test_close_to_torchvision(self):
        """float32: within 1e-5 of torchvision's own blur with the same sigma and kernel."""
        if v2 is None:
            self.skipTest("torchvision is not installed")
        from torchvision.transforms.v2 import functional as F
        x = torch.rand(4, 3, 40, 40, device="cuda")
        t = T.GaussianBlur((5, 7), (0.5, 2.0))
        y = t(x)
        s = t.last_sigmas[0]
        theirs = F.gaussian_blur(x, [5, 7], [s, s])
        self.assertLess(float((y - theirs).abs().max()), 1e-5)


@unittest.skipUnless(HAVE_TORCH_CUDA, "needs a CUDA device and PyTorch with CUDA")
class DeviceDrawTest(unittest.TestCase):
    """Sigmas (and decisions) drawn on the device: a CUDA generator, or device_sigma=True."""

    SLEEP_CYCLES = 100_000_000      # torch.cuda._sleep: tens of milliseconds on any current GPU

    def setUp(self):
        self.rng = np.random.default_rng(8)

    def check(self, y, x_np, t, applied=None):
        GpuTest.check(self, y, x_np, t.layout, t, applied)

    def test_cuda_generator_is_reproducible_and_exact(self):
        for dtype in (np.uint8, np.uint16):
            for per_image in (True, False):
                with self.subTest(dtype=dtype.__name__, per_image=per_image):
                    x_np = random_images(self.rng, (8, 3, 64, 64), dtype)
                    x = torch.from_numpy(x_np).cuda()
                    runs = []
                    for _ in range(2):
                        t = T.GaussianBlur(23, (0.1, 2.0), per_image=per_image,
                                           generator=torch.Generator("cuda").manual_seed(0))
                        y = t(x)
                        self.assertTrue(t.last_sigmas.is_cuda)
                        self.assertEqual(t.last_sigmas.dtype, torch.float32)
                        self.assertEqual(tuple(t.last_sigmas.shape), (8,))
                        runs.append((y, t.last_sigmas.clone()))
                        self.check(y, x_np, t)                               # each image with last_sigmas[i]
                    self.assertTrue(torch.equal(runs[0][0], runs[1][0]))
                    self.assertTrue(torch.equal(runs[0][1], runs[1][1]))
                    want = torch.empty(8 if per_image else 1, device="cuda").uniform_(
                        0.1, 2.0, generator=torch.Generator("cuda").manual_seed(0))   # torchvision's draw, on the device
                    self.assertTrue(torch.equal(runs[0][1], want.expand(8)))
                    sigmas = runs[0][1].tolist()
                    self.assertTrue(all(0.1 <= s <= 2.0 for s in sigmas))
                    self.assertEqual(len(set(sigmas)), 8 if per_image else 1)

    def test_default_cuda_generator_with_device_sigma(self):
        x_np = random_images(self.rng, (6, 3, 40, 40), np.uint8)
        x = torch.from_numpy(x_np).cuda()
        t = T.GaussianBlur((7, 5), (0.3, 2.5), per_image=True, device_sigma=True)
        torch.manual_seed(21)
        a, sa = t(x), t.last_sigmas
        torch.manual_seed(21)
        b, sb = t(x), t.last_sigmas
        self.assertTrue(torch.equal(a, b))
        self.assertTrue(torch.equal(sa, sb))
        self.check(a, x_np, t)
        self.assertEqual(T.GaussianBlur(3, device_sigma=False, generator=torch.Generator("cuda"))(x).shape, x.shape)

    def test_random_gaussian_blur_on_the_device(self):
        for dtype in (np.uint8, np.uint16, np.float32):
            with self.subTest(dtype=dtype.__name__):
                x_np = random_images(self.rng, (64, 3, 24, 24), dtype)
                x = torch.from_numpy(x_np).cuda()
                runs = []
                for _ in range(2):
                    t = T.RandomGaussianBlur(5, (0.1, 2.0), p=0.5, generator=torch.Generator("cuda").manual_seed(1))
                    y = t(x)
                    runs.append((y, t.last_sigmas, t.last_applied))
                y, sigmas, applied = runs[0]
                self.assertTrue(applied.is_cuda and sigmas.is_cuda)
                self.assertEqual(applied.dtype, torch.bool)
                chosen = applied.tolist()
                self.assertTrue(0 < sum(chosen) < 64)
                self.assertEqual(torch.isnan(sigmas).tolist(), [not a for a in chosen])   # NaN: not chosen
                self.assertTrue(torch.equal(y, runs[1][0]))
                self.assertTrue(torch.equal(applied, runs[1][2]))
                got = y.cpu().numpy()
                for i, a in enumerate(chosen):
                    if not a:
                        np.testing.assert_array_equal(got[i], x_np[i])       # bit-identical to the input
                self.check(y, x_np, t, applied)
        x_np = random_images(self.rng, (8, 3, 16, 16), np.uint8)
        x = torch.from_numpy(x_np).cuda()
        g = torch.Generator("cuda").manual_seed(2)
        t = T.RandomGaussianBlur(3, (0.5, 2.0), p=0.0, generator=g)
        y = t(x)
        self.assertTrue(torch.equal(y, x))
        self.assertNotEqual(y.data_ptr(), x.data_ptr())
        self.assertFalse(bool(t.last_applied.any()))
        t = T.RandomGaussianBlur(3, (0.5, 2.0), p=1.0, generator=g)
        y = t(x)
        self.assertTrue(bool(t.last_applied.all()))
        self.check(y, x_np, t, t.last_applied)
        t = T.RandomGaussianBlur(3, (0.5, 2.0), p=0.5, same_on_batch=True, generator=g)
        for _ in range(4):
            y = t(x)
            self.assertEqual(len(set(t.last_applied.tolist())), 1)
            self.assertLessEqual(len(set(s for s in t.last_sigmas.tolist() if s == s)), 1)
            self.check(y, x_np, t, t.last_applied)

    def test_no_synchronisation(self):
        x = torch.from_numpy(random_images(self.rng, (16, 3, 64, 64), np.uint8)).cuda()
        for t in (T.GaussianBlur(9, (0.1, 2.0), per_image=True, generator=torch.Generator("cuda").manual_seed(3)),
                  T.RandomGaussianBlur(9, (0.1, 2.0), p=0.5, generator=torch.Generator("cuda").manual_seed(3)),
                  T.GaussianBlur(9, (0.1, 2.0), device_sigma=True)):
            with self.subTest(t=repr(t)):
                t(x)                                                         # warm-up
                torch.cuda.synchronize()
                slept = torch.cuda.Event()
                torch.cuda._sleep(self.SLEEP_CYCLES)
                slept.record()
                y = t(x)
                self.assertFalse(slept.query(), "the transform waited for the device")
                torch.cuda.synchronize()
                self.check(y, x.cpu().numpy(), t, getattr(t, "last_applied", None))

    def test_graph_replays_draw_new_sigmas(self):
        """The transform captured once (PyTorch's default CUDA generator is part of the capture):
        every replay draws new sigmas into the captured last_sigmas and blurs with them."""
        x_np = random_images(self.rng, (8, 3, 32, 32), np.uint8)
        x = torch.from_numpy(x_np).cuda()
        t = T.GaussianBlur(7, (0.1, 2.0), per_image=True, device_sigma=True)
        g, y = capture_torch_graph(lambda: t(x))
        seen = []
        for _ in range(3):
            g.replay()
            torch.cuda.synchronize()
            seen.append(tuple(t.last_sigmas.tolist()))
            self.check(y, x_np, t)
        self.assertEqual(len(set(seen)), 3, seen)

    @unittest.skipUnless(v2 is not None, "torchvision is not installed")
    def test_in_torchvision_compose(self):
        x_np = random_images(self.rng, (16, 3, 96, 96), np.uint8)
        blur = T.GaussianBlur(23, sigma=(0.1, 2.0), per_image=True, generator=torch.Generator("cuda").manual_seed(0))
        y = v2.Compose([v2.RandomHorizontalFlip(p=0.0), blur])(torch.from_numpy(x_np).cuda())
        self.check(y, x_np, blur)


@unittest.skipUnless(HAVE_CUPY, "needs a CUDA device and CuPy")
class CupyTest(unittest.TestCase):

    def test_cupy_arrays(self):
        rng = np.random.default_rng(2)
        x_np = random_images(rng, (4, 3, 20, 20), np.uint8)
        for t in (T.GaussianBlur(3, (0.5, 2.0), per_image=True, generator=random.Random(1)),
                  T.RandomGaussianBlur(3, (0.5, 2.0), p=0.5, generator=random.Random(1))):
            y = cupy.asnumpy(t(cupy.asarray(x_np)))
            applied = getattr(t, "last_applied", None)
            sigmas = [1.0 if s is None else s for s in t.last_sigmas]
            np.testing.assert_array_equal(y, cpu_reference(x_np, "NCHW", t.kernel_size, sigmas, t.border, applied))

    @unittest.skipUnless(HAVE_TORCH_CUDA, "needs PyTorch with CUDA")
    def test_cupy_arrays_draw_on_the_host(self):
        x_np = random_images(np.random.default_rng(3), (4, 3, 20, 20), np.uint8)
        t = T.GaussianBlur(3, (0.5, 2.0), per_image=True, generator=torch.Generator("cuda").manual_seed(1))
        y = cupy.asnumpy(t(cupy.asarray(x_np)))
        self.assertIsInstance(t.last_sigmas, list)                       # a CUDA generator, drawn for the host
        np.testing.assert_array_equal(y, cpu_reference(x_np, "NCHW", (3, 3), t.last_sigmas, t.border))
        with self.assertRaisesRegex(ValueError, "GaussianBlur: device_sigma=True draws the sigmas with PyTorch on "
                                                "x's device, and x is a CuPy array"):
            T.GaussianBlur(3, device_sigma=True)(cupy.asarray(x_np))


if __name__ == "__main__":
    unittest.main()
