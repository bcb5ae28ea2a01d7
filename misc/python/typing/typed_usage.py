"""Every public name of cudaimage's Python API, used with its types: mypy --strict checks this file
against cv2's typing stubs (misc/python/test/test_typing.py), so a stub that loses a name or a
parameter type fails the test. It also runs (python misc/python/typing/typed_usage.py, with a CUDA
GPU), but the tests only type-check it."""
from __future__ import annotations

import numpy as np
import numpy.typing as npt

import cv2
import cv2.cudaimage.dask
import cv2.cudaimage.tensor
import cv2.cudaimage.transforms
import dask.array as da


def blur_synced(image: npt.NDArray[np.uint8], sigma: float, stream: cv2.cuda.Stream) -> cv2.typing.MatLike:
    """cv2.cuda.SyncedMat with a filter from cv2.cuda.createGaussianBlur (applyFilter, applyFilterInPlace)."""
    blur: cv2.cuda.Filter = cv2.cuda.createGaussianBlur(cv2.CV_8UC1, -1, (0, 0), sigma, sigma,
                                                        cv2.BORDER_REFLECT_101, cv2.BORDER_REFLECT_101)
    src = cv2.cuda.SyncedMat(image)
    dst: cv2.cuda.SyncedMat = cv2.cuda.applyFilter(blur, src, cv2.cuda.SyncedMat(), stream)
    cv2.cuda.applyFilterInPlace(blur, dst, stream)
    view: cv2.typing.MatLike = dst.readHost()                # read-only view of the page-locked memory
    copy: cv2.typing.MatLike = dst.readHostCopy()
    assert view.shape == copy.shape
    written: cv2.typing.MatLike = cv2.cudaimage.host_view(src, "w")
    written[:] = 0
    return copy


def blur_gpumat(image: npt.NDArray[np.uint8], sigma: float) -> cv2.typing.MatLike:
    """cv2.cuda.GaussianBlur on a cv2.cuda.GpuMat, on a cv2.cuda.Stream."""
    stream = cv2.cuda.Stream()
    src = cv2.cuda.GpuMat()
    src.upload(image, stream)
    out: cv2.cuda.GpuMat = cv2.cuda.GaussianBlur(src, (0, 0), sigma, stream=stream)
    result: cv2.typing.MatLike = out.download(stream)
    stream.waitForCompletion()
    return result


def blur_batch(images: list[npt.NDArray[np.uint8]], sigma: float) -> list[cv2.typing.MatLike]:
    """cv2.cuda.processBatchGaussian: a list of images over every GPU."""
    return list(cv2.cuda.processBatchGaussian(images, (0, 0), sigma))


def blur_gpumat_batch(images: list[npt.NDArray[np.uint8]], sigmas: list[float], stream: cv2.cuda.Stream) -> list[cv2.cuda.GpuMat]:
    """cv2.cuda.createGaussianBlurBatch / cv2.cuda.GaussianBlurBatch: lists and stacked images, per-image sigma."""
    src = [cv2.cuda.GpuMat(i) for i in images]
    f: cv2.cuda.GaussianBatchFilter = cv2.cuda.createGaussianBlurBatch(cv2.CV_8UC1, -1, (0, 0), 1.0)
    out: list[cv2.cuda.GpuMat] = list(f.apply(src, [], sigmas, [], [], stream))
    stacked = cv2.cuda.GpuMat(np.vstack(images))
    blurred: cv2.cuda.GpuMat = f.applyStacked(stacked, cv2.cuda.GpuMat(), images[0].shape[0], sigmas, stream=stream)
    device_sigmas = cv2.cuda.GpuMat(np.asarray(sigmas, np.float32).reshape(1, -1))   # read on the device
    again: cv2.cuda.GpuMat = f.applyStackedDeviceSigma(stacked, cv2.cuda.GpuMat(), images[0].shape[0], device_sigmas,
                                                       cv2.cuda.GpuMat(), (5, 5), stream)
    assert f.srcType() == f.dstType() and blurred.size() == stacked.size() == again.size()
    return list(cv2.cuda.GaussianBlurBatch(src, out, sigmas, stream=stream))


