#!/usr/bin/env bash
# The "larger than memory" run of samples/python/blur_zarr.py on one GPU machine, in the deployment
# shape of the README: a `dask scheduler` process and one `dask worker` process per GPU (each
# seeing only its GPU), with a memory limit per worker much smaller than the image.
#
#   perf/run-zarr-cluster.sh [SIZE [MEMORY_LIMIT [THREADS [DIR [CHUNK]]]]]
#     SIZE          test image HxW, uint8 (default 65536x65536: 4 GiB)
#     MEMORY_LIMIT  per worker, as `dask worker --memory-limit` (default 1GiB)
#     THREADS       per worker (default 4)
#     DIR           where IN.zarr and OUT.zarr go (default /tmp/zarr-cluster; needs twice the image)
#     CHUNK         the test image's square chunk side (default 4096)
#
# Needs cv2 (ours) and dask, distributed, zarr importable by python3 (PYTHON to choose another).
# Prints the sample's output: throughput, each worker's peak host and device memory.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
sample=${BLUR_ZARR:-$here/../samples/python/blur_zarr.py}
size=${1:-65536x65536}; limit=${2:-1GiB}; threads=${3:-4}; dir=${4:-/tmp/zarr-cluster}; chunk=${5:-4096}
PY=${PYTHON:-python3}
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
((gpus > 0)) || gpus=1
mkdir -p "$dir"
logs=$dir/logs; mkdir -p "$logs"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT

port=$((20000 + RANDOM % 20000))
"$PY" -m distributed.cli.dask_scheduler --host 127.0.0.1 --port "$port" --dashboard-address :0 > "$logs/scheduler.log" 2>&1 &
pids+=($!)
for ((g = 0; g < gpus; g++)); do
    CUDA_VISIBLE_DEVICES=$g "$PY" -m distributed.cli.dask_worker "tcp://127.0.0.1:$port" --name "gpu$g" \
        --nworkers 1 --nthreads "$threads" --memory-limit "$limit" --dashboard-address :0 > "$logs/worker$g.log" 2>&1 &
    pids+=($!)
done
echo "cluster: scheduler tcp://127.0.0.1:$port, $gpus worker(s) x $threads threads, memory limit $limit each"

# The test image is written by this process (the workers only blur); then the blur on the cluster.
"$PY" "$sample" --make-test-image "$size" "$dir/in.zarr" --chunks "$chunk" --overwrite
du -sh "$dir/in.zarr"
"$PY" "$sample" "$dir/in.zarr" "$dir/out.zarr" --sigma 4 --scheduler "tcp://127.0.0.1:$port" --overwrite
du -sh "$dir/out.zarr"
