#!/usr/bin/env bash
# Builds the pip wheel of our CUDA-enabled cv2: dist/opencv_cudaimage-VERSION-cp39-abi3-manylinux_2_36_x86_64.whl
# (`pip install` it; README "Install"). Inside: the module build's cv2 package (OpenCV 5.1's core,
# imgproc, imgcodecs and what the bindings link, cudaarithm, cudafilters and cudaimage, with
# cv2.cudaimage, our misc/python/package/cudaimage), its libraries in opencv_cudaimage.libs/ and the
# system libraries they need beyond glibc and libstdc++ (libjpeg, libpng, zlib), stripped, renamed
# with a hash and found through $ORIGIN run paths, as auditwheel does. The GPU code is the OpenCV
# tree's (CUDAIMAGE_DEVICE_CODE, scripts/common.sh), checked here library by library. NPP is not inside: it comes from
# NVIDIA's `nvidia-npp` wheel (a dependency, site-packages/nvidia/cu13/lib, also in the run paths)
# or, installed with --no-deps, from the machine (ld.so.cache, LD_LIBRARY_PATH). The CUDA runtime
# is linked statically (CUDA_USE_STATIC_CUDA_RUNTIME), so no `nvidia-cuda-runtime` is needed; the
# driver's libcuda.so.1 is the machine's.
#
#   scripts/wheel/build-wheel.sh [--no-build]
#     --no-build   package the module build as it is (default: scripts/build/build-module.sh first, cached)
#
# Which GPUs, by the tree it packages (CUDAIMAGE_DEVICE_CODE, scripts/common.sh):
#   wheel  the release wheel: every CUDA 13 GPU, compute capability 7.5 to 12.x and later. cudaimage
#          as machine code for sm_75, 80, 86, 89, 90, 100, 120 and PTX of compute_120 (GPUs after
#          those) and compute_90 (run on an H100/H200 with CUDA_FORCE_PTX_JIT=1); OpenCV's CUDA
#          modules (core, cudaarithm, cudafilters) as PTX of compute_75, compiled by the driver at
#          first use. Its OpenCV tree takes about 50 min on 2 cores once (cached), so CI does not
#          build it. A release, built and tested here, then on a GPU machine with the machine code
#          and again with only the PTX it carries (the driver ignores the machine code and compiles
#          the PTX):
#            CUDAIMAGE_DEVICE_CODE=wheel scripts/wheel/test-wheel.sh
#            bash scripts/gpu/bundle/wheel-check.sh dist/opencv_cudaimage-*.whl                      # GPU
#            CUDA_FORCE_PTX_JIT=1 OUT=results-wheel-ptx bash scripts/gpu/bundle/wheel-check.sh dist/opencv_cudaimage-*.whl
#   sass   (default) machine code for CUDA_ARCH_BIN only (9.0: H100/H200): the GPU bundle's wheel.
#   check  PTX without device optimisation: CI's wheel on a machine without a GPU, for its tests
#          only (scripts/test.sh picks sass or check, never wheel).
#
# The tag. cp39-abi3: cv2 uses Python's limited API (abi3) and NumPy 2, which needs Python 3.9.
# manylinux_2_36: the glibc of the build system (Debian 12), which bounds what the libraries can
# ask for; the step "check" prints what they do ask (GLIBC_2.35 and GLIBCXX_3.4.30 today: GCC 12's
# libstdc++, which every distribution with glibc 2.36 has). Everything else they link is inside
# the wheel or in a declared dependency (NPP), as PyTorch's manylinux wheels do with NVIDIA's.
# `auditwheel show` (6.8.2, 2026-12-03) agrees: symbol versions consistent with manylinux_2_35,
# and "linux_x86_64" only because NPP is outside the wheel. We do not run auditwheel: it would have
# to be told to leave NPP and the driver out, its `repair` refuses Debian 12's patchelf (0.14.3),
# and the renaming, run paths and checks it would do are the few lines below.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
source "$CUDAIMAGE_REPO/scripts/build/cv2-package.sh"

build_module=1
for arg in "$@"; do
    case $arg in
        --no-build) build_module=0 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument: $arg (see --help)" ;;
    esac
done

