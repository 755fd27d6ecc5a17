"""The replay animation attached to the final board: the whole game as a GIF, rebuilt from
the seed and the action log the manager stored (so it is exact, and works after a restart)."""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Sequence

import discord

from engine.manager import GameManager
from render.replay import replay_gif

from .i18n import t

log = logging.getLogger(__name__)

MAX_REPLAY_BYTES = 8 * 1024 * 1024  # under Discord's 10 MiB file limit, with room to spare


async def replay_file(manager: GameManager, game_id: int, names: Sequence[str], lang: str
                      ) -> discord.File | None:
    """The replay of a finished game; None (logged) when it cannot be made or is too big,
    so a missing animation never holds back the result."""
    record = await manager.load_record(game_id)
    if record is None or record.seed is None:
        return None
    try:
        gif = await asyncio.to_thread(
            replay_gif, record.kind, len(record.seats), record.seed, list(record.actions),
            dict(record.options), names=list(names), lang=lang)
    except Exception:
        log.exception("could not draw the replay of game %d", game_id)
        return None
    if len(gif) > MAX_REPLAY_BYTES:
        log.warning("replay of game %d is %d bytes: not attached", game_id, len(gif))
        return None
    return discord.File(io.BytesIO(gif), filename="replay.gif",
                        description=t("over.replay", lang))
