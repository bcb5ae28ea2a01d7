#!/usr/bin/env bash
# Packs everything a GPU machine needs to run cudaimage's tests into out/cudaimage-gpu-bundle.tar.xz:
# test and perf binaries, the OpenCV and system libraries they load, a relocatable cv2 package,
# the Python tests and samples, and run-all.sh (scripts/gpu/bundle/run-all.sh), which runs them all.
# The target machine needs the NVIDIA driver, bash and Python 3 with NumPy 2; nothing else of ours.
#
#   scripts/gpu/pack-gpu-bundle.sh [--no-build] [--standalone] [--opencv-tests]
#     --no-build     use both builds as they are (default: scripts/build/build-module.sh and
#                    scripts/build/build-standalone.sh --no-test first, both cached). The module
#                    build gives the OpenCV libraries, its tests, the tool and cv2; the standalone
#                    build the benchmarks (perf/gaussian_bench, perf/npp_gaussian_bench where NPP
#                    was found), cudaimage_test, the C++ samples and libcudaimage.so they load.
#     --standalone   the default now (kept for older command lines): the standalone build is always
#                    brought up to date unless --no-build; with --no-build, what it holds is bundled.
#     --opencv-tests OpenCV's own opencv_test_cudaarithm and opencv_test_cudafilters too (built for
#                    OPENCV_LINE=5.1 only), run by run-all.sh as parts of those names.
#
# Bundle layout (cudaimage-gpu-bundle/):
#   run-all.sh  bundle-libs.sh  run-sanitizers.sh  MANIFEST.txt  checks/cv2_check.py
#   bin/          opencv_test_cudaimage, opencv_perf_cudaimage, cudaimage-blur (the tool, module
#                 build), gaussian_bench and npp_gaussian_bench (standalone build's perf/; the
#                 latter loads the host's NPP 13, as OpenCV's cudafilters does), cudaimage_test (standalone)
#   perf/         run-gaussian-bench.sh, python_peers_bench.py, dask_bench.py: `perf/run-gaussian-bench.sh . OUT`
#   bin/samples/  the C++ samples blur, pipeline, video_blur (standalone build)
#   lib/          libopencv_*.so.501 (or .414), libcudaimage.so.* (standalone), under their SONAMEs
#   lib/carried/  every other library ldd resolves on this machine (libjpeg.so.62, libpng16.so.16,
#                 ...), except glibc, libstdc++, libgcc_s and the driver's libcuda; run-all.sh
#                 uses one only where the host lacks it
#   lib/python/cv2/  the module build's cv2 with a config that points inside the bundle
#   python-tests/ misc/python/test/;  python-support/ tests_common.py (OpenCV's, for tests that use it)
#   samples/      samples/python, samples/data
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
source "$CUDAIMAGE_REPO/scripts/build/cv2-package.sh"

build=1 opencv_tests=0
for arg in "$@"; do
    case $arg in
        --no-build) build=0 ;;
        --standalone) ;;
        --opencv-tests) opencv_tests=1 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument: $arg (see --help)" ;;
    esac
done

# The bundle is for running on a GPU: machine code only, never the compile-check tree.
[[ $CUDAIMAGE_DEVICE_CODE == sass ]] || die "CUDAIMAGE_DEVICE_CODE=$CUDAIMAGE_DEVICE_CODE: a GPU bundle is packed from the sass tree (unset it)"

name=cudaimage-gpu-bundle; [[ $OPENCV_LINE == 5.1 ]] || name+=-$OPENCV_LINE
stage_root="$CUDAIMAGE_REPO/build-bundle"   # gitignored (/build*/)
stage="$stage_root/$name"
tarball="$CUDAIMAGE_REPO/out/$name.tar.xz"
max_mib=60

if ((build)); then
    bash "$CUDAIMAGE_REPO/scripts/build/build-module.sh"
    bash "$CUDAIMAGE_REPO/scripts/build/build-standalone.sh" --no-test
fi
for f in opencv_test_cudaimage opencv_perf_cudaimage; do
    [[ -x $OPENCV_BUILD/bin/$f ]] || die "no $OPENCV_BUILD/bin/$f: run scripts/build/build-module.sh"
done
cv2_extension >/dev/null

