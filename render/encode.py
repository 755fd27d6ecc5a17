"""PNG encoding with a fixed palette.

A board has a few hundred distinct colours that matter (the pictures, chips, text). Each
static layer gets its own 256-colour palette once (median cut of the layer, plus the exact
chip, highlight and text colours), and every board drawn over that layer is mapped to it
without dithering. A palette PNG is about a fifth of the bytes of an RGB one.

zlib level: measured on a mid-game Kids board (bench/render_bench.py, this machine):
level 4 5.1 ms / 39.7 KiB, level 5 5.8 ms / 37.8 KiB, level 6 9.4 ms / 35.4 KiB,
level 9 (what ``optimize=True`` forces) 61 ms / 33 KiB. The pictures are detailed, and
level 6's longer match search costs 60% more time for 6% fewer bytes.

Level 2 since issue 19: encoding was a third of the bot's CPU per move (the board, the
mover's hand and the numbered choice, each once a move; docs/COST.md). Measured on those
three pictures in one run (``python -m bench cost``): level 5 took 6.3 ms and 71 KiB a
move, level 2 takes 3.2 ms and 83 KiB (ratio 0.55 in time, +17% in bytes; level 1 saves
only 0.1 ms more for 5% more bytes). A few KiB more to upload is nothing next to a
rate-limited request; the CPU is what a busy bot runs out of.
"""

from __future__ import annotations

import io
from collections.abc import Iterable

from PIL import Image

from .palette import RGB

COMPRESS_LEVEL = 2
PALETTE_SIZE = 255  # one index left free: the GIF replay uses it for "unchanged"


def make_palette(sample: Image.Image, exact: Iterable[RGB],
                 size: int = PALETTE_SIZE) -> Image.Image:
    """A 'P' image holding a ``size``-colour palette: ``exact`` colours first, then the
    median cut of ``sample`` for the rest."""
    fixed: list[RGB] = list(dict.fromkeys(exact))
    spare = size - len(fixed)
    cut = sample.convert("RGB").quantize(colors=spare, method=Image.Quantize.MEDIANCUT,
                                         dither=Image.Dither.NONE)
    flat = cut.getpalette() or []
    colours = [c for rgb in fixed for c in rgb] + flat[: spare * 3]
    holder = Image.new("P", (1, 1))
    holder.putpalette(colours)
    return holder


def to_palette(image: Image.Image, palette: Image.Image) -> Image.Image:
    """``image`` mapped to ``palette`` (nearest colour, no dithering)."""
    return image.convert("RGB").quantize(palette=palette, dither=Image.Dither.NONE)


def png_bytes(image: Image.Image) -> bytes:
    """PNG bytes at ``COMPRESS_LEVEL``. Deterministic: no time stamps or text chunks."""
    buf = io.BytesIO()
    image.save(buf, format="PNG", compress_level=COMPRESS_LEVEL)
    return buf.getvalue()