DIST_NAME=opencv-cudaimage
LIBS=opencv_cudaimage.libs                 # site-packages/opencv_cudaimage.libs/
NVIDIA_LIB=nvidia/cu13/lib                 # where NVIDIA's CUDA 13 wheels put their libraries
PLATFORM=manylinux_2_36_x86_64
stage_root="$CUDAIMAGE_REPO/build-wheel"   # gitignored (/build*/)
stage="$stage_root/stage"                  # = site-packages after `pip install`
dist="$CUDAIMAGE_REPO/dist"
t0=$(date +%s)

# Libraries every Linux with glibc provides (the manylinux list); never bundled.
system_re='^(linux-vdso\.so|ld-linux.*\.so|libc\.so|libm\.so|libpthread\.so|libdl\.so|librt\.so|libresolv\.so|libutil\.so|libgcc_s\.so|libstdc\+\+\.so)'
# Libraries from NVIDIA's wheels (or the machine's CUDA 13): the dependency each needs. NPP: the
# version OpenCV was built and tested against (scripts/common.sh), pinned as PyTorch pins its own.
nvidia_wheel_of() {   # prints the requirement for an NVIDIA library's SONAME, or fails
    case $1 in
        libnpp*.so.13) echo "nvidia-npp==$NPP_WHEEL_VERSION" ;;
        libcudart.so.13) echo "nvidia-cuda-runtime>=13,<14" ;;
        *) return 1 ;;
    esac
}
driver_re='^(libcuda\.so|libnvidia-)'      # the driver's; not in any wheel

step "1/6 tools"
if ! command -v patchelf >/dev/null; then
    SUDO=; [[ $(id -u) -eq 0 ]] || SUDO=sudo
    $SUDO apt-get update -q
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-upgrade patchelf
fi
echo "patchelf $(patchelf --version | awk '{print $2}'), $(strip --version | head -1)"
if ((build_module)); then bash "$CUDAIMAGE_REPO/scripts/build/build-module.sh"; fi
[[ -d $OPENCV_BUILD/python_loader/cv2 ]] || die "no $OPENCV_BUILD/python_loader/cv2: run scripts/build/build-module.sh"
cv2_extension >/dev/null
# The cached tree is shared by the clones on this machine; build-module.sh points it at the clone
# that runs it. Say whose sources the wheel holds when that is not this clone (--no-build).
configured=$(sed -n 's/^OPENCV_EXTRA_MODULES_PATH:[A-Z]*=//p' "$OPENCV_BUILD/CMakeCache.txt" | tr ';' '\n' | tail -1)
if [[ $(realpath -m "$configured") != "$(realpath -m "$CUDAIMAGE_REPO/modules")" ]]; then
    echo "warning: $OPENCV_BUILD was last built for $configured, not this clone: the wheel holds that build"
fi
cmake_var() { sed -n "s/^$1:[A-Z]*=//p" "$OPENCV_BUILD/CMakeCache.txt"; }
arch_bin=$(cmake_var CUDA_ARCH_BIN) arch_ptx=$(cmake_var CUDA_ARCH_PTX)
# Our module's own architectures where the tree sets them (the wheel flavour), else the tree's.
module_bin=$(cmake_var CUDAIMAGE_CUDA_ARCH_BIN) module_ptx=$(cmake_var CUDAIMAGE_CUDA_ARCH_PTX)
if [[ -z $module_bin$module_ptx ]]; then module_bin=$arch_bin module_ptx=$arch_ptx; fi
# "7.5;8.0" -> "sm75.sm80" (with PREFIX sm)
arch_label() { tr ';,' '\n\n' <<<"$2" | sed -n "s/^ *\([0-9]*\)\.\([0-9]\) *\$/$1\1\2/p" | paste -sd.; }
[[ $(cmake_var CUDA_USE_STATIC_CUDA_RUNTIME) == ON ]] || echo "note: the CUDA runtime is not static in this build: nvidia-cuda-runtime becomes a dependency"

