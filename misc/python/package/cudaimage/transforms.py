"""Gaussian-blur transforms for augmentation pipelines: ``cv2.cudaimage.transforms``.

``GaussianBlur(kernel_size, sigma=(0.1, 2.0))`` takes the arguments of torchvision's
``torchvision.transforms.v2.GaussianBlur`` and ``RandomGaussianBlur(kernel_size, sigma, p=0.5)``
those of kornia's ``kornia.augmentation.RandomGaussianBlur``. Both blur CUDA tensors (PyTorch, or
CuPy arrays) with ``cv2.cudaimage.tensor.gaussian_blur_batch``: one call for the whole batch, each
image with its own sigma, and each image of the result identical to ``cv2.GaussianBlur`` on that
image, with the sigma drawn and the transform's kernel size and border, for uint8 and uint16
(int16 within 1 level, float32 within 1e-5, float64 within 1e-12 of the largest absolute value).

With PyTorch importable both are ``torch.nn.Module`` s, so they go into
``torchvision.transforms.v2.Compose``, ``nn.Sequential`` or a model; without it they are plain
callables (for CuPy arrays).

Inputs: a CUDA tensor of dtype uint8, uint16, int16, float32 or float64, shaped (..., C, H, W)
(``layout="NCHW"``, the default, as torchvision: every leading dimension is a batch dimension, a
(C, H, W) image is a batch of one, each channel plane is blurred with its image's sigma) or
(..., H, W, C) with C = 1 to 4 (``layout="NHWC"``). The result is a new tensor of the input's shape
and dtype (never in place); a torchvision ``tv_tensors.Image`` or ``Video`` comes back as one.

Sigma: a number (fixed, used as given) or a range ``(min, max)`` with ``0 < min <= max``, drawn
uniformly: with ``generator`` (a ``torch.Generator``, CPU or CUDA, or a ``random.Random``) or,
without one, PyTorch's global generator (``torch.manual_seed`` makes it reproducible), or Python's
``random`` module where PyTorch is not installed. PyTorch draws are
``torch.empty(n, device=...).uniform_(min, max, generator=...)`` in float32, as torchvision draws
its sigma, so with the same seed and no generator ``GaussianBlur(k, s)`` draws torchvision's sigma.
The same sigma blurs both axes. The sigmas of the latest call are in ``last_sigmas`` (one per image
of the flattened batch).

Where the draws are made (``device_sigma``): on the host by default, as a list of floats handed to
the blur. On the device (``device_sigma=True``, or by default when ``generator`` is a CUDA
``torch.Generator``; torch tensors only): the sigmas (and ``RandomGaussianBlur``'s decisions) are
drawn into CUDA tensors, on x's device, from the CUDA generator given or, without one, PyTorch's
default CUDA generator of that device (``torch.manual_seed`` seeds it too), and handed to the blur
as they are (``gaussian_blur_batch``'s device-sigma path): nothing is read back, so a call never
waits for the GPU, and a CUDA graph that captured it draws new sigmas at each replay (PyTorch's
default CUDA generator is part of every capture; a generator of your own must be registered with
the graph, as for any PyTorch random op).
``last_sigmas`` (and ``last_applied``) are then CUDA tensors; reading their values waits for the
GPU only when you read them. ``RandomGaussianBlur`` on the device blurs every image and keeps the
images not chosen with ``torch.where`` on the device: one more elementwise pass over the batch.
For CuPy arrays the draws stay on the host.

Differences from torchvision and kornia:

* The pixels are ``cv2.GaussianBlur``'s (taps from ``cv2.getGaussianKernel``, 8-bit and 16-bit
  results rounded as OpenCV rounds them), not a float convolution: torchvision and kornia differ from
  ``cv2.GaussianBlur`` in a few to a few tens of percent of 8-bit pixels, by one level.
* ``border`` defaults to ``cv2.BORDER_REFLECT_101``, which is torchvision's (and kornia's) 'reflect'
  padding; any of ``cv2.BORDER_REFLECT_101``, ``BORDER_REPLICATE``, ``BORDER_REFLECT``,
  ``BORDER_WRAP``, ``BORDER_CONSTANT`` (zeros), or kornia's names 'reflect', 'replicate',
  'circular', 'constant'. The results are exact against ``cv2.GaussianBlur`` with the same border.
* The kernel is ``kernel_size`` as given, ``(width, height)`` (torchvision's ``(kx, ky)``), for every
  sigma, as torchvision and kornia do; it is never derived from sigma.
* ``GaussianBlur(per_image=False)`` (the default) draws one sigma per call for the whole batch, as
  torchvision does; ``per_image=True`` draws one per image, which is what an augmentation of a
  batch usually wants. ``RandomGaussianBlur`` draws per image, as kornia does.
* A fixed sigma is used as given (torchvision rounds it to float32 and draws it all the same).
* ``RandomGaussianBlur`` keeps the input's shape (kornia's ``keepdim=True``), and accepts integer
  images as well as float ones.
* Only CUDA tensors: a host tensor, a NumPy array or a PIL image is refused (move it to CUDA first).
"""
from __future__ import annotations

