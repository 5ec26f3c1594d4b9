"""Writes images/icon.png (128x128): a Pallas kernel grid with one failing block.

Pure Python (zlib + struct), so no image library is needed: `python3 scripts/make-icon.py`.
"""
import struct
import zlib
from pathlib import Path

W = H = 128
BG = (22, 44, 78)
TILE = (92, 156, 230)
BAD = (245, 130, 32)
MARK = (255, 255, 255)


def rounded(x, y, x0, y0, x1, y1, r):
    if not (x0 <= x < x1 and y0 <= y < y1):
        return False
    cx = min(max(x, x0 + r), x1 - 1 - r)
    cy = min(max(y, y0 + r), y1 - 1 - r)
    return (x - cx) ** 2 + (y - cy) ** 2 <= r * r


def pixel(x, y):
    if not rounded(x, y, 0, 0, W, H, 22):
        return (0, 0, 0, 0)
    n, gap, margin = 3, 8, 18
    size = (W - 2 * margin - (n - 1) * gap) // n
    for i in range(n):
        for j in range(n):
            x0 = margin + i * (size + gap)
            y0 = margin + j * (size + gap)
            if rounded(x, y, x0, y0, x0 + size, y0 + size, 5):
                if (i, j) == (2, 2):
                    # an exclamation mark on the failing block
                    cx = x0 + size // 2
                    if abs(x - cx) <= 2 and (y0 + 5 <= y <= y0 + size - 12 or y0 + size - 8 <= y <= y0 + size - 5):
                        return MARK + (255,)
                    return BAD + (255,)
                return TILE + (255,)
    return BG + (255,)


def png(width, height, rows):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    raw = b"".join(b"\x00" + bytes(c for px in row for c in px) for row in rows)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


out = Path(__file__).resolve().parent.parent / "images" / "icon.png"
out.parent.mkdir(exist_ok=True)
out.write_bytes(png(W, H, [[pixel(x, y) for x in range(W)] for y in range(H)]))
print(out)
