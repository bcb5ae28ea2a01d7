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

No CUDA tool is needed (the CUDA 13.0 toolkit here has no cuobjdump). The fatbin container layout
is NVIDIA's (not documented; as read by cuobjdump, LLVM's offload tools and gpgpu-sim): a 16-byte
header (magic 0xBA55ED50, version, header size, payload size) followed by entries, each a header
(kind 1 = PTX, 2 = ELF; header size; payload size; ...; architecture at byte 28) and its payload.
Checked against cuobjdump 13.2 --list-elf / --list-ptx on this build's libraries (2026-12-03:
the same entries, all sm_90, no PTX).
"""
import argparse
import collections
import struct
import sys

FATBIN_MAGIC = 0xBA55ED50
KIND_PTX, KIND_ELF = 1, 2


def elf_section(path, wanted):
    """The bytes of the named section of a 64-bit little-endian ELF file, or None."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError("%s: not a 64-bit little-endian ELF file" % path)
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)

    def header(i):
        name, _type, _flags, _addr, offset, size = struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize)
        return name, offset, size

    _, str_off, _ = header(shstrndx)
    for i in range(shnum):
        name, offset, size = header(i)
        end = data.index(b"\0", str_off + name)
        if data[str_off + name:end].decode() == wanted:
            return data[offset:offset + size]
    return None


def fatbin_entries(blob):
    """(kind, arch, bytes) for every entry of every fatbin container in a .nv_fatbin section."""
    pos = 0
    while pos + 16 <= len(blob):
        magic, _version, header_size, payload = struct.unpack_from("<IHHQ", blob, pos)
        if magic != FATBIN_MAGIC:
            if not blob[pos:].strip(b"\0"):     # padding after the last container
                return
            raise ValueError("no fatbin container at offset %d" % pos)
        entry, end = pos + header_size, pos + header_size + payload
        while entry < end:
            kind, _flags, entry_header, entry_size = struct.unpack_from("<HHIQ", blob, entry)
            arch, = struct.unpack_from("<I", blob, entry + 28)
            yield kind, arch, entry_header + entry_size
            entry += entry_header + entry_size
        pos = (end + 7) & ~7


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
        blob = elf_section(lib, ".nv_fatbin")
        sizes = collections.Counter()
        for kind, arch, nbytes in fatbin_entries(blob or b""):
            key = ("sm_%d" if kind == KIND_ELF else "compute_%d" if kind == KIND_PTX else "kind%d_%%d" % kind) % arch
            sizes[key] += nbytes
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
