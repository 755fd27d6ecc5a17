"""``/sequence hint``: the move the manager's hint player suggests, why, and where.

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
from engine.manager import TableView
from render.hint import hint_png

from . import i18n
from .dealer import Dealer
from .i18n import t

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


async def show_hint(dealer: Dealer, interaction: discord.Interaction, table: TableView
                    ) -> None:
    """Answer ``/sequence hint`` for the asking player (the manager's hint and refusals)."""
    lang = dealer.lang(interaction)
    await interaction.response.defer(ephemeral=True, thinking=True)
    # Asked after the defer: a turn that passed meanwhile (a DM move, a timer) is refused.
    hint = await dealer.manager.hint(table.game_id, interaction.user.id)
    names = dealer.seat_names(table, lang)
    png = await asyncio.to_thread(hint_png, hint.observation, hint.action, names=names,
                                  lang=lang)
    lines = [t("reply.hint", lang, move=dealer.describe(hint.action, lang)),
             t("hint.reason", lang, reason=reason_text(hint.why, lang))]
    kwargs: dict[str, Any] = {}
    if png is not None:
        kwargs["file"] = discord.File(io.BytesIO(png), filename="hint.png",
                                      description=t("hint.caption", lang))
    await dealer.reply(interaction, "\n".join(lines), **kwargs)
