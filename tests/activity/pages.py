"""A page of the Activity without a browser: what the page's script does over HTTP and the
WebSocket, for tests of the server side (the browser tests drive the real page).

``PageClient.open(person, channel)`` does what Discord and the page do: the person opens
the Activity in the channel (the fake's activity instance), ``authorize`` gives a code,
the page trades it at ``/.proxy/api/token`` for a session and says hello on the socket.
Every frame the page receives is kept (``frames``), in order.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from typing import Any, TypeVar

import aiohttp

from tests.fakediscord import FakeDiscord, Person

T = TypeVar("T")


class PageClient:
    """One open page: its socket and every frame it got."""

    def __init__(self, base: str, person: Person | None = None) -> None:
        self.base = base
        self.person = person
        self.frames: list[dict[str, Any]] = []
        self.closed_with: int | None = None
        self.session: str | None = None
        self.instance: str | None = None
        self._http = aiohttp.ClientSession()
        self._ws: aiohttp.ClientWebSocketResponse | None = None
        self._reader: asyncio.Task[None] | None = None
        self._changed = asyncio.Event()

    @classmethod
    async def open(cls, fake: FakeDiscord, base: str, person: Person, channel_id: int, *,
                   game: int | None = None) -> PageClient:
        """``person`` opens the Activity in ``channel_id`` and the page connects."""
        page = cls(base, person)
        page.instance = fake.activities.open(person, channel_id).id
        page.session = await page.login(fake.activities.authorize(person))
        await page.connect(game=game)
        return page

    async def login(self, code: str) -> str:
        async with self._http.post(f"{self.base}/.proxy/api/token", json={"code": code}) as r:
            body = await r.json()
            if r.status != 200:
                raise PermissionError(f"login refused: {r.status} {body}")
            return str(body["session"])

    async def connect(self, *, session: str | None = None, instance: str | None = None,
                      game: int | None = None) -> None:
        self._ws = await self._http.ws_connect(f"{self.base}/.proxy/ws")
        self.closed_with = None
        hello: dict[str, Any] = {"t": "hello", "session": session or self.session,
                                 "instance": instance or self.instance}
        if game is not None:
            hello["game"] = game
        await self._ws.send_str(json.dumps(hello))
        self._reader = asyncio.create_task(self._read(self._ws))

    async def _read(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        async for message in ws:
            if message.type == aiohttp.WSMsgType.TEXT:
                frame = json.loads(message.data)
                self.frames.append(frame)
                if frame.get("t") == "welcome":
                    self.session = frame["session"]
                self._wake()
        self.closed_with = ws.close_code
        self._wake()

    def _wake(self) -> None:
        event, self._changed = self._changed, asyncio.Event()
        event.set()

    async def send(self, message: dict[str, Any] | str) -> None:
        assert self._ws is not None
        await self._ws.send_str(message if isinstance(message, str) else json.dumps(message))

    async def wait_for(self, check: Callable[[], T | None], what: str, timeout: float = 10.0
                       ) -> T:
        """Wait until ``check()`` is truthy (looked at after every frame)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            found = check()
            if found:
                return found
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise AssertionError(f"timed out after {timeout} s waiting for {what}; "
                                     f"refused: {self.refusals()[-3:]}; "
                                     f"last frame: {self.frames[-1:]}")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), remaining)

    # -- reading ---------------------------------------------------------------------

    def tables(self) -> list[dict[str, Any]]:
        return [f for f in self.frames if f["t"] == "table"]

    @property
    def table(self) -> dict[str, Any] | None:
        """The newest table frame."""
        tables = self.tables()
        return tables[-1] if tables else None

    def refusals(self) -> list[dict[str, Any]]:
        return [f for f in self.frames if f["t"] == "refused"]

    async def table_where(self, check: Callable[[dict[str, Any]], bool], what: str,
                          timeout: float = 10.0) -> dict[str, Any]:
        return await self.wait_for(
            lambda: self.table if self.table is not None and check(self.table) else None,
            what, timeout)

    async def my_turn(self, timeout: float = 10.0) -> dict[str, Any]:
        """The newest table frame once it is this page's turn (its legal moves shown)."""
        return await self.table_where(lambda t: bool(t["me"] and t["me"]["legal"]),
                                      "my turn", timeout)

    async def play(self, action: str, ply: int) -> dict[str, Any]:
        """Make a move as a person would (``tap``); the table once it shows the move made."""
        return await self.tap({"t": "move", "action": action, "ply": ply},
                              lambda table: table["ply"] > ply, f"the move {action}")

    async def tap(self, message: dict[str, Any], done: Callable[[dict[str, Any]], bool],
                  what: str) -> dict[str, Any]:
        """Send ``message`` as a person taps: once more after a pause if the bot said to
        slow down (its pace per person, which a test tapping at once soon meets); the
        table once ``done(table)``. Any other refusal fails."""
        for _ in range(10):
            refused = len(self.refusals())
            await self.send(message)
            await self.wait_for(lambda n=refused: (self.table is not None
                                                   and done(self.table))
                                or len(self.refusals()) > n, f"{what}, or a refusal")
            if self.table is not None and done(self.table):
                return self.table
            assert self.refusals()[-1]["code"] == "too_fast", self.refusals()[-1]
            await asyncio.sleep(0.4)  # (a person's pause before tapping again)
        raise AssertionError(f"{what}: never done")

    async def close(self) -> None:
        if self._ws is not None:
            await self._ws.close()
        if self._reader is not None:
            with contextlib.suppress(Exception):
                await self._reader
        await self._http.close()


def hands_in(frame: dict[str, Any]) -> list[tuple[int, list[str]]]:
    """Every hand a frame carries, with the seat it belongs to (there is at most one: the
    page's own), read from anywhere in the frame."""
    found: list[tuple[int, list[str]]] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if "hand" in node:
                found.append((int(node.get("seat", -1)), list(node["hand"])))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(frame)
    return found
