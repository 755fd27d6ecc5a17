"""Chips: a disc in the side's colour carrying that colour's mark (see ``palette``).

Each chip is drawn once per (colour, diameter) at four times the size and scaled down, so
its edges are smooth. It is deliberately flat (no shading): flat colour is what keeps a
board PNG small; boards then only paste these small RGBA images.
"""

from __future__ import annotations

import math
from functools import lru_cache

from PIL import Image, ImageDraw

from .palette import RGB, ChipStyle, Mark, chip_style

SUPERSAMPLE = 4


def _darker(rgb: RGB, factor: float = 0.55) -> RGB:
    r, g, b = rgb
    return (int(r * factor), int(g * factor), int(b * factor))


def _star(cx: float, cy: float, outer: float, inner: float) -> list[tuple[float, float]]:
    points = []
    for k in range(10):
        radius = outer if k % 2 == 0 else inner
        angle = -math.pi / 2 + k * math.pi / 5
        points.append((cx + radius * math.cos(angle), cy + radius * math.sin(angle)))
    return points


def draw_mark(draw: ImageDraw.ImageDraw, mark: Mark, cx: float, cy: float, size: float,
              colour: RGB) -> None:
    """Draw ``mark`` centred on (cx, cy), about ``size`` across."""
    h = size / 2
    if mark == "square":
        s = h * 0.82
        draw.rectangle((cx - s, cy - s, cx + s, cy + s), fill=colour)
    elif mark == "triangle":
        draw.polygon([(cx, cy - h * 1.05), (cx + h * 1.05, cy + h * 0.8),
                      (cx - h * 1.05, cy + h * 0.8)], fill=colour)
    elif mark == "star":
        draw.polygon(_star(cx, cy + h * 0.08, h * 1.12, h * 0.48), fill=colour)
    elif mark == "heart":
        r = h * 0.52
        top = cy - h * 0.35
        draw.ellipse((cx - 2 * r, top - r, cx, top + r), fill=colour)
        draw.ellipse((cx, top - r, cx + 2 * r, top + r), fill=colour)
        draw.polygon([(cx - 2 * r + r * 0.06, top + r * 0.35), (cx + 2 * r - r * 0.06,
                      top + r * 0.35), (cx, cy + h * 0.98)], fill=colour)
    elif mark == "sun":
        # Outlined, like a drawing of the sun: a ring and eight rays.
        w = max(1.0, h * 0.2)
        r = h * 0.48
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), outline=colour, width=round(w))
        for k in range(8):
            a = k * math.pi / 4
            dx, dy = math.cos(a), math.sin(a)
            draw.line((cx + dx * h * 0.72, cy + dy * h * 0.72, cx + dx * h * 1.05,
                       cy + dy * h * 1.05), fill=colour, width=round(w))
    else:  # ring
        w = max(1.0, h * 0.3)
        draw.ellipse((cx - h, cy - h, cx + h, cy + h), outline=colour, width=round(w))


@lru_cache(maxsize=64)
def chip(colour: str, diameter: int) -> Image.Image:
    """A chip of ``colour`` (a name from the observation) as an RGBA image. Do not modify."""
    style: ChipStyle = chip_style(colour)
    big = diameter * SUPERSAMPLE
    out = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    draw = ImageDraw.Draw(out)
    edge = max(SUPERSAMPLE, round(big * 0.045))
    draw.ellipse((0, 0, big - 1, big - 1), fill=_darker(style.fill))
    draw.ellipse((edge, edge, big - 1 - edge, big - 1 - edge), fill=style.fill)
    draw_mark(draw, style.mark, big / 2, big / 2, big * 0.44, style.mark_colour)
    # BOX (area average) smooths the edge without LANCZOS's ringing: fewer distinct
    # colours, so smaller PNGs, and no visible difference at this size.
    return out.resize((diameter, diameter), Image.Resampling.BOX)
