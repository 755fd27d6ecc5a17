"""Fonts and safe player names (the words themselves are in ``render.words``).

Fonts come from ``data/fonts/`` (DejaVu Sans, committed with its licence) so a fresh
machine needs no system fonts; the system copy and then Pillow's built-in font are
fallbacks. Player names may be long, non-Latin or full of emoji: ``safe_name`` drops what
the font cannot draw and ``fit`` shortens with an ellipsis, so nothing ever overflows or
raises.
"""

from __future__ import annotations

import logging
import threading
import unicodedata
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from PIL import ImageFont

log = logging.getLogger(__name__)

FONT_DIR = Path(__file__).resolve().parent.parent / "data" / "fonts"
SYSTEM_DIR = Path("/usr/share/fonts/truetype/dejavu")
ELLIPSIS = "…"

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont

# FreeType faces are shared between threads; Pillow does not serialise their use, so every
# text measurement or drawing that may run in a worker thread holds this lock.
text_lock = threading.RLock()


@lru_cache(maxsize=64)
def font(size: int, bold: bool = False) -> Font:
    """DejaVu Sans (bold) at ``size`` pixels; never raises."""
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    for folder in (FONT_DIR, SYSTEM_DIR):
        path = folder / name
        if path.exists():
            try:
                return ImageFont.truetype(str(path), size)
            except OSError:  # a damaged file: try the next place
                log.warning("cannot load font %s", path)
    log.warning("DejaVu Sans not found; using Pillow's default font")
    return ImageFont.load_default(size)


def text_width(text: str, f: Font) -> float:
    with text_lock:
        return f.getlength(text)


# -- names -------------------------------------------------------------------------------

_NOTDEF_PROBE = "\U0010fffd"  # a private-use code point no font draws


@lru_cache(maxsize=4096)
def _has_glyph(char: str) -> bool:
    """Whether DejaVu draws ``char`` (a missing glyph renders as the .notdef box)."""
    f = font(20)
    if not isinstance(f, ImageFont.FreeTypeFont):
        return char.isascii()
    with text_lock:
        probe = f.getmask(_NOTDEF_PROBE)
        mask = f.getmask(char)
        same = (probe.size == mask.size and bytes(probe) == bytes(mask)
                and f.getlength(char) == f.getlength(_NOTDEF_PROBE))
    return not same


def safe_name(name: str, fallback: str) -> str:
    """``name`` with only what the font can draw.

    Emoji and other symbols the font lacks are dropped; letters it lacks (e.g. Chinese)
    become ``?`` so the name keeps its length; control characters and runs of spaces go.
    An empty result gives ``fallback``.
    """
    out: list[str] = []
    for char in unicodedata.normalize("NFC", str(name)):
        if char in "\t\n\r":
            char = " "
        cat = unicodedata.category(char)
        if cat in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
            continue  # controls, joiners, variation selectors, surrogates, unassigned
        if cat.startswith("Z"):
            char = " "
        elif cat.startswith("M") and not _has_glyph(char):
            continue  # a lone combining mark or emoji modifier
        elif not _has_glyph(char):
            if cat.startswith("S"):
                continue  # emoji and pictographs
            char = "?"
        if char == " " and (not out or out[-1] == " "):
            continue
        out.append(char)
    cleaned = "".join(out).strip()
    return cleaned if cleaned.strip("?") else fallback


def fit(text: str, f: Font, max_width: float) -> str:
    """``text``, shortened with an ellipsis if it is wider than ``max_width`` pixels."""
    if text_width(text, f) <= max_width:
        return text
    return cut(text, lambda shown: text_width(shown, f) <= max_width)


def cut(text: str, fits: Callable[[str], bool]) -> str:
    """The longest prefix of ``text`` followed by an ellipsis that ``fits`` accepts (a bare
    ellipsis if none does)."""
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(text[:mid].rstrip() + ELLIPSIS):
            lo = mid
        else:
            hi = mid - 1
    return text[:lo].rstrip() + ELLIPSIS if lo else ELLIPSIS
