"""A replay of a game as an animated GIF: one frame per history entry, drawn by the board
renderer at a smaller size on one shared palette, so Pillow stores each frame as just the
part that changed."""

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
FRAME_MS = 700
LAST_FRAME_MS = 4000
MAX_FRAMES = 2000  # a Dice game ends by turn 500; this is only a guard


def replay_frames(game_kind: str, seats: int, seed: int, history: Iterable[str],
                  options: dict[str, Any] | None = None, *, names: Sequence[str],
                  lang: str = "en", cell: int = REPLAY_CELL) -> list[Image.Image]:
    """The board after each history entry (the start position for an empty history)."""
    game = engine.new_game(game_kind, seats, seed, **(options or {}))
    frames: list[Image.Image] = []
    for entry in history:
        if len(frames) >= MAX_FRAMES:
            log.warning("replay cut at %d frames", MAX_FRAMES)
            break
        game.apply_entry(entry)
        if entry.startswith("computer:"):
            continue  # who plays a seat changed; the board did not
        frames.append(board_image(game.observation(None), names=names, lang=lang, cell=cell))
    if not frames:
        frames.append(board_image(game.observation(None), names=names, lang=lang, cell=cell))
    return frames


def replay_gif(game_kind: str, seats: int, seed: int, history: Iterable[str],
               options: dict[str, Any] | None = None, *, names: Sequence[str],
               lang: str = "en", cell: int = REPLAY_CELL) -> bytes:
    """The whole game as GIF bytes, looping, the final board held for a few seconds.

    ``history`` is ``Game.history``; an illegal entry raises ``engine.IllegalAction``.
    """
    frames = replay_frames(game_kind, seats, seed, history, options, names=names, lang=lang,
                           cell=cell)
    durations = [FRAME_MS] * (len(frames) - 1) + [LAST_FRAME_MS]
    buf = io.BytesIO()
    frames[0].save(buf, format="GIF", save_all=True, append_images=frames[1:],
                   duration=durations, loop=0, optimize=True, disposal=1)
    return buf.getvalue()
