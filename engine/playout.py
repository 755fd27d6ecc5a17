"""Random playouts on the fast path: the inner loop of search, and the engine's benchmark."""

from __future__ import annotations

import random as _random

from .dice import DiceGame
from .game import Game
from .kids import KidsGame


def random_playout(game: Game, rng: _random.Random) -> int | None:
    """Play uniformly random legal moves until the game ends; return the winning side
    (None for a draw). Chance events (draws, dice) still come from the game's own RNG."""
    if isinstance(game, KidsGame):
        return game.random_playout(rng.random)
    random = rng.random
    moves, play = game.moves, game.play
    while game.winner is None and not game.draw:
        out = moves()
        play(out[int(random() * len(out))])
    return game.winner


__all__ = ["DiceGame", "KidsGame", "random_playout"]