step "1/5 stage $stage"
rm -rf "$stage"
mkdir -p "$stage"/{bin/samples,lib/carried,lib/python,checks,python-tests,python-support,samples}
cp "$CUDAIMAGE_REPO/scripts/gpu/bundle/run-all.sh" "$CUDAIMAGE_REPO/scripts/gpu/bundle/bundle-libs.sh" "$stage/"
cp "$CUDAIMAGE_REPO/scripts/gpu/bundle/cv2_check.py" "$stage/checks/"
chmod +x "$stage/run-all.sh"
cp "$OPENCV_BUILD/bin/opencv_test_cudaimage" "$OPENCV_BUILD/bin/opencv_perf_cudaimage" "$stage/bin/"
if ((opencv_tests)); then
    [[ $OPENCV_LINE == 5.1 ]] || die "--opencv-tests: OpenCV's tests are configured for OPENCV_LINE=5.1 only"
    # Built here, on request only (not by build-opencv.sh): cached once built.
    flock "$BUILD_LOCK" cmake --build "$OPENCV_BUILD" --target opencv_test_cudaarithm opencv_test_cudafilters
    for f in opencv_test_cudaarithm opencv_test_cudafilters; do
        [[ -x $OPENCV_BUILD/bin/$f ]] || die "no $OPENCV_BUILD/bin/$f"
        cp "$OPENCV_BUILD/bin/$f" "$stage/bin/"
    done
fi
standalone="$STANDALONE_BUILD"
if [[ -x $standalone/cudaimage_test ]]; then
    cp "$standalone/cudaimage_test" "$stage/bin/"
    echo "standalone cudaimage_test: built $(date -r "$standalone/cudaimage_test" '+%F %T')"
else
    echo "standalone cudaimage_test: not built (scripts/build/build-standalone.sh, or pack without --no-build), not bundled"
fi
if [[ -x $OPENCV_BUILD/bin/cudaimage-blur ]]; then
    cp "$OPENCV_BUILD/bin/cudaimage-blur" "$stage/bin/"
else
    echo "cudaimage-blur: not built (scripts/build/build-module.sh builds it), not bundled"
fi
# The benchmarks: targets of the standalone build (CMakeLists.txt), linked to its libcudaimage.so;
# npp_gaussian_bench only where that build found NPP. Their sources stay here: nothing is compiled
# on the GPU machine. What perf/run-gaussian-bench.sh needs there goes into perf/.
for f in gaussian_bench npp_gaussian_bench; do
    b=$standalone/perf/$f
    if [[ -x $b ]]; then
        cp "$b" "$stage/bin/"
        echo "$f: built $(date -r "$b" '+%F %T')"
        [[ ! $CUDAIMAGE_REPO/perf/$f.cu -nt $b ]] || echo "  warning: $b is older than perf/$f.cu (pack without --no-build)"
    elif [[ $f == gaussian_bench ]]; then
        die "no $b: run scripts/build/build-standalone.sh (or pack without --no-build)"
    else
        echo "$f: not built (the standalone build found no NPP: CUDAToolkit_ROOT), not bundled: NPP's column stays empty"
    fi
done
mkdir -p "$stage/perf"
cp "$CUDAIMAGE_REPO/perf/run-gaussian-bench.sh" "$CUDAIMAGE_REPO/perf/dask_bench.py" "$CUDAIMAGE_REPO/perf/python_peers_bench.py" \
    "$stage/perf/"
