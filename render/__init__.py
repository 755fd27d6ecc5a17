"""Pictures of the games, drawn with Pillow from engine observations (no Discord here).

    board_png(obs, names=[...], lang="en")        the board after a move, as PNG bytes
    hand_png(obs, caption="...", lang="en")       a player's hand, for their DM
    alt_text(obs, names=[...], lang="en")         the board in words (<= 1024 characters)
    replay_gif(game, seats, seed, history, options, names=[...], lang="en")
    choice_png(obs, spaces, lang="en", removing=False)  a small board, spaces[i] marked i + 1
    choice_alt(spaces, lang, removing=False)           what the marks are, in words

The words on every picture come from ``render.words`` (the one catalogue, data/locales).

Everything is safe to call from worker threads. Languages: "en" and "no".
"""

from .alt import alt_text
from .board import Highlight, board_image, board_png
from .choice import choice_alt, choice_png
from .hand import hand_image, hand_png
from .replay import replay_gif

__all__ = [
    "Highlight",
    "alt_text",
    "board_image",
    "board_png",
    "choice_alt",
    "choice_png",
    "hand_image",
    "hand_png",
    "replay_gif",
]
