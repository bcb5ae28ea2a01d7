#!/usr/bin/env bash
# The wheel as a pip user gets it: builds it (scripts/wheel/build-wheel.sh), installs it into a fresh
# virtual environment and runs against the installed package, from a folder outside the source
# tree and without PYTHONPATH: the install checks (scripts/wheel/check_install.py: where cv2 and
# cv2.cudaimage come from, ldd of every library, version, bindings, argument errors, the device
# count) and the Python test suite (misc/python/test; the samples it runs are read from the source
# tree). GPU tests skip without a device.
#
#   scripts/wheel/test-wheel.sh [--no-build]     (--no-build: passed to build-wheel.sh)
#   CUDAIMAGE_DEVICE_CODE=wheel scripts/wheel/test-wheel.sh   # the release wheel (every CUDA 13 GPU;
#                                  its own OpenCV tree, not built by CI: scripts/wheel/build-wheel.sh)
#
# Where the dependencies come from: nvidia-npp (134 MB) from the wheel scripts/build/build-opencv.sh
# downloaded and verified ($CUDAIMAGE_CACHE/download, --no-index: nothing downloaded again);
# NumPy and the test packages (scripts/build/python-requirements.txt: Dask, Zarr) from PyPI through
# pip's cache. The environment is build-wheel/venv-test (gitignored), made anew each run.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
t_start=$(date +%s)

build_args=()
for arg in "$@"; do
    case $arg in
        --no-build) build_args+=(--no-build) ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument: $arg (see --help)" ;;
    esac
done

bash "$CUDAIMAGE_REPO/scripts/wheel/build-wheel.sh" "${build_args[@]}"
wheel=$(compgen -G "$CUDAIMAGE_REPO/dist/opencv_cudaimage-*.whl" | head -1) || die "no wheel in dist/"
t_built=$(date +%s)

venv="$CUDAIMAGE_REPO/build-wheel/venv-test"
step "wheel test 1/3: fresh environment $venv"
rm -rf "$venv"
"$PYTHON_SYSTEM" -m venv "$venv" || die "cannot create $venv (Debian: apt-get install python3-venv)"
pip=("$venv/bin/python" -m pip install -q --disable-pip-version-check)
npp_wheel=$(compgen -G "$CUDAIMAGE_CACHE/download/nvidia_npp-$NPP_WHEEL_VERSION-*.whl" | head -1) || true
if [[ -n $npp_wheel ]]; then
    echo "nvidia-npp $NPP_WHEEL_VERSION from $npp_wheel"
    "${pip[@]}" --no-index --find-links "$(dirname "$npp_wheel")" "nvidia-npp==$NPP_WHEEL_VERSION"
fi
echo "pip install ${wheel##*/} (+ NumPy from PyPI$([[ -n $npp_wheel ]] || echo ', nvidia-npp from PyPI'))"
"${pip[@]}" "$wheel"
"${pip[@]}" -r "$CUDAIMAGE_REPO/scripts/build/python-requirements.txt"
"$venv/bin/python" -m pip check --disable-pip-version-check
"$venv/bin/python" -m pip list --disable-pip-version-check 2>/dev/null | grep -iE '^(opencv|nvidia|numpy)' | sed 's/^/  /'
t_installed=$(date +%s)

# Outside the source tree, nothing of it on the path: cv2 and cv2.cudaimage can only come from the
# environment (check_install.py checks that they do).
work=$(mktemp -d "${TMPDIR:-/tmp}/cudaimage-wheel-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
run_py() { (cd "$work" && env -u PYTHONPATH -u PYTHONHOME PYTHONDONTWRITEBYTECODE=1 "$venv/bin/python" "$@"); }

step "wheel test 2/3: install checks (cwd $work)"
failed=()
run_py "$CUDAIMAGE_REPO/scripts/wheel/check_install.py" --prefix "$venv" --opencv-version "$OPENCV_UPSTREAM_VERSION" \
    || failed+=(install-checks)

step "wheel test 3/3: Python tests (misc/python/test) against the installed wheel"
t_tests=$(date +%s)
run_py -m unittest discover -s "$CUDAIMAGE_REPO/misc/python/test" -t "$CUDAIMAGE_REPO/misc/python/test" -p 'test_*.py' -v \
    || failed+=(python-tests)

t_end=$(date +%s)
echo
awk -v f="$wheel" -v s="$(stat -c %s "$wheel")" 'BEGIN { printf "wheel: %s (%.1f MB)\n", f, s / 1e6 }'
printf 'times: build %d s, install %d s, checks %d s, tests %d s, total %d s\n' \
    $((t_built - t_start)) $((t_installed - t_built)) $((t_tests - t_installed)) $((t_end - t_tests)) $((t_end - t_start))
if ((${#failed[@]})); then
    echo "wheel test FAILED: ${failed[*]}"
    exit 1
fi
echo "wheel test passed"
