"""A clean stop (SIGTERM) and the clicks under way: a game's end still being shown (its
final board out, the replay of the whole game on its way to it) is let finish, a little
while at most; one still going then is cut before the connections close, quietly, not left
to fail on them. A fresh-clone CI run of the kill test failed on "listener Desk failed on
GameOver" logged by a bot stopping while a Dice game's replay was still on its way: the
wait was over, and the replay met Discord's session closed under it."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bot import SequenceBot
from manager import Store
from tests.e2e.conftest import running_bot
from tests.e2e.people import begin_game, final_board
from tests.reliability.harness import RecordingDiscord
from tests.waiting import until


@dataclass
class Ending:
    """A Dice game Alice has just resigned, whose replay Discord holds on to: the PATCH
    that adds it to the final board waits for ``let_through``."""

    fake: RecordingDiscord
    bot: SequenceBot
    channel: int
    held: asyncio.Event
    let_through: asyncio.Event

    def final_files(self) -> list[str]:
        final = final_board(self.fake, self.channel)
        assert final is not None
        return [f.filename for f in final.files]


@asynccontextmanager
async def an_ending(tmp_path: Path, drain_seconds: float) -> AsyncIterator[Ending]:
    async with RecordingDiscord() as fake:
        guild = fake.add_guild("Family")
        alice, bob = fake.add_person("Alice"), fake.add_person("Bob")
        held, let_through = asyncio.Event(), asyncio.Event()

        async def slow_replay(method: str, path: str, body: Any) -> str | None:
            final = final_board(fake, guild.channel_id)
            if method == "PATCH" and final is not None and re.fullmatch(
                    rf".*/channels/{guild.channel_id}/messages/{final.id}", path):
                held.set()
                await let_through.wait()
            return None

        fake.before_answer.append(slow_replay)
        with fake.pointed_at():
            async with running_bot(fake, guild, tmp_path / "bot.db",
                                   drain_seconds=drain_seconds) as bot:
                await begin_game(fake, alice, bob, game="dice")
                await (await alice.slash("sequence resign")).wait_ack()
                await asyncio.wait_for(held.wait(), 15)
                try:
                    yield Ending(fake, bot, guild.channel_id, held, let_through)
                finally:
                    let_through.set()


def errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [f"{r.name}: {r.getMessage()}\n{r.exc_text or ''}" for r in caplog.records
            if r.levelno >= logging.ERROR]


async def test_a_stop_waits_for_the_replay_of_a_game_that_just_ended(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    async with an_ending(tmp_path, drain_seconds=30) as end:
        stopping = asyncio.create_task(end.bot.close())
        await until(lambda: any("stopping: waiting for 1 click" in r.getMessage()
                                for r in caplog.records), "the stop waiting for the resign")
        assert not stopping.done(), "the stop waits while the replay is on its way"
        end.let_through.set()
        await asyncio.wait_for(stopping, 15)
        assert end.final_files() == ["board.png", "replay.gif"]
    assert errors(caplog) == []


async def test_a_click_still_under_way_when_the_wait_is_over_is_cut_without_an_error(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    async with an_ending(tmp_path, drain_seconds=0.2) as end:
        await asyncio.wait_for(end.bot.close(), 10)  # Discord never answers the replay
        cut = [r for r in caplog.records if "were cut" in r.getMessage()]
        assert [r.levelno for r in cut] == [logging.WARNING], "the cut is said, once"
        assert end.final_files() == ["board.png"]
    assert errors(caplog) == []
    # the resign was saved before the cut, and its final board noted as shown: the next
    # start finds the game over and owes nothing of it
    async with await Store.open(tmp_path / "bot.db") as store:
        assert await store.games.load_active() == []
        assert await store.games.ends_not_shown() == []
