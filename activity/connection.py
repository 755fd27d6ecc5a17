"""One page's WebSocket: who it is, where, the table it follows, and its frames out.

The person comes from their signed session, the place from Discord (the Activity instance's
channel), never from what the page says. Frames to the page are queued and written by the
connection's own task, so the hub never waits for a phone on a slow network; a page that
stops reading (its queue past ``MAX_QUEUED``) is let go, and reconnects with a fresh frame.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from aiohttp import web

from .login import Place
from .sessions import Session

log = logging.getLogger(__name__)

MAX_QUEUED = 256  # frames waiting for one page before it is let go
GOING_AWAY = 1001  # (WebSocket close code: the server stops; the page reconnects)
TOO_SLOW = 4008


class Connection:
    """An open page (the hub's ``Viewer``, play's ``Asker``)."""

    def __init__(self, ws: web.WebSocketResponse, session: Session, place: Place) -> None:
        self.user_id = session.user_id
        self.name = session.name
        self.lang = session.lang
        self.channel_id = place.channel_id
        self.guild_id = place.guild_id
        self.instance_id = place.instance_id
        self.game_id: int | None = None
        self.heard = time.monotonic()  # when the page last sent something (or opened)
        self._ws = ws
        # frames, then None (stop) or a close code (stop, closing the socket with it)
        self._out: asyncio.Queue[str | int | None] = asyncio.Queue()
        self._writer: asyncio.Task[None] | None = None
        self.sent = 0

    def __repr__(self) -> str:
        return f"<Connection user={self.user_id} channel={self.channel_id}>"

    def push(self, text: str) -> None:
        if self._out.qsize() >= MAX_QUEUED:
            log.info("a page of user %d stopped reading; letting it go", self.user_id)
            self._out = asyncio.Queue()
            self._out.put_nowait(None)
            asyncio.get_running_loop().create_task(self._ws.close(code=TOO_SLOW))
            return
        self._out.put_nowait(text)

    def let_go(self, text: str, code: int) -> None:
        """Send ``text`` (after what is queued), then close the socket with ``code``."""
        self._out.put_nowait(text)
        self._out.put_nowait(code)

    def start(self) -> None:
        self._writer = asyncio.create_task(self._write(), name=f"page-{self.user_id}")

    async def _write(self) -> None:
        while True:
            text = await self._out.get()
            if isinstance(text, int) and not self._ws.closed:
                with contextlib.suppress(ConnectionError, RuntimeError):
                    await self._ws.close(code=text)
            if not isinstance(text, str) or self._ws.closed:
                return
            try:
                await self._ws.send_str(text)
            except (ConnectionError, RuntimeError):
                return  # gone: the reading side ends the connection
            self.sent += 1

    async def stop(self) -> None:
        """Stop writing (what is queued is dropped: the page is gone)."""
        self._out.put_nowait(None)
        if self._writer is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._writer
