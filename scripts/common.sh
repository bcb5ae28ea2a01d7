# Shared settings for the scripts in this folder (sourced, not run).
# Everything heavy lives in a cache outside the clone, keyed by what determines it,
# so a second run (or CI on the same machine) reuses it.
CUDAIMAGE_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OPENCV_DEB_VERSION=4.10.0+dfsg-5            # the patch below was written for exactly this
OPENCV_UPSTREAM_VERSION=4.10.0
OPENCV_PATCH="$CUDAIMAGE_REPO/scripts/opencv-4.10-cuda13.patch"
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
CUDA_ARCH_BIN=${CUDA_ARCH_BIN:-9.0}           # H100/H200; e.g. "8.6;9.0" for more GPUs
CUDAIMAGE_CACHE=${CUDAIMAGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cudaimage}
PYTHON_SYSTEM=/usr/bin/python3                # Debian's; cv2 uses the limited API (abi3)

# The OpenCV tree's key: what determines its output (version, patch, options, compiler).
opencv_key() {
    { echo "$OPENCV_DEB_VERSION"; cat "$OPENCV_PATCH" "$CUDAIMAGE_REPO/scripts/opencv-configure.cmake";
      "$CUDA_HOME/bin/nvcc" --version 2>/dev/null | tail -1; } | sha256sum | cut -c1-10
}
OPENCV_KEY="${OPENCV_UPSTREAM_VERSION}-sm${CUDA_ARCH_BIN//[.;]/}-$(opencv_key)"
# realpath: a tree is tied to the absolute paths it was configured with (a link may point to it)
OPENCV_ROOT=$(realpath -m "$CUDAIMAGE_CACHE/opencv-$OPENCV_KEY")
OPENCV_SRC="$OPENCV_ROOT/src"
OPENCV_BUILD="$OPENCV_ROOT/build"
OPENCV_INSTALL="$OPENCV_ROOT/install"
VENV="$CUDAIMAGE_CACHE/venv-py$($PYTHON_SYSTEM -c 'import sys;print("%d%d"%sys.version_info[:2])' 2>/dev/null)"

BUILD_LOCK=/tmp/cudaimage-build.lock          # serialises builds in the cached trees

step() { printf '\n==> [%s] %s\n' "$(date +%H:%M:%S)" "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }
