"""Numbered marks on spaces: how a child who cannot read matches "the 2 on the picture" to
"the 2 on the button".

A mark is a bright magenta ring round the space (or, when the space's chip is the one to
take away, round that chip, so the chip stays in sight) and a magenta badge with a white
number in the space's bottom-right corner. Magenta is no chip colour, not the gold of a
winning line nor the black and white of the last move, so a mark never reads as a chip or
a highlight. The choice picture and the hint share it.

Read on a phone: the number's ink is at least ``MIN_DIGIT_PX`` tall in the picture as
sent (issue 25: 22 px, with two to spare for rounding), so the badge is about half a space
across. It is a rounded square like the keycap emoji on the buttons (1️⃣, 2️⃣), the
smallest shape that holds a digit that tall; two digits are drawn a little narrower so
"38" needs a badge only a little wider than "3". It sits in the bottom-right corner: the
animals face left, so their heads stay in sight (the hips and tails go under the badge),
and the number of a Dice space, in the middle, loses only its lower-right corner. It
reaches no further than the gap between spaces, so the ring of a neighbour marked after it
never paints over it.
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

MIN_DIGIT_PX = 24  # the digits' ink, top to bottom: issue 25 asks for at least 22
DIGIT_OF_CELL = 0.4  # on a bigger board the digits grow with the spaces
DIGIT_CAP = 0.729  # DejaVu Sans Bold: a digit's ink is this fraction of the font size
SQUEEZE = 0.74  # two or more digits are drawn this much narrower, still plainly digits
TRACKING = 0.06  # the gap between two digits, of the digit height (the font's is wider)


def digit_height(cell: int) -> int:
    """How tall the digits' ink is on a board of ``cell``-pixel spaces."""
    return max(MIN_DIGIT_PX, round(cell * DIGIT_OF_CELL))


@lru_cache(maxsize=256)
def _digits(text: str, height: int) -> Image.Image:
    """``text`` as an 'L' mask cropped to its ink, the ink ``height`` pixels tall; two
    digits and more set close and squeezed. Do not modify it."""
    size = round(height / DIGIT_CAP)
    glyphs: list[tuple[Image.Image, int]] = []  # each digit's ink and how far down it starts
    for char in text:
        mask = Image.new("L", (size * 2, size * 2), 0)
        with text_lock:
            ImageDraw.Draw(mask).text((size // 2, size // 2), char, fill=255,
                                      font=font(size, True))
        box = mask.getbbox() or (0, 0, 1, 1)
        glyphs.append((mask.crop(box), box[1]))
    top = min(y for _m, y in glyphs)
    tall = max(y + m.height for m, y in glyphs) - top
    gap = round(height * TRACKING)
    out = Image.new("L", (sum(m.width for m, _y in glyphs) + gap * (len(glyphs) - 1), tall), 0)
    x = 0
    for mask, y in glyphs:
        out.paste(mask, (x, y - top))  # on the font's own line: a round 3 dips below a 1
        x += mask.width + gap
    if len(text) > 1:
        out = out.resize((round(out.width * SQUEEZE), out.height), Image.Resampling.LANCZOS)
    return out


def badge_height(cell: int) -> int:
    """The badge's height: the digits with a third of their height of room round them."""
    return round(digit_height(cell) * 4 / 3)


def _edge(height: int) -> int:
    """The dark edge round the badge (so it stands out on a pale space and a chip alike)."""
    return max(1, round(height * 0.06))


def badge_width(cell: int, number: int) -> int:
    """The badge's width: square for one digit, as wide as the digits need for more."""
    h = badge_height(cell)
    ink = _digits(str(number), digit_height(cell) * SUPERSAMPLE).width / SUPERSAMPLE
    return max(h, round(ink) + 2 * (_edge(h) + 2))  # 2 px of magenta beside the digits


@lru_cache(maxsize=256)
def number_badge(number: int, cell: int) -> Image.Image:
    """The magenta badge with ``number`` in white for spaces of ``cell`` pixels, as RGBA.
    Drawn four times as big and scaled down, for smooth edges. Do not modify it."""
    w, h = badge_width(cell, number) * SUPERSAMPLE, badge_height(cell) * SUPERSAMPLE
    out = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    draw = ImageDraw.Draw(out)
    edge = _edge(h // SUPERSAMPLE) * SUPERSAMPLE
    radius = h // 4
    draw.rounded_rectangle((0, 0, w - 1, h - 1), radius=radius, fill=pal.INK)
    draw.rounded_rectangle((edge, edge, w - 1 - edge, h - 1 - edge), radius=radius - edge,
                           fill=MARK)
    digits = _digits(str(number), digit_height(cell) * SUPERSAMPLE)
    white = Image.new("RGBA", digits.size, (*MARK_NUMBER, 255))
    out.paste(white, ((w - digits.width) // 2, (h - digits.height) // 2), digits)
    return out.resize((w // SUPERSAMPLE, h // SUPERSAMPLE), Image.Resampling.BOX)


def draw_space_mark(canvas: Canvas, geo: Geometry, index: int, number: int, *,
                    around_chip: bool) -> None:
    """Mark the space ``index`` with ``number``: a ring round the space, or round its chip
    when ``around_chip`` (the chip to be removed stays visible), and the numbered badge in
    the space's bottom-right corner."""
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
    bx0, by0, _bx1, _by1 = badge_box(geo, index, number)
    canvas.paste(("mark", number, c), lambda: number_badge(number, c), (bx0, by0), pal.SPACE)


def ring_width(cell: int) -> int:
    return max(3, round(cell * 0.08))


def chip_ring_radius(geo: Geometry) -> float:
    """The outer radius of the ring round a chip to be removed: just clear of the chip."""
    return geo.chip_diameter / 2 + ring_width(geo.cell) + 1


def badge_box(geo: Geometry, index: int, number: int) -> tuple[int, int, int, int]:
    """Where the badge of space ``index`` numbered ``number`` is drawn (left, top, right,
    bottom; right/bottom exclusive): in the space's bottom-right corner, reaching a pixel
    into the gap between spaces and no further (a neighbour's ring starts at the next)."""
    _x0, _y0, x1, y1 = geo.box(index)
    w, h = badge_width(geo.cell, number), badge_height(geo.cell)
    return x1 + 1 - w, y1 + 1 - h, x1 + 1, y1 + 1
