"""A TCP proxy between the bot and PostgreSQL that can lose the answer to one COMMIT.

The bot connects to the proxy instead of the server (``url``), and everything goes through
unchanged until a test arms a cut (``cut_after_commit``): the next transaction that ran a
statement containing ``of`` (say ``INSERT INTO actions``: a move) has its COMMIT sent on to
the server, the server's answer read and thrown away, and then the connection is closed on
both sides, as a network that fails at that moment does. The server committed; the bot
only knows that it sent COMMIT and never heard back. ``before_answer`` runs between the
server's answer and the cut (a test stops the server there: the bot then also finds the
database gone when it asks what happened). ``forward=False`` drops the COMMIT itself
instead: the server rolls back, and the bot is as unsure as before.

``stop_at_commit`` loses nothing: the COMMIT goes to the server, the server's answer is
held while the test's hook stops the server, and then it goes on to the bot. The bot
knows its change is kept, and everything it does after it meets the database gone: a
database that goes away the moment a change is committed, with nothing after that change
able to reach it first (a computer player's move after the one committed, say).

It runs in a thread of its own, with its own event loop, so a test process busy with a
fake Discord and two bots (a slow machine) does not slow every database round trip of
those bots down with it. It reads PostgreSQL's wire protocol only as far as it must: the
framing of both directions (the start-up messages have no type byte, and the server
answers an SSL request with one bare byte), the simple queries ``Q``, and the prepared
statements (``P`` names a statement's text, ``B`` runs it by name: asyncpg prepares a
statement once per connection).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from tools.pg_server import PostgresServer

log = logging.getLogger(__name__)

SSL_REQUEST, GSS_REQUEST = 80877103, 80877104


@dataclass
class Cut:
    """An armed cut, and when it happened (``perf_counter``; None until then).
    ``before_answer`` runs in the proxy's thread (it may block: stopping the server)."""

    of: bytes
    forward: bool
    before_answer: Callable[[], None] | None
    #: the server's answer goes on to the client once ``before_answer`` ran (no cut)
    answer: bool = False
    done: threading.Event = field(default_factory=threading.Event)
    at: float | None = None
    #: the statement that marked the transaction (for the test's report)
    statement: str = ""

    async def happened(self, timeout: float) -> None:
        """Return once the cut happened; TimeoutError after ``timeout`` seconds."""
        if not await asyncio.to_thread(self.done.wait, timeout):
            raise TimeoutError(f"no COMMIT of a statement with {self.of!r} in {timeout} s")


class PostgresProxy:
    """``async with PostgresProxy(server) as proxy``: listens on a free 127.0.0.1 port."""

    def __init__(self, server: PostgresServer) -> None:
        self._server = server
        self._listener: asyncio.Server | None = None
        self._cut: Cut | None = None
        self._links: set[asyncio.Task[None]] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._armed = threading.Lock()
        self.port = 0
        self.connections = 0

    def url(self, dbname: str = "postgres") -> str:
        """The server's URL with the proxy's port in place of the server's."""
        return self._server.url(dbname).replace(f":{self._server.port}/", f":{self.port}/")

    async def __aenter__(self) -> PostgresProxy:
        loop = self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=loop.run_forever, name="pg-proxy",
                                        daemon=True)
        self._thread.start()
        listening = asyncio.run_coroutine_threadsafe(self._listen(), loop)
        await asyncio.wrap_future(listening)
        return self

    async def _listen(self) -> None:
        self._listener = await asyncio.start_server(self._link, "127.0.0.1", 0)
        self.port = self._listener.sockets[0].getsockname()[1]

    async def __aexit__(self, *exc: object) -> None:
        loop = self._loop
        if loop is None:
            return
        await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(self._close(), loop))
        loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            await asyncio.to_thread(self._thread.join, 10)
        loop.close()

    async def _close(self) -> None:
        if self._listener is not None:
            self._listener.close()
        for task in list(self._links):
            task.cancel()
        await asyncio.gather(*self._links, return_exceptions=True)
        if self._listener is not None:
            await self._listener.wait_closed()

    def cut_after_commit(self, of: bytes = b"INSERT INTO actions", *, forward: bool = True,
                         before_answer: Callable[[], None] | None = None) -> Cut:
        """Arm one cut (see the module's docstring); ``Cut.happened()`` returns once it
        happened."""
        with self._armed:
            self._cut = Cut(of, forward, before_answer)
            return self._cut

    def stop_at_commit(self, of: bytes, stop: Callable[[], None]) -> Cut:
        """Arm one stop (see the module's docstring): ``stop`` runs once the server has
        answered the next COMMIT of a transaction that ran a statement containing ``of``,
        and only then does the answer go on. ``Cut.happened()`` returns once it has."""
        with self._armed:
            self._cut = Cut(of, True, stop, answer=True)
            return self._cut

    # -- one client's link ---------------------------------------------------------------

    async def _link(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter
                    ) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._links.add(task)
        self.connections += 1
        try:
            server_r, server_w = await asyncio.open_connection("127.0.0.1", self._server.port)
        except OSError:
            client_w.close()
            self._links.discard(task)
            return
        link = _Link(self, client_r, client_w, server_r, server_w)
        try:
            await link.run()
        finally:
            link.close()
            self._links.discard(task)

    def _take_cut(self, statement: bytes) -> Cut | None:
        with self._armed:
            cut = self._cut
            if cut is not None and cut.of in statement:
                self._cut = None
                return cut
            return None


