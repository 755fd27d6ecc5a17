"""Why a move is good, in words a child can follow: a reason code and its parameters.

The Discord layer turns an ``Explanation`` into one sentence in English or Norwegian
(the codes are listed in ``engine.ai``'s docstring). It looks only at the observation and
the action, so it explains any move, a computer player's or a person's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..action import Action
from ..dice import DiceGame
from ..game import Game
from ..kids import KidsGame
from ..kids_board import CARD_NUMBER, CORNER_MASK, DRAGON, UNICORN
from ..spaces import bits, parse_space, space_name
from .determinize import rebuild
from .lines import (
    KIDS_BOARD,
    Board,
    best_line_through,
    dice_board,
    in_a_row,
    popcount,
    winning_spaces,
)


@dataclass(frozen=True)
class Explanation:
    """A reason code (``completes_sequence``, ``blocks_line``...) and JSON-safe params."""

    code: str
    params: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "params": dict(self.params)}


def explain(obs: dict[str, Any], action: str) -> Explanation:
    """The main reason ``action`` is a good move for the seat to move in ``obs``."""
    act = Action.parse(action)
    text = act.text
    legal = obs.get("legal") or []
    if act.what == "pass" and act.space is None:
        if obs["game"] == "dice" and obs.get("dice"):
            return Explanation("no_move_for_roll", {"total": sum(obs["dice"])})
        return Explanation("no_playable_card")
    if act.what == "roll" and act.space is None:
        return Explanation("roll_dice")
    if act.dead:
        return Explanation("exchanges_dead_card", {"card": act.what})
    game = rebuild(obs)
    if isinstance(game, KidsGame):
        found = _explain_kids(game, obs, act)
    else:
        assert isinstance(game, DiceGame)
        found = _explain_dice(game, obs, act)
    if len(legal) == 1 and found.code not in ("completes_sequence", "blocks_line"):
        return Explanation("only_move", {"action": text})
    return found


def _side_info(game: Game, obs: dict[str, Any]) -> tuple[int, list[str]]:
    turn = obs["turn"] if obs["turn"] is not None else obs.get("seat") or 0
    return game.side_of[turn], list(obs["colours"])


def _shape(board: Board, space: int, mine: int, occupied: int) -> tuple[int, int, bool]:
    """The alive line through ``space`` where ``mine`` holds the most spaces: (count, line,
    whether those spaces are next to each other). Among lines of one count, one whose
    spaces touch is preferred: "3 in a row" is the plainer truth when both are true."""
    own = mine | board.wild
    blocked = occupied & ~mine
    best = (0, 0, False)
    for line in board.through[space]:
        if line & blocked:
            continue
        n = popcount(line & own)
        touching = in_a_row(line, own)
        if (n, touching) > best[::2]:
            best = (n, line, touching)
    return best


def _line_reason(board: Board, game: Game, space: int, side: int, colours: list[str],
                 placed_by: str, extra: dict[str, Any]) -> Explanation:
    """Why putting a chip of ``side`` on ``space``: win, block, or build. Every count named
    is "in a row" only when those chips touch; otherwise it is "N of the line's spaces"."""
    width = game.width
    bit = 1 << space
    chips = game.chips
    occ = game.occupied & ~bit  # a replaced chip no longer blocks
    mine = chips[side] & ~bit
    for line in board.through[space]:
        if (mine | bit | board.wild) & line == line:
            return Explanation("completes_sequence", {
                "line": [space_name(s, width) for s in bits(line)],
                "uses_corner": bool(line & board.wild & CORNER_MASK), **extra})
    # Someone else's winning space taken away: the strongest reason after winning.
    threat: tuple[int, int] | None = None
    for other, theirs in enumerate(chips):
        if other == side or not theirs & ~bit:
            continue
        theirs &= ~bit
        count, _ = best_line_through(board, space, theirs, occ)
        if (winning_spaces(board, theirs, occ) & bit) and (threat is None or count > threat[1]):
            threat = (other, count)
    if threat is not None:
        return Explanation("blocks_line", {"colour": colours[threat[0]],
                                           "length": board.length - 1, **extra})
    own, line, touching = _shape(board, space, mine | bit, occ | bit)
    their_best = (-1, 0, False)
    for other, theirs in enumerate(chips):
        if other != side:
            count, _, theirs_touch = _shape(board, space, theirs & ~bit, occ)
            if (count, theirs_touch) > their_best[1:]:
                their_best = (other, count, theirs_touch)
    if their_best[1] >= 2 and their_best[1] >= own:
        return Explanation("blocks_row" if their_best[2] else "blocks_spread",
                           {"colour": colours[their_best[0]], "length": their_best[1],
                            "size": board.length, **extra})
    params: dict[str, Any] = {"length": own, **extra}
    if board.wild:
        params["uses_corner"] = bool(line & board.wild)
    if own == 0:
        return Explanation("fills_space", params)  # every line through it is someone's
    if own == 1:
        return Explanation("starts_line", params)
    if not touching:
        return Explanation("fills_line", {**params, "size": board.length})
    if own == 2:
        partner = line & (mine | board.wild) & ~bit
        if partner & board.wild:
            return Explanation("starts_at_corner", params)
        return Explanation("joins_chip", {**params, "next_to": space_name(
            partner.bit_length() - 1, width)})
    if placed_by == "wild":
        return Explanation("wild_for_line", params)
    return Explanation("extends_line", params)


def _removal(board: Board, game: Game, space: int, colour: str | None,
             extra: dict[str, Any]) -> Explanation:
    """Why taking off the chip on ``space``: what it was part of, said only as true."""
    victim = next((o for o, c in enumerate(game.chips) if c >> space & 1), None)
    length, touching = 0, False
    if victim is not None:
        length, _, touching = _shape(board, space, game.chips[victim], game.occupied)
    params: dict[str, Any] = {"colour": colour, "length": length, **extra}
    if length <= 1:
        return Explanation("removes_chip", params)
    if touching:
        return Explanation("removes_threat", params)
    return Explanation("removes_from_line", {**params, "size": board.length})


def _explain_kids(game: KidsGame, obs: dict[str, Any], act: Action) -> Explanation:
    side, colours = _side_info(game, obs)
    card_text, where = act.what, act.space
    card = CARD_NUMBER.get(card_text)
    if card is None or not where:
        return Explanation("only_move", {"action": act.text})
    space = parse_space(where, game.width, game.height)
    name = space_name(space, game.width)
    if card == DRAGON:
        victim = next((o for o, c in enumerate(game.chips) if c >> space & 1), None)
        if victim is None:
            return Explanation("only_move", {"action": act.text})
        return _removal(KIDS_BOARD, game, space, colours[victim],
                        {"space": name, "card": "dragon"})
    extra = {"card": card_text, "space": name}
    return _line_reason(KIDS_BOARD, game, space, side, colours,
                        "wild" if card == UNICORN else "card", extra)


def _explain_dice(game: DiceGame, obs: dict[str, Any], act: Action) -> Explanation:
    side, colours = _side_info(game, obs)
    kind, where = act.what, act.space
    if not where:
        return Explanation("only_move", {"action": act.text})
    space = parse_space(where, game.width, game.height)
    name = space_name(space, game.width)
    board = dice_board(game.sequence_length)
    dice = obs.get("dice") or [0, 0]
    total = dice[0] + dice[1]
    extra: dict[str, Any] = {"space": name, "total": total,
                             "extra_roll": total in (2, 12)}
    victim = next((o for o, c in enumerate(game.chips) if c >> space & 1), None)
    if kind == "remove":
        return _removal(board, game, space, colours[victim] if victim is not None else None,
                        extra)
    if kind == "replace" and victim is not None:
        extra["replaces"] = colours[victim]
    return _line_reason(board, game, space, side, colours,
                        "wild" if total == 11 else "number", extra)
