"""The rules of Sequence for Kids and Sequence Dice: pure Python, standard library only.

Everything here but ``manager`` (the async ring: asyncio, aiosqlite) is that way;
``tests/test_layering.py`` checks it.

Public face: ``new_game``, ``replay``, ``load`` (a saved game), ``GAMES`` (the registry:
name -> class), ``Game`` (``legal_actions``, ``apply``, ``resign``, ``skip``,
``observation`` -> ``Observation``, ``to_dict``), ``Refusal`` (the base of every
refusal, with a stable ``code``), ``IllegalAction``, ``InvalidOptions``.
"""

from .errors import IllegalAction, InvalidOptions, Refusal
from .factory import GAMES, load, new_game, replay
from .game import Game
from .observation import Observation
from .options import GAME_NAMES

__all__ = [
    "GAMES",
    "GAME_NAMES",
    "Game",
    "IllegalAction",
    "InvalidOptions",
    "Observation",
    "Refusal",
    "load",
    "new_game",
    "replay",
]
