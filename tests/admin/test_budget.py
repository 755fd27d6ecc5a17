"""One token's global budget, shared by the processes that use it (issue 26, item 3).

The rules: a process paces the requests that count against Discord's global limit to its
share, ``limit x SHARE / processes``, smoothly; interaction endpoints and what is not REST
are never held; the processes are counted in the PostgreSQL they share; and a real
discord.py client with the budget sends a burst to a fake Discord that enforces the
global limit without one global 429, where the same burst without it collects some.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import discord
import pytest

from runtime.budget import BURST, HELD, SHARE, GlobalBudget, flow_of, is_exempt
from runtime.fair_pace import FairPace
from store.postgres import PostgresDatabase
from tests.admin.test_fair_pace import Clock
from tests.fakediscord import FakeDiscord
from tests.fakediscord.conftest import running
from tests.fakediscord.limits import is_interaction_endpoint
from tests.waiting import until

BASE = "https://discord.com/api/v10"


@pytest.mark.parametrize("processes", [1, 2, 3, 4, 7, 16])
def test_the_shares_of_all_processes_leave_room_under_the_limit(processes: int) -> None:
    budgets = [GlobalBudget(50, BASE) for _ in range(processes)]
    for budget in budgets:
        budget.set_processes(processes)
    # in any second of their clocks, each lets at most its burst and its rate go: together
    # the token's share, bursts included
    assert sum(b.burst + b.rate for b in budgets) <= 50 * SHARE + 1e-9
    # and with a quarter of a second of delay on the way to Discord, still under its 50
    assert sum(b.burst + b.rate * 1.25 for b in budgets) <= 50


def test_one_process_has_the_whole_share_and_no_limit_means_no_pace() -> None:
    alone = GlobalBudget(50, BASE)
    assert alone.burst == 50 * SHARE * BURST and alone.burst + alone.rate == 50 * SHARE
    assert GlobalBudget(0, BASE).rate == 0


@pytest.mark.parametrize(("crowd_ahead", "boards"), [(0, 5), (1, 3)],
                         ids=["hellos", "dealt hands"])
async def test_boards_of_moves_made_at_once_go_at_once_while_a_room_of_tables_opens(
        crowd_ahead: int, boards: int) -> None:
    # A room of tables opening at once keeps a lone process's budget busy for seconds
    # (hellos, then dealt hands), while people at the tables that started first already
    # move, several in the same instant. With a tenth of the part as the burst (4, with
    # 3 held), only 3 such boards (2 behind a backlog of hands) went at once, and the next
    # waited for a token: the e2e bench's slowest moves.
    alone = GlobalBudget(50, BASE)
    clock = Clock()
    pace = FairPace(alone.rate, alone.burst, held=HELD, clock=clock, sleep=clock.sleep)
    crowd = [asyncio.create_task(pace.take(f"dm-{i}", ahead=crowd_ahead)) for i in range(60)]
    for _ in range(30):  # the backlog has been draining for a while
        await asyncio.sleep(0)
    assert pace.waiting > 20, "a backlog still waits"
    waited = [await pace.take(f"table-{i}", ahead=2) for i in range(boards + 1)]
    token = 1 / alone.rate  # (about 29 ms)
    assert max(waited[:boards]) < token / 100, waited
    assert waited[boards] > token / 2, "the burst is bounded: the next board waits for a token"
    await asyncio.gather(*crowd)


@pytest.mark.parametrize(("url", "counted"), [
    (BASE + "/channels/1/messages", True),
    (BASE + "/channels/1/messages/2", True),
    (BASE + "/users/@me/channels", True),
    (BASE + "/gateway/bot", True),
    (BASE + "/applications/5/commands", True),
    (BASE + "/channels/1/messages?limit=50", True),
    (BASE + "/webhooks/5", True),  # a webhook read with the bot's token counts
    (BASE + "/interactions/9/tok-en/callback", False),
    (BASE + "/interactions/9/tok-en/callback?with_response=true", False),
    (BASE + "/webhooks/5/tok-en", False),  # a followup
    (BASE + "/webhooks/5/tok-en/messages/@original", False),
    ("wss://gateway.discord.gg/?v=10&encoding=json", None),  # not REST
    ("https://cdn.discordapp.com/attachments/1/2/board.png", None),
])
def test_interaction_endpoints_and_what_is_not_rest_are_never_held(
        url: str, counted: bool | None) -> None:
    assert GlobalBudget(50, BASE).counted(url) is counted


def test_each_channel_is_a_flow_of_its_own() -> None:
    assert flow_of("/channels/1/messages") == flow_of("/channels/1/messages/2")
    assert flow_of("/channels/1/messages") != flow_of("/channels/2/messages")
    assert flow_of("/guilds/3/members/4") == "guilds/3"
    assert flow_of("/users/@me") == "users"
    # each DM channel opened is the first request of a person's DMs: a flow of its own
    assert flow_of("/users/@me/channels") != flow_of("/users/@me/channels")


@pytest.mark.parametrize("path", [
    "/interactions/9/tok-en/callback", "/webhooks/5/tok-en", "/webhooks/5/tok/messages/7",
    "/channels/1/messages", "/webhooks/5", "/guilds/3/members/4"])
def test_the_bot_and_the_fake_discord_agree_on_what_is_exempt(path: str) -> None:
    assert is_exempt(path) == is_interaction_endpoint(path)


# -- with a real discord.py client against the fake Discord enforcing the global limit --

class Poster(discord.Client):
    async def burst(self, channel_ids: list[int]) -> int:
        """One message in each channel, all at once (each channel's own limit is 5 in
        5 s: only the global limit can refuse these); how many discord.py gave up on."""
        channels = [self.get_channel(c) for c in channel_ids]
        sent = await asyncio.gather(*(c.send("hello") for c in channels
                                      if isinstance(c, discord.TextChannel)),
                                    return_exceptions=True)
        assert len(sent) == len(channel_ids)
        return sum(1 for s in sent if isinstance(s, discord.HTTPException))


@contextlib.asynccontextmanager
async def strict_discord(channels: int) -> AsyncIterator[FakeDiscord]:
    """The fake with Discord's limits, its global one made 10 per 0.5 s (a shorter second)."""
    async with FakeDiscord(limits=True) as fake:
        fake.limits.global_limit, fake.limits.global_per = 10, 0.5
        fake.add_guild("Many", channels=tuple(f"c{i}" for i in range(channels)))
        with fake.pointed_at():
            yield fake


