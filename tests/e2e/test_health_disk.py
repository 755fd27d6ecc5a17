"""/healthz tells a full disk (issue 32, item 4): 503 with the reason while the last write
of the SQLite file failed for lack of space (or on a read-only file) and no write has worked
since; 200 again with the first write that works. Nothing is written to find out (the
health check's ``SELECT 1`` writes nothing, and a write of its own would fill the disk
further and answer 200 whenever a page happened to be free): the answer stays 503, asked
again and again, until a person's move is saved.

The full disk is a real one: a 4 MiB tmpfs mounted by the test (it needs root and a
kernel that lets it mount; else it is skipped, saying why), filled to its last byte, and
unmounted whatever happens. The read-only file is SQLite's own answer to ``PRAGMA
query_only`` ("attempt to write a readonly database", as for a file the bot may not write).
"""

from __future__ import annotations

import contextlib
import errno
import os
import subprocess
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot import SequenceBot
from cogs.table.posted import Posted
from tests.e2e.conftest import running_bot
from tests.e2e.scrape import healthz
from tests.fakediscord import FakeDiscord, FakeMessage, Person
from tests.waiting import until

NOTHING_CHANGED = ("The game cannot be saved right now; nothing changed. "
                   "Try again in a few seconds.")
SMALL = "4m"  # the disk's size: the database, its journal, and a few moves


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A file system of the test's own that really fills up: a tmpfs of ``SMALL``."""
    where = tmp_path / "small-disk"
    where.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a small file system needs root; this test runs as "
                    f"uid {os.geteuid()}")
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={SMALL},mode=0700",
                              "tmpfs", str(where)], capture_output=True, text=True,
                             check=False)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip() or mounted.returncode}")
    try:
        yield where
    finally:
        # (lazy: the bot's file may still be open if the test failed half-way)
        subprocess.run(["umount", "-l", str(where)], capture_output=True, check=False)


def fill(disk: Path) -> Path:
    """Write zeros to a file on ``disk`` until no byte is left; the file, to delete."""
    filler = disk / "filler"
    chunk = b"\0" * 65536
    with filler.open("wb", buffering=0) as out:
        while chunk:
            try:
                out.write(chunk)
            except OSError as exc:
                if exc.errno != errno.ENOSPC:
                    raise
                chunk = chunk[:len(chunk) // 2]  # the last bytes, smaller and smaller
    with contextlib.suppress(OSError), open(disk / "one-more-byte", "wb") as probe:
        probe.write(b"x")
        probe.flush()
        os.fsync(probe.fileno())
        raise AssertionError("the disk was not full")
    return filler


@dataclass
class Table:
    bot: SequenceBot
    fake: FakeDiscord
    bob: Person
    lobby: FakeMessage
    url: str

    async def health(self) -> tuple[int, str]:
        return await healthz(self.url)

    async def bob_joins(self) -> str | None:
        """Bob presses Join; what he is told privately (None: nothing, he is seated)."""
        clicked = await self.bob.click(self.lobby, label="Join", timeout=10)
        await clicked.wait_ack(10)
        if clicked.followups:
            return clicked.followups[0].content
        with contextlib.suppress(TimeoutError):
            await self.fake.wait_for(lambda: "Bob" in self.lobby.text or clicked.followups,
                                     10, "Bob seated, or told why not")
        return clicked.followups[0].content if clicked.followups else None


@contextlib.asynccontextmanager
async def table_on(db: Path) -> AsyncIterator[Table]:
    """A bot on the SQLite file ``db``, healthy, and Alice's lobby in its channel."""
    async with FakeDiscord() as fake:
        guild = fake.add_guild("Family")
        alice, bob = fake.add_person("Alice", guild), fake.add_person("Bob", guild)
        with fake.pointed_at():
            async with running_bot(fake, guild, db, metrics_port=0) as bot:
                assert bot.watching is not None
                url = bot.watching.url
                await fake.wait_until_connected(10)
                lobby = await (await alice.slash("sequence new", game="kids")).reply()
                table = Table(bot, fake, bob, lobby, url)
                assert await until(lambda: _is(table, 200), "healthy first") == (200, "ok")
                # Alice's hello DM is noted in the background (her DM channel, then that a
                # DM reached her): a note written after the test made room again would
                # rightly make the answer 200 before Bob's Join (a fresh-clone CI run saw it)
                store = bot.store
                assert store is not None

                async def alice_reached() -> bool:
                    door = await Posted(store.rows).door(alice.id)
                    return door is not None and door.reached_at is not None

                await until(alice_reached, "Alice's hello DM noted")
                yield table


async def _is(table: Table, status: int) -> tuple[int, str] | None:
    answer = await table.health()
    return answer if answer[0] == status else None


async def test_503_while_the_disk_is_full_and_200_with_the_first_write_after_room_is_made(
        small_disk: Path) -> None:
    async with table_on(small_disk / "sequence.db") as table:
        filler = fill(small_disk)
        assert await table.bob_joins() == NOTHING_CHANGED, "refused: the disk is full"
        said = (503, "the database cannot be written: the disk is full")
        for _ in range(5):  # asked again and again: no probe of its own makes it flap
            assert await table.health() == said
        filler.unlink()  # room is made; nothing has been written yet
        assert await table.health() == said, "only a write that works can tell"
        assert await table.bob_joins() is None, "Bob is seated: a write worked"
        assert await until(lambda: _is(table, 200), "healthy again") == (200, "ok")


async def test_503_while_the_file_is_read_only_and_200_with_the_first_write_that_works(
        tmp_path: Path) -> None:
    async with table_on(tmp_path / "sequence.db") as table:
        store = table.bot.store
        assert store is not None
        await store.pragma("query_only", 1)  # SQLite refuses every write, as for a file
        assert await table.bob_joins() == NOTHING_CHANGED
        said = (503, "the database cannot be written: the file is read-only")
        for _ in range(3):
            assert await table.health() == said
        await store.pragma("query_only", 0)
        assert await table.bob_joins() is None
        assert await until(lambda: _is(table, 200), "healthy again") == (200, "ok")
