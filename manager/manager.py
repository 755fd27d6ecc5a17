"""The game manager: one door to every lobby and game, for the Discord side and for tests.

A facade over small owners. Every change goes the same way: find the table, take its lock
(``sharing``: which also brings it to its stored version), check the rule (``lobby``, the
engine), make the step (``step``: engine -> commit -> events queued), let the lock go,
then have the computers and the outbox follow (``Computers.after``: a computer to move is
kicked, the queued events are told). So listeners hear of a change only after it is committed,
and a crash never leaves an announced move unsaved. See docs/MANAGER.md for the whole
interface.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Callable, Sequence
from typing import Any

from engine.errors import Refusal
from engine.factory import new_game
from store import GameRecord, GuildSettings, Seat, Status, Store, StoreUnavailable

from . import lobby as rules
from .computer import Agent, Computers, Hint, make_agent, suggest
from .deadlines import CHORE_CLAIM, PROMISE, REMINDER_SHARE, ChoreRule
from .doubt import DOUBT_WAIT, Doubts
from .due import Due
from .errors import ManagerError, refuse
from .events import Hearer, Listener, Moved, Player, TableView
from .house_rules import HouseRules
from .outbox import FinalBoards, Outbox
from .reading import TableReading
from .restore import Restorer
from .server_settings import ServerSettings
from .sharing import RESYNC_INTERVAL, sharing_for
from .step import Steps
from .table import Table, Tables
from .tally import Tally
from .timers import Clock, SystemClock

log = logging.getLogger(__name__)


class GameManager(TableReading):
    """Lobbies and games of every channel; see docs/MANAGER.md for the whole interface."""

    def __init__(
        self,
        store: Store,
        *,
        computer_delay: float = 1.5,
        clock: Clock | None = None,
        seed_source: Callable[[], int] | None = None,
        lobby_idle: float = 15 * 60,
        timer_interval: float = 5.0,
        agent_factory: Callable[[str, int], Agent] | None = None,
        claim: float = CHORE_CLAIM,
        promise: float = PROMISE,
        resync_every: float = RESYNC_INTERVAL,
        reminder_share: float = REMINDER_SHARE,
        doubt_wait: float = DOUBT_WAIT,
    ) -> None:
        """``claim``, ``promise``, ``resync_every``, ``doubt_wait``: the times several
        processes on one PostgreSQL keep to (``deadlines``, ``sharing``, ``doubt``);
        ``reminder_share``: a turn is reminded when this share of its time is left."""
        self.store = store
        self._clock: Clock = clock or SystemClock()
        self._seed_source = seed_source or (lambda: secrets.randbits(62))
        self._tables = Tables()
        self._outbox = Outbox()
        self.tally = Tally()  # what the owners did, counted (read by the bot's metrics)
        restorer = Restorer(store, self._clock)
        self._final_boards = FinalBoards(store, restorer)
        rule = ChoreRule(computer_delay=computer_delay, claim=claim,
                         reminder_share=reminder_share)
        self._sharing = sharing_for(store, self._tables, restorer, self._outbox,
                                    self._final_boards, self._clock, rule=rule,
                                    promise=promise, resync_every=resync_every,
                                    tally=self.tally)
        self._steps = Steps(store, self._clock, self._tables, self._outbox,
                            Doubts(store, self._sharing.hold_again, wait=doubt_wait),
                            lobby_idle=lobby_idle)
        self._computers = Computers(self._sharing, self._steps, self._outbox, self._clock,
                                    store.outages, delay=computer_delay,
                                    make=agent_factory or make_agent)
        self._due = Due(self._sharing, self._steps, self._computers, self._clock, rule,
                        interval=timer_interval, tally=self.tally)
        self._restorer = restorer
        self._settings = ServerSettings(store, self._tables, self._sharing, self._steps,
                                        self._clock, self._computers.after)

    @property
    def clock(self) -> Clock:
        """The manager's time (given at construction: every owner reads the same one)."""
        return self._clock

    @property
    def final_boards(self) -> FinalBoards:
        """Which finished games' final boards are owed: ``owed()``, ``ending(game_id)``
        (how it ended, if its board is owed), ``shown(game_id)`` (the listener posted it)."""
        return self._final_boards

    @property
    def lobby_idle(self) -> float:
        """Seconds an untouched lobby stays open."""
        return self._steps.lobby_idle

    @property
    def computer_delay(self) -> float:
        return self._computers.delay

    # -- life cycle --------------------------------------------------------------------

    async def start(self, *, run_timers: bool = True, resume: bool = True) -> None:
        """Load every lobby and game in play and set them going again.

        ``resume=False`` only loads (no forced passes, no computer moves): for looking at
        exactly what was restored."""
        await self._sharing.load()
        for game_id in self._tables.ids():
            if resume and self._tables.find(game_id).status is Status.PLAYING:
                async with self._sharing.locked(game_id) as table:
                    await self._steps.settle_forced(table)
                # (what that told waits for the game's next change: the listeners may not
                # be connected yet)
                self._computers.tidy(table)
        if run_timers:
            self._due.start()
        await self._sharing.start()

    async def close(self) -> None:
        """Stop timers and computer players, after the moves being made have been saved.

        A move is made and committed under its game's lock. Taking every game's lock first
        waits for those (a click, a computer, a timer) to finish their commit; while close
        holds the locks no new move can begin, so the cancelling below stops only players
        thinking or waiting, never a commit half done (SIGTERM of the bot comes here)."""
        self._sharing.closing = True
        async with self._sharing.holding_all():
            tasks = [*self._computers.halt(), *self._outbox.halt(), self._due.stop()]
        await asyncio.gather(*(t for t in tasks if t is not None), return_exceptions=True)
        await self._sharing.close()

    async def settle(self) -> None:
        """Wait until no computer player is thinking or waiting to move, and every change
        is told (tests, demo)."""
        while True:
            await self._computers.settle()
            await self._outbox.settle()
            if not self._computers.busy():
                return

    def add_listener(self, listener: Listener | Hearer) -> None:
        self._outbox.add_listener(listener)

    def remove_listener(self, listener: Listener | Hearer) -> None:
        self._outbox.remove_listener(listener)

    # -- reading (and ``TableReading``'s: a table, its seats, its views, the offer) ---------

    def announcing(self, game_id: int) -> bool:
        """Whether a change of this table is under way or still being told to the
        listeners. A restarted bot's recovery waits until it is not, and reads the position
        in the same step, so it never shows a move that is about to get its own board. (The
        lock counts: a move is applied to the game before its commit is awaited, and only
        then queued for announcing.)"""
        self._tables.find(game_id)
        return self._sharing.busy(game_id) or self._outbox.busy(game_id)

    def game_state(self, game_id: int) -> dict[str, Any]:
        """The full engine state (``to_dict``): for tests and diagnostics, never players."""
        return self._tables.find(game_id).playing().to_dict()

    async def load_record(self, game_id: int) -> GameRecord | None:
        """A game as stored, finished or not (seats, options, seed, action log): for a
        rematch or a replay, so the Discord side asks the manager for games, and reads
        only its own rows in the store (posted messages, DM doors, preferences)."""
        return await self.store.games.load_game(game_id)

    async def catch_up(self, game_id: int) -> None:
        """Before reading a game to answer a click: with several processes, bring it to
        its stored version (a click may come faster than the news of the move before it).
        One process: nothing to do."""
        await self._sharing.catch_up(game_id)

    # -- settings ----------------------------------------------------------------------

    async def guild_settings(self, guild_id: int) -> GuildSettings:
        return await self._settings.of(guild_id)

    async def set_guild_settings(self, guild_id: int, **changes: Any) -> GuildSettings:
        """Change a server's settings (see docs/MANAGER.md); returns the new settings. Each
        open table of the server follows them where its game did not choose for itself
        (``server_settings``)."""
        return await self._settings.change(guild_id, **changes)

    # -- lobbies -----------------------------------------------------------------------

    async def create_lobby(
        self, game: str, options: dict[str, Any] | None, host: Player,
        guild_id: int | None, channel_id: int, *, on_leave: str = "skip",
        turn_timer: float | None = None, family_seats: bool = True,
        seat_again: Sequence[Seat] = (),
    ) -> TableView:
        """Open a lobby in a channel; the host takes the first seat. ``turn_timer``: the
        host's seconds per turn for this game (0: no timer; None: the server's setting);
        ``family_seats``: whether grown-ups may add children's seats; ``seat_again``: a
        finished game's other seats to seat at once, in order (a rematch: the lobby is
        never shown half filled). A seat the lobby's rules refuse is left out."""
        rules.check_table_options(on_leave, turn_timer)
        server = await self._restorer.server_settings(guild_id)
        opts = {**server.defaults.get(game, {}), **(options or {})}
        rules.check_game_options(game, opts)
        table = Table(id=0, kind=game, options=opts, status=Status.LOBBY, guild_id=guild_id,
                      channel_id=channel_id, host_id=host.user_id,
                      seats=[Seat(0, host.user_id, host.name)], on_leave=on_leave,
                      created_at=0.0, rules=HouseRules.of(server, turn_timer),
                      family_seats=family_seats)
        rules.seat_again(table, seat_again)
        table = await self._steps.open_lobby(table)
        await self._sharing.created(table)
        await self._computers.after(table)
        return table.view()

    async def rematch(self, game_id: int, user_id: int, channel_id: int) -> TableView:
        """A finished game's seats again, in a new lobby (``lobby.rematch_seats``)."""
        record, host, others = rules.rematch_seats(
            await self.store.games.load_game(game_id), user_id)
        return await self.create_lobby(
            record.kind, dict(record.options), Player(host.user_id or 0, host.name),
            record.guild_id, channel_id, on_leave=record.on_leave, turn_timer=record.turn_timer,
            family_seats=record.family_seats, seat_again=others)

    async def join(self, game_id: int, player: Player) -> TableView:
        return await self._lobby_change(game_id, "joined",
                                        lambda t: rules.seat_player(t, player))

    async def add_child(self, game_id: int, grown_up: Player, name: str) -> TableView:
        """A family seat: a child without a Discord account plays from ``grown_up``'s
        account. The grown-up need not have a seat of their own; they act for the child's
        seat from then on."""
        return await self._lobby_change(game_id, "child_added",
                                        lambda t: rules.seat_child(t, grown_up, name))

    async def add_computer(self, game_id: int, user_id: int, level: str) -> TableView:
        """A seated player (usually the host) adds a computer player."""
        return await self._lobby_change(game_id, "computer_added",
                                        lambda t: rules.seat_computer(t, user_id, level))

    async def _lobby_change(self, game_id: int, reason: str,
                            rule: Callable[[Table], None]) -> TableView:
        async with self._sharing.locked(game_id) as table:
            rule(table)
            await self._steps.save_lobby(table, reason)
        await self._computers.after(table)
        return table.view()

    async def leave(self, game_id: int, user_id: int) -> TableView:
        """Leave a lobby; the host leaving cancels it."""
        async with self._sharing.locked(game_id) as table:
            if rules.unseat_leaver(table, user_id):
                await self._steps.cancel_lobby(table, "host_left")
            else:
                await self._steps.save_lobby(table, "left")
        await self._computers.after(table)
        return table.view()

    async def remove_seat(self, game_id: int, user_id: int, seat: int, *,
                          is_moderator: bool = False) -> TableView:
        """The host, or a moderator (the caller decides who is one), removes a seat.

        From a lobby: a computer player or a person (not the host's own seat). From a game in
        play: the seat is freed like one whose player left: skipped from then on, or played
        by a computer when the table chose ``on_leave="computer"``; its chips stay."""
        async with self._sharing.locked(game_id) as table:
            rules.check_remover(table, user_id, seat, is_moderator)
            if table.status is Status.LOBBY:
                rules.unseat(table, seat)
                await self._steps.save_lobby(table, "seat_removed")
            else:
                person = rules.check_seat_to_free(table, seat)
                await self._steps.free_seat(table, seat, change="removed",
                                            hand_over=person and table.on_leave == "computer")
                await self._steps.settle_forced(table)
        await self._computers.after(table)
        return table.view()

    async def cancel(self, game_id: int, user_id: int) -> TableView:
        async with self._sharing.locked(game_id) as table:
            rules.check_open(table)
            rules.check_host(table, user_id, "cancel the lobby")
            await self._steps.cancel_lobby(table, "host")
        await self._computers.after(table)
        return table.view()

    def may_start(self, game_id: int, user_id: int) -> bool:
        """Whether ``start_game`` would let ``user_id`` start this lobby now (the one rule,
        ``lobby.check_start``): a transport that prepares a start (the Discord side opens
        the game's thread) asks this first, and ``start_game`` says why not."""
        try:
            rules.check_start(self._tables.find(game_id), user_id)
        except Refusal:
            return False
        return True

    async def start_game(self, game_id: int, user_id: int, *,
                         channel_id: int | None = None) -> TableView:
        """Deal (Kids) or roll off (Dice) and begin. Host only, 2 to 4 seats.
        ``channel_id``: the game goes on there (a thread opened for it), saved first."""
        async with self._sharing.locked(game_id) as table:
            rules.check_start(table, user_id)
            if channel_id is not None and channel_id != table.channel_id:
                await self._steps.move(table, channel_id)
            seed = self._seed_source()
            game = new_game(table.kind, len(table.seats), seed, **table.options)
            await self._steps.start(table, game, seed)
        await self._computers.after(table)
        return table.view()

    # -- turns -------------------------------------------------------------------------

    async def submit(self, game_id: int, user_id: int, action: str, *,
                     expected_ply: int | None = None, via: str | None = None,
                     request_id: str | None = None, reply_to: object = None) -> Moved:
        """Play ``action`` for the user's seat (``Steps.play``: a typed error, and nothing
        changed, when it is not allowed). ``via``: where the move came from; ``request_id``:
        the transport's unique id of the request, which makes the move idempotent and lets
        a commit whose answer was lost be looked up (docs/MANAGER.md); ``reply_to``: the
        transport's own handle on the request, carried untouched by the move's events
        (``Event.reply_to``)."""
        moved: Moved | None = None
        try:
            async with self._sharing.locked(game_id) as table:
                moved = await self._steps.play(table, user_id, action, expected_ply=expected_ply,
                                               via=via, request_id=request_id,
                                               reply_to=reply_to)
                await self._steps.settle_forced(table)
        except StoreUnavailable:
            if moved is None:
                raise  # (else the move is stored, and a forced pass after it is a chore)
        await self._computers.after(table)
        assert moved is not None
        return moved

    async def resign(self, game_id: int, user_id: int, seat: int | None = None) -> TableView:
        """Give up, in turn or out of turn: the seat is skipped from now on. A grown-up
        holding several seats says which (``seat``); the one seat held needs no saying."""
        return await self._quit(game_id, user_id, seat, leaving=False)

    async def leave_game(self, game_id: int, user_id: int, seat: int | None = None
                         ) -> TableView:
        """Leave mid-game: skipped like a resignation, or, if the lobby chose
        ``on_leave="computer"``, a computer player takes the seat and plays on."""
        return await self._quit(game_id, user_id, seat, leaving=True)

    async def _quit(self, game_id: int, user_id: int, seat: int | None, *, leaving: bool
                    ) -> TableView:
        async with self._sharing.locked(game_id) as table:
            quitting = rules.quitting_seat(table, user_id, seat)
            await self._steps.free_seat(table, quitting,
                                        hand_over=leaving and table.on_leave == "computer",
                                        change="left" if leaving else "resigned")
            await self._steps.settle_forced(table)
        await self._computers.after(table)
        return table.view()

    async def end(self, game_id: int, user_id: int, *, is_moderator: bool = False) -> TableView:
        """Stop a lobby or a game with no result: the host, or a moderator (the caller
        decides who is one, from the member's permissions)."""
        async with self._sharing.locked(game_id) as table:
            if not table.active:
                raise refuse("game_over", "The game is over.")
            if user_id != table.host_id and not is_moderator:
                raise refuse("not_host", "Only the host or a moderator can end the game.")
            if table.status is Status.LOBBY:
                await self._steps.cancel_lobby(table, "ended")
            else:
                await self._steps.end(table, user_id)
        await self._computers.after(table)
        return table.view()

    async def hint(self, game_id: int, user_id: int) -> Hint:
        """The move the hint player (medium) suggests for the asking player's turn, why,
        and the observation it was chosen for. Computed off the event loop.

        Refuses with ``game_not_started`` (a lobby), ``not_a_player``, ``not_your_turn``.
        The same position and game always give the same hint (seeded by game and ply)."""
        table = self._tables.find(game_id)
        game = table.playing()
        seat = rules.player_seat(table, user_id)
        rules.check_turn(game, seat)
        obs = game.observation(seat)
        return await asyncio.to_thread(suggest, obs, table.id * 100_003 + len(game.history))

    async def move_game(self, game_id: int, channel_id: int) -> TableView:
        """The game goes on in ``channel_id`` (a thread the transport opened for it): its
        messages go there, commands there find it, and its old channel is free for a new
        lobby. Stored, so a restart keeps it there."""
        async with self._sharing.locked(game_id) as table:
            if not table.active:
                raise refuse("no_such_game", f"There is no game {game_id} in play.",
                             game_id=game_id)
            await self._steps.move(table, channel_id)
        return table.view()

    # -- what is due -----------------------------------------------------------------------

    async def check_timers(self) -> None:
        """Do what is due now: cancel idle lobbies; remind, act for, and finally free
        absent players; play a computer's turn nobody is playing. With several processes
        on PostgreSQL, shared with them: what is due in any game, claimed by one each."""
        await self._due.check()

    def showing(self, game_id: int) -> contextlib.AbstractAsyncContextManager[None]:
        """Held while a table is shown again after a restart or a take-over, so two
        processes never both post what its channel is missing (a no-op on one process)."""
        return self._sharing.showing(game_id)



__all__ = ["GameManager", "ManagerError"]
