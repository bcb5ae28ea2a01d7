#!/usr/bin/env bash
# cudaimage GPU bundle: runs every check on a machine with an NVIDIA GPU, driver and nothing else
# of ours (no OpenCV needed; a pip cv2 there is kept out of the way). Built on a CPU machine by
# scripts/gpu/pack-gpu-bundle.sh; this file is scripts/gpu/bundle/run-all.sh in the repository.
#
#   tar -xJf cudaimage-gpu-bundle.tar.xz && cudaimage-gpu-bundle/run-all.sh [gtest arguments]
#   e.g. run-all.sh --gtest_filter='*Gaussian*'     (passed to both C++ test binaries)
#
# Parts (PARTS below; all run, whatever fails): env, cv2 (import, device info, GpuMat round trip),
# opencv_test_cudaimage, cudaimage_test (standalone build, if bundled), python-tests, demo,
# samples (each C++ sample, the cudaimage-blur tool and the Python pipeline sample on the test card;
# outputs in $OUT/samples), opencv_test_cudaarithm and opencv_test_cudafilters (if bundled),
# opencv_perf_cudaimage (only with RUN_PERF=1). Exit status 0 only if no part failed.
#   run-all.sh --only samples,demo   runs the env and cv2 parts and the parts named (comma-separated);
#                                    a name that is not a part is refused (exit 2) before anything runs
#
# Environment:
#   OUT          where logs, gtest XML and the demo's PNGs go (default ./results)
#   RUN_PERF=1   also run bin/opencv_perf_cudaimage with $PERF_ARGS
#   REQUIRE_GPU  1: no usable CUDA device is a failure (default: 1 if `nvidia-smi -L` lists a GPU)
#   PYTHON       interpreter with NumPy 2 (default python3)
#   CUDAIMAGE_CARRIED_LIBS  auto (default): use a carried system library (lib/carried/) only
#                if the host lacks it; all: always; none: never
#   PART_TIMEOUT seconds per part (default 3600)
#   SHARDS       k > 1: each C++ test binary runs its *_DeviceWide tests (they measure or exhaust the
#                whole device's memory) alone, then the rest in k processes at once (gtest sharding);
#                FILTER then narrows both (a positive gtest pattern; gtest arguments are not passed)
set -uo pipefail   # no -e: a failing part must not stop the others

B=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# The parts, in the order they run; env and cv2 run whatever --only names.
PARTS=(env cv2 opencv_test_cudaimage cudaimage_test python-tests demo samples opencv_test_cudaarithm
       opencv_test_cudafilters opencv_perf_cudaimage)
