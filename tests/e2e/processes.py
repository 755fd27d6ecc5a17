"""Two ``python bot.py`` processes, shards 0 and 1 of 2, on one PostgreSQL: starting them,
beginning a game between them, and reading what they owe. Shared by the two-process tests,
the hand tests and the reliability runs (``tools/reliability.py``), so none of them imports
a test module."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path

from manager import Store
from tests.e2e.people import begin_game, latest_hand, whose_turn
from tests.fakediscord import FakeDiscord, FakeMessage, Person
from tests.reliability.harness import BotProcess
from tests.waiting import until


def shard_process(fake: FakeDiscord, tmp_path: Path, url: str, shard: int,
                  env: dict[str, str] | None = None, *, computer_delay: float = 0.0
                  ) -> BotProcess:
    return BotProcess(fake, tmp_path / "unused.db", tmp_path / f"shard{shard}.log",
                      computer_delay=computer_delay,
                      extra_env={"DATABASE_URL": url, "SHARD_COUNT": "2",
                                 "SHARD_IDS": str(shard), **(env or {})})


@contextlib.asynccontextmanager
async def two_processes(fake: FakeDiscord, tmp_path: Path, url: str, *,
                        env: Callable[[int], dict[str, str]] | None = None,
                        computer_delay: float = 0.0
                        ) -> AsyncIterator[tuple[BotProcess, BotProcess]]:
    """``env(shard)``: more settings for the process of that shard (e.g. its Activity)."""
    zero, one = (shard_process(fake, tmp_path, url, shard, env(shard) if env else None,
                               computer_delay=computer_delay)
                 for shard in (0, 1))
    try:
        await asyncio.gather(zero.launch(), one.launch())  # both start at once
        await fake.wait_until_connected(60)  # every shard, each from its own process
        await fake.wait_for(lambda: fake.commands.get(None), 30, "the global command sync")
        yield zero, one
    finally:
        codes = await asyncio.gather(zero.stop(), one.stop())
    assert codes == [0, 0], (zero.log()[-3000:], one.log()[-3000:])


async def begin(fake: FakeDiscord, host: Person, guest: Person) -> FakeMessage:
    """The host opens a Kids game in their server, the guest joins, the host starts; the
    first board, once the mover's hand is in their DMs (two processes: more time)."""
    _, board = await begin_game(fake, host, guest, timeout=15)
    mover = host if whose_turn(board) == host.id else guest
    await latest_hand(mover, timeout=15)
    return board


async def nothing_owed(store: Store) -> bool:
    """No process owes any announcement (every change told: ``deliveries`` is empty)."""
    return not await store.database.fetchall("SELECT game_id FROM deliveries")


async def all_told(store: Store, *processes: BotProcess, timeout: float = 10.0) -> None:
    """Wait until no process owes an announcement; failing, say what is owed and what the
    processes logged last (an owed row alone does not say which process dropped it)."""
    try:
        await until(lambda: nothing_owed(store), "every announcement told", timeout)
    except AssertionError as exc:
        owed = await store.database.fetchall("SELECT * FROM deliveries")
        logs = "\n".join(p.log()[-4000:] for p in processes)
        raise AssertionError(f"{exc}: still owed {owed}\n{logs}") from None


def game_of(final: FakeMessage) -> str:
    """The game id on a final board's same-seats rematch button (``seq:rematch:again:<id>``)."""
    return next(c.split(":")[3] for c in final.custom_ids()
                if c.startswith("seq:rematch:again:"))
