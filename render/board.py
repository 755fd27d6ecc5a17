"""The board picture, drawn from an observation (``Game.observation(None)`` or a seat's).

Two layers. The static layer (background, spaces with their pictures, coordinates, the
empty legend panel) and its palette are drawn once per (game, language, cell size, legend
rows) and cached. Each move copies it and adds only what changes: the chips, the
highlights and the legend. The result is mapped to the cached palette and written as a
palette PNG.

The PNG bytes of the newest positions are kept too (``BOARD_CACHE_SIZE``, keyed by a digest
of the observation, names, language, highlight and cell size): the same position is drawn
again after a restart (recovery), by ``/sequence board``, at the end of a game; from the
cache it costs a digest instead of a drawing and a zlib pass (docs/COST.md).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from PIL import Image, ImageDraw

from . import palette as pal
from .canvas import Canvas, Layer
from .chips import chip, draw_mark
from .dice_faces import die
from .encode import make_palette, png_bytes
from .geometry import COLUMNS, DEFAULT_CELL, Geometry
from .geometry import geometry_for as geometry_for  # still here for render.rules
from .labels import paste_text
from .legend import draw_legend
from .marks import MARK
from .sprites import sprite
from .text import safe_name
from .words import t

SPRITE_FRACTION = 0.8  # of a space: big pictures, a little paper round them


@dataclass(frozen=True)
class Highlight:
    """What to mark on top of the chips. Space names like ``"B3"``.

    ``last``: the space a chip was just placed on; ``removed``: a space a chip was just
    taken from (a Dragon, a dice 10, or a replaced chip), drawn as a crossed ring in
    ``removed_colour``; ``winning_line``: the spaces of the winning sequence.
    """

    last: str | None = None
    removed: str | None = None
    removed_colour: str | None = None
    winning_line: tuple[str, ...] = ()

    @classmethod
    def from_observation(cls, obs: Mapping[str, Any]) -> Highlight:
        """The default: the observation's last move and winning line."""
        last = obs.get("last") or {}
        removed_side = last.get("removed_side")
        colours = obs.get("colours") or []
        removed_colour = (colours[removed_side] if isinstance(removed_side, int)
                          and 0 <= removed_side < len(colours) else None)
        return cls(last=last.get("placed"), removed=last.get("removed"),
                   removed_colour=removed_colour,
                   winning_line=tuple(obs.get("winning_line") or ()))


# -- the static layer --------------------------------------------------------------------


_base_lock = threading.Lock()
_bases: dict[tuple[Geometry, tuple[str, ...], str], Layer] = {}

EXACT_COLOURS: tuple[pal.RGB, ...] = (
    *(style.fill for style in pal.CHIPS.values()), pal.UNKNOWN_CHIP.fill,
    pal.WHITE, pal.INK, pal.MUTED, pal.BACKGROUND, pal.SPACE, pal.SPACE_EDGE,
    pal.FREE_SPACE, pal.DICE_SPACE, pal.TURN_BAND, pal.WIN, MARK,
)


def base_for(geo: Geometry, layout: Sequence[str], lang: str) -> Layer:
    """The cached static layer for this geometry, layout and language (built once)."""
    key = (geo, tuple(layout), lang)
    with _base_lock:
        base = _bases.get(key)
        if base is None:
            image = draw_static(geo, layout, lang)
            base = Layer(image, _palette_for(image, geo))
            _bases[key] = base
        return base


def _palette_for(image: Image.Image, geo: Geometry) -> Image.Image:
    """A palette for boards on this layer."""
    return make_palette(palette_sample(image, geo), EXACT_COLOURS)


def palette_sample(image: Image.Image, geo: Geometry) -> Image.Image:
    """What a layer's palette is cut from: the layer itself plus every chip on paper, so
    the chips' smooth edges map well too."""
    d = geo.chip_diameter
    colours = list(pal.CHIPS)
    sample = Image.new("RGB", (image.width, image.height + d), pal.SPACE)
    sample.paste(image, (0, 0))
    for i, colour in enumerate(colours):
        c = chip(colour, d)
        sample.paste(c, (i * d, image.height), c)
    return sample


