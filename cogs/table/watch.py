"""What the Discord side tells whoever watches the bot from outside (its metrics).

Two things only the Discord side knows: when a change's board reached its channel, and
where a person's move came from. The first goes to a ``Watch`` handed to the desk at
construction (``runtime/metrics.py`` is one; ``Unwatched`` does nothing); the second
goes with the move itself (``GameManager.submit(via=...)``, then ``Moved.via``), so the
one who counts moves counts each once, from the manager's events. Nothing here imports
a metrics library.
"""

from __future__ import annotations

from typing import Protocol

import discord

from manager import Event


class Watch(Protocol):
    """Told of what people see, as it happens."""

    def board_shown(self, event: Event) -> None:
        """The board showing ``event`` (a game's start, a move, its end) is in the channel
        now; ``event.at`` is when the change was committed."""


class Unwatched:
    """Nobody watches: nothing is told."""

    def board_shown(self, event: Event) -> None:
        pass


def via(interaction: discord.Interaction) -> str:
    """Where a move made by this interaction came from: "command" (a slash command),
    "dm" (a button on the hand kept in the player's DMs), or "channel" (a button in the
    server: the Roll button, the choices of "My hand")."""
    if interaction.type is discord.InteractionType.application_command:
        return "command"
    return "dm" if interaction.guild_id is None else "channel"
