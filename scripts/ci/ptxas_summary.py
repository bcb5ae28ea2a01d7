#!/usr/bin/env python3
"""Summarises `ptxas -v` logs (scripts/ci/compile-archs.sh): per kernel family and architecture, the
number of instances, the most registers, spill bytes and static shared memory; then the dynamic
shared memory of the fused paths (src/gaussian_tile.hpp) against each architecture's opt-in
limit, which is what the path choice (src/gaussian_paths.hpp) checks at run time.

    ptxas_summary.py BUILD_DIR "75;80;86;89;90"

Kernels that spill are listed by name (a spill is a performance defect to look at, not an error)."""
import collections
import pathlib
import re
import subprocess
import sys

# cudaFuncAttributeMaxDynamicSharedMemorySize limits (bytes), CUDA C Programming Guide, table
# "Technical Specifications per Compute Capability" (shared memory per block, opt-in).
OPT_IN = {"75": 65536, "80": 166912, "86": 101376, "87": 166912, "89": 101376, "90": 232448,
          "100": 232448, "120": 101376}
# Dynamic shared memory per block of the fused kernels (src/gaussian_tile.hpp: sharedBytes<Tile>).
FUSED_SHARED = {"fusedTile (radius 1..8)": 33024, "fusedLargeTile (radius 9..128)": 65792}
# The 8U tensor-core kernel's, per channel count: TensorTile::maxSharedBytes(cn), the radius-128 tile
# it opts in for once and choosePath() checks against the device's limit. Its MMA needs sm_80 (an
# sm_75 build has a stub that choosePath() never takes). Where it does not fit, 8U stays on the
# CUDA-core kernels.
TENSOR_SHARED = {"tensor 8U, 1 channel": 110144, "tensor 8U, 2 channels": 114240,
                 "tensor 8U, 3 channels": 118336, "tensor 8U, 4 channels": 122432}

ENTRY = re.compile(r"Compiling entry function '(\S+)' for 'sm_(\d+)'")
SPILL = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")


def family(mangled):
    name = mangled
    for tool in ("cu++filt", "c++filt"):    # the toolkit's, else binutils' (same Itanium mangling)
        try:
            name = subprocess.run([tool, mangled], capture_output=True, text=True, check=True).stdout.strip()
            break
        except (OSError, subprocess.CalledProcessError):
            continue
    name = re.sub(r"^void\s+", "", name).replace("(anonymous namespace)::", "")
    name = re.sub(r"\(.*$", "", name)          # parameters
    name = re.sub(r"<.*$", "", name)           # template arguments
    return name.split("::")[-1]


def main():
    build, archs = pathlib.Path(sys.argv[1]), sys.argv[2].split(";")
    stats = collections.defaultdict(lambda: {"n": 0, "reg": 0, "spill": 0, "stack": 0, "smem": 0})
    names = {}
    spilling = []
    for log in sorted(build.glob("*.log")):
        current = None
        for line in log.read_text(errors="replace").splitlines():
            m = ENTRY.search(line)
            if m:
                mangled, arch = m.groups()
                if mangled not in names:
                    names[mangled] = family(mangled)
                current = stats[(log.stem, names[mangled], arch)]
                current["n"] += 1
                instance = (mangled, arch)
                continue
            if current is None:
                continue
            m = SPILL.search(line)
            if m:
                current["stack"] = max(current["stack"], int(m.group(1)))
                current["spill"] = max(current["spill"], int(m.group(2)) + int(m.group(3)))
                if int(m.group(2)) + int(m.group(3)):
                    spilling.append((instance[1], int(m.group(2)), int(m.group(3)), instance[0]))
            m = re.search(r"Used (\d+) registers", line)
            if m:
                current["reg"] = max(current["reg"], int(m.group(1)))
                s = re.search(r"(\d+) bytes smem", line)
                if s:
                    current["smem"] = max(current["smem"], int(s.group(1)))
    if not stats:
        print("no ptxas output found in", build)
        return 1
    header = f"{'file':<22} {'kernel family':<16} " + " ".join(f"{'sm_' + a:>24}" for a in archs)
    print("registers / spill bytes / static smem bytes (max over instances), instances")
    print(header)
    keys = sorted({(f, k) for (f, k, _) in stats})
    for f, k in keys:
        cells = []
        for a in archs:
            s = stats.get((f, k, a))
            if s is None:
                cells.append(f"{'-':>24}")
                continue
            cells.append(f"{s['reg']:>4} r {s['spill']:>4} sp {s['smem']:>5} sm x{s['n']:<3}".rjust(24))
        print(f"{f:<22} {k:<16} " + " ".join(cells))
    print()
    print("dynamic shared memory per block of the fused paths against each architecture's opt-in limit:")
    for kernel, need in FUSED_SHARED.items():
        verdict = []
        for a in archs:
            limit = OPT_IN.get(a)
            verdict.append(f"sm_{a}: " + ("?" if limit is None else ("fits" if need <= limit else "two-pass instead")))
        print(f"  {kernel:<32} {need:>6} B  " + ", ".join(verdict))
    for kernel, need in TENSOR_SHARED.items():
        verdict = []
        for a in archs:
            limit = OPT_IN.get(a)
            fits = "?" if limit is None else "fits" if need <= limit else "CUDA cores instead"
            verdict.append(f"sm_{a}: " + ("no MMA, CUDA cores" if int(a) < 80 else fits))
        print(f"  {kernel:<32} {need:>6} B  " + ", ".join(verdict))
    print("(choosePath() reads cudaDevAttrMaxSharedMemoryPerBlockOptin at run time; a kernel that does not fit")
    print(" on a device is never launched there: its radii take the two-pass path, or for the tensor-core")
    print(" kernel the CUDA-core kernels.)")
    if spilling:
        print("kernels that spill (arch, store bytes, load bytes, kernel):")
        for arch, st, ld, mangled in sorted(set(spilling)):
            full = mangled
            try:
                full = subprocess.run(["c++filt", mangled], capture_output=True, text=True, check=True).stdout.strip()
            except (OSError, subprocess.CalledProcessError):
                pass
            print(f"  sm_{arch}: {st} B stored, {ld} B loaded: {full.replace('(anonymous namespace)::', '')}")
    else:
        print("no kernel spills")
    return 0


if __name__ == "__main__":
    sys.exit(main())
