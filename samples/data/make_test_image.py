#!/usr/bin/env python3
"""Writes samples/data/blur_test.png: a 512x384 colour test card made procedurally (no download),
with what a blur visibly changes: 1-pixel stripes and checks, a zone plate (rings whose spacing
shrinks to one pixel), sharp-edged shapes, small and large text, and smooth gradients it should
leave alone.

    python3 samples/data/make_test_image.py [output.png]

Deterministic: the same OpenCV drawing calls give the same pixels, so the committed PNG can be
regenerated and compared.
"""
import os
import sys

import numpy as np
import cv2

W, H = 512, 384


def make():
    y, x = np.mgrid[0:H, 0:W].astype(np.float32)
    img = np.empty((H, W, 3), np.uint8)
    # Background: blue-to-orange diagonal gradient (smooth: blur hardly changes it).
    t = (x / (W - 1) * 0.7 + y / (H - 1) * 0.3)
    img[..., 0] = (200 * (1 - t) + 30 * t).astype(np.uint8)   # B
    img[..., 1] = (90 + 80 * np.sin(np.pi * t)).astype(np.uint8)
    img[..., 2] = (40 * (1 - t) + 230 * t).astype(np.uint8)   # R

    # Fine patterns, top row: vertical stripes, horizontal stripes, 2x2 checks (period 2 and 4 px).
    def patch(x0, y0, w, h, pattern):
        img[y0:y0 + h, x0:x0 + w] = pattern[..., None] * np.uint8(255)
    yy, xx = np.mgrid[0:96, 0:96]
    patch(16, 16, 96, 96, ((xx // 1) % 2).astype(np.uint8))              # 1-px vertical stripes
    patch(128, 16, 96, 96, ((yy // 2) % 2).astype(np.uint8))             # 2-px horizontal stripes
    patch(240, 16, 96, 96, (((xx // 2) + (yy // 2)) % 2).astype(np.uint8))  # 2-px checks

    # Zone plate: cos(k r^2), rings down to the pixel pitch at the rim.
    cx, cy, r = 424, 64, 48
    zy, zx = np.mgrid[-r:r, -r:r].astype(np.float32)
    rr = zx * zx + zy * zy
    zone = 0.5 + 0.5 * np.cos(np.pi * rr / (2 * r))
    inside = rr < r * r
    region = img[cy - r:cy + r, cx - r:cx + r]
    region[inside] = (zone[inside, None] * np.array([255, 255, 255])).astype(np.uint8)

    # Sharp-edged shapes in saturated colours.
    cv2.rectangle(img, (16, 136), (136, 236), (0, 0, 255), -1)
    cv2.circle(img, (206, 186), 50, (0, 220, 0), -1)
    cv2.fillPoly(img, [np.array([[272, 236], [332, 136], [392, 236]], np.int32)], (255, 0, 0))
    cv2.ellipse(img, (450, 186), (44, 26), 30, 0, 360, (0, 255, 255), -1)
    for i in range(8):                       # thin lines of increasing width
        cv2.line(img, (16 + 12 * i, 250), (16 + 12 * i, 290), (255, 255, 255), 1 + i // 3)

    # Text, small (blur makes it unreadable) and large.
    cv2.putText(img, "cudaimage", (130, 290), cv2.FONT_HERSHEY_DUPLEX, 1.6, (255, 255, 255), 2, cv2.LINE_AA)
    cv2.putText(img, "test card 512x384, fine print 0123456789",
                (16, 320), cv2.FONT_HERSHEY_PLAIN, 1.0, (0, 0, 0), 1, cv2.LINE_8)
    cv2.putText(img, "sigma=2 smooths stripes, checks, rings and this line",
                (16, 340), cv2.FONT_HERSHEY_PLAIN, 1.0, (255, 255, 255), 1, cv2.LINE_8)

    # Single-pixel dots on a dark strip (a blurred dot becomes the kernel's own shape).
    img[352:376, 16:496] = 20
    img[364, 24:496:16] = 255
    return img


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "blur_test.png")
    img = make()
    if not cv2.imwrite(out, img, [cv2.IMWRITE_PNG_COMPRESSION, 9]):
        sys.exit("cannot write %s" % out)
    print("wrote %s: %dx%d, %d bytes" % (out, img.shape[1], img.shape[0], os.path.getsize(out)))


if __name__ == "__main__":
    main()
