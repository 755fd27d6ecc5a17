"""What a stranger sends the Activity, for the tests of its doors and the abuse bench: made-up
login codes, hellos naming made-up instances, sockets that never say hello. Each is one
request as anyone on the internet could send it (through Discord's proxy, or a tunnel's
address), and what came back; ``asked_for_*`` count what it cost at the fake Discord."""

from __future__ import annotations

import json
import secrets
import string
from typing import Any

import aiohttp

from tests.fakediscord import FakeDiscord

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
    closed it (or until its first table), and the close code (None: still open)."""
    async with http.ws_connect(f"{base}/.proxy/ws") as ws:
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
