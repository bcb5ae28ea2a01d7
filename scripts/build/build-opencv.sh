#!/usr/bin/env bash
# Builds OpenCV (5.1 by default, OPENCV_LINE=4.14 for the 4.x line) with its contrib CUDA modules
# (cudev, cudaarithm, cudafilters) for CUDA 13, from OpenCV's own PyPI source package, against
# NPP from NVIDIA's PyPI wheel. No patch and no stand-in: both releases build with CUDA 13 as is.
# Our module is in the tree from its first configure: adding a module later rewrites
# opencv2/opencv_modules.hpp, which nearly every OpenCV source includes, and rebuilds everything.
# scripts/build/build-module.sh then rebuilds only our targets when our sources change.
# Idempotent and cached (see scripts/common.sh); a second run takes seconds.
#
#   scripts/build/build-opencv.sh            # CUDA_ARCH_BIN=9.0 by default; override in the environment
#   CUDAIMAGE_DEVICE_CODE=wheel scripts/build/build-opencv.sh   # the release wheel's tree (scripts/common.sh)
#
# Steps: system packages -> Python venv (NumPy 2 headers) -> NPP (verified wheel, linked toolkit
#        root) -> source (verified sdist) -> configure -> build and install.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"

stamp="$OPENCV_ROOT/.built"
if [[ -f $stamp ]]; then
    # The wheel flavour: our module's own architectures are not part of the tree's key (they change
    # our module only); set the cached tree's to scripts/common.sh's, and build-module.sh rebuilds
    # our module.
    module_archs=(-DCUDAIMAGE_CUDA_ARCH_BIN="$WHEEL_CUDAIMAGE_ARCH_BIN" -DCUDAIMAGE_CUDA_ARCH_PTX="$WHEEL_CUDAIMAGE_ARCH_PTX")
    if [[ $CUDAIMAGE_DEVICE_CODE == wheel ]] \
       && ! { grep -qxF "CUDAIMAGE_CUDA_ARCH_BIN:STRING=$WHEEL_CUDAIMAGE_ARCH_BIN" "$OPENCV_BUILD/CMakeCache.txt" \
              && grep -qxF "CUDAIMAGE_CUDA_ARCH_PTX:STRING=$WHEEL_CUDAIMAGE_ARCH_PTX" "$OPENCV_BUILD/CMakeCache.txt"; }; then
        echo "cudaimage's architectures in $OPENCV_BUILD: $WHEEL_CUDAIMAGE_ARCH_BIN, PTX $WHEEL_CUDAIMAGE_ARCH_PTX"
        flock "$BUILD_LOCK" cmake "$OPENCV_BUILD" "${module_archs[@]}" > "$OPENCV_ROOT/reconfigure.log" 2>&1 \
            || { tail -30 "$OPENCV_ROOT/reconfigure.log"; die "reconfigure failed"; }
    fi
    echo "OpenCV $OPENCV_KEY is cached in $OPENCV_ROOT"
    exit 0
fi

step "1/6 system packages"
[[ -x $CUDA_HOME/bin/nvcc ]] || die "no CUDA toolkit at $CUDA_HOME (set CUDA_HOME); CUDA 13.0 is required"
"$CUDA_HOME/bin/nvcc" --version | grep -q "release 13.0" || die "CUDA 13.0 is required (found: $("$CUDA_HOME/bin/nvcc" --version | tail -2 | head -1))"
packages=(build-essential cmake ninja-build pkg-config xz-utils unzip ca-certificates
          libpng-dev libjpeg-dev zlib1g-dev python3-dev python3-venv python3-pip libgtest-dev)
