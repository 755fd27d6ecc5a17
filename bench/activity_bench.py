"""The Activity, timed as people meet it: ``python -m bench activity``.

The bot runs as its own process (``python bot.py``, the Activity on a port of its own),
against the fake Discord; Debian's Chromium (headless, driven by Playwright) opens the
pages, and the fake Discord's people play in chat. Every time a person waits is taken where
they wait: in the page (``window.__seq``: when the first board was drawn, when a tapped
chip was drawn, when each table was drawn, by the wall clock the bench shares).

- ``activity_first_board_ms``: a page opened cold (a new browser context: nothing cached)
  to its first board drawn, every picture decoded, the median of several loads (``_max``:
  the slowest);
- ``activity_tap_ms_p99``: a tap on a glowing space to the chip drawn on that screen;
- ``activity_update_ms_p99``: a move made elsewhere (a chat player's number button in the
  DMs, as it reaches Discord) to every open page (the mover's, a player's, a spectator's)
  drawn with it, the slowest page of each move; ``..._two_processes``: the same with two
  bot processes on one PostgreSQL, the move handled by shard 0's process and the pages on
  the other's. People look at the board a moment (``PAUSE``) before they move, as a child
  does; ``*_saturated`` are the same with every move made the instant it may be (the bot
  still busy drawing and posting the move before: its queue, not a person's wait);
- ``activity_bundle_kib_gz``: the page's script and style sheet, gzipped;
- ``activity_extra_cpu_ms_per_move``: the Activity's own CPU per move, with three pages
  open (``_cpu``); ``chat_cpu_ms_per_move``, for scale: the whole bot process's CPU per
  chat move (``/proc/<pid>/stat``, 10 ms ticks, over a whole game).

``run(quick=True)`` plays the first ``QUICK_TURNS`` turns of one game of each, people
looking less long (``QUICK_PAUSE``), one cold load, and no saturated game (it still starts
bot processes, a PostgreSQL and
Chromium); the full run three whole games of each.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import os
import socket
import statistics
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DIST = ROOT / "activity" / "web" / "dist"
SEEDS = (7, 11, 23)
PAUSE = 0.6  # seconds a person looks at the board before moving (a quick child)
QUICK_TURNS = 4  # a quick run's games stop after this many turns: two taps, two chat moves
QUICK_PAUSE = 0.2  # and its people look at the board this long


def run(quick: bool = False) -> dict[str, float]:
    return asyncio.run(_run(quick))


def bundle_kib_gz() -> float:
    """The page's script and style sheet as a browser downloads them, gzipped."""
    size = sum(len(gzip.compress((DIST / name).read_bytes(), 9))
               for name in ("app.js", "app.css"))
    return round(size / 1024, 1)


def p99(values: list[float]) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))], 1)


