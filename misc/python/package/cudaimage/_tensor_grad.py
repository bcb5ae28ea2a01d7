"""The autograd path of ``cv2.cudaimage.tensor.gaussian_blur_batch``: a ``torch.autograd.Function``
whose forward is the library's blur and whose backward is its exact adjoint, borders included.

The blur is separable and linear: per image (per channel plane) ``Y = My @ X @ Mx^T``, where ``Mx``
(``w`` x ``w``) and ``My`` (``h`` x ``h``) are the operators of one axis: row ``i`` holds the taps
centred on ``i``, each added at the column that the border maps ``i + t - r`` to
(``M[i, border(i + t - r)] += k[t]``; BORDER_CONSTANT drops what falls outside, its value being 0).
The taps are those the forward uses: ``cv2.getGaussianKernel(ksize, sigma, CV_64F)``, rounded to
float for a float32 batch (the kernels filter float32 with float taps). So the gradient with
respect to X is ``My^T @ G @ Mx`` per image, computed with ``torch.matmul``, batched over the
images that share a kernel. Sigma and ksize are constants: nothing flows to them.

``axis_entries`` and ``axis_matrix`` need NumPy only (no PyTorch, no GPU), so a test can check the
operator against CPU ``cv2.GaussianBlur``; torch is imported only when a gradient is asked for.
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Any, Callable

import numpy as np
import cv2

_BORDERS = (cv2.BORDER_CONSTANT, cv2.BORDER_REPLICATE, cv2.BORDER_REFLECT, cv2.BORDER_WRAP, cv2.BORDER_REFLECT_101)


def kernel_size(sigma: float, depth: int) -> int:
    """OpenCV's kernel size for a sigma (cv::cuda::gaussianKernelSize): cvRound(sigma * 3 * 2 + 1) | 1
    for CV_8U, cvRound(sigma * 4 * 2 + 1) | 1 for the other depths (cvRound: half to even, as round)."""
    return int(round(sigma * (3 if depth == cv2.CV_8U else 4) * 2 + 1)) | 1


def resolve(depth: int, ksize: tuple[int, int], sigma_x: float, sigma_y: float) -> tuple[int, float, int, float]:
    """(kernel width, sigma x, kernel height, sigma y) by the library's rules (resolveShape):
    sigma_y <= 0 takes sigma_x; a ksize <= 0 comes from its sigma; a sigma <= 0 is left to
    cv2.getGaussianKernel, which derives it from the ksize."""
    kw, kh = ksize
    if sigma_y <= 0:
        sigma_y = sigma_x
    if kw <= 0 and sigma_x > 0:
        kw = kernel_size(sigma_x, depth)
    if kh <= 0 and sigma_y > 0:
        kh = kernel_size(sigma_y, depth)
    return kw, max(sigma_x, 0.0), kh, max(sigma_y, 0.0)


def taps(ksize: int, sigma: float, float32: bool) -> np.ndarray:
    """The forward's taps as float64: getGaussianKernel in double, rounded to float for float32."""
    k = cv2.getGaussianKernel(ksize, sigma, ktype=cv2.CV_64F).ravel()
    return k.astype(np.float32).astype(np.float64) if float32 else k


def border_index(p: np.ndarray, n: int, border: int) -> np.ndarray:
    """cv2.borderInterpolate over an array of positions; -1 where BORDER_CONSTANT leaves the image."""
    b = border & ~cv2.BORDER_ISOLATED
    if b == cv2.BORDER_REPLICATE:
        return np.asarray(np.clip(p, 0, n - 1))
    if b == cv2.BORDER_WRAP:
        return np.asarray(np.mod(p, n))
    if b == cv2.BORDER_REFLECT:                        # fedcba|abcdefgh|hgfedcb, period 2n
        q = np.mod(p, 2 * n)
        return np.asarray(np.where(q < n, q, 2 * n - 1 - q))
    if b == cv2.BORDER_REFLECT_101:                    # gfedcb|abcdefgh|gfedcba, period 2n - 2
        if n == 1:
            return np.zeros_like(p)
        q = np.mod(p, 2 * n - 2)
        return np.asarray(np.where(q < n, q, 2 * n - 2 - q))
    if b == cv2.BORDER_CONSTANT:
        return np.asarray(np.where((p >= 0) & (p < n), p, -1))
    raise ValueError("gaussian_blur_batch: border is %d; allowed: %s" % (border, _BORDERS))


