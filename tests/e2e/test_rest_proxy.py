"""``DISCORD_API_BASE`` at a REST proxy: every REST call of the bot goes through it.

An admin who runs several processes on one token may put a rate-limit proxy between them
and Discord (docs/SCALING.md). Here a forwarding proxy on 127.0.0.1 stands in front of the
fake Discord, and a sharded ``python bot.py`` is told only ``DISCORD_API_BASE`` (the
gateway stays direct, as with a real proxy). A whole game is played; every request the
fake saw carries the proxy's ``Via`` mark, so none went around it: the login, the command
sync, the game's messages, DMs and deletions, and the interaction answers too. The one
call such a bot never makes, ``GET /gateway/bot`` (it gives its shard count), is made by a
sharded discord.py client pointed the same way, and goes through the proxy too.
"""

from __future__ import annotations

from pathlib import Path

import discord

from runtime.budget import is_exempt
from runtime.link import point_discord_at
from tests.e2e.people import begin_game, play_until_over, turn_from_dm
from tests.fakediscord import FakeDiscord
from tests.fakediscord.conftest import running
from tests.fakediscord.proxy import ForwardingProxy
from tests.reliability.harness import BotProcess, error_lines


async def test_every_rest_request_of_a_whole_game_goes_through_the_proxy(
        tmp_path: Path) -> None:
    async with FakeDiscord(shards=2) as fake, ForwardingProxy(fake.http_base) as proxy:
        guild = fake.add_guild("Family", shard=1)
        ann, bob = fake.add_person("Ann", guild), fake.add_person("Bob", guild)
        bot = BotProcess(fake, tmp_path / "sequence.db", tmp_path / "bot.log",
                         computer_delay=0.0,
                         extra_env={"DISCORD_API_BASE": proxy.api_base, "SHARD_COUNT": "2"})
        await bot.start()
        try:
            await fake.wait_for(lambda: fake.commands.get(None), 30, "the global command sync")
            await begin_game(fake, ann, bob, timeout=15)
            final = await play_until_over(fake, guild.channel_id, [ann, bob], turn_from_dm)
            assert any(c.startswith("seq:rematch:") for c in final.custom_ids())
        finally:
            assert await bot.stop() == 0, bot.log()[-3000:]
        routes = fake.route_counts()
        for route in ("GET /users/@me", "PUT /applications/{id}/commands",
                      "POST /channels/{id}/messages", "POST /users/@me/channels",
                      "POST /interactions/{id}/{token}/callback"):
            assert routes[route] > 0, (route, routes)
        bypassed = [f"{r.method} {r.path}" for r in fake.requests if r.via != proxy.via]
        assert bypassed == [], "requests that went around the proxy"
        assert proxy.forwarded == len(fake.requests)
        # and the bot's budget held back none of the interaction answers the fake saw
        assert {is_exempt(r.path) for r in fake.requests if r.interaction} == {True}
        assert error_lines(bot.log()) == [], bot.log()[-3000:]


async def test_a_sharded_client_asking_discord_for_its_gateway_asks_through_the_proxy() -> None:
    """discord.py asks ``GET /gateway/bot`` when the shard count is left to Discord (the
    bot always gives ``SHARD_COUNT``, so it never asks). Pointed by ``point_discord_at``,
    as ``bot.py`` points itself, that call goes through the proxy like every other."""
    async with FakeDiscord(shards=2) as fake, ForwardingProxy(fake.http_base) as proxy:
        fake.add_guild("Zero", shard=0)
        fake.add_guild("One", shard=1)
        with fake.pointed_at():  # (put back as it was at the end)
            point_discord_at(proxy.api_base, fake.gateway_url)
            client = discord.AutoShardedClient(intents=discord.Intents.default(),
                                               guild_ready_timeout=0.01)
            async with running(client, fake, timeout=15):
                await fake.wait_until_connected(15)
                assert client.shard_count == 2
        assert any(r.path == "/gateway/bot" for r in fake.requests)
        assert [r.path for r in fake.requests if r.via != proxy.via] == []
