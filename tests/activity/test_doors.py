"""The Activity's doors under abuse, through the real bot and the fake Discord: a flood of
made-up login codes, of hellos naming made-up instances, of sockets that never say hello,
is refused past small bounds, and what it cost at Discord is counted there, not assumed;
one source or person cannot take another's share; Discord's own 429 is honoured."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import types
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest

from activity.login import DiscordLogin, LoginRefused
from runtime.fair_pace import BELOW
from runtime.settings import ActivityLimits
from tests.activity.conftest import a_table
from tests.activity.doors import (
    asked_for_instances,
    asked_for_tokens,
    hello,
    log_in,
    made_up_code,
    made_up_instance,
)
from tests.activity.pages import PageClient
from tests.activity.test_server import placing, started
from tests.e2e.scrape import scrape
from tests.waiting import until

SMALL = ActivityLimits(logins_per_minute=1, login_burst=5, source_logins_per_minute=1,
                       source_login_burst=3, lookups_per_minute=1, lookup_burst=8,
                       person_lookups_per_minute=1, person_lookup_burst=3,
                       incident_quiet=0.3)


async def test_a_flood_of_made_up_codes_costs_discord_nothing_past_the_bucket(
        tmp_path: Path) -> None:
    async with a_table(tmp_path, activity_limits=SMALL, game_seed=7) as table, \
            aiohttp.ClientSession() as http:
        answers = [await log_in(http, table.base, made_up_code()) for _ in range(40)]
        statuses = [status for status, _, _ in answers]
        assert statuses == [401] * 5 + [429] * 35, "Discord refused the first 5 itself"
        assert asked_for_tokens(table.discord) == 5
        _, body, headers = answers[-1]
        assert int(headers["Retry-After"]) >= 1 and body["error"] == "busy"
        assert body["text"].startswith("Many people are opening the board")


async def test_a_code_not_of_discords_shape_is_refused_before_anything_is_asked(
        tmp_path: Path) -> None:
    async with a_table(tmp_path, game_seed=7) as table, aiohttp.ClientSession() as http:
        for code in ("x" * 65, "made-up", "abc def", "", "ÆØÅ" * 5, "a/../b"):
            status, body, _ = await log_in(http, table.base, code)
            assert (status, body["error"]) == (400, "bad_code"), code
        async with http.post(f"{table.base}/.proxy/api/token", json={"code": 123}) as r:
            assert r.status == 400
        assert asked_for_tokens(table.discord) == 0


async def test_a_flood_from_one_source_leaves_another_sources_login_working(
        tmp_path: Path) -> None:
    limits = ActivityLimits(**{**vars(SMALL), "trusted_proxies": ("127.0.0.1",),
                               "login_burst": 20})
    async with a_table(tmp_path, activity_limits=limits, game_seed=7) as table, \
            aiohttp.ClientSession() as http:
        flood = [(await log_in(http, table.base, made_up_code(), source="10.0.0.7"))[0]
                 for _ in range(30)]
        assert flood == [401] * 3 + [429] * 27, "the source's own bucket: 3"
        code = table.discord.activities.authorize(table["Alice"])
        status, body, _ = await log_in(http, table.base, code, source="10.0.0.8")
        assert status == 200 and body["user"]["name"] == "Alice"
        assert asked_for_tokens(table.discord) == 3 + 1


async def test_a_header_anyone_can_write_is_no_source(tmp_path: Path) -> None:
    # no trusted proxy: whatever X-Forwarded-For says, every login shares the bucket in all
    async with a_table(tmp_path, activity_limits=SMALL, game_seed=7) as table, \
            aiohttp.ClientSession() as http:
        flood = [(await log_in(http, table.base, made_up_code(), source=f"10.0.0.{i}"))[0]
                 for i in range(20)]
        assert flood == [401] * 5 + [429] * 15
        assert asked_for_tokens(table.discord) == 5


async def test_discords_429_on_logins_shuts_the_door_until_it_said(tmp_path: Path) -> None:
    async with a_table(tmp_path, game_seed=7) as table, aiohttp.ClientSession() as http:
        table.discord.faults.rate_limit(path=r"^/oauth2/token$", retry_after=1.0)
        alice = table.discord.activities.authorize(table["Alice"])
        status, _, headers = await log_in(http, table.base, alice)
        assert status == 429 and headers["Retry-After"] == "1", "not tried again"
        assert asked_for_tokens(table.discord) == 1
        bob = table.discord.activities.authorize(table["Bob"])
        for _ in range(10):
            assert (await log_in(http, table.base, bob))[0] == 429
        assert asked_for_tokens(table.discord) == 1, "nothing sent while Discord said wait"

        async def logs_in() -> bool:  # (the same code: Discord did not use it)
            return (await log_in(http, table.base, alice))[0] == 200

        await until(logs_in, "a login once Discord's wait is over")


async def test_a_flood_of_hellos_naming_made_up_instances_costs_at_most_the_persons_bucket(
        tmp_path: Path) -> None:
    async with a_table(tmp_path, activity_limits=SMALL, game_seed=7) as table, \
            aiohttp.ClientSession() as http:
        carol = PageClient(table.base, table["Carol"])
        table.pages.append(carol)
        session = await carol.login(table.discord.activities.authorize(table["Carol"]))
        refused = [await hello(http, table.base, session, made_up_instance())
                   for _ in range(30)]
        codes = [code for _, code in refused]
        assert codes == [4003] * 3 + [1013] * 27, "3 asked (a 404 each, not tried again)"
        assert asked_for_instances(table.discord) == 3
        frames, _ = refused[-1]
        assert [f["code"] for f in frames] == ["busy"]


async def test_an_instance_discord_does_not_know_is_remembered(tmp_path: Path) -> None:
    async with a_table(tmp_path, game_seed=7) as table, aiohttp.ClientSession() as http:
        carol = PageClient(table.base, table["Carol"])
        table.pages.append(carol)
        session = await carol.login(table.discord.activities.authorize(table["Carol"]))
        made_up = made_up_instance()
        for _ in range(10):
            frames, code = await hello(http, table.base, session, made_up)
            assert code == 4003 and [f["code"] for f in frames] == ["not_here"]
        assert asked_for_instances(table.discord) == 1, "asked again, it costs nothing"


async def test_a_person_the_instance_does_not_list_is_asked_three_times_then_remembered(
        tmp_path: Path) -> None:
    async with a_table(tmp_path, game_seed=7) as table, aiohttp.ClientSession() as http:
        alice = await table.page("Alice")
        await alice.wait_for(lambda: alice.frames, "Alice placed")
        assert alice.instance is not None
        asked = asked_for_instances(table.discord)
        carol = PageClient(table.base, table["Carol"])
        table.pages.append(carol)
        session = await carol.login(table.discord.activities.authorize(table["Carol"]))
        for _ in range(5):
            _, code = await hello(http, table.base, session, alice.instance)
            assert code == 4003
        # the first hello: the cached instance, then twice afresh (she may be listed late)
        assert asked_for_instances(table.discord) - asked == 2


async def test_one_persons_flood_of_hellos_leaves_anothers_hello_working(
        tmp_path: Path) -> None:
    async with a_table(tmp_path, activity_limits=SMALL, game_seed=7) as table, \
            aiohttp.ClientSession() as http:
        await started(table, "Bob")
        carol = PageClient(table.base, table["Carol"])
        table.pages.append(carol)
        session = await carol.login(table.discord.activities.authorize(table["Carol"]))
        flood = await asyncio.gather(*(hello(http, table.base, session, made_up_instance())
                                       for _ in range(40)))
        assert sorted(code for _, code in flood) == [1013] * 37 + [4003] * 3
        alice = await table.page("Alice")
        frame = await alice.my_turn()
        await alice.play(placing(frame), frame["ply"])


async def test_discords_429_on_look_ups_shuts_them_until_it_said(tmp_path: Path) -> None:
    async with a_table(tmp_path, game_seed=7) as table, aiohttp.ClientSession() as http:
        carol = PageClient(table.base, table["Carol"])
        table.pages.append(carol)
        session = await carol.login(table.discord.activities.authorize(table["Carol"]))
        table.discord.faults.rate_limit(path="/activity-instances/", retry_after=30.0)
        for _ in range(5):
            frames, code = await hello(http, table.base, session, made_up_instance())
            assert code == 1013 and [f["code"] for f in frames] == ["busy"]
        assert asked_for_instances(table.discord) == 1, "nothing asked while Discord said wait"


async def test_past_the_silent_sockets_a_new_one_is_refused_while_the_others_connect_and_play(
        tmp_path: Path) -> None:
    limits = ActivityLimits(silent_sockets=3, silent_grace=60.0)
    async with a_table(tmp_path, activity_limits=limits, game_seed=7) as table, \
            aiohttp.ClientSession() as http:
        await started(table, "Bob")
        alice = await table.page("Alice")  # playing already
        bob_code = table.discord.activities.authorize(table["Bob"])
        bob_session = (await log_in(http, table.base, bob_code))[1]["session"]
        bob_instance = table.discord.activities.open(table["Bob"], table.guild.channel_id).id
        silent = [await http.ws_connect(f"{table.base}/.proxy/ws") for _ in range(3)]
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await http.ws_connect(f"{table.base}/.proxy/ws")
        assert refused.value.status == 503, "refused before the upgrade"
        frame = await alice.my_turn()
        await alice.play(placing(frame), frame["ply"])
        # one of the silent three was Bob's page, slow to speak: it says hello and is in
        bob = silent[0]
        await bob.send_json({"t": "hello", "session": bob_session, "instance": bob_instance})
        seen = []
        while not any(f["t"] == "table" and f["ply"] > frame["ply"] for f in seen):
            seen.append(await bob.receive_json(timeout=10))
        assert seen[0]["t"] == "welcome"
        for ws in silent:
            await ws.close()


async def test_a_silent_socket_past_its_grace_makes_room_for_a_page(tmp_path: Path) -> None:
    limits = ActivityLimits(silent_sockets=3, silent_grace=0.0)
    async with a_table(tmp_path, activity_limits=limits, game_seed=7) as table, \
            aiohttp.ClientSession() as http:
        silent = [await http.ws_connect(f"{table.base}/.proxy/ws") for _ in range(3)]
        alice = await table.page("Alice")
        await alice.wait_for(lambda: alice.frames[1:], "Alice's first frames")
        closed = await silent[0].receive()
        assert closed.type == aiohttp.WSMsgType.CLOSE and closed.data == 1013
        for ws in silent:
            await ws.close()


async def test_a_silent_socket_is_closed_once_its_time_to_say_hello_is_out(
        tmp_path: Path) -> None:
    limits = ActivityLimits(hello_seconds=0.2)
    async with a_table(tmp_path, activity_limits=limits, game_seed=7) as table, \
            aiohttp.ClientSession() as http:
        async with http.ws_connect(f"{table.base}/.proxy/ws") as ws:
            closed = await ws.receive(timeout=10)
            assert closed.type == aiohttp.WSMsgType.CLOSE
        activity = table.bot.activity_app
        assert activity is not None and activity.refusals.counts["hello"] == 1


async def test_a_persons_socket_past_their_limit_closes_the_one_heard_from_least_lately(
        tmp_path: Path) -> None:
    limits = ActivityLimits(sockets_per_person=2)
    async with a_table(tmp_path, activity_limits=limits, game_seed=7) as table:
        await started(table, "Bob")
        phone = await table.page("Alice")
        tablet = await table.page("Alice")
        await phone.wait_for(lambda: phone.table, "the phone's table")
        await tablet.wait_for(lambda: tablet.table, "the tablet's table")
        await phone.send({"t": "ping"})  # (the phone is in use; the tablet lies idle)
        await phone.wait_for(lambda: any(f["t"] == "pong" for f in phone.frames), "pong")
        reloaded = await table.page("Alice")  # a third screen: the newest always gets in
        await tablet.wait_for(lambda: tablet.closed_with is not None, "the tablet closed")
        assert tablet.closed_with == 4009
        assert [f["code"] for f in tablet.refusals()] == ["elsewhere"]
        assert tablet.refusals()[0]["text"].startswith("This board is open on too many")
        frame = await reloaded.my_turn()
        await reloaded.play(placing(frame), frame["ply"])
        assert phone.closed_with is None


async def test_a_flood_is_one_log_line_as_it_starts_and_one_as_it_ends(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="activity")
    async with a_table(tmp_path, activity_limits=SMALL, game_seed=7) as table, \
            aiohttp.ClientSession() as http:
        for _ in range(30):
            await log_in(http, table.base, made_up_code())

        def said() -> list[str]:
            return [r.getMessage() for r in caplog.records
                    if r.getMessage().startswith("Activity logins refused: over the limit")]

        await until(lambda: len(said()) >= 2, "the flood's end in the log")
        started_line, ended = said()
        assert started_line == "Activity logins refused: over the limit in all (started)"
        assert ended.startswith("Activity logins refused: over the limit in all ended: "
                                "25 refused in ")


async def test_metrics_count_the_refusals_by_door(tmp_path: Path) -> None:
    limits = ActivityLimits(**{**vars(SMALL), "silent_sockets": 1, "silent_grace": 60.0})
    async with a_table(tmp_path, activity_limits=limits, metrics_port=0,
                       game_seed=7) as table, \
            aiohttp.ClientSession() as http:
        assert table.bot.watching is not None
        before = await scrape(table.bot.watching.url)
        assert {before["sequence_activity_refused_total", {"door": d}]
                for d in ("login", "instance", "socket", "hello")} == {0}
        carol = PageClient(table.base, table["Carol"])
        table.pages.append(carol)
        session = await carol.login(table.discord.activities.authorize(table["Carol"]))
        for _ in range(8):  # (4 left in the bucket: Discord refuses those, the bot the rest)
            await log_in(http, table.base, made_up_code())
        for _ in range(4):
            await hello(http, table.base, session, made_up_instance())
        async with http.ws_connect(f"{table.base}/.proxy/ws") as silent:
            with pytest.raises(aiohttp.WSServerHandshakeError):
                await http.ws_connect(f"{table.base}/.proxy/ws")
            await silent.send_str("not a hello")
            await silent.receive()
        after = await scrape(table.bot.watching.url)
        assert {d: after["sequence_activity_refused_total", {"door": d}]
                for d in ("login", "instance", "socket", "hello")} == {
            "login": 8, "instance": 4, "socket": 1, "hello": 1}


async def test_a_look_up_goes_at_the_rest_budgets_lowest_step(tmp_path: Path) -> None:
    steps: list[int] = []

    @contextlib.contextmanager
    def urgent(step: int) -> Iterator[None]:  # (the bot's: GlobalBudget.urgent)
        steps.append(step)
        yield

    async with a_table(tmp_path) as table:
        activity = table.bot.activity_app
        assert activity is not None
        login = DiscordLogin(table.discord.api_base, table.discord.token,
                             table.discord.activities.client_secret, urgent=urgent)
        login.application_id = activity.login.application_id
        try:
            with pytest.raises(LoginRefused):
                await login.place(made_up_instance(), table["Carol"].id)
        finally:
            await login.close()
    assert steps == [BELOW] and asked_for_instances(table.discord) == 1


@contextlib.contextmanager
def garbage_kept() -> Iterator[list[object]]:
    """What the cycle collector finds meanwhile, kept for the test to read (its full pass
    pauses every game, for as long as what it frees is large)."""
    gc.collect()
    gc.garbage.clear()
    kept: list[object] = []
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        yield kept
        gc.collect()
        kept.extend(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()


def of_the_doors(garbage: list[object], port: int) -> list[str]:
    """The sockets, the frames of the Activity's own code, and the transports of the
    connections the Activity (on ``port``) took, among ``garbage``."""
    def named(o: object) -> str:
        return (f"{o.f_code.co_qualname} frame" if isinstance(o, types.FrameType)
                else type(o).__name__)

    return [named(o) for o in garbage
            if isinstance(o, aiohttp.web.WebSocketResponse)
            or (isinstance(o, types.FrameType) and "/activity/" in o.f_code.co_filename)
            or (isinstance(o, asyncio.Transport)
                and (o.get_extra_info("sockname") or (None, None))[1] == port)]


def timers_on_closed_sockets() -> list[str]:
    """The loop's timers armed for a socket that is closed (a heartbeat that outlived it
    holds the socket, then leaves it in a cycle)."""
    scheduled: list[asyncio.TimerHandle] = asyncio.get_running_loop()._scheduled  # type: ignore[attr-defined]
    armed = [h._callback for h in scheduled if not h.cancelled()]  # type: ignore[attr-defined]
    return [callback.__qualname__ for callback in armed
            if isinstance(getattr(callback, "__self__", None), aiohttp.web.WebSocketResponse)
            and callback.__self__.closed]


async def test_a_refused_knock_leaves_nothing_for_the_cycle_collector(
        tmp_path: Path) -> None:
    limits = ActivityLimits(silent_sockets=2, silent_grace=0.0, hello_seconds=0.3,
                            person_lookups_per_minute=1, person_lookup_burst=2)
    async with a_table(tmp_path, activity_limits=limits, game_seed=7) as table, \
            aiohttp.ClientSession() as http:
        activity = table.bot.activity_app
        assert activity is not None and activity.server is not None
        server = activity.server
        carol = PageClient(table.base, table["Carol"])
        table.pages.append(carol)
        session = await carol.login(table.discord.activities.authorize(table["Carol"]))
        with garbage_kept() as garbage:
            for _ in range(4):  # (a 404, then the person's bucket: 4003, 4003, 1013, 1013)
                await hello(http, table.base, session, made_up_instance())
            await hello(http, table.base, "not a session", made_up_instance())
            silent = [await http.ws_connect(f"{table.base}/.proxy/ws") for _ in range(3)]
            for ws in silent:  # (the first made room for the third; then their time ran out)
                await ws.receive(timeout=10)
                await ws.close()
            await until(lambda: activity.refusals.counts["hello"] >= 3,
                        "the silent sockets closed by the bot")
            await until(lambda: server.open_sockets() == 0, "every socket let go of")
        assert activity.refusals.counts["instance"] == 4
        assert of_the_doors(garbage, activity.port) == []
        assert timers_on_closed_sockets() == []
