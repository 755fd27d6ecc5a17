"""The bot's own pace in a channel: never more than Discord's per-channel message rate,
even in a game of four computer players with no delay, and every board still in order.

The fake Discord enforces Discord's limits here (5 messages per 5 s per channel, 429s with
retry_after), so a bot without a pace would collect 429s."""

from __future__ import annotations

import asyncio
import contextlib
import re
from pathlib import Path

import pytest

from cogs.table.pace import ChannelPace
from engine import Refusal
from engine.action import as_action
from tests.community.play import add_computer, start
from tests.e2e.conftest import World, running_bot
from tests.e2e.people import boards, final_board
from tests.fakediscord import FakeDiscord

BOARDS = 12  # over two windows of 5 s: about 7 s of a fast game, then it is ended


async def test_four_computers_with_no_delay_keep_to_the_channels_rate(tmp_path: Path) -> None:
    async with FakeDiscord(limits=True) as fake:
        guild = fake.add_guild("Family")
        mum = fake.add_person("Mum", guild)
        channel = guild.channel_id
        with fake.pointed_at():
            async with running_bot(fake, guild, tmp_path / "s.db", channel_pace=5) as bot:
                world = World(fake, guild, bot, {"Mum": mum})
                lobby = await (await mum.slash("sequence new", game="kids",
                                               if_someone_leaves="computer")).reply()
                game_id = int(lobby.custom_ids()[0].split(":")[2])
                for level in ("easy", "medium", "hard"):
                    await add_computer(world, lobby, mum, level)
                await start(world, lobby, mum)
                await (await mum.slash("sequence leave")).wait_ack()  # a computer takes over
                # (a fast game may end, with its final board, before that many: a short
                # game shows the pace as well)
                await fake.wait_for(lambda: len(boards(fake, channel)) >= BOARDS
                                    or final_board(fake, channel) is not None, 60,
                                    f"{BOARDS} boards, or the end of the game")
                times = fake.limits.admitted_times("POST", "/channels/{id}/messages", channel)
                assert fake.limits.route_hits == 0, "the bot kept its own pace: no 429"
                assert all(b - a >= 5.0 for a, b in zip(times, times[5:], strict=False)), times
                manager = bot.manager
                assert manager is not None
                table = manager.table_for_channel(channel)
                record = await manager.load_record(game_id)
                assert record is not None
                # every board in the order of the moves: the spaces the boards name are the
                # spaces of the action log, in its order
                shown = [m.group(1) for b in boards(fake, channel)[1:]
                         if (m := re.search(r" on ([A-F][1-7])", b.content.split("\n")[0]))]
                logged = [m.space for a in record.actions if (m := as_action(a)) and m.space]
                assert shown and shown == logged[:len(shown)]
                if table is not None:  # (it may end by itself meanwhile)
                    with contextlib.suppress(Refusal):
                        await manager.end(table.game_id, mum.id, is_moderator=True)


async def test_the_pace_holds_a_sixth_message_until_the_first_is_five_seconds_old() -> None:
    now = [100.0]
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    pace = ChannelPace(clock=lambda: now[0], sleep=sleep)
    for _ in range(5):
        await pace.turn(1)
        now[0] += 0.5
    assert slept == []
    await pace.turn(2)  # another channel has its own count
    assert slept == []
    await pace.turn(1)  # the sixth in channel 1: waits until the first is 5 s old
    assert slept == [pytest.approx(5.0 - 2.5 + 0.05)]
    now[0] += 10
    await pace.turn(3)
    assert pace.channels() == 1, "idle channels are forgotten"


async def test_no_pace_when_turned_off() -> None:
    pace = ChannelPace(messages=0, clock=lambda: 0.0)
    await asyncio.wait_for(asyncio.gather(*(pace.turn(1) for _ in range(50))), 1)
