#!/usr/bin/env bash
# README command 2: build everything (cached) and run every C++ and Python test, in both build
# modes, against OpenCV 5.1 and then OpenCV 4.14 (module build, standalone build, cv2), the commands
# and code blocks of README.md and doc/ (scripts/ci/check-doc-commands.sh), the pip wheel (5.1),
# every kernel file compiled for sm_75 and sm_80 (scripts/ci/compile-archs.sh, 5.1), and every
# kernel launch in src/ through its check (scripts/ci/check-launches.sh).
# GPU tests skip with their reason when this machine has no CUDA device.
#
#   scripts/test.sh                    # 5.1, then 4.14
#   OPENCV_LINES=5.1 scripts/test.sh   # one line only (a fresh machine builds one OpenCV, not two)
#
# Device code (CUDAIMAGE_DEVICE_CODE, scripts/common.sh), per line unless set: the optimised tree
# (sass) when it is already built or this machine has a GPU; otherwise, on a machine without a GPU
# (CI), the compile-check tree (check), which builds OpenCV in about 60 % of the time and whose
# device code nobody here runs. The standalone build compiles our kernels as sass either way.
set -euo pipefail
requested_device_code=${CUDAIMAGE_DEVICE_CODE:-}   # before common.sh gives it its default
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
start=$(date +%s); t_all=$start
lines=(${OPENCV_LINES:-5.1 4.14})

failed=()
timings=()
# timed NAME COMMAND...: runs it, records its duration, and records NAME as failed if it fails
timed() {
    local name=$1 t0=$(date +%s); shift
    "$@" || failed+=("$name")
    timings+=("$(printf '%-40s %5d s' "$name" $(( $(date +%s) - t0 )))")
}

# device_code_for LINE: CUDAIMAGE_DEVICE_CODE if set, else sass when the line's sass tree is built
# or a GPU is here, else check.
device_code_for() {
    if [[ -n $requested_device_code ]]; then echo "$requested_device_code"; return; fi
    local root
    root=$(OPENCV_LINE=$1 CUDAIMAGE_DEVICE_CODE=sass bash -c "source '$CUDAIMAGE_REPO/scripts/common.sh'; echo \$OPENCV_ROOT")
    if [[ -f $root/.built ]] || has_cuda_device; then echo sass; else echo check; fi
}

# Source checks that need no build: every kernel launch in src/ checked by the one helper.
timed "launch checks (scripts/ci/check-launches.sh)" bash "$CUDAIMAGE_REPO/scripts/ci/check-launches.sh"

for line in "${lines[@]}"; do
    device_code=$(device_code_for "$line")
    # Each line's settings (OPENCV_BUILD, VENV, STANDALONE_BUILD, ...) come from common.sh. set -e
    # does not act inside a subshell whose status `||` tests, so each step stops it by hand: a
    # failed build (the module's, or its typing stubs) must not leave the tests to run on older binaries.
    (
        export OPENCV_LINE=$line CUDAIMAGE_DEVICE_CODE=$device_code
        source "$CUDAIMAGE_REPO/scripts/common.sh"
        step "OpenCV $line: build (device code: $device_code; OpenCV cached in $OPENCV_ROOT)"
        bash "$CUDAIMAGE_REPO/scripts/build/build-module.sh" || exit
        bash "$CUDAIMAGE_REPO/scripts/build/build-standalone.sh" --no-test || exit
        # The Python packages the tests use beyond NumPy (Dask, Zarr), pinned; quick when there.
        bash "$CUDAIMAGE_REPO/scripts/build/python-env.sh"
    ) || { failed+=("build-$line"); continue; }
    timings+=("$(printf '%-40s %5d s' "build $line $device_code (OpenCV, module, standalone)" $(( $(date +%s) - start )))")
    eval "$(OPENCV_LINE=$line CUDAIMAGE_DEVICE_CODE=$device_code bash -c "source '$CUDAIMAGE_REPO/scripts/common.sh'; declare -p OPENCV_BUILD STANDALONE_BUILD")"

    step "OpenCV $line: tests 1/3: opencv_test_cudaimage (module build, OpenCV ts)"
    timed "$line opencv_test_cudaimage" "$OPENCV_BUILD/bin/opencv_test_cudaimage"

    step "OpenCV $line: tests 2/3: standalone build (system GoogleTest, ctest)"
    timed "$line standalone ctest" ctest --test-dir "$STANDALONE_BUILD" --output-on-failure

    step "OpenCV $line: tests 3/3: Python (cv2 from the module build, $("$VENV/bin/python" --version))"
    timed "$line python" env CUDAIMAGE_OPENCV_LINE="$line" PYTHONPATH="$OPENCV_BUILD/python_loader${PYTHONPATH:+:$PYTHONPATH}" \
        "$VENV/bin/python" -m unittest discover -s "$CUDAIMAGE_REPO/misc/python/test" -p 'test_*.py' -v
    timed "$line doc commands" env OPENCV_LINE="$line" CUDAIMAGE_DEVICE_CODE="$device_code" bash "$CUDAIMAGE_REPO/scripts/ci/check-doc-commands.sh"

    if [[ $line == 5.1 ]]; then
        step "OpenCV $line: the pip wheel (scripts/wheel/build-wheel.sh), installed in a fresh venv, Python tests from it"
        timed "$line wheel" env OPENCV_LINE="$line" CUDAIMAGE_DEVICE_CODE="$device_code" bash "$CUDAIMAGE_REPO/scripts/wheel/test-wheel.sh" --no-build
        # The kernels for the oldest architectures the build supports beside its own sm_90: an sm_80
        # instruction outside its architecture guard fails here, not in a user's build.
        step "OpenCV $line: every kernel file compiled for sm_75 and sm_80 (scripts/ci/compile-archs.sh)"
        timed "$line kernels for sm_75, sm_80" env OPENCV_LINE="$line" CUDAIMAGE_DEVICE_CODE="$device_code" \
            CUDAIMAGE_ARCHS="75;80" bash "$CUDAIMAGE_REPO/scripts/ci/compile-archs.sh"
    fi
    start=$(date +%s)
done

echo
printf '%s\n' "${timings[@]}"
echo "test.sh finished in $(( $(date +%s) - t_all )) s"
if ((${#failed[@]})); then
    echo "FAILED: ${failed[*]}"
    exit 1
fi
echo "all test suites passed (OpenCV ${lines[*]})"