import math
import numbers
import random
import sys
from typing import TYPE_CHECKING, Any, Sequence, Union

import cv2

from . import tensor as _tensor

__all__ = ["GaussianBlur", "RandomGaussianBlur", "BORDERS"]

#: kornia's (and torch.nn.functional.pad's) border names and the cv2 border each one is.
BORDERS = {"reflect": cv2.BORDER_REFLECT_101, "replicate": cv2.BORDER_REPLICATE,
           "circular": cv2.BORDER_WRAP, "constant": cv2.BORDER_CONSTANT}
_CV_BORDERS = {cv2.BORDER_REFLECT_101: "BORDER_REFLECT_101", cv2.BORDER_REPLICATE: "BORDER_REPLICATE",
               cv2.BORDER_REFLECT: "BORDER_REFLECT", cv2.BORDER_WRAP: "BORDER_WRAP",
               cv2.BORDER_CONSTANT: "BORDER_CONSTANT"}
_DTYPES = ("uint8", "uint16", "int16", "float32", "float64")

KernelSize = Union[int, Sequence[int]]
Sigma = Union[float, Sequence[float]]
Border = Union[int, str]


class _Callable:
    """The base of the transforms where PyTorch is not installed: calling one calls forward()."""

    def __call__(self, x: Any) -> Any:
        return self.forward(x)  # type: ignore[attr-defined]

    def __repr__(self) -> str:
        return "%s(%s)" % (type(self).__name__, self.extra_repr())  # type: ignore[attr-defined]


def _torch() -> Any:
    """The torch module, or None where it is not installed (or cannot be imported)."""
    try:
        import torch
    except (ImportError, OSError):
        return None
    return torch


if TYPE_CHECKING:
    from torch.nn import Module as _Base
else:
    _Base = _torch().nn.Module if _torch() is not None else _Callable


def _kernel_size(kernel_size: Any, who: str) -> tuple[int, int]:
    """kernel_size as (width, height): an int, or a sequence of one or two ints, each odd and >= 1."""
    def is_int(v: Any) -> bool:
        return isinstance(v, numbers.Integral) and not isinstance(v, bool)

    if is_int(kernel_size):
        pair = [kernel_size, kernel_size]
    elif isinstance(kernel_size, (str, bytes)) or not isinstance(kernel_size, Sequence) and not hasattr(
            kernel_size, "tolist"):
        raise TypeError("%s: kernel_size is a %s; allowed: an odd positive int, or a (width, height) pair of "
                        "them" % (who, type(kernel_size).__name__))
    else:
        values = kernel_size.tolist() if hasattr(kernel_size, "tolist") else list(kernel_size)
        if is_int(values):
            values = [values]
        if len(values) not in (1, 2):
            raise ValueError("%s: kernel_size is %r; allowed: an odd positive int, or a (width, height) pair of "
                             "them" % (who, kernel_size))
        if not all(is_int(v) for v in values):
            raise TypeError("%s: kernel_size is %r; allowed: an odd positive int, or a (width, height) pair of "
                            "them" % (who, kernel_size))
        pair = values * 2 if len(values) == 1 else values
    kx, ky = int(pair[0]), int(pair[1])
    if kx <= 0 or ky <= 0 or kx % 2 == 0 or ky % 2 == 0:
        raise ValueError("%s: kernel_size is %r; each size must be odd and positive (1, 3, 5, ...)"
                         % (who, kernel_size))
    return kx, ky


