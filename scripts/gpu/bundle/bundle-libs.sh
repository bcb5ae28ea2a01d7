# shellcheck shell=bash
# The libraries a GPU bundle's programs run with, in one place for every script that runs them:
# the bundle's run-all.sh and run-sanitizers.sh, and from the checkout scripts/gpu/run-fuzz.sh,
# scripts/gpu/compare-bundles.sh and perf/run-gaussian-bench.sh. Sourced, from the bundle's root:
#
#   source "$B/bundle-libs.sh" && use_bundle_libraries "$B" [REPORT]
#
# Exports LD_LIBRARY_PATH with, in this order:
#   lib/           OpenCV and cudaimage, always first;
#   lib/carried/   everything else the binaries needed on the build machine (libjpeg.so.62,
#                  libpng16.so.16, ...), one library at a time, and by default only where the host
#                  has no library of that name: a carried library shadows the host's copy for every
#                  program started from here, Python's other extensions included (PyTorch, CuPy).
#                  CUDAIMAGE_CARRIED_LIBS: auto (default), all (always carried), none (never);
#                  another value is refused (use_bundle_libraries returns 1, saying why);
#   NPP 13         not carried (too large): the host's, from its CUDA 13 toolkit or NVIDIA's
#                  nvidia-npp wheel ($NPP_LIB_DIR names its folder).
# REPORT (optional) gets one line per library saying where it comes from. A missing NPP is reported
# on stderr; the programs that need it then fail to start, with the loader's message.

_bundle_ld_cache=
_bundle_host_lib_dir() {   # where the host's dynamic linker would find $1 ("system": ld.so.cache)
    local so=$1 d
    grep -qF "	$so (" <<<"$_bundle_ld_cache" && { echo system; return 0; }
    local IFS=:
    for d in ${LD_LIBRARY_PATH:-} /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
        [[ -n $d && -e $d/$so ]] && { echo "$d"; return 0; }
    done
    return 1
}

_bundle_carried_modes=(auto all none)

use_bundle_libraries() {
    local B=${1:?use_bundle_libraries BUNDLE_DIR [REPORT]} report=${2:-/dev/null}
    local active='' extra_dirs='' f so where npp_dir mode=${CUDAIMAGE_CARRIED_LIBS:-auto}
    if [[ " ${_bundle_carried_modes[*]} " != *" $mode "* ]]; then
        echo "CUDAIMAGE_CARRIED_LIBS is '$mode'; allowed: ${_bundle_carried_modes[*]}" >&2
        return 1
    fi
    # Read once: grep -q on a pipe from ldconfig under pipefail can end in SIGPIPE.
    _bundle_ld_cache=$(ldconfig -p 2>/dev/null || /sbin/ldconfig -p 2>/dev/null || true)
    : > "$report"
    for f in "$B"/lib/carried/*; do
        [[ -e $f ]] || continue
        so=${f##*/}
        where=
        case $mode in
            all) ;;
            none) where=host ;;
            auto) where=$(_bundle_host_lib_dir "$so") || where= ;;
        esac
        if [[ -z $where ]]; then
            # The carried libraries in use, as links in a folder made for this call (scripts that
            # run at once on one bundle do not share it), only when one is needed.
            [[ -n $active ]] || active=$(mktemp -d "${TMPDIR:-/tmp}/cudaimage-libs.XXXXXX") || return 1
            ln -s "$f" "$active/$so"
            echo "$so: carried (bundle)" >> "$report"
        else
            echo "$so: host ($where)" >> "$report"
            [[ $where == /* && ":${LD_LIBRARY_PATH:-}:" != *":$where:"* ]] && extra_dirs+=":$where"
        fi
    done
    if npp_dir=$(_bundle_host_lib_dir libnppc.so.13); then
        [[ $npp_dir == /* && ":${LD_LIBRARY_PATH:-}:$extra_dirs:" != *":$npp_dir:"* ]] && extra_dirs+=":$npp_dir"
        echo "libnpp*.so.13: host ($npp_dir)" >> "$report"
    elif [[ -n ${NPP_LIB_DIR:-} && -e $NPP_LIB_DIR/libnppc.so.13 ]]; then
        extra_dirs+=":$NPP_LIB_DIR"
        echo "libnpp*.so.13: $NPP_LIB_DIR" >> "$report"
    else
        echo "libnpp*.so.13: NOT FOUND (install CUDA 13's NPP or nvidia-npp, or set NPP_LIB_DIR)" | tee -a "$report" >&2
    fi
    export LD_LIBRARY_PATH="$B/lib${active:+:$active}${extra_dirs}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
}