async def burst_through(fake: FakeDiscord, budget: GlobalBudget) -> int:
    """A burst of messages from a real client with ``budget``: how many failed."""
    guild = next(iter(fake.guilds.values()))
    client = Poster(intents=discord.Intents.default(), guild_ready_timeout=0.01,
                    http_trace=budget.trace)
    async with running(client, fake, timeout=30):
        return await client.burst(guild.channel_ids)


async def test_a_burst_with_the_budget_gets_no_global_429_and_without_it_gets_some() -> None:
    async with strict_discord(30) as fake:
        budget = GlobalBudget(10, fake.api_base, per=0.5)
        assert await burst_through(fake, budget) == 0
        assert fake.limits.global_hits == 0
        assert budget.counts.paced >= 30 and budget.counts.waited > 0
        assert budget.counts.refused == {}
    async with strict_discord(30) as fake:
        unpaced = GlobalBudget(0, fake.api_base)  # counts only, as before this budget
        await burst_through(fake, unpaced)  # (discord.py gives up on some after 5 tries)
        assert fake.limits.global_hits > 0
        assert unpaced.counts.waited == 0
        # every 429 Discord sent was seen, by its scope
        assert unpaced.counts.refused["global"] == fake.limits.global_hits


async def test_the_budget_follows_the_processes_connected_to_postgresql(
        postgres_url: str) -> None:
    first = await PostgresDatabase.connect(postgres_url)
    budget = GlobalBudget(50, BASE)
    try:
        await budget.follow(first.live_processes, every=0.05)
        assert budget.processes == 1 and budget.burst + budget.rate == 40
        second = await PostgresDatabase.connect(postgres_url)  # another process starts
        try:
            await until(lambda: budget.processes == 2, "the second process counted")
            assert budget.burst + budget.rate == 20
        finally:
            await second.close()  # it stops (or dies: its connections go all the same)
        await until(lambda: budget.processes == 1, "the second process gone")
        assert budget.burst + budget.rate == 40
    finally:
        await budget.close()
        await first.close()


async def test_a_count_that_fails_keeps_the_last_share() -> None:
    answers: list[int | Exception] = [3, ConnectionRefusedError("database away")]
    asked = 0

    async def count() -> int:
        nonlocal asked
        answer = answers[min(asked, len(answers) - 1)]
        asked += 1
        if isinstance(answer, Exception):
            raise answer
        return answer

    budget = GlobalBudget(50, BASE)
    await budget.follow(count, every=0.01)
    try:
        await until(lambda: asked >= 3, "a few failed counts")
        assert budget.processes == 3
    finally:
        await budget.close()
