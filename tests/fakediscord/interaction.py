"""One interaction: what a person did (a slash command, a click, a modal submit, typing in
an autocomplete), as Discord sent it to the bot, and everything the bot answered to it.

The desk that starts interactions and takes the bot's answers is ``interactions.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .messages import FakeMessage
from .world import World


@dataclass
class Interaction:
    """An interaction a person started, and everything the bot answered to it."""

    server: World  # the fake Discord it happened on (waited on for the answers)
    id: int
    token: str
    type: int
    user_id: int
    channel_id: int
    guild_id: int | None
    payload: dict[str, Any]
    sent_at: float
    message: FakeMessage | None = None  # the clicked message, for components
    callback_type: int | None = None
    acked_at: float | None = None
    original: FakeMessage | None = None
    #: the response was edited after it was sent (after 6, a deferred update, the clicked
    #: message changed: the answer the person reads)
    edited: bool = False
    followups: list[FakeMessage] = field(default_factory=list)
    choices: list[dict[str, Any]] | None = None
    modal: dict[str, Any] | None = None

    @property
    def acknowledged(self) -> bool:
        return self.callback_type is not None

    async def wait_ack(self, timeout: float = 5.0) -> Interaction:
        await self.server.wait_for(lambda: self.acknowledged, timeout,
                                   f"the bot to acknowledge interaction {self.payload['data']}")
        return self

    async def reply(self, timeout: float = 5.0) -> FakeMessage:
        """The answer the person reads: the response, the filled-in deferral, or a followup."""
        await self.wait_ack(timeout)

        def answer() -> FakeMessage | None:
            if self.callback_type in (4, 7) and self.original is not None:
                return self.original
            if self.followups:
                return self.followups[0]
            if self.callback_type == 5 and self.original and not self.original.loading:
                return self.original
            return None

        return await self.server.wait_for(answer, timeout, "the bot's reply")

    async def changed(self, timeout: float = 5.0) -> FakeMessage:
        """The clicked message as the click changed it: at once (7, UPDATE_MESSAGE), or
        edited after a deferred update (6, then ``@original``; a followup instead, such as a
        refusal, is the answer then); else the answer the person reads (``reply``)."""
        await self.wait_ack(timeout)
        if self.callback_type != 6:
            return await self.reply(timeout)

        def edited() -> FakeMessage | None:
            if self.edited:
                return self.original
            return self.followups[0] if self.followups else None  # (a refusal, say)

        return await self.server.wait_for(edited, timeout, "the clicked message changed")

    def __repr__(self) -> str:
        return f"<Interaction {self.id} type={self.type} callback={self.callback_type}>"
