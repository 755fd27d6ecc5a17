"""The table's pictures as Discord files: board, hand, replay.

Drawing happens in a worker thread (``asyncio.to_thread``; Pillow releases the GIL), so
the event loop never waits on it. A picture that fails to draw is logged and left out:
the words of a move still go out, and a broken picture never stops a game.
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Mapping, Sequence
from typing import Any

import discord

from engine.observation import Observation
from render.alt import alt_text
from render.board import board_png
from render.choice import choice_alt, choice_png
from render.hand import hand_png
from render.replay import replay_gif
from store import GameRecord

from ..i18n import t

log = logging.getLogger(__name__)

ALT_TEXT_LIMIT = 1024  # Discord's limit on an attachment description
MAX_REPLAY_BYTES = 8 * 1024 * 1024  # under Discord's 10 MiB file limit, with room to spare
BOARD = "board.png"
HAND = "hand.png"
CHOICE = "choices.png"


def board_alt(obs: Mapping[str, Any], names: Sequence[str], lang: str) -> str:
    """The board's alt text, as Discord keeps it (recovery compares it with the channel)."""
    return alt_text(obs, names=list(names), lang=lang)[:ALT_TEXT_LIMIT]


async def board_file(obs: Mapping[str, Any], names: Sequence[str], lang: str, game_id: int
                     ) -> discord.File | None:
    """The board picture with its alt text; None (logged) if drawing failed."""

    def draw() -> tuple[bytes, str]:
        return board_png(obs, names=list(names), lang=lang), board_alt(obs, names, lang)

    try:
        png, alt = await asyncio.to_thread(draw)
    except Exception:
        log.exception("could not draw the board of game %d", game_id)
        return None
    return discord.File(io.BytesIO(png), filename=BOARD, description=alt)


async def hand_file(obs: Observation, caption: str, cards: str, lang: str, game_id: int
                    ) -> discord.File | None:
    """The hand picture; its alt text names the cards (recovery compares it)."""
    try:
        png = await asyncio.to_thread(hand_png, obs, caption=caption, lang=lang)
    except Exception:
        log.exception("could not draw a hand in game %d", game_id)
        return None
    return discord.File(io.BytesIO(png), filename=HAND, description=cards or caption)


async def choice_file(obs: Observation, spaces: Sequence[str], lang: str, game_id: int, *,
                      removing: bool = False, dice: Sequence[int] | None = None
                      ) -> discord.File | None:
    """The small board with the possible ``spaces`` numbered 1, 2, 3 ... (the numbers on
    the buttons under it; ``dice``: a Dice roll, drawn above it); None (logged) if drawing
    failed: the buttons still work."""
    if not spaces:
        return None

    def draw() -> tuple[bytes, str]:
        return (choice_png(obs, spaces, lang=lang, removing=removing, dice=dice or ()),
                choice_alt(spaces, lang, removing=removing)[:ALT_TEXT_LIMIT])

    try:
        png, alt = await asyncio.to_thread(draw)
    except Exception:
        log.exception("could not draw the choices in game %d", game_id)
        return None
    return discord.File(io.BytesIO(png), filename=CHOICE, description=alt)


async def replay_file(record: GameRecord | None, names: Sequence[str], lang: str
                      ) -> discord.File | None:
    """The replay of a finished game, rebuilt from its seed and action log (exact, and it
    works after a restart); None (logged) when it cannot be made or is too big."""
    if record is None or record.seed is None:
        return None
    try:
        gif = await asyncio.to_thread(
            replay_gif, record.kind, len(record.seats), record.seed, list(record.actions),
            dict(record.options), names=list(names), lang=lang)
    except Exception:
        log.exception("could not draw the replay of game %d", record.id)
        return None
    if len(gif) > MAX_REPLAY_BYTES:
        log.warning("replay of game %d is %d bytes: not attached", record.id, len(gif))
        return None
    return discord.File(io.BytesIO(gif), filename="replay.gif",
                        description=t("over.replay", lang))
