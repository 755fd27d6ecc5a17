"""Dice drawn with Pillow primitives: the 1-1 and 6-6 pictures on the 2 and 12 spaces of
the Sequence Dice board, and the last roll in the legend."""

from __future__ import annotations

from functools import lru_cache

from PIL import Image, ImageDraw

from .palette import INK, WHITE

_PIPS: dict[int, tuple[tuple[int, int], ...]] = {
    1: ((1, 1),),
    2: ((0, 0), (2, 2)),
    3: ((0, 0), (1, 1), (2, 2)),
    4: ((0, 0), (2, 0), (0, 2), (2, 2)),
    5: ((0, 0), (2, 0), (1, 1), (0, 2), (2, 2)),
    6: ((0, 0), (2, 0), (0, 1), (2, 1), (0, 2), (2, 2)),
}


@lru_cache(maxsize=64)
def die(value: int, size: int) -> Image.Image:
    """One die showing ``value`` (1-6) as an RGBA square of ``size`` pixels. Do not modify."""
    scale = 4
    big = size * scale
    out = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    draw = ImageDraw.Draw(out)
    edge = max(scale, round(big * 0.05))
    draw.rounded_rectangle((0, 0, big - 1, big - 1), radius=big // 5, fill=INK)
    draw.rounded_rectangle((edge, edge, big - 1 - edge, big - 1 - edge),
                           radius=big // 5 - edge, fill=WHITE)
    pip = big * 0.11
    for col, row in _PIPS.get(value, ()):
        cx = big * (0.27 + 0.23 * col)
        cy = big * (0.27 + 0.23 * row)
        draw.ellipse((cx - pip, cy - pip, cx + pip, cy + pip), fill=INK)
    return out.resize((size, size), Image.Resampling.LANCZOS)
