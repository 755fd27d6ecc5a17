"""Numbered marks on spaces: how a child who cannot read matches "the 2 on the picture" to
"the 2 on the button".

A mark is a bright magenta ring round the space (or, when the space's chip is the one to
take away, round that chip, so the chip stays in sight) and a magenta disc with a white
number in the space's top-left corner. Magenta is no chip colour, not the gold of a winning
line nor the black and white of the last move, so a mark never reads as a chip or a
highlight; the disc sits in the corner, where the pictures leave paper, so the animal or
the Dice number under it stays recognisable. The choice picture and the hint share it.
"""

from __future__ import annotations

from functools import lru_cache

from PIL import Image, ImageDraw

from . import palette as pal
from .canvas import Canvas
from .geometry import Geometry
from .text import font, text_lock

MARK: pal.RGB = (204, 0, 122)  # magenta: bright, and apart from every chip colour
MARK_NUMBER: pal.RGB = pal.WHITE
SUPERSAMPLE = 4


@lru_cache(maxsize=256)
def number_disc(number: int, diameter: int) -> Image.Image:
    """A magenta disc with ``number`` in white and a thin dark edge (so it stands out on a
    pale space and on a chip alike), as RGBA. Do not modify it."""
    big = diameter * SUPERSAMPLE
    out = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    draw = ImageDraw.Draw(out)
    edge = max(SUPERSAMPLE, round(big * 0.06))
    draw.ellipse((0, 0, big - 1, big - 1), fill=pal.INK)
    draw.ellipse((edge, edge, big - 1 - edge, big - 1 - edge), fill=MARK)
    text = str(number)
    # Two digits are set a little smaller so "38" fits the disc as well as "3" does.
    size = round(big * (0.66 if len(text) == 1 else 0.54))
    with text_lock:
        draw.text((big / 2, big / 2 + big * 0.02), text, fill=MARK_NUMBER,
                  font=font(size, True), anchor="mm")
    return out.resize((diameter, diameter), Image.Resampling.BOX)


def draw_space_mark(canvas: Canvas, geo: Geometry, index: int, number: int, *,
                    around_chip: bool) -> None:
    """Mark the space ``index`` with ``number``: a ring round the space, or round its chip
    when ``around_chip`` (the chip to be removed stays visible), and the numbered disc in
    the space's top-left corner."""
    c = geo.cell
    x0, y0, x1, y1 = geo.box(index)
    draw = canvas.draw
    w = ring_width(c)
    if around_chip:
        cx, cy = geo.centre(index)
        r = chip_ring_radius(geo)  # outside the chip: Pillow draws the width inwards
        draw.ellipse((cx - r - 1, cy - r - 1, cx + r + 1, cy + r + 1), outline=canvas.ink(pal.INK),
                     width=w + 2)
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), outline=canvas.ink(MARK), width=w)
    else:
        radius = round(c * 0.12)
        draw.rounded_rectangle((x0 + 1, y0 + 1, x1 - 2, y1 - 2), radius=radius,
                               outline=canvas.ink(MARK), width=w)
    d = disc_diameter(c)
    off = disc_offset(c)
    canvas.paste(("mark", number, d), lambda: number_disc(number, d), (x0 - off, y0 - off),
                 pal.SPACE)


def ring_width(cell: int) -> int:
    return max(3, round(cell * 0.08))


def chip_ring_radius(geo: Geometry) -> float:
    """The outer radius of the ring round a chip to be removed: just clear of the chip."""
    return geo.chip_diameter / 2 + ring_width(geo.cell) + 1


def disc_diameter(cell: int) -> int:
    """The numbered disc's size for a cell: under half a space, never too small to read."""
    return max(18, round(cell * 0.44))


def disc_centre(geo: Geometry, index: int) -> tuple[int, int]:
    """Where the numbered disc of space ``index`` is centred (for tests and callers)."""
    x0, y0, _x1, _y1 = geo.box(index)
    d, off = disc_diameter(geo.cell), disc_offset(geo.cell)
    return x0 - off + d // 2, y0 - off + d // 2


def disc_offset(cell: int) -> int:
    """How far the disc reaches past the space's corner: into the gap between spaces, off
    the "12" at the top of a Dice space and the middle where the pictures are."""
    return round(cell * 0.06)
