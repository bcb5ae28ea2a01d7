#!/usr/bin/env bash
# The wheel on the GPU machine, as a user there would have it: a fresh virtual environment that
# sees the machine's packages (--system-site-packages: NumPy 2, CuPy, PyTorch), the wheel installed
# with `pip install --no-deps --no-index` (no network there; NPP and the CUDA driver are the
# machine's), then, from outside the source tree and without PYTHONPATH: the install checks, the
# Python tests, the demo and the CuPy/PyTorch pipeline sample. Run from a checkout of this
# repository (the tests and samples are read from it), with the wheel built by scripts/wheel/build-wheel.sh:
#
#   bash scripts/gpu/bundle/wheel-check.sh dist/opencv_cudaimage-*.whl
#
# Parts (all run, whatever fails): install, checks (scripts/wheel/check_install.py), python-tests
# (misc/python/test), demo (samples/python/blur_demo.py), pipeline (samples/python/pipeline_cupy_torch.py).
# Exit status 0 only if no part failed; summary.txt, one log per part and the PNGs go to $OUT.
#
# Environment:
#   OUT          logs and PNGs (default ./results-wheel); the environment itself goes to a
#                temporary folder ($WHEEL_VENV to choose it), not to $OUT
#   PYTHON       the interpreter to base the environment on (default python3)
#   REQUIRE_GPU  1: no CUDA device is a failure (default: 1 if `nvidia-smi -L` lists a GPU)
#   EXTRA_WHEELS a folder of wheels to install into the environment too (no index, no dependencies):
#                the test packages the machine lacks (Dask, Zarr: scripts/build/python-requirements.txt),
#                so that the Dask tests run on the GPU with the wheel's cv2 instead of skipping
#   NPP_LIB_DIR  a folder with libnppc.so.13 etc., if the dynamic linker does not find NPP 13 by
#                itself (ld.so.cache, LD_LIBRARY_PATH); otherwise the CUDA toolkit's lib64 and an
#                nvidia-npp wheel among the machine's Python packages are tried
#   TEST_JOBS    N > 1: the Python test files run as N processes at once, one file per process
#                (logs python-tests-FILE.log, one summary); for CUDA_FORCE_PTX_JIT=1, where each
#                process's first use of a kernel file waits for the driver's compiler on one core.
#                test_synced_mat.py runs alone afterwards: it measures the device's free memory
set -uo pipefail   # no -e: a failing part must not stop the others

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
wheel=${1:?usage: wheel-check.sh dist/opencv_cudaimage-VERSION-...whl}
[[ -f $wheel ]] || { echo "no wheel at $wheel" >&2; exit 2; }
wheel=$(cd "$(dirname "$wheel")" && pwd)/$(basename "$wheel")
OUT=${OUT:-$PWD/results-wheel}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
PY=${PYTHON:-python3}
venv=${WHEEL_VENV:-$(mktemp -d "${TMPDIR:-/tmp}/cudaimage-wheel.XXXXXX")/venv}
if [[ -z ${REQUIRE_GPU:-} ]]; then
    REQUIRE_GPU=0
    command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU ' && REQUIRE_GPU=1
fi
opencv_version=$(sed -n 's/.*+opencv\([0-9]*\.[0-9]*\.[0-9]*\)\..*/\1/p' <<<"${wheel##*/}")

names=() results=()
part() {   # part NAME COMMAND...: output in $OUT/NAME.log; 0 PASS, 77 SKIP (no device, REQUIRE_GPU=0), else FAIL
    local name=$1 rc r; shift
    printf '\n==> [%s] %s\n' "$(date +%H:%M:%S)" "$name"
    "$@" 2>&1 | tee "$OUT/$name.log"
    rc=${PIPESTATUS[0]}
    case $rc in 0) r=PASS ;; 77) r=SKIP; ((REQUIRE_GPU)) && r="FAIL (no CUDA device)" ;; *) r="FAIL (exit $rc)" ;; esac
    names+=("$name"); results+=("$r")
    echo "--- $name: $r"
}