def cpu_seconds(pid: int) -> float:
    """A process's CPU time so far (user + system)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def _run(quick: bool) -> dict[str, float]:
    from tests.activity.browser import ensure_built

    await asyncio.to_thread(ensure_built)
    figures: dict[str, float] = {"activity_bundle_kib_gz": bundle_kib_gz()}
    games = 1 if quick else 3
    turns = QUICK_TURNS if quick else None
    pause = QUICK_PAUSE if quick else PAUSE
    async with _chromium() as browser:
        figures.update(await _one_process(browser, games, loads=1 if quick else 8,
                                          pause=pause, saturated=not quick, turns=turns))
        figures.update(await _cpu(games, turns))
        figures.update(await _two_processes(browser, games, pause, turns))
    return figures


@contextlib.asynccontextmanager
async def _chromium() -> AsyncIterator[Any]:
    from playwright.async_api import async_playwright

    from tests.activity.browser import CHROMIUM, FLAGS

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=FLAGS, chromium_sandbox=False)
        try:
            yield browser
        finally:
            await browser.close()


@contextlib.asynccontextmanager
async def _bot(fake: Any, folder: Path, seed: int, port: int | None,
               env: dict[str, str] | None = None) -> AsyncIterator[Any]:
    """``python bot.py`` against ``fake``: the Activity on ``port`` (None: off)."""
    from tests.activity.browser import served
    from tests.reliability.harness import BotProcess

    extra = {"SEQUENCE_SEED": str(seed), **(env or {})}
    if port is not None:
        extra.update(ACTIVITY_PORT=str(port),
                     DISCORD_CLIENT_SECRET=fake.activities.client_secret)
    guild = next(iter(fake.guilds.values()))
    bot = BotProcess(fake, folder / f"bot-{seed}-{port}.db", folder / "bot.log",
                     guild_id=guild.id, computer_delay=0.0, extra_env=extra)
    await bot.start()
    try:
        if port is not None:
            await served(f"http://127.0.0.1:{port}/")
        yield bot
    finally:
        await bot.stop()


async def _moved_elsewhere(screens: list[Any], move: Callable[[], Awaitable[float]]
                           ) -> float | None:
    """Make a move (``move`` returns when it reached Discord, by the wall clock, in ms) and
    the time until the last of ``screens`` drew it."""
    before = [await _ply(s) for s in screens]
    sent = await move()
    drawn = []
    for screen, ply in zip(screens, before, strict=True):
        try:
            await screen.page.wait_for_function(
                "ply => window.__seq.updates.some(u => u.ply > ply)", arg=ply, timeout=15000)
        except Exception:
            return None  # (the game ended on that move: no table after it on every page)
        walls = await screen.page.evaluate(
            "ply => window.__seq.updates.filter(u => u.ply > ply).map(u => u.wall)", ply)
        drawn.append(min(walls))
    return max(drawn) - sent


async def _ply(screen: Any) -> int:
    table = screen.table
    return int(table["ply"]) if table and table.get("t") == "table" else -1


def _dm_move_sent(fake: Any, person: Any) -> float:
    """When ``person``'s last move click in the DMs reached Discord, wall clock in ms."""
    offset = time.time() - time.perf_counter()
    clicks = [i for i in fake.interactions.values() if i.user_id == person.id
              and str(i.payload["data"].get("custom_id", "")).startswith(("seq:play:",
                                                                          "seq:spaces:"))]
    return (clicks[-1].sent_at + offset) * 1000


class Timings:
    """What the pages measured, over every game of a run."""

    def __init__(self) -> None:
        self.first: list[float] = []
        self.taps: list[float] = []
        self.updates: list[float] = []
        self.saturated_taps: list[float] = []
        self.saturated_updates: list[float] = []


async def _one_process(browser: Any, games: int, loads: int, pause: float, saturated: bool,
                       turns: int | None = None) -> dict[str, float]:
    timings = Timings()
    with tempfile.TemporaryDirectory() as folder:
        for game in range(games):
            await _timed_game(browser, Path(folder), game, loads if game == 0 else 0,
                              timings, pause, turns)
        if saturated:
            await _timed_game(browser, Path(folder), 0, 0, timings, 0.0)
    first, taps, updates = timings.first, timings.taps, timings.updates
    extra = {"activity_tap_ms_p99_saturated": p99(timings.saturated_taps),
             "activity_update_ms_p99_saturated": p99(timings.saturated_updates)
             } if saturated else {}
    return {
        **extra,
        "activity_first_board_ms": round(statistics.median(first), 1),
        "activity_first_board_ms_max": round(max(first), 1),
        "activity_tap_ms_p99": p99(taps),
        "activity_tap_ms_median": round(statistics.median(taps), 1),
        "activity_update_ms_p99": p99(updates),
        "activity_update_ms_median": round(statistics.median(updates), 1),
        "activity_taps_timed": float(len(taps)),
        "activity_updates_timed": float(len(updates)),
    }


async def _timed_game(browser: Any, folder: Path, game: int, loads: int, timings: Timings,
                      pause: float, turns: int | None = None) -> None:
    """One seeded Kids game: Alice taps on her page, Bob plays from his DMs, Carol watches;
    ``loads`` cold pages opened first; each looks ``pause`` seconds before moving (0: at
    once, timed as saturated)."""
    from tests.activity.browser import open_screen
    from tests.e2e.people import begin_game, play_until_over
    from tests.fakediscord import FakeDiscord

    async with FakeDiscord(activities=True) as fake:
        guild = fake.add_guild("Family")
        alice, bob = fake.add_person("Alice", guild), fake.add_person("Bob", guild)
        carol = fake.add_person("Carol", guild)
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        async with _bot(fake, folder, SEEDS[game], port):
            await begin_game(fake, alice, bob, timeout=10)
            for _ in range(loads):  # cold pages: a new context each
                screen = await open_screen(browser, fake, base, carol, guild.channel_id)
                await screen.page.wait_for_function(
                    "() => window.__seq.firstBoard !== null", timeout=15000)
                timings.first.append(await screen.page.evaluate(
                    "() => window.__seq.firstBoard"))
                await screen.close()
            screens = [await open_screen(browser, fake, base, p, guild.channel_id)
                       for p in (alice, bob, carol)]
            await play_until_over(fake, guild.channel_id, [alice, bob],
                                  _turns(fake, alice, screens, timings, pause),
                                  stop_after=turns)
            taps = timings.taps if pause else timings.saturated_taps
            for tap in await screens[0].page.evaluate("() => window.__seq.taps"):
                if tap["drawn"] is not None:
                    taps.append(tap["drawn"] - tap["at"])
            for screen in screens:
                await screen.close()