class _Link:
    """One client connection and its connection to the server."""

    def __init__(self, proxy: PostgresProxy, client_r: asyncio.StreamReader,
                 client_w: asyncio.StreamWriter, server_r: asyncio.StreamReader,
                 server_w: asyncio.StreamWriter) -> None:
        self._proxy = proxy
        self._client_r, self._client_w = client_r, client_w
        self._server_r, self._server_w = server_r, server_w
        self._statements: dict[bytes, bytes] = {}  # prepared statement name -> its SQL
        self._marked: Cut | None = None  # the transaction ran the armed statement
        self._swallowing: Cut | None = None  # the COMMIT is out: its answer is thrown away
        self._holding: list[bytes] | None = None  # the COMMIT is out: its answer waits here
        self._answered = asyncio.Event()
        self._let_go = asyncio.Event()  # the held answer may go on to the client
        # what the server sends before its framed messages, in order, as the client asks:
        # "byte" (its one-byte answer to an SSL or GSS request), then "framed" (the
        # start-up message went: everything from here has a type and a length)
        self._startup: asyncio.Queue[str] = asyncio.Queue()

    async def run(self) -> None:
        upstream = asyncio.ensure_future(self._client_to_server())
        downstream = asyncio.ensure_future(self._server_to_client())
        try:
            await asyncio.wait({upstream, downstream}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (upstream, downstream):
                task.cancel()
            await asyncio.gather(upstream, downstream, return_exceptions=True)

    def close(self) -> None:
        for writer in (self._client_w, self._server_w):
            with contextlib.suppress(Exception):
                writer.close()

    async def _client_to_server(self) -> None:
        reader = self._client_r
        starting = True
        while True:
            if starting:
                head = await reader.readexactly(4)
                (length,) = struct.unpack("!I", head)
                body = await reader.readexactly(length - 4)
                code = struct.unpack("!I", body[:4])[0] if len(body) >= 4 else 0
                if code in (SSL_REQUEST, GSS_REQUEST):
                    self._startup.put_nowait("byte")  # answered with one byte, 'N' or 'S'
                else:
                    starting = False
                    self._startup.put_nowait("framed")
                self._server_w.write(head + body)
                await self._server_w.drain()
                continue
            kind = await reader.readexactly(1)
            head = await reader.readexactly(4)
            (length,) = struct.unpack("!I", head)
            body = await reader.readexactly(length - 4)
            message = kind + head + body
            cut = self._watch(kind, body)
            if cut is not None and cut.answer:
                await self._commit_held(cut, message)
                continue
            if cut is not None:
                await self._commit_cut(cut, message)
                return
            self._server_w.write(message)
            await self._server_w.drain()

    def _watch(self, kind: bytes, body: bytes) -> Cut | None:
        """Follow the transaction; the armed cut when this message is its COMMIT."""
        statement: bytes | None = None
        if kind == b"Q":
            statement = body.rstrip(b"\0")
            word = statement.lstrip().split(None, 1)[0].upper() if statement.strip() else b""
            if word.startswith(b"COMMIT") and self._marked is not None:
                cut, self._marked = self._marked, None
                return cut
            if word.startswith((b"BEGIN", b"COMMIT", b"ROLLBACK", b"START")):
                self._marked = None
                return None
        elif kind == b"P":
            name, rest = body.split(b"\0", 1)
            statement = rest.split(b"\0", 1)[0]
            self._statements[name] = statement
        elif kind == b"B":
            _portal, rest = body.split(b"\0", 1)
            name = rest.split(b"\0", 1)[0]
            statement = self._statements.get(name)
        if statement is not None and self._marked is None:
            cut = self._proxy._take_cut(statement)
            if cut is not None:
                cut.statement = statement.decode(errors="replace")[:80]
                self._marked = cut
        return None

    async def _commit_cut(self, cut: Cut, commit: bytes) -> None:
        if cut.forward:
            self._swallowing = cut
            self._server_w.write(commit)
            await self._server_w.drain()
            await self._answered.wait()  # the server committed and said so: thrown away
        if cut.before_answer is not None:
            await asyncio.to_thread(cut.before_answer)
        cut.at = time.perf_counter()
        log.info("cut a connection after %s its COMMIT (%s)",
                 "the server answered" if cut.forward else "dropping", cut.statement)
        self.close()
        cut.done.set()

    async def _commit_held(self, cut: Cut, commit: bytes) -> None:
        self._holding = []
        self._server_w.write(commit)
        await self._server_w.drain()
        await self._answered.wait()  # the server committed and said so: held meanwhile
        if cut.before_answer is not None:
            await asyncio.to_thread(cut.before_answer)
        cut.at = time.perf_counter()
        log.info("held the answer to a COMMIT (%s) until the hook ran", cut.statement)
        self._let_go.set()
        cut.done.set()

    async def _server_to_client(self) -> None:
        reader = self._server_r
        while await self._startup.get() == "byte":
            self._client_w.write(await reader.readexactly(1))
            await self._client_w.drain()
        while True:
            kind = await reader.readexactly(1)
            head = await reader.readexactly(4)
            (length,) = struct.unpack("!I", head)
            body = await reader.readexactly(length - 4)
            if self._holding is not None:
                self._holding.append(kind + head + body)
                if kind == b"Z":
                    # the answer is whole: it goes on once the test's hook ran (what the
                    # server says after it, stopping, follows as it comes)
                    self._answered.set()
                    await self._let_go.wait()
                    held, self._holding = self._holding, None
                    self._client_w.write(b"".join(held))
                    await self._client_w.drain()
                continue
            if self._swallowing is not None:
                if kind == b"Z":
                    # answered: read no more (the cut closes the link, after the test's
                    # hook, which may stop the server meanwhile)
                    self._answered.set()
                    await asyncio.Event().wait()
                continue
            self._client_w.write(kind + head + body)
            await self._client_w.drain()
