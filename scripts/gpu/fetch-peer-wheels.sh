#!/usr/bin/env bash
# Downloads the wheels that the side-by-side benchmark's kornia peer needs and the GPU machine
# lacks, for perf/run-gaussian-bench.sh's PEER_WHEELS (runs here, on a machine with PyPI access):
# kornia (the newest release, or KORNIA_VERSION) and the kornia_rs its metadata asks for. Kornia's
# other import-time dependencies, torch and numpy, are on the GPU machine (so is CuPy, the other
# Python peer that needs no wheel from here); the script fails if kornia's metadata names anything
# else. Binary wheels only, without dependencies, for CPython $PY_VERSION (default 3.12, the GPU
# machine's) on manylinux x86_64.
#
#   scripts/gpu/fetch-peer-wheels.sh [DIR]     (default: out/peerwheels; about 7 MB)
#
# DIR is emptied of earlier kornia and kornia_rs wheels first, so that it holds one version of
# each. Carry DIR to the GPU machine and run PEER_WHEELS=DIR perf/run-gaussian-bench.sh ...
set -euo pipefail
[[ ${1:-} == -h || ${1:-} == --help ]] && { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0; }
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
dir=${1:-$CUDAIMAGE_REPO/out/peerwheels}
py_version=${PY_VERSION:-3.12}
tag=cp${py_version//./}
pip_download=(python3 -m pip download --disable-pip-version-check --no-deps --only-binary=:all:
              --python-version "$py_version" --implementation cp --abi "$tag" --abi abi3 --abi none
              --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64
              --platform manylinux2014_x86_64 --platform any -d "$dir")
mkdir -p "$dir"
rm -f "$dir"/kornia-*.whl "$dir"/kornia_rs-*.whl
"${pip_download[@]}" "kornia${KORNIA_VERSION:+==$KORNIA_VERSION}" || die "pip download kornia failed"
kornia_whl=$(compgen -G "$dir/kornia-*.whl" | head -1)
[[ -n $kornia_whl ]] || die "no kornia wheel in $dir"
# The wheel's requirements (extras left out): kornia-rs with its version range, then the rest.
mapfile -t reqs < <(python3 - "$kornia_whl" <<'PY'
import re, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
    for line in z.read(meta).decode().splitlines():
        if line.startswith("Requires-Dist:") and "extra ==" not in line:
            print(re.sub(r"\s+", "", line.split(":", 1)[1].split(";")[0]))
PY
)
rs_req=
for r in "${reqs[@]}"; do
    name=$(sed -E 's/[<>=!~ ].*//; s/_/-/g' <<< "${r,,}")
    case $name in
        kornia-rs) rs_req=$r ;;
        torch|numpy) ;;   # on the GPU machine
        *) die "kornia's wheel requires $r, which this script does not fetch and the GPU machine may lack" ;;
    esac
done
[[ -n $rs_req ]] || rs_req=kornia_rs
"${pip_download[@]}" "$rs_req" || die "pip download $rs_req failed"
echo "kornia requires: ${reqs[*]} (torch and numpy come from the GPU machine)"
ls -l "$dir"/kornia-*.whl "$dir"/kornia_rs-*.whl
