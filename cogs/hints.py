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

from engine.ai import Explanation, make_agent
from engine.manager import GameManager, TableView
from render.hint import hint_png

from . import i18n
from .i18n import t
from .table import messages
from .table.prefs import speaker_lang
from .table.replies import refusal, reply

log = logging.getLogger(__name__)

HINT_LEVEL = "medium"  # the greedy player: it wins, blocks and builds, and says why


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


def suggest(obs: dict[str, Any], seed: int) -> tuple[str, Explanation]:
    """The medium player's move for the seat to move in ``obs``, and its reason."""
    agent = make_agent(HINT_LEVEL, seed)
    action = agent.choose(obs)
    return action, agent.explain(obs, action)


async def show_hint(manager: GameManager, interaction: discord.Interaction, table: TableView
                    ) -> None:
    """Answer ``/sequence hint`` for the asking player (refusals as the manager's)."""
    lang = speaker_lang(interaction)
    if table.status != "playing":
        raise refusal("game_not_started")
    seat = manager.seat_of(table.game_id, interaction.user.id)
    if seat is None:
        raise refusal("not_a_player")
    if table.turn != seat:
        raise refusal("not_your_turn")
    await interaction.response.defer(ephemeral=True, thinking=True)
    obs = manager.observation_for(table.game_id, interaction.user.id)
    if not obs["legal"]:  # the turn passed while we deferred (a DM move, a timer)
        raise refusal("not_your_turn")
    names = messages.seat_names(table, lang)
    seed = table.game_id * 100_003 + table.ply

    legal = list(obs["legal"])

    def work() -> tuple[str, str, Explanation, bytes | None]:
        action, why = suggest(obs, seed)
        words, number = messages.suggestion(action, legal, lang)
        return action, words, why, hint_png(obs, action, names=names, lang=lang,
                                             number=number or 1)

    action, words, why, png = await asyncio.to_thread(work)
    lines = [t("reply.hint", lang, move=words),
             t("hint.reason", lang, reason=reason_text(why, lang))]
    kwargs: dict[str, Any] = {}
    if png is not None:
        kwargs["file"] = discord.File(io.BytesIO(png), filename="hint.png",
                                      description=t("hint.caption", lang))
    await reply(interaction, "\n".join(lines), **kwargs)
