"""Sequence Dice: the number board (decisions: docs/RULES-MAP.md)."""

from __future__ import annotations

WIDTH = 6
HEIGHT = 6
SPACES = WIDTH * HEIGHT

LAYOUT: tuple[int, ...] = (
    2, 3, 4, 5, 6, 2,
    6, 7, 8, 9, 7, 3,
    5, 9, 12, 12, 8, 4,
    4, 8, 12, 12, 9, 5,
    3, 7, 9, 8, 7, 6,
    2, 6, 5, 4, 3, 2,
)  # fmt: skip
FULL_MASK = (1 << SPACES) - 1
# For each total 0..12, the bitmask of its spaces (empty for 0, 1, 10 and 11).
NUMBER_SPACES: tuple[int, ...] = tuple(
    sum(1 << i for i, n in enumerate(LAYOUT) if n == total) for total in range(13)
)
# A 10 may never take a chip off a 2 or a 12.
PROTECTED_MASK = NUMBER_SPACES[2] | NUMBER_SPACES[12]

COLOURS = ("green", "blue", "red")
MAX_TURNS = 500
