"""A family's page in Debian's Chromium while someone else floods the Activity's doors:
made-up login codes, hellos naming made-up instances, sockets that never say hello. Alice
opens her board in the middle of it and her taps still play; what the flood cost at the
fake Discord is what its bounds allow."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import aiohttp

from runtime.settings import ActivityLimits
from tests.activity.browser import BROWSER
from tests.activity.conftest import a_table
from tests.activity.doors import (
    asked_for_instances,
    asked_for_tokens,
    flood,
    hello,
    log_in,
    made_up_code,
    made_up_instance,
    silent_sockets,
)
from tests.activity.taps import tap_a_move
from tests.e2e.people import begin_game, play_until_over, turn_from_dm
from tests.fakediscord import FakeMessage, Person

pytestmark = BROWSER

MALLORY = "10.0.0.66"  # where the flood comes from, as the proxy in front says
LIMITS = ActivityLimits(trusted_proxies=("127.0.0.1",), source_login_burst=5,
                        source_logins_per_minute=6, person_lookup_burst=3,
                        person_lookups_per_minute=6, silent_sockets=40, silent_grace=0.5)


async def test_a_familys_page_plays_on_through_someone_elses_flood(
        tmp_path: Path, browser: Any) -> None:
    async with a_table(tmp_path, browser, game_seed=7, activity_limits=LIMITS) as table, \
            aiohttp.ClientSession() as http:
        fake, base = table.discord, table.base
        await begin_game(fake, table["Alice"], table["Bob"])
        carol_code = fake.activities.authorize(table["Carol"])
        status, body, _ = await log_in(http, base, carol_code, source="10.0.0.67")
        assert status == 200
        stop = asyncio.Event()
        logins = asyncio.create_task(flood(
            lambda: log_in(http, base, made_up_code(), source=MALLORY), 400, stop=stop))
        hellos = asyncio.create_task(flood(
            lambda: hello(http, base, body["session"], made_up_instance()), 200, stop=stop))
        held = await silent_sockets(http, base, 60)
        try:
            alice = await table.screen("Alice")  # opened in the middle of it all
            taps = 0

            async def turn(person: Person, board: FakeMessage) -> None:
                nonlocal taps
                if person is table["Alice"]:
                    await tap_a_move(alice)
                    taps += 1
                else:
                    await turn_from_dm(person, board)

            await play_until_over(fake, table.guild.channel_id,
                                  [table["Alice"], table["Bob"]], turn, stop_after=4)
            assert taps >= 2, "Alice's taps played"
        finally:
            stop.set()
            refused_logins = await logins
            refused_hellos = await hellos
            for ws in held:
                await ws.close()
        assert sum(1 for s, _, _ in refused_logins if s == 429) >= len(refused_logins) - 5
        assert asked_for_tokens(fake) <= 1 + 5 + 1, "Carol, Mallory's 5, Alice"
        # each hello refused: busy (past Carol's bucket), or at the door (503: the silent
        # sockets all taken), or, for at most her bucket's 3, not here (Discord's 404)
        codes = [code for _, code in refused_hellos]
        assert set(codes) <= {1013, 503, 4003} and codes.count(4003) <= 3, codes
        assert asked_for_instances(fake) <= 3 + 1 + 2, "Carol's 3, Alice's (and late listing)"


async def banner_of(screen: Any) -> str:
    """The line over the page now ("" when none)."""
    return str(await screen.page.evaluate(
        "() => document.getElementById('banner').hidden ? '' :"
        " document.getElementById('banner-text').textContent"))


async def test_a_page_told_many_are_logging_in_says_so_and_gets_in_when_told(
        tmp_path: Path, browser: Any) -> None:
    limits = ActivityLimits(logins_per_minute=6, login_burst=1)  # one every 10 s
    async with a_table(tmp_path, browser, game_seed=7, activity_limits=limits) as table, \
            aiohttp.ClientSession() as http:
        await begin_game(table.discord, table["Alice"], table["Bob"])
        assert (await log_in(http, table.base, made_up_code()))[0] == 401  # the one token
        alice = await table.screen("Alice")
        await alice.page.wait_for_function(
            "() => !document.getElementById('banner').hidden && document.getElementById("
            "'banner-text').textContent.startsWith('Many people are opening the board')")
        await tap_a_move(alice)  # in once the bot said so, with the same code


async def test_a_screen_closed_for_a_newer_one_of_its_persons_says_why_and_stays_closed(
        tmp_path: Path, browser: Any) -> None:
    limits = ActivityLimits(sockets_per_person=2)
    async with a_table(tmp_path, browser, game_seed=7, activity_limits=limits) as table:
        await begin_game(table.discord, table["Alice"], table["Bob"])
        first = await table.screen("Alice")
        await first.table_where(lambda t: t["status"] == "playing", "the first screen")
        second = await table.screen("Alice")
        await second.table_where(lambda t: t["status"] == "playing", "the second screen")
        third = await table.screen("Alice")
        await tap_a_move(third)
        await first.wait_for(lambda: any(f.get("code") == "elsewhere" for f in first.frames),
                             "the first screen told why")
        await first.page.wait_for_selector("#banner.stuck")
        assert (await banner_of(first)).startswith("This board is open on too many")
        assert first.moves_sent() == [] and len(
            [f for f in first.frames if f["t"] == "welcome"]) == 1, "it did not reconnect"
