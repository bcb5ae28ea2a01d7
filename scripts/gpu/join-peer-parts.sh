#!/usr/bin/env bash
# On the GPU machine: joins the parts that scripts/gpu/pack-peer-parts.sh made (DALI and CV-CUDA
# for perf/batch_bench.py), checks the archive against its SHA-256 and extracts the site directory.
#
#   scripts/gpu/join-peer-parts.sh PARTS_DIR SITE_DIR
#
# PARTS_DIR holds peer-site.sha256 and peer-site.tar.xz.part-00 ... part-NN (the count is in
# peer-site.sha256); the script names every part that is missing and stops before joining. A
# warm machine keeps /tmp between calls, so the parts go over one call each, each call carrying
# one part and peer-site.sha256 (about 60 MB; a call carries at most 64 MiB with the work tree):
#   call k (part NN = k as two digits):
#     mkdir -p /tmp/peerparts && cp out/peerparts/peer-site.tar.xz.part-NN out/peerparts/peer-site.sha256 /tmp/peerparts/
#   the last: the same copy, then scripts/gpu/join-peer-parts.sh /tmp/peerparts /tmp/peer-site
# and PYTHONPATH=/tmp/peer-site python3 perf/batch_bench.py --peers ours,dali,dali-dynamic,cvcuda ...
# (a cold machine has lost /tmp: start again from part 00). SITE_DIR is replaced; when it already
# holds this archive's extraction (same SHA-256), nothing is done. The joined archive is deleted
# after extraction; the parts stay.
set -euo pipefail
[[ ${1:-} == -h || ${1:-} == --help ]] && { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0; }
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
(( $# == 2 )) || die "usage: $0 PARTS_DIR SITE_DIR (-h for help)"
parts_dir=$1
site=$2
sums=$parts_dir/peer-site.sha256
[[ -f $sums ]] || die "$sums missing: carry it with any part (scripts/gpu/pack-peer-parts.sh wrote it)"
want=$(awk 'NR == 1 { print $1 }' "$sums")
count=$(awk '$1 == "parts" { print $2 }' "$sums")
[[ $want =~ ^[0-9a-f]{64}$ && $count =~ ^[0-9]+$ ]] || die "$sums is not pack-peer-parts.sh's (no SHA-256 or part count)"
if [[ -f $site/.peer-site.sha256 && $(cat "$site/.peer-site.sha256") == "$want" ]]; then
    echo "$site already holds peer-site.tar.xz $want"
    exit 0
fi
missing=()
for (( k = 0; k < count; k++ )); do
    part=$(printf '%s/peer-site.tar.xz.part-%02d' "$parts_dir" "$k")
    [[ -f $part ]] || missing+=("${part##*/}")
done
(( ${#missing[@]} == 0 )) || die "missing ${#missing[@]} of $count parts in $parts_dir: ${missing[*]} (a cold machine has lost /tmp: copy them again, one call each)"
extra=$(printf '%s/peer-site.tar.xz.part-%02d' "$parts_dir" "$count")
[[ ! -e $extra ]] || die "$extra exists but $sums names $count parts: parts of two packings are mixed"
archive=$parts_dir/peer-site.tar.xz
cat $(for (( k = 0; k < count; k++ )); do printf '%s/peer-site.tar.xz.part-%02d ' "$parts_dir" "$k"; done) > "$archive"
got=$(sha256sum "$archive" | cut -d' ' -f1)
[[ $got == "$want" ]] || { rm -f "$archive"; die "joined archive's SHA-256 is $got, $sums says $want: a part is damaged or from another packing"; }
rm -rf "$site"
mkdir -p "$site"
tar -C "$site" --strip-components=1 -xJf "$archive" || die "extracting $archive into $site failed"
rm -f "$archive"
echo "$want" > "$site/.peer-site.sha256"
echo "$site: $(du -sm "$site" | cut -f1) MB from $count parts; use PYTHONPATH=$site"