def _sigma_range(sigma: Any, who: str) -> tuple[float, float]:
    """sigma as (min, max): a positive number (min == max), or a sequence of one or two, 0 < min <= max."""
    def number(v: Any) -> float:
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise TypeError("%s: sigma is %r; allowed: a positive number, or a range (min, max) of them"
                            % (who, sigma))
        return float(v)

    if hasattr(sigma, "tolist") and not isinstance(sigma, numbers.Real):   # a NumPy array, a tensor
        sigma = sigma.tolist()
    if isinstance(sigma, numbers.Real) and not isinstance(sigma, bool):
        values = [float(sigma)]
    elif isinstance(sigma, Sequence) and not isinstance(sigma, (str, bytes)) and len(sigma) in (1, 2):
        values = [number(v) for v in sigma]
    elif isinstance(sigma, Sequence) and not isinstance(sigma, (str, bytes)):
        raise ValueError("%s: sigma has %d values; allowed: a positive number, or a range (min, max)"
                         % (who, len(sigma)))
    else:
        raise TypeError("%s: sigma is a %s; allowed: a positive number, or a range (min, max) of them"
                        % (who, type(sigma).__name__))
    lo, hi = values[0], values[-1]
    if not all(math.isfinite(v) for v in values):
        raise ValueError("%s: sigma is %r; its values must be finite" % (who, sigma))
    if not 0.0 < lo <= hi:
        raise ValueError("%s: sigma is %r; allowed: a positive number, or a range (min, max) with "
                         "0 < min <= max" % (who, sigma))
    return lo, hi


def _border(border: Any, who: str) -> int:
    if isinstance(border, str):
        if border not in BORDERS:
            raise ValueError("%s: border is %r; allowed: %s, or a cv2 border constant"
                             % (who, border, ", ".join(repr(b) for b in BORDERS)))
        return BORDERS[border]
    if isinstance(border, numbers.Integral) and not isinstance(border, bool) and int(border) in _CV_BORDERS:
        return int(border)
    raise ValueError("%s: border is %r; allowed: %s (cv2 constants), or %s"
                     % (who, border, ", ".join("cv2.%s" % n for n in _CV_BORDERS.values()),
                        ", ".join(repr(b) for b in BORDERS)))


def _layout(layout: Any, who: str) -> str:
    if layout not in ("NCHW", "NHWC"):
        raise ValueError("%s: layout is %r; allowed: 'NCHW' ((..., C, H, W), torchvision's) or 'NHWC' "
                         "((..., H, W, C), C = 1 to 4)" % (who, layout))
    return str(layout)


def _generator(generator: Any, who: str) -> Any:
    if generator is None or isinstance(generator, random.Random):
        return generator
    torch = _torch()
    if torch is not None and isinstance(generator, torch.Generator):
        return generator
    raise TypeError("%s: generator is a %s; allowed: None (PyTorch's global generator, or Python's random), "
                    "a torch.Generator or a random.Random" % (who, type(generator).__name__))


def _uniform(lo: float, hi: float, n: int, generator: Any) -> list[float]:
    """n values drawn uniformly in [lo, hi]: with a random.Random, or with torch (float32, as
    torchvision: torch.empty(n).uniform_(lo, hi)) from the generator or torch's global one, or
    Python's random where torch is not installed."""
    if isinstance(generator, random.Random):
        return [generator.uniform(lo, hi) for _ in range(n)]
    torch = _torch()
    if torch is None:
        return [random.uniform(lo, hi) for _ in range(n)]
    device = generator.device if generator is not None else "cpu"
    values: list[float] = torch.empty(n, device=device).uniform_(lo, hi, generator=generator).tolist()
    return values


