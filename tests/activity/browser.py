"""The Activity's page in a real browser: Debian's Chromium, headless, driven by Playwright
(its Python package only; it never downloads a browser: ``executable_path`` is Debian's).

One Chromium per test process (``browser``, session-scoped, on the session's event loop;
the browser tests run there too: ``pytestmark = BROWSER``), a new context and page per
person per test. Chromium runs as root here, so it needs ``--no-sandbox``; each launch gets
a fresh profile of its own (Playwright's temporary ``--user-data-dir``), and nothing that
would reach out (updates, sync, QUIC) is on.

``ensure_built`` builds the page (``npm ci`` then ``node build.mjs``, as ``make activity``
does) when ``dist/`` is missing or older than its sources, once per machine at a time.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import os
import shutil
import socket
import subprocess
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any, TypeVar

import aiohttp
import pytest
import pytest_asyncio

from tests.fakediscord import FakeDiscord, Person

T = TypeVar("T")

WEB = Path(__file__).resolve().parents[2] / "activity" / "web"
CHROMIUM = Path("/usr/bin/chromium")
FLAGS = ["--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage"]
PHONE = {"width": 360, "height": 740}
TABLET = {"width": 1280, "height": 800}
SEAMS_JS = Path(__file__).with_name("seams.js")  # what the tests read in the page
SCREENS = Path(os.environ.get("ACTIVITY_SCREENS", "/work/team/screens"))
BROWSER = pytest.mark.asyncio(loop_scope="session")


def _stale(dist: Path) -> bool:
    built = dist / "app.js"
    if not built.is_file() or not (dist / "index.html").is_file():
        return True
    newest = max(p.stat().st_mtime for p in [*(WEB / "src").rglob("*"), WEB / "build.mjs",
                                              WEB / "package-lock.json"])
    return built.stat().st_mtime < newest


def ensure_built() -> None:
    """The page built into ``activity/web/dist`` (a lock keeps two test processes from
    building it at once)."""
    dist = WEB / "dist"
    if not _stale(dist):
        return
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        _missing("Node.js and npm are not installed (apt-get install nodejs npm)")
    with (WEB / ".build.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not _stale(dist):
            return
        if not (WEB / "node_modules" / "esbuild").is_dir():
            subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=WEB, check=True,
                           capture_output=True)
        subprocess.run([node, "build.mjs"], cwd=WEB, check=True, capture_output=True)


def _missing(why: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"{why}: under CI=true the Activity's browser tests must run")
    pytest.skip(f"{why}: the Activity's browser tests are skipped")


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def browser() -> AsyncIterator[Any]:
    """Debian's Chromium, headless, for the whole run of this test process."""
    if not CHROMIUM.is_file():
        _missing("Chromium is not installed (apt-get install chromium)")
    try:
        from playwright.async_api import async_playwright
    except ImportError:
        _missing("the playwright package is not installed (pip install -e '.[dev]')")
    await asyncio.to_thread(ensure_built)
    async with async_playwright() as playwright:
        chromium = await playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=FLAGS, chromium_sandbox=False, headless=True)
        try:
            yield chromium
        finally:
            await chromium.close()


