"""``/sequence hint``: the move the medium computer player would make, why, and where.

Only the asking player sees it (ephemeral). The reason is one sentence from
``engine.ai.explain`` in the reader's language; the picture is a small board with the
suggested space framed (and a chip to be taken away crossed out).
"""

from __future__ import annotations

import asyncio
import io
import logging
from typing import Any

import discord

from engine.ai import Explanation
from manager import GameManager, TableView
from render.hint import hint_png

from . import i18n
from .i18n import t
from .table import messages
from .table.choices import suggestion
from .table.prefs import speaker_lang
from .table.replies import reply

log = logging.getLogger(__name__)

def reason_text(why: Explanation, lang: str) -> str:
    """One sentence for a reason code (engine.ai's table), with card and colour names."""
    params: dict[str, Any] = dict(why.params)
    if isinstance(params.get("card"), str):
        params["card"] = i18n.card(params["card"], lang)
    if isinstance(params.get("colour"), str):
        params["colour"] = t(f"colour.{params['colour']}", lang)
    if isinstance(params.get("line"), list):
        params["line"] = ", ".join(params["line"])
    key = f"reason.{why.code}"
    if key not in i18n.catalogue("en"):
        log.warning("no words for the reason %r", why.code)
        key = "reason.good_move"
    return t(key, lang, **params)


async def show_hint(manager: GameManager, interaction: discord.Interaction, table: TableView
                    ) -> None:
    """Answer ``/sequence hint`` for the asking player: the manager's hint (it refuses a
    stranger, a finished game, a turn not theirs) in the words and numbers of the choices
    ("play Lion on 2 (B3)"), its reason, and the board with that number on the space."""
    lang = speaker_lang(interaction)
    await interaction.response.defer(ephemeral=True, thinking=True)
    hint = await manager.hint(table.game_id, interaction.user.id)
    obs = hint.observation
    words, number = suggestion(hint.action, list(obs["legal"]), lang)
    names = messages.seat_names(table, lang)
    png = await asyncio.to_thread(hint_png, obs, hint.action, names=names, lang=lang,
                                  number=number or 1)
    lines = [t("reply.hint", lang, move=words),
             t("hint.reason", lang, reason=reason_text(hint.why, lang))]
    kwargs: dict[str, Any] = {}
    if png is not None:
        kwargs["file"] = discord.File(io.BytesIO(png), filename="hint.png",
                                      description=t("hint.caption", lang))
    await reply(interaction, "\n".join(lines), **kwargs)