def _turns(fake: Any, tapper: Any, screens: list[Any], timings: Timings, pause: float
           ) -> Callable[[Any, Any], Awaitable[None]]:
    """A turn: ``tapper`` taps on the first screen; anyone else plays from the DMs, timed
    to every screen drawn; each after looking ``pause`` seconds (a person's look at the
    board, not a wait for the bot)."""
    from tests.activity.taps import my_turn, tap_a_move
    from tests.e2e.people import turn_from_dm

    updates = timings.updates if pause else timings.saturated_updates

    async def turn(person: Any, board: Any) -> None:
        if person is tapper:
            await my_turn(screens[0])
        if pause:
            await asyncio.sleep(pause)
        if person is tapper:
            await tap_a_move(screens[0])
            return

        async def chat_move() -> float:
            await turn_from_dm(person, board, reload=False)
            return _dm_move_sent(fake, person)

        took = await _moved_elsewhere(screens, chat_move)
        if took is not None:
            updates.append(took)

    return turn


async def _cpu(games: int, turns: int | None = None) -> dict[str, float]:
    """What the Activity costs the bot per move, beside what a chat move costs it.

    The Activity's own work for a move is the hub's (every event of the move to the frames
    of three open pages: two players and a spectator, JSON included) and the checks of the
    page's message; the move itself is the manager's ``submit``, the chat's very call.
    That work is timed on its own thread's CPU clock, in this process, over whole seeded
    games (``_activity_cpu``). A chat move's whole cost to the bot process (the DM clicks
    answered, the choice and board pictures drawn, the posts), for scale, is read from the
    bot process's CPU over a seeded chat game with no page open."""
    chat = []
    with tempfile.TemporaryDirectory() as folder:
        for game in range(games):
            chat.append(await _chat_cpu(Path(folder), game, turns))
        extra = [await _activity_cpu(Path(folder), game, turns) for game in range(games)]
    return {"chat_cpu_ms_per_move": round(statistics.median(chat), 2),
            "activity_extra_cpu_ms_per_move": round(statistics.median(extra), 3)}


async def _chat_cpu(folder: Path, game: int, turns: int | None = None) -> float:
    from tests.e2e.people import begin_game, play_until_over, turn_from_dm
    from tests.fakediscord import FakeDiscord

    async def turn(person: Any, board: Any) -> None:
        await turn_from_dm(person, board, reload=False)

    async with FakeDiscord(activities=True) as fake:
        guild = fake.add_guild("Family")
        alice, bob = fake.add_person("Alice", guild), fake.add_person("Bob", guild)
        async with _bot(fake, folder, SEEDS[game], None) as bot:
            await begin_game(fake, alice, bob, timeout=10)
            assert bot.pid is not None
            before = cpu_seconds(bot.pid)
            await play_until_over(fake, guild.channel_id, [alice, bob], turn,
                                  stop_after=turns)
            spent = cpu_seconds(bot.pid) - before
            moves = sum(1 for i in fake.interactions.values()
                        if str(i.payload["data"].get("custom_id", "")
                               ).startswith(("seq:play:", "seq:spaces:")))
    return spent * 1000 / max(1, moves)


class _Page:
    """An open page as the hub sees it (a ``hub.Viewer``): frames counted, not sent."""

    def __init__(self, user_id: int, channel_id: int) -> None:
        self.user_id, self.channel_id, self.lang = user_id, channel_id, "en"
        self.game_id: int | None = None
        self.frames = 0

    def push(self, text: str) -> None:
        self.frames += 1