def axis_entries(n: int, ksize: int, sigma: float, border: int,
                 float32: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The operator of one axis of length n as (rows, cols, values), duplicates not summed
    (n * ksize entries, fewer for BORDER_CONSTANT)."""
    k = taps(ksize, sigma, float32)
    r = ksize // 2
    rows = np.repeat(np.arange(n, dtype=np.int64), ksize)
    offsets = np.tile(np.arange(ksize, dtype=np.int64) - r, n)
    cols = border_index(rows + offsets, n, border)
    vals = np.tile(k, n)
    keep = cols >= 0
    if not keep.all():
        rows, cols, vals = rows[keep], cols[keep], vals[keep]
    return rows, cols, vals


def axis_matrix(n: int, ksize: int, sigma: float, border: int, float32: bool = False) -> np.ndarray:
    """The operator of one axis as a dense float64 n x n NumPy matrix (for tests)."""
    rows, cols, vals = axis_entries(n, ksize, sigma, border, float32)
    m = np.zeros((n, n))
    np.add.at(m, (rows, cols), vals)
    return m


# Operator matrices on the device, by (n, ksize, sigma, border, dtype, device): a training loop
# that blurs with the same sigmas every step builds them once. Bounded in bytes.
_CACHE_BYTES = 256 << 20
_cache: OrderedDict[tuple[Any, ...], Any] = OrderedDict()
_cache_bytes = 0


def _device_matrix(torch: Any, n: int, ksize: int, sigma: float, border: int, dtype: Any, device: Any) -> Any:
    global _cache_bytes
    key = (n, ksize, sigma, border & ~cv2.BORDER_ISOLATED, dtype, device)
    m = _cache.get(key)
    if m is not None:
        _cache.move_to_end(key)
        return m
    rows, cols, vals = axis_entries(n, ksize, sigma, border, dtype == torch.float32)
    m = torch.zeros((n, n), dtype=torch.float64, device=device)
    m.index_put_((torch.from_numpy(rows).to(device), torch.from_numpy(cols).to(device)),
                 torch.from_numpy(vals).to(device), accumulate=True)      # summed in double
    m = m.to(dtype)
    size = m.numel() * m.element_size()
    if size <= _CACHE_BYTES:
        _cache[key] = m
        _cache_bytes += size
        while _cache_bytes > _CACHE_BYTES:
            _, old = _cache.popitem(last=False)
            _cache_bytes -= old.numel() * old.element_size()
    return m


def _pick(values: list[Any], i: int, default: Any) -> Any:
    return default if not values else values[0] if len(values) == 1 else values[i]


class _Plan:
    """What the backward needs: the per-image arguments as the forward took them."""

    def __init__(self, layout: str, depth: int, sx: list[float], sy: list[float], ks: list[tuple[int, int]],
                 border: int):
        self.layout, self.depth, self.sx, self.sy, self.ks, self.border = layout, depth, sx, sy, ks, border


def adjoint(torch: Any, g: Any, plan: _Plan) -> Any:
    """The gradient with respect to x: My^T @ G @ Mx for every image (every plane)."""
    if plan.layout == "NHWC":
        gp = g.permute(0, 3, 1, 2)
    elif plan.layout == "NHW":
        gp = g.unsqueeze(1)
    else:
        gp = g
    n, _, h, w = gp.shape
    groups: dict[tuple[Any, ...], list[int]] = {}
    for i in range(n):
        key = resolve(plan.depth, _pick(plan.ks, i, (0, 0)), _pick(plan.sx, i, 1.0), _pick(plan.sy, i, 0.0))
        groups.setdefault(key, []).append(i)

    def apply(key: tuple[Any, ...], part: Any) -> Any:
        kw, sx, kh, sy = key
        mx = _device_matrix(torch, w, kw, sx, plan.border, g.dtype, g.device)
        my = _device_matrix(torch, h, kh, sy, plan.border, g.dtype, g.device)
        return torch.matmul(torch.matmul(my.transpose(0, 1), part), mx)

    if len(groups) == 1:
        rp = apply(next(iter(groups)), gp)
    else:
        rp = torch.empty_like(gp)
        for key, idx in groups.items():
            index = torch.tensor(idx, device=g.device)
            rp[index] = apply(key, gp[index])
    if plan.layout == "NHWC":
        return rp.permute(0, 2, 3, 1)
    if plan.layout == "NHW":
        return rp.squeeze(1)
    return rp


_function: Any = None


def function() -> Any:
    """The torch.autograd.Function (defined on first use, so that this module imports without torch)."""
    global _function
    if _function is None:
        import torch

        class GaussianBlurBatch(torch.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any, blur: Callable[[Any], Any], plan: _Plan) -> Any:
                ctx.plan = plan
                return blur(x)

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                return adjoint(torch, g, ctx.plan), None, None

        _function = GaussianBlurBatch
    return _function
