"""The Activity's listener: every change of a table reaches its open pages at once.

The hub is one more listener of the manager, beside the Discord side: a ``Hearer``, told
each event the moment its change is committed, so a page never waits for the board being
posted to Discord (the Discord side's work on the event before). It keeps what the events
told of each table someone watches (``views.Seen``) and does nothing more while it is told:
that is under the game's lock. Once the change's events are all in (the loop's next turn),
the table's frame is built once (``views.build``, once per language its pages read), each
page gets its own view of that build (``views.frame_text``), pushed when it changed: a
move from chat, from a computer, a timer or another page shows up without any page asking.

What the hub holds comes from the events, and from the manager's tables when a page
starts to follow one (it connects, or a new lobby opens in its channel) and when another
process changed it (``Followed``: this one just read it from the store, under its lock).
A listener hears of a change after its commit, so what it is told is what was kept.

Events for one table may come out of order across processes (this process's own, still
being told, and a newer one read from the store): each piece is kept only if it is not
older than what is held (``_newer``).

Nothing here waits: ``Viewer.push`` queues the frame, and each connection writes its own
queue (a slow phone never holds a game's lock or another page up), as a hearer must.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any, Protocol

from engine.observation import Observation
from manager import (
    Event,
    Followed,
    GameManager,
    GameOver,
    GameStarted,
    HandChanged,
    Moved,
    ShowAgain,
    Status,
    TableView,
    TurnStarted,
)
from store import StoreUnavailable

from .views import Build, Seen, build, frame_text, no_table, picture_paths

log = logging.getLogger(__name__)

_RANK = {Status.LOBBY: 0, Status.PLAYING: 1, Status.FINISHED: 2, Status.CANCELLED: 2}


class Viewer(Protocol):
    """One open page: who, where, which table it follows, and how to reach it."""

    user_id: int
    lang: str  # the page's person's language
    channel_id: int
    game_id: int | None  # the table it shows (None: none, the page offers to open one)

    def push(self, text: str) -> None:
        """Queue a frame (JSON text) for the page; never waits."""


class Hub:
    """Every open page of this process, and what the events told of their tables."""

    def __init__(self, manager: GameManager) -> None:
        self._manager = manager
        self._viewers: set[Viewer] = set()
        self._seen: dict[int, Seen] = {}
        self._shown: dict[Viewer, str] = {}  # the last frame each page got
        self._changed: set[int] = set()  # tables whose frames are built at the loop's next turn
        self.frames = 0  # frames pushed (for the bench and the tests)
        self.builds = 0  # tables' frames built (once a change, whatever the pages)

    # -- pages coming and going ------------------------------------------------------------

    async def open(self, viewer: Viewer, *, last_game: int | None = None) -> None:
        """A page connected: it follows its channel's table (or, when the channel has none,
        the game it showed before a reconnect, if that game ended in this channel), and
        gets its first frame."""
        self._viewers.add(viewer)
        table = self._manager.table_for_channel(viewer.channel_id)
        if table is not None:
            viewer.game_id = table.game_id
            self._read(table.game_id)
        elif last_game is not None:
            await self._read_ending(viewer, last_game)
        self.show(viewer)

    def close(self, viewer: Viewer) -> None:
        self._viewers.discard(viewer)
        self._shown.pop(viewer, None)
        self._forget_unwatched()

    def viewers(self) -> int:
        return len(self._viewers)

    def pictures_for(self, channel_id: int, lang: str) -> list[str]:
        """The looks a page in ``channel_id`` draws its first board with (the spaces and
        the chips of the table there; none without a game), for its page to preload."""
        table = self._manager.table_for_channel(channel_id)
        if table is None or table.status is not Status.PLAYING:
            return []
        try:
            public = self._manager.spectator_observation(table.game_id)
        except Exception:
            return []
        return picture_paths(public, lang)

    def follow(self, viewer: Viewer, game_id: int) -> None:
        """The page now follows ``game_id`` (a table it just opened, a rematch's lobby)."""
        viewer.game_id = game_id
        if game_id not in self._seen:
            self._read(game_id)
        self.show(viewer)
        self._forget_unwatched()

    def show(self, viewer: Viewer, built: Build | None = None) -> None:
        """Push the viewer's frame if it changed since the last one it got (``built``: its
        table's frame, built for this change already)."""
        seen = self._seen.get(viewer.game_id) if viewer.game_id is not None else None
        if seen is None:
            text = json.dumps(no_table(viewer.channel_id), separators=(",", ":"))
        else:
            if built is None:
                built = self._build(seen, viewer.lang)
            text = frame_text(seen, built, viewer.user_id)
        if self._shown.get(viewer) != text:
            self._shown[viewer] = text
            self.frames += 1
            viewer.push(text)

    def _build(self, seen: Seen, lang: str) -> Build:
        self.builds += 1
        return build(seen, lang)

    def _soon(self, game_id: int) -> None:
        """The table changed: its pages are shown it at the loop's next turn, once, after
        every event of the change (told under the game's lock) is in."""
        if game_id not in self._changed:
            self._changed.add(game_id)
            asyncio.get_running_loop().call_soon(self._show_table, game_id)

    def _show_table(self, game_id: int) -> None:
        """Build the table's frame once (a language at a time) and show each page its own
        view of it."""
        self._changed.discard(game_id)
        seen = self._seen.get(game_id)
        if seen is None:
            return
        built: dict[str, Build] = {}
        for viewer in [v for v in self._viewers if v.game_id == game_id]:
            if viewer.lang not in built:
                built[viewer.lang] = self._build(seen, viewer.lang)
            self.show(viewer, built[viewer.lang])

    def refresh(self, viewer: Viewer) -> None:
        """Push the viewer's frame even if unchanged (after a refused move: the page put
        its taps back as the table is)."""
        self._shown.pop(viewer, None)
        self.show(viewer)

    # -- the manager's hearer --------------------------------------------------------------

    def heard(self, event: Event) -> None:
        if isinstance(event, Followed | ShowAgain):
            ending = event.ending
            self._followed(event.table, ending)
        else:
            self._told(event)
        moved = False
        for viewer in list(self._viewers):
            if viewer.game_id != event.game_id and viewer.channel_id == event.channel_id \
                    and event.table.status.is_open and not self._still_on(viewer):
                # a new lobby or game where this page shows none (or one that ended)
                viewer.game_id, moved = event.game_id, True
                if event.game_id not in self._seen:
                    self._read(event.game_id)
        if moved:
            self._forget_unwatched()
        if any(v.game_id == event.game_id for v in self._viewers):
            self._soon(event.game_id)

    def _told(self, event: Event) -> None:
        seen = self._seen.get(event.game_id)
        if seen is None:
            return  # nobody here watches it
        _newer_table(seen, event.table)
        if isinstance(event, GameStarted):
            seen.public, seen.private, seen.ending = event.observation, {}, None
        elif isinstance(event, Moved):
            _newer_public(seen, event.observation)
        elif isinstance(event, HandChanged | TurnStarted):
            _newer_private(seen, event.seat, event.observation)
        elif isinstance(event, GameOver):
            seen.ending = event
            seen.public = event.observation

    def _followed(self, table: TableView, ending: GameOver | None) -> None:
        """Another process changed it (or it is shown again): read it as stored now."""
        if ending is not None:
            seen = self._seen.get(table.game_id)
            if seen is not None:
                seen.table, seen.ending, seen.public = ending.table, ending, ending.observation
            return
        if table.game_id in self._seen or any(
                v.channel_id == table.channel_id for v in self._viewers):
            self._read(table.game_id, table)

    # -- reading a table -------------------------------------------------------------------

    def _read(self, game_id: int, table: TableView | None = None) -> None:
        """What the manager holds of ``game_id`` now (at a page's connect, or after another
        process's change): the table, the spectator's view, and the own view of every seat
        a page here plays."""
        try:
            table = self._manager.get(game_id)
        except Exception:
            if table is None:
                return
        seen = self._seen.setdefault(game_id, Seen(table))
        seen.table = table
        if table.status is not Status.PLAYING:
            return
        try:
            seen.public = self._manager.spectator_observation(game_id)
            for seat in self._seats_watched(table):
                seen.private[seat] = self._manager.seat_observation(game_id, seat)
        except Exception:
            log.debug("game %d could not be read for the Activity", game_id, exc_info=True)

    def _seats_watched(self, table: TableView) -> set[int]:
        people = {v.user_id for v in self._viewers if v.game_id == table.game_id}
        return {s.index for s in table.seats for u in people if s.plays_for(u)}

    async def _read_ending(self, viewer: Viewer, game_id: int) -> None:
        try:
            ending = await self._manager.final_boards.how_it_ended(game_id)
        except StoreUnavailable:
            return
        if ending is None or ending.table.channel_id != viewer.channel_id:
            return
        self._seen[game_id] = Seen(ending.table, ending.observation, {}, ending)
        viewer.game_id = game_id

    def _still_on(self, viewer: Viewer) -> bool:
        seen = self._seen.get(viewer.game_id) if viewer.game_id is not None else None
        return seen is not None and seen.ending is None and seen.table.status.is_open

    def _forget_unwatched(self) -> None:
        watched = {v.game_id for v in self._viewers}
        for game_id in [g for g in self._seen if g not in watched]:
            del self._seen[game_id]

    def watched(self) -> int:
        """How many tables the hub holds (none once no page watches: tests check it)."""
        return len(self._seen)


def _newer_table(seen: Seen, table: TableView) -> None:
    old = seen.table
    if (_RANK.get(table.status, 0), table.ply) >= (_RANK.get(old.status, 0), old.ply):
        seen.table = table


def _newer_public(seen: Seen, obs: Observation) -> None:
    if seen.public is None or obs["history_length"] >= seen.public["history_length"]:
        seen.public = obs


def _newer_private(seen: Seen, seat: int, obs: Observation) -> None:
    old = seen.private.get(seat)
    if old is None or obs["history_length"] >= old["history_length"]:
        seen.private[seat] = obs


def frame_of(kind: str, **fields: Any) -> str:
    """A frame other than a table's (``welcome``, ``refused``...), as JSON text."""
    return json.dumps({"t": kind, **fields}, separators=(",", ":"), ensure_ascii=False)
