"""``DISCORD_API_BASE`` at a REST proxy: every REST call of the bot goes through it.

An admin who runs several processes on one token may put a rate-limit proxy between them
and Discord (docs/SCALING.md). Here a forwarding proxy on 127.0.0.1 stands in front of the
fake Discord, and a sharded ``python bot.py`` is told only ``DISCORD_API_BASE`` (the
gateway stays direct, as with a real proxy). A whole game is played; every request the
fake saw carries the proxy's ``Via`` mark, so none went around it: the login, the command
sync, the game's messages, DMs and deletions, and the interaction answers too.
"""

from __future__ import annotations

from pathlib import Path

from runtime.budget import is_exempt
from tests.e2e.people import begin_game, play_until_over, turn_from_dm
from tests.fakediscord import FakeDiscord
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