ONLY=
if [[ ${1:-} == --only ]]; then
    ONLY=${2:?--only needs a part name}; shift 2
    IFS=, read -ra only_names <<< "$ONLY"
    ((${#only_names[@]})) || only_names=("")
    for n in "${only_names[@]}"; do
        if [[ " ${PARTS[*]} " != *" $n "* ]]; then
            echo "run-all.sh: --only $ONLY: '$n' is not a part; the parts: $(IFS=,; echo "${PARTS[*]}")" >&2
            exit 2
        fi
    done
fi
OUT=${OUT:-$PWD/results}
mkdir -p "$OUT" || { echo "cannot create OUT=$OUT" >&2; exit 2; }
OUT=$(cd "$OUT" && pwd)
PY=${PYTHON:-python3}
PART_TIMEOUT=${PART_TIMEOUT:-3600}
SHARDS=${SHARDS:-1}
[[ $SHARDS =~ ^[1-9][0-9]*$ ]] || { echo "run-all.sh: SHARDS is '$SHARDS'; allowed: a whole number from 1" >&2; exit 2; }
export -n SHARDS   # ours: not the parts' (run-sanitizers.sh, which a Python test runs, reads its own)
export CUDAIMAGE_BUNDLE=$B

if [[ -z ${REQUIRE_GPU:-} ]]; then
    REQUIRE_GPU=0
    command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU ' && REQUIRE_GPU=1
fi
export REQUIRE_GPU

# --- libraries ----------------------------------------------------------------------------------
# lib/ first, a carried system library only where the host lacks it, the host's NPP (bundle-libs.sh).
lib_report=$OUT/libraries.txt
# shellcheck source=bundle-libs.sh
source "$B/bundle-libs.sh" || { echo "no $B/bundle-libs.sh (is this a whole bundle?)" >&2; exit 2; }
use_bundle_libraries "$B" "$lib_report" || exit 2
# Our cv2 before any installed one (the GPU machine's pip opencv 5 included); python-support holds
# helpers the tests import (OpenCV's tests_common.py).
export PYTHONPATH="$B/lib/python:$B/python-support${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONDONTWRITEBYTECODE=1
[[ -d $B/testdata ]] && export OPENCV_TEST_DATA_PATH=$B/testdata

# --- parts --------------------------------------------------------------------------------------
names=() results=()
part() {   # part NAME COMMAND...: runs it with its output in $OUT/NAME.log; 0 PASS, 77 SKIP, else FAIL
    local name=$1; shift
    printf '\n==> [%s] %s\n' "$(date +%H:%M:%S)" "$name"
    if declare -F "$1" >/dev/null; then "$@"; else timeout -k 30 "$PART_TIMEOUT" "$@"; fi 2>&1 | tee "$OUT/$name.log"
    local rc=${PIPESTATUS[0]} r=FAIL
    case $rc in 0) r=PASS ;; 77) r=SKIP ;; 124) r="FAIL (timeout ${PART_TIMEOUT}s)" ;; *) r="FAIL (exit $rc)" ;; esac
    names+=("$name"); results+=("$r")
    echo "--- $name: $r"
}
skip() { names+=("$1"); results+=("SKIP ($2)"); printf '\n==> %s: skipped (%s)\n' "$1" "$2"; }

