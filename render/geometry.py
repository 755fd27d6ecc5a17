"""Where everything sits on a board picture: the spaces, the coordinates and the legend
under the board. Its own module because the board and its legend both measure with it
(the board draws the spaces, the legend the players' slots), and neither owns the other.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

DEFAULT_CELL = 88
COLUMNS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


@dataclass(frozen=True)
class Geometry:
    """Where everything is on a board picture of one game kind and size."""

    game: str
    width: int
    height: int
    cell: int
    seats: int
    legend: bool = True  # False: the board alone (the small choice picture)

    @property
    def margin(self) -> int:
        return round(self.cell * 0.12)

    @property
    def gutter(self) -> int:  # room for the coordinates
        return round(self.cell * 0.3)

    @property
    def left(self) -> int:
        return self.margin + self.gutter

    @property
    def top(self) -> int:
        return self.margin + self.gutter

    @property
    def legend_top(self) -> int:
        return self.top + self.height * self.cell + self.margin

    @property
    def header_rows(self) -> int:
        """Dice has a second header row: the last roll, with whose it was, in words."""
        return 2 if self.game == "dice" else 1

    @property
    def header_row_height(self) -> int:
        return round(self.cell * 0.6)

    @property
    def header_height(self) -> int:
        return self.header_rows * self.header_row_height - (self.header_rows - 1) * round(
            self.cell * 0.1)

    def header_centre(self, row: int) -> float:
        """The y of the middle of header row ``row`` (0: whose turn; 1: the last roll)."""
        return (self.legend_top + self.header_row_height / 2 + self.cell * 0.03
                + row * (self.header_row_height - round(self.cell * 0.1)))

    @property
    def row_height(self) -> int:
        return round(self.cell * 0.56)

    @property
    def legend_rows(self) -> int:
        return (self.seats + 1) // 2  # two players per row

    @property
    def size(self) -> tuple[int, int]:
        w = self.left + self.width * self.cell + self.margin
        if not self.legend:
            return w, self.legend_top
        h = (self.legend_top + self.header_height + self.legend_rows * self.row_height
             + self.margin)
        return w, h

    @property
    def chip_diameter(self) -> int:
        return round(self.cell * 0.72)

    def index(self, space: str) -> int | None:
        """The index of a space name, or None if it is not on this board."""
        space = space.strip().upper()
        if len(space) < 2 or not space[1:].isdigit():
            return None
        col, row = ord(space[0]) - ord("A"), int(space[1:]) - 1
        if 0 <= col < self.width and 0 <= row < self.height:
            return row * self.width + col
        return None

    def box(self, index: int) -> tuple[int, int, int, int]:
        """The pixel box of a space (left, top, right, bottom), right/bottom exclusive."""
        row, col = divmod(index, self.width)
        x, y = self.left + col * self.cell, self.top + row * self.cell
        return x, y, x + self.cell, y + self.cell

    def centre(self, index: int) -> tuple[int, int]:
        x0, y0, x1, y1 = self.box(index)
        return (x0 + x1) // 2, (y0 + y1) // 2

    def slot(self, seat: int) -> tuple[int, int, int, int]:
        """The legend box of a seat: two per row, in seat order."""
        inner = self.width * self.cell + self.gutter
        half = inner // 2
        row, col = divmod(seat, 2)
        x0 = self.margin + col * half
        y0 = self.legend_top + self.header_height + row * self.row_height
        return x0, y0, x0 + half - (self.margin // 2 if col == 0 else 0), y0 + self.row_height


def geometry_for(obs: Mapping[str, Any], cell: int = DEFAULT_CELL, *,
                 legend: bool = True) -> Geometry:
    return Geometry(str(obs["game"]), int(obs["width"]), int(obs["height"]), cell,
                    max(1, int(obs["seats"])), legend)