# Version: ours (CMakeLists.txt project()), with OpenCV's version and the GPU architectures as a
# local label, as PyTorch's 2.5.0+cu124: `pip install opencv-cudaimage==0.1.0` matches it.
our_version=$(sed -n 's/^project(cudaimage VERSION \([0-9.]*\).*/\1/p' "$CUDAIMAGE_REPO/CMakeLists.txt")
[[ -n $our_version ]] || die "no project(cudaimage VERSION ...) in CMakeLists.txt"
# The compile-check tree (CUDAIMAGE_DEVICE_CODE=check, machines without a GPU) has PTX without
# device optimisation: its wheel is for the tests here only, and says so in its version
# (+opencv5.1.0.check90) and description. The release wheel's label lists our module's code
# (+opencv5.1.0.sm75.sm80.sm86.sm89.sm90.sm100.sm120.ptx90.ptx120); the GPUs it serves are in its
# description.
case $CUDAIMAGE_DEVICE_CODE in
check)
    sm_label=$(arch_label check "$arch_ptx")
    gpus="compile check only"
    gpu_code="PTX for compute ${arch_ptx//;/, } without device optimisation: a compile-check build from a machine without a GPU, for its tests only; a GPU would compile it at load time and run it slowly. The release wheel is built with CUDAIMAGE_DEVICE_CODE=wheel." ;;
wheel)
    [[ $arch_ptx == "$WHEEL_OPENCV_ARCH_PTX" && $(cmake_var CUDAIMAGE_CUDA_ARCH_BIN) == "$WHEEL_CUDAIMAGE_ARCH_BIN" \
       && $module_ptx == "$WHEEL_CUDAIMAGE_ARCH_PTX" ]] \
        || die "$OPENCV_BUILD is not configured as scripts/common.sh's wheel flavour (CUDA_ARCH_PTX=$arch_ptx, CUDAIMAGE_CUDA_ARCH_BIN=$module_bin, CUDAIMAGE_CUDA_ARCH_PTX=$module_ptx)"
    sm_label=$(arch_label sm "$module_bin")${module_ptx:+.$(arch_label ptx "$module_ptx")}
    oldest=$(tr ';' '\n' <<<"$module_bin" | sort -V | head -1) newest=$(tr ';' '\n' <<<"$module_bin" | sort -V | tail -1)
    newest_ptx=$(tr ';' '\n' <<<"$module_ptx" | sort -V | tail -1) older_ptx=$(tr ';' '\n' <<<"$module_ptx" | sort -V | head -n -1 | paste -sd';')
    gpus="compute capability $oldest to ${newest%%.*}.x and later"
    gpu_code="every NVIDIA GPU that CUDA 13 supports, of compute capability $oldest to ${newest%%.*}.x, and later
ones: Turing (T4, RTX 20), Ampere (A100, A10, A30, RTX 30), Ada (L4, L40S, RTX 40), Hopper (H100,
H200), Blackwell (B200, B300, RTX 50, RTX PRO 6000). cudaimage's kernels are machine code for
$(arch_label sm_ "$module_bin" | sed 's/\./, /g') (sm_103, B300, runs sm_100's), plus PTX of
$(arch_label compute_ "$newest_ptx") that the driver compiles for GPUs after those${older_ptx:+ (and of $(arch_label compute_ "$older_ptx" | sed 's/\./, /g'),
which runs only where CUDA_FORCE_PTX_JIT=1 makes the driver ignore the machine code: a test of the
PTX path)}. OpenCV's own CUDA code
(the GpuMat kernels of core, cudaarithm, cudafilters) is PTX of $(arch_label compute_ "$arch_ptx" | sed 's/\./, /g'): the
first call into one of its kernel files waits while the driver compiles that file for the GPU, once:
the driver keeps the result in its cache (~/.nv/ComputeCache; CUDA_CACHE_PATH, CUDA_CACHE_MAXSIZE)." ;;
*)
    sm_label=$(arch_label sm "$arch_bin")
    gpus="${sm_label//./, }"
    gpu_code="${sm_label//./, } only (CUDA_ARCH_BIN=$arch_bin when built), no PTX: GPUs of other architectures fail at the first CUDA call with \"no kernel image is available\". The release wheel, for every CUDA 13 GPU, is built with CUDAIMAGE_DEVICE_CODE=wheel." ;;
esac
[[ -n $sm_label ]] || die "cannot read the architectures of CUDA_ARCH_BIN=$arch_bin / CUDA_ARCH_PTX=$arch_ptx"
version="$our_version+opencv$OPENCV_UPSTREAM_VERSION.$sm_label"

