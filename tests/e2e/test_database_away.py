"""A click while the database cannot be used is told so, privately, in the reader's words
(issue 26, item 1): never the generic apology, never a traceback, nothing public changes,
and the same click works once the database can be used again.

The bot runs in this process on its SQLite file; the file is made unwritable for real
(``PRAGMA query_only``: SQLite answers every write "attempt to write a readonly
database", as for a read-only file). The same answer for PostgreSQL stopped under two
``python bot.py`` processes: tests/reliability/test_database_outage.py.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest

from cogs.i18n import error_text
from cogs.table.posted import Posted
from store import StoreUnavailable
from tests.e2e.conftest import running_bot
from tests.fakediscord import FakeDiscord
from tests.waiting import until
from tools.pg_server import PostgresServer

ENGLISH = "The game cannot be saved right now; nothing changed. Try again in a few seconds."
NORWEGIAN = ("Partiet kan ikke lagres akkurat nå; ingenting ble endret. "
             "Prøv igjen om noen sekunder.")


def test_the_answer_says_what_happened_and_what_to_do_in_both_languages() -> None:
    away = StoreUnavailable("connection refused")
    assert error_text(away, "en") == ENGLISH
    assert error_text(away, "no") == NORWEGIAN


async def test_a_click_while_the_database_cannot_be_written_is_answered_privately(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    async with FakeDiscord() as fake:
        guild = fake.add_guild("Family")
        alice, bob = fake.add_person("Alice", guild), fake.add_person("Bob", guild)
        nora = fake.add_person("Nora", guild, locale="no")
        with fake.pointed_at():
            async with running_bot(fake, guild, tmp_path / "bot.db") as bot:
                store = bot.store
                assert store is not None
                lobby = await (await alice.slash("sequence new", game="kids")).reply()
                game_id = _game_of(lobby.custom_ids())
                await until(lambda: Posted(store.rows).lobby_message(game_id),
                            "the lobby message kept in the store")
                public = [(m.id, m.text) for m in fake.visible_messages(guild.channel_id)]
                await store.pragma("query_only", 1)  # the file cannot be written
                for person, words in ((bob, ENGLISH), (nora, NORWEGIAN)):
                    answer = await (await person.click(lobby, label="Join")).reply()
                    assert answer.ephemeral and answer.content == words
                assert [(m.id, m.text) for m in fake.visible_messages(guild.channel_id)
                        ] == public, "nothing public changed"
                assert bot.manager is not None
                assert [s.name for s in bot.manager.get(game_id).seats] == ["Alice"]
                await store.pragma("query_only", 0)  # it can be written again
                await (await bob.click(lobby, label="Join")).wait_ack()
                await fake.wait_for(lambda: "Bob" in lobby.text, 5, "Bob seated")
        assert fake.unhandled == []
    said = [r.getMessage() for r in caplog.records
            if r.name == "store.outages"]
    assert said[0] == "database cannot be written: the file is read-only; retrying"
    assert said[1].startswith("database back after ") and len(said) == 2
    assert [r.getMessage() for r in caplog.records
            if r.exc_info or r.levelno >= logging.ERROR] == []


def _game_of(custom_ids: list[str]) -> int:
    """The game id on a lobby's buttons (``seq:lobby:<game>:<what>``)."""
    return int(next(c for c in custom_ids if c.startswith("seq:")).split(":")[2])


READ_ENGLISH = "The scores cannot be read right now. Try again in a few seconds."


async def test_stats_asked_while_postgresql_is_stopped_say_the_scores_cannot_be_read(
        tmp_path: Path, pausable_postgres: PostgresServer) -> None:
    async with FakeDiscord() as fake:
        guild = fake.add_guild("Family")
        alice = fake.add_person("Alice", guild)
        with fake.pointed_at():
            async with running_bot(fake, guild, tmp_path / "unused.db",
                                   database_url=pausable_postgres.url()) as bot:
                assert bot.store is not None
                await asyncio.to_thread(pausable_postgres.pause)
                try:
                    answer = await (await alice.slash("sequence stats")).reply()
                    assert answer.ephemeral and answer.content == READ_ENGLISH
                finally:
                    await asyncio.to_thread(pausable_postgres.resume)
                shown = await (await alice.slash("sequence stats")).reply()
                assert shown.ephemeral and shown.content != READ_ENGLISH
        assert fake.unhandled == []
