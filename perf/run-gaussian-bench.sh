#!/usr/bin/env bash
# The performance issue's one command, on the GPU machine:
#   perf/run-gaussian-bench.sh BUNDLE_DIR [OUT] [gaussian_bench args]
# BUNDLE_DIR is an unpacked GPU bundle (its lib/ has our and OpenCV's libraries) holding
# bin/gaussian_bench (perf/build-gaussian-bench.sh); NPP's part is compiled here with nvcc when
# the toolkit has NPP. Writes OUT/gaussian-<date>.md and .json (commit them under perf/results/).
set -euo pipefail
B=$(cd "$1" && pwd); OUT=${2:-$PWD}; shift $(( $# >= 2 ? 2 : 1 ))
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$B/lib:$B/lib/carried${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
npp_args=()
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
if [[ -x $nvcc ]] && ls "$(dirname "$nvcc")"/../lib64/libnppif.so* >/dev/null 2>&1; then
    "$nvcc" -O3 -std=c++17 -arch=sm_90 "$here/npp_gaussian_bench.cu" -lnppif -lnppc -o "$OUT/npp_gaussian_bench"
    "$OUT/npp_gaussian_bench" > "$OUT/npp.jsonl"
    npp_args=(--npp "$OUT/npp.jsonl")
else
    echo "no NPP in this CUDA toolkit: the NPP column stays empty" >&2
fi
"$B/bin/gaussian_bench" --out "$OUT" "${npp_args[@]}" "$@"