step "2/6 stage $stage"
rm -rf "$stage_root"
mkdir -p "$stage/$LIBS" "$stage_root/licenses"
# Hold the tree's build lock while copying, so that a module build of another clone cannot rewrite
# a library half-way through the copy.
exec {lock_fd}>"$BUILD_LOCK"
flock -n "$lock_fd" || { echo "  waiting for $BUILD_LOCK (a module build is running)"; flock "$lock_fd"; }
stage_cv2_package "$stage/cv2" "../$LIBS" \
    "The libraries' own run paths (\$ORIGIN) make them find each other; this only serves processes started from Python."
ext=$(compgen -G "$stage/cv2/python-3/cv2*.so")
declare -A rename=() requires=()
bundled_system=()
ldd_out=$(LD_LIBRARY_PATH="$OPENCV_BUILD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ldd "$ext")
if grep -q "not found" <<<"$ldd_out"; then echo "$ldd_out"; die "the cv2 extension has unresolved libraries here"; fi
while read -r soname path; do
    if [[ $soname =~ $system_re || $soname =~ $driver_re ]]; then continue; fi
    if req=$(nvidia_wheel_of "$soname"); then requires[$req]=1; continue; fi
    [[ $soname == libopencv_* ]] && path="$OPENCV_BUILD/lib/$soname"   # the tree's, never an install's
    # auditwheel's naming: NAME-HASH.so.N, so that no other copy of the same SONAME (another
    # OpenCV on LD_LIBRARY_PATH, the system's libpng in a process that loads both) is taken for ours.
    hash=$(sha256sum "$path" | cut -c1-8)
    new="${soname%%.so*}-$hash.so${soname#*.so}"
    rename[$soname]=$new
    cp -L "$path" "$stage/$LIBS/$new"
    chmod 755 "$stage/$LIBS/$new"
    [[ $soname == libopencv_* ]] || bundled_system+=("$soname:$(realpath "$path")")
    printf '  %-44s <- %s\n' "$LIBS/$new" "$path"
done < <(awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' <<<"$ldd_out")
flock -u "$lock_fd"
for req in "${!requires[@]}"; do echo "  dependency: $req"; done

# Licences: OpenCV's, the third-party code it carries, and each bundled system library's.
licenses=("$OPENCV_SRC/LICENSE=OpenCV-LICENSE")
for f in "$OPENCV_INSTALL"/share/licenses/opencv*/*; do [[ -f $f ]] && licenses+=("$f=OpenCV-3rdparty-${f##*/}"); done
for entry in "${bundled_system[@]}"; do
    soname=${entry%%:*} real=${entry#*:}
    pkg=$(dpkg -S "$real" 2>/dev/null || dpkg -S "${real#/usr}" 2>/dev/null) || die "no Debian package owns $real (its licence must go into the wheel)"
    pkg=${pkg%%:*}
    [[ -f /usr/share/doc/$pkg/copyright ]] || die "no /usr/share/doc/$pkg/copyright for $soname"
    licenses+=("/usr/share/doc/$pkg/copyright=$pkg-copyright")
done

step "3/6 strip, SONAMEs, run paths"
# Every ELF file gets the run path of the libraries' folder and of NVIDIA's wheels' folder, relative
# to where it sits ($ORIGIN); DT_RUNPATH, so LD_LIBRARY_PATH still wins (a machine's own NPP can be
# chosen that way) and, where no nvidia-npp is installed, the loader's usual search finds NPP.
# One patchelf operation per call: patchelf 0.14.3 (Debian 12) garbles the dynamic string table
# when --replace-needed, --set-soname and --set-rpath are given together (NixOS/patchelf#359, fixed
# in 0.14.4); every result is read back with readelf. strip runs before patchelf, never after:
# stripping a patched file can break its load segments.
dynamic() { readelf -dW "$2" | sed -n "s/.*($1).*\[\(.*\)\]$/\1/p"; }   # dynamic NEEDED|SONAME|RUNPATH FILE
mapfile -t elfs < <(find "$stage" -type f -name '*.so*' | sort)
for elf in "${elfs[@]}"; do
    dir=$(dirname "$elf")
    to_libs=$(realpath -m --relative-to="$dir" "$stage/$LIBS")
    to_nvidia=$(realpath -m --relative-to="$dir" "$stage/$NVIDIA_LIB")
    strip --strip-unneeded "$elf"
    for needed in $(dynamic NEEDED "$elf"); do
        [[ -n ${rename[$needed]:-} ]] && patchelf --replace-needed "$needed" "${rename[$needed]}" "$elf"
    done
    soname=$(dynamic SONAME "$elf")
    [[ -n $soname && -n ${rename[$soname]:-} ]] && patchelf --set-soname "${rename[$soname]}" "$elf"
    runpath="\$ORIGIN/$to_libs:\$ORIGIN/$to_nvidia"
    [[ $to_libs == . ]] && runpath="\$ORIGIN:\$ORIGIN/$to_nvidia"
    patchelf --set-rpath "$runpath" "$elf"
    [[ $(dynamic RUNPATH "$elf") == "$runpath" ]] || die "patchelf did not set the run path of $elf"
    printf '  %-52s SONAME %s\n' "${elf#"$stage"/}" "$(dynamic SONAME "$elf")"
done
echo "  run paths: \$ORIGIN/<to $LIBS>:\$ORIGIN/<to $NVIDIA_LIB>"

step "4/6 check"
bad=0
for elf in "${elfs[@]}"; do
    soname=$(dynamic SONAME "$elf")
    [[ -z $soname || $soname == "${elf##*/}" || $elf == "$ext" ]] || { echo "  ${elf#"$stage"/} has SONAME $soname"; bad=1; }
    for needed in $(dynamic NEEDED "$elf"); do
        if [[ -e $stage/$LIBS/$needed || $needed =~ $system_re ]]; then continue; fi
        if req=$(nvidia_wheel_of "$needed"); then [[ -n ${requires[$req]:-} ]] && continue; fi
        echo "  ${elf#"$stage"/} needs $needed, which is neither inside the wheel, nor a system library, nor from a dependency"; bad=1
    done
done
((bad == 0)) || die "unresolved libraries in the wheel"
echo "  every NEEDED library is inside the wheel, a glibc/libstdc++ library, or from ${!requires[*]}"
newest() { for e in "${elfs[@]}"; do objdump -T "$e" | { grep -oE "$1_[0-9.]+" || true; }; done | sort -uV | tail -1; }
glibc=$(newest GLIBC) glibcxx=$(newest GLIBCXX)
echo "  symbol versions needed at most: $glibc, $glibcxx (tag: $PLATFORM)"
[[ $(printf '%s\n' "$glibc" GLIBC_2.36 | sort -V | tail -1) == GLIBC_2.36 ]] || die "$glibc is newer than the tag's glibc 2.36"
echo "  GPU code: OpenCV's libraries CUDA_ARCH_BIN=${arch_bin:-none}, CUDA_ARCH_PTX=${arch_ptx:-none};" \
     "libopencv_cudaimage ${module_bin:-none}, PTX ${module_ptx:-none}:"
"$PYTHON_SYSTEM" "$CUDAIMAGE_REPO/scripts/wheel/cuda_fatbin.py" --expect-sass "${arch_bin//;/,}" --expect-ptx "${arch_ptx//;/,}" \
    --expect-lib libopencv_cudaimage "${module_bin//;/,}" "${module_ptx//;/,}" \
    "${elfs[@]}" | tee "$stage_root/gpu-code.txt" \
    || die "the libraries' GPU code is not what the tree was configured with (above)"

step "5/6 metadata"
mapfile -t nvidia_requires < <(printf '%s\n' "${!requires[@]}" | sort)
requires_dist=$(printf 'Requires-Dist: %s\n' "numpy>=2" "${nvidia_requires[@]}")
# The commit of the clone the tree was built from (this one, unless --no-build found another's).
src_clone=$(dirname "$(realpath -m "$configured")")
commit=$(git -C "$src_clone" rev-parse --short HEAD 2>/dev/null || echo unknown)
git -C "$src_clone" diff --quiet HEAD -- 2>/dev/null || commit+=" with uncommitted changes"
cat > "$stage_root/METADATA" <<EOF
Metadata-Version: 2.1
Name: $DIST_NAME
Version: $version
Summary: OpenCV $OPENCV_UPSTREAM_VERSION with CUDA and cudaimage (cv2.cuda.createGaussianBlur, SyncedMat). Provides the cv2 module: do not install beside opencv-python or opencv-contrib-python.
Platform: Linux x86-64, NVIDIA GPU ($gpus), CUDA 13 driver (580 or later)
Classifier: Programming Language :: Python :: 3
Classifier: Programming Language :: Python :: 3 :: Only
Classifier: Programming Language :: C++
Classifier: Operating System :: POSIX :: Linux
Classifier: Environment :: GPU :: NVIDIA CUDA :: 13
Classifier: Topic :: Scientific/Engineering :: Image Processing
Requires-Python: >=3.9
$requires_dist
Description-Content-Type: text/markdown

# opencv-cudaimage $version

**This package provides the \`cv2\` module.** It is not OpenCV's official package and must not be
installed in the same environment as \`opencv-python\`, \`opencv-contrib-python\`,
\`opencv-python-headless\` or \`opencv-contrib-python-headless\`: they write the same \`cv2/\`
folder and whichever is installed last overwrites part of the other. Switch with

    pip uninstall -y opencv-python opencv-contrib-python opencv-python-headless opencv-contrib-python-headless
    pip install $DIST_NAME

Inside: OpenCV $OPENCV_UPSTREAM_VERSION (core, imgproc, imgcodecs with PNG and JPEG, and the
modules the bindings link: geometry, flann, videoio and highgui without backends) with its CUDA
modules cudaarithm and cudafilters, and cudaimage: \`cv2.cuda.createGaussianBlur\` /
\`cv2.cuda.GaussianBlur\` (bit-exact with \`cv2.GaussianBlur\` for 8U and 16U),
\`cv2.cuda.SyncedMat\` (host and device image kept in step, CuPy/PyTorch interop through
\`__cuda_array_interface__\` and DLPack), \`cv2.cuda.processBatchGaussian\`, and
\`cv2.cudaimage.dask\` (Dask arrays; needs \`dask\` and \`distributed\`).

GPU code: $gpu_code NPP comes from
NVIDIA's \`nvidia-npp\` wheel (a dependency) or, installed with \`--no-deps\`, from the machine's
CUDA 13 (the dynamic linker's usual search: ld.so.cache, LD_LIBRARY_PATH). The CUDA runtime is
linked statically; the NVIDIA driver (CUDA 13) is the machine's. Without a driver \`import cv2\`
works and \`cv2.cuda.getCudaEnabledDeviceCount()\` is -1.

Built from cudaimage commit $commit (OpenCV tree $OPENCV_KEY) on $(grep -h PRETTY_NAME /etc/os-release | cut -d= -f2 | tr -d '"').
EOF

step "6/6 wheel"
mkdir -p "$dist"
rm -f "$dist/${DIST_NAME//-/_}"-*.whl
license_args=()
for l in "${licenses[@]}"; do license_args+=(--license-file "$l"); done
wheel=$("$PYTHON_SYSTEM" "$CUDAIMAGE_REPO/scripts/wheel/make_wheel.py" --root "$stage" --name "$DIST_NAME" \
    --version "$version" --tag "cp39-abi3-$PLATFORM" --metadata "$stage_root/METADATA" \
    --out-dir "$dist" "${license_args[@]}")
size=$(stat -c %s "$wheel")
installed=$(du -sb "$stage" | cut -f1)
# The machine code of one architecture, averaged (libopencv_cudaimage's alone in the wheel flavour).
per_arch=$(awk '$1 == "total" && $2 ~ /^sm_/ {s += $3; n++} END {if (n) printf "%.1f", s / n}' "$stage_root/gpu-code.txt")
arch_var=CUDA_ARCH_BIN; [[ $CUDAIMAGE_DEVICE_CODE == wheel ]] && arch_var="WHEEL_CUDAIMAGE_ARCH_BIN (scripts/common.sh)"
awk -v f="$wheel" -v s="$size" -v i="$installed" -v a="$per_arch" -v v="$arch_var" -v t=$(( $(date +%s) - t0 )) 'BEGIN {
    printf "wheel: %s\n  %.1f MB (%.1f MiB) to download, %.1f MB installed; built in %d s\n", f, s / 1e6, s / 1048576, i / 1e6, t
    if (a != "") printf "  each more architecture in %s adds about %s MB (estimate: the GPU code of one now)\n", v, a }'
echo "install: pip install $wheel   (in an environment without opencv-python; README \"Install\")"
