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

A palette's median cut looks at a thinned sample (every k-th pixel each way, about
``CUT_PIXELS`` of them): its time grows with the pixels, its choice of colours hardly. The
hands' sheet of every card (3864 x 448, 1.7 million pixels) took 0.41 CPU-s a language at
each process start (the bot's largest cost after its imports; 49 bot processes a test
run), against 0.03 s thinned, and the cards mapped to either palette stray from their true
colours by as little (1.12 against 1.11 per channel on average, of 255; a Kids board 0.05
against 0.04). ``tests/render/test_encode.py`` holds the hands and the boards to it.
"""

from __future__ import annotations

import io
import math
from collections.abc import Iterable

from PIL import Image

from .palette import RGB
from .png_bands import palette_png, writable

COMPRESS_LEVEL = 2
PALETTE_SIZE = 255  # one index left free: the GIF replay uses it for "unchanged"
CUT_PIXELS = 250_000


def thinned(sample: Image.Image, pixels: int = CUT_PIXELS) -> Image.Image:
    """``sample`` with every k-th pixel each way kept (true colours: no blending), k the
    least that leaves at most about ``pixels``; itself when it is that small already."""
    step = math.ceil(math.sqrt(sample.width * sample.height / pixels))
    if step <= 1:
        return sample
    size = (math.ceil(sample.width / step), math.ceil(sample.height / step))
    return sample.resize(size, Image.Resampling.NEAREST)


def make_palette(sample: Image.Image, exact: Iterable[RGB], size: int = PALETTE_SIZE,
                 pixels: int = CUT_PIXELS) -> Image.Image:
    """A 'P' image holding a ``size``-colour palette: ``exact`` colours first, then the
    median cut of ``sample`` (thinned to about ``pixels``) for the rest."""
    fixed: list[RGB] = list(dict.fromkeys(exact))
    spare = size - len(fixed)
    cut = thinned(sample.convert("RGB"), pixels).quantize(
        colors=spare, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    flat = cut.getpalette() or []
    colours = [c for rgb in fixed for c in rgb] + flat[: spare * 3]
    holder = Image.new("P", (1, 1))
    holder.putpalette(colours)
    return holder


def to_palette(image: Image.Image, palette: Image.Image) -> Image.Image:
    """``image`` mapped to ``palette`` (nearest colour, no dithering)."""
    return image.convert("RGB").quantize(palette=palette, dither=Image.Dither.NONE)


def png_bytes(image: Image.Image) -> bytes:
    """PNG bytes at ``COMPRESS_LEVEL``. Deterministic: no time stamps or text chunks.
    A palette picture's rows are deflated in bands, each band once for every picture
    that holds the same rows (``render.png_bands``)."""
    if writable(image):
        return palette_png(image, COMPRESS_LEVEL)
    buf = io.BytesIO()
    image.save(buf, format="PNG", compress_level=COMPRESS_LEVEL)
    return buf.getvalue()
