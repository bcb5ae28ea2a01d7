"""A batch of images held by a PyTorch or CuPy tensor (or any ``__cuda_array_interface__`` or DLPack
producer), blurred in place in the GPU memory it already has: ``cv2.cudaimage.tensor``.

``gaussian_blur_batch(x, sigma)`` blurs every image of ``x`` with its own sigma, each result identical
to ``cv2.GaussianBlur`` on that image for uint8 and uint16 (int16 within 1 level, float32 within
1e-5 and float64 within 1e-12 of the largest absolute input value), by
``cv2.cuda.GaussianBatchFilter.applyStacked`` over ``cv2.cuda.createGpuMatFromCudaMemory`` views of the
tensor: no copy in, no copy out, and a number of kernel launches that does not grow with the batch.

Layouts: ``"NHWC"`` (N, H, W, C) with C = 1 to 4, ``"NCHW"`` (N, C, H, W) (each channel plane is
blurred as an image of its own, with its image's sigma) and ``"NHW"`` (N, H, W). A 4-D tensor whose
layout is not given is NHWC when its last dimension is 1 to 4 and its second is not, NCHW in the
opposite case, and refused as ambiguous otherwise. Rows must be contiguous (unit stride across
width and channels); images and planes may lie apart (a slice of a larger batch): such a batch is
passed as a list of views (``GaussianBatchFilter.apply``), still without a copy.

Types: uint8, uint16, int16, float32, float64.

Stream: by default the producer's current stream (``torch.cuda.current_stream()``,
``cupy.cuda.get_current_stream()``), so the blur is ordered after the work that made ``x`` and before
the work that reads the result; or ``stream=`` a ``cv2.cuda.Stream``, a torch or CuPy stream, or a raw
``cudaStream_t`` handle. The call is asynchronous: it returns once the work is enqueued. With a stream
other than the one the tensors' allocator uses, keep ``x`` and ``out`` alive until that stream has
run (``tensor.record_stream`` in PyTorch).

Results: ``out=None`` allocates a tensor of the producer's library like ``x`` (``torch.empty_like``,
``cupy.empty_like``) and returns it; ``out=x`` blurs in place; any other ``out`` of ``x``'s shape and
dtype is written and returned (it must not overlap ``x`` otherwise).

Arguments: ``sigma`` (and ``sigma_y``) is a number for every image, or a sequence, NumPy array or
tensor of one value (every image) or N values (one per image; NCHW: per image, not per plane).
``ksize`` is None (from sigma), an int or a tuple ``(width, height)``: one kernel for every image;
or a list (NumPy array, any sequence but a tuple) of exactly N entries, each an int or a
``(width, height)`` pair: one per image. Everything the call does with host values is legal
during CUDA graph capture.

Sigmas on the device: a ``sigma`` that is a CUDA array (a torch CUDA tensor or a CuPy array, 0-d
or 1-D, of one value or N) stays on the device, read by the kernels themselves
(``GaussianBatchFilter.applyStackedDeviceSigma``), when ``ksize`` is one kernel for every image
with both sizes given (an int or a ``(width, height)`` tuple, no 0), ``sigma_y`` is None or a CUDA
array too, the images of ``x`` and ``out`` lie one below the other (the stacked case: a contiguous
tensor) and are at least 2 x 2. Then nothing is read back: the call does not wait for the device,
and a CUDA graph that captured it replays with the values the sigma memory holds at replay time.
float32 and float64 are read as they are; another dtype (float16, bfloat16, an integer) is
converted to float32 on the device first, on the call's stream. A value <= 0 or NaN means OpenCV's
sigma for the kernel size (``cv2.GaussianBlur``'s sigma = 0), a ``sigma_y`` value <= 0 that image's
sigma. The array must be on x's device and hold its values when the stream reaches the call.
Otherwise a sigma on the device is read back to the host, which waits for it, and is refused while
the current stream is captured into a CUDA graph (the message says which condition was not met).

Gradients: a float32 or float64 torch tensor that requires grad, with grad enabled, is blurred by a
``torch.autograd.Function`` (``_tensor_grad``): the same forward, and as backward the exact adjoint
of the blur, borders included (``My^T @ G @ Mx`` per image with the n x n operator matrix of each
axis). Sigma and ksize are constants (a sigma tensor that requires grad is refused); ``out=`` is
refused then (PyTorch's rule for out= functions), in place included.
"""
from __future__ import annotations

