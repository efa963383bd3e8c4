#!/usr/bin/env python3
"""Compares PNG pictures with their references, within a small tolerance.

usage: compare.py NEW_DIR REF_DIR NAME...

Each NAME.png in NEW_DIR must have the size of NAME.png in REF_DIR, and its pixels
must match: a mean absolute difference of at most MEAN_TOLERANCE (0-255 scale) and at
most SPOT_TOLERANCE of the pixels differing by more than SPOT_LEVEL in a channel. This
absorbs anti-aliasing noise between librsvg and FreeType versions, not a changed
drawing. Only the standard library: the PNGs of rsvg-convert (8-bit RGB or RGBA, not
interlaced) are decoded here.
"""

from __future__ import annotations

import struct
import sys
import zlib
from pathlib import Path

MEAN_TOLERANCE = 1.5
SPOT_LEVEL = 64
SPOT_TOLERANCE = 0.005


def decode(path: Path) -> tuple[int, int, int, bytes]:
    """(width, height, channels, pixel rows without filter bytes)."""
    data = path.read_bytes()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG file")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    if header is None:
        raise ValueError(f"{path}: no IHDR chunk")
    width, height, depth, colour, _, _, interlace = header
    channels = {2: 3, 6: 4}.get(colour)
    if depth != 8 or channels is None or interlace:
        raise ValueError(f"{path}: only 8-bit RGB/RGBA non-interlaced PNGs are supported")
    raw = zlib.decompress(idat)
    stride = width * channels
    out = bytearray(height * stride)
    prev = bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 255
        out[y * stride : (y + 1) * stride] = line
        prev = line
    return width, height, channels, bytes(out)


def difference(new: Path, ref: Path) -> str | None:
    """None if the pictures match within the tolerance, else what differs."""
    if new.read_bytes() == ref.read_bytes():
        return None
    w1, h1, c1, p1 = decode(new)
    w2, h2, c2, p2 = decode(ref)
    if (w1, h1, c1) != (w2, h2, c2):
        return f"size {w1}x{h1}x{c1}, reference {w2}x{h2}x{c2}"
    total = 0
    spots = 0
    for i in range(0, len(p1), c1):
        d = max(abs(p1[i + k] - p2[i + k]) for k in range(c1))
        total += d
        spots += d > SPOT_LEVEL
    pixels = w1 * h1
    mean = total / pixels
    if mean > MEAN_TOLERANCE or spots > SPOT_TOLERANCE * pixels:
        return f"mean difference {mean:.2f} (max {MEAN_TOLERANCE}), {spots} pixels off by more than {SPOT_LEVEL} (max {int(SPOT_TOLERANCE * pixels)})"
    return None


def main() -> int:
    new_dir, ref_dir, names = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3:]
    failed = 0
    for name in names:
        new, ref = new_dir / f"{name}.png", ref_dir / f"{name}.png"
        if not ref.exists():
            print(f"{name}: no reference {ref}", file=sys.stderr)
            failed += 1
            continue
        why = difference(new, ref)
        if why:
            print(f"{name}: differs from {ref}: {why}", file=sys.stderr)
            failed += 1
        else:
            print(f"{name}: matches")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
