"""The click being answered, so a lobby's new look goes back through it.

A click on a lobby's button (Join, Start, a computer, a child's seat taken away) is
answered "deferred: the message will be updated", and the lobby then changes. Sent as an
edit of the channel's message (``PATCH /channels/…/messages/…``), that change counts
against the token's global limit and waits its turn behind everything else when a room of
tables opens at once: a family pressed Join and waited seconds to see their name (and the
game's first board, which goes after its channel's earlier requests, waited behind that
edit). Sent as the edit of the click's own message through the interaction's webhook
(``PATCH /webhooks/…/messages/@original``), it is an interaction endpoint, outside the
global limit (``runtime/budget.is_exempt``), and goes at once.

The click is carried in a context variable from the click's handler (``answering``) down
to the lobby's refresh (``edit_through``), as the REST pace's urgency is: the change and
its announcement run in the click's own task, and anything that refreshes the lobby
elsewhere (another process, a timer) edits the channel's message as before.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

import discord

log = logging.getLogger("sequence")

_CLICK: ContextVar[discord.Interaction | None] = ContextVar("click_answered", default=None)


@contextlib.contextmanager
def answering(interaction: discord.Interaction) -> Iterator[None]:
    """Around the work that answers a click whose answer was deferred as an update of the
    clicked message (``interaction.response.defer()`` on a button)."""
    token = _CLICK.set(interaction)
    try:
        yield
    finally:
        _CLICK.reset(token)


def _clicked_on(message_id: int) -> discord.Interaction | None:
    interaction = _CLICK.get()
    if (interaction is None or interaction.message is None
            or interaction.message.id != message_id or interaction.is_expired()
            or interaction.response.type
            is not discord.InteractionResponseType.deferred_message_update):
        return None
    return interaction


async def edit_through(message_id: int, **fields: Any) -> bool:
    """Edit message ``message_id`` through the click being answered, when that click was
    on it; False when there is no such click or the edit did not go (then edit the
    message as usual)."""
    interaction = _clicked_on(message_id)
    if interaction is None:
        return False
    try:
        await interaction.edit_original_response(**fields)
    except discord.HTTPException as exc:  # (the message deleted, the token gone: as usual)
        log.debug("could not edit message %d through its click: %s", message_id, exc)
        return False
    return True