import numbers
from typing import Any, Sequence

import cv2

__all__ = ["gaussian_blur_batch"]

_DEPTHS = {"u1": cv2.CV_8U, "u2": cv2.CV_16U, "i2": cv2.CV_16S, "f4": cv2.CV_32F, "f8": cv2.CV_64F}
_filters: dict[tuple[int, int, int], Any] = {}


class _View:
    """What the CUDA array interface says of one array: pointer, shape, strides in bytes, depth."""

    def __init__(self, obj: Any, name: str):
        self.obj = obj
        if _library(obj) == "torch" and self._from_torch(obj):
            return
        cai = _interface(obj, name)
        typestr = cai["typestr"]
        if typestr[1:] not in _DEPTHS or (typestr[0] == ">" and typestr[2] != "1"):
            raise TypeError("gaussian_blur_batch: %s has dtype %s; allowed: uint8, uint16, int16, float32, float64"
                            % (name, typestr))
        self.depth = _DEPTHS[typestr[1:]]
        self.itemsize = int(typestr[2:])
        self.shape = tuple(int(n) for n in cai["shape"])
        strides = cai.get("strides")
        self.strides = _c_strides(self.shape, self.itemsize) if strides is None else tuple(int(s) for s in strides)
        self.ptr = int(cai["data"][0])
        if cai["data"][1] and name == "out":
            raise ValueError("gaussian_blur_batch: out is read-only")

    def _from_torch(self, t: Any) -> bool:
        """A CUDA tensor of a supported dtype, read from the tensor itself (its array interface is
        built in Python and costs tens of microseconds per call); False leaves the tensor to
        _interface. Strides as the interface gives them: C order whenever PyTorch calls the tensor
        contiguous."""
        typestr = _torch_typestrs().get(t.dtype)
        if typestr is None or not t.is_cuda or t.is_sparse:
            return False
        self.depth = _DEPTHS[typestr]
        self.itemsize = int(typestr[1:])
        self.shape = tuple(t.shape)
        self.strides = (_c_strides(self.shape, self.itemsize) if t.is_contiguous()
                        else tuple(s * self.itemsize for s in t.stride()))
        self.ptr = t.data_ptr()
        return True


def _c_strides(shape: tuple[int, ...], itemsize: int) -> tuple[int, ...]:
    """Strides in bytes of a C-contiguous array."""
    strides: list[int] = []
    step = itemsize
    for n in reversed(shape):
        strides.insert(0, step)
        step *= n
    return tuple(strides)


_torch_dtypes: dict[Any, str] = {}


def _torch_typestrs() -> dict[Any, str]:
    """torch dtype -> the interface's typestr without its byte order, for the supported dtypes."""
    if not _torch_dtypes:
        import torch
        for name, typestr in (("uint8", "u1"), ("uint16", "u2"), ("int16", "i2"), ("float32", "f4"), ("float64", "f8")):
            if hasattr(torch, name):                         # torch.uint16: PyTorch 2.3 and later
                _torch_dtypes[getattr(torch, name)] = typestr
    return _torch_dtypes


def _interface(obj: Any, name: str) -> dict[str, Any]:
    if hasattr(obj, "__cuda_array_interface__"):
        try:
            return obj.__cuda_array_interface__
        except RuntimeError:                                 # a torch tensor that requires grad
            if hasattr(obj, "detach"):
                return obj.detach().__cuda_array_interface__
            raise
    if hasattr(obj, "__dlpack__"):
        # DLPack device types: 2 CUDA, 13 CUDA managed; anything else (a host array) is not ours.
        device = obj.__dlpack_device__()[0] if hasattr(obj, "__dlpack_device__") else 2
        if int(device) not in (2, 13):
            raise TypeError("gaussian_blur_batch: %s (%s) is not a CUDA array (DLPack device type %d)"
                            % (name, type(obj).__name__, int(device)))
        for lib in ("cupy", "torch"):
            try:
                mod = __import__(lib)
                return mod.from_dlpack(obj).__cuda_array_interface__
            except ImportError:
                continue
    raise TypeError("gaussian_blur_batch: %s (%s) is not a CUDA array (no __cuda_array_interface__ or __dlpack__)"
                    % (name, type(obj).__name__))


