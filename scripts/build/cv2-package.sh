# The module build's cv2 as a relocatable package (sourced by pack-gpu-bundle.sh and build-wheel.sh,
# after common.sh). The build tree's loader configs (python_loader/cv2/config*.py) hold absolute
# paths into the tree; the staged package's are relative to the package (OpenCV's loader runs them
# with LOADER_DIR = the package's folder), so the package works wherever it is unpacked.

# cv2_extension: prints the module build's cv2 extension ($OPENCV_BUILD/lib/python3/cv2*.so).
cv2_extension() {
    compgen -G "$OPENCV_BUILD/lib/python3/cv2*.so" | head -1 | grep . \
        || die "no cv2 extension in $OPENCV_BUILD/lib/python3: run scripts/build/build-module.sh"
}

# stage_cv2_package DEST LIBS_REL WHY
#   DEST: the package folder to create (.../cv2), replaced if it exists. It gets the build tree's
#   loader package (OpenCV's loader, its generated submodules and cv2.cudaimage, our
#   misc/python/package/cudaimage) and the extension in DEST/python-3/.
#   LIBS_REL: where the native libraries are, relative to DEST ('../..' or '../x.libs'); the
#   loader prepends it to LD_LIBRARY_PATH, which the dynamic linker reads for processes started
#   from Python (the extension itself finds them by LD_LIBRARY_PATH or its run path).
#   WHY: one comment line for config.py saying who else points the linker there.
stage_cv2_package() {
    local dest=$1 libs_rel=$2 why=$3 native part
    native=$(cv2_extension) || exit 1
    rm -rf "$dest"
    mkdir -p "$(dirname "$dest")"
    cp -r "$OPENCV_BUILD/python_loader/cv2" "$dest"
    find "$dest" \( -name __pycache__ -o -name 'config*.py' \) -prune -exec rm -rf {} +
    mkdir -p "$dest/python-3"
    cp "$native" "$dest/python-3/"
    local join="LOADER_DIR"
    local IFS=/
    for part in $libs_rel; do join+=", '$part'"; done
    cat > "$dest/config.py" <<EOF
import os

# The native libraries are in $libs_rel relative to this package. $why
BINARIES_PATHS = [os.path.join($join)] + BINARIES_PATHS
EOF
    cat > "$dest/config-3.py" <<'EOF'
PYTHON_EXTENSIONS_PATHS = [
    os.path.join(LOADER_DIR, 'python-3')
] + PYTHON_EXTENSIONS_PATHS
EOF
}
