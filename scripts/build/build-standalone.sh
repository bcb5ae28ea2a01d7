#!/usr/bin/env bash
# Standalone build: cudaimage as its own CMake project (top-level CMakeLists.txt) against the
# cached, installed OpenCV (scripts/build/build-opencv.sh), then proves the installed package works.
#
#   scripts/build/build-standalone.sh [--no-test]
#
# 1. configure build-standalone/ (OPENCV_LINE=5.1; build-standalone-4.14/ for 4.14; gitignored)
#    with OpenCV_DIR=$OPENCV_INSTALL/lib/cmake/opencv5 (opencv4 for 4.14)
#    and CUDAToolkit_ROOT=$CUDA_NPP_ROOT (the toolkit root with NVIDIA's NPP wheel that
#    scripts/build/build-opencv.sh makes for OpenCV), where find_package(CUDAToolkit) finds NPP
# 2. build (libcudaimage.so, cudaimage_test, samples/cpp/*, the benchmarks perf/gaussian_bench and
#    perf/npp_gaussian_bench)
# 3. ctest --output-on-failure (GPU cases skip, saying why, on a machine without a GPU)
# 4. install into build-standalone/install
# 5. configure, build and run cmake/consumer-check against that install with find_package(cudaimage),
#    and check that it links our libcudaimage.so, not OpenCV's libopencv_cudaimage.so.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"

run_tests=1
for arg in "$@"; do
    case $arg in
        --no-test) run_tests=0 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument: $arg (see --help)" ;;
    esac
done

bash "$CUDAIMAGE_REPO/scripts/build/build-opencv.sh"

build="$STANDALONE_BUILD"
prefix="$build/install"
opencv_dir=$(dirname "$(compgen -G "$OPENCV_INSTALL/lib/cmake/opencv[0-9]/OpenCVConfig.cmake" | head -1)")
[[ -f $opencv_dir/OpenCVConfig.cmake ]] || die "no OpenCVConfig.cmake in $OPENCV_INSTALL/lib/cmake/opencv*"
lock=$BUILD_LOCK

step "1/5 configure $build"
# CUDA_ARCH_BIN (common.sh) uses OpenCV's syntax ("9.0", "8.6;9.0") and means machine code only, as
# in the OpenCV tree (CUDA_ARCH_PTX empty: scripts/build/opencv-configure.cmake); CMake wants
# "90-real", "86-real;90-real" (a plain "90" would add PTX, 8 MB more in the GPU bundle).
cuda_archs=$(sed -E 's/([0-9]+)/\1-real/g' <<<"${CUDA_ARCH_BIN//./}")
generator=(); command -v ninja >/dev/null && [[ ! -f $build/CMakeCache.txt || -f $build/build.ninja ]] && generator=(-G Ninja)
cmake -S "$CUDAIMAGE_REPO" -B "$build" "${generator[@]}" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_COMPILER="$CUDA_HOME/bin/nvcc" \
    -DCMAKE_CUDA_ARCHITECTURES="$cuda_archs" \
    -DOpenCV_DIR="$opencv_dir" \
    -DCUDAToolkit_ROOT="$CUDA_NPP_ROOT" \
    -DCMAKE_INSTALL_PREFIX="$prefix" \
    -DCMAKE_EXPORT_COMPILE_COMMANDS=ON

step "2/5 build (waits for $lock while another heavy build runs)"
flock "$lock" cmake --build "$build"

if ((run_tests)); then
    step "3/5 ctest"
    ctest --test-dir "$build" --output-on-failure
else
    step "3/5 ctest: skipped (--no-test)"
fi

step "4/5 install into $prefix"
rm -rf "$prefix"
cmake --install "$build" > "$build/install.log"
find "$prefix" -type f | sed "s|^$prefix/|  |" | sort

step "5/5 consumer check: find_package(cudaimage) from $prefix"
consumer="$build/consumer-check"
rm -rf "$consumer"
# Only the cudaimage prefix: the package must find its OpenCV by itself.
cmake -S "$CUDAIMAGE_REPO/cmake/consumer-check" -B "$consumer" "${generator[@]}" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" > "$consumer.configure.log" \
    || { cat "$consumer.configure.log"; die "consumer configure failed"; }
flock "$lock" cmake --build "$consumer"
libs=$(ldd "$consumer/consumer_check")
grep -q "libcudaimage\.so.* => $prefix/" <<<"$libs" \
    || { echo "$libs"; die "consumer_check does not load libcudaimage.so from $prefix"; }
! grep -q "libopencv_cudaimage" <<<"$libs" \
    || { echo "$libs"; die "consumer_check loads OpenCV's libopencv_cudaimage.so"; }
"$consumer/consumer_check"
echo "standalone build ready: $build (library, cudaimage_test, benchmarks in perf/), installed package in $prefix"