cp "$CUDAIMAGE_REPO/scripts/gpu/run-sanitizers.sh" "$stage/"
# C++ samples: built by the standalone build only (top-level CMakeLists.txt).
sample_bins=()
for f in "$standalone"/samples/*; do
    [[ -f $f && -x $f ]] && sample_bins+=("$f")
done
if ((${#sample_bins[@]})); then
    cp "${sample_bins[@]}" "$stage/bin/samples/"
    echo "C++ samples: ${sample_bins[*]##*/} (built $(date -r "${sample_bins[0]}" '+%F %T'))"
    for src in "$CUDAIMAGE_REPO"/samples/cpp/*.cpp; do
        b=$standalone/samples/$(basename "$src" .cpp)
        [[ -x $b && ! $src -nt $b ]] || echo "  warning: $b is missing or older than $src (pack without --no-build)"
    done
else
    echo "C++ samples: not built (scripts/build/build-standalone.sh, or pack without --no-build), not bundled: run-all.sh's samples part will say so"
fi

# cv2: the build tree's loader package with the freshly built extension and configs relative to
# the package (scripts/build/cv2-package.sh).
stage_cv2_package "$stage/lib/python/cv2" ../.. "run-all.sh also puts lib/ on LD_LIBRARY_PATH."

if compgen -G "$CUDAIMAGE_REPO/misc/python/test/*" >/dev/null; then
    cp -r "$CUDAIMAGE_REPO/misc/python/test/." "$stage/python-tests/"
fi
[[ -f $OPENCV_SRC/modules/python/test/tests_common.py ]] && cp "$OPENCV_SRC/modules/python/test/tests_common.py" "$stage/python-support/"
for d in python data; do
    [[ -d $CUDAIMAGE_REPO/samples/$d ]] && cp -r "$CUDAIMAGE_REPO/samples/$d" "$stage/samples/"
done
find "$stage" \( -name __pycache__ -o -name '*.pyc' \) -prune -exec rm -rf {} +

step "2/5 libraries (ldd on this machine)"
# Provided by every Linux host, or by the GPU machine's driver or CUDA 13 toolkit (NPP: the wheel's
# 158 MB would not fit, nor libnppif.so.13 alone, 60 MB, which OpenCV's cudafilters and
# npp_gaussian_bench both load; the toolkit's NPP 13.0 is the same major version); a carried libstdc++ or glibc
# older than the host's would break the host's own libraries (NumPy, PyTorch) in our processes.
host_only='^(linux-vdso\.so|ld-linux.*\.so|libc\.so|libm\.so|libpthread\.so|libdl\.so|librt\.so|libresolv\.so|libutil\.so|libgcc_s\.so|libstdc\+\+\.so|libcuda\.so|libnvidia-.*\.so|libnpp[a-z]*\.so)'
mapfile -t elfs < <(find "$stage/bin" -type f; ls "$stage/lib/python/cv2/python-3/"*.so)
declare -A seen=()
for elf in "${elfs[@]}"; do
    out=$(LD_LIBRARY_PATH="$OPENCV_BUILD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ldd "$elf") || die "ldd failed on $elf"
    if grep -q "not found" <<<"$out"; then echo "$out"; die "$elf has unresolved libraries on this machine"; fi
    while read -r soname path; do
        [[ -n ${seen[$soname]:-} ]] && continue
        seen[$soname]=1
        if [[ $soname =~ $host_only ]]; then continue; fi
        case $soname in
            libopencv_*)
                # One OpenCV for all: the module build's tree (the standalone test resolves the same
                # SONAMEs in $OPENCV_INSTALL; libopencv_cudaimage exists only fresh in the tree).
                [[ -e $OPENCV_BUILD/lib/$soname ]] && path="$OPENCV_BUILD/lib/$soname"
                dest="$stage/lib/$soname" ;;
            libcudaimage.so*) dest="$stage/lib/$soname" ;;
            *) dest="$stage/lib/carried/$soname" ;;
        esac
        cp -L "$path" "$dest"     # the real file, under the name the loader asks for
        chmod u+w "$dest"
        printf '  %-28s <- %s\n' "${dest#"$stage"/}" "$path"
    done < <(awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' <<<"$out")
done
# OpenCV (CUDA_USE_STATIC_CUDA_RUNTIME) and the standalone build link the CUDA runtime statically:
# normally no libcudart.so.13 is needed, and none is carried unless something above links it.
[[ -n ${seen[libcudart.so.13]:-} ]] || echo "  (no libcudart.so.13: every binary here links the CUDA runtime statically)"

step "3/5 strip"
find "$stage/bin" "$stage/lib" -type f \( -perm -u+x -o -name '*.so*' \) -print0 |
    while IFS= read -r -d '' f; do
        if file -b "$f" | grep -q '^ELF'; then strip --strip-unneeded "$f"; fi
    done

step "4/5 manifest"
{
    echo "cudaimage GPU bundle"
    echo "commit: $(git -C "$CUDAIMAGE_REPO" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$CUDAIMAGE_REPO" diff --quiet HEAD -- 2>/dev/null || echo ' (+ uncommitted changes)')"
    echo "packed: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname) ($(grep -h PRETTY_NAME /etc/os-release | cut -d= -f2 | tr -d '"'))"
    echo "opencv: $OPENCV_KEY (CUDA_ARCH_BIN=$CUDA_ARCH_BIN), nvcc $("$CUDA_HOME/bin/nvcc" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')"
    echo
    echo "files:"
    (cd "$stage" && find . -type f -printf '%s\t%p\n' | sort -k2 | awk -F'\t' '{printf "  %10d  %s\n", $1, substr($2, 3)}')
} > "$stage/MANIFEST.txt"
du -sh "$stage" | awk '{print "staged: " $1}'

step "5/5 compress $tarball (xz -9, 2 threads)"
mkdir -p "$(dirname "$tarball")"
tar -C "$stage_root" --sort=name --owner=0 --group=0 --numeric-owner -cf - "$name" \
    | xz -T2 -9 > "$tarball.tmp"
mv "$tarball.tmp" "$tarball"
size=$(stat -c %s "$tarball")
awk -v f="$tarball" -v s="$size" 'BEGIN { printf "bundle: %s (%.1f MiB)\n", f, s / 1048576 }'
((size < max_mib * 1048576)) || die "the bundle is over $max_mib MiB"
echo "on the GPU machine: tar -xJf $name.tar.xz && $name/run-all.sh   (OUT=<dir> for the logs)"