def _is_cuda_generator(generator: Any) -> bool:
    torch = _torch()
    return torch is not None and isinstance(generator, torch.Generator) and generator.device.type == "cuda"


def _device_sigma(device_sigma: Any, generator: Any, who: str) -> bool | None:
    """The constructor's device_sigma: None (device draws when the generator is a CUDA
    torch.Generator), True (device draws: needs PyTorch, and a CUDA torch.Generator or none) or False."""
    if device_sigma is not None and not isinstance(device_sigma, bool):
        raise TypeError("%s: device_sigma is a %s; allowed: None (on the device when generator is a CUDA "
                        "torch.Generator), True or False" % (who, type(device_sigma).__name__))
    if device_sigma:
        if _torch() is None:
            raise ValueError("%s: device_sigma=True draws the sigmas with PyTorch, which is not installed" % who)
        if generator is not None and not _is_cuda_generator(generator):
            what = "a CPU torch.Generator" if isinstance(generator, _torch().Generator) else "a random.Random"
            raise ValueError("%s: device_sigma=True draws on the device, and generator is %s; allowed with it: "
                             "a CUDA torch.Generator (torch.Generator('cuda')) or None (PyTorch's default CUDA "
                             "generator)" % (who, what))
    return device_sigma


def _draws_on_device(device_sigma: bool | None, generator: Any, batch: "_Batch", who: str) -> bool:
    """Whether this call draws on the device: device_sigma, or (None) a CUDA generator; torch only."""
    on_device = _is_cuda_generator(generator) if device_sigma is None else device_sigma
    if batch.lib != "torch":
        if device_sigma:
            raise ValueError("%s: device_sigma=True draws the sigmas with PyTorch on x's device, and x is a CuPy "
                             "array; pass a torch tensor, or use device_sigma=None or False" % who)
        return False
    if on_device and generator is not None:
        torch = _torch()
        g_index = generator.device.index if generator.device.index is not None else torch.cuda.current_device()
        if batch.x.device.type != "cuda" or batch.x.device.index != g_index:
            raise ValueError("%s: generator is on cuda:%d and x on %s; a device draw needs the generator on x's "
                             "device" % (who, g_index, batch.x.device))
    return on_device


def _device_uniform(lo: float, hi: float, n: int, generator: Any, device: Any) -> Any:
    """n values uniform in [lo, hi] drawn on the device (float32, torchvision's draw), not read back."""
    import torch
    return torch.empty(n, device=device).uniform_(lo, hi, generator=generator)


def _device_sigmas(lo: float, hi: float, per_image: bool, n: int, generator: Any, device: Any) -> tuple[Any, Any]:
    """(the sigma argument for gaussian_blur_batch, the n sigmas of the images as a CUDA tensor):
    a fixed sigma (lo == hi) is the Python float itself and a float64 tensor filled with it (no
    draw); one draw for the batch is the 1-value tensor and a view of it repeated n times; per
    image, the n-value tensor for both."""
    import torch
    if lo == hi:
        return lo, torch.full((n,), lo, dtype=torch.float64, device=device)
    if per_image:
        values = _device_uniform(lo, hi, n, generator, device)
        return values, values
    one = _device_uniform(lo, hi, 1, generator, device)
    return one, one.expand(n)


def _rand(n: int, generator: Any) -> list[float]:
    """n values uniform in [0, 1), from the same source as _uniform."""
    if isinstance(generator, random.Random):
        return [generator.random() for _ in range(n)]
    torch = _torch()
    if torch is None:
        return [random.random() for _ in range(n)]
    device = generator.device if generator is not None else "cpu"
    values: list[float] = torch.rand(n, device=device, generator=generator).tolist()
    return values


