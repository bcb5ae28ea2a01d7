#!/usr/bin/env bash
# Checks that every command and code block of README.md and doc/*.md still works, without a GPU:
# links and repository paths resolve, shell blocks parse and the scripts they name parse and answer
# --help, Python blocks compile, C++ blocks compile against the installed standalone build, and the
# blocks marked run (the quick starts) run (scripts/ci/check_doc_commands.py says what exactly).
#
#   scripts/ci/check-doc-commands.sh [-v] [--keep]      # OPENCV_LINE=4.14 for the other line
#
# Uses the OpenCV line's standalone install (build-standalone/install) and the module build's cv2
# when they are built (scripts/build/build-standalone.sh, scripts/build/build-module.sh); without
# them it says so and checks the rest. scripts/test.sh runs it for each line. Exit status 1 on any
# problem, each printed as FAIL <file>:<line>: <what>.
set -euo pipefail
for arg in "$@"; do
    case $arg in
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    esac
done
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
step "doc commands: README.md and doc/*.md (OpenCV $OPENCV_LINE, device code $CUDAIMAGE_DEVICE_CODE)"
exec "$PYTHON_SYSTEM" "$CUDAIMAGE_REPO/scripts/ci/check_doc_commands.py" --repo "$CUDAIMAGE_REPO" \
    --prefix "$STANDALONE_BUILD/install" --cv2-path "$OPENCV_BUILD/python_loader" --python "$VENV/bin/python" "$@"
