"""A new lobby's message is on screen, Join button and all, a moment before the bot has
kept where it is (Discord's answer to the edit that shows it is on its way back). A click
in that moment changes that lobby; it never posts a second one."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from aiohttp import web

from tests.e2e.conftest import running_bot
from tests.fakediscord import FakeDiscord
from tests.fakediscord.rest import RequestBody


class AnswerHeld(FakeDiscord):
    """Makes the first edit of an interaction's reply (the lobby shown in the reply to
    /sequence new) at once, so people see it, but holds Discord's answer to the bot until
    ``let_through``."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.held = asyncio.Event()
        self.let_through = asyncio.Event()

    async def _answer(self, request: web.Request, path: str, body: RequestBody
                      ) -> web.StreamResponse:
        response = await super()._answer(request, path, body)
        if (request.method == "PATCH" and path.endswith("/messages/@original")
                and not self.held.is_set()):
            self.held.set()
            await self.let_through.wait()
        return response


async def test_a_join_while_the_lobby_is_being_shown_updates_it_and_posts_no_second_lobby(
        tmp_path: Path) -> None:
    async with AnswerHeld() as fake:
        guild = fake.add_guild("Family")
        alice, bob = fake.add_person("Alice"), fake.add_person("Bob")
        with fake.pointed_at():
            async with running_bot(fake, guild, tmp_path / "bot.db"):
                asked = await alice.slash("sequence new", game="kids")
                await asyncio.wait_for(fake.held.wait(), 15)
                lobby = await asked.reply()  # on screen; the bot does not know it yet
                join = next(c for c in lobby.custom_ids() if c.endswith(":join"))
                await (await bob.click(lobby, join)).wait_ack()
                # the join is handled: its hello by DM comes after the lobby's change
                await fake.wait_for(lambda: bob.dms(), 15, "Bob's hello by DM")
                fake.let_through.set()
                await fake.wait_for(lambda: "Bob" in lobby.text, 15, "Bob in the lobby")
                lobbies = [m for m in fake.visible_messages(guild.channel_id)
                           if any(c.endswith(":join") for c in m.custom_ids())]
                assert lobbies == [lobby]
