"""What a stranger sends the Activity, for the tests of its doors and the abuse bench: made-up
login codes, hellos naming made-up instances, sockets that never say hello. Each is one
request as anyone on the internet could send it (through Discord's proxy, or a tunnel's
address), and what came back; ``asked_for_*`` count what it cost at the fake Discord."""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import string
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import aiohttp

from tests.fakediscord import FakeDiscord

T = TypeVar("T")
LETTERS = string.ascii_letters + string.digits


def made_up_code() -> str:
    """A code of Discord's shape (30 letters and digits) that Discord never gave."""
    return "".join(secrets.choice(LETTERS) for _ in range(30))


def made_up_instance() -> str:
    return f"i-{secrets.randbelow(10**18)}-gc-{secrets.randbelow(10**18)}"


async def log_in(http: aiohttp.ClientSession, base: str, code: str, *,
                 source: str | None = None, header: str = "X-Forwarded-For",
                 lang: str | None = None) -> tuple[int, dict[str, Any], dict[str, str]]:
    """``POST /.proxy/api/token`` with ``code`` (``source``: what a proxy in front says the
    client is): the status, the body and the headers."""
    headers = {header: source} if source is not None else {}
    if lang is not None:
        headers["Accept-Language"] = lang
    async with http.post(f"{base}/.proxy/api/token", json={"code": code},
                         headers=headers) as r:
        return r.status, await r.json(content_type=None), dict(r.headers)


async def hello(http: aiohttp.ClientSession, base: str, session: str, instance: str
                ) -> tuple[list[dict[str, Any]], int | None]:
    """A socket that says hello naming ``instance``: the frames it got until the bot
    closed it (or until its first table), and the close code (None: still open; the HTTP
    status when it was refused before the upgrade)."""
    try:
        ws = await http.ws_connect(f"{base}/.proxy/ws")
    except aiohttp.WSServerHandshakeError as exc:
        return [], exc.status
    async with ws:
        await ws.send_str(json.dumps({"t": "hello", "session": session,
                                      "instance": instance}))
        frames: list[dict[str, Any]] = []
        async for message in ws:
            if message.type != aiohttp.WSMsgType.TEXT:
                break
            frames.append(json.loads(message.data))
            if frames[-1]["t"] in ("table", "none"):
                return frames, None
        return frames, ws.close_code


def asked_for_tokens(fake: FakeDiscord) -> int:
    """Requests the fake Discord got at its OAuth2 token endpoint."""
    return sum(1 for r in fake.requests if r.path == "/oauth2/token")


def asked_for_instances(fake: FakeDiscord) -> int:
    """Requests the fake Discord got for activity instances (the bot token's)."""
    return sum(1 for r in fake.requests if "/activity-instances/" in r.path)


async def flood(knock: Callable[[], Awaitable[T]], count: int, *, at_once: int = 10,
                per_second: float | None = None, stop: asyncio.Event | None = None
                ) -> list[T]:
    """``knock()`` ``count`` times, at most ``at_once`` under way, no faster than
    ``per_second`` (None: as fast as answered), and none once ``stop`` is set: bounded in
    count and in time, it stops by itself. What each knock gave, in the order they ended."""
    loop = asyncio.get_running_loop()
    started = loop.time()
    results: list[T] = []
    next_one = 0

    async def worker() -> None:
        nonlocal next_one
        while next_one < count and not (stop is not None and stop.is_set()):
            index, next_one = next_one, next_one + 1
            if per_second is not None:
                await asyncio.sleep(max(0.0, started + index / per_second - loop.time()))
            if stop is not None and stop.is_set():
                return
            results.append(await knock())

    await asyncio.gather(*(worker() for _ in range(min(at_once, count))))
    return results


async def silent_sockets(http: aiohttp.ClientSession, base: str, count: int
                         ) -> list[aiohttp.ClientWebSocketResponse]:
    """``count`` sockets that never say hello (those the bot refused left out)."""
    async def one() -> aiohttp.ClientWebSocketResponse | None:
        with contextlib.suppress(aiohttp.WSServerHandshakeError):
            return await http.ws_connect(f"{base}/.proxy/ws", heartbeat=None)
        return None

    opened = await flood(one, count, at_once=20)
    return [ws for ws in opened if ws is not None]
