#!/usr/bin/env bash
# Runs NVIDIA compute-sanitizer (memcheck, racecheck, initcheck, synccheck) over the GPU tests of an
# unpacked GPU bundle (scripts/gpu/pack-gpu-bundle.sh) and prints one summary line per tool.
#
#   scripts/gpu/run-sanitizers.sh BUNDLE_DIR [OUT]
#   scripts/gpu/run-sanitizers.sh --fetch DIR    (on a machine with PyPI access: puts compute-sanitizer
#                                            in DIR, from the wheel nvidia-cuda-sanitizer-api
#                                            $SANITIZER_VERSION, default 13.0.*; ~42 MB; carry DIR
#                                            to a bare GPU machine and point COMPUTE_SANITIZER at
#                                            DIR/bin/compute-sanitizer; a machine's own toolkit copy
#                                            comes first: on the lent H100, 2026-12-07, the wheel's
#                                            2025.3.1 stopped every target, a PyTorch one included,
#                                            "before first instrumented API call", while
#                                            /usr/local/cuda/bin/compute-sanitizer worked)
#
#   BUNDLE_DIR  unpacked cudaimage-gpu-bundle (bin/opencv_test_cudaimage, lib/)
#   OUT         where the logs go (default ./sanitizer-results): OUT/<tool>.log, OUT/summary.txt
#
# Environment:
#   TOOLS            tools to run, separated by spaces or commas (default and allowed:
#                    "memcheck racecheck initcheck synccheck"; another name is refused, exit 2)
#   GTEST_FILTER     tests to run under every tool (default: see FILTER below; sanitizers slow
#                    kernels 10-100x, so it keeps each tool to a few minutes on an H200)
#   SANITIZER_ARGS   extra compute-sanitizer arguments (e.g. "--leak-check full" for memcheck)
#   TOOL_TIMEOUT     seconds per tool (default 3600; per shard with SHARDS)
#   SHARDS           run each tool's tests as this many gtest shards at once, one process each
#                    (default 1; shards share the GPU, and each sanitizer process spreads its
#                    host-side work over its own cores)
#   COMPUTE_SANITIZER  path of compute-sanitizer (default: PATH, /usr/local/cuda*/bin, then
#                    BUNDLE_DIR/compute-sanitizer/bin, the --fetch layout)
#   RESUME_FROM      the OUT of an earlier run that ran out of time: each tool runs only the tests
#                    of its filter that did not finish there (no "[       OK ]" line in that run's
#                    logs of the same tool), so a set too long for one call completes in the next
#                    (a tool with nothing left says so and counts as clean)
#
# Every tool runs with --error-exitcode 1 and --report-api-errors no: the tests provoke CUDA API
# errors on purpose (impossible allocations, out of memory) and handle them; those are not
# sanitizer findings. The fuzz test runs 100 cases (CUDAIMAGE_FUZZ_CASES), the SyncedMat stress
# test 400 operations (CUDAIMAGE_STRESS_OPS; 50 under racecheck and initcheck:
# CUDAIMAGE_STRESS_OPS_SLOW_TOOLS). The out-of-memory and leak tests are left out (the
# sanitizer's own allocations and padding make both meaningless).
# Exit status: 0 only if every tool reported 0 errors and the tests passed.
# Duration on an H200 (measured 2026-12-02, the four tools in parallel with other tests, so upper
# bounds): lean: memcheck 147 s, synccheck 95 s, racecheck 333 s, initcheck 360 s; rest: memcheck
# 141 s, synccheck 122 s, initcheck 309 s, racecheck ~480 s (Large/9, 64F x 3 channels, alone 48 s).
# Each tool in its own process (TOOLS=racecheck ...), all four at once, fits a 10-minute call per set.
# gaussian under racecheck (2026-12-03, alone, SHARDS=16): 135 tests passed in 375 s; the Large
# instances take 66-114 s each, so the whole set needs two 10-minute calls (split GTEST_FILTER). The
# tensor-core sweeps are one test per case: under racecheck with SHARDS=16 the every-radius sweep's
# 128 tests take 57 s, the channel sweep's 72 56 s (2026-12-04). Sanitizers of 14 shards at once
# (racecheck and memcheck together) finished neither in 330 s: run one tool at a time.
set -uo pipefail