class Screen:
    """One person's page in the browser, and every WebSocket frame it received."""

    def __init__(self, context: Any, page: Any, person: Person | None) -> None:
        self.context = context
        self.page = page
        self.person = person
        self.frames: list[dict[str, Any]] = []
        self.sent: list[dict[str, Any]] = []  # what the page sent the bot
        self.console: list[str] = []
        self._changed = asyncio.Event()
        self._last_tap: tuple[str, int] | None = None
        page.on("websocket", self._socket)
        page.on("console", lambda m: self.console.append(f"{m.type}: {m.text}"))
        page.on("pageerror", lambda e: self.console.append(f"error: {e}"))

    def _socket(self, ws: Any) -> None:
        ws.on("framereceived", self._frame)
        ws.on("framesent", lambda payload: self.sent.append(json.loads(payload)))
        ws.on("close", lambda _ws: self._wake())

    def _frame(self, payload: str | bytes) -> None:
        self.frames.append(json.loads(payload))
        self._wake()

    def _wake(self) -> None:
        event, self._changed = self._changed, asyncio.Event()
        event.set()

    async def wait_for(self, check: Callable[[], T | None], what: str, timeout: float = 10.0
                       ) -> T:
        """Wait until ``check()`` is truthy (looked at after every frame, and every
        50 ms for what the page draws)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            found = check()
            if found:
                return found
            if loop.time() > deadline:
                raise AssertionError(f"timed out after {timeout} s waiting for {what}; "
                                     f"console: {self.console[-5:]}; "
                                     f"last frame: {self.frames[-1:]}")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), 0.05)
            await self._tapped_too_fast()

    @property
    def table(self) -> dict[str, Any] | None:
        tables = [f for f in self.frames if f["t"] in ("table", "none")]
        return tables[-1] if tables else None

    async def table_where(self, check: Callable[[dict[str, Any]], bool], what: str,
                          timeout: float = 10.0) -> dict[str, Any]:
        return await self.wait_for(
            lambda: self.table if self.table is not None and self.table["t"] == "table"
            and check(self.table) else None, what, timeout)

    async def glowing(self) -> list[str]:
        """The spaces that glow on the screen now."""
        return list(await self.page.eval_on_selector_all(
            ".space.glow", "nodes => nodes.map(n => n.dataset.space)"))

    async def tap(self, selector: str) -> None:
        """Tap what ``selector`` finds. Should the bot say to slow down (its pace per
        person: a test taps faster than a child), ``wait_for`` waits a moment, as a person
        would, and taps it again."""
        self._last_tap = (selector, len(self.frames))
        await self.page.locator(selector).first.tap()

    async def _tapped_too_fast(self) -> None:
        if self._last_tap is None:
            return
        selector, since = self._last_tap
        if any(f["t"] == "refused" and f.get("code") == "too_fast"
               for f in self.frames[since:]):
            await asyncio.sleep(0.4)  # (a person's pause, then the same tap again)
            await self.tap(selector)

    def moves_sent(self) -> list[dict[str, Any]]:
        return [m for m in self.sent if m.get("t") in ("move", "roll")]

    async def shot(self, name: str) -> Path:
        """A screenshot in ``ACTIVITY_SCREENS`` (the team's screens folder)."""
        SCREENS.mkdir(parents=True, exist_ok=True)
        path = SCREENS / f"{name}.png"
        await self.page.wait_for_function(  # (a card just drawn: its picture loaded)
            "() => [...document.images].every(i => i.complete)")
        await self.page.screenshot(path=str(path), animations="disabled")
        return path

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.context.close()


async def open_screen(browser: Any, fake: FakeDiscord, base: str, person: Person,
                      channel_id: int, *, size: dict[str, int] = PHONE,
                      motion: str = "no-preference", instance_id: str | None = None
                      ) -> Screen:
    """``person`` opens the Activity in ``channel_id`` on a touch screen of ``size``: the
    page in mock mode, with the code the fake Discord's authorize gave them. ``motion``:
    the device's reduced-motion setting (``"reduce"``: a device that asks for less);
    ``instance_id``: the page names this instance instead of the one Discord opened."""
    opened = fake.activities.open(person, channel_id)
    instance = SimpleNamespace(id=instance_id or opened.id)
    code = fake.activities.authorize(person)
    guild = fake.channel_guild.get(channel_id) or ""
    context = await browser.new_context(viewport=size, has_touch=True,
                                        is_mobile=size["width"] < 700, device_scale_factor=2,
                                        reduced_motion=motion)
    await context.add_init_script(path=str(SEAMS_JS))  # (the page ships no seams)
    page = await context.new_page()
    screen = Screen(context, page, person)
    await page.goto(f"{base}/?instance_id={instance.id}&channel_id={channel_id}"
                    f"&guild_id={guild}&mock_code={code}")
    return screen


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def served(url: str, timeout: float = 30.0) -> None:
    """Wait until the Activity answers at ``url`` (a bot process starting)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    async with aiohttp.ClientSession() as http:
        while True:
            try:
                async with http.get(url) as r:
                    if r.status == 200:
                        return
            except aiohttp.ClientError:
                pass
            if loop.time() > deadline:
                raise AssertionError(f"the Activity did not answer at {url}")
            await asyncio.sleep(0.1)
