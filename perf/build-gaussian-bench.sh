#!/usr/bin/env bash
# Builds perf/gaussian_bench against the module build (scripts/build/build-module.sh) into
# out/gaussian_bench; it runs wherever the GPU bundle's libraries are (LD_LIBRARY_PATH=<bundle>/lib).
# The NPP part (perf/npp_gaussian_bench.cu) needs NPP, so it is compiled on the GPU machine, from
# the bundle's perf/ folder, which holds the header both include (perf/bench_support.hpp):
#   nvcc -O3 -arch=sm_90 perf/npp_gaussian_bench.cu -lnppif -lnppc -o npp_gaussian_bench
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/common.sh"
mkdir -p "$CUDAIMAGE_REPO/out"
"$CUDA_HOME/bin/nvcc" -O3 -std=c++17 -arch=sm_${CUDA_ARCH_BIN//./} -D__NV_NO_VECTOR_DEPRECATION_DIAG \
    -I"$CUDAIMAGE_REPO/include" -I"$(compgen -G "$OPENCV_INSTALL/include/opencv[0-9]" | head -1)" \
    "$CUDAIMAGE_REPO/perf/gaussian_bench.cu" -o "$CUDAIMAGE_REPO/out/gaussian_bench" \
    -L"$OPENCV_BUILD/lib" -lopencv_cudaimage -lopencv_cudafilters -lopencv_cudaarithm -lopencv_imgproc -lopencv_core \
    -Xlinker -rpath -Xlinker '$ORIGIN/lib'
strip "$CUDAIMAGE_REPO/out/gaussian_bench"
echo "built $CUDAIMAGE_REPO/out/gaussian_bench"
