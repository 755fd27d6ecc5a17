"""The pictures' looks, for another screen that draws the same game: the Activity's page.

One source of truth: the page shows the very spaces, chips, dice and cards the board and
hand pictures are made of, drawn here by the same functions (``board.draw_kids_space``,
``chips.chip``, ``dice_faces.die``, ``hand.card_face``), and takes its colours (the last
move's frame, the winning line's gold, the choices' magenta, each colour's mark) from
``palette`` and ``marks`` as JSON. Nothing is drawn twice in two ways.

Every picture is PNG bytes, cached: a page asks for a few dozen once and its browser keeps
them.
"""

from __future__ import annotations

import io
import threading
from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw

from . import palette as pal
from .board import draw_dice_space, draw_kids_space
from .chips import chip
from .dice_faces import die
from .hand import CARD_H, CARD_W, CARDS, card_face
from .marks import MARK

SPACE_PX = 160  # a space's picture (shown at about 50-100 CSS px, on screens of 2x-3x)
CHIP_PX = 128
DIE_PX = 128
KIDS_PICTURES = (*CARDS[:19], "free")  # what a Kids space shows: an animal, or free
DICE_PICTURES = tuple(str(n) for n in range(2, 13))
_draw_lock = threading.Lock()  # (the text drawing underneath is not thread-safe)


def hex_of(rgb: pal.RGB) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def palette() -> dict[str, Any]:
    """The colours and marks, as JSON: each chip colour's fill, mark and mark colour;
    the board's paper, the highlights (the last move's black-and-white frame, the winning
    line's gold, a removed chip's cross, the choices' magenta); the cards the Kids game
    has, and the sizes of the pictures below."""
    return {
        "chips": {name: {"fill": hex_of(s.fill), "mark": s.mark,
                         "mark_colour": hex_of(s.mark_colour)}
                  for name, s in pal.CHIPS.items()},
        "board": {
            "background": hex_of(pal.BACKGROUND),
            "space": hex_of(pal.SPACE),
            "space_edge": hex_of(pal.SPACE_EDGE),
            "ink": hex_of(pal.INK),
            "muted": hex_of(pal.MUTED),
            "turn": hex_of(pal.TURN_BAND),
            "last_move": hex_of(pal.LAST_MOVE),
            "last_move_inner": hex_of(pal.LAST_MOVE_INNER),
            "win": hex_of(pal.WIN),
            "removed": hex_of(pal.REMOVED_CROSS),
            "choice": hex_of(MARK),
            "dead": hex_of(pal.DEAD_SHADE),
            "unicorn": hex_of(pal.UNICORN_EDGE),
            "dragon": hex_of(pal.DRAGON_EDGE),
        },
        "free_mark": pal.FREE_MARK,
        "cards": list(CARDS),
        "card_size": [CARD_W, CARD_H],
    }


#: zlib level 6, not ``optimize=True`` (level 9 and a search of the filters): the 31 board
#: pictures a page warms at each start took 0.38 CPU-s that way against 0.06 s, for 113 against
#: 122 KB once in a browser that keeps them.
LOOKS_COMPRESS_LEVEL = 6


def _png(image: Image.Image) -> bytes:
    buf = io.BytesIO()
    image.save(buf, format="PNG", compress_level=LOOKS_COMPRESS_LEVEL)
    return buf.getvalue()


@lru_cache(maxsize=96)
def space_png(game: str, picture: str, lang: str = "en") -> bytes:
    """One space of a board as the board picture draws it (``picture``: an animal or
    ``free`` in Kids, a number in Dice); ``ValueError`` for a picture the game has not."""
    if (game, picture) not in _SPACES:
        raise ValueError(f"no {game} space {picture!r}")
    image = Image.new("RGBA", (SPACE_PX, SPACE_PX), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    rect = (0, 0, SPACE_PX - 1, SPACE_PX - 1)
    with _draw_lock:
        if game == "kids":
            draw_kids_space(image, draw, rect, picture, lang)
        else:
            draw_dice_space(image, draw, rect, picture)
    return _png(image)


@lru_cache(maxsize=16)
def chip_png(colour: str) -> bytes:
    """A chip of ``colour`` (a palette colour name), as the board shows it."""
    if colour not in pal.CHIPS:
        raise ValueError(f"no chip colour {colour!r}")
    return _png(chip(colour, CHIP_PX))


@lru_cache(maxsize=8)
def die_png(value: int) -> bytes:
    """One die showing ``value`` (1 to 6)."""
    if value not in range(1, 7):
        raise ValueError(f"no die face {value!r}")
    return _png(die(value, DIE_PX))


@lru_cache(maxsize=128)
def card_png(card: str, dead: bool, lang: str) -> bytes:
    """One Kids card as the hand picture draws it (a dead card greyed and crossed)."""
    if card not in CARDS:
        raise ValueError(f"no card {card!r}")
    with _draw_lock:
        face = card_face(card, dead, lang)
    return _png(face)


_SPACES = {("kids", p) for p in KIDS_PICTURES} | {("dice", p) for p in DICE_PICTURES}