def _library(obj: Any) -> str:
    mod = type(obj).__module__.split(".")[0]
    return mod if mod in ("torch", "cupy") else ""


def _layout_of(v: _View, layout: str | None) -> str:
    if v.shape and len(v.shape) == 3 and layout in (None, "NHW"):
        return "NHW"
    if len(v.shape) != 4:
        raise ValueError("gaussian_blur_batch: x has shape %s; allowed: 4 dimensions (NHWC, NCHW) or 3 (NHW)"
                         % (v.shape,))
    if layout is not None:
        if layout not in ("NHWC", "NCHW"):
            raise ValueError("gaussian_blur_batch: layout is %r; allowed: 'NHWC', 'NCHW', 'NHW' or None" % layout)
        return layout
    last, second = v.shape[3] <= 4, v.shape[1] <= 4
    if last and not second:
        return "NHWC"
    if second and not last:
        return "NCHW"
    raise ValueError("gaussian_blur_batch: the layout of shape %s is ambiguous; pass layout='NHWC' or 'NCHW'"
                     % (v.shape,))


def _images(v: _View, layout: str, name: str):
    """(cv type, image rows, cols, row step, first pointer, planes, stacked, planes per image) for
    a view: `stacked` when every image (NCHW: every plane) lies right below the previous one at one
    row step, so that the batch is one matrix; `planes` is a function giving each image's (plane's)
    pointer, called only when it is not."""
    if layout == "NHWC":
        n, h, w, c = v.shape
        sn, sh, sw, sc = v.strides
        if not 1 <= c <= 4:
            raise ValueError("gaussian_blur_batch: %s has %d channels (NHWC); allowed: 1 to 4" % (name, c))
        if (sc != v.itemsize and c > 1) or sw != c * v.itemsize:
            raise ValueError("gaussian_blur_batch: %s rows are not contiguous (strides %s); call .contiguous() "
                             "(PyTorch) or cupy.ascontiguousarray first" % (name, v.strides))
        cn, step, per_image = c, sh, 1
        stacked = n == 1 or sn == h * sh

        def planes():
            return [v.ptr + i * sn for i in range(n)]
    else:
        if layout == "NCHW":
            n, c, h, w = v.shape
            sn, sc, sh, sw = v.strides
        else:
            (n, h, w), c = v.shape, 1
            (sn, sh, sw), sc = v.strides, h * v.strides[1]
        if sw != v.itemsize:
            raise ValueError("gaussian_blur_batch: %s rows are not contiguous (strides %s); call .contiguous() "
                             "(PyTorch) or cupy.ascontiguousarray first" % (name, v.strides))
        cn, step, per_image = 1, sh, c
        stacked = (c == 1 or sc == h * sh) and (n == 1 or sn == c * h * sh)

        def planes():
            return [v.ptr + i * sn + k * sc for i in range(n) for k in range(c)]
    stacked = stacked and step >= w * cn * v.itemsize
    return cv2.CV_MAKETYPE(v.depth, cn), h, w, step, planes, stacked, per_image


def _sigmas(sigma: Any, n: int, per_plane: int, name: str, why: str = "") -> list[float]:
    """A sigma argument as a list: [] (None: the filter's), [s] (every image) or one per plane.
    `why`: why a CUDA array is read back here rather than left on the device (for the message
    of a refusal during graph capture)."""
    if sigma is None:
        return []
    if isinstance(sigma, (int, float)):
        return [float(sigma)]
    if not isinstance(sigma, (list, tuple)):
        if isinstance(sigma, numbers.Real):                   # np.float32, np.int64, ...
            return [float(sigma)]
        if isinstance(sigma, (str, bytes)):
            raise TypeError("gaussian_blur_batch: %s is a %s; allowed: a number, or a sequence, NumPy array or "
                            "tensor of numbers (one per image)" % (name, type(sigma).__name__))
        if hasattr(sigma, "tolist"):                          # NumPy, CuPy, torch (a device tensor waits for it)
            _check_array_sigma(sigma, name, why)
            sigma = sigma.tolist()
            if isinstance(sigma, (int, float)):               # a 0-d array or tensor: every image
                return [float(sigma)]
    try:
        values = [float(s) for s in sigma]
    except (TypeError, ValueError):
        raise TypeError("gaussian_blur_batch: %s is %r; allowed: a number, or a sequence, NumPy array or tensor "
                        "of numbers (one per image)" % (name, sigma)) from None
    if len(values) not in (1, n):
        raise ValueError("gaussian_blur_batch: %s has %d values for %d images; allowed: one or one per image"
                         % (name, len(values), n))
    if len(values) == 1 or per_plane == 1:
        return values
    return [s for s in values for _ in range(per_plane)]


