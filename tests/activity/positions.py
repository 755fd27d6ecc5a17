"""Moments of a game found with the engine alone, to be played through the bot.

The bot deals and rolls every game from one seed when it is given one (``a_table(...,
game_seed=N)``), so a game it starts is the engine's ``new_game(kind, seats, N)``, and a
prefix of moves found here reaches the same moment there. ``position`` walks the engine
with seeded random legal moves, making the forced passes as the manager makes them, until
a ``Wanted`` finds the move a test is about; the shortest of its walks is kept.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from engine import Game, load, new_game
from engine.action import Action
from engine.kids_board import CARDS

#: Of a position: the move a test is about, once the position has one (else None).
Wanted = Callable[[Game], str | None]


def first_move(game: Game) -> str | None:
    return game.legal_actions()[0]


def seat_to_move(seat: int, then: Wanted) -> Wanted:
    """``then``, once it is ``seat``'s turn."""
    return lambda game: then(game) if game.current_seat == seat else None


def a_move(kind: Callable[[Action], bool]) -> Wanted:
    """The first legal move of a kind, once there is one."""
    def wanted(game: Game) -> str | None:
        return next((a for a in game.legal_actions() if kind(Action.parse(a))), None)
    return wanted


def winning(game: Game) -> str | None:
    """A move that wins at once."""
    for action in game.legal_actions():
        after = load(game.to_dict())
        after.apply(action)
        if after.winner is not None:
            return action
    return None


def rolled(total: int, kind: Callable[[Action], bool] = lambda a: True) -> Wanted:
    """Sequence Dice: the mover is to roll, and the roll will total ``total`` and allow a
    move of ``kind`` (the first such, after the roll)."""
    def wanted(game: Game) -> str | None:
        if game.legal_actions() != ["roll"]:
            return None
        after = load(game.to_dict())
        after.apply("roll")
        if sum(after.observation(None).get("dice") or []) != total:
            return None
        return next((a for a in after.legal_actions() if a != "pass" and kind(Action.parse(a))),
                    None)
    return wanted


def settled(game: Game) -> Game:
    """Forced passes made, as the manager makes them (``Table.must_pass``)."""
    while not game.is_over and game.legal_actions() == ["pass"]:
        game.apply("pass")
    return game


def position(game: str, seats: int, seed: int, options: dict[str, Any], wanted: Wanted, *,
             walks: int = 12, max_plies: int = 120) -> tuple[list[str], str, dict[str, Any]]:
    """The moves to make (forced passes aside) from the game ``seed`` deals to the first
    moment ``wanted`` finds a move in, that move, and the game there (``to_dict``): the
    shortest of ``walks`` walks of seeded random legal moves."""
    best: tuple[list[str], str, dict[str, Any]] | None = None
    for walk in range(walks):
        choose = random.Random(walk).choice
        at = settled(new_game(game, seats, seed, **options))
        prefix: list[str] = []
        while not at.is_over and len(prefix) < (len(best[0]) if best else max_plies):
            move = wanted(at)
            if move is not None:
                best = (prefix, move, at.to_dict())
                break
            action = choose(at.legal_actions())
            at.apply(action)
            settled(at)
            prefix.append(action)
        if best is not None and not best[0]:
            break
    assert best is not None, f"no walk of {game} from seed {seed} finds the moment"
    return best


def well_formed(obs: dict[str, Any]) -> list[str]:
    """Every move of the game's form on its board, whatever the position allows."""
    spaces = [f"{chr(ord('A') + c)}{r + 1}" for r in range(obs["height"])
              for c in range(obs["width"])]
    if obs["game"] == "kids":
        return ([f"{card}@{s}" for card in CARDS for s in spaces]
                + [f"dead:{card}" for card in CARDS] + ["pass", "roll"])
    return ["roll", "pass", *(f"{verb}@{s}" for verb in ("place", "replace", "remove")
                              for s in spaces)]
