"""The choice picture: a small board with every space a player may pick marked by a
number, for the moment after a card is chosen (or the dice are rolled). A child matches
"the 2 on the picture" to "the 2 on the button"; the coordinate is only a parent's hint.

Small, for a phone: the whole board at about 60% of the board message's size, no legend
(the board message above it already says who is who), the marks from ``render.marks``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .board import Highlight, position_canvas
from .encode import png_bytes
from .geometry import geometry_for
from .marks import draw_space_mark
from .roll_strip import with_roll
from .words import t

CHOICE_CELL = 60  # 392 px wide: a phone 400 px wide never shrinks it, marks' digits stay 24 px
ALT_LIMIT = 1024  # Discord's limit for an attachment's description


def choice_png(obs: Mapping[str, Any], spaces: Sequence[str], *,
               names: Sequence[str] | None = None, lang: str = "en",
               removing: bool = False, dice: Sequence[int] = ()) -> bytes:
    """The board of ``obs`` (Kids or Dice) with ``spaces[i]`` marked ``i + 1``.

    ``removing``: the spaces are chips to take away (a Dragon, a Dice 10), so each mark
    rings the chip and leaves it in sight. A space with a chip is ringed that way anyway
    (a Dice roll that replaces a chip). Spaces not on the board are skipped, keeping the
    others' numbers. ``names`` is accepted for the same call as ``board_png``; the small
    picture has no legend, so it does not use them. ``dice``: a Dice roll, drawn as two
    dice above the board (``render.roll_strip``)."""
    del names  # no legend on the small board (see the module docstring)
    geo = geometry_for(obs, CHOICE_CELL, legend=False)
    canvas = position_canvas(obs, geo, lang, Highlight())
    board: Sequence[int | None] = obs["board"]
    for number, space in enumerate(spaces, start=1):
        index = geo.index(space)
        if index is None:
            continue
        draw_space_mark(canvas, geo, index, number,
                        around_chip=removing or board[index] is not None)
    return png_bytes(with_roll(canvas.image, dice) if dice else canvas.image)


def choice_alt(spaces: Sequence[str], lang: str, *, removing: bool = False) -> str:
    """What the marks are, in words: "Board with the possible spaces numbered: 1 = B3,
    2 = C7" (or the chips that can be removed), at most 1024 characters."""
    pairs = ", ".join(f"{n} = {space.strip().upper()}" for n, space in enumerate(spaces, 1))
    text = t("alt.choice.remove" if removing else "alt.choice.place", lang, spaces=pairs)
    if len(text) <= ALT_LIMIT:
        return text
    return text[: ALT_LIMIT - 1].rstrip(", ") + "…"
