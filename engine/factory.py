"""Creating and replaying games."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .dice import DiceGame
from .errors import InvalidOptions
from .game import Game
from .kids import KidsGame
from .options import normalise_options


def game_class(game: str) -> type[KidsGame] | type[DiceGame]:
    if game == "kids":
        return KidsGame
    if game == "dice":
        return DiceGame
    raise InvalidOptions("unknown_game", f"Unknown game {game!r}: choose kids or dice.",
                         game=str(game))


def new_game(game: str, seats: int, seed: int, **options: Any) -> Game:
    """A new game, dealt (Kids) or with the opening roll-off done (Dice).

    >>> g = new_game("kids", 2, seed=7)
    >>> g.current_seat, len(g.observation(0)["hand"]), g.observation(None)["deck_size"]
    (0, 3, 36)
    """
    opts = normalise_options(game, seats, options)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise InvalidOptions("bad_seed", f"The seed must be a whole number, not {seed!r}.")
    return game_class(game)(seats, seed, opts)


def replay(game: str, seats: int, seed: int, history: Iterable[str], **options: Any) -> Game:
    """Play ``history`` (actions, and the ``resign:N``, ``computer:N`` and ``skip`` entries)
    on a new game."""
    g = new_game(game, seats, seed, **options)
    for entry in history:
        g.apply_entry(entry)
    return g
