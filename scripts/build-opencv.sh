#!/usr/bin/env bash
# Builds OpenCV 4.10 with its contrib CUDA modules (cudev, cudaarithm, cudafilters) for CUDA 13,
# from Debian's source package, together with this repository's cudaimage module.
# Idempotent and cached (see scripts/common.sh); a second run takes seconds.
#
#   scripts/build-opencv.sh            # CUDA_ARCH_BIN=9.0 by default; override in the environment
#
# Steps: system packages -> Python venv (NumPy 2 headers) -> source (Debian 13, verified) ->
#        patch -> configure -> build and install (OpenCV plus cudaimage in one tree).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

stamp="$OPENCV_ROOT/.built"
if [[ -f $stamp ]]; then
    echo "OpenCV $OPENCV_KEY is cached in $OPENCV_ROOT"
    exit 0
fi

step "1/6 system packages"
[[ -x $CUDA_HOME/bin/nvcc ]] || die "no CUDA toolkit at $CUDA_HOME (set CUDA_HOME); CUDA 13.0 is required"
"$CUDA_HOME/bin/nvcc" --version | grep -q "release 13.0" || die "CUDA 13.0 is required (found: $("$CUDA_HOME/bin/nvcc" --version | tail -2 | head -1))"
packages=(build-essential cmake ninja-build pkg-config dpkg-dev xz-utils patch ca-certificates
          libpng-dev libjpeg-dev zlib1g-dev python3-dev python3-venv libgtest-dev)
