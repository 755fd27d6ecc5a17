"""Text as cached masks: measured and rasterised once per (text, size, weight), then pasted
in any colour. Text layout is most of the cost of a full redraw, and the same names and
words come back on every move."""

from __future__ import annotations

from functools import lru_cache

from PIL import Image, ImageDraw

from .palette import RGB
from .text import Font, cut, fit, font, text_lock, text_width


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


@lru_cache(maxsize=2048)
def fit_whole(text: str, layouts: tuple[tuple[int, int], ...], bold: bool,
              max_width: int) -> tuple[int, tuple[str, ...]] | None:
    """``text`` laid out whole within ``max_width`` pixels: the first of ``layouts`` (each a
    font size and a number of lines, 1 or 2) at which it fits, as (size, lines); one line
    before two at each size. Two lines break at the space that balances them best, so
    "Datamaskin (vanskelig)" keeps its level. None if it fits in none of them."""
    for size, lines in layouts:
        f = font(size, bold)
        if text_width(text, f) <= max_width:
            return size, (text,)
        if lines >= 2:
            split = _balanced_split(text, f, max_width)
            if split is not None:
                return size, split
    return None


@lru_cache(maxsize=2048)
def fit_lines(text: str, layouts: tuple[tuple[int, int], ...], bold: bool,
              max_width: int) -> tuple[int, tuple[str, ...]]:
    """Like ``fit_whole``, but if nothing fits, the last layout with the text cut by an
    ellipsis: on two lines, the first holds as many words as fit and the second the rest."""
    whole = fit_whole(text, layouts, bold, max_width)
    if whole is not None:
        return whole
    size, lines = layouts[-1]
    f = font(size, bold)
    words = text.split(" ")
    if lines >= 2 and len(words) > 1 and text_width(words[0], f) <= max_width:
        k = 1
        while k < len(words) - 1 and text_width(" ".join(words[:k + 1]), f) <= max_width:
            k += 1
        return size, (" ".join(words[:k]), fit(" ".join(words[k:]), f, max_width))
    return size, (fit(text, f, max_width),)


@lru_cache(maxsize=2048)
def fit_named(template: str, name: str, layouts: tuple[tuple[int, int], ...], bold: bool,
              max_width: int) -> tuple[int, tuple[str, ...]]:
    """``template.format(name=name)`` laid out like ``fit_whole``; if it fits in no layout,
    the name is shortened with an ellipsis and the template's own words ("Tur:", "'s turn")
    are kept, at the last layout if even a bare ellipsis does not fit."""
    whole = fit_whole(template.format(name=name), layouts, bold, max_width)
    if whole is not None:
        return whole
    shown = template.format(name=cut(name, lambda short: fit_whole(
        template.format(name=short), layouts, bold, max_width) is not None))
    return fit_whole(shown, layouts, bold, max_width) or (layouts[-1][0], (shown,))


def _balanced_split(text: str, f: Font, max_width: int) -> tuple[str, str] | None:
    """The two lines, broken at a space, whose wider line is narrowest; None if no break
    makes both fit."""
    best: tuple[float, tuple[str, str]] | None = None
    for i, char in enumerate(text):
        if char != " ":
            continue
        first, second = text[:i].rstrip(), text[i + 1:].lstrip()
        if not first or not second:
            continue
        wide = max(text_width(first, f), text_width(second, f))
        if wide <= max_width and (best is None or wide < best[0]):
            best = (wide, (first, second))
    return best[1] if best else None


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
