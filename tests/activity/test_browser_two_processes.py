"""Two ``python bot.py`` processes on one PostgreSQL, each serving the Activity: a move one
process handles reaches a page connected to the other (through the change feed the
processes already follow: ``Followed``), and a tap on one page is a move for everyone."""

from __future__ import annotations

import contextlib
import itertools
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from tests.activity.browser import BROWSER, free_port, open_screen, served
from tests.activity.pages import hands_in
from tests.activity.taps import tap_a_move
from tests.e2e.people import play_until_over, turn_from_dm
from tests.e2e.processes import begin, two_processes
from tests.fakediscord import FakeDiscord, FakeMessage, Person
from tools.pg_server import PostgresServer

pytestmark = BROWSER
_names = itertools.count(1)


@contextlib.asynccontextmanager
async def database(server: PostgresServer) -> AsyncIterator[str]:
    """A fresh database of the test's own on the session's PostgreSQL: its URL."""
    import asyncpg

    name = f"activity_{os.getpid()}_{next(_names)}"
    admin = await asyncpg.connect(server.url())
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    try:
        yield server.url(name)
    finally:
        admin = await asyncpg.connect(server.url())
        try:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await admin.close()


async def test_a_move_handled_by_one_process_reaches_a_page_on_the_other(
        tmp_path: Path, browser: Any, postgres_server: PostgresServer) -> None:
    ports = {0: free_port(), 1: free_port()}
    async with FakeDiscord(shards=2, activities=True) as fake, database(postgres_server) as url:
        # the server is on shard 1; every DM (Bob's hand clicks) goes to shard 0
        guild = fake.add_guild("Family", shard=1)
        alice, bob = fake.add_person("Alice", guild), fake.add_person("Bob", guild)
        carol = fake.add_person("Carol", guild)

        def env(shard: int) -> dict[str, str]:
            return {"ACTIVITY_PORT": str(ports[shard]), "SEQUENCE_SEED": "7",
                    "DISCORD_CLIENT_SECRET": fake.activities.client_secret}

        async with two_processes(fake, tmp_path, url, env=env):
            bases = {s: f"http://127.0.0.1:{p}" for s, p in ports.items()}
            for base in bases.values():
                await served(base + "/")
            await begin(fake, alice, bob)
            channel = guild.channel_id
            # Alice taps on process 1's Activity; Carol watches on process 0's
            alice_screen = await open_screen(browser, fake, bases[1], alice, channel)
            carol_screen = await open_screen(browser, fake, bases[0], carol, channel)
            tapped: list[int] = []  # the plies Alice's taps made (on process 1)
            try:
                async def turn(person: Person, board: FakeMessage) -> None:
                    if person is alice:
                        # her turn shows on her page only once Bob's move, made at process
                        # 0, reached process 1 and her page
                        tapped.append((await tap_a_move(alice_screen))["ply"])
                    else:
                        await turn_from_dm(person, board)  # handled at shard 0's process

                await play_until_over(fake, channel, [alice, bob], turn)
                end = await alice_screen.table_where(lambda t: t["over"] is not None,
                                                     "the end on Alice's page", timeout=15)
                seen = await carol_screen.table_where(
                    lambda t: t["over"] is not None, "the end on Carol's page", timeout=15)
                # Alice's taps, made at process 1, each reached Carol's page at process 0
                carol_saw = {f["ply"] for f in carol_screen.frames if f["t"] == "table"}
                assert tapped and set(tapped) <= carol_saw, (tapped, sorted(carol_saw))
                assert seen["ply"] == end["ply"]
                assert all(hands_in(f) == [] for f in carol_screen.frames)
                assert all(seat == 0 for f in alice_screen.frames for seat, _ in hands_in(f))
            finally:
                await alice_screen.close()
                await carol_screen.close()
