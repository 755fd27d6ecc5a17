"""The Discord side of every table: the desk that builds the parts and hears the manager.

    buttons.py    the DynamicItems and the ``Clicks`` protocol they call (imports nothing
                  else of this package)
    clicks.py     clicks (and the commands that share their work) -> manager calls
    hand_clicks.py  clicks on the hand message kept in a DM, answered by changing it
    hand_locks.py   one change of a seat's hand message at a time
    answer_time.py  what is left of a click's 3 s: its waits bounded, else acknowledged
    announcer.py  one method per manager event -> messages out
    recovery.py   after a restart: post only what the channel is missing
    messages.py   pure builders: lobby, move and turn lines, views
    choices.py    pure builders: a move in words, the numbered choices (buttons, menus)
    hands.py      a hand as a message (DM, "My hand", recovery): hand, choice, game over
    pictures.py   board, hand and replay files, drawn off the event loop
    posts.py      posting in a game's channel; lobby, board and thread bookkeeping (kept
                  in the store, so any process can edit or tidy any game's messages)
    pace.py       at most Discord's message rate in any one channel
    dms.py        sending DMs: the hand message kept per seat (edited when the hand
                  changes), one retry
    dm_memory.py  what the bot knows of each person's DMs (channel, door, hand messages):
                  the store's rows, with bounded caches in front
    bounded.py    a mapping with a ceiling (what is kept in memory never grows for ever)
    prefs.py      per-server language and layout, per-person language: the only writer
    replies.py    ephemeral answers and the ``refusals`` guard
    shards.py     which servers this process looks after when several share the shards
    watch.py      what it tells whoever watches the bot (boards out, where a move came from)

Each piece of state has one owner here, with methods; the desk only wires them.
"""

from __future__ import annotations

import asyncio

import discord

from manager import Event, GameManager, ShowAgain
from store import Database, StoreUnavailable

from .announcer import Announcer
from .buttons import ALL_ITEMS
from .clicks import TableClicks
from .dm_memory import DmMemory
from .dms import DirectMessages
from .manners import Layout
from .pace import ChannelPace
from .posted import Posted
from .posts import Posts
from .prefs import Preferences
from .recovery import Recovery
from .replies import InFlight
from .urgency import Urgency, unhurried
from .watch import Watch

__all__ = ["ALL_ITEMS", "Desk"]


class Desk:
    """All tables of one bot on Discord: a manager listener, and the clicks behind buttons."""

    def __init__(self, bot: discord.Client, manager: GameManager, *, rows: Database,
                 pace: ChannelPace | None = None, watch: Watch | None = None,
                 board_button: bool = False, urgent: Urgency = unhurried) -> None:
        """``rows``: the store's database (``Store.rows``), where the Discord side keeps
        its own rows (what was posted, each person's DM door, the servers' layouts:
        ``posted.py``, ``manners.py``), shared with every other process on the same
        database; ``watch``: told when each board is
        out (the bot's metrics: ``cogs/table/watch.py``); ``board_button``: the bot serves
        the Activity (the lobby and the boards get "Play on the board"); ``urgent``: around
        a board's post, for the bot's REST pace (``Posts``)."""
        self.manager = manager
        posted = Posted(rows)
        self.layout = Layout(rows)  # each server's layout (own threads, tidy boards)
        self.prefs = Preferences(bot)
        self.posts = Posts(bot, manager, self.prefs, posted, pace, urgent,
                           board_button=board_button)
        self.dms = DirectMessages(bot, manager, self.prefs, self.posts, DmMemory(posted),
                                  urgent)
        self.announcer = Announcer(manager, self.prefs, self.posts, self.dms, watch, urgent)
        self.recovery = Recovery(bot, manager, self.prefs, self.posts, self.dms,
                                 self.announcer.game_over)
        # the clicks and commands under way: a clean stop lets them finish first
        self.in_flight = InFlight()
        self.clicks = TableClicks(bot, manager, self.prefs, self.posts, self.dms,
                                  self.in_flight)
        self._recovering = False
        # set once this process has shown again what a restart may have cut off: after
        # it, nothing more is posted for the restart (tests and start-up checks wait on it)
        self.recovered = asyncio.Event()
        self._showing: set[asyncio.Task[bool]] = set()

    async def on_event(self, event: Event) -> None:
        """The manager's listener: every event goes to the announcer, but a table to show
        again (another process died before it had posted a change: manager.sharing)
        goes to the recovery, in a task of its own: it waits for the table to be quiet,
        which it is not while its events are being told."""
        if isinstance(event, ShowAgain):
            task = asyncio.create_task(self.recovery.show(event.table, event.ending),
                                       name=f"show-again-{event.game_id}")
            self._showing.add(task)
            task.add_done_callback(self._showing.discard)
            return
        await self.announcer.on_event(event)

    async def on_ready(self) -> None:
        """Once per process (on_ready fires again after a fresh IDENTIFY): show again what a
        restart may have cut off; if the database is away meanwhile, again when it
        answers (the outage is said once, by the store)."""
        if not self._recovering:
            self._recovering = True
            try:
                while True:
                    try:
                        await self.recovery.recover()
                        return
                    except StoreUnavailable:
                        # (reading every channel again is not something to retry blindly)
                        await self.manager.store.outages.until_back()
            finally:
                self.recovered.set()

    async def close(self) -> None:
        """At shutdown: delayed retries are dropped (the next start's recovery shows what
        they would have); the DM memory's notes are written."""
        self.dms.close()
        await self.dms.memory.close()
        self.posts.close()
        self.announcer.close()
        for task in self._showing:
            task.cancel()