async def _activity_cpu(folder: Path, game: int, turns: int | None = None) -> float:
    """The Activity's CPU per move (ms) over one seeded Kids game made by pages."""
    from activity.hub import Hub
    from activity.play import Pace, parse
    from manager import Event, GameManager, Player
    from store import Store

    class Timed:
        """The hub, as the manager's hearer, with its CPU time counted."""

        def __init__(self, hub: Hub) -> None:
            self.hub, self.seconds = hub, 0.0

        def heard(self, event: Event) -> None:
            started = time.thread_time()
            self.hub.heard(event)
            self.seconds += time.thread_time() - started

    store = await Store.open(folder / f"cpu-{game}.db")
    manager = GameManager(store, computer_delay=0.0, seed_source=lambda: SEEDS[game])
    hub = Hub(manager)
    timed = Timed(hub)
    manager.add_listener(timed)
    pace = Pace()
    checks = 0.0
    moves = 0
    try:
        await manager.start(run_timers=False)
        table = await manager.create_lobby("kids", None, Player(1, "Alice"), 10, 100)
        await manager.join(table.game_id, Player(2, "Bob"))
        pages = [_Page(user, 100) for user in (1, 2, 3)]
        for page in pages:
            await hub.open(page)
        await manager.start_game(table.game_id, 1)
        while manager.is_active(table.game_id) and (turns is None or moves < turns):
            view = manager.get(table.game_id)
            assert view.turn is not None
            user = view.seats[view.turn].user_id or 0
            legal = manager.seat_observation(table.game_id, view.turn)["legal"]
            action = next((a for a in legal if "@" in a), legal[0])
            started = time.thread_time()
            message = parse(f'{{"t":"move","action":"{action}","ply":{view.ply}}}')
            pace.allow(user + moves)  # (a bucket per person; a fresh one never says wait)
            checks += time.thread_time() - started
            await manager.submit(table.game_id, user, message["action"],
                                 expected_ply=message["ply"], via="activity")
            moves += 1
        assert all(page.frames > moves for page in pages[:2])
    finally:
        await manager.close()
        await store.close()
    return (timed.seconds + checks) * 1000 / max(1, moves)


async def _two_processes(browser: Any, games: int, pause: float, turns: int | None = None
                         ) -> dict[str, float]:
    from tools.pg_server import PostgresServer, find_bindir

    bindir = find_bindir()
    if bindir is None:
        return {}
    timings = Timings()
    server = PostgresServer(bindir, durable=False).start()
    try:
        for game in range(games):
            with tempfile.TemporaryDirectory() as folder:
                url = await _database(server, game)
                await _two_process_game(browser, Path(folder), url, game, timings, pause,
                                        turns)
    finally:
        server.stop()
    return {"activity_update_ms_p99_two_processes": p99(timings.updates),
            "activity_update_ms_median_two_processes": round(
                statistics.median(timings.updates), 1)}


async def _two_process_game(browser: Any, folder: Path, url: str, game: int,
                            timings: Timings, pause: float, turns: int | None = None) -> None:
    """Bob's DM moves at shard 0's process, the pages (Alice's, Carol's) at the other's."""
    from tests.activity.browser import open_screen, served
    from tests.e2e.people import play_until_over
    from tests.e2e.processes import begin, two_processes
    from tests.fakediscord import FakeDiscord

    ports = {0: free_port(), 1: free_port()}
    async with FakeDiscord(shards=2, activities=True) as fake:
        guild = fake.add_guild("Family", shard=1)
        alice, bob = fake.add_person("Alice", guild), fake.add_person("Bob", guild)
        carol = fake.add_person("Carol", guild)

        def env(shard: int) -> dict[str, str]:
            return {"ACTIVITY_PORT": str(ports[shard]), "SEQUENCE_SEED": str(SEEDS[game]),
                    "DISCORD_CLIENT_SECRET": fake.activities.client_secret}

        async with two_processes(fake, folder, url, env=env):
            base = f"http://127.0.0.1:{ports[1]}"
            for port in ports.values():
                await served(f"http://127.0.0.1:{port}/")
            await begin(fake, alice, bob)
            screens = [await open_screen(browser, fake, base, p, guild.channel_id)
                       for p in (alice, carol)]
            await play_until_over(fake, guild.channel_id, [alice, bob],
                                  _turns(fake, alice, screens, timings, pause),
                                  stop_after=turns)
            for screen in screens:
                await screen.close()


async def _database(server: Any, n: int) -> str:
    """A fresh database for game ``n`` on the bench's own throwaway server."""
    from bench.sharing_bench import create_database

    dbname = f"activity_bench_{n}"
    await create_database(server, dbname)
    return str(server.url(dbname))
