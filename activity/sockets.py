"""The sockets the Activity holds open: bounded before a page says who it is, and per person.

- **Silent sockets** (open, no hello yet) are at most ``silent``: each costs the server a
  task and a buffer for up to ``Limits.hello_seconds``, and anyone can open them. When
  they are all taken, the oldest is closed to make room, if it has had ``grace`` to say
  hello (a page says hello the moment its socket opens: a socket silent for a second is
  not a page about to speak); when all of them are younger than that, the new one is
  refused (HTTP 503 before the upgrade; the page tries again a moment later). Refusing
  only the new one would let anyone who holds ``silent`` sockets (re-opened as their
  time runs out) keep every family's new page out; closing only the oldest would let a
  flood fast enough close pages before their hello.
- **A person's sockets** (said hello, placed) are at most ``per_person``: a phone, a
  tablet, a reload under way and one to spare. A new one past that closes the person's
  socket heard from least lately (``Connection.heard``), not the new one: the new one is
  the screen in their hands, and a tablet reloaded while its old socket has not closed
  yet (Discord's proxy may keep it for a while; the heartbeat finds it dead within 40 s)
  must not lock its family out. The one closed is told why and does not reconnect (two
  screens closing each other in turn would never stop).
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Protocol

from aiohttp import web

SILENT_GRACE = 1.0  # seconds a silent socket has to say hello before it may be closed


class Held(Protocol):
    """A person's open socket (``connection.Connection``)."""

    user_id: int
    heard: float  # when it last sent something (or opened)


class Sockets:
    """The silent sockets and each person's sockets, and which to close or refuse."""

    def __init__(self, silent: int, per_person: int, *, grace: float = SILENT_GRACE,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.silent, self.per_person, self.grace = max(1, silent), max(1, per_person), grace
        self._clock = clock
        self._silent: OrderedDict[web.WebSocketResponse, float] = OrderedDict()
        self._people: dict[int, set[Held]] = {}
        self._closing: set[asyncio.Task[bool]] = set()

    def arrive(self, ws: web.WebSocketResponse) -> tuple[bool, bool]:
        """A socket opens, before its hello: (whether it may, whether the oldest silent
        one was closed to make room)."""
        made_room = False
        if len(self._silent) >= self.silent:
            oldest, since = next(iter(self._silent.items()))
            if self._clock() - since < self.grace:
                return False, False
            del self._silent[oldest]
            self._close(oldest, 1013)  # (try again later)
            made_room = True
        self._silent[ws] = self._clock()
        return True, made_room

    def spoke(self, ws: web.WebSocketResponse) -> None:
        """It said hello (or closed): no longer silent."""
        self._silent.pop(ws, None)

    def placed(self, held: Held) -> Held | None:
        """A person's socket is placed: the one of theirs to let go, if they hold too many."""
        mine = self._people.setdefault(held.user_id, set())
        mine.add(held)
        if len(mine) <= self.per_person:
            return None
        quietest = min((h for h in mine if h is not held), key=lambda h: h.heard)
        mine.discard(quietest)
        return quietest

    def gone(self, held: Held) -> None:
        mine = self._people.get(held.user_id)
        if mine is not None:
            mine.discard(held)
            if not mine:
                del self._people[held.user_id]

    def silent_now(self) -> int:
        return len(self._silent)

    def held_by(self, user_id: int) -> int:
        return len(self._people.get(user_id, ()))

    def _close(self, ws: web.WebSocketResponse, code: int) -> None:
        task = asyncio.get_running_loop().create_task(ws.close(code=code))
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)
