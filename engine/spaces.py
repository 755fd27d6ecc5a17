"""Spaces and lines on a rectangular board.

A space is an index ``row * width + col``; its name is the column letter then the row
number, ``A1`` top-left. A line is a bitmask (Python int) of ``length`` spaces in a straight
row, column or diagonal. Win checks only look at the lines through the space that changed.
"""

from __future__ import annotations

import re
from functools import cache

from .errors import IllegalAction

_SPACE_RE = re.compile(r"^\s*([A-Za-z])\s*([0-9]{1,2})\s*$")


def space_name(index: int, width: int) -> str:
    """>>> space_name(0, 6), space_name(13, 6)
    ('A1', 'B3')
    """
    row, col = divmod(index, width)
    return f"{chr(ord('A') + col)}{row + 1}"


def parse_space(text: str, width: int, height: int) -> int:
    """Parse ``B3`` (any case, spaces around) into an index.

    >>> parse_space(" b3 ", 6, 7)
    13
    """
    m = _SPACE_RE.match(text)
    if not m:
        raise IllegalAction("bad_space", f"{text.strip()!r} is not a space like B3.", space=text)
    col = ord(m.group(1).upper()) - ord("A")
    row = int(m.group(2)) - 1
    if not (0 <= col < width and 0 <= row < height):
        last = f"{chr(ord('A') + width - 1)}{height}"
        raise IllegalAction(
            "space_off_board",
            f"{m.group(1).upper()}{row + 1} is not on the board (A1 to {last}).",
            space=f"{m.group(1).upper()}{row + 1}",
            last=last,
        )
    return row * width + col


@cache
def lines(width: int, height: int, length: int) -> tuple[int, ...]:
    """Every straight line of ``length`` adjacent spaces, as bitmasks."""
    out: list[int] = []
    for row in range(height):
        for col in range(width):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                end_r, end_c = row + dr * (length - 1), col + dc * (length - 1)
                if not (0 <= end_r < height and 0 <= end_c < width):
                    continue
                mask = 0
                for k in range(length):
                    mask |= 1 << ((row + dr * k) * width + col + dc * k)
                out.append(mask)
    return tuple(out)


@cache
def lines_through(width: int, height: int, length: int) -> tuple[tuple[int, ...], ...]:
    """For each space, the lines that contain it."""
    all_lines = lines(width, height, length)
    return tuple(
        tuple(m for m in all_lines if m >> s & 1) for s in range(width * height)
    )


def bits(mask: int) -> list[int]:
    """The indices of the set bits, lowest first.

    >>> bits(0b1010_0000_0001)
    [0, 9, 11]

    Eight bits at a time through a table: a Unicorn on an empty board has 38 spaces, and
    this sits in the move generator.
    """
    out: list[int] = []
    offset = 0
    while mask:
        byte = mask & 255
        if byte:
            out += _BYTE_BITS[offset][byte]
        mask >>= 8
        offset += 1
    return out


def _byte_bits(offset: int) -> tuple[tuple[int, ...], ...]:
    return tuple(
        tuple(offset * 8 + i for i in range(8) if byte >> i & 1) for byte in range(256)
    )


_BYTE_BITS = tuple(_byte_bits(k) for k in range(8))  # boards up to 64 spaces
