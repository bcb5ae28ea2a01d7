"""Helpers shared by the Python tests (not a test module itself)."""
import os


def gpu_available():
    """Whether this process sees a CUDA device (False without a driver, or for a cv2 without CUDA)."""
    import cv2
    try:
        return cv2.cuda.getCudaEnabledDeviceCount() > 0
    except (AttributeError, cv2.error):
        return False


def find_samples(marker):
    """The repository's (or the GPU bundle's) samples/ folder: $CUDAIMAGE_SAMPLES_DIR, else the
    first samples/ above this file that holds samples/python/<marker>; None if there is none."""
    env = os.environ.get("CUDAIMAGE_SAMPLES_DIR")
    if env:
        return env
    d = os.path.dirname(os.path.abspath(__file__))
    for _ in range(5):
        candidate = os.path.join(d, "samples")
        if os.path.isfile(os.path.join(candidate, "python", marker)):
            return candidate
        d = os.path.dirname(d)
    return None
