#!/usr/bin/env python3
"""Summarises `ptxas -v` logs (scripts/ci/compile-archs.sh): per kernel family and architecture, the
number of instances, the most registers, spill bytes and static shared memory; then the dynamic
shared memory of the single-kernel paths (read from the build: path_shared_memory.cpp) against
each architecture's opt-in limit, which is what the path choice (src/gaussian_paths.hpp) checks at run time.

    ptxas_summary.py BUILD_DIR "75;80;86;89;90" SHARED_MEMORY_FILE

SHARED_MEMORY_FILE is what scripts/ci/path_shared_memory.cpp printed from the path units' tiles:
one "<bytes> <kernel>" line per single-kernel path ("(sm_80+)" marks a kernel that needs sm_80).

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
    shared = []   # (bytes, kernel, needs sm_80)
    for line in pathlib.Path(sys.argv[3]).read_text().splitlines():
        need, kernel = line.split(" ", 1)
        shared.append((int(need), kernel.replace(" (sm_80+)", ""), kernel.endswith("(sm_80+)")))
    if not shared:
        print("no shared-memory sizes in", sys.argv[3])
        return 1
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
    print("dynamic shared memory per block of the single-kernel paths against each architecture's opt-in limit:")
    for need, kernel, mma in shared:
        verdict = []
        for a in archs:
            limit = OPT_IN.get(a)
            fits = "?" if limit is None else "fits" if need <= limit else ("CUDA cores instead" if mma else "two-pass instead")
            verdict.append(f"sm_{a}: " + ("no MMA, CUDA cores" if mma and int(a) < 80 else fits))
        print(f"  {kernel:<46} {need:>6} B  " + ", ".join(verdict))
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
