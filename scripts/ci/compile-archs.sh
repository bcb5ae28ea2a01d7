#!/usr/bin/env bash
# Compiles every kernel file (src/**/*.cu: src/cuda/ and each path's folder src/paths/<name>/) for
# several GPU architectures, compile only, and reports ptxas's register, spill and static
# shared-memory use per kernel family and architecture, beside the dynamic shared memory the fused
# paths ask for (src/gaussian_tile.hpp) and each architecture's opt-in limit. Run it after every kernel change; its summary goes in the note.
#
#   scripts/ci/compile-archs.sh                  # CMAKE_CUDA_ARCHITECTURES "75;80;86;89;90"
#   CUDAIMAGE_ARCHS="80;90" scripts/ci/compile-archs.sh
#   CUDAIMAGE_ARCHS_FORCE=1 scripts/ci/compile-archs.sh   # compile even if nothing changed
#
# A check that passed is not repeated while its inputs are unchanged (the contents of src/ and
# include/, the flags' CMake file, these scripts, nvcc's version and the OpenCV headers' path, per
# architecture list): it prints the summary it kept (build-archs/checked-<archs>.summary) instead.
#
# The nvcc options are the library's own, read from cmake/cudaimage_sources.cmake. Needs OpenCV's
# headers (the cached build's install: scripts/build/build-opencv.sh). Output:
# build-archs/<file name>.log (ptxas -v) and build-archs/summary.txt. Fails if a file does not compile
# for an architecture; lists the kernels that spill.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
archs=${CUDAIMAGE_ARCHS:-75;80;86;89;90}
out="$CUDAIMAGE_REPO/build-archs"
mkdir -p "$out"

include=$(ls -d "$OPENCV_INSTALL"/include/opencv[45] 2>/dev/null | head -1)
[[ -n $include ]] || die "no OpenCV headers in $OPENCV_INSTALL: run scripts/build/build-opencv.sh first"

# What the check depends on, as one hash; a passed check leaves it in checked-<archs>.stamp.
inputs_hash() {
    {
        (cd "$CUDAIMAGE_REPO" && find src include -type f -print0 | sort -z | xargs -0 sha256sum)
        (cd "$CUDAIMAGE_REPO" && sha256sum cmake/cudaimage_sources.cmake scripts/ci/compile-archs.sh \
            scripts/ci/path_shared_memory.cpp scripts/ci/ptxas_summary.py)
        "$CUDA_HOME/bin/nvcc" --version
        echo "$include $archs"
    } | sha256sum | cut -d' ' -f1
}
checked="$out/checked-${archs//;/_}"
hash=$(inputs_hash)
if [[ -z ${CUDAIMAGE_ARCHS_FORCE:-} && -f $checked.stamp && -f $checked.summary && $(cat "$checked.stamp") == "$hash" ]]; then
    echo "compile-archs.sh: sm ${archs//;/, } unchanged since the check that passed (CUDAIMAGE_ARCHS_FORCE=1 compiles again); its summary:"
    sed -n "1,/^$/p" "$checked.summary"
    exit 0
fi
rm -f "$checked.stamp"
gencode=()
for a in ${archs//;/ }; do gencode+=("--generate-code=arch=compute_$a,code=sm_$a"); done
# The nvcc options of our CUDA code from their one source, cmake/cudaimage_sources.cmake
# (CUDAIMAGE_CUDA_FLAGS and its definitions, as cudaimage_nvcc_flags() gives them to both builds),
# read by a CMake script that includes it.
cat > "$out/cuda-flags.cmake" <<EOF
cmake_minimum_required(VERSION 3.18)
include("$CUDAIMAGE_REPO/cmake/cudaimage_sources.cmake")
cudaimage_nvcc_flags(flags)
list(JOIN flags "\\n" lines)
execute_process(COMMAND "\${CMAKE_COMMAND}" -E echo "\${lines}")
EOF
flags_text=$(cmake -P "$out/cuda-flags.cmake") || die "cannot read the CUDA flags from cmake/cudaimage_sources.cmake"
mapfile -t cuda_flags <<<"$flags_text"
[[ -n ${cuda_flags[0]:-} ]] || die "cmake/cudaimage_sources.cmake gave no CUDA flags"

step "compile src/**/*.cu for sm ${archs//;/, } (ptxas -v; ${cuda_flags[*]})"
t0=$(date +%s)
pids=()
declare -A seen=()
mapfile -t sources < <(find "$CUDAIMAGE_REPO/src" -name '*.cu' | sort)
for cu in "${sources[@]}"; do
    name=$(basename "$cu" .cu)
    [[ -z ${seen[$name]:-} ]] || die "two kernel files named $name.cu (${seen[$name]#"$CUDAIMAGE_REPO"/}, ${cu#"$CUDAIMAGE_REPO"/}): the logs are named by file"
    seen[$name]=$cu
    # Our flags, and what a Release build of a shared library adds to them (C++17, -O3 -DNDEBUG,
    # -fPIC); one object per file, all architectures.
    "$CUDA_HOME/bin/nvcc" -std=c++17 -O3 -DNDEBUG -Xcompiler=-fPIC "${cuda_flags[@]}" \
        -I"$CUDAIMAGE_REPO/include" -I"$CUDAIMAGE_REPO/src" -isystem "$include" \
        "${gencode[@]}" --threads 2 -Xptxas -v -c "$cu" -o "$out/$name.o" > "$out/$name.log" 2>&1 &
    pids+=("$!:$name")
done
status=0
for p in "${pids[@]}"; do
    wait "${p%%:*}" || { echo "FAILED: ${p#*:} (see $out/${p#*:}.log)"; tail -20 "$out/${p#*:}.log"; status=1; }
done
((status == 0)) || exit 1

# The dynamic shared memory each single-kernel path asks for, from the path units themselves.
g++ -std=c++17 -I"$CUDAIMAGE_REPO/src" -isystem "$include" -isystem "$CUDA_HOME/include" \
    "$CUDAIMAGE_REPO/scripts/ci/path_shared_memory.cpp" -o "$out/path_shared_memory"
"$out/path_shared_memory" > "$out/shared_memory.txt"
"$PYTHON_SYSTEM" "$CUDAIMAGE_REPO/scripts/ci/ptxas_summary.py" "$out" "$archs" "$out/shared_memory.txt" | tee "$out/summary.txt"
echo "compile-archs.sh: $(( $(date +%s) - t0 )) s for sm ${archs//;/, }"
cp "$out/summary.txt" "$checked.summary"
echo "$hash" > "$checked.stamp"
