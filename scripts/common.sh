# Shared settings for the scripts in this folder and its subfolders (sourced, not run).
# Everything heavy lives in a cache outside the clone, keyed by what determines it,
# so a second run (or CI on the same machine) reuses it.
CUDAIMAGE_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
CUDA_ARCH_BIN=${CUDA_ARCH_BIN:-9.0}           # H100/H200; e.g. "8.6;9.0" for more GPUs
CUDAIMAGE_CACHE=${CUDAIMAGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cudaimage}
PYTHON_SYSTEM=/usr/bin/python3                # Debian's; cv2 uses the limited API (abi3)

# OpenCV line: 5.1 (default) or 4.14. Source: OpenCV's own PyPI source package
# (opencv-contrib-python sdist: opencv/ and opencv_contrib/), pinned by SHA-256.
OPENCV_LINE=${OPENCV_LINE:-5.1}
case $OPENCV_LINE in
    5.1)  OPENCV_SDIST_VERSION=5.1.0.95
          OPENCV_SDIST_SHA256=68e98c989685db112c28e7e921c783324cd3b14ffc0b188ae5ea59fbbfca9bfc ;;
    4.14) OPENCV_SDIST_VERSION=4.14.0.94
          OPENCV_SDIST_SHA256=f2e58020b9f54d68b49553a161327ae1bbc47da68e147231d444c915ee4cab4c ;;
    *) printf 'error: OPENCV_LINE=%s; supported: 5.1, 4.14\n' "$OPENCV_LINE" >&2; exit 1 ;;
esac
OPENCV_UPSTREAM_VERSION=${OPENCV_SDIST_VERSION%.*}   # 5.1.0.95 -> 5.1.0

# NPP from NVIDIA's PyPI wheel (the CUDA 13.0 toolkit here has none), matching the toolkit.
NPP_WHEEL_VERSION=13.0.1.2
NPP_WHEEL_SHA256=70a53f1eb78a4c4c6a9ad08b50d28fbd1c190e03a4b45a0e0ffbdd794cc919a3
# A toolkit root made of links to $CUDA_HOME plus NPP's headers and libraries, so OpenCV's
# FindCUDA finds NPP without anything being written into the system toolkit.
CUDA_NPP_ROOT="$CUDAIMAGE_CACHE/cuda-npp-$NPP_WHEEL_VERSION"

# Device code of the OpenCV tree (OpenCV's CUDA modules and ours):
#   sass   (default) optimised machine code for CUDA_ARCH_BIN: what a GPU runs.
#   check  PTX for the same architectures, without device optimisation (cicc -O0) and without
#          ptxas: every CUDA source still goes through nvcc's front end, cicc and the host
#          compiler, so whatever fails to compile fails, in about a third of the time (cicc's
#          optimiser and ptxas are 85 % of OpenCV's CUDA compile time). For machines without a GPU,
#          where device code is built to be checked, never run; a GPU would JIT it and run it
#          slowly. scripts/test.sh picks it on such a machine (see there); its tree has its own key.
#          The standalone build always compiles our kernels as sass, so ptxas checks them there.
#   wheel  the release wheel's (scripts/wheel/build-wheel.sh): every CUDA 13 GPU, compute capability
#          7.5 to 12.x and later. OpenCV's own CUDA code (core's GpuMat kernels, cudaarithm,
#          cudafilters: large, and cudaimage calls little of it) as optimised PTX of
#          WHEEL_OPENCV_ARCH_PTX only, which the driver compiles for the GPU at first use and keeps
#          in its cache; our module as machine code for each of WHEEL_CUDAIMAGE_ARCH_BIN plus the
#          PTX of WHEEL_CUDAIMAGE_ARCH_PTX (modules/cudaimage/CMakeLists.txt:
#          CUDAIMAGE_CUDA_ARCH_BIN/PTX): compute_120 for GPUs after those, compute_90 so that an
#          H100/H200 with CUDA_FORCE_PTX_JIT=1 runs our PTX (a test of the PTX path; 1.4 MB). The
#          trade, measured (perf/results/README.md, "wheel architectures"): OpenCV's modules as
#          machine code for all seven architectures would add about 41 MB to the download (their
#          PTX is as large as one architecture's machine code) and more than double the tree's
#          build time on 2 cores (one of their files: 83 s for seven architectures, 18 s for PTX);
#          as PTX they cost about 3 s of driver compilation per kernel file at its first use on a
#          machine. CUDA_ARCH_BIN does not apply. Not built by CI (scripts/test.sh): about 50 min.
CUDAIMAGE_DEVICE_CODE=${CUDAIMAGE_DEVICE_CODE:-sass}
WHEEL_OPENCV_ARCH_PTX=7.5
WHEEL_CUDAIMAGE_ARCH_BIN="7.5;8.0;8.6;8.9;9.0;10.0;12.0"   # T4 ... H200, B200, RTX 50 (sm_103: sm_100's code)
WHEEL_CUDAIMAGE_ARCH_PTX="9.0;12.0"
case $CUDAIMAGE_DEVICE_CODE in
    sass)  device_label=sm${CUDA_ARCH_BIN//[.;]/} ;;
    check) device_label=check${CUDA_ARCH_BIN//[.;]/} ;;
    wheel) device_label=wheel ;;
    *) printf 'error: CUDAIMAGE_DEVICE_CODE=%s; supported: sass, check, wheel\n' "$CUDAIMAGE_DEVICE_CODE" >&2; exit 1 ;;
