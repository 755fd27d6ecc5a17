"""A small board for ``/sequence hint``: the suggested space in a thick golden frame (a
chip to be taken away also crossed out), so a child sees where to play at a glance."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from PIL import ImageDraw

from . import palette as pal
from .board import Highlight, board_image, geometry_for
from .encode import png_bytes

HINT_CELL = 56  # a nudge, smaller than the board message


def hint_png(obs: Mapping[str, Any], action: str, *, names: Sequence[str], lang: str = "en",
             cell: int = HINT_CELL) -> bytes | None:
    """The board of ``obs`` with ``action``'s space framed; None for a move with no space
    (a roll, a pass, a dead-card exchange)."""
    space = action.partition("@")[2]
    geo = geometry_for(obs, cell)
    index = geo.index(space) if space else None
    if index is None:
        return None
    side = obs["board"][index]
    colours = list(obs.get("colours") or [])
    if side is not None:  # a Dragon, a 10, or a chip replaced: mark the one that goes
        colour = colours[side] if 0 <= side < len(colours) else None
        highlight = Highlight(removed=space, removed_colour=colour)
    else:
        highlight = Highlight()
    image = board_image({**obs, "last": None}, names=names, lang=lang, highlight=highlight,
                        cell=cell).convert("RGB")
    draw = ImageDraw.Draw(image)
    x0, y0, x1, y1 = geo.box(index)
    width = max(4, cell // 8)
    draw.rounded_rectangle((x0 - 1, y0 - 1, x1, y1), radius=cell // 8, outline=pal.WIN,
                           width=width)
    draw.rounded_rectangle((x0 + width - 1, y0 + width - 1, x1 - width, y1 - width),
                           radius=cell // 10, outline=pal.INK, width=1)
    return png_bytes(image)
