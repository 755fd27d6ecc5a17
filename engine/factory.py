"""The registry of games: creating, replaying and loading them.

The one place that knows every variant. ``Game`` never imports its subclasses (that would
make ``engine.game`` and its variants import each other); whatever must pick a class by
the game's name (a new game, a replay, a save to load) comes here.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .dice import DiceGame
from .errors import InvalidOptions
from .game import Game
from .kids import KidsGame
from .options import normalise_options

GAMES: dict[str, type[Game]] = {"kids": KidsGame, "dice": DiceGame}


def game_class(game: str) -> type[Game]:
    """The class of ``game`` ("kids" or "dice")."""
    cls = GAMES.get(game) if isinstance(game, str) else None
    if cls is None:
        raise InvalidOptions("unknown_game", f"Unknown game {game!r}: choose kids or dice.",
                             game=str(game))
    return cls


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


def load(d: dict[str, Any]) -> Game:
    """A game saved with ``Game.to_dict`` (after a trip through JSON), whatever its game."""
    return game_class(d["game"]).from_dict(d)
