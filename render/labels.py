"""Text as cached masks: measured and rasterised once per (text, size, weight), then pasted
in any colour. Text layout is most of the cost of a full redraw, and the same names and
words come back on every move."""

from __future__ import annotations

from functools import lru_cache

from PIL import Image, ImageDraw

from .palette import RGB
from .text import fit, font, text_lock


@lru_cache(maxsize=2048)
def label(text: str, size: int, bold: bool = False) -> Image.Image:
    """``text`` as an 'L' mask, as tall as the font's ascent + descent, tightly as wide as
    the ink. Do not modify the returned image."""
    f = font(size, bold)
    with text_lock:
        ascent, descent = f.getmetrics() if hasattr(f, "getmetrics") else (size, 0)
        left, _top, right, _bottom = f.getbbox(text or " ", anchor="la")
        mask = Image.new("L", (max(1, int(right - left) + 2), int(ascent + descent) + 2), 0)
        ImageDraw.Draw(mask).text((1 - left, 1), text, fill=255, font=f, anchor="la")
    return mask


@lru_cache(maxsize=2048)
def fitted(text: str, size: int, bold: bool, max_width: int) -> str:
    """``text`` shortened with an ellipsis to ``max_width`` pixels (cached)."""
    return fit(text, font(size, bold), max_width)


def paste_text(image: Image.Image, text: str, x: float, cy: float, size: int, colour: RGB, *,
               bold: bool = False, max_width: int | None = None, align: str = "left") -> int:
    """Draw ``text`` with its left (or right/centre, per ``align``) edge at ``x`` and its
    line centred on ``cy``; shorten it to ``max_width``. Returns the drawn width."""
    if max_width is not None:
        text = fitted(text, size, bold, max_width)
    mask = label(text, size, bold)
    w, h = mask.size
    if align == "right":
        x -= w
    elif align == "centre":
        x -= w / 2
    left, top = round(x), round(cy - h / 2)
    image.paste(colour, (left, top, left + w, top + h), mask)
    return w