# NPP 13: the machine's, where the dynamic linker would not find it by itself.
npp_note="libnpp*.so.13: found by the dynamic linker (ld.so.cache or LD_LIBRARY_PATH)"
if ! { ldconfig -p 2>/dev/null || /sbin/ldconfig -p 2>/dev/null; } | grep -qF 'libnppc.so.13 ('; then
    found=
    IFS=: read -ra ld_dirs <<<"${LD_LIBRARY_PATH:-}"
    for d in "${ld_dirs[@]}"; do [[ -n $d && -e $d/libnppc.so.13 ]] && found=ld; done
    if [[ -z $found ]]; then
        candidates=(/usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib)
        [[ -n ${NPP_LIB_DIR:-} ]] && candidates=("$NPP_LIB_DIR" "${candidates[@]}")
        mapfile -t -O ${#candidates[@]} candidates < <("$PY" -c 'import site; print("\n".join(p + "/nvidia/cu13/lib" for p in site.getsitepackages()))' 2>/dev/null)
        for d in "${candidates[@]}"; do
            if [[ -e $d/libnppc.so.13 ]]; then found=$d; break; fi
        done
        if [[ -n $found ]]; then
            export LD_LIBRARY_PATH="$found${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
            npp_note="libnpp*.so.13: $found (put on LD_LIBRARY_PATH)"
        else
            npp_note="libnpp*.so.13: NOT FOUND (install CUDA 13's NPP or nvidia-npp, or set NPP_LIB_DIR)"
        fi
    fi
fi

# shellcheck disable=SC2317  # called through part()
install_wheel() {
    echo "wheel: $wheel"
    awk -v s="$(stat -c %s "$wheel")" 'BEGIN { printf "wheel size: %d bytes (%.1f MB, %.1f MiB)\n", s, s / 1e6, s / 1048576 }'
    echo "host: $(hostname) $(uname -srm); $(grep -h PRETTY_NAME /etc/os-release 2>/dev/null | cut -d= -f2 | tr -d '"')"
    command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L
    echo "$npp_note"
    echo "environment: $venv (from $("$PY" --version 2>&1), --system-site-packages)"
    rm -rf "$venv"
    # Without ensurepip (Debian/Ubuntu without python3-venv) the environment has no pip of its own
    # and uses the machine's (it installs into the environment all the same).
    "$PY" -m venv --system-site-packages "$venv" 2>/dev/null \
        || { rm -rf "$venv"; "$PY" -m venv --system-site-packages --without-pip "$venv"; } || return 1
    # --system-site-packages gives the base interpreter's packages; where python3 is itself a virtual
    # environment (the GPU machine's: NumPy, CuPy and PyTorch live there), a .pth adds its packages
    # after the new environment's own, so the wheel's cv2 still comes first.
    local parent
    parent=$("$PY" -c 'import site, sys; print("\n".join(site.getsitepackages()) if sys.prefix != sys.base_prefix else "")')
    if [[ -n $parent ]]; then
        printf '%s\n' "$parent" > "$(echo "$venv"/lib/python3*/site-packages)/_parent_environment.pth"
        echo "packages of the parent environment: $(echo "$parent" | tr '\n' ' ')"
    fi
    "$venv/bin/python" -m pip install --no-deps --no-index --disable-pip-version-check "$wheel" || return 1
    if [[ -n ${EXTRA_WHEELS:-} ]]; then   # the test packages the machine lacks (Dask, Zarr), as wheels
        "$venv/bin/python" -m pip install --no-deps --no-index --disable-pip-version-check "$EXTRA_WHEELS"/*.whl || return 1
    fi
    "$venv/bin/python" -m pip list --disable-pip-version-check 2>/dev/null | grep -iE '^(opencv|numpy|cupy|torch|nvidia-npp|dask|distributed|zarr) '
    du -sh "$venv"/lib/python3*/site-packages/{cv2,opencv_cudaimage.libs} 2>/dev/null | sed 's/^/installed: /'
}
# Outside the source tree, without PYTHONPATH: cv2 can only come from the environment.
# shellcheck disable=SC2317  # called through part()
py() { (cd "$OUT" && env -u PYTHONPATH -u PYTHONHOME PYTHONDONTWRITEBYTECODE=1 "$venv/bin/python" "$@"); }
# shellcheck disable=SC2317  # called through part()
checks() {
    local gpu=(); ((REQUIRE_GPU)) && gpu=(--require-gpu)
    py "$REPO/scripts/wheel/check_install.py" --prefix "$venv" ${opencv_version:+--opencv-version "$opencv_version"} "${gpu[@]}"
}

# shellcheck disable=SC2317  # called through part()
python_tests() {
    local tests=$REPO/misc/python/test
    if (( ${TEST_JOBS:-1} <= 1 )); then
        py -m unittest discover -s "$tests" -t "$tests" -p 'test_*.py' -v
        return
    fi
    # One process per file, TEST_JOBS at a time; then the files' results as one unittest summary.
    local f name ran=0 failed=0 skipped=0 files=0 n
    export -f py; export REPO OUT venv
    # One file: its tests in one process, log python-tests-FILE.log.
    # shellcheck disable=SC2016  # expanded by the inner shell
    local one='f=$1; s=$(date +%s)
        py -m unittest discover -s "$REPO/misc/python/test" -t "$REPO/misc/python/test" -p "$f" -v \
            > "$OUT/python-tests-${f%.py}.log" 2>&1
        echo "${f%.py}: exit $? in $(( $(date +%s) - s )) s"'
    # Files whose tests measure the device's free memory run alone, after the others.
    local alone='test_synced_mat.py'
    find "$tests" -maxdepth 1 -name 'test_*.py' -printf '%f\n' | sort | grep -vxF "$alone" \
        | xargs -P "$TEST_JOBS" -n 1 bash -c "$one" _
    for f in $alone; do [[ -f $tests/$f ]] && bash -c "$one" _ "$f"; done
    for f in "$OUT"/python-tests-test_*.log; do
        name=${f##*/python-tests-}; name=${name%.log}; files=$((files + 1))
        n=$(sed -n 's/^Ran \([0-9]*\) tests\? in.*/\1/p' "$f"); ran=$((ran + ${n:-0}))
        n=$(grep -o 'skipped=[0-9]*' "$f" | tail -1 | cut -d= -f2); skipped=$((skipped + ${n:-0}))
        if ! grep -q '^OK' "$f"; then
            failed=1; echo "== $name: not OK"
            sed -n '/^======/,/^Ran [0-9]/p' "$f" | head -150   # the failures' tracebacks
        fi
        grep -E 'skipped .' "$f" | sed "s/^/$name: /"
    done
    echo "Ran $ran tests (in $files processes)"
    if ((failed)); then echo "FAILED"; return 1; fi
    echo "OK (skipped=$skipped)"
}

part install install_wheel
if [[ ${results[0]} == PASS ]]; then
    part checks checks
    part python-tests python_tests
    part demo py "$REPO/samples/python/blur_demo.py" --output-dir "$OUT/demo"
    # Under CUDA_FORCE_PTX_JIT=1 the sample's PyTorch step fails where PyTorch holds no PTX for the
    # GPU (the tests skip it for the same reason: misc/python/test/cudaimage_test_support.py).
    no_torch=$(py -c 'import sys; sys.path.insert(0, sys.argv[1]); from cudaimage_test_support import torch_cannot_run; print(torch_cannot_run() or "")' "$REPO/misc/python/test" 2>/dev/null)
    if [[ -n $no_torch ]]; then
        echo "pipeline: skipped: $no_torch" | tee "$OUT/pipeline.log"
        names+=(pipeline); results+=("SKIP ($no_torch)")
    else
        part pipeline py "$REPO/samples/python/pipeline_cupy_torch.py" --output "$OUT/pipeline_cupy_torch.png"
    fi
fi

failed=0
for r in "${results[@]}"; do [[ $r == FAIL* ]] && failed=1; done
{
    echo "opencv-cudaimage wheel on $(hostname), $(date -u +%Y-%m-%dT%H:%M:%SZ): $( ((failed)) && echo FAILED || echo passed)"
    echo "  $(basename "$wheel"): $(stat -c %s "$wheel") bytes"
    for i in "${!names[@]}"; do printf '  %-14s %s\n' "${names[$i]}" "${results[$i]}"; done
    tests_line=$(grep -E '^(Ran [0-9]+ tests|OK|FAILED)' "$OUT/python-tests.log" 2>/dev/null | tr '\n' ' ')
    [[ -n $tests_line ]] && echo "  python tests: $tests_line"
    grep -hE '^(path|time):' "$OUT/demo.log" 2>/dev/null | sed 's/^/  demo: /'
    grep -hE '^(CUDA device|no CUDA device|CuPy|PyTorch|transfers|zero-copy|matches)' "$OUT/pipeline.log" 2>/dev/null | sed 's/^/  pipeline: /'
    echo "logs: $OUT"
} | tee "$OUT/summary.txt"
exit $failed