def blur_tensor(x: object, sigmas: list[float], device_sigmas: object) -> object:
    """cv2.cudaimage.tensor.gaussian_blur_batch: a PyTorch or CuPy batch, blurred where it lies;
    sigmas on the host, or on the device (a CUDA tensor) with one ksize for every image."""
    y = cv2.cudaimage.tensor.gaussian_blur_batch(x, sigmas, layout="NHWC", border=cv2.BORDER_REFLECT_101)
    return cv2.cudaimage.tensor.gaussian_blur_batch(y, device_sigmas, ksize=(23, 23), layout="NHWC", out=y)


def blur_transforms(x: object) -> object:
    """cv2.cudaimage.transforms: GaussianBlur and RandomGaussianBlur (torch.nn.Modules with PyTorch)."""
    blur = cv2.cudaimage.transforms.GaussianBlur((3, 5), (0.1, 2.0), per_image=True, border="reflect")
    random_blur = cv2.cudaimage.transforms.RandomGaussianBlur(5, (0.1, 2.0), p=0.5, border=cv2.BORDER_REFLECT_101,
                                                              device_sigma=None)
    device_blur = cv2.cudaimage.transforms.GaussianBlur(23, (0.1, 2.0), per_image=True, device_sigma=True)
    sigma: float = cv2.cudaimage.transforms.GaussianBlur.get_params(0.1, 2.0)
    y = random_blur(blur(device_blur(x)))
    sigmas: list[float] = blur.last_sigmas
    chosen: list[bool] = random_blur.last_applied
    drawn: object = device_blur.last_sigmas                   # a CUDA tensor: drawn on the device
    assert blur.kernel_size == (3, 5) and sigma > 0 and len(sigmas) == len(chosen) and drawn is not None
    return y


def device_views(m: cv2.cuda.SyncedMat, stream: cv2.cuda.Stream) -> tuple[int, int]:
    """SyncedMat.deviceArray / cv2.cudaimage.device_array and their CUDA array interface, DLPack."""
    a: cv2.cudaimage.DeviceArray = m.deviceArray(stream, readonly=True)
    b = cv2.cudaimage.device_array(m, stream)
    gpu: cv2.cuda.GpuMat = b.gpumat
    assert a.readonly and not b.readonly and gpu.size() == m.size()
    interface = a.__cuda_array_interface__
    assert interface["shape"][:2] == (m.rows(), m.cols())
    device_type, device_id = m.__dlpack_device__()
    return device_type, device_id


def blur_dask(x: da.Array, sigma: float) -> da.Array:
    """cv2.cudaimage.dask.gaussian_blur and kernel_size."""
    kx, ky = cv2.cudaimage.dask.kernel_size(x.dtype, (0, 0), sigma)
    assert kx % 2 == 1 and ky % 2 == 1
    return cv2.cudaimage.dask.gaussian_blur(x, (0, 0), sigma, device="auto")


def main() -> None:
    name: str = cv2.cudaimage.device_name(0)
    print("GPU 0:", name, "=", cv2.cuda.DeviceInfo(0).name())
    image = np.random.default_rng(0).integers(0, 256, (480, 640), dtype=np.uint8)
    reflect = cv2.GaussianBlur(image, (0, 0), 2.0, borderType=cv2.BORDER_REFLECT_101)
    replicate = cv2.GaussianBlur(image, (0, 0), 2.0, borderType=cv2.BORDER_REPLICATE)
    stream = cv2.cuda.Stream()
    assert np.array_equal(blur_synced(image, 2.0, stream), cv2.GaussianBlur(reflect, (0, 0), 2.0,
                                                                             borderType=cv2.BORDER_REFLECT_101))
    assert np.array_equal(blur_gpumat(image, 2.0), replicate)     # cv2.cuda's default border: REPLICATE
    assert all(np.array_equal(r, replicate) for r in blur_batch([image, image], 2.0))
    print("DLPack device:", device_views(cv2.cuda.SyncedMat(image), stream))
    y = blur_dask(da.from_array(image, chunks=(240, 320)), 2.0)
    assert np.array_equal(y.compute(), replicate)
    print("typed_usage: OK")

if __name__ == "__main__":
    main()
