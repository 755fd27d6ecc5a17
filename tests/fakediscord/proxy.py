"""A REST proxy on 127.0.0.1 in front of the fake Discord, as an admin would put a
rate-limit proxy in front of Discord (``DISCORD_API_BASE`` at the proxy).

It forwards every request as it came (method, path, query, headers, body) and answers
with Discord's answer, adding only ``Via: 1.1 <name>``, which the fake records
(``RecordedRequest.via``): a request the fake saw without it did not come through here.

    async with ForwardingProxy(fake.http_base) as proxy:
        ... DISCORD_API_BASE=proxy.api_base ...
"""

from __future__ import annotations

import aiohttp
from aiohttp import web

from .world import API_PREFIX

# Headers about one hop only (RFC 9110 7.6.1), and those aiohttp sets again itself.
_HOP = {"connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding",
        "upgrade", "host", "content-length", "content-encoding"}


class ForwardingProxy:
    """Forwards ``/api/v10/...`` to ``upstream`` (the fake's ``http_base``)."""

    def __init__(self, upstream: str, *, name: str = "test-proxy") -> None:
        self.upstream = upstream.rstrip("/")
        self.via = f"1.1 {name}"
        self.forwarded = 0  # requests forwarded (and answered, whatever the answer)
        self.port = 0
        self._runner: web.AppRunner | None = None
        self._session: aiohttp.ClientSession | None = None

    @property
    def api_base(self) -> str:
        """What ``DISCORD_API_BASE`` should be to go through this proxy."""
        return f"http://127.0.0.1:{self.port}{API_PREFIX}"

    async def __aenter__(self) -> ForwardingProxy:
        # no compression on either side: bytes go through as they are
        self._session = aiohttp.ClientSession(auto_decompress=False)
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", API_PREFIX + "/{tail:.*}", self._forward)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = self._runner.addresses[0][1]  # (port 0 asked: the one given)
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
        if self._session is not None:
            await self._session.close()

    async def _forward(self, request: web.Request) -> web.StreamResponse:
        assert self._session is not None
        headers = {k: v for k, v in request.headers.items() if k.lower() not in _HOP}
        headers["Via"] = self.via
        body = await request.read() if request.can_read_body else None
        async with self._session.request(
                request.method, self.upstream + request.path_qs, headers=headers, data=body,
                allow_redirects=False) as answer:
            data = await answer.read()
            out = {k: v for k, v in answer.headers.items() if k.lower() not in _HOP}
        self.forwarded += 1
        return web.Response(status=answer.status, body=data, headers=out)
