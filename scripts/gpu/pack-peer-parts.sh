#!/usr/bin/env bash
# Packs the batch benchmark's (perf/batch_bench.py) large GPU peers, NVIDIA DALI and CV-CUDA, into
# one site directory for the GPU machine, which has no internet, and splits it into parts that one
# GPU call can carry (runs here, on a machine with PyPI access; scripts/gpu/join-peer-parts.sh
# undoes it there). Binary wheels only, without dependencies, for CPython $PY_VERSION (default
# 3.12, the GPU machine's) on manylinux x86_64:
#   nvidia-dali-cuda130 (DALI_VERSION, default 2.4.0) and those of its requirements that the GPU
#     machine lacks (the device notes' package list): astunparse, gast, optree, nvtx, makefun,
#     libcst, nvidia-nvimgcodec-cu13 (without its decoder extras) and nvidia-libnvcomp-cu13.
#     numpy, six, packaging and pyyaml (libcst's) are there and are not carried, so that nothing
#     on PYTHONPATH shadows the machine's own; astunparse's wheel requirement is a packaging tool
#     it never imports. DALI loads nvimgcodec and nvcomp only at first use (dlopen; the blur
#     never decodes): they come along in case.
#   cvcuda-cu13 (CVCUDA_VERSION, default the newest 0.19.x).
# DALI_WHEEL=path/to/nvidia_dali_cuda130-*.whl: a wheel downloaded before, used instead of a
# second 199 MB download (pip still checks it against the index).
# The script fails if DALI's metadata names a requirement it does not know. It then removes what
# the batch blur never loads: the extension modules built for other CPython versions, C/C++
# headers and nvcomp's command-line tools (DALI's framework plugins stay: a few small Python
# files, imported only on demand); and checks, with $PY_VERSION's python and PYTHONPATH=SITE
# (six and packaging beside it, as on the GPU machine), that nvidia.dali, nvidia.dali.fn and
# nvidia.dali.experimental.dynamic import without a GPU (nvidia.dali.plugin.pytorch too where
# that python has torch; cvcuda where a driver is installed, for it links libcuda.so.1).
#
#   scripts/gpu/pack-peer-parts.sh [DIR]     (default: out/peerparts)
#
# DIR gets site/ (the site directory), peer-site.tar.xz, its parts peer-site.tar.xz.part-00,
# -01, ... of PART_SIZE each (split's size; default 60MB, 60 x 10^6 bytes: one GPU call carries at
# most 64 MiB, the work tree included) and peer-site.sha256 (the whole archive's SHA-256 and the
# part count). DALI 2.4.0 and CV-CUDA 0.19.0: 680 MB unpacked, 283 MB packed, 5 parts. On the
# GPU machine one warm machine's /tmp survives between calls, so the parts go over one call each
# (DIR inside the work tree and git-ignored, as the default is, so that carry can name it):
#   call k (k = 0 .. N-1, part NN = k as two digits): carry out/peerparts/peer-site.tar.xz.part-NN
#     and out/peerparts/peer-site.sha256; command:
#     mkdir -p /tmp/peerparts && cp out/peerparts/peer-site.tar.xz.part-NN out/peerparts/peer-site.sha256 /tmp/peerparts/
#   the last call goes on: && scripts/gpu/join-peer-parts.sh /tmp/peerparts /tmp/peer-site
#   then, in that call or later ones: PYTHONPATH=/tmp/peer-site python3 perf/batch_bench.py
#     --peers ours,dali,dali-dynamic,cvcuda ...
# A call on a fresh (cold) machine has lost /tmp: start again from part 00.
set -euo pipefail
[[ ${1:-} == -h || ${1:-} == --help ]] && { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0; }
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
dir=${1:-$CUDAIMAGE_REPO/out/peerparts}
py_version=${PY_VERSION:-3.12}
tag=cp${py_version//./}
dali_version=${DALI_VERSION:-2.4.0}
cvcuda_req=cvcuda-cu13${CVCUDA_VERSION:+==$CVCUDA_VERSION}
[[ -n ${CVCUDA_VERSION:-} ]] || cvcuda_req='cvcuda-cu13>=0.19,<0.20'
part_size=${PART_SIZE:-60MB}
wheels=$dir/wheels
site=$dir/site
check_site=$dir/check-site   # what the GPU machine has and the import check here may lack (six, packaging)
pip_platform=(--only-binary=:all: --python-version "$py_version" --implementation cp --abi "$tag" --abi abi3
              --abi none --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64
              --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 --platform any)
pip_download=(python3 -m pip download --disable-pip-version-check --no-deps "${pip_platform[@]}" -d "$wheels")
command -v xz >/dev/null || die "xz not found (apt-get install xz-utils)"
rm -rf "$wheels" "$site" "$check_site" "$dir"/peer-site.tar.xz "$dir"/peer-site.tar.xz.part-* "$dir"/peer-site.sha256
mkdir -p "$wheels"
[[ -z ${DALI_WHEEL:-} ]] || cp "$DALI_WHEEL" "$wheels/" || die "DALI_WHEEL=$DALI_WHEEL: cannot copy"

step "DALI $dali_version"
"${pip_download[@]}" "nvidia-dali-cuda130==$dali_version" || die "pip download nvidia-dali-cuda130==$dali_version failed"
dali_whl=$(compgen -G "$wheels/nvidia_dali_cuda130-*.whl" | head -1)
[[ -n $dali_whl ]] || die "no nvidia-dali-cuda130 wheel in $wheels"
# The wheel's requirements (extras dropped), each as name<TAB>specifier.
mapfile -t reqs < <(python3 - "$dali_whl" <<'PY'
import re, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
    for line in z.read(meta).decode().splitlines():
        if line.startswith("Requires-Dist:") and "extra ==" not in line:
            req = re.sub(r"\s+", "", line.split(":", 1)[1].split(";")[0])
            print(req.replace("[all]", ""))
PY
)
fetch=()
for r in "${reqs[@]}"; do
    name=$(sed -E 's/[<>=!~ ].*//; s/_/-/g' <<< "${r,,}")
    case $name in
        numpy|six|packaging) ;;   # on the GPU machine
        astunparse|gast|optree|nvtx|makefun|libcst|nvidia-nvimgcodec-cu13|nvidia-libnvcomp-cu13)
            fetch+=("$r") ;;
        *) die "DALI's wheel requires $r, which this script does not know; add it to the list above" ;;
    esac
