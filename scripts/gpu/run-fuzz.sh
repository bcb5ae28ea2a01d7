#!/usr/bin/env bash
# Differential fuzzing of cv::cuda::createGaussianBlur against CPU oracles
# (CudaImage_GaussianFuzz.* in test/test_gaussian_fuzz.cpp). Needs a CUDA device.
#
#   scripts/gpu/run-fuzz.sh [-n CASES] [-s SEED] [-f FIRST] [-o LOG] [BUNDLE_DIR]
#
#   -n CASES   number of cases (default 10000; the normal test suite runs 200)
#   -s SEED    seed (default: the test's fixed seed, printed in the log)
#   -f FIRST   index of the first case (replay one case: -s SEED -f INDEX -n 1)
#   -o LOG     also write the output to LOG
#   BUNDLE_DIR an unpacked GPU bundle (scripts/gpu/pack-gpu-bundle.sh): runs its bin/opencv_test_cudaimage
#              with the bundle's libraries. Without it: the module build's binary
#              ($OPENCV_BUILD/bin/opencv_test_cudaimage, scripts/build/build-module.sh).
#
# Exit status: the test's (0: every case matched). A failure prints the seed, the case index, every
# parameter, the first mismatching pixel and the line that replays it.
# Duration: about 2-4 minutes for 10,000 cases on a 16-core host with an H200 (CPU oracles dominate).
set -euo pipefail

cases=10000 seed='' first='' log=''
while getopts "n:s:f:o:h" opt; do
    case $opt in
        n) cases=$OPTARG ;;
        s) seed=$OPTARG ;;
        f) first=$OPTARG ;;
        o) log=$OPTARG ;;
        *) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
bundle=${1:-}
# The test reads these with strtoull, which takes "10k" as 10: refuse anything but a number here.
number() { [[ $2 =~ ^(0|[1-9][0-9]*|0[xX][0-9a-fA-F]+)$ ]] || { echo "error: $1 is '$2'; a non-negative integer" >&2; exit 2; }; }
number -n "$cases"
((cases > 0)) || { echo "error: -n is 0; at least 1 case" >&2; exit 2; }
[[ -z $seed ]] || number -s "$seed"
[[ -z $first ]] || number -f "$first"
(($# <= 1)) || { echo "error: one BUNDLE_DIR at most, got: $*" >&2; exit 2; }

if [[ -n $bundle ]]; then
    B=$(cd "$bundle" && pwd)
    bin=$B/bin/opencv_test_cudaimage
    [[ -x $bin ]] || { echo "error: no $bin (is $bundle an unpacked GPU bundle?)" >&2; exit 2; }
    # The libraries as run-all.sh has them (the bundle's bundle-libs.sh).
    source "$B/bundle-libs.sh" && use_bundle_libraries "$B"
else
    source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
    bin=$OPENCV_BUILD/bin/opencv_test_cudaimage
    [[ -x $bin ]] || { echo "error: no $bin: run scripts/build/build-module.sh first" >&2; exit 2; }
fi

export CUDAIMAGE_FUZZ_CASES=$cases
[[ -n $seed ]] && export CUDAIMAGE_FUZZ_SEED=$seed
[[ -n $first ]] && export CUDAIMAGE_FUZZ_FIRST=$first
echo "fuzz: $bin, $cases cases, seed ${seed:-default}${first:+, first case $first}"
start=$(date +%s)
set +e
if [[ -n $log ]]; then
    "$bin" --gtest_filter='CudaImage_GaussianFuzz.*' 2>&1 | tee "$log"
    rc=${PIPESTATUS[0]}
else
    "$bin" --gtest_filter='CudaImage_GaussianFuzz.*'
    rc=$?
fi
echo "fuzz: exit $rc after $(( $(date +%s) - start )) s"
exit "$rc"
