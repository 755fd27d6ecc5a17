"""Answers to the person who clicked or typed, and the one guard around every handler.

``refusals`` is an async context manager rather than a decorator: discord.py reads a slash
command's parameters from the function itself, so the function must stay undecorated; the
guard goes around the body instead of the twenty ``work()`` closures it replaces.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from typing import Any

import discord

from engine import Refusal
from store import StoreUnavailable

from ..i18n import error_text, t
from .prefs import speaker_lang

log = logging.getLogger(__name__)


def refusal(code: str) -> Refusal:
    """A refusal decided on the Discord side (who clicks), shaped like the manager's."""
    return Refusal(code, code.replace("_", " "))


#: Discord's codes for an interaction it no longer takes answers to: Unknown interaction
#: (answered after its 3 s), Unknown Webhook (its token ran out)
TOO_LATE = frozenset({10062, 10015})
FILLED = "seq:placeholder-filled"  # in Interaction.extras: the deferred answer was given


async def answer(interaction: discord.Interaction, content: str | None = None, *,
                 ephemeral: bool = True, **kwargs: Any) -> None:
    """Answer an interaction once or more, the way Discord asks: the first answer to a
    deferred "thinking..." placeholder fills it in (an edit of the original response:
    Discord deprecated completing it with a followup); anything after is a followup, a
    second message. Not yet acknowledged: the answer itself. ``ephemeral`` counts where
    the answer is a new message (a deferred placeholder already decided it)."""
    view = kwargs.get("view")
    if isinstance(view, discord.ui.View):
        view.stop()  # its items are dynamic: found by custom_id, not kept per message
    if not interaction.response.is_done():
        await interaction.response.send_message(content, ephemeral=ephemeral, **kwargs)
        return
    placeholder = interaction.response.type is \
        discord.InteractionResponseType.deferred_channel_message
    if placeholder and not interaction.extras.get(FILLED):
        interaction.extras[FILLED] = True
        files = [*kwargs.pop("files", []), *([kwargs.pop("file")] if "file" in kwargs else [])]
        if files:
            kwargs["attachments"] = files
        await interaction.edit_original_response(content=content, **kwargs)
        return
    await interaction.followup.send(content or "", ephemeral=ephemeral, **kwargs)


async def reply(interaction: discord.Interaction, content: str, **kwargs: Any) -> None:
    """An ephemeral answer, whether or not the interaction was acknowledged yet."""
    await answer(interaction, content, ephemeral=True, **kwargs)


async def done(interaction: discord.Interaction, key: str) -> None:
    """Say that a command did what was asked, in the reader's language."""
    await reply(interaction, t(key, speaker_lang(interaction)))


@asynccontextmanager
async def public_placeholder_gone_on_refusal(interaction: discord.Interaction
                                             ) -> AsyncIterator[None]:
    """Around work after a public "thinking..." placeholder (``defer(thinking=True)``):
    if it is refused, the placeholder goes, so the refusal is said privately (as its own
    message, by ``refusals``) and not in the channel for everyone."""
    try:
        yield
    except Exception:
        with suppress(discord.HTTPException):
            await interaction.delete_original_response()
        interaction.extras[FILLED] = True  # gone: the refusal is a message of its own
        raise


class InFlight:
    """The handlers of clicks and commands under way (the desk owns one; ``refusals`` adds
    and removes them): a clean stop lets them finish before closing the connections they
    need, so a stop never cuts a move's answer in half."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()

    def busy(self) -> int:
        """How many handlers are under way, the caller's own aside."""
        return len(self._others())

    def _others(self) -> set[asyncio.Task[Any]]:
        return {t for t in self._tasks if not t.done() and t is not asyncio.current_task()}

    def add(self, task: asyncio.Task[Any]) -> None:
        self._tasks.add(task)

    def discard(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)

    async def finish(self, timeout: float) -> int:
        """Wait (``timeout`` at most) for the handlers under way but the caller's own, then
        cut the ones still going (cancelled, and waited for until they end), so that none
        meets the connections closed under it and fails aloud (a Dice game's replay being
        drawn, or Discord slow to take it); how many were cut. What a cut handler saved is
        kept, as after a kill, and the next start shows what it had not."""
        busy = self._others()
        if not busy:
            return 0
        _, late = await asyncio.wait(busy, timeout=timeout)
        for task in late:
            task.cancel()
        if late:  # (bounded too: a handler that would not end must not hold the stop)
            await asyncio.wait(late, timeout=timeout)
        return len(late)


@asynccontextmanager
async def refusals(interaction: discord.Interaction, what: str,
                   in_flight: InFlight | None = None, *, reading: bool = False
                   ) -> AsyncIterator[None]:
    """Around a handler: a refusal becomes its translated message, a bug an apology (and a
    log line with its traceback); neither reaches discord.py, which would show "This
    interaction failed". The database away for a while is neither: the person is told
    that nothing changed and to try again in a few seconds, and nothing is logged here
    (the store's ``Outages`` says the outage once, whoever met it). ``reading``: the
    handler only reads (stats): then it says the scores cannot be read, not saved.

    While it runs, the handler counts as under way in ``in_flight``: a clean stop waits for
    it before closing the connections it needs."""
    task = asyncio.current_task()
    if in_flight is not None and task is not None:
        in_flight.add(task)
    try:
        yield
    except (Refusal, StoreUnavailable) as exc:
        lang = speaker_lang(interaction)
        words = (t("error.store_unavailable.read", lang)
                 if reading and isinstance(exc, StoreUnavailable) else error_text(exc, lang))
        try:
            await reply(interaction, words)
        except discord.HTTPException:
            # the interaction is gone (answered too late, or its message deleted): there is
            # nobody left to tell, and nothing changed
            log.warning("could not say %r to user %d", exc.code, interaction.user.id)
    except Exception as exc:
        if isinstance(exc, discord.NotFound) and exc.code in TOO_LATE:
            # Discord refused the answer: its 3 s (or the token's 15 minutes) had passed.
            # Not a bug here, and there is nobody left to tell: the person clicks again,
            # and what the click changed (if it got so far) is on the board
            log.warning("%s was answered too late for Discord (user %d, channel %s): %s",
                        what, interaction.user.id, interaction.channel_id, exc.text)
            return
        log.exception("%s failed (user %d, channel %s)", what, interaction.user.id,
                      interaction.channel_id)
        try:
            await reply(interaction, t("error.unexpected", speaker_lang(interaction)))
        except discord.HTTPException:
            log.warning("could not even apologise for %s", what)
    finally:
        if in_flight is not None and task is not None:
            in_flight.discard(task)