def _check_sigma_grad(sigma: Any, name: str) -> None:
    """Refuses a sigma tensor that requires grad (the blur is not differentiable in sigma)."""
    if _library(sigma) == "torch":
        import torch
        if sigma.requires_grad and torch.is_grad_enabled():
            raise ValueError("gaussian_blur_batch: %s requires grad, but the blur is not differentiable with "
                             "respect to sigma (only x is); pass %s.detach() or Python floats" % (name, name))


def _check_array_sigma(sigma: Any, name: str, why: str = "") -> None:
    """Refuses a sigma tensor that requires grad (the blur is not differentiable in sigma) and a
    device array read back while the current stream is captured into a CUDA graph (the read
    synchronises, which would invalidate the capture); `why` says why it is read back."""
    _check_sigma_grad(sigma, name)
    lib = _library(sigma)
    if lib == "torch":
        import torch
        capturing = sigma.is_cuda and torch.cuda.is_current_stream_capturing()
    elif lib == "cupy":
        import cupy
        capturing = getattr(cupy.cuda.get_current_stream(), "is_capturing", lambda: False)()
    else:
        return
    if capturing:
        raise RuntimeError("gaussian_blur_batch: %s is a CUDA array and the current stream is being captured "
                           "into a CUDA graph; reading its values back to the host would synchronise and "
                           "invalidate the capture. To keep sigmas on the device (no read-back) pass ksize as "
                           "one kernel for every image (an int or a (width, height) tuple, no 0), sigma on the "
                           "device with sigma_y None or on the device too, and a batch whose images lie one "
                           "below the other (a contiguous tensor; images at least 2 x 2)%s. Or during capture "
                           "pass %s as host values: Python floats (a list) or a NumPy array"
                           % (name, "; here " + why if why else "", name))


def _is_device_array(obj: Any) -> bool:
    """Whether obj is a torch CUDA tensor or a CuPy array (the sigmas that can stay on the device)."""
    lib = _library(obj)
    if lib == "torch":
        return bool(getattr(obj, "is_cuda", False)) and hasattr(obj, "data_ptr")
    return lib == "cupy" and hasattr(obj, "__cuda_array_interface__") and hasattr(obj, "device")


def _array_device(obj: Any) -> int | None:
    """The CUDA device ordinal of a torch CUDA tensor or a CuPy array; None for anything else."""
    lib = _library(obj)
    if lib == "torch" and getattr(obj, "is_cuda", False):
        index = obj.device.index
        return int(index) if index is not None else None
    if lib == "cupy" and hasattr(obj, "device"):
        return int(obj.device.id)
    return None


def _device_path_refusal(sigma: Any, sigma_y: Any, ks: list[tuple[int, int]], ksize: Any, stacked: bool,
                         h: int, w: int) -> str:
    """Why the sigmas cannot stay on the device for this call ('' when they can): the conditions
    of applyStackedDeviceSigma that the arguments decide."""
    if not _is_device_array(sigma):
        return ("sigma is a host value and sigma_y a CUDA array" if _is_device_array(sigma_y) else "sigma is not a "
                "CUDA array")
    if sigma_y is not None and not _is_device_array(sigma_y):
        return "sigma_y is a host value while sigma is on the device"
    if ksize is None:
        return "ksize is None (the kernel size would come from the sigma values)"
    if len(ks) != 1:
        return "ksize is one kernel per image (a list)"
    if ks[0][0] == 0 or ks[0][1] == 0:
        return "ksize %s has a 0 (that size would come from the sigma values)" % (ks[0],)
    if not stacked:
        return "the images of x (or out) do not lie one below the other (a slice or a strided view)"
    if h < 2 or w < 2:
        return "the images are %d x %d (smaller than 2 x 2)" % (w, h)
    return ""


