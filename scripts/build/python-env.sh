#!/usr/bin/env bash
# The cached Python environment ($VENV, Debian's Python 3): NumPy 2 (the headers cv2 is built
# against) and the pinned packages the Python tests and samples use (scripts/build/python-requirements.txt:
# Dask, distributed, Zarr). Quick when everything is already there.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
req="$CUDAIMAGE_REPO/scripts/build/python-requirements.txt"
stamp="$VENV/.requirements-$( { echo "numpy>=2,<3"; cat "$req" 2>/dev/null; } | sha256sum | cut -c1-10)"
[[ -f $stamp ]] && exit 0
if [[ ! -x $VENV/bin/python ]]; then
    "$PYTHON_SYSTEM" -m venv "$VENV" || die "cannot create $VENV (Debian: apt-get install python3-venv)"
fi
pip=("$VENV/bin/pip" install -q --disable-pip-version-check)
# pip >= 23.1 for `pip download --no-binary <name>` of an sdist whose build needs wheels
"${pip[@]}" --upgrade "pip>=23.1"
"${pip[@]}" "numpy>=2,<3"
[[ -f $req ]] && "${pip[@]}" -r "$req"
rm -f "$VENV"/.requirements-* && touch "$stamp"
