#!/usr/bin/env bash
# README command 2: build everything (cached) and run every C++ and Python test, in both build
# modes. GPU tests skip with their reason when this machine has no CUDA device.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
start=$(date +%s)

bash "$CUDAIMAGE_REPO/scripts/build-module.sh"
bash "$CUDAIMAGE_REPO/scripts/build-standalone.sh" --no-test

failed=()
step "tests 1/3: opencv_test_cudaimage (module build, OpenCV ts)"
"$OPENCV_BUILD/bin/opencv_test_cudaimage" || failed+=(opencv_test_cudaimage)

step "tests 2/3: standalone build (system GoogleTest, ctest)"
ctest --test-dir "$CUDAIMAGE_REPO/build-standalone" --output-on-failure || failed+=(standalone)

step "tests 3/3: Python (cv2 from the module build, $("$VENV/bin/python" --version))"
PYTHONPATH="$OPENCV_BUILD/python_loader${PYTHONPATH:+:$PYTHONPATH}" \
    "$VENV/bin/python" -m unittest discover -s "$CUDAIMAGE_REPO/misc/python/test" -p 'test_*.py' -v || failed+=(python)

echo
echo "test.sh finished in $(( $(date +%s) - start )) s"
if ((${#failed[@]})); then
    echo "FAILED: ${failed[*]}"
    exit 1
fi
echo "all test suites passed"
