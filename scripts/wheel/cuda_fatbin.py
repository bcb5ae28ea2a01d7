#!/usr/bin/env python3
"""Which GPU code is inside shared libraries, and how many bytes each architecture takes.

    cuda_fatbin.py [--expect-sass 90,86] [--expect-ptx ''] [--expect-lib NAME SASS PTX]... LIB...

For each library, the entries of its .nv_fatbin section: SASS (cubin) per sm_XY and PTX per
compute_XY, with their sizes as stored (compressed when nvcc ran with -Xfatbin=-compress-all, as
OpenCV's build here does; a wheel's deflate cannot shrink them further). Prints a table and the
total per architecture: the size one more architecture in CUDA_ARCH_BIN would add is about the
total of one existing architecture (an estimate: kernels are compiled per architecture and their
sizes differ a little). With --expect-*, exits 1 if an architecture is missing or one more is
present: --expect-sass/--expect-ptx for every library with GPU code (and at least one has each
architecture named), --expect-lib for the libraries whose file name starts with NAME, which must
hold exactly SASS and PTX (comma-separated, '' for none), e.g. the release wheel's
--expect-sass '' --expect-ptx 75 --expect-lib libopencv_cudaimage 75,80,86,89,90,100,120 120.

The reader is cv2.cudaimage's own (misc/python/package/cudaimage/_fatbin.py, which the self-check
`python -m cv2.cudaimage` uses too), loaded from the source tree: no cv2 and no CUDA tool needed.
"""
import argparse
import collections
import importlib.util
import os
import sys


def load_reader():
    """The package's fatbin reader, loaded by path (by file, not by putting the package's folder on
    sys.path, where its dask.py would hide Dask)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                        "misc", "python", "package", "cudaimage", "_fatbin.py")
    spec = importlib.util.spec_from_file_location("cudaimage_fatbin", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


fatbin = load_reader()


def arch_set(text, prefix):
    """{'sm_90', 'sm_86'} from '90,8.6' (prefix 'sm_'); empty for ''."""
    return {prefix + a.strip().replace(".", "") for a in text.split(",") if a.strip()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("libs", nargs="+")
    ap.add_argument("--expect-sass", help="comma-separated compute capabilities, e.g. 90,86")
    ap.add_argument("--expect-ptx", help="comma-separated PTX architectures ('' for none)")
    ap.add_argument("--expect-lib", nargs=3, action="append", default=[], metavar=("NAME", "SASS", "PTX"),
                    help="the libraries whose file name starts with NAME hold exactly these (instead of --expect-*)")
    args = ap.parse_args()

    totals = collections.Counter()
    rows = []
    for lib in args.libs:
        sizes = collections.Counter()
        for entry in fatbin.fatbin_entries(lib):
            sizes[entry.name] += entry.size
        totals.update(sizes)
        rows.append((lib.rsplit("/", 1)[-1], sizes))

    def order(key):   # sm_75 < sm_100 < compute_75 < compute_120
        kind, _, arch = key.partition("_")
        return (kind != "sm", int(arch) if arch.isdigit() else 0, key)

    for name, sizes in rows:
        parts = ", ".join("%s %.2f MB" % (k, sizes[k] / 1e6) for k in sorted(sizes, key=order)) or "no GPU code"
        print("  %-40s %s" % (name, parts))
    for key in sorted(totals, key=order):
        print("  total %-10s %6.2f MB (%.1f MiB)" % (key, totals[key] / 1e6, totals[key] / 1048576))

    status = 0

    def fail(message):
        nonlocal status
        print("error: " + message, file=sys.stderr)
        status = 1

    def show(codes):
        return ", ".join(sorted(codes, key=order)) or "none"

    # Per library: those named by --expect-lib hold exactly theirs; every other one with GPU code
    # holds exactly --expect-sass/--expect-ptx (where given).
    default_have = set()
    named = set()
    for name, sizes in rows:
        have = set(sizes)
        rule = next((r for r in args.expect_lib if name.startswith(r[0])), None)
        if rule:
            named.add(rule[0])
            want = arch_set(rule[1], "sm_") | arch_set(rule[2], "compute_")
            if have != want:
                fail("%s holds %s, expected %s" % (name, show(have), show(want)))
            continue
        default_have |= have
        for flag, prefix in ((args.expect_sass, "sm_"), (args.expect_ptx, "compute_")):
            if flag is None or not have:
                continue
            kind_have = {k for k in have if k.startswith(prefix)}
            if kind_have != arch_set(flag, prefix):
                fail("%s holds %s, expected %s" % (name, show(kind_have), show(arch_set(flag, prefix))))
    for rule in args.expect_lib:
        if rule[0] not in named:
            fail("no library named %s*" % rule[0])
    # ... and every architecture expected of them is in at least one of them.
    for flag, prefix in ((args.expect_sass, "sm_"), (args.expect_ptx, "compute_")):
        if flag is None:
            continue
        missing = arch_set(flag, prefix) - default_have
        if missing:
            fail("no library holds %s" % show(missing))
    return status


if __name__ == "__main__":
    sys.exit(main())