def _check_device_sigma(sigma: Any, name: str, n: int) -> None:
    """The checks of a CUDA sigma array that read nothing from the device: no grad, a real dtype,
    0-d or 1-D, one value or n."""
    if _library(sigma) == "torch":
        import torch
        _check_sigma_grad(sigma, name)
        real = not sigma.is_complex() and sigma.dtype != torch.bool
        dims, count = sigma.dim(), sigma.numel()
    else:
        real = sigma.dtype.kind in "fiu"
        dims, count = sigma.ndim, sigma.size
    if not real:
        raise TypeError("gaussian_blur_batch: %s has dtype %s; allowed: a real dtype (float32 and float64 are read as "
                        "they are, others converted to float32)" % (name, sigma.dtype))
    if dims > 1:
        raise TypeError("gaussian_blur_batch: %s has shape %s; allowed: a number, or one dimension of one value "
                        "or one per image" % (name, tuple(sigma.shape)))
    if count not in (1, n):
        raise ValueError("gaussian_blur_batch: %s has %d values for %d images; allowed: one or one per image"
                         % (name, count, n))


def _device_sigma(sigma: Any, name: str, device: int, stream: Any, x: Any) -> tuple[Any, Any]:
    """A CUDA sigma array (checked by _check_device_sigma) as the 1 x K GpuMat (CV_32FC1 or
    CV_64FC1) applyStackedDeviceSigma reads, and the array that holds that memory (the caller
    keeps it alive until the call is enqueued). Another dtype than float32 / float64, or a
    non-contiguous array, is converted on the device, on the call's stream: so the conversion is
    ordered with the blur, and its memory, allocated on that stream, is not reused before the blur
    has run (no record_stream needed). Nothing here reads the values."""
    where = _array_device(sigma)
    if where is not None and where != device:
        raise ValueError("gaussian_blur_batch: %s is on CUDA device %d and x on device %d; allowed: a %s on x's "
                         "device (in PyTorch %s.to(x.device))" % (name, where, device, name, name))
    if _library(sigma) == "torch":
        import torch
        values = sigma.detach()
        if values.dtype not in (torch.float32, torch.float64) or not values.is_contiguous():
            dtype = values.dtype if values.dtype in (torch.float32, torch.float64) else torch.float32
            with _torch_stream(torch, _stream_handle(stream, x), values.device):
                values = values.to(dtype).contiguous()
        ptr, count = values.data_ptr(), values.numel()
        cv_type = cv2.CV_32FC1 if values.dtype == torch.float32 else cv2.CV_64FC1
    else:
        values = sigma
        if values.dtype.name not in ("float32", "float64") or not values.flags.c_contiguous:
            import cupy
            dtype = values.dtype if values.dtype.name in ("float32", "float64") else cupy.float32
            with values.device, _cupy_stream(cupy, _stream_handle(stream, x)):
                values = cupy.ascontiguousarray(values.astype(dtype, copy=False))
        ptr, count = int(values.data.ptr), int(values.size)
        cv_type = cv2.CV_32FC1 if values.dtype.name == "float32" else cv2.CV_64FC1
    return cv2.cuda.createGpuMatFromCudaMemory(1, count, cv_type, ptr), values


class _NoStreamChange:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        return None


def _torch_stream(torch: Any, handle: int, device: Any) -> Any:
    """A context making the stream `handle` PyTorch's current stream on `device` (nothing when it is)."""
    if handle == torch.cuda.current_stream(device).cuda_stream:
        return _NoStreamChange()
    if handle in (0, 1):
        return torch.cuda.stream(torch.cuda.default_stream(device))
    return torch.cuda.stream(torch.cuda.ExternalStream(handle, device=device))


