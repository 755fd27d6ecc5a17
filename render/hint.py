"""A board for ``/sequence hint``: the suggested space carries the choice picture's mark
"1" (a magenta ring and a numbered badge, round the chip when a chip is to be taken away),
so a hint reads like a choice with one answer: "play Lion on 1"."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.action import Action

from .board import Highlight, board_canvas
from .encode import png_bytes
from .geometry import geometry_for
from .marks import draw_space_mark

HINT_CELL = 56  # a nudge, smaller than the board message


def hint_png(obs: Mapping[str, Any], action: str, *, names: Sequence[str], lang: str = "en",
             cell: int = HINT_CELL, number: int = 1) -> bytes | None:
    """The board of ``obs`` with ``action``'s space marked ``number`` (the number that
    space has on the card's choice picture); None for a move with no space (a roll, a
    pass, a dead-card exchange)."""
    space = Action.parse(action).space
    geo = geometry_for(obs, cell)
    index = geo.index(space) if space else None
    if index is None:
        return None
    canvas = board_canvas({**obs, "last": None}, names=names, lang=lang,
                          highlight=Highlight(), cell=cell)
    draw_space_mark(canvas, geo, index, number, around_chip=obs["board"][index] is not None)
    return png_bytes(canvas.image)