done
"${pip_download[@]}" "${fetch[@]}" || die "pip download of DALI's requirements failed"

step "CV-CUDA ($cvcuda_req)"
"${pip_download[@]}" "$cvcuda_req" || die "pip download $cvcuda_req failed"

step "site directory $site"
python3 -m pip install --disable-pip-version-check --no-deps --no-compile "${pip_platform[@]}" \
    --target "$site" "$wheels"/*.whl >/dev/null || die "pip install --target $site failed"
before=$(du -sm "$site" | cut -f1)
# Extension modules of other CPython versions (DALI, CV-CUDA and nvimgcodec ship one per version).
find "$site" -name '*.cpython-3*-x86_64-linux-gnu.so' ! -name "*.cpython-${tag#cp}-x86_64-linux-gnu.so" -delete
# Headers and tools: not loaded at run time.
rm -rf "$site"/nvidia/dali/include "$site"/nvidia/libnvcomp/include "$site"/nvidia/libnvcomp/bin \
       "$site"/nvidia/nvimgcodec/include "$site"/bin
find "$site" -name __pycache__ -type d -prune -exec rm -rf {} +
echo "site directory: ${before} MB unpacked, $(du -sm "$site" | cut -f1) MB after removing what the batch blur never loads"

step "import check with python$py_version, PYTHONPATH=$site (no GPU needed)"
py=$(command -v "python$py_version" || true)
if [[ -z $py ]] || ! "$py" -c 'import numpy' 2>/dev/null; then
    echo "warning: no python$py_version with numpy here; the import check is skipped" >&2
else
    python3 -m pip install --disable-pip-version-check --no-deps --no-compile -q "${pip_platform[@]}" \
        --target "$check_site" "six>=1.16,<=1.17" "packaging<=26.3" || die "pip install of six and packaging for the check failed"
    PYTHONPATH=$site:$check_site "$py" - <<'PY' || die "the site directory does not import (see above)"
import importlib.util
import nvidia.dali as dali
import nvidia.dali.fn as fn
import nvidia.dali.types  # noqa: F401
import nvidia.dali.experimental.dynamic as ndd
assert hasattr(fn, "gaussian_blur") and hasattr(fn, "external_source") and hasattr(ndd, "gaussian_blur")
print("nvidia.dali", dali.__version__, "with fn and experimental.dynamic imports")
try:
    import cvcuda
    print("cvcuda", cvcuda.__version__, "imports")
except ImportError as e:   # cvcuda links libcuda.so.1: without a driver only its files can be checked
    if "libcuda.so" not in str(e):
        raise
    spec = importlib.util.find_spec("cvcuda")
    assert spec and spec.origin, "no cvcuda package"
    print("cvcuda: found, not imported (it needs libcuda.so.1, the driver: %s)" % e)
if importlib.util.find_spec("torch"):
    import nvidia.dali.plugin.pytorch  # noqa: F401
    print("nvidia.dali.plugin.pytorch imports")
else:
    print("no torch for this python: nvidia.dali.plugin.pytorch not checked")
PY
fi

step "archive and parts of at most $part_size"
tar -C "$dir" -cf - site | xz -T2 -6 > "$dir/peer-site.tar.xz"
(cd "$dir" && split -b "$part_size" -d peer-site.tar.xz peer-site.tar.xz.part-)
parts=("$dir"/peer-site.tar.xz.part-*)
{ echo "$(sha256sum "$dir/peer-site.tar.xz" | cut -d' ' -f1)  peer-site.tar.xz"
  echo "parts ${#parts[@]}"; } > "$dir/peer-site.sha256"
ls -l "$dir/peer-site.tar.xz" "${parts[@]}" "$dir/peer-site.sha256"
echo "wheels: $(cd "$wheels" && echo *.whl)"
echo "${#parts[@]} parts; carry one per call with $dir/peer-site.sha256, join with scripts/gpu/join-peer-parts.sh"
