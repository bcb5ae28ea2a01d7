#!/usr/bin/env bash
# One launch error policy (src/cuda/checked_launch.cuh): every kernel launch in src/ goes through
# launchChecked(), which checks that launch's own error; no <<<...>>> launch whose error would be
# read from (or mixed with) the runtime's last error, and no error thrown away right before a
# launch. Fails with the offending lines otherwise. Run by scripts/test.sh; no GPU, no build needed.
#
#   scripts/ci/check-launches.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
bad=0
# A triple-chevron launch anywhere in src/ (comments aside).
if grep -rn --include='*.cu' --include='*.cuh' --include='*.hpp' --include='*.cpp' '<<<' src | grep -v '^[^:]*:[0-9]*:[[:space:]]*//'; then
    echo "check-launches: the launches above bypass launchChecked() (src/cuda/checked_launch.cuh)"
    bad=1
fi
# An error cleared within three lines before a launch.
while IFS= read -r file; do
    out=$(awk '
        clear && FNR > clear + 3 { clear = 0 }
        /launchChecked\(/ && !/^[[:space:]]*\/\// && !/^template|void launchChecked/ {
            if (clear) printf "%s:%d: an error cleared right before a launch: %s\n", FILENAME, clear, cleartext
            n++
        }
        /\(void\)[[:space:]]*cudaGetLastError/ { clear = FNR; cleartext = $0 }
    ' "$file")
    if [[ -n $out ]]; then echo "$out"; bad=1; fi
done < <(grep -rl 'launchChecked(' src)
launches=$(grep -rh 'launchChecked(' src | grep -v '^[[:space:]]*//' | grep -vc 'void launchChecked' || true)
if ((bad)); then echo "check-launches: FAIL"; exit 1; fi
echo "check-launches: $launches launches in src/, each through launchChecked()"