missing=()
for p in "${packages[@]}"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p"); done
SUDO=; [[ $(id -u) -eq 0 ]] || SUDO=sudo
if ((${#missing[@]})); then
    $SUDO apt-get update -q
    # --no-upgrade: never upgrade a package the machine already has
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-upgrade "${missing[@]}"
fi

step "2/6 Python environment with NumPy 2 ($VENV)"
if [[ ! -x $VENV/bin/python ]] || ! "$VENV/bin/python" -c 'import numpy, sys; sys.exit(int(numpy.__version__.split(".")[0]) < 2)'; then
    "$PYTHON_SYSTEM" -m venv "$VENV"
    "$VENV/bin/pip" install -q --disable-pip-version-check "numpy>=2,<3"
fi

step "3/6 source: Debian 13 (trixie) opencv $OPENCV_DEB_VERSION"
mkdir -p "$OPENCV_ROOT/download"
srclist=/etc/apt/sources.list.d/cudaimage-trixie-src.sources
if [[ ! -f $srclist ]]; then
    # Reuse the Debian archive address this machine already uses; source entries only, so no
    # binary package can be upgraded from trixie.
    uri=$(sed -n -E 's/^URIs:[[:space:]]*([^[:space:]]*\/debian)\/?[[:space:]]*$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)
    [[ -n $uri ]] || uri=$(sed -n -E 's/^deb[[:space:]]+(\[[^]]*\][[:space:]]+)?([^[:space:]]*\/debian)\/?[[:space:]].*/\2/p' /etc/apt/sources.list 2>/dev/null | head -1)
    [[ -n $uri ]] || die "cannot find the Debian archive address in /etc/apt/sources.list{,.d}"
    printf 'Types: deb-src\nURIs: %s\nSuites: trixie\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' "$uri" | $SUDO tee "$srclist" >/dev/null
    $SUDO apt-get update -q
fi
have=$(apt-cache showsrc opencv | sed -n 's/^Version: //p' | sort -u | tr '\n' ' ')
[[ " $have " == *" $OPENCV_DEB_VERSION "* ]] || die "Debian offers opencv source versions [$have], not $OPENCV_DEB_VERSION, which scripts/opencv-4.10-cuda13.patch was written for"
# The expected SHA-256 of each tarball, from the suite's (signed) Sources index.
checksums=$(apt-cache showsrc opencv | awk -v v="$OPENCV_DEB_VERSION" '
    /^Version: /{ok=($2==v)} /^Checksums-Sha256:/{c=ok; next} /^[^ ]/{c=0} c&&/orig/{print $1"  "$3}')
[[ $(wc -l <<<"$checksums") -eq 2 ]] || die "could not read the tarball checksums of opencv $OPENCV_DEB_VERSION"
cd "$OPENCV_ROOT/download"
if [[ ! -f $OPENCV_SRC/.patched ]] && ! sha256sum --quiet -c <<<"$checksums" 2>/dev/null; then
    # apt-get may fail to fetch the .dsc on some mirrors; the tarballs are what we need and verify.
    apt-get source --download-only -q "opencv=$OPENCV_DEB_VERSION" || true
    sha256sum -c <<<"$checksums" || die "opencv tarballs missing or corrupt in $PWD"
fi
if [[ ! -f $OPENCV_SRC/.patched ]]; then
    rm -rf "$OPENCV_SRC" && mkdir -p "$OPENCV_SRC/contrib"
    tar -xf "opencv_${OPENCV_UPSTREAM_VERSION}+dfsg.orig.tar.xz" -C "$OPENCV_SRC" --strip-components=1
    tar -xf "opencv_${OPENCV_UPSTREAM_VERSION}+dfsg.orig-contrib.tar.xz" -C "$OPENCV_SRC/contrib" --strip-components=1

    step "4/6 patch for CUDA 13 ($OPENCV_PATCH)"
    patch -d "$OPENCV_SRC" -p1 --forward --quiet < "$OPENCV_PATCH"
    touch "$OPENCV_SRC/.patched"
else
    step "4/6 source already unpacked and patched in $OPENCV_SRC"
fi

step "5/6 configure (CUDA_ARCH_BIN=$CUDA_ARCH_BIN)"
cmake -G Ninja -S "$OPENCV_SRC" -B "$OPENCV_BUILD" -C "$CUDAIMAGE_REPO/scripts/opencv-configure.cmake" \
    -DCMAKE_INSTALL_PREFIX="$OPENCV_INSTALL" \
    -DCUDA_TOOLKIT_ROOT_DIR="$CUDA_HOME" -DCUDA_ARCH_BIN="$CUDA_ARCH_BIN" \
    -DOPENCV_EXTRA_MODULES_PATH="$OPENCV_SRC/contrib/modules/cudev;$OPENCV_SRC/contrib/modules/cudaarithm;$OPENCV_SRC/contrib/modules/cudafilters;$CUDAIMAGE_REPO/modules" \
    -DPYTHON3_EXECUTABLE="$VENV/bin/python" \
    -DPYTHON3_NUMPY_INCLUDE_DIRS="$("$VENV/bin/python" -c 'import numpy; print(numpy.get_include())')" \
    > "$OPENCV_ROOT/configure.log" 2>&1 || { tail -40 "$OPENCV_ROOT/configure.log"; die "configure failed; log: $OPENCV_ROOT/configure.log"; }
grep -E "^--   (To be built|Python 3:|    Interpreter|    Libraries|    numpy|    install path|NVIDIA CUDA|    NVIDIA GPU arch)" "$OPENCV_ROOT/configure.log" || true

step "6/6 build and install (about 30 min on 2 cores; [done/total] below)"
export NINJA_STATUS="[%f/%t %p %es] "
# Everything in the tree, cudaimage included (scripts/build-module.sh rebuilds only our targets).
log="$OPENCV_ROOT/build.log"
# flock: never two builds in one tree (scripts/build-module.sh and build-standalone.sh take it too).
if ! flock "$BUILD_LOCK" cmake --build "$OPENCV_BUILD" --target install 2>&1 | tee "$log" \
        | awk '/^\[[0-9]+\/[0-9]+ / { if (++n % 25 == 0) print; fflush(); next } /FAILED|error:/ { print; fflush() }'; then
    die "build failed (log: $log); rerun: cmake --build $OPENCV_BUILD"
fi
touch "$stamp"
echo "OpenCV $OPENCV_KEY built in $OPENCV_ROOT"