def draw_static(geo: Geometry, layout: Sequence[str], lang: str) -> Image.Image:
    """The board without chips, marks or names: coordinates, spaces and the legend's paper
    (RGB); ``base_for`` keeps one per geometry, layout and language."""
    image = Image.new("RGB", geo.size, pal.BACKGROUND)
    draw = ImageDraw.Draw(image)
    c = geo.cell
    coord_size = round(c * 0.22)
    for col in range(geo.width):
        x0, y0, x1, _ = geo.box(col)
        paste_text(image, COLUMNS[col], (x0 + x1) / 2, geo.margin + geo.gutter / 2,
                   coord_size, pal.MUTED, bold=True, align="centre")
    for row in range(geo.height):
        x0, y0, _, y1 = geo.box(row * geo.width)
        paste_text(image, str(row + 1), geo.margin + geo.gutter / 2, (y0 + y1) / 2,
                   coord_size, pal.MUTED, bold=True, align="centre")
    for index, picture in enumerate(layout):
        x0, y0, x1, y1 = geo.box(index)
        inset = max(1, round(c * 0.03))
        rect = (x0 + inset, y0 + inset, x1 - inset - 1, y1 - inset - 1)
        if geo.game == "kids":
            draw_kids_space(image, draw, rect, picture, lang)
        else:
            draw_dice_space(image, draw, rect, picture)
    if not geo.legend:
        return image
    # The legend panel.
    top = geo.legend_top
    draw.rounded_rectangle((geo.margin, top, geo.size[0] - geo.margin - 1,
                            geo.size[1] - geo.margin - 1), radius=round(c * 0.12),
                           fill=pal.SPACE, outline=pal.SPACE_EDGE, width=2)
    return image