def _cupy_stream(cupy: Any, handle: int) -> Any:
    """A context making the stream `handle` CuPy's current stream (nothing when it is)."""
    if handle == cupy.cuda.get_current_stream().ptr:
        return _NoStreamChange()
    if handle in (0, 1):
        return cupy.cuda.Stream.null
    return cupy.cuda.ExternalStream(handle)


def _ksize_pair(k: Any) -> tuple[int, int] | None:
    """An int k -> (k, k); a pair of ints -> (w, h); None for anything else."""
    if type(k) is int:
        return k, k
    if type(k) is tuple and len(k) == 2 and type(k[0]) is int and type(k[1]) is int:
        return k[0], k[1]
    if isinstance(k, numbers.Integral) and not isinstance(k, bool):
        return int(k), int(k)
    if isinstance(k, (tuple, list)) and len(k) == 2 and all(
            isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in k):
        return int(k[0]), int(k[1])
    return None


def _ksizes(ksize: Any, n: int, per_plane: int) -> list[tuple[int, int]]:
    """ksize as a list: [] (None: from sigma), [(w, h)] (an int or a (w, h) tuple: every image) or
    one per plane (a list, array or other non-tuple sequence of exactly n ints or (w, h) pairs)."""
    if ksize is None:
        return []
    if isinstance(ksize, int) and not isinstance(ksize, bool):
        return [(ksize, ksize)]
    if isinstance(ksize, tuple):
        if len(ksize) == 2 and type(ksize[0]) is int and type(ksize[1]) is int:
            return [(ksize[0], ksize[1])]
        pair = _ksize_pair(ksize)
        if pair is None:
            raise ValueError("gaussian_blur_batch: ksize is the tuple %r; a tuple is one kernel for every image "
                             "and must be (width, height), two ints; for one kernel per image pass a list of "
                             "%d entries" % (ksize, n))
        return [pair]
    if hasattr(ksize, "tolist"):                             # NumPy array or scalar, tensor
        ksize = ksize.tolist()
    if isinstance(ksize, numbers.Integral) and not isinstance(ksize, bool):
        return [(int(ksize), int(ksize))]
    if isinstance(ksize, (str, bytes)) or not hasattr(ksize, "__len__"):
        raise TypeError("gaussian_blur_batch: ksize is a %s; allowed: None, an int, a (width, height) tuple "
                        "(every image) or a list of one int or (width, height) per image"
                        % type(ksize).__name__)
    if len(ksize) != n:
        raise ValueError("gaussian_blur_batch: ksize is a list of %d entries for %d images; a list (or array) "
                         "gives one kernel per image and must have %d entries; for one kernel for every image "
                         "pass an int or a (width, height) tuple" % (len(ksize), n, n))
    sizes = []
    for i, k in enumerate(ksize):
        pair = _ksize_pair(k)
        if pair is None:
            raise TypeError("gaussian_blur_batch: ksize[%d] is %r; allowed: an int or a (width, height) pair of ints"
                            % (i, k))
        sizes.append(pair)
    return sizes if per_plane == 1 else [s for s in sizes for _ in range(per_plane)]


def _stream_handle(stream: Any, x: Any) -> int:
    """The raw cudaStream_t of the stream the call runs on (see _cv_stream)."""
    if isinstance(stream, cv2.cuda.Stream):
        return int(stream.cudaPtr())
    if stream is None:
        lib = _library(x)
        if lib == "torch":
            import torch
            stream = torch.cuda.current_stream(x.device).cuda_stream
        elif lib == "cupy":
            import cupy
            stream = cupy.cuda.get_current_stream().ptr
        else:
            stream = 0
    elif hasattr(stream, "cuda_stream"):
        stream = stream.cuda_stream
    elif hasattr(stream, "ptr"):
        stream = stream.ptr
    return int(stream)


def _cv_stream(stream: Any, x: Any) -> Any:
    if isinstance(stream, cv2.cuda.Stream):
        return stream
    handle = _stream_handle(stream, x)
    if handle in (0, 1):                                     # the legacy default stream
        return cv2.cuda.Stream.Null() if hasattr(cv2.cuda.Stream, "Null") else cv2.cuda.Stream_Null()
    return cv2.cuda.wrapStream(handle)


