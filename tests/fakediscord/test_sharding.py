"""Sharding through the fake Discord (issue 17): each shard gets its own servers' events.

Discord gives a server's events to the shard that owns it, ``(guild_id >> 22) % shard_count``,
and every direct-message event to shard 0. These tests run real discord.py clients, one
``AutoShardedClient`` and pairs of plain ``Client(shard_id=..., shard_count=2)``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import discord
import pytest

from tests.fakediscord import FakeDiscord, FakeGuild, FakeMessage, Person
from tests.fakediscord.conftest import running

BUTTON = {"type": 1, "components": [{"type": 2, "style": 1, "label": "Go",
                                     "custom_id": "probe:go"}]}


class Probe(discord.Client):
    """Records the interactions it gets and answers with its shard id."""

    def __init__(self, **options: Any) -> None:
        super().__init__(intents=discord.Intents.default(), guild_ready_timeout=0.01,
                         **options)
        self.seen: list[tuple[int | None, str]] = []

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False
                                   ) -> None:
        """No 5 s wait between shards: the fake does not limit IDENTIFY concurrency."""

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        self.seen.append((interaction.guild_id, str((interaction.data or {})["custom_id"])))
        await interaction.response.send_message(f"shard {self.shard_id}")


class AutoProbe(discord.AutoShardedClient):
    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False
                                   ) -> None:
        """As Probe."""


@pytest.fixture
async def sharded() -> AsyncIterator[FakeDiscord]:
    async with FakeDiscord(shards=2) as server:
        server.add_guild("Zero", shard=0)
        server.add_guild("One", shard=1)
        for guild in list(server.guilds.values()):
            server.add_person(f"Player of {guild.name}", guild)
        with server.pointed_at():
            yield server


def guild_on(fake: FakeDiscord, shard: int) -> FakeGuild:
    return next(g for g in fake.guilds.values() if fake.shard_of(g.id) == shard)


def person_in(fake: FakeDiscord, guild: FakeGuild) -> Person:
    return next(p for p in fake.people.values() if p.guild is guild)


def button_message(fake: FakeDiscord, channel_id: int) -> FakeMessage:
    """A message with a button, as if the bot had posted it."""
    return fake.create_message(channel_id, {"content": "press", "components": [BUTTON]}, [])


@contextlib.asynccontextmanager
async def both_shards(fake: FakeDiscord) -> AsyncIterator[tuple[Probe, Probe]]:
    async with running(Probe(shard_id=0, shard_count=2), fake) as zero, \
            running(Probe(shard_id=1, shard_count=2), fake) as one:
        yield zero, one  # type: ignore[misc]


def test_a_guild_can_be_put_on_the_shard_a_test_wants() -> None:
    fake = FakeDiscord(shards=3)
    for shard in (2, 0, 1, 2):
        guild = fake.add_guild(f"on {shard}", shard=shard)
        assert (guild.id >> 22) % 3 == shard == fake.shard_of(guild.id)
    assert len(fake.guilds) == 4
    with pytest.raises(ValueError):
        fake.add_guild("nowhere", shard=3)


async def test_gateway_bot_reports_the_shard_count_and_an_auto_sharded_client_takes_both(
        sharded: FakeDiscord) -> None:
    client = AutoProbe(intents=discord.Intents.default(), guild_ready_timeout=0.01)
    async with running(client, sharded):
        await sharded.wait_until_connected()
        assert client.shard_count == 2 and set(client.shards) == {0, 1}
        assert {g.name: g.shard_id for g in client.guilds} == {"Zero": 0, "One": 1}
    assert {(s.shard_id, s.shard_count) for s in sharded.sessions.values()} == {(0, 2), (1, 2)}
    assert sharded.identified == 2
    assert any(r.path == "/gateway/bot" for r in sharded.requests)


async def test_each_shard_is_told_only_of_the_servers_it_owns(sharded: FakeDiscord) -> None:
    async with both_shards(sharded) as (zero, one):
        assert [g.name for g in zero.guilds] == ["Zero"]
        assert [g.name for g in one.guilds] == ["One"]
    identifies = [f for f in sharded.gateway_received if f.get("op") == 2]
    assert sorted(f["d"]["shard"] for f in identifies) == [[0, 2], [1, 2]]


async def test_a_click_in_a_server_reaches_the_shard_that_owns_it_only(
        sharded: FakeDiscord) -> None:
    async with both_shards(sharded) as (zero, one):
        for shard, probe, other in ((1, one, zero), (0, zero, one)):
            guild = guild_on(sharded, shard)
            message = button_message(sharded, guild.channel_id)
            click = await person_in(sharded, guild).click(message, "probe:go")
            assert (await click.reply()).content == f"shard {shard}"
            assert probe.seen[-1] == (guild.id, "probe:go")
            assert all(guild_id != guild.id for guild_id, _ in other.seen)


async def test_a_click_in_a_dm_reaches_shard_0_even_for_a_server_on_shard_1(
        sharded: FakeDiscord) -> None:
    player = person_in(sharded, guild_on(sharded, 1))
    async with both_shards(sharded) as (zero, one):
        dm = button_message(sharded, sharded.dm_channel(player.id))
        click = await player.click(dm, "probe:go")
        assert (await click.reply()).content == "shard 0"
        assert zero.seen == [(None, "probe:go")] and one.seen == []


async def test_a_server_event_goes_to_the_owning_shard(sharded: FakeDiscord) -> None:
    async with both_shards(sharded) as (zero, one):
        guild = guild_on(sharded, 1)
        thread_id = sharded.add_thread(guild.channel_id, "game", person_in(sharded, guild).id)
        await asyncio.wait_for(_until(lambda: one.get_channel(thread_id) is not None), 5)
        assert zero.get_channel(thread_id) is None
        assert all(f.get("t") != "THREAD_CREATE" for f in sharded.sessions[0].sent)


async def test_with_only_shard_1_connected_a_dm_finds_no_session(sharded: FakeDiscord) -> None:
    player = person_in(sharded, guild_on(sharded, 1))
    async with running(Probe(shard_id=1, shard_count=2), sharded):
        assert sharded.connected(1) and not sharded.connected()
        dm = button_message(sharded, sharded.dm_channel(player.id))
        with pytest.raises(RuntimeError, match="shard 0"):
            await player.click(dm, "probe:go")


async def test_an_identify_for_a_shard_beyond_the_count_is_closed_with_4010(
        sharded: FakeDiscord) -> None:
    with pytest.raises(discord.ConnectionClosed) as refused:
        await asyncio.wait_for(Probe(shard_id=2, shard_count=2).start(sharded.token), 5)
    assert refused.value.code == 4010
    assert sharded.sessions == {}


async def test_when_sharding_is_enforced_too_few_shards_get_4011_and_too_many_4010(
        sharded: FakeDiscord) -> None:
    sharded.enforce_shards = True
    with pytest.raises(discord.ConnectionClosed) as refused:
        await asyncio.wait_for(Probe().start(sharded.token), 5)
    assert refused.value.code == 4011
    with pytest.raises(discord.ConnectionClosed) as refused:
        await asyncio.wait_for(Probe(shard_id=0, shard_count=3).start(sharded.token), 5)
    assert refused.value.code == 4010
    assert sharded.sessions == {}


async def _until(predicate: Any) -> None:
    while not predicate():
        await asyncio.sleep(0.01)