class _Batch:
    """A CUDA tensor as the batch gaussian_blur_batch blurs: (N, C, H, W) or (N, H, W, C) with
    every leading dimension folded into N, and the way back to the input's shape and type. Checks
    everything before any CUDA call."""

    def __init__(self, x: Any, layout: str, who: str):
        mod = type(x).__module__.split(".")[0]
        torch = sys.modules.get("torch")                      # a torch tensor means torch is imported
        if torch is not None and isinstance(x, torch.Tensor):
            self.lib = "torch"
            dtype = str(x.dtype).replace("torch.", "")
            if not x.is_cuda:
                raise ValueError("%s: x is on the %s device; these transforms blur CUDA tensors: move it to CUDA "
                                 "first (x.cuda() or x.to('cuda'))" % (who, x.device.type))
        elif mod == "cupy" and hasattr(x, "__cuda_array_interface__"):
            self.lib = "cupy"
            dtype = str(x.dtype)
        else:
            where = "a NumPy array on the host" if mod == "numpy" else "a %s.%s" % (type(x).__module__,
                                                                                 type(x).__name__)
            raise TypeError("%s: x is %s; these transforms blur CUDA tensors (PyTorch, or CuPy arrays): move it "
                            "to CUDA first (torch.as_tensor(x, device='cuda'), cupy.asarray(x); a PIL image "
                            "through torchvision.transforms.v2.PILToTensor() first)" % (who, where))
        if dtype not in _DTYPES:
            raise TypeError("%s: x has dtype %s; allowed: %s (convert it first, e.g. x.float())"
                            % (who, dtype, ", ".join(_DTYPES)))
        shape = tuple(int(s) for s in x.shape)
        if len(shape) < 3:
            raise ValueError("%s: x has shape %s; allowed: (..., C, H, W) for layout 'NCHW', (..., H, W, C) for "
                             "'NHWC' (a single image has 3 dimensions)" % (who, shape))
        if layout == "NHWC" and not 1 <= shape[-1] <= 4:
            raise ValueError("%s: x has shape %s and layout 'NHWC', so %d channels; allowed: 1 to 4 (for "
                             "(..., C, H, W) images pass layout='NCHW')" % (who, shape, shape[-1]))
        self.x = x
        self.shape = shape
        self.n = math.prod(shape[:-3])
        self.empty = math.prod(shape) == 0

    def images(self) -> Any:
        """The input as a contiguous 4-D batch of plain tensors (a view where it can be)."""
        x = self.x
        if self.lib == "torch":
            import torch
            if type(x) is not torch.Tensor:                    # a torchvision tv_tensor: blur the plain tensor
                x = x.as_subclass(torch.Tensor)
            if not x.is_contiguous():
                x = x.contiguous()
        else:
            import cupy
            x = cupy.ascontiguousarray(x)
        return x.reshape((self.n,) + self.shape[-3:])

    def copy(self) -> Any:
        """A new tensor equal to the input (the result when nothing is blurred)."""
        return self.x.clone() if self.lib == "torch" else self.x.copy()

    def result(self, y: Any) -> Any:
        """y (the blurred 4-D batch) in the input's shape, and a tv_tensor again if the input was one."""
        y = y.reshape(self.shape)
        tv_tensors = sys.modules.get("torchvision.tv_tensors")
        if self.lib == "torch" and tv_tensors is not None and isinstance(self.x, tv_tensors.TVTensor):
            y = tv_tensors.wrap(y, like=self.x)
        return y