missing=()
for p in "${packages[@]}"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p"); done
SUDO=; [[ $(id -u) -eq 0 ]] || SUDO=sudo
if ((${#missing[@]})); then
    $SUDO apt-get update -q
    # --no-upgrade: never upgrade a package the machine already has
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-upgrade "${missing[@]}"
fi

step "2/6 Python environment with NumPy 2 ($VENV)"
bash "$CUDAIMAGE_REPO/scripts/build/python-env.sh"

download="$CUDAIMAGE_CACHE/download"
mkdir -p "$download"
# fetch FILE SHA256 PIP-ARGS...: download with pip unless already there, then verify
fetch() {
    local file=$1 sha=$2; shift 2
    if [[ ! -f $download/$file ]] || ! sha256sum --quiet -c <<<"$sha  $download/$file" 2>/dev/null; then
        rm -f "$download/$file"
        "$VENV/bin/pip" download -q --disable-pip-version-check --no-deps -d "$download" "$@"
    fi
    sha256sum --quiet -c <<<"$sha  $download/$file" || die "$download/$file does not have the SHA-256 kept in scripts/common.sh"
}

step "3/6 NPP $NPP_WHEEL_VERSION (PyPI nvidia-npp) in a linked toolkit root: $CUDA_NPP_ROOT"
npp_wheel=nvidia_npp-$NPP_WHEEL_VERSION-py3-none-manylinux_2_27_x86_64.whl
if [[ ! -f $CUDA_NPP_ROOT/.ready ]]; then
    fetch "$npp_wheel" "$NPP_WHEEL_SHA256" --only-binary :all: --platform manylinux_2_27_x86_64 "nvidia-npp==$NPP_WHEEL_VERSION"
    rm -rf "$CUDA_NPP_ROOT" && mkdir -p "$CUDA_NPP_ROOT/npp"
    unzip -q "$download/$npp_wheel" 'nvidia/cu13/*' -d "$CUDA_NPP_ROOT/npp"
    npp="$CUDA_NPP_ROOT/npp/nvidia/cu13"
    # Every entry of the toolkit is a link, except include/ and lib/, which are real folders of
    # links (a link to the folder would make the NPP links below land in the system toolkit).
    for entry in "$CUDA_HOME"/*; do
        name=$(basename "$entry")
        case $name in include|lib|lib64) ;; *) ln -s "$(realpath "$entry")" "$CUDA_NPP_ROOT/$name" ;; esac
    done
    mkdir "$CUDA_NPP_ROOT/include" "$CUDA_NPP_ROOT/lib"
    ln -s "$(realpath "$CUDA_HOME/include")"/* "$CUDA_NPP_ROOT/include/"
    ln -s "$(realpath "$CUDA_HOME/lib64")"/* "$CUDA_NPP_ROOT/lib/"
    ln -sf "$npp"/include/*.h "$CUDA_NPP_ROOT/include/"
    for so in "$npp"/lib/libnpp*.so.13; do
        ln -sf "$so" "$CUDA_NPP_ROOT/lib/"
        ln -sf "$(basename "$so")" "$CUDA_NPP_ROOT/lib/$(basename "$so" .13)"   # libnppc.so -> libnppc.so.13
    done
    ln -s lib "$CUDA_NPP_ROOT/lib64"
    touch "$CUDA_NPP_ROOT/.ready"
fi

step "4/6 source: OpenCV $OPENCV_UPSTREAM_VERSION (PyPI opencv-contrib-python $OPENCV_SDIST_VERSION sdist)"
sdist=opencv_contrib_python-$OPENCV_SDIST_VERSION.tar.gz
if [[ ! -f $OPENCV_ROOT/src/.unpacked ]]; then
    # --no-binary for this package only: `:all:` would also refuse the wheels of its build tools.
    fetch "$sdist" "$OPENCV_SDIST_SHA256" --no-binary opencv-contrib-python "opencv-contrib-python==$OPENCV_SDIST_VERSION"
    rm -rf "$OPENCV_ROOT/src" && mkdir -p "$OPENCV_ROOT/src"
    top=${sdist%.tar.gz}
    tar -xzf "$download/$sdist" -C "$OPENCV_ROOT/src" --strip-components=1 --exclude="$top/opencv/.git" \
        "$top/opencv" "$top/opencv_contrib/modules/cudev" "$top/opencv_contrib/modules/cudaarithm" \
        "$top/opencv_contrib/modules/cudafilters"
    touch "$OPENCV_ROOT/src/.unpacked"
fi

# OpenCV's own tests of the NPP-backed modules are configured for the default line only and built
# only on request (scripts/gpu/pack-gpu-bundle.sh --opencv-tests: they are run on the GPU machine, not
# here, and take a good part of a fresh build); the other line has the tests of our module alone.
opencv_tests=()
test_list=(-DOPENCV_BUILD_TEST_MODULES_LIST="cudaimage;cudaarithm;cudafilters")
if [[ $OPENCV_LINE != 5.1 ]]; then test_list=(-DOPENCV_BUILD_TEST_MODULES_LIST=cudaimage); fi

# Device code (scripts/common.sh): machine code for CUDA_ARCH_BIN (sass); for a machine without a
# GPU, PTX for the same architectures without device optimisation (check: CUDA_NVCC_FLAGS_RELEASE
# adds to the flags of scripts/build/opencv-configure.cmake; -Xcicc -O0 is the device optimiser's
# level); or the release wheel's (wheel): OpenCV's CUDA modules as optimised PTX of one
# architecture, ours as machine code for each GPU architecture (CUDAIMAGE_CUDA_ARCH_BIN/PTX,
# modules/cudaimage/CMakeLists.txt). Given here, not in opencv-configure.cmake, whose lines are
# part of every tree's key.
case $CUDAIMAGE_DEVICE_CODE in
    sass)  device_code=(-DCUDA_ARCH_BIN="$CUDA_ARCH_BIN")
           device_text="CUDA_ARCH_BIN=$CUDA_ARCH_BIN" ;;
    check) device_code=(-DCUDA_ARCH_BIN= -DCUDA_ARCH_PTX="$CUDA_ARCH_BIN" "-DCUDA_NVCC_FLAGS_RELEASE=-Xcicc;-O0")
           device_text="PTX $CUDA_ARCH_BIN, cicc -O0" ;;
    wheel) device_code=(-DCUDA_ARCH_BIN= -DCUDA_ARCH_PTX="$WHEEL_OPENCV_ARCH_PTX"
                        -DCUDAIMAGE_CUDA_ARCH_BIN="$WHEEL_CUDAIMAGE_ARCH_BIN" -DCUDAIMAGE_CUDA_ARCH_PTX="$WHEEL_CUDAIMAGE_ARCH_PTX")
           device_text="OpenCV: PTX $WHEEL_OPENCV_ARCH_PTX; cudaimage: $WHEEL_CUDAIMAGE_ARCH_BIN and PTX $WHEEL_CUDAIMAGE_ARCH_PTX" ;;
esac

step "5/6 configure (device code: $CUDAIMAGE_DEVICE_CODE, $device_text)"
cmake -G Ninja -S "$OPENCV_SRC" -B "$OPENCV_BUILD" -C "$CUDAIMAGE_REPO/scripts/build/opencv-configure.cmake" \
    -DCMAKE_INSTALL_PREFIX="$OPENCV_INSTALL" -DCMAKE_INSTALL_RPATH_USE_LINK_PATH=ON \
    -DCUDA_TOOLKIT_ROOT_DIR="$CUDA_NPP_ROOT" -DCMAKE_CUDA_COMPILER="$CUDA_NPP_ROOT/bin/nvcc" \
    "${device_code[@]}" "${test_list[@]}" \
    -DOPENCV_EXTRA_MODULES_PATH="$OPENCV_EXTRA_WITH_CUDAIMAGE" \
    -DPYTHON3_EXECUTABLE="$VENV/bin/python" \
    -DPYTHON3_NUMPY_INCLUDE_DIRS="$("$VENV/bin/python" -c 'import numpy; print(numpy.get_include())')" \
    > "$OPENCV_ROOT/configure.log" 2>&1 || { tail -40 "$OPENCV_ROOT/configure.log"; die "configure failed; log: $OPENCV_ROOT/configure.log"; }
grep -E "^--[[:space:]]+(To be built|Python 3:|Interpreter|Libraries|numpy|install path|NVIDIA CUDA|NVIDIA GPU arch)" "$OPENCV_ROOT/configure.log" || true
# Real NPP or nothing: every NPP library OpenCV looks for must have been found.
npp_missing=$(grep -E '^CUDA_npp[a-z]*_LIBRARY[^=]*=.*NOTFOUND' "$OPENCV_BUILD/CMakeCache.txt" || true)
[[ -z $npp_missing ]] || die "OpenCV did not find NPP in $CUDA_NPP_ROOT: $npp_missing"

step "6/6 build and install (about 30 min on 2 cores; [done/total] below)"
export NINJA_STATUS="[%f/%t %p %es] "
log="$OPENCV_ROOT/build.log"
# flock: never two builds in one tree (scripts/build/build-module.sh and build-standalone.sh take it too).
# Named targets, then install: cudev's test target (slow, not ours to run) is in `all` whatever
# OPENCV_BUILD_TEST_MODULES_LIST says, so the `install` target would build it.
# gen-pkgconfig: the .pc file install wants; opencv_cudaimage_blur: our tool, which the module installs.
targets=(opencv_modules opencv_python3 gen-pkgconfig opencv_cudaimage_blur "${opencv_tests[@]}")
if ! { flock "$BUILD_LOCK" cmake --build "$OPENCV_BUILD" --target "${targets[@]}" && cmake --install "$OPENCV_BUILD"; } 2>&1 | tee "$log" \
        | awk '/^\[[0-9]+\/[0-9]+ / { if (++n % 25 == 0) print; fflush(); next } /FAILED|error:/ { print; fflush() }'; then
    die "build failed (log: $log); rerun: cmake --build $OPENCV_BUILD"
fi
touch "$stamp"
echo "OpenCV $OPENCV_KEY built in $OPENCV_ROOT"