[[ $# -ge 1 ]] || { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2; }

if [[ $1 == --fetch ]]; then
    dir=${2:?usage: $0 --fetch DIR}
    tmp=$(mktemp -d)
    python3 -m pip download --no-deps "nvidia-cuda-sanitizer-api==${SANITIZER_VERSION:-13.0.*}" -d "$tmp" || exit 2
    mkdir -p "$dir" || exit 2
    # The wheel's nvidia/cu13/{bin,lib,compute-sanitizer} tree, without docs and headers.
    python3 - "$tmp"/nvidia_cuda_sanitizer_api-*.whl "$dir" <<'PY' || exit 2
import os, stat, sys, zipfile
wheel, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as z:
    for info in z.infolist():
        parts = info.filename.split("/")
        if parts[:2] != ["nvidia", "cu13"] or info.is_dir() or "docs" in parts or "include" in parts:
            continue
        target = os.path.join(out, *parts[2:])
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with z.open(info) as src, open(target, "wb") as dst:
            dst.write(src.read())
        os.chmod(target, 0o755)
PY
    rm -rf "$tmp"
    cs=$dir/bin/compute-sanitizer
    [[ -x $cs ]] || { echo "error: no $cs in the wheel" >&2; exit 2; }
    echo "compute-sanitizer: $cs ($(du -sh "$dir" | cut -f1)); use COMPUTE_SANITIZER=$cs"
    exit 0
fi
# CudaImage_GaussianBlur_Small instance i = depth*20 + (channels-1)*5 + border. SANITIZE_SET picks
# the tests (GTEST_FILTER overrides it; an unknown set is refused, exit 2):
#   lean (default)  1 and 3 channels of every depth and border (50 of 100 instances), mixed
#                   borders, streams, SyncedMat_Cuda.*, the fuzz test, the reliability tests but
#                   out-of-memory and leaks, BadInputGpu.*, MultiGpu.*, MultiGpu2.*
#   rest            the GPU tests lean leaves out: 2 and 4 channels (the other 50 instances),
#                   GaussianBlur_Large.*, GaussianBlur_Huge.*, and the fuzz test again (give it
#                   another CUDAIMAGE_FUZZ_SEED)
#   all             both
#   gaussian        every Gaussian test (*Gaussian*: the CPU-only ones cost nothing), the
#                   tensor-core tests included, but the two that count free device memory
#                   (GaussianBlur_Scratch.*: the sanitizer's allocations and other shards move it);
#                   racecheck and initcheck leave out _Huge as well (below)
small() { for d in 0 1 2 3 4; do for c in "$@"; do for b in 0 1 2 3 4; do
    printf 'CudaImage/CudaImage_GaussianBlur_Small.matches_cpu/%d:' $((d * 20 + c * 5 + b)); done; done; done; }
declare -A SETS
SETS[lean]="$(small 0 2)CudaImage_GaussianBlur_MixedBorders.*:CudaImage_GaussianBlur_Streams.*:SyncedMat_Cuda.*:CudaImage_GaussianFuzz.random_cases_match_cpu:CudaImage_Reliability.synced_mat_8_threads_4_streams_stress:CudaImage_Reliability.one_gaussian_filter_from_4_threads_and_streams:CudaImage_Reliability.gaussian_apply_after_a_caught_allocation_failure:CudaImage_Reliability.non_blocking_and_per_thread_streams:CudaImage_Reliability.views_and_pending_work_outlive_released_objects:CudaImage_BadInputGpu.*:CudaImage_MultiGpu.*:CudaImage_MultiGpu2.*"
SETS[rest]="$(small 1 3)CudaImage/CudaImage_GaussianBlur_Large.*:CudaImage_GaussianBlur_Huge.*:CudaImage_GaussianFuzz.random_cases_match_cpu"
SETS[all]="${SETS[lean]}:${SETS[rest]}"
SETS[gaussian]='*Gaussian*-*_DeviceWide.*'
SANITIZE_SET=${SANITIZE_SET:-lean}
[[ -n ${SETS[$SANITIZE_SET]+set} ]] || {
    echo "error: SANITIZE_SET is '$SANITIZE_SET'; the sets: $(printf '%s\n' "${!SETS[@]}" | sort | paste -sd ' ' -)" >&2; exit 2; }
FILTER=${GTEST_FILTER:-${SETS[$SANITIZE_SET]}}
# The tools (compute-sanitizer --tool), checked here so that a misspelt one fails before any runs.
ALL_TOOLS=(memcheck racecheck initcheck synccheck)
IFS=$', \t' read -ra TOOL_LIST <<< "${TOOLS:-${ALL_TOOLS[*]}}"
((${#TOOL_LIST[@]})) || TOOL_LIST=("${ALL_TOOLS[@]}")
for tool in "${TOOL_LIST[@]}"; do
    [[ " ${ALL_TOOLS[*]} " == *" $tool "* ]] || {
        echo "error: TOOLS names '$tool'; the tools: ${ALL_TOOLS[*]}" >&2; exit 2; }
done
SHARDS=${SHARDS:-1}
[[ $SHARDS =~ ^[1-9][0-9]*$ ]] || { echo "error: SHARDS is a positive count, not '$SHARDS'" >&2; exit 2; }
if [[ -n ${RESUME_FROM:-} ]]; then
    [[ -d $RESUME_FROM ]] || { echo "error: RESUME_FROM is not a folder of an earlier run: '$RESUME_FROM'" >&2; exit 2; }
    RESUME_FROM=$(cd "$RESUME_FROM" && pwd)
fi

B=$(cd "$1" && pwd) || exit 2
OUT=${2:-$PWD/sanitizer-results}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
[[ ${RESUME_FROM:-} != "$OUT" ]] || { echo "error: RESUME_FROM must not be OUT (its logs would be overwritten)" >&2; exit 2; }
bin=$B/bin/opencv_test_cudaimage
[[ -x $bin ]] || { echo "error: no $bin (is $1 an unpacked GPU bundle?)" >&2; exit 2; }

cs=${COMPUTE_SANITIZER:-}
if [[ -z $cs ]]; then
    cs=$(command -v compute-sanitizer 2>/dev/null || true)
    for d in /usr/local/cuda/bin /usr/local/cuda-*/bin /opt/cuda/bin "$B/compute-sanitizer/bin"; do
        [[ -z $cs && -x $d/compute-sanitizer ]] && cs=$d/compute-sanitizer
    done
fi
[[ -n $cs && -x $cs ]] || { echo "error: compute-sanitizer not found (PATH, /usr/local/cuda/bin); set COMPUTE_SANITIZER" >&2; exit 2; }

# The libraries as run-all.sh has them (the bundle's bundle-libs.sh).
# shellcheck source=bundle/bundle-libs.sh
source "$B/bundle-libs.sh" && use_bundle_libraries "$B" || exit 2
export CUDAIMAGE_FUZZ_CASES=${CUDAIMAGE_FUZZ_CASES:-100}
export CUDAIMAGE_STRESS_OPS=${CUDAIMAGE_STRESS_OPS:-400}

echo "compute-sanitizer: $cs ($("$cs" --version 2>/dev/null | grep -i version | head -1))"
echo "binary: $bin"
echo "logs: $OUT"
summary=()
status=0
# One shard of a tool's run: the tests gtest assigns to shard $3 of $SHARDS (all of them when
# SHARDS is 1), in their own process and log. Prints "errors passed failed rc running": errors "-"
# when the log has no sanitizer summary; passed and failed count the tests that finished (so a
# stopped shard still counts its finished ones); running is the test it was in when it stopped.
run_shard() {
    local tool=$1 tool_filter=$2 shard=$3 stress=$4 log=$5 xml=$6 rc errors failed passed running
    # shellcheck disable=SC2086  # SANITIZER_ARGS is a list of arguments
    GTEST_TOTAL_SHARDS=$SHARDS GTEST_SHARD_INDEX=$shard CUDAIMAGE_STRESS_OPS=$stress \
        timeout -k 30 "${TOOL_TIMEOUT:-3600}" "$cs" --tool "$tool" --error-exitcode 1 --report-api-errors no \
        ${SANITIZER_ARGS:-} "$bin" --gtest_filter="$tool_filter" --gtest_output="xml:$xml" > "$log" 2>&1
    rc=$?
    # memcheck, initcheck, synccheck: "ERROR SUMMARY: N errors"; racecheck: "RACECHECK SUMMARY: H hazards
    # displayed (E errors, W warnings)", where every hazard, warnings included, counts.
    errors=$(grep -Eo 'ERROR SUMMARY: [0-9]+ error' "$log" | tail -1 | grep -Eo '[0-9]+')
    [[ -z $errors ]] && errors=$(grep -Eo 'RACECHECK SUMMARY: [0-9]+ hazard' "$log" | tail -1 | grep -Eo '[0-9]+')
    passed=$(grep -cE '^\[       OK \] .*\([0-9]+ ms\)$' "$log")
    failed=$(grep -cE '^\[  FAILED  \] .*\([0-9]+ ms\)$' "$log")
    running=$(grep -E '^\[ RUN      \]|^\[       OK \]|^\[  FAILED  \] .*\([0-9]+ ms\)$' "$log" | tail -1 | sed -nE 's/^\[ RUN      \] ([^ ,]+).*/\1/p')
    echo "${errors:--} ${passed:-0} ${failed:-0} $rc ${running:--}"
}

# The tests of gtest filter $2 that the logs of tool $1 in $RESUME_FROM do not show finished, as a
# gtest filter (empty when none is left). The listing's test-case lines end in '.', its test lines
# are indented; anything before the first test case (the harness's device report) is not a test.
resume_filter() {
    local tool=$1 filter=$2
    comm -23 \
        <("$bin" --gtest_list_tests --gtest_filter="$filter" 2>/dev/null |
            awk '/^[^ ]/ { s = ($1 ~ /\.$/) ? $1 : "" } /^  [^ ]/ && s != "" { print s $1 }' | sort -u) \
        <(cat "$RESUME_FROM/$tool.log" "$RESUME_FROM/$tool".[0-9]*.log 2>/dev/null |
            sed -nE 's/^\[       OK \] ([^ ]+) \([0-9]+ ms\)$/\1/p' | sort -u) | paste -sd: -
}

for tool in "${TOOL_LIST[@]}"; do
    echo; echo "==> [$(date +%H:%M:%S)] $tool$( ((SHARDS > 1)) && echo " ($SHARDS shards at once)")"
    start=$(date +%s)
    # racecheck and initcheck slow some tests 100x (measured on the H200: the 2^31-byte scratch test
    # 209 s under racecheck, the large asynchronous download 202 s under initcheck): leave the size
    # tests (those two and the 2.1 GB image) to memcheck and synccheck, and run the stress test shorter.
    tool_filter=$FILTER stress=$CUDAIMAGE_STRESS_OPS
    if [[ $tool == racecheck || $tool == initcheck ]]; then
        slow=CudaImage_BadInputGpu.wide_row_scratch_overflow:SyncedMat_Cuda.host_read_waits_for_async_download_of_large_image:CudaImage_GaussianBlur_Huge.*
        [[ $FILTER == *-* ]] && tool_filter+=":$slow" || tool_filter+="-$slow"
        stress=${CUDAIMAGE_STRESS_OPS_SLOW_TOOLS:-50}
    fi
    if [[ -n ${RESUME_FROM:-} ]]; then
        tool_filter=$(resume_filter "$tool" "$tool_filter")
        if [[ -z $tool_filter ]]; then
            line="$tool: nothing left after $RESUME_FROM"
            echo "$line"; summary+=("$line")
            continue
        fi
        echo "$tool: $(tr ':' '\n' <<< "$tool_filter" | wc -l) tests left after $RESUME_FROM"
    fi
    # Shards run at once (the GPU is shared; the sanitizer's host-side work spreads over the cores):
    # SHARDS=1 keeps one process and the logs $tool.log/.xml; more write $tool.<shard>.log/.xml.
    for ((k = 0; k < SHARDS; k++)); do
        name=$tool; ((SHARDS > 1)) && name=$tool.$k
        run_shard "$tool" "$tool_filter" "$k" "$stress" "$OUT/$name.log" "$OUT/$name.xml" > "$OUT/.$name.result" &
    done
    wait
    errors=0 passed=0 failed=0 rc=0 missing=() logs=()
    for ((k = 0; k < SHARDS; k++)); do
        name=$tool; ((SHARDS > 1)) && name=$tool.$k
        read -r e p f r running < "$OUT/.$name.result"; rm -f "$OUT/.$name.result"
        logs+=("$OUT/$name.log")
        if [[ $e == - ]]; then
            missing+=("$name (exit $r, $([[ $r == 124 ]] && echo timeout || echo 'crashed or killed?')$([[ $running != - ]] && echo ", in $running"))")
        else
            errors=$((errors + e))
        fi
        passed=$((passed + p)) failed=$((failed + f))
        [[ $r != 0 ]] && rc=$r
    done
    secs=$(( $(date +%s) - start ))
    if ((${#missing[@]})); then
        line="$tool: no sanitizer summary from ${missing[*]}; $errors $([[ $tool == racecheck ]] && echo hazards || echo errors) in the others"
        status=1
    else
        line="$tool: $errors $([[ $tool == racecheck ]] && echo hazards || echo errors)"
    fi
    ((errors > 0)) && status=1
    line+="; tests: $passed passed, $failed failed; exit $rc; ${secs} s; $( ((SHARDS > 1)) && echo "$SHARDS shards, $OUT/$tool.*.log" || echo "${logs[0]}")"
    ((failed > 0)) && status=1
    [[ $rc != 0 ]] && status=1
    echo "$line"
    summary+=("$line")
done
{
    echo "compute-sanitizer over $bin: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname): $( ((status)) && echo FAILED || echo clean)"
    printf '  %s\n' "${summary[@]}"
} | tee "$OUT/summary.txt"
exit $status
