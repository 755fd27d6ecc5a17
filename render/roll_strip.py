"""The roll above a Sequence Dice choice picture: the two dice and their total.

The roller's choice is the one place the roll is shown to them before they move (the
channel's board names it after the move), so the dice are drawn as dice, "⚅ + ⚂ = 9",
above the numbered spaces: a child who cannot add yet still sees the two faces they
rolled. Drawn on the board picture's own palette, so the picture is never quantised.
"""

from __future__ import annotations

from collections.abc import Sequence

from PIL import Image

from . import palette as pal
from .dice_faces import die
from .encode import to_palette
from .labels import label

STRIP_SHARE = 0.18  # the strip's height, of the board picture's width
DIE_SHARE = 0.72  # a die's size, of the strip's height


def with_roll(board: Image.Image, roll: Sequence[int]) -> Image.Image:
    """``board`` (a palette picture) under a strip showing ``roll``'s two dice and their
    total, centred. A board that is not a palette picture, or a roll that is not two dice,
    comes back as it is."""
    if board.mode != "P" or len(roll) != 2:
        return board
    a, b = int(roll[0]), int(roll[1])
    width = board.width
    height = round(width * STRIP_SHARE)
    size = round(height * DIE_SHARE)
    text_size = round(size * 0.55)
    plus = label("+", text_size, True)
    total = label(f"= {a + b}", text_size, True)
    gap = round(size * 0.18)
    row = 2 * size + plus.width + total.width + 4 * gap
    strip = Image.new("RGB", (width, height), pal.BACKGROUND)
    x = (width - row) // 2
    top = (height - size) // 2
    for k, value in enumerate((a, b)):
        if k:
            strip.paste(pal.INK, (x, (height - plus.height) // 2), plus)
            x += plus.width + gap
        face = die(value, size)
        strip.paste(face, (x, top), face)
        x += size + gap
    strip.paste(pal.INK, (x, (height - total.height) // 2), total)
    out = Image.new("P", (width, height + board.height))
    out.putpalette(board.getpalette() or [])
    out.paste(to_palette(strip, board), (0, 0))
    out.paste(board, (0, height))
    return out
