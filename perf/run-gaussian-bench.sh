#!/usr/bin/env bash
# The performance issue's one command, on the GPU machine:
#   perf/run-gaussian-bench.sh BUNDLE_DIR [OUT] [gaussian_bench args]
# BUNDLE_DIR is an unpacked GPU bundle (its lib/ has our and OpenCV's libraries) holding
# bin/gaussian_bench and, where the standalone build found NPP, bin/npp_gaussian_bench (both targets
# of the standalone build: scripts/gpu/pack-gpu-bundle.sh), which runs with the host's NPP 13 as
# OpenCV's own libraries do (bundle-libs.sh). The PyTorch, CV-CUDA, CuPy and kornia columns come from
# perf/python_peers_bench.py when python3 (or $PYTHON) imports torch with CUDA; it imports the
# bundle's cv2 (lib/python), CuPy from the machine's Python, cvcuda from CVCUDA_DIR when that names
# an unpacked cvcuda wheel (out/cvcuda/README.txt), and kornia from PEER_WHEELS when that names a
# folder of wheels (scripts/gpu/fetch-peer-wheels.sh: kornia, kornia_rs), installed here with
# `pip install --no-deps --no-index --target` into a temporary folder that only the peers' Python
# sees. A peer that cannot be imported gets "not run" cells. PEERS=pytorch,cupy (say) picks peers.
# Writes OUT/gaussian-<date>.md and .json, OUT/npp.jsonl and OUT/peers.jsonl (commit them as
# perf/results/<date>-<card>-gaussian-bench{.md,.json,-npp.jsonl,-peers.jsonl} in place of the older set). PEERS and the gaussian_bench arguments are checked (by python_peers_bench.py
# and gaussian_bench themselves) before anything runs: a name or argument they do not know fails
# at once, with exit status 2.
set -euo pipefail
[[ $# -ge 1 && -d $1 ]] || { echo "usage: run-gaussian-bench.sh BUNDLE_DIR [OUT] [gaussian_bench args]" >&2; exit 2; }
B=$(cd "$1" && pwd); OUT=${2:-$PWD}; shift $(( $# >= 2 ? 2 : 1 ))
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
py=${PYTHON:-python3}
if [[ -n ${PEERS:-} && -f $here/python_peers_bench.py ]]; then
    # Exit status 2: a name it does not know; any other failure (no NumPy here, say) is left to the
    # peers' run below, which then reports it and leaves their columns empty.
    rc=0; "$py" "$here/python_peers_bench.py" --check-args --peers "$PEERS" || rc=$?
    ((rc != 2)) || { echo "PEERS=$PEERS refused (above)" >&2; exit 2; }
fi
# The libraries as run-all.sh has them (the bundle's bundle-libs.sh).
# shellcheck source=../scripts/gpu/bundle/bundle-libs.sh
source "$B/bundle-libs.sh" && use_bundle_libraries "$B"
"$B/bin/gaussian_bench" --check-args "$@" || exit 2
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

# NPP and the Python peers: the same image size as gaussian_bench (and --quick for the peers).
peers_args=() py_args=(${PEERS:+--peers "$PEERS"}) npp_size=()
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
    case ${args[i]} in
        --size) py_args+=(--size "${args[i+1]:-16384}"); npp_size=("${args[i+1]:-16384}") ;;
        --quick) py_args+=(--quick) ;;
    esac
done

npp_args=()
rm -f "$OUT/npp.jsonl"
if [[ ! -x $B/bin/npp_gaussian_bench ]]; then
    echo "no bin/npp_gaussian_bench in this bundle (packed where no NPP was found): the NPP column stays empty" >&2
elif "$B/bin/npp_gaussian_bench" "${npp_size[@]}" > "$OUT/npp.jsonl"; then
    npp_args=(--npp "$OUT/npp.jsonl")
elif [[ -s $OUT/npp.jsonl ]]; then
    echo "npp_gaussian_bench failed: merging the lines it wrote" >&2
    npp_args=(--npp "$OUT/npp.jsonl")
else
    # Also when it cannot start: no libnppif.so.13 on this host (bundle-libs.sh said so above).
    echo "npp_gaussian_bench failed: the NPP column stays empty" >&2
fi
rm -f "$OUT/peers.jsonl"
# PEER_WHEELS: wheels the machine lacks (kornia), installed for this run only.
peer_site=
if [[ -n ${PEER_WHEELS:-} ]]; then
    peer_site=$(mktemp -d)
    trap 'rm -rf "$peer_site"' EXIT
    wheels=("$PEER_WHEELS"/*.whl)
    if [[ ! -f ${wheels[0]} ]]; then
        echo "PEER_WHEELS=$PEER_WHEELS holds no wheels: peers from it say 'not run'" >&2
    else
        PIP_ROOT_USER_ACTION=ignore "$py" -m pip install --no-deps --no-index --disable-pip-version-check --quiet \
            --target "$peer_site" "${wheels[@]}" || echo "PEER_WHEELS: pip install failed" >&2
    fi
    installed=$(compgen -G "$peer_site/*.dist-info" | sed 's|.*/||; s/\.dist-info$//' | paste -sd ' ' -) || true
    echo "PEER_WHEELS: ${installed:-nothing} installed for python_peers_bench.py" >&2
fi
pypath="$B/lib/python${CVCUDA_DIR:+:$CVCUDA_DIR}${peer_site:+:$peer_site}${PYTHONPATH:+:$PYTHONPATH}"
if [[ ! -f $here/python_peers_bench.py ]]; then
    echo "no $here/python_peers_bench.py: the Python peers' columns stay empty" >&2
elif ! PYTHONPATH="$pypath" "$py" -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)' >/dev/null 2>&1; then
    echo "no $py with CUDA PyTorch: the Python peers' columns stay empty" >&2
elif PYTHONPATH="$pypath" "$py" "$here/python_peers_bench.py" --out "$OUT/peers.jsonl" "${py_args[@]}"; then
    peers_args=(--peers "$OUT/peers.jsonl")
elif [[ -s $OUT/peers.jsonl ]]; then
    echo "python_peers_bench.py failed: merging the lines it wrote" >&2
    peers_args=(--peers "$OUT/peers.jsonl")
else
    echo "python_peers_bench.py failed: the Python peers' columns stay empty" >&2
fi
"$B/bin/gaussian_bench" --out "$OUT" "${npp_args[@]}" "${peers_args[@]}" "$@"