esac

# The OpenCV tree's key: what determines its output (version, configuration, compiler, NPP).
# Whole-line comments and blank lines of the configuration do not count: editing them rebuilds nothing.
opencv_key() {
    { echo "$OPENCV_SDIST_SHA256 $NPP_WHEEL_VERSION"
      grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$CUDAIMAGE_REPO/scripts/build/opencv-configure.cmake"
      "$CUDA_HOME/bin/nvcc" --version 2>/dev/null | tail -1
      # the wheel flavour's OpenCV device code (scripts/build/build-opencv.sh); no line for the
      # others. Our module's architectures are not in the key: they change our module only, and
      # build-opencv.sh brings a cached tree's up to date.
      [[ $CUDAIMAGE_DEVICE_CODE != wheel ]] || echo "wheel $WHEEL_OPENCV_ARCH_PTX"
    } | sha256sum | cut -c1-10
}
OPENCV_KEY="${OPENCV_UPSTREAM_VERSION}-$device_label-$(opencv_key)"
# realpath: a tree is tied to the absolute paths it was configured with (a link may point to it)
OPENCV_ROOT=$(realpath -m "$CUDAIMAGE_CACHE/opencv-$OPENCV_KEY")
OPENCV_SRC="$OPENCV_ROOT/src/opencv"
OPENCV_CONTRIB_MODULES="$OPENCV_ROOT/src/opencv_contrib/modules"
OPENCV_BUILD="$OPENCV_ROOT/build"
OPENCV_INSTALL="$OPENCV_ROOT/install"
# The contrib modules we build against, and with our module for the module build.
OPENCV_EXTRA_CONTRIB="$OPENCV_CONTRIB_MODULES/cudev;$OPENCV_CONTRIB_MODULES/cudaarithm;$OPENCV_CONTRIB_MODULES/cudafilters"
OPENCV_EXTRA_WITH_CUDAIMAGE="$OPENCV_EXTRA_CONTRIB;$CUDAIMAGE_REPO/modules"
# The standalone build's folder in this clone (gitignored), one per line.
if [[ $OPENCV_LINE == 5.1 ]]; then STANDALONE_BUILD="$CUDAIMAGE_REPO/build-standalone"
else STANDALONE_BUILD="$CUDAIMAGE_REPO/build-standalone-$OPENCV_LINE"; fi
VENV="$CUDAIMAGE_CACHE/venv-py$($PYTHON_SYSTEM -c 'import sys;print("%d%d"%sys.version_info[:2])' 2>/dev/null)"

# Serialises builds in one cached tree: named after the tree itself, so that two keys whose
# folders link to one tree share the lock.
BUILD_LOCK=/tmp/cudaimage-build-${OPENCV_ROOT##*/opencv-}.lock

# True when this machine has a CUDA device the driver sees.
has_cuda_device() { command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; }

step() { printf '\n==> [%s] %s\n' "$(date +%H:%M:%S)" "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }
