"""The rules of Sequence for Kids and Sequence Dice: pure Python, standard library only.

Public face: ``new_game``, ``replay``, ``load`` (a saved game), ``GAMES`` (the registry:
name -> class), ``Game`` (``legal_actions``, ``apply``, ``resign``, ``skip``,
``observation``, ``to_dict``), ``IllegalAction``, ``InvalidOptions``.
"""

from .errors import EngineError, IllegalAction, InvalidOptions
from .factory import GAMES, load, new_game, replay
from .game import Game
from .options import GAME_NAMES

__all__ = [
    "GAMES",
    "GAME_NAMES",
    "EngineError",
    "Game",
    "IllegalAction",
    "InvalidOptions",
    "load",
    "new_game",
    "replay",
]
