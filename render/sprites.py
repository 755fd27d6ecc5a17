"""The animal pictures (``data/sprites/<card>.png``, made by ``tools/make_sprites.py``).

Loaded once and scaled per size on first use; the cache is guarded by a lock because the
caller renders from worker threads. A missing file never fails a render: the card's name
stands in for the picture.
"""

from __future__ import annotations

import logging
import threading
from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageDraw

from .palette import INK
from .text import font, text_lock

log = logging.getLogger(__name__)

SPRITE_DIR = Path(__file__).resolve().parent.parent / "data" / "sprites"

_lock = threading.Lock()
_originals: dict[str, Image.Image] = {}


def _original(card: str) -> Image.Image | None:
    with _lock:
        if card not in _originals:
            path = SPRITE_DIR / f"{card}.png"
            try:
                with Image.open(path) as im:
                    _originals[card] = im.convert("RGBA")
            except OSError:
                log.warning("no sprite for %r at %s", card, path)
                return None
        return _originals[card]


# Colours per picture. The emoji have soft gradients and soft edges that cost many PNG
# bytes on every board (measured: 72 KiB -> 47 KiB for a mid-game Kids board); a dozen flat
# shades and a crisp edge look the same to a child at this size.
SPRITE_COLOURS = 12


def _flatten(image: Image.Image, colours: int) -> Image.Image:
    """``image`` reduced to ``colours`` flat shades with an on/off edge."""
    alpha = image.getchannel("A").point(lambda v: 255 if v >= 128 else 0)
    flat = image.convert("RGB").quantize(colors=colours, method=Image.Quantize.MEDIANCUT,
                                         dither=Image.Dither.NONE).convert("RGBA")
    flat.putalpha(alpha)
    return flat


@lru_cache(maxsize=256)
def sprite(card: str, size: int, colours: int = SPRITE_COLOURS) -> Image.Image:
    """The picture of ``card`` as an RGBA square of ``size`` pixels, flattened to
    ``colours`` shades (0: keep every colour). Do not modify it."""
    original = _original(card)
    if original is not None:
        scaled = original.resize((size, size), Image.Resampling.LANCZOS)
        return _flatten(scaled, colours) if colours else scaled
    # Fallback: the word in a box, so a missing file shows rather than crashes.
    out = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    draw = ImageDraw.Draw(out)
    draw.rounded_rectangle((1, 1, size - 2, size - 2), radius=size // 8, outline=INK, width=2)
    with text_lock:
        draw.text((size / 2, size / 2), card[:8], fill=INK, font=font(max(8, size // 6)),
                  anchor="mm")
    return out