class GaussianBlur(_Base):  # type: ignore[misc, unused-ignore]
    """Blurs CUDA image tensors with a Gaussian of a random sigma, as
    ``torchvision.transforms.v2.GaussianBlur(kernel_size, sigma)``, each image identical to
    ``cv2.GaussianBlur(image, self.kernel_size, s, sigmaY=s, borderType=self.border)`` with its
    sigma ``s`` (``self.last_sigmas``).

    ``kernel_size``: an odd positive int or ``(width, height)`` (torchvision's ``(kx, ky)``).
    ``sigma``: a positive number (fixed) or a range ``(min, max)``, ``0 < min <= max``, drawn
    uniformly. ``per_image``: False (torchvision's behaviour) draws one sigma per call for the whole
    batch, True one per image (per (C, H, W) image of the flattened leading dimensions).
    ``border``: ``cv2.BORDER_REFLECT_101`` (torchvision's 'reflect' padding, the default) or another
    cv2 border or kornia border name (see the module). ``generator``: a ``torch.Generator`` or
    ``random.Random`` to draw from; None: PyTorch's global generator (Python's ``random`` without
    PyTorch). ``layout``: 'NCHW' ((..., C, H, W), torchvision's) or 'NHWC' ((..., H, W, C)).
    ``device_sigma``: None (the default: on the device when ``generator`` is a CUDA
    ``torch.Generator``, on the host otherwise), True (on the device: drawn into a CUDA tensor from
    the CUDA generator or PyTorch's default CUDA generator of x's device, handed to the blur without
    a read-back; ``last_sigmas`` is that tensor) or False (on the host, ``last_sigmas`` a list).

    Returns a new tensor of the input's shape and dtype. Raises ValueError or TypeError, naming the
    argument, for a bad argument (in the constructor) or input (before any CUDA call).
    """

    def __init__(self, kernel_size: KernelSize, sigma: Sigma = (0.1, 2.0), *, per_image: bool = False,
                 border: Border = cv2.BORDER_REFLECT_101, generator: Any = None, layout: str = "NCHW",
                 device_sigma: bool | None = None):
        super().__init__()
        who = type(self).__name__
        self.kernel_size: tuple[int, int] = _kernel_size(kernel_size, who)
        self.sigma: tuple[float, float] = _sigma_range(sigma, who)
        if not isinstance(per_image, bool):
            raise TypeError("%s: per_image is a %s; allowed: True or False" % (who, type(per_image).__name__))
        self.per_image: bool = per_image
        self.border: int = _border(border, who)
        self.generator: Any = _generator(generator, who)
        self.layout: str = _layout(layout, who)
        self.device_sigma: bool | None = _device_sigma(device_sigma, self.generator, who)
        #: The sigma each image of the latest call was blurred with (one per image of the batch,
        #: leading dimensions flattened): a list of floats for host draws, a CUDA tensor (float32
        #: drawn, float64 for a fixed sigma) for device draws.
        self.last_sigmas: list[float] | Any = []

    @staticmethod
    def get_params(sigma_min: float, sigma_max: float, generator: Any = None) -> float:
        """A sigma drawn uniformly in [sigma_min, sigma_max], as torchvision's
        ``GaussianBlur.get_params``: ``torch.empty(1).uniform_(sigma_min, sigma_max).item()``, from
        ``generator`` (a torch.Generator or random.Random) or PyTorch's global generator."""
        return _uniform(float(sigma_min), float(sigma_max), 1, _generator(generator, "GaussianBlur.get_params"))[0]

    def _draw(self, n: int) -> list[float]:
        lo, hi = self.sigma
        if lo == hi:
            return [lo] * n
        if self.per_image:
            return _uniform(lo, hi, n, self.generator)
        return _uniform(lo, hi, 1, self.generator) * n

    def forward(self, x: Any) -> Any:
        """The blurred copy of ``x`` (see the class)."""
        batch = _Batch(x, self.layout, type(self).__name__)
        if _draws_on_device(self.device_sigma, self.generator, batch, type(self).__name__):
            return self._forward_on_device(batch)
        sigmas = self._draw(batch.n)
        self.last_sigmas = sigmas
        if batch.empty:
            return batch.copy()
        sigma: Any = sigmas[0] if not self.per_image else sigmas
        y = _tensor.gaussian_blur_batch(batch.images(), sigma, None, self.kernel_size, layout=self.layout,
                                        border=self.border)
        return batch.result(y)

    def _forward_on_device(self, batch: _Batch) -> Any:
        """forward() with the sigmas drawn on the device and given to the blur as a CUDA tensor."""
        lo, hi = self.sigma
        sigma, self.last_sigmas = _device_sigmas(lo, hi, self.per_image, batch.n, self.generator, batch.x.device)
        if batch.empty:
            return batch.copy()
        y = _tensor.gaussian_blur_batch(batch.images(), sigma, None, self.kernel_size, layout=self.layout,
                                        border=self.border)
        return batch.result(y)

    def extra_repr(self) -> str:
        return "kernel_size=%s, sigma=%s, per_image=%s, border=%s, layout=%r%s" % (
            self.kernel_size, self.sigma, self.per_image, _CV_BORDERS.get(self.border, self.border), self.layout,
            "" if self.device_sigma is None else ", device_sigma=%s" % self.device_sigma)


