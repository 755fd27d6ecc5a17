"""The rules of Sequence for Kids and Sequence Dice: pure Python, standard library only.

Public face: ``new_game``, ``replay``, ``Game`` (``legal_actions``, ``apply``, ``resign``,
``skip``, ``observation``, ``to_dict``/``from_dict``), ``IllegalAction``, ``InvalidOptions``.
"""

from .errors import EngineError, IllegalAction, InvalidOptions
from .factory import new_game, replay
from .game import Game
from .options import GAME_NAMES, GAMES

__all__ = [
    "GAMES",
    "GAME_NAMES",
    "EngineError",
    "Game",
    "IllegalAction",
    "InvalidOptions",
    "new_game",
    "replay",
]
