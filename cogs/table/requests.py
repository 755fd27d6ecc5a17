"""Which request made a move, as the manager stores it with the move.

A person's move is stored with the id of the request that made it
(``GameManager.submit(request_id=...)``): the same click delivered or retried twice is then
never applied twice, and a commit whose answer was lost is looked up by it. On Discord that
id is the interaction's: unique, and the same when Discord delivers an interaction again.
"""

from __future__ import annotations

import discord


def request_of(interaction: discord.Interaction) -> str:
    """The request id of a move made by this interaction (its Discord id, as text)."""
    return str(interaction.id)
