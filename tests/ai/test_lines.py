"""The bit-parallel winning-space finder agrees with the plain line-by-line definition."""

from __future__ import annotations

import random

import pytest

from engine.ai.lines import KIDS_BOARD, Board, dice_board, winning_spaces, winning_spaces_by_lines
from engine.kids_board import CORNER_MASK


def _random_boards(board: Board, count: int, seed: int) -> list[tuple[int, int]]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        mine = occupied = 0
        fill = rng.random()
        for space in range(board.spaces.bit_length()):
            if not board.spaces >> space & 1 or board.wild >> space & 1:
                continue
            x = rng.random()
            if x < fill * 0.6:
                mine |= 1 << space
            elif x < fill:
                occupied |= 1 << space
        out.append((mine, occupied | mine))
    return out


@pytest.mark.parametrize("board", [KIDS_BOARD, dice_board(5), dice_board(6)],
                         ids=["kids", "dice5", "dice6"])
def test_fast_winning_spaces_match_the_definition(board: Board) -> None:
    found = 0
    for mine, occupied in _random_boards(board, 3000, 7):
        wins = winning_spaces(board, mine, occupied)
        assert wins == winning_spaces_by_lines(board, mine, occupied)
        found += wins != 0
    assert found > 300  # the positions do have winning spaces to find


def test_a_free_corner_counts_for_the_line_but_is_never_a_winning_space() -> None:
    # Row 1: corner A1, chips on B1 and C1: D1 wins; the corner itself never does.
    mine = 0b0110
    assert winning_spaces(KIDS_BOARD, mine, mine) & 0b1000
    assert not winning_spaces(KIDS_BOARD, mine, mine) & CORNER_MASK
    # An opponent's chip on D1 kills the line.
    assert not winning_spaces(KIDS_BOARD, mine, mine | 0b1000) & 0b1000
