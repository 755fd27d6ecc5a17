"""Colour-vision simulation, to check that boards read for colour-blind players.

Machado, Oliveira and Fernandes (2009) matrices at full severity, applied in linear RGB;
greyscale is Rec. 601 luma. Used by ``tools/colour_check.py`` and the tests, not by the
bot.
"""

from __future__ import annotations

from typing import Literal

from PIL import Image

from .palette import RGB

Vision = Literal["protanopia", "deuteranopia", "tritanopia", "greyscale"]

MATRICES: dict[str, tuple[tuple[float, float, float], ...]] = {
    "protanopia": ((0.152286, 1.052583, -0.204868),
                   (0.114503, 0.786281, 0.099216),
                   (-0.003882, -0.048116, 1.051998)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968),
                     (0.280085, 0.672501, 0.047413),
                     (-0.011820, 0.042940, 0.968881)),
    "tritanopia": ((1.255528, -0.076749, -0.178779),
                   (-0.078411, 0.930809, 0.148602),
                   (0.004733, 0.691367, 0.303900)),
}  # fmt: skip


def _to_linear(v: float) -> float:
    v /= 255
    return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4


def _to_srgb(v: float) -> float:
    v = min(1.0, max(0.0, v))
    v = 12.92 * v if v <= 0.0031308 else 1.055 * v ** (1 / 2.4) - 0.055
    return v * 255


def simulate_colour(rgb: RGB, vision: Vision) -> RGB:
    """How one colour looks with ``vision``."""
    r, g, b = rgb
    if vision == "greyscale":
        y = round(0.299 * r + 0.587 * g + 0.114 * b)
        return (y, y, y)
    lin = [_to_linear(c) for c in rgb]
    m = MATRICES[vision]
    out = [sum(m[i][j] * lin[j] for j in range(3)) for i in range(3)]
    sr, sg, sb = (round(_to_srgb(c)) for c in out)
    return (sr, sg, sb)


def simulate(image: Image.Image, vision: Vision) -> Image.Image:
    """``image`` (any mode) as seen with ``vision``, in RGB."""
    rgb = image.convert("RGB")
    if vision == "greyscale":
        return rgb.convert("L").convert("RGB")
    # Linearise with a lookup table, mix the channels, and go back to sRGB.
    to_lin = [round(_to_linear(v) * 255) for v in range(256)] * 3
    to_srgb = [round(_to_srgb(v / 255)) for v in range(256)] * 3
    m = MATRICES[vision]
    matrix = (*m[0], 0.0, *m[1], 0.0, *m[2], 0.0)
    return rgb.point(to_lin).convert("RGB", matrix).point(to_srgb)


def lab(rgb: RGB) -> tuple[float, float, float]:
    """CIE L*a*b* (D65) of an sRGB colour."""
    r, g, b = (_to_linear(c) for c in rgb)
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    fx, fy, fz = f(x), f(y), f(z)
    return (116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))


def delta_e(a: RGB, b: RGB) -> float:
    """How different two colours look (CIE76: distance in L*a*b*; about 2 is just
    noticeable, over 30 is plainly a different colour)."""
    la, lb = lab(a), lab(b)
    return float(sum((p - q) ** 2 for p, q in zip(la, lb, strict=True)) ** 0.5)
