"""Reference cycles that aiohttp and asyncio leave for each connection, let go of.

An object in a reference cycle is freed only by the garbage collector's full pass, which
pauses every game while it frees them all at once. Each of these is a few objects per
connection, and a flood at a door (the abuse bench, ``python -m bench doors``: tens of
thousands of knocks) made full passes of 30,000-57,000 such objects, 85-130 ms each, one
of which now and then fell on a game's board. Let go of, they are freed by their last
reference like anything else, a few at a time.

Both reach into what the libraries keep private, so each looks first and does nothing
when it finds something else (another version may hold no such cycle).
"""

from __future__ import annotations

import weakref
from collections.abc import Awaitable, Callable

from aiohttp import web

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@web.middleware
async def no_transport_cycle(request: web.Request, handler: Handler) -> web.StreamResponse:
    """asyncio's socket transport (CPython 3.11) keeps its own read callback as a bound
    method of itself: transport -> method -> transport, one cycle (about seven objects
    with its socket) for every connection once it closes. The first request on a
    connection makes the callback hold the transport weakly: the selector's own handle
    keeps the transport alive while it reads."""
    transport = request.transport
    read_ready = getattr(transport, "_read_ready_cb", None)
    if read_ready is not None and getattr(read_ready, "__self__", None) is transport:
        transport._read_ready_cb = _weakly(read_ready)  # type: ignore[union-attr]
    return await handler(request)


def _weakly(method: Callable[[], None]) -> Callable[[], None]:
    ref = weakref.WeakMethod(method)

    def read_ready() -> None:
        bound = ref()
        if bound is not None:
            bound()

    return read_ready


def unhook_heartbeat(request: web.Request, ws: web.WebSocketResponse) -> None:
    """A closed socket's heartbeat is over; aiohttp (3.14) does not always say so:

    - the connection keeps the socket's callback for data received: connection ->
      callback -> socket -> request -> connection, a reference cycle for each socket;
    - data that comes while the socket closes (the page's own close frame) arms the
      heartbeat again after ``close`` stopped it: 20 s later it pings a closed socket
      and arms the wait for its pong, and the fired timer stays on the socket (socket ->
      timer -> its method -> socket). Each socket was held 30 s by the loop's timers,
      then left as a cycle (the abuse bench's floods: 1,742 of them in one full pass).

    So the connection lets go of the callback, and the socket's timers are cancelled."""
    protocol = request.protocol
    if getattr(protocol, "_data_received_cb", None) is not None:
        protocol._data_received_cb = None
    stop = getattr(ws, "_cancel_heartbeat", None)
    if callable(stop):
        stop()