# shellcheck disable=SC2317  # called through part()
env_report() {
    echo "bundle: $B"
    [[ -f $B/MANIFEST.txt ]] && sed -n '1,/^$/p' "$B/MANIFEST.txt"
    echo "host: $(hostname) $(uname -srm)"; grep -h PRETTY_NAME /etc/os-release 2>/dev/null
    echo "OUT=$OUT REQUIRE_GPU=$REQUIRE_GPU RUN_PERF=${RUN_PERF:-0}"
    echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
    echo "PYTHONPATH=$PYTHONPATH"
    echo "python: $(command -v "$PY") $("$PY" --version 2>&1)"
    if command -v nvidia-smi >/dev/null 2>&1; then
        nvidia-smi -L
        nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1
    else
        echo "nvidia-smi: not found"
    fi
    echo; echo "carried libraries:"; sed 's/^/  /' "$lib_report"
    echo; echo "unresolved libraries:"
    local f bad=0
    for f in "$B"/bin/* "$B"/lib/*.so* "$B"/lib/carried/* "$B"/lib/python/cv2/python-3/*.so; do
        [[ -f $f ]] || continue
        if ldd "$f" 2>&1 | grep -q "not found"; then
            echo "  $f:"; ldd "$f" | grep "not found" | sed 's/^/    /'; bad=1
        fi
    done
    ((bad)) || echo "  none"
    ldd "$B/bin/opencv_test_cudaimage" > "$OUT/ldd-opencv_test_cudaimage.txt" 2>&1
    return "$bad"
}

gtest_part() {   # gtest_part NAME BINARY ARGS...
    local name=$1 bin=$2; shift 2
    if [[ ! -x $bin ]]; then skip "$name" "not in this bundle"; return; fi
    if ((SHARDS > 1)); then part "$name" gtest_sharded "$name" "$bin"; return; fi
    part "$name" "$bin" --gtest_output="xml:$OUT/$name.xml" "$@"
}

# The tests whose test case ends in _DeviceWide read the whole device's free memory or exhaust it:
# they run alone, first; then the rest in SHARDS processes at once on the one GPU (gtest's own
# sharding). FILTER narrows both (a positive gtest pattern). 0 when every process passed.
# shellcheck disable=SC2317  # called through part()
gtest_sharded() {   # gtest_sharded NAME BINARY
    local name=$1 bin=$2 rc=0 i pids=()
    local positive=${FILTER:-*}
    echo "exclusive pass: $positive with *_DeviceWide.* alone"
    timeout -k 30 "$PART_TIMEOUT" "$bin" --gtest_filter="*_DeviceWide.*" --gtest_output="xml:$OUT/$name-exclusive.xml" \
        > "$OUT/$name-exclusive.log" 2>&1 || rc=1
    tail -3 "$OUT/$name-exclusive.log"
    for ((i = 0; i < SHARDS; i++)); do
        GTEST_TOTAL_SHARDS=$SHARDS GTEST_SHARD_INDEX=$i timeout -k 30 "$PART_TIMEOUT" "$bin" \
            --gtest_filter="$positive-*_DeviceWide.*" --gtest_output="xml:$OUT/$name-shard$i.xml" \
            > "$OUT/$name-shard$i.log" 2>&1 &
        pids+=($!)
    done
    for i in "${!pids[@]}"; do
        wait "${pids[$i]}" || rc=1
        echo "shard $i of $SHARDS:"; grep -E '^\[==========\]|^\[  PASSED  \]|^\[  FAILED  \]|^\[  SKIPPED \] [0-9]' "$OUT/$name-shard$i.log" | sed 's/^/  /'
    done
    return $rc
}

# shellcheck disable=SC2317  # called through part()
samples_part() {   # every sample and the tool on the test card; 0 all passed, 77 none could run, 1 a failure
    local img=$B/samples/data/blur_test.png out=$OUT/samples n_pass=0 n_fail=0 n_skip=0
    mkdir -p "$out"
    one() {   # one NAME COMMAND...: exit 0 PASS, 77 SKIP (no device; a FAIL when REQUIRE_GPU=1)
        local name=$1 rc; shift
        printf '\n--- sample %s: %s\n' "$name" "$*"
        timeout -k 30 "$PART_TIMEOUT" "$@"; rc=$?
        if ((rc == 0)); then n_pass=$((n_pass + 1)); echo "--- sample $name: PASS"
        elif ((rc == 77 && !REQUIRE_GPU)); then n_skip=$((n_skip + 1)); echo "--- sample $name: SKIP (no CUDA device)"
        else n_fail=$((n_fail + 1)); echo "--- sample $name: FAIL (exit $rc)"; fi
    }
    missing() { n_fail=$((n_fail + 1)); printf '\n--- sample %s: FAIL (%s)\n' "$1" "$2"; }
    local s
    for s in blur pipeline video_blur; do
        [[ -x $B/bin/samples/$s ]] || { missing "$s" "not in this bundle: pack it with scripts/gpu/pack-gpu-bundle.sh --standalone"; continue; }
        case $s in
            blur) one blur "$B/bin/samples/blur" "$img" --output-dir "$out" ;;
            pipeline) one pipeline "$B/bin/samples/pipeline" "$img" --output "$out/pipeline.png" ;;
            # Full HD frames: the rate is then set by PCIe, as in a real video pipeline.
            video_blur) one video_blur "$B/bin/samples/video_blur" --frames 600 --size 1920x1080 --input "$img" ;;
        esac
    done
    if [[ -x $B/bin/cudaimage-blur ]]; then
        one tool-cpu "$B/bin/cudaimage-blur" "$img" "$out/tool_cpu.png" --sigma 2 --cpu
        local have_gpu=0
        "$PY" -c 'import cv2, sys; sys.exit(0 if cv2.cuda.getCudaEnabledDeviceCount() > 0 else 1)' >/dev/null 2>&1 && have_gpu=1
        if ((have_gpu)); then
            one tool-gpu "$B/bin/cudaimage-blur" "$img" "$out/tool_gpu.png" --sigma 2 --bench 50
            # Bit-exact 8-bit results give byte-identical PNGs (same encoder, same pixels).
            one tool-gpu-equals-cpu cmp "$out/tool_gpu.png" "$out/tool_cpu.png"
        else
            # shellcheck disable=SC2016  # $0.. are bash -c's arguments
            one tool-gpu-refused bash -c '! "$0" "$1" "$2" --sigma 2 && exit 77' "$B/bin/cudaimage-blur" "$img" "$out/tool_gpu.png"
        fi
    else
        missing cudaimage-blur "not in this bundle"
    fi
    if [[ -f $B/samples/python/pipeline_cupy_torch.py ]]; then
        one pipeline_cupy_torch "$PY" "$B/samples/python/pipeline_cupy_torch.py" --output "$out/pipeline_cupy_torch.png"
    else
        missing pipeline_cupy_torch "no samples/python/pipeline_cupy_torch.py"
    fi
    echo
    echo "samples: $n_pass passed, $n_fail failed, $n_skip skipped; outputs in $out"
    ((n_fail)) && return 1
    ((n_pass)) || return 77
    return 0
}

wanted() { [[ -z $ONLY || $1 == env || $1 == cv2 || ",$ONLY," == *",$1,"* ]]; }   # --only a,b: those parts

for p in "${PARTS[@]}"; do
    wanted "$p" || continue
    case $p in
        env) part env env_report ;;
        cv2) part cv2 "$PY" "$B/checks/cv2_check.py" ;;
        opencv_test_cudaimage|cudaimage_test) gtest_part "$p" "$B/bin/$p" "$@" ;;
        python-tests)
            if compgen -G "$B/python-tests/test*.py" >/dev/null; then
                part python-tests "$PY" -m unittest discover -s "$B/python-tests" -t "$B/python-tests" -v
            else
                skip python-tests "no python-tests/test*.py"
            fi ;;
        demo)
            if [[ -f $B/samples/python/blur_demo.py ]]; then
                part demo "$PY" "$B/samples/python/blur_demo.py" --output-dir "$OUT/demo"
            else
                skip demo "no samples/python/blur_demo.py"
            fi ;;
        samples) part samples samples_part ;;
        # OpenCV's own tests of the NPP-backed modules, when the bundle carries them (pack
        # --opencv-tests; named by --only, a skip otherwise). No opencv_extra here: tests that need
        # its data files fail with "missing test data" (counted apart).
        opencv_test_cudaarithm|opencv_test_cudafilters)
            [[ -x $B/bin/$p || -n $ONLY ]] && gtest_part "$p" "$B/bin/$p" ;;
        opencv_perf_cudaimage)
            if [[ ${RUN_PERF:-0} == 1 ]]; then
                # shellcheck disable=SC2086  # PERF_ARGS is a list of arguments
                gtest_part opencv_perf_cudaimage "$B/bin/opencv_perf_cudaimage" ${PERF_ARGS:-}
            else
                skip opencv_perf_cudaimage "RUN_PERF=1 runs it"
            fi ;;
        *) echo "run-all.sh: part $p is listed in PARTS but has no command" >&2; exit 2 ;;
    esac
done

# --- summary ------------------------------------------------------------------------------------
failed=0
for r in "${results[@]}"; do [[ $r == FAIL* ]] && failed=1; done
{
    echo "cudaimage GPU bundle: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname): $( ((failed)) && echo FAILED || echo passed)"
    for i in "${!names[@]}"; do printf '  %-24s %s\n' "${names[$i]}" "${results[$i]}"; done
    echo "logs: $OUT"
} | tee "$OUT/summary.txt"
exit $failed
