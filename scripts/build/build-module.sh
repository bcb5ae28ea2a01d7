#!/usr/bin/env bash
# Module build: cudaimage added to the cached OpenCV tree (scripts/build/build-opencv.sh, OPENCV_LINE=5.1
# by default or 4.14), so only our module, its tests, perf tests and the cv2 extension are rebuilt
# when our sources change.
#   scripts/build/build-module.sh   -> $OPENCV_BUILD/bin/opencv_{test,perf}_cudaimage,
#                                      $OPENCV_BUILD/bin/cudaimage-blur, cv2 in $OPENCV_BUILD/python_loader
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
bash "$CUDAIMAGE_REPO/scripts/build/build-opencv.sh"

step "module build: cudaimage in $OPENCV_BUILD"
# One lock over the reconfigure, the build and the stubs: clones share the tree, and another clone's
# reconfigure between this one's and its build would build that clone's sources here. Released when
# this script exits.
exec {lock_fd}>"$BUILD_LOCK"
flock -n "$lock_fd" || { echo "  waiting for $BUILD_LOCK (another build of this tree is running)"; flock "$lock_fd"; }
# The tree remembers the module path of the clone that configured it; point it at this clone
# (OpenCV globs our sources at configure time, so reconfigure every time: a few seconds).
cmake "$OPENCV_BUILD" -DOPENCV_EXTRA_MODULES_PATH="$OPENCV_EXTRA_WITH_CUDAIMAGE" > "$OPENCV_ROOT/reconfigure.log" 2>&1 \
    || { tail -30 "$OPENCV_ROOT/reconfigure.log"; die "reconfigure failed"; }
# The Python binding generator's output names our headers by absolute path, and ninja does not re-run
# it when only the path changed (another clone's sources are not newer): drop it if it names
# another clone, so that it is generated again.
gen=$OPENCV_BUILD/modules/python_bindings_generator/pyopencv_generated_include.h
if [[ -f $gen ]] && grep '^#include "/' "$gen" | grep '/modules/cudaimage/' | grep -vq "\"$CUDAIMAGE_REPO/modules/"; then
    rm -f "$gen"
fi
export NINJA_STATUS="[%f/%t %es] "
cmake --build "$OPENCV_BUILD" --target opencv_cudaimage opencv_test_cudaimage opencv_perf_cudaimage opencv_cudaimage_blur opencv_python3

# Typing stubs for cv2 (cv2/**/*.pyi, py.typed) in the loader package, which the wheel and the GPU
# bundle copy: OpenCV's generator, run again on the headers the build listed, with the predefined
# types of modules not built left out (OpenCV's own run fails on them; see the script).
step "typing stubs: OpenCV's generator (scripts/build/cv2_typing_stubs.py)"
"$VENV/bin/python" "$CUDAIMAGE_REPO/scripts/build/cv2_typing_stubs.py" \
    --opencv-src "$OPENCV_SRC" --bindings-dir "$OPENCV_BUILD/modules/python_bindings_generator" \
    --loader "$OPENCV_BUILD/python_loader/cv2" --python-submodule cudaimage
echo "module build ready: $OPENCV_BUILD/bin/opencv_test_cudaimage"