class RandomGaussianBlur(_Base):  # type: ignore[misc, unused-ignore]
    """Blurs each image of a batch with probability ``p``, with a sigma of its own, as
    ``kornia.augmentation.RandomGaussianBlur(kernel_size, sigma, p=p)``; images not chosen are left
    as they are. Each chosen image is identical to ``cv2.GaussianBlur(image, self.kernel_size, s,
    sigmaY=s, borderType=self.border)`` with its sigma ``s`` (``self.last_sigmas``; None for an
    image not chosen; ``self.last_applied`` says which were).

    ``kernel_size``, ``sigma``, ``border``, ``generator``, ``layout``: as for :class:`GaussianBlur`
    (kornia's ``border_type`` names are accepted as ``border``: 'reflect', the default, as
    ``cv2.BORDER_REFLECT_101``). ``p``: the probability, in [0, 1], that an image is blurred.
    ``same_on_batch``: one decision and one sigma for the whole batch (kornia's argument).

    Draws, per call: the decisions (one uniform value per image, an image is chosen when its value
    is below ``p``; none for p = 0 or 1), then a sigma per chosen image, in the order of the batch.
    The whole batch is one call of ``gaussian_blur_batch``: images not chosen get a 1 x 1 kernel,
    which ``cv2.GaussianBlur`` (and the GPU filter) applies as an exact copy. Returns a new tensor
    of the input's shape and dtype (also when no image is chosen).

    ``device_sigma``: as for :class:`GaussianBlur`. On the device the decisions are drawn too
    (``torch.rand(n, device=..., generator=...) < p``, one value for ``same_on_batch``; none for
    p = 0 or 1), then a sigma for every image (chosen or not; one for ``same_on_batch``; none for
    a fixed sigma); the whole batch is blurred with them in one call and the images not chosen are
    taken back from the input by ``torch.where`` on the device (one more elementwise pass; exact
    copies). ``last_applied`` is then a bool CUDA tensor and ``last_sigmas`` a CUDA tensor with NaN
    where an image was not chosen.
    """

    def __init__(self, kernel_size: KernelSize, sigma: Sigma, p: float = 0.5, *, same_on_batch: bool = False,
                 border: Border = cv2.BORDER_REFLECT_101, generator: Any = None, layout: str = "NCHW",
                 device_sigma: bool | None = None):
        super().__init__()
        who = type(self).__name__
        self.kernel_size: tuple[int, int] = _kernel_size(kernel_size, who)
        self.sigma: tuple[float, float] = _sigma_range(sigma, who)
        if isinstance(p, bool) or not isinstance(p, numbers.Real):
            raise TypeError("%s: p is a %s; allowed: a probability, a number in [0, 1]" % (who, type(p).__name__))
        if not 0.0 <= float(p) <= 1.0:
            raise ValueError("%s: p is %r; allowed: a probability, a number in [0, 1]" % (who, p))
        self.p: float = float(p)
        if not isinstance(same_on_batch, bool):
            raise TypeError("%s: same_on_batch is a %s; allowed: True or False" % (who, type(same_on_batch).__name__))
        self.same_on_batch: bool = same_on_batch
        self.border: int = _border(border, who)
        self.generator: Any = _generator(generator, who)
        self.layout: str = _layout(layout, who)
        self.device_sigma: bool | None = _device_sigma(device_sigma, self.generator, who)
        #: Per image of the latest call: its sigma, or None where it was left as it was (device
        #: draws: a CUDA tensor, NaN where it was left as it was).
        self.last_sigmas: list[float | None] | Any = []
        #: Per image of the latest call: whether it was blurred (device draws: a bool CUDA tensor).
        self.last_applied: list[bool] | Any = []

    def _choose(self, n: int) -> list[bool]:
        if self.p == 0.0 or self.p == 1.0:
            return [self.p == 1.0] * n
        if self.same_on_batch:
            return [_rand(1, self.generator)[0] < self.p] * n
        return [u < self.p for u in _rand(n, self.generator)]

    def _draw(self, applied: list[bool]) -> list[float | None]:
        lo, hi = self.sigma
        count = sum(applied)
        if count == 0:
            return [None] * len(applied)
        if lo == hi:
            drawn = [lo] * count
        elif self.same_on_batch:
            drawn = _uniform(lo, hi, 1, self.generator) * count
        else:
            drawn = _uniform(lo, hi, count, self.generator)
        values = iter(drawn)
        return [next(values) if a else None for a in applied]

    def forward(self, x: Any) -> Any:
        """The copy of ``x`` with the chosen images blurred (see the class)."""
        batch = _Batch(x, self.layout, type(self).__name__)
        if _draws_on_device(self.device_sigma, self.generator, batch, type(self).__name__):
            return self._forward_on_device(batch)
        applied = self._choose(batch.n)
        sigmas = self._draw(applied)
        self.last_applied, self.last_sigmas = applied, sigmas
        if batch.empty or not any(applied):
            return batch.copy()
        # Images not chosen: a 1 x 1 kernel (an exact copy) with the range's low end as its sigma.
        sigma = [self.sigma[0] if s is None else s for s in sigmas]
        ksize: Any = self.kernel_size if all(applied) else [self.kernel_size if a else (1, 1) for a in applied]
        y = _tensor.gaussian_blur_batch(batch.images(), sigma, None, ksize, layout=self.layout, border=self.border)
        return batch.result(y)

    def _forward_on_device(self, batch: _Batch) -> Any:
        """forward() with the decisions and sigmas drawn on the device: every image blurred in one
        call, the images not chosen taken back from the input by torch.where."""
        import torch
        n, device, g = batch.n, batch.x.device, self.generator
        lo, hi = self.sigma
        if self.p == 0.0 or self.p == 1.0:
            applied = torch.full((n,), self.p == 1.0, dtype=torch.bool, device=device)
        elif self.same_on_batch:
            applied = (torch.rand(1, device=device, generator=g) < self.p).expand(n)
        else:
            applied = torch.rand(n, device=device, generator=g) < self.p
        self.last_applied = applied
        if self.p == 0.0:
            self.last_sigmas = torch.full((n,), float("nan"), device=device)
            return batch.copy()
        sigma, drawn = _device_sigmas(lo, hi, not self.same_on_batch, n, g, device)
        self.last_sigmas = drawn if self.p == 1.0 else drawn.masked_fill(~applied, float("nan"))
        if batch.empty:
            return batch.copy()
        images = batch.images()
        y = _tensor.gaussian_blur_batch(images, sigma, None, self.kernel_size, layout=self.layout, border=self.border)
        if self.p != 1.0:
            keep = applied.reshape((n, 1, 1, 1))
            if y.dtype == getattr(torch, "uint16", None):     # torch.where has no uint16 kernel: same bits as int16
                y = torch.where(keep, y.view(torch.int16), images.view(torch.int16)).view(torch.uint16)
            else:
                y = torch.where(keep, y, images)
        return batch.result(y)

    def extra_repr(self) -> str:
        return "kernel_size=%s, sigma=%s, p=%s, same_on_batch=%s, border=%s, layout=%r%s" % (
            self.kernel_size, self.sigma, self.p, self.same_on_batch, _CV_BORDERS.get(self.border, self.border),
            self.layout, "" if self.device_sigma is None else ", device_sigma=%s" % self.device_sigma)
