"""Colours and chip marks.

The seed colours are red, blue, green and yellow (Kids) and green, blue, red (Dice). Blue,
green and yellow are the Okabe-Ito shades (blue, bluish green, yellow), chosen to stay apart
for the common colour-vision deficiencies. Okabe-Ito's "vermillion" looks orange to a child
who is told it is red, so red is a true red (hue 0), darker than the green: under simulated
deuteranopia and protanopia it stays 45 and 36 CIE Lab units from the green (the vermillion:
53 and 37, but only 33 from the yellow), and in greyscale its luma is 60 against the green's
106 (the vermillion's 119 was 13 away). Every colour also has its own white (or, on yellow,
dark) mark, so a board still reads in greyscale:

    red: heart   blue: square   green: triangle   yellow: star

A team shares a colour and so a mark. Unknown colour names fall back to a neutral grey
chip with a ring mark rather than failing. The free corners carry an outlined sun, a mark no
chip has: they once had a star, and a child could not tell "free" from "yellow's".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

RGB = tuple[int, int, int]
Mark = Literal["heart", "square", "triangle", "star", "ring", "sun"]


@dataclass(frozen=True)
class ChipStyle:
    """How one colour's chips look: body colour, the mark on it and the mark's colour."""

    fill: RGB
    mark: Mark
    mark_colour: RGB


WHITE: RGB = (255, 255, 255)
INK: RGB = (34, 34, 38)  # text and outlines: near-black, softer on a phone
MUTED: RGB = (96, 96, 104)  # secondary text (coordinates, counts)

CHIPS: dict[str, ChipStyle] = {
    "red": ChipStyle((200, 0, 0), "heart", WHITE),
    "blue": ChipStyle((0, 114, 178), "square", WHITE),
    "green": ChipStyle((0, 158, 115), "triangle", WHITE),
    "yellow": ChipStyle((240, 228, 66), "star", INK),
}
UNKNOWN_CHIP = ChipStyle((128, 128, 128), "ring", WHITE)
FREE_MARK: Mark = "sun"  # on the free corners: unlike every chip's mark


def chip_style(colour: str) -> ChipStyle:
    """The style of a colour name from an observation (``obs["colours"]``)."""
    return CHIPS.get(colour, UNKNOWN_CHIP)


# The board: a warm paper background and slightly lighter spaces, so the pictures and the
# chips carry the colour.
BACKGROUND: RGB = (244, 239, 226)
SPACE: RGB = (255, 252, 244)
SPACE_EDGE: RGB = (200, 190, 170)
FREE_SPACE: RGB = (232, 226, 210)
DICE_SPACE: RGB = (250, 248, 240)
TURN_BAND: RGB = (255, 236, 179)  # behind the legend row of the player to move

# Highlights. They must read without colour too: the last move is a thick black and white
# frame, the winning line a thick gold frame with a black edge plus a line through it, and a
# removed chip a dashed ring in its colour with a black cross.
LAST_MOVE: RGB = INK
LAST_MOVE_INNER: RGB = WHITE
WIN: RGB = (255, 176, 0)
REMOVED_CROSS: RGB = INK

# Card frames in the hand.
CARD_FACE: RGB = (255, 253, 248)
CARD_EDGE: RGB = (150, 140, 120)
UNICORN_EDGE: RGB = (170, 80, 200)
UNICORN_FACE: RGB = (248, 236, 252)
DRAGON_EDGE: RGB = (170, 30, 30)
DRAGON_FACE: RGB = (252, 234, 230)
DEAD_SHADE: RGB = (120, 120, 120)
