"""Rate limits through the fake Discord (issue 19): what counts, and Discord's limits enforced.

Counting is always on. Enforcement is switched on per test: the token's global 50 requests a
second (interaction endpoints exempt) and 5 messages per 5 s in one channel, answered with
Discord's 429 and headers, which the real discord.py reads and waits on.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import discord
import pytest

from tests.fakediscord import FakeDiscord, route_of
from tests.fakediscord.conftest import running
from tests.fakediscord.tiny_bot import TinyBot

MESSAGES = "/channels/{id}/messages"


class Poster(discord.Client):
    def __init__(self) -> None:
        super().__init__(intents=discord.Intents.default(), guild_ready_timeout=0.01)

    async def burst(self, channel_id: int, n: int) -> list[discord.Message]:
        """Post ``n`` messages at once, as fast as discord.py lets them go."""
        channel = self.get_channel(channel_id)
        assert isinstance(channel, discord.TextChannel)
        return await asyncio.gather(*(channel.send(f"message {i}") for i in range(n)))


@pytest.fixture
async def poster(fake: FakeDiscord) -> AsyncIterator[Poster]:
    async with running(Poster(), fake) as client:
        yield client  # type: ignore[misc]


@pytest.fixture
async def raw(fake: FakeDiscord) -> AsyncIterator[aiohttp.ClientSession]:
    """A client that ignores rate limits, to see exactly what the fake answers."""
    async with aiohttp.ClientSession(fake.api_base + "/", headers={
            "Authorization": f"Bot {fake.token}"}) as session:
        yield session


async def post(raw: aiohttp.ClientSession, channel_id: int, text: str = "hi"
               ) -> tuple[int, dict[str, str], Any]:
    async with raw.post(f"channels/{channel_id}/messages", json={"content": text}) as answer:
        return answer.status, dict(answer.headers), await answer.json()


def most_in_any_window(times: list[float], per: float) -> int:
    return max((sum(1 for u in times if t <= u < t + per) for t in times), default=0)


def test_a_route_names_the_request_without_ids_or_tokens() -> None:
    assert route_of("POST", "/channels/123/messages") == "POST /channels/{id}/messages"
    assert route_of("POST", "/interactions/9/itoken-abc/callback") == \
        "POST /interactions/{id}/{token}/callback"
    assert route_of("PATCH", "/webhooks/7/itoken-abc/messages/@original") == \
        "PATCH /webhooks/{id}/{token}/messages/@original"
    assert route_of("GET", "/users/@me") == "GET /users/@me"


async def test_requests_are_split_into_rate_limited_ones_and_interaction_ones(
        fake: FakeDiscord, tiny: TinyBot) -> None:
    alice = next(iter(fake.people.values()))
    before = len(fake.requests)
    reply = await (await alice.slash("post")).reply()  # defer, post, edit, followup
    assert reply.content == "posted"
    made = fake.requests[before:]
    assert fake.route_counts(r for r in made if not r.interaction) == {
        "POST /channels/{id}/messages": 1, "PATCH /channels/{id}/messages/{id}": 1}
    assert fake.route_counts(r for r in made if r.interaction) == {
        "POST /interactions/{id}/{token}/callback": 1, "POST /webhooks/{id}/{token}": 1}
    assert all(not r.interaction for r in fake.rate_limited_requests())
    assert all(r.interaction for r in fake.interaction_requests())
    assert len(fake.rate_limited_requests()) + len(fake.interaction_requests()) == \
        len(fake.requests)


async def test_limits_are_off_by_default(fake: FakeDiscord, raw: aiohttp.ClientSession) -> None:
    channel = next(iter(fake.guilds.values())).channel_id
    answers = [await post(raw, channel) for _ in range(7)]
    assert [status for status, _, _ in answers] == [200] * 7
    assert all("X-RateLimit-Remaining" not in headers for _, headers, _ in answers)
    assert fake.rate_limit_hits == 0


async def test_a_sixth_message_in_five_seconds_gets_discords_429(
        fake: FakeDiscord, raw: aiohttp.ClientSession) -> None:
    fake.limits.enable()
    guild = next(iter(fake.guilds.values()))
    channel = guild.channel_id
    answers = [await post(raw, channel) for _ in range(6)]
    assert [status for status, _, _ in answers] == [200] * 5 + [429]
    assert [h["X-RateLimit-Remaining"] for _, h, _ in answers[:5]] == ["4", "3", "2", "1", "0"]
    assert {h["X-RateLimit-Limit"] for _, h, _ in answers} == {"5"}
    bucket = answers[0][1]["X-RateLimit-Bucket"]
    assert all(h["X-RateLimit-Bucket"] == bucket for _, h, _ in answers)
    _, headers, body = answers[5]
    assert body["message"] == "You are being rate limited." and body["global"] is False
    assert 4.0 < body["retry_after"] <= 5.0
    assert headers["Retry-After"] == "5" and headers["X-RateLimit-Scope"] == "user"
    assert "X-RateLimit-Global" not in headers and float(headers["X-RateLimit-Reset-After"]) > 4
    assert float(headers["X-RateLimit-Reset"]) > time.time() + 4
    assert fake.rate_limit_hits == 1
    assert len(fake.visible_messages(channel)) == 5
    other = fake.add_guild("Other").channel_id  # another channel has its own 5
    assert (await post(raw, other))[0] == 200


async def test_a_bot_posting_as_fast_as_it_can_gets_every_message_through_at_five_per_five_s(
        fake: FakeDiscord, poster: Poster) -> None:
    channel = next(iter(fake.guilds.values())).channel_id
    fake.limits.enable()
    started = time.perf_counter()
    sent = await asyncio.wait_for(poster.burst(channel, 7), 15)
    elapsed = time.perf_counter() - started
    assert sorted(m.content for m in sent) == [f"message {i}" for i in range(7)]
    assert len(fake.visible_messages(channel)) == 7
    times = fake.limits.admitted_times("POST", MESSAGES, channel)
    assert len(times) == 7 and most_in_any_window(times, 5.0) == 5
    assert elapsed >= 4.9, elapsed
    # discord.py saw remaining=0 in the headers and waited: not one 429 was needed
    assert fake.rate_limit_hits == 0


@pytest.mark.slow
async def test_twelve_messages_take_two_more_windows(fake: FakeDiscord, poster: Poster) -> None:
    channel = next(iter(fake.guilds.values())).channel_id
    fake.limits.enable()
    started = time.perf_counter()
    await asyncio.wait_for(poster.burst(channel, 12), 25)
    assert time.perf_counter() - started >= 9.9
    times = fake.limits.admitted_times("POST", MESSAGES, channel)
    assert len(times) == 12 and most_in_any_window(times, 5.0) == 5
    assert len(fake.visible_messages(channel)) == 12


async def test_the_global_limit_is_50_a_second_and_interactions_are_exempt(
        fake: FakeDiscord, tiny: TinyBot, raw: aiohttp.ClientSession) -> None:
    alice = next(iter(fake.people.values()))
    fake.limits.enable()
    statuses = []
    for _ in range(51):
        async with raw.get("users/@me") as answer:
            statuses.append(answer.status)
            headers, body = dict(answer.headers), await answer.json()
    assert statuses == [200] * 50 + [429]
    assert body["global"] is True and 0 < body["retry_after"] <= 1.0
    assert headers["X-RateLimit-Global"] == "true" and headers["X-RateLimit-Scope"] == "global"
    assert "Retry-After" in headers
    # the budget is spent, yet the bot still answers a command: the callback is exempt
    interaction = await alice.slash("ping", n=2)
    assert (await interaction.reply()).content == "pong 2"
    callback = [r for r in fake.requests if r.route.endswith("/callback")][-1]
    assert callback.status == 200 and callback.interaction
    assert fake.limits.global_hits == 1 and fake.rate_limit_hits == 1


async def test_a_bot_over_the_global_limit_waits_out_the_429_and_gets_its_answers(
        fake: FakeDiscord, poster: Poster) -> None:
    alice = next(iter(fake.people.values()))
    fake.limits.enable()
    fake.limits.global_limit = 3  # a small budget, so the test needs no 50 requests
    users = await asyncio.wait_for(
        asyncio.gather(*(poster.fetch_user(alice.id) for _ in range(6))), 10)
    assert [u.name for u in users] == ["Alice"] * 6
    assert fake.limits.global_hits >= 1
    fetched = [r for r in fake.requests if r.route == "GET /users/{id}"]
    assert [r.status for r in fetched].count(200) == 6
