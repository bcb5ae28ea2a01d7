#!/usr/bin/env python3
"""Writes a wheel from a staged folder, with the standard library only (no build backend).

    make_wheel.py --root STAGE --name opencv-cudaimage --version 0.1.0+opencv5.1.0.sm90 \\
        --tag cp39-abi3-manylinux_2_36_x86_64 --metadata METADATA --out-dir dist \\
        [--license-file PATH]...

STAGE holds what goes into site-packages (cv2/, opencv_cudaimage.libs/, ...). METADATA is the
core metadata file as written by the caller (Name and Version are checked against the arguments).
A wheel is a zip of those files plus NAME-VERSION.dist-info/ with METADATA, WHEEL, top_level.txt,
licenses/ and RECORD (every file's urlsafe-base64 SHA-256 and size; RECORD itself unhashed), as
the wheel specification (PEP 427, PEP 491) asks. Entries are sorted, dated SOURCE_DATE_EPOCH
(default 2026-01-01) and keep their executable bits, so the same STAGE gives the same wheel.
"""
import argparse
import base64
import hashlib
import os
import re
import sys
import time
import zipfile


def record_hash(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", required=True)
    ap.add_argument("--name", required=True)
    ap.add_argument("--version", required=True)
    ap.add_argument("--tag", required=True, help="python-abi-platform, e.g. cp39-abi3-manylinux_2_36_x86_64")
    ap.add_argument("--metadata", required=True)
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--license-file", action="append", default=[], metavar="PATH[=NAME]")
    args = ap.parse_args()

    with open(args.metadata, encoding="utf-8") as f:
        metadata = f.read()
    for field, value in (("Name", args.name), ("Version", args.version)):
        if not re.search(r"^%s: %s$" % (field, re.escape(value)), metadata, re.M):
            sys.exit("error: %s does not say '%s: %s'" % (args.metadata, field, value))

    # File names: the distribution name normalised to underscores (PEP 503 + 427); '+' of a local
    # version stays (as in torch-2.5.0+cu124-...whl).
    dist = re.sub(r"[-_.]+", "_", args.name).lower()
    dist_info = "%s-%s.dist-info" % (dist, args.version)
    wheel_path = os.path.join(args.out_dir, "%s-%s-%s.whl" % (dist, args.version, args.tag))

    files = []   # (archive name, bytes, executable)
    for top, dirs, names in os.walk(args.root):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for n in names:
            if n.endswith(".pyc"):
                continue
            p = os.path.join(top, n)
            with open(p, "rb") as f:
                files.append((os.path.relpath(p, args.root).replace(os.sep, "/"), f.read(),
                              os.access(p, os.X_OK)))
    files.sort()
    top_level = sorted({n.split("/")[0] for n, _, _ in files if not n.split("/")[0].endswith(".libs")})

    wheel_file = ("Wheel-Version: 1.0\nGenerator: cudaimage scripts/wheel/make_wheel.py\n"
                  "Root-Is-Purelib: false\nTag: %s\n" % args.tag)
    meta = [(dist_info + "/METADATA", metadata.encode()), (dist_info + "/WHEEL", wheel_file.encode()),
            (dist_info + "/top_level.txt", ("\n".join(top_level) + "\n").encode())]
    for spec in args.license_file:
        path, _, name = spec.partition("=")
        with open(path, "rb") as f:
            meta.append((dist_info + "/licenses/" + (name or os.path.basename(path)), f.read()))
    files += [(n, d, False) for n, d in meta]

    record = "".join("%s,%s,%d\n" % (n, record_hash(d), len(d)) for n, d, _ in files)
    record += dist_info + "/RECORD,,\n"
    files.append((dist_info + "/RECORD", record.encode(), False))

    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", "1767225600"))   # 2026-01-01
    date = time.gmtime(max(epoch, 315532800))[:6]                       # zip dates start in 1980
    os.makedirs(args.out_dir, exist_ok=True)
    tmp = wheel_path + ".tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as z:
        for name, data, executable in files:
            info = zipfile.ZipInfo(name, date)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = (0o100755 if executable else 0o100644) << 16
            z.writestr(info, data)
    os.replace(tmp, wheel_path)
    print(wheel_path)


if __name__ == "__main__":
    main()