def draw_kids_space(image: Image.Image, draw: ImageDraw.ImageDraw,
                    rect: tuple[int, int, int, int], picture: str, lang: str) -> None:
    """One space of the Kids board: its animal, or a free corner (the sun and the word)."""
    x0, y0, x1, y1 = rect
    size = x1 - x0
    radius = round(size * 0.12)
    if picture == "free":
        draw.rounded_rectangle(rect, radius=radius, fill=pal.FREE_SPACE, outline=pal.SPACE_EDGE,
                               width=2)
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        # An outlined sun (no chip's mark) and the word: the corner counts for everyone.
        draw_mark(draw, pal.FREE_MARK, cx, cy - size * 0.1, size * 0.5, pal.SPACE_EDGE)
        paste_text(image, t("picture.free", lang), cx, y1 - size * 0.16, round(size * 0.17),
                   pal.MUTED, bold=True, align="centre", max_width=size - 6)
        return
    draw.rounded_rectangle(rect, radius=radius, fill=pal.SPACE, outline=pal.SPACE_EDGE, width=2)
    pic = sprite(picture, round(size * SPRITE_FRACTION))
    image.paste(pic, (x0 + (size - pic.width) // 2, y0 + (size - pic.height) // 2), pic)


def draw_dice_space(image: Image.Image, draw: ImageDraw.ImageDraw,
                    rect: tuple[int, int, int, int], picture: str) -> None:
    """One space of the Dice board: its number (and on 2 and 12, the dice of the box)."""
    x0, y0, x1, y1 = rect
    size = x1 - x0
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    draw.rounded_rectangle(rect, radius=round(size * 0.12), fill=pal.DICE_SPACE,
                           outline=pal.SPACE_EDGE, width=2)
    if picture in ("2", "12"):  # the real board shows 1-1 and 6-6
        # Kept inside the chip's circle, so a chip on the space hides them cleanly.
        face = 1 if picture == "2" else 6
        d = die(face, round(size * 0.29))
        gap = round(size * 0.03)
        y = round(cy - size * 0.07)
        image.paste(d, (round(cx - gap / 2 - d.width), y), d)
        image.paste(d, (round(cx + gap / 2), y), d)
        paste_text(image, picture, cx, cy - size * 0.24, round(size * 0.24), pal.INK,
                   bold=True, align="centre")
    else:
        paste_text(image, picture, cx, cy, round(size * 0.46), pal.INK, bold=True,
                   align="centre")


# -- per move ----------------------------------------------------------------------------


def board_image(obs: Mapping[str, Any], *, names: Sequence[str], lang: str = "en",
                highlight: Highlight | None = None, cell: int = DEFAULT_CELL) -> Image.Image:
    """The board as a palette ('P') image. ``names``: the display name of each seat."""
    return board_canvas(obs, names=names, lang=lang, highlight=highlight, cell=cell).image


def board_canvas(obs: Mapping[str, Any], *, names: Sequence[str], lang: str = "en",
                 highlight: Highlight | None = None, cell: int = DEFAULT_CELL) -> Canvas:
    """The board with its legend, as a canvas a caller may still draw on (the hint's mark)."""
    geo = geometry_for(obs, cell)
    hl = highlight if highlight is not None else Highlight.from_observation(obs)
    canvas = position_canvas(obs, geo, lang, hl)
    seat_names = [safe_name(names[s] if s < len(names) else "", t("picture.player", lang, n=s + 1))
                  for s in range(int(obs["seats"]))]
    draw_legend(canvas, geo, obs, seat_names, lang)
    return canvas


def position_canvas(obs: Mapping[str, Any], geo: Geometry, lang: str,
                    hl: Highlight) -> Canvas:
    """The position alone on ``geo``'s cached static layer: the winning line, the chips and
    the highlights, no legend. Every board picture (the board, the hint, the choice) starts
    here, so they all draw a position the same way."""
    canvas = Canvas(base_for(geo, obs["layout"], lang))
    colours: list[str] = list(obs.get("colours") or [])

    _draw_winning_line(canvas, geo, hl.winning_line)
    d = geo.chip_diameter
    for index, side in enumerate(obs["board"]):
        if side is None or not (0 <= side < len(colours)):
            continue
        cx, cy = geo.centre(index)
        colour = colours[side]
        canvas.paste(("chip", colour, d), lambda c=colour: chip(c, d),  # type: ignore[misc]
                     (cx - d // 2, cy - d // 2), pal.SPACE)
    for space in hl.winning_line:
        _frame(canvas, geo, space, pal.WIN, pal.INK)
    if hl.removed:
        _draw_removed(canvas, geo, hl.removed, hl.removed_colour,
                      small=hl.removed == hl.last)
    if hl.last:
        _frame(canvas, geo, hl.last, pal.LAST_MOVE, pal.LAST_MOVE_INNER)
    return canvas


BOARD_CACHE_SIZE = 64  # the newest boards, about 45 KiB each: a few MiB at most

_png_lock = threading.Lock()
_pngs: OrderedDict[bytes, bytes] = OrderedDict()


def board_png(obs: Mapping[str, Any], *, names: Sequence[str], lang: str = "en",
              highlight: Highlight | None = None, cell: int = DEFAULT_CELL) -> bytes:
    """The board as PNG bytes. ``highlight`` defaults to the observation's last move,
    removed chip and winning line. A position drawn lately is not drawn again."""
    key = _board_key(obs, names, lang, highlight, cell)
    with _png_lock:
        png = _pngs.get(key)
        if png is not None:
            _pngs.move_to_end(key)
            return png
    png = png_bytes(board_image(obs, names=names, lang=lang, highlight=highlight, cell=cell))
    with _png_lock:
        _pngs[key] = png
        while len(_pngs) > BOARD_CACHE_SIZE:
            _pngs.popitem(last=False)
    return png


def clear_board_cache(*, bases: bool = False) -> None:
    """Forget every cached board picture: the next board is drawn as a new position is
    (the bench's measure of a move). ``bases``: forget the drawn bases too (tests; a font
    or sprite changed), so the next board is drawn from nothing."""
    with _png_lock:
        _pngs.clear()
    if bases:
        with _base_lock:
            _bases.clear()


def boards_cached() -> int:
    """How many board pictures the cache holds now (at most ``BOARD_CACHE_SIZE``)."""
    with _png_lock:
        return len(_pngs)


def _board_key(obs: Mapping[str, Any], names: Sequence[str], lang: str,
               highlight: Highlight | None, cell: int) -> bytes:
    """A digest of everything the picture depends on. ``default=repr`` keeps any value
    that JSON cannot hold (a tuple is a list either way) in the key."""
    text = json.dumps([obs, list(names), lang, repr(highlight), cell], sort_keys=True,
                      separators=(",", ":"), default=repr)
    return hashlib.blake2b(text.encode(), digest_size=20).digest()


def _frame(canvas: Canvas, geo: Geometry, space: str, outer: pal.RGB,
           inner: pal.RGB) -> None:
    draw = canvas.draw
    index = geo.index(space)
    if index is None:
        return
    x0, y0, x1, y1 = geo.box(index)
    w = max(2, round(geo.cell * 0.07))
    radius = round(geo.cell * 0.12)
    draw.rounded_rectangle((x0 + 1, y0 + 1, x1 - 2, y1 - 2), radius=radius,
                           outline=canvas.ink(outer), width=w)
    iw = max(1, w // 2)
    draw.rounded_rectangle((x0 + 1 + w, y0 + 1 + w, x1 - 2 - w, y1 - 2 - w),
                           radius=max(0, radius - w), outline=canvas.ink(inner), width=iw)


def _draw_winning_line(canvas: Canvas, geo: Geometry, spaces: Sequence[str]) -> None:
    """A thick gold line under the chips from one end of the winning line to the other."""
    indices = sorted(i for i in (geo.index(s) for s in spaces) if i is not None)
    if len(indices) < 2:
        return
    start, end = geo.centre(indices[0]), geo.centre(indices[-1])
    canvas.draw.line((start, end), fill=canvas.ink(pal.INK), width=round(geo.cell * 0.22))
    canvas.draw.line((start, end), fill=canvas.ink(pal.WIN), width=round(geo.cell * 0.14))


def _draw_removed(canvas: Canvas, geo: Geometry, space: str, colour: str | None, *,
                  small: bool) -> None:
    """A dashed ring in the removed chip's colour with a black cross through it. When a new
    chip now sits on the space (a replacement), the mark goes small in the corner."""
    draw = canvas.draw
    index = geo.index(space)
    if index is None:
        return
    _x0, y0, x1, _y1 = geo.box(index)
    cx, cy = geo.centre(index)
    r = geo.chip_diameter / 2 * 0.92
    if small:
        r = geo.cell * 0.16
        cx, cy = round(x1 - r - geo.cell * 0.06), round(y0 + r + geo.cell * 0.06)
        draw.ellipse((cx - r - 2, cy - r - 2, cx + r + 2, cy + r + 2),
                     fill=canvas.ink(pal.WHITE))
    fill = canvas.ink(pal.chip_style(colour or "").fill)
    w = max(2, round(geo.cell * (0.04 if small else 0.08)))
    box = (cx - r, cy - r, cx + r, cy + r)
    for k in range(12):  # dashes
        draw.arc(box, k * 30, k * 30 + 20, fill=fill, width=w)
    # The cross has a white halo so it stands out on a busy picture.
    a = r * 0.62
    cw = max(2, round(geo.cell * (0.045 if small else 0.075)))
    halo, cross = canvas.ink(pal.WHITE), canvas.ink(pal.REMOVED_CROSS)
    for colour_index, width in ((halo, cw + 4), (cross, cw)):
        draw.line((cx - a, cy - a, cx + a, cy + a), fill=colour_index, width=width)
        draw.line((cx - a, cy + a, cx + a, cy - a), fill=colour_index, width=width)
