#!/usr/bin/env bash
# A kernel change on the GPU machine, in one call: the new bundle's Gaussian and bad-input tests,
# then `gaussian_bench --ours-only` of the base and the new bundle alternately (base, new, base,
# new: the spread between runs is of the order of the changes, doc/design-record.md#measurement), and a
# table of every cell's change.
#
#   scripts/gpu/compare-bundles.sh [--no-tests] [--runs N] BASE.tar.xz NEW.tar.xz [OUT]
#
# BASE and NEW are GPU bundles (scripts/gpu/pack-gpu-bundle.sh; keep the previous commit's as the
# base). OUT (default ./compare-results) gets tests.txt, bench-{base,new}-I.txt and their JSON, and
# compare.md: per cell the times of every run, the change of the means and % of copy before and
# after; commit compare.md as perf/results/<date>-<card>-ours-only-comparison.md (the newest only).
# About 2 minutes with the tests, 1 without.
set -uo pipefail
tests=1 runs=2
while [[ ${1:-} == --* ]]; do
    case $1 in
        --no-tests) tests=0; shift ;;
        --runs) runs=${2:-}; shift $(($# >= 2 ? 2 : 1)) ;;
        *) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2 ;;
    esac
done
base_tar=${1:?usage: compare-bundles.sh BASE.tar.xz NEW.tar.xz [OUT]} new_tar=${2:?usage: compare-bundles.sh BASE.tar.xz NEW.tar.xz [OUT]}
(($# <= 3)) || { echo "error: BASE.tar.xz NEW.tar.xz [OUT], got $# arguments: $*" >&2; exit 2; }
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "error: --runs is '$runs'; a positive count" >&2; exit 2; }
for tar in "$base_tar" "$new_tar"; do [[ -f $tar ]] || { echo "error: no bundle at $tar" >&2; exit 2; }; done
OUT=${3:-$PWD/compare-results}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/compare-bundles.XXXXXX")
for which in base new; do
    tar=$base_tar; [[ $which == new ]] && tar=$new_tar
    if ! { mkdir -p "$work/$which" && tar -xJf "$tar" -C "$work/$which"; }; then echo "cannot unpack $tar" >&2; exit 2; fi
done
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv 2>/dev/null
failed=0
if ((tests)); then
    s=$(date +%s)
    OUT=$OUT/tests "$work/new/cudaimage-gpu-bundle/run-all.sh" --only opencv_test_cudaimage \
        --gtest_filter='*Gaussian*:*BadInput*' > "$OUT/tests.txt" 2>&1 || failed=1
    echo "new bundle's Gaussian and bad-input tests: $( ((failed)) && echo FAILED || echo passed) in $(( $(date +%s) - s )) s"
    grep -E '^\[  (PASSED|FAILED) ' "$OUT/tests.txt" | tail -5
fi
for ((i = 1; i <= runs; i++)); do
    for which in base new; do
        B=$work/$which/cudaimage-gpu-bundle
        s=$(date +%s)
        # gaussian_bench writes its .md and .json there (a base bundle's older gaussian_bench does not
        # create the folder itself).
        mkdir -p "$OUT/bench-$which-$i"
        # Each bundle with its own libraries (bundle-libs.sh), in a subshell.
        (source "$B/bundle-libs.sh" && use_bundle_libraries "$B" \
            && exec "$B/bin/gaussian_bench" --ours-only --out "$OUT/bench-$which-$i") \
            > "$OUT/bench-$which-$i.txt" 2>&1 || failed=1
        echo "$which run $i: $(( $(date +%s) - s )) s"
    done
done
commit() { sed -n 's/^commit: //p' "$work/$1/cudaimage-gpu-bundle/MANIFEST.txt" 2>/dev/null | head -1; }
python3 - "$OUT" "$runs" "$(commit base)" "$(commit new)" <<'PY' | tee "$OUT/compare.md"
import glob, json, sys
out, runs, base, new = sys.argv[1], int(sys.argv[2]), sys.argv[3] or "base", sys.argv[4] or "new"
def cells(which, i):
    f = glob.glob("%s/bench-%s-%d/gaussian-*.json" % (out, which, i))
    return {(c["type"], c["sigma"]): c for c in json.load(open(f[0]))["cells"]} if f else {}
b = [cells("base", i) for i in range(1, runs + 1)]
n = [cells("new", i) for i in range(1, runs + 1)]
if not all(b) or not all(n):
    sys.exit("error: a run wrote no JSON (see %s/bench-*-*.txt)" % out)
print("# `gaussian_bench --ours-only`: %s against %s, alternating, %d runs each\n" % (new, base, runs))
print("| type | sigma | %s ms | %s ms | change of the means | %% of copy before -> after |" % (base, new))
print("|---|---|---|---|---|---|")
for key in b[0]:   # the bench's order
    bt = [r[key]["cudaimage_ms"] for r in b if key in r]
    nt = [r[key]["cudaimage_ms"] for r in n if key in r]
    if not bt or not nt:
        continue
    mb, mn = sum(bt) / len(bt), sum(nt) / len(nt)
    print("| %s | %g | %s | %s | %+.1f %% | %.1f -> %.1f |" % (key[0], key[1], " / ".join("%.3f" % t for t in bt),
          " / ".join("%.3f" % t for t in nt), 100 * (mn / mb - 1), 100 * b[0][key]["fraction_of_copy"],
          100 * n[0][key]["fraction_of_copy"]))
PY
[[ ${PIPESTATUS[0]} == 0 ]] || failed=1
grep -h '^3840x2160' "$OUT"/bench-*-*.txt | sed 's/^/4K: /'
rm -rf "$work"
exit $failed