def _filter(cv_type: int, border: int) -> Any:
    key = (cv_type, border, cv2.cuda.getDevice())
    f = _filters.get(key)
    if f is None:
        f = _filters[key] = cv2.cuda.createGaussianBlurBatch(cv_type, -1, (0, 0), 1.0, 0.0, border)
    return f


def gaussian_blur_batch(x: Any, sigma: float | Sequence[float] | Any, sigma_y: float | Sequence[float] | Any = None,
                        ksize: int | tuple[int, int] | Sequence[Any] | None = None, *, layout: str | None = None,
                        out: Any = None, border: int = cv2.BORDER_REPLICATE, stream: Any = None) -> Any:
    """Blurs every image of the batch ``x`` with its own Gaussian; returns the result tensor.

    ``sigma``: a number (every image), or one per image (a sequence, NumPy array or tensor of N
    values; one value is every image); ``sigma_y``: the same, None for sigma. ``ksize``: None (from
    sigma, OpenCV's rule), an odd int or a tuple (width, height): one kernel for every image; a list
    (or array) of exactly N entries, each an int or a (width, height) pair: one per image.
    ``layout``: 'NHWC', 'NCHW', 'NHW' or None (see the module). ``out``: None (a new tensor like
    ``x``), ``x`` (in place) or a tensor of x's shape and dtype. ``border``: cv2.BORDER_REPLICATE
    (default), BORDER_REFLECT_101, BORDER_REFLECT, BORDER_WRAP, BORDER_CONSTANT. ``stream``: None
    (the producer's current stream) or a stream (see the module). A float torch tensor that requires
    grad (with grad enabled) gets a result with a ``grad_fn``; then ``out`` must be None.

    A ``sigma`` on the device (torch CUDA tensor, CuPy array) with ``ksize`` one kernel for every
    image (int or tuple, no 0), ``sigma_y`` None or on the device, and a contiguous batch stays on
    the device: no host synchronisation, CUDA-graph replays read the values current at replay time
    (see the module). Otherwise it is read back to the host.
    """
    if getattr(x, "requires_grad", False) and _library(x) == "torch":
        from . import _tensor_grad
        import torch
        if torch.is_grad_enabled():
            return _blur_with_grad(_tensor_grad, x, sigma, sigma_y, ksize, layout, out, border, stream)
    return _blur(x, sigma, sigma_y, ksize, layout, out, border, stream)


def _blur_with_grad(grad: Any, x: Any, sigma: Any, sigma_y: Any, ksize: Any, layout: str | None, out: Any,
                    border: int, stream: Any) -> Any:
    """The blur as a torch.autograd.Function (_tensor_grad): the same forward, and the adjoint as
    its backward. The arguments are read once, here, into host lists."""
    if out is x:
        raise RuntimeError("gaussian_blur_batch: in place (out=x) on a tensor that requires grad is refused: "
                           "autograd needs x unchanged; call without out=, or under torch.no_grad()")
    if out is not None:
        raise RuntimeError("gaussian_blur_batch: out= does not support automatic differentiation and x requires "
                           "grad (PyTorch's rule for out= functions); call without out=, or pass x.detach()")
    src = _View(x, "x")
    lay = _layout_of(src, layout)
    n = src.shape[0]
    why = "x requires grad, and the autograd path reads sigma on the host (use x.detach() or torch.no_grad())"
    sx = _sigmas(sigma, n, 1, "sigma", why)
    sy = _sigmas(sigma_y, n, 1, "sigma_y", why)
    ks = _ksizes(ksize, n, 1)

    def one(values: list[Any]) -> Any:
        return None if not values else values[0] if len(values) == 1 else values

    def blur(t: Any) -> Any:
        return _blur(t, one(sx), one(sy), one(ks), lay, None, border, stream)

    plan = grad._Plan(lay, src.depth, sx, sy, ks, border)
    return grad.function().apply(x, blur, plan)


