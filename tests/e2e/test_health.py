"""/healthz, as a supervisor sees it: 200 while this process is connected to Discord and its
database answers; 503 and the problem in one line while Discord is away (the real
``python bot.py``), while PostgreSQL is stopped (``pg_ctl stop -m fast``), or while another
program holds the SQLite file's write lock; 200 again when it clears."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot import SequenceBot
from tests.e2e.conftest import running_bot
from tests.e2e.scrape import healthz, scrape
from tests.fakediscord import FakeDiscord
from tests.reliability.harness import BotProcess
from tests.sqlite_lock import another_program_holds_the_write_lock
from tests.waiting import until
from tools.pg_server import PostgresServer, free_port


def url_of(bot: SequenceBot) -> str:
    assert bot.watching is not None
    return bot.watching.url


async def health_is(url: str, status: int) -> tuple[int, str] | None:
    """``/healthz``'s answer, once it is ``status``."""
    answer = await healthz(url)
    return answer if answer[0] == status else None


@pytest.fixture
async def sqlite_bot(tmp_path: Path) -> AsyncIterator[tuple[SequenceBot, Path]]:
    async with FakeDiscord() as fake:
        guild = fake.add_guild("Family")
        with fake.pointed_at():
            db = tmp_path / "sequence.db"
            async with running_bot(fake, guild, db, metrics_port=0) as bot:
                yield bot, db


async def test_healthy_when_connected_and_the_database_answers(
        sqlite_bot: tuple[SequenceBot, Path]) -> None:
    bot, _ = sqlite_bot
    assert await until(lambda: health_is(url_of(bot), 200), "healthy") == (200, "ok")


async def test_503_while_another_program_holds_the_sqlite_write_lock(
        sqlite_bot: tuple[SequenceBot, Path]) -> None:
    bot, db = sqlite_bot
    url = url_of(bot)
    await until(lambda: health_is(url, 200), "healthy first")
    # another program (a sqlite3 shell left in a transaction, say) takes the write lock:
    # no move could be saved now
    async with another_program_holds_the_write_lock(db):
        status, line = await healthz(url)
        assert (status, line) == (
            503, "the database does not answer: another program holds the write lock")
    assert await until(lambda: health_is(url, 200), "healthy once it let go") == (200, "ok")


# -- PostgreSQL, stopped as an admin restarting it would ---------------------------------

@pytest.fixture
async def postgres_bot(pausable_postgres: PostgresServer, tmp_path: Path
                       ) -> AsyncIterator[str]:
    """A bot on a PostgreSQL of the test's own, healthy: its ``/healthz`` address."""
    async with FakeDiscord() as fake:
        guild = fake.add_guild("Family")
        with fake.pointed_at():
            async with running_bot(fake, guild, tmp_path / "unused.db", metrics_port=0,
                                   database_url=pausable_postgres.url()) as bot:
                url = url_of(bot)
                await until(lambda: health_is(url, 200), "healthy first")
                yield url
    assert not (tmp_path / "unused.db").exists()


async def test_503_while_postgresql_is_stopped_and_200_when_it_is_back(
        pausable_postgres: PostgresServer, postgres_bot: str) -> None:
    url = postgres_bot
    await asyncio.to_thread(pausable_postgres.pause)  # pg_ctl stop -m fast
    try:
        _, line = await until(lambda: health_is(url, 503), "503")
        assert line.startswith("the database does not answer: "), line
        assert "\n" not in line
    finally:
        await asyncio.to_thread(pausable_postgres.resume)
    assert await until(lambda: health_is(url, 200), "healthy again") == (200, "ok")


async def test_503_within_the_timeout_while_postgresql_does_not_answer_at_all(
        pausable_postgres: PostgresServer, postgres_bot: str) -> None:
    url = postgres_bot
    # a hung host: no refusal, no answer (SIGSTOP of the server)
    pausable_postgres.freeze()
    try:
        first = await healthz(url)
        again = await healthz(url)  # waits for the same question, never piles up
    finally:
        pausable_postgres.thaw()
    line = "the database did not answer within 2 s"
    assert first == again == (503, line)
    assert await until(lambda: health_is(url, 200), "healthy again") == (200, "ok")


# -- Discord away, for the real python bot.py ---------------------------------------------

async def test_503_while_discord_is_away_and_200_when_it_is_back(tmp_path: Path) -> None:
    port = free_port()
    fake = FakeDiscord(port=free_port())
    fake.add_guild("Family")
    bot = BotProcess(fake, tmp_path / "sequence.db", tmp_path / "bot.log", extra_env={
        "METRICS_PORT": str(port), "RECONNECT_BASE_DELAY": "0.1", "RECONNECT_MAX_DELAY": "0.4"})
    url = f"http://127.0.0.1:{port}"
    await bot.launch()
    try:
        # Discord cannot be reached yet: the supervisor hears so at once
        assert await until(lambda: _answer_if_up(url), "/healthz to answer") == (
            503, "not connected to Discord yet")
        async with fake:
            assert await until(lambda: health_is(url, 200), "healthy") == (200, "ok")
            await fake.close()  # Discord goes away
            _, line = await until(lambda: health_is(url, 503), "503 with Discord away")
            assert line == ("not connected to Discord (the gateway connection is down; "
                            "reconnecting)")
            seen = await scrape(url)  # the metrics still answer, and say so
            assert seen["sequence_shard_connected", {"shard": "0"}] == 0
            await fake.start()  # the same port: the bot connects again
            assert await until(lambda: health_is(url, 200), "healthy again") == (200, "ok")
    finally:
        code = await bot.stop()
    assert code == 0, bot.log()
    assert f"metrics and health at {url}/metrics and {url}/healthz" in bot.log()
    assert "Traceback" not in bot.log()


async def _answer_if_up(url: str) -> tuple[int, str] | None:
    try:
        return await healthz(url)
    except OSError:  # not listening yet
        return None


async def test_a_sharded_process_shows_each_of_its_shards(tmp_path: Path) -> None:
    port = free_port()
    async with FakeDiscord(shards=2) as fake:
        fake.add_guild("Family", shard=1)
        bot = BotProcess(fake, tmp_path / "sequence.db", tmp_path / "bot.log", extra_env={
            "METRICS_PORT": str(port), "SHARD_COUNT": "2"})
        url = f"http://127.0.0.1:{port}"
        await bot.start()
        try:
            assert await until(lambda: health_is(url, 200), "healthy") == (200, "ok")
            seen = await scrape(url)
            assert seen.labels_of("sequence_shard_connected", "shard") == {"0", "1"}
            assert seen["sequence_shard_connected"] == 2

            async def both_latencies() -> bool:
                shards = (await scrape(url)).labels_of("sequence_gateway_latency_seconds",
                                                       "shard")
                return shards == {"0", "1"}

            await until(both_latencies, "each shard's first heartbeat answered")
        finally:
            code = await bot.stop()
    assert code == 0, bot.log()
