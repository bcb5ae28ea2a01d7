"""The GPU code inside a shared library: the entries of the CUDA fatbin in its .nv_fatbin section.

One reader for both users: the self-check (``python -m cv2.cudaimage``, cv2.cudaimage.info) reads
the libraries of the running cv2 with it, and the wheel's build check (scripts/wheel/cuda_fatbin.py)
loads this file by path from the source tree, before any cv2 exists. So it needs nothing but the
standard library (no cv2, no NumPy, no relative import) and no CUDA tool (the CUDA 13.0 toolkit
here has no cuobjdump).

The fatbin container layout is NVIDIA's (not documented; as read by cuobjdump, LLVM's offload tools
and gpgpu-sim): containers of a 16-byte header (magic 0xBA55ED50, version, header size, payload
size), each followed by its entries: a header (kind 1 = PTX, 2 = ELF; flags; header size; payload
size; ...; architecture at byte 28) and its payload. Containers start on 8-byte boundaries; zeros
pad the section after the last one. Checked against cuobjdump 13.2 --list-elf / --list-ptx on this
build's libraries (2026-12-03: the same entries, all sm_90, no PTX). Only the headers are read: the
file is mapped, not loaded.
"""
from __future__ import annotations

import mmap
import struct
from typing import NamedTuple

FATBIN_MAGIC = 0xBA55ED50
KIND_PTX, KIND_ELF = 1, 2
SECTION = b".nv_fatbin"


class Entry(NamedTuple):
    """One entry of a fatbin."""
    kind: int   # KIND_PTX or KIND_ELF (machine code, SASS)
    arch: int   # compute capability as major * 10 + minor (90: sm_90 or compute_90)
    size: int   # bytes as stored, header included (compressed when nvcc ran with -Xfatbin=-compress-all)

    @property
    def name(self) -> str:
        """'sm_90' (machine code), 'compute_90' (PTX), or 'kind3_90' for a kind this reader does not know."""
        prefix = {KIND_ELF: "sm", KIND_PTX: "compute"}.get(self.kind, "kind%d" % self.kind)
        return "%s_%d" % (prefix, self.arch)


def fatbin_entries(path: str) -> list[Entry]:
    """Every entry of every fatbin container in the .nv_fatbin section of the library at ``path``;
    empty when it has no such section (no GPU code).

    Raises OSError when the file cannot be read, ValueError when it is not a 64-bit little-endian
    ELF file or its section holds something other than fatbin containers and padding."""
    with open(path, "rb") as f:
        try:
            data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        except ValueError:   # an empty file cannot be mapped
            raise ValueError("%s: not a 64-bit little-endian ELF file (empty)" % path) from None
    with data:
        try:
            section = _elf_section(data, SECTION)
            return [] if section is None else list(_entries(data, *section))
        except struct.error as e:   # a header runs past the end of the file
            raise ValueError("%s: truncated ELF or fatbin header (%s)" % (path, e)) from None
        except ValueError as e:
            raise ValueError("%s: %s" % (path, e)) from None


def _elf_section(data: mmap.mmap, wanted: bytes) -> tuple[int, int] | None:
    """(offset, size) of the named section of a 64-bit little-endian ELF image, or None."""
    if data[:4] != b"\x7fELF" or data[4:6] != b"\x02\x01":
        raise ValueError("not a 64-bit little-endian ELF file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)

    def header(i: int) -> tuple[int, int, int]:
        name, _type, _flags, _addr, offset, size = struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize)
        return name, offset, size

    _, strtab, _ = header(shstrndx)
    for i in range(shnum):
        name, offset, size = header(i)
        if data[strtab + name:strtab + name + len(wanted) + 1] == wanted + b"\0":
            return offset, size
    return None


def _entries(data: mmap.mmap, offset: int, size: int) -> list[Entry]:
    out = []
    pos, end_section = offset, offset + size
    while pos < end_section:
        if pos + 16 > end_section or struct.unpack_from("<I", data, pos)[0] != FATBIN_MAGIC:
            if data[pos:end_section].strip(b"\0"):
                raise ValueError("no fatbin container at offset %d of %s" % (pos - offset, SECTION.decode()))
            break   # padding after the last container
        _magic, _version, header_size, payload = struct.unpack_from("<IHHQ", data, pos)
        entry, end = pos + header_size, pos + header_size + payload
        while entry < end:
            kind, _flags, entry_header, entry_size = struct.unpack_from("<HHIQ", data, entry)
            arch, = struct.unpack_from("<I", data, entry + 28)
            if entry_header == 0:   # would never advance
                raise ValueError("an entry header of size 0 at offset %d of %s" % (entry - offset, SECTION.decode()))
            out.append(Entry(kind, arch, entry_header + entry_size))
            entry += entry_header + entry_size
        pos = (end + 7) & ~7
    return out
