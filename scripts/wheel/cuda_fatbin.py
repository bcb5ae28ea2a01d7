#!/usr/bin/env python3
"""Which GPU code is inside shared libraries, and how many bytes each architecture takes.

    cuda_fatbin.py [--expect-sass 90,86] [--expect-ptx ''] LIB...

For each library, the entries of its .nv_fatbin section: SASS (cubin) per sm_XY and PTX per
compute_XY, with their sizes as stored (compressed when nvcc ran with -Xfatbin=-compress-all, as
OpenCV's build here does; a wheel's deflate cannot shrink them further). Prints a table and the
total per architecture: the size one more architecture in CUDA_ARCH_BIN would add is about the
total of one existing architecture (an estimate: kernels are compiled per architecture and their
sizes differ a little). With --expect-*, exits 1 if an architecture is missing or one more is
present.

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


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("libs", nargs="+")
    ap.add_argument("--expect-sass", help="comma-separated compute capabilities, e.g. 90,86")
    ap.add_argument("--expect-ptx", help="comma-separated PTX architectures ('' for none)")
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

    for name, sizes in rows:
        parts = ", ".join("%s %.2f MB" % (k, v / 1e6) for k, v in sorted(sizes.items())) or "no GPU code"
        print("  %-40s %s" % (name, parts))
    for key, nbytes in sorted(totals.items()):
        print("  total %-10s %6.2f MB (%.1f MiB)" % (key, nbytes / 1e6, nbytes / 1048576))

    status = 0
    for flag, prefix in ((args.expect_sass, "sm_"), (args.expect_ptx, "compute_")):
        if flag is None:
            continue
        want = {prefix + a.strip().replace(".", "") for a in flag.split(",") if a.strip()}
        have = {k for k in totals if k.startswith(prefix)}
        if want != have:
            print("error: %s code for %s, expected %s" % (prefix.rstrip("_"), sorted(have) or "none",
                                                        sorted(want) or "none"), file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