def _blur(x: Any, sigma: Any, sigma_y: Any, ksize: Any, layout: str | None, out: Any, border: int,
          stream: Any) -> Any:
    src = _View(x, "x")
    lay = _layout_of(src, layout)
    if out is None:
        lib = _library(x)
        if lib == "torch":
            import torch
            out = torch.empty_like(x)
        elif lib == "cupy":
            import cupy
            out = cupy.empty_like(x)
        else:
            raise TypeError("gaussian_blur_batch: x is a %s; pass out= (a CUDA array of x's shape and dtype)"
                            % type(x).__name__)
    dst = _View(out, "out")
    if dst.shape != src.shape or dst.depth != src.depth:
        raise ValueError("gaussian_blur_batch: out has shape %s and dtype depth %d; x has %s and %d"
                         % (dst.shape, dst.depth, src.shape, src.depth))
    cv_type, h, w, step, planes, stacked, per_image = _images(src, lay, "x")
    _, _, _, dstep, dplanes, dstacked, _ = _images(dst, lay, "out")
    n = src.shape[0]
    count = n * per_image
    ks = _ksizes(ksize, n, per_image)
    why = _device_path_refusal(sigma, sigma_y, _ksizes(ksize, n, 1), ksize, stacked and dstacked, h, w)
    if not why:
        return _blur_device_sigma(x, src, dst, out, sigma, sigma_y, ks[0], cv_type, h, w, step, dstep, count,
                                  border, stream)
    sx = _sigmas(sigma, n, per_image, "sigma", why)
    sy = _sigmas(sigma_y, n, per_image, "sigma_y", why)
    s = _cv_stream(stream, x)
    f = _filter(cv_type, border)
    if stacked and dstacked:
        g_src = cv2.cuda.createGpuMatFromCudaMemory(h * count, w, cv_type, src.ptr, step)
        g_dst = cv2.cuda.createGpuMatFromCudaMemory(h * count, w, cv_type, dst.ptr, dstep)
        f.applyStacked(g_src, g_dst, h, sx, sy, ks, s)
    else:
        g_src = [cv2.cuda.createGpuMatFromCudaMemory(h, w, cv_type, p, step) for p in planes()]
        g_dst = [cv2.cuda.createGpuMatFromCudaMemory(h, w, cv_type, p, dstep) for p in dplanes()]
        f.apply(g_src, g_dst, sx, sy, ks, s)
    return out


def _blur_device_sigma(x: Any, src: _View, dst: _View, out: Any, sigma: Any, sigma_y: Any, ksize: tuple[int, int],
                       cv_type: int, h: int, w: int, step: int, dstep: int, count: int, border: int,
                       stream: Any) -> Any:
    """The stacked batch blurred with sigmas that stay on the device (applyStackedDeviceSigma):
    nothing is read back. The sigma arrays hold 1 or N values for the `count` = N * planes-per-image
    images of the matrix; the filter's grouping rule (value j serves images [j count / K, (j + 1)
    count / K)) gives each value its image's planes."""
    n = src.shape[0]
    _check_device_sigma(sigma, "sigma", n)
    if sigma_y is not None:
        _check_device_sigma(sigma_y, "sigma_y", n)
    device = _array_device(x)
    if device is None:                                        # x of another producer: the current device
        device = cv2.cuda.getDevice()
    g_sx, keep_x = _device_sigma(sigma, "sigma", device, stream, x)
    if sigma_y is None:
        g_sy, keep_y = cv2.cuda.GpuMat(), None
    else:
        g_sy, keep_y = _device_sigma(sigma_y, "sigma_y", device, stream, x)
    s = _cv_stream(stream, x)
    f = _filter(cv_type, border)
    g_src = cv2.cuda.createGpuMatFromCudaMemory(h * count, w, cv_type, src.ptr, step)
    g_dst = cv2.cuda.createGpuMatFromCudaMemory(h * count, w, cv_type, dst.ptr, dstep)
    if ksize == (1, 1):
        # A 1 x 1 kernel is a copy whatever the sigma (cv2.getGaussianKernel(1, s) is [1]):
        # applyStackedDeviceSigma refuses it, applyStacked copies.
        f.applyStacked(g_src, g_dst, h, [1.0], [], [ksize], s)
    else:
        f.applyStackedDeviceSigma(g_src, g_dst, h, g_sx, g_sy, ksize, s)
    del keep_x, keep_y                                        # enqueued: the converted sigmas may go
    return out
