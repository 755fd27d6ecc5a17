"""A replay of a game as an animated GIF: the empty board, then one frame per change of the
board (a chip placed or removed), drawn by the board renderer at a smaller size on one
shared palette, so Pillow stores each frame as just the part that changed.

Entries that leave the board as it was (a Dice roll before its move, a dead card exchanged,
a pass, a computer taking a seat) get no frame: they made a 2-player Dice replay half
"nothing happened" frames. The frame time adapts to the number of frames so that a whole
game plays in at most ``MAX_TOTAL_MS`` (a long Dice game runs faster than a short Kids one),
and the final board is held for a few seconds before the loop starts again.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Iterable, Sequence
from typing import Any

from PIL import Image

import engine

from .board import board_image

log = logging.getLogger(__name__)

REPLAY_CELL = 64
FRAME_MS = 700  # per move when the game is short: slow enough to follow each move
MIN_FRAME_MS = 60  # GIF players treat much shorter delays as 100 ms; never needed below
FIRST_FRAME_MS = 1000  # the empty board, to see the game start
LAST_FRAME_MS = 4000  # the final board with the winning line
MAX_TOTAL_MS = 40_000  # a whole replay, first and last frames included
MAX_FRAMES = 2000  # a Dice game ends by turn 500; this is only a guard


def replay_frames(game_kind: str, seats: int, seed: int, history: Iterable[str],
                  options: dict[str, Any] | None = None, *, names: Sequence[str],
                  lang: str = "en", cell: int = REPLAY_CELL) -> list[Image.Image]:
    """The empty board, then the board after each entry that changed it. When the game
    ended on an entry that left the board as it was (a resignation, a deadlock), the last
    frame shows that final position (its result in the legend) instead of the one before."""
    game = engine.new_game(game_kind, seats, seed, **(options or {}))
    obs = game.observation(None)
    frames = [board_image(obs, names=names, lang=lang, cell=cell)]
    shown = list(obs["board"])
    changed = False
    for entry in history:
        game.apply_entry(entry)
        obs = game.observation(None)
        changed = obs["board"] != shown
        if changed:
            if len(frames) >= MAX_FRAMES:
                log.warning("replay cut at %d frames", MAX_FRAMES)
                break
            shown = list(obs["board"])
            frames.append(board_image(obs, names=names, lang=lang, cell=cell))
    if game.is_over and not changed:
        frames[-1] = board_image(obs, names=names, lang=lang, cell=cell)
    return frames


def frame_durations(count: int) -> list[int]:
    """Milliseconds for each of ``count`` frames: the first and last held, the moves in
    between as slow as ``FRAME_MS`` allows within ``MAX_TOTAL_MS``, in whole hundredths of
    a second (GIF's unit)."""
    if count == 1:
        return [LAST_FRAME_MS]
    moves = count - 2
    budget = MAX_TOTAL_MS - FIRST_FRAME_MS - LAST_FRAME_MS
    each = FRAME_MS if moves == 0 else min(FRAME_MS, budget // moves // 10 * 10)
    return [FIRST_FRAME_MS, *[max(MIN_FRAME_MS, each)] * moves, LAST_FRAME_MS]


def replay_gif(game_kind: str, seats: int, seed: int, history: Iterable[str],
               options: dict[str, Any] | None = None, *, names: Sequence[str],
               lang: str = "en", cell: int = REPLAY_CELL) -> bytes:
    """The whole game as GIF bytes, looping, from the empty board to the final board (held
    for a few seconds), at most ``MAX_TOTAL_MS`` long.

    ``history`` is ``Game.history``; an illegal entry raises ``engine.IllegalAction``.
    """
    frames = replay_frames(game_kind, seats, seed, history, options, names=names, lang=lang,
                           cell=cell)
    buf = io.BytesIO()
    frames[0].save(buf, format="GIF", save_all=True, append_images=frames[1:],
                   duration=frame_durations(len(frames)), loop=0, optimize=True, disposal=1)
    return buf.getvalue()
