#!/usr/bin/env bash
# README command 1: build the module (cached) and blur the test card with cudaimage.
#
#   scripts/demo.sh [blur_demo.py arguments, e.g. --sigma 4 --cpu]
#
# Writes out/blurred.png and out/side_by_side.png. On a machine without a CUDA device it says so
# and uses CPU cv2.GaussianBlur (labelled as such in the picture).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

bash "$CUDAIMAGE_REPO/scripts/build/build-module.sh"

step "demo: samples/python/blur_demo.py ($("$VENV/bin/python" --version), cv2 from $OPENCV_BUILD/python_loader)"
export PYTHONPATH="$OPENCV_BUILD/python_loader${PYTHONPATH:+:$PYTHONPATH}"
exec "$VENV/bin/python" "$CUDAIMAGE_REPO/samples/python/blur_demo.py" "$@"
