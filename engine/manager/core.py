"""The game manager: lobbies, turns, computer players and timers around the engine.

Every change follows one order: check -> engine -> commit -> announce. The check and the
engine step happen under the game's lock, so two clicks racing for one turn apply one
move; the commit is one store transaction; listeners hear of it only after the commit, so
a crash never leaves an announced move unsaved.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from typing import Any

from ..errors import IllegalAction
from ..factory import load, new_game, replay
from ..game import Game
from ..observation import Observation
from ..options import GAMES, normalise_options
from .chores import COMPUTER, Chore, next_chore
from .computer import Agent, Hint, choose, make_agent, suggest
from .errors import ManagerError, refuse
from .events import (
    COMPUTER_LEVELS,
    Event,
    GameOver,
    GameStarted,
    HandChanged,
    Listener,
    LobbyCancelled,
    LobbyChanged,
    Moved,
    Player,
    SeatChanged,
    TableView,
    TurnReminder,
    TurnStarted,
    TurnTimedOut,
)
from .seats import Seat
from .sharing import GameLock, SharedLock, Sharing, ShowAgain, local_lock
from .store import GameRecord, GuildSettings, ResultRecord, Store
from .store.postgres import PostgresDatabase
from .timers import Clock, SystemClock

log = logging.getLogger(__name__)

MAX_SEATS = 4
MAX_CHILD_NAME = 20
MAX_TURN_TIMER = 24 * 60 * 60  # seconds: a turn timer of a day at most
TAKEOVER_LEVEL = "medium"  # the computer player that takes a seat a person left
SETTINGS = ("locale", "turn_timer", "timeout_action", "absences_to_free", "defaults")


@dataclass(eq=False)
class _Table:
    """A lobby or a game in play, as the manager holds it (never handed out)."""

    id: int
    kind: str
    options: dict[str, Any]
    status: str
    guild_id: int | None
    channel_id: int
    host_id: int
    seats: list[Seat]
    on_leave: str
    created_at: float
    settings: GuildSettings
    game: Game | None = None
    lobby_deadline: float | None = None
    turn_deadline: float | None = None
    turn_reminded: bool = False
    turn_timer: float | None = None  # the host's own for this game (0: none); None: server's
    family_seats: bool = True
    lock: GameLock = field(default_factory=asyncio.Lock)  # shared: sharing.SharedLock
    outbox: deque[Event] = field(default_factory=deque)
    delivering: bool = False
    driver: asyncio.Task[None] | None = None
    agents: dict[int, Agent] = field(default_factory=dict)

    def view(self) -> TableView:
        game = self.game
        return TableView(
            game_id=self.id,
            game=self.kind,
            options=dict(self.options),
            status=self.status,
            guild_id=self.guild_id,
            channel_id=self.channel_id,
            host_id=self.host_id,
            seats=tuple(self.seats),
            on_leave=self.on_leave,
            turn=game.current_seat if game is not None else None,
            ply=len(game.history) if game is not None else 0,
            lobby_deadline=self.lobby_deadline,
            turn_deadline=self.turn_deadline,
            created_at=self.created_at,
            turn_timer=self.settings.turn_timer,
            family_seats=self.family_seats,
        )

    def person_seat(self, user_id: int) -> int | None:
        """The seat a person acts for now (not left, not handed to a computer): of the
        seats they hold (their own and their children's), the one whose turn it is."""
        return self.view().seat_of(user_id)

    def held_seats(self, user_id: int) -> list[int]:
        return [s.index for s in self.seats if s.plays_for(user_id)]

    def change_seat(self, seat: int, **changes: Any) -> Seat:
        """Replace a seat with a changed copy (seats are frozen: a view already handed out
        keeps what it showed)."""
        new = replace(self.seats[seat], **changes)
        self.seats[seat] = new
        return new

    def is_person(self, seat: int | None) -> bool:
        return seat is not None and self.seats[seat].level is None


class GameManager:
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
    ) -> None:
        self.store = store
        self.computer_delay = computer_delay
        self.clock: Clock = clock or SystemClock()
        self._seed_source = seed_source or (lambda: secrets.randbits(62))
        self.lobby_idle = lobby_idle
        self.timer_interval = timer_interval
        # make_agent(level, seed); tests and benchmarks pass a fast one.
        self._make_agent = agent_factory or make_agent
        self._tables: dict[int, _Table] = {}
        self._by_channel: dict[int, int] = {}
        self._listeners: list[Listener] = []
        self._channel_lock = asyncio.Lock()
        self._timer_task: asyncio.Task[None] | None = None
        self._closing = False
        # several processes on one PostgreSQL share the games (engine/manager/sharing.py)
        db = store.database
        self._sharing = Sharing(db, self) if isinstance(db, PostgresDatabase) else None

    # -- life cycle --------------------------------------------------------------------

    async def start(self, *, run_timers: bool = True, resume: bool = True) -> None:
        """Load every lobby and game in play and set them going again.

        ``resume=False`` only loads (no forced passes, no computer moves): for looking at
        exactly what was restored.
        """
        versions = await self._sharing.games.active_versions() if self._sharing else {}
        for rec in await self.store.games.load_active():
            try:
                table = await self._restore(rec)
            except Exception:
                log.exception("game %d could not be restored; it stays in the database "
                              "untouched", rec.id)
                continue
            self._share(table, versions.get(table.id))
            self._tables[table.id] = table
            self._by_channel[table.channel_id] = table.id
        for table in list(self._tables.values()):
            if resume and table.status == "playing":
                async with table.lock:
                    await self._settle_forced(table)
                self._kick(table)
        if run_timers:
            self._timer_task = asyncio.create_task(self._timer_loop(), name="turn-timers")
        if self._sharing is not None:
            await self._sharing.start()

    async def close(self) -> None:
        """Stop timers and computer players, after the moves being made have been saved.

        A move is made and committed under its game's lock. Taking every game's lock first
        waits for those (a click, a computer, a timer) to finish their commit; while close
        holds the locks no new move can begin, so the cancelling below stops only players
        thinking or waiting, never a commit half done (SIGTERM of the bot comes here).
        """
        self._closing = True
        async with contextlib.AsyncExitStack() as held:
            for table in list(self._tables.values()):
                await held.enter_async_context(local_lock(table.lock))
            tasks = [t.driver for t in self._tables.values() if t.driver and not t.driver.done()]
            if self._timer_task:
                tasks.append(self._timer_task)
            for task in tasks:
                task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if self._sharing is not None:
            await self._sharing.close()

    async def settle(self) -> None:
        """Wait until no computer player is thinking or waiting to move (tests, demo)."""
        while True:
            busy = [t.driver for t in self._tables.values() if t.driver and not t.driver.done()]
            if not busy:
                return
            await asyncio.gather(*busy, return_exceptions=True)

    def add_listener(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def remove_listener(self, listener: Listener) -> None:
        self._listeners.remove(listener)

    # -- reading -----------------------------------------------------------------------

    def table_for_channel(self, channel_id: int) -> TableView | None:
        game_id = self._by_channel.get(channel_id)
        return self._tables[game_id].view() if game_id is not None else None

    def get(self, game_id: int) -> TableView:
        return self._table(game_id).view()

    def is_active(self, game_id: int) -> bool:
        """True while the game is a lobby or in play."""
        return game_id in self._tables

    def tables(self) -> list[TableView]:
        return [t.view() for t in self._tables.values()]

    def seat_of(self, game_id: int, user_id: int) -> int | None:
        return self._table(game_id).person_seat(user_id)

    def observation_for(self, game_id: int, user_id: int) -> Observation:
        """The user's private view (hand, legal actions); a non-player's is the spectator's."""
        table = self._table(game_id)
        game = self._game_of(table)
        return game.observation(table.person_seat(user_id))

    def seat_observation(self, game_id: int, seat: int) -> Observation:
        """What one seat may see (its hand, and its legal actions on its turn): a grown-up
        holding several seats gets each seat's own view."""
        table = self._table(game_id)
        game = self._game_of(table)
        if not 0 <= seat < len(table.seats):
            raise refuse("no_such_seat", f"There is no seat {seat + 1}.", seat=seat)
        return game.observation(seat)

    def spectator_observation(self, game_id: int) -> Observation:
        return self._game_of(self._table(game_id)).observation(None)

    def announcing(self, game_id: int) -> bool:
        """Whether a change of this table is under way or still being told to the
        listeners. A restarted bot's recovery waits until it is not, and reads the position
        in the same step, so it never shows a move that is about to get its own board. (The
        lock counts: a move is applied to the game before its commit is awaited, and only
        then queued for announcing.)"""
        table = self._table(game_id)
        return table.lock.locked() or table.delivering or bool(table.outbox)

    def game_state(self, game_id: int) -> dict[str, Any]:
        """The full engine state (``to_dict``): for tests and diagnostics, never players."""
        return self._game_of(self._table(game_id)).to_dict()

    async def load_record(self, game_id: int) -> GameRecord | None:
        """A game as stored, finished or not (seats, options, seed, action log): for a
        rematch or a replay, so the Discord side never reads the store itself."""
        return await self.store.games.load_game(game_id)

    async def guild_settings(self, guild_id: int) -> GuildSettings:
        return await self.store.games.guild_settings(guild_id)

    async def set_guild_settings(self, guild_id: int, **changes: Any) -> GuildSettings:
        """Change a server's settings (see docs/MANAGER.md); returns the new settings."""
        for name, value in changes.items():
            if name not in SETTINGS:
                raise refuse("bad_setting", f"There is no setting {name!r}.", setting=name)
            ok = {
                "locale": lambda v: v in ("en", "no"),
                "turn_timer": lambda v: v is None or (
                    isinstance(v, int | float) and not isinstance(v, bool) and 10 <= v <= 86400),
                "timeout_action": lambda v: v in ("computer", "skip"),
                "absences_to_free": lambda v: isinstance(v, int) and 1 <= v <= 10,
                "defaults": lambda v: isinstance(v, dict) and set(v) <= set(GAMES),
            }[name](value)
            if not ok:
                raise refuse("bad_setting", f"{value!r} is not a valid {name}.",
                             setting=name, value=str(value))
        for game, opts in changes.get("defaults", {}).items():
            probe = 4 if opts.get("teams") else 2
            normalise_options(game, probe, dict(opts))  # raises InvalidOptions
        settings = replace(await self.store.games.guild_settings(guild_id), **changes)
        await self.store.games.save_guild_settings(settings, now=self.clock.now())
        for table in self._tables.values():
            if table.guild_id == guild_id:
                table.settings = settings
        return settings

    # -- lobbies -----------------------------------------------------------------------

    async def create_lobby(
        self,
        game: str,
        options: dict[str, Any] | None,
        host: Player,
        guild_id: int | None,
        channel_id: int,
        *,
        on_leave: str = "skip",
        turn_timer: float | None = None,
        family_seats: bool = True,
    ) -> TableView:
        """Open a lobby in a channel; the host takes the first seat. ``turn_timer``: the
        host's seconds per turn for this game (0: no timer; None: the server's setting);
        ``family_seats``: whether grown-ups may add children's seats."""
        if on_leave not in ("skip", "computer"):
            raise refuse("bad_setting", "on_leave is skip or computer.", setting="on_leave",
                         value=str(on_leave))
        if turn_timer is not None and not 0 <= turn_timer <= MAX_TURN_TIMER:
            raise refuse("bad_setting", "A turn timer is 0 (none) to 1440 minutes.",
                         setting="turn_timer", value=str(turn_timer))
        settings = _with_timer(
            await self.store.games.guild_settings(guild_id) if guild_id is not None
            else GuildSettings(0), turn_timer)
        opts = {**settings.defaults.get(game, {}), **(options or {})}
        # Check the options now (with a seat count they allow), again at start.
        normalise_options(game, 4 if opts.get("teams") else 2, opts)
        async with self._channel_lock:
            if channel_id in self._by_channel:
                raise refuse("channel_busy", "This channel already has a lobby or a game.",
                             game_id=self._by_channel[channel_id])
            now = self.clock.now()
            seats = [Seat(0, host.user_id, host.name)]
            deadline = now + self.lobby_idle
            game_id = await self.store.games.create_lobby(
                game, opts, guild_id, channel_id, host.user_id, seats,
                lobby_deadline=deadline, on_leave=on_leave, now=now, turn_timer=turn_timer,
                family_seats=family_seats)
            if game_id is None:
                raise refuse("channel_busy", "This channel already has a lobby or a game.")
            table = _Table(
                id=game_id, kind=game, options=opts, status="lobby", guild_id=guild_id,
                channel_id=channel_id, host_id=host.user_id, seats=seats, on_leave=on_leave,
                created_at=now, settings=settings, lobby_deadline=deadline,
                turn_timer=turn_timer, family_seats=family_seats)
            self._share(table)
            self._tables[game_id] = table
            self._by_channel[channel_id] = game_id
            table.outbox.append(LobbyChanged(table.view(), "created"))
        if self._sharing is not None:
            await self._sharing.schedule(game_id, self._chore(table))  # its time-out
            await self._sharing.created(game_id)
        await self._flush(table)
        return table.view()

    async def join(self, channel_id: int, player: Player) -> TableView:
        table = self._lobby(channel_id)
        async with table.lock:
            self._check_lobby(table)
            if any(s.user_id == player.user_id and s.level is None and not s.is_child
                   for s in table.seats):
                raise refuse("already_joined", "You are already in this lobby.")
            self._check_room(table)
            table.seats.append(Seat(len(table.seats), player.user_id, player.name))
            await self._save_lobby(table, "joined")
        await self._flush(table)
        return table.view()

    async def add_child(self, channel_id: int, grown_up: Player, name: str) -> TableView:
        """A family seat: a child without a Discord account plays from ``grown_up``'s
        account (Discord's accounts are for 13 and over). The grown-up need not have a seat
        of their own; they act for the child's seat from then on."""
        table = self._lobby(channel_id)
        name = " ".join(str(name).split())
        async with table.lock:
            self._check_lobby(table)
            if not table.family_seats:
                raise refuse("family_seats_off", "The host turned family seats off.")
            if not name:
                raise refuse("child_name_empty", "A child's seat needs a name.")
            if len(name) > MAX_CHILD_NAME:
                raise refuse("child_name_long", "A child's name is at most 20 letters.",
                             limit=MAX_CHILD_NAME)
            if any(s.name.casefold() == name.casefold() for s in table.seats
                   if s.level is None):
                raise refuse("child_name_taken", "Someone at this table has that name.",
                             name=name)
            self._check_room(table)
            table.seats.append(Seat(len(table.seats), grown_up.user_id, name,
                                    guardian=grown_up.name))
            await self._save_lobby(table, "child_added")
        await self._flush(table)
        return table.view()

    async def add_computer(self, channel_id: int, user_id: int, level: str) -> TableView:
        """A seated player (usually the host) adds a computer player."""
        table = self._lobby(channel_id)
        async with table.lock:
            self._check_lobby(table)
            if level not in COMPUTER_LEVELS:
                raise refuse("bad_level", "A computer player is easy, medium or hard.",
                             level=str(level))
            if table.person_seat(user_id) is None:
                raise refuse("not_in_lobby", "Join the lobby first.")
            self._check_room(table)
            number = sum(1 for s in table.seats if s.level is not None) + 1
            table.seats.append(Seat(len(table.seats), None, f"Computer {number}", level))
            await self._save_lobby(table, "computer_added")
        await self._flush(table)
        return table.view()

    async def leave(self, channel_id: int, user_id: int) -> TableView:
        """Leave a lobby; the host leaving cancels it."""
        table = self._lobby(channel_id)
        async with table.lock:
            self._check_lobby(table)
            held = table.held_seats(user_id)
            if not held:
                raise refuse("not_in_lobby", "You are not in this lobby.")
            if user_id == table.host_id:
                await self._cancel_lobby(table, "host_left")
            else:
                # a grown-up who leaves takes their children's seats along: nobody would
                # play them
                table.seats[:] = [s for s in table.seats if s.index not in held]
                self._renumber(table)
                await self._save_lobby(table, "left")
        await self._flush(table)
        return table.view()

    async def remove_seat(self, channel_id: int, user_id: int, seat: int, *,
                          is_moderator: bool = False) -> TableView:
        """The host, or a moderator (the caller decides who is one), removes a seat.

        From a lobby: a computer player or a person (not the host's own seat). From a game in
        play: the seat is freed like one whose player left: skipped from then on, or played
        by a computer when the table chose ``on_leave="computer"``; its chips stay."""
        game_id = self._by_channel.get(channel_id)
        if game_id is None:
            raise refuse("no_lobby", "There is no lobby in this channel.")
        table = self._tables[game_id]
        async with table.lock:
            if table.status not in ("lobby", "playing"):
                raise refuse("no_lobby", "There is no lobby in this channel.")
            own_child = (table.status == "lobby" and 0 <= seat < len(table.seats)
                         and table.seats[seat].is_child and table.seats[seat].user_id == user_id)
            if user_id != table.host_id and not is_moderator and not own_child:
                raise refuse("not_host", "Only the host or a moderator can remove a seat.")
            if table.status == "lobby":
                if not 0 < seat < len(table.seats):
                    raise refuse("no_such_seat", f"There is no seat {seat + 1} to remove.",
                                 seat=seat)
                del table.seats[seat]
                self._renumber(table)
                await self._save_lobby(table, "seat_removed")
            else:
                self._game_of(table)
                if not 0 <= seat < len(table.seats) or table.seats[seat].resigned:
                    raise refuse("no_such_seat", f"There is no seat {seat + 1} to remove.",
                                 seat=seat)
                person = table.seats[seat].user_id is not None and not table.seats[seat].left
                await self._free_seat(table, seat,
                                      hand_over=person and table.on_leave == "computer",
                                      change="removed")
                await self._settle_forced(table)
        if table.status == "playing":
            self._kick(table)
        await self._flush(table)
        return table.view()

    async def cancel(self, channel_id: int, user_id: int) -> TableView:
        table = self._lobby(channel_id)
        async with table.lock:
            self._check_lobby(table)
            if user_id != table.host_id:
                raise refuse("not_host", "Only the host can cancel the lobby.")
            await self._cancel_lobby(table, "host")
        await self._flush(table)
        return table.view()

    async def start_game(self, channel_id: int, user_id: int) -> TableView:
        """Deal (Kids) or roll off (Dice) and begin. Host only, 2 to 4 seats."""
        table = self._lobby(channel_id)
        async with table.lock:
            self._check_lobby(table)
            if user_id != table.host_id:
                raise refuse("not_host", "Only the host can start the game.")
            if len(table.seats) < 2:
                raise refuse("not_enough_players", "A game needs at least 2 players.",
                             seats=len(table.seats))
            seed = self._seed_source()
            game = new_game(table.kind, len(table.seats), seed, **table.options)
            table.options = dict(game.options)
            table.game = game
            table.status = "playing"
            table.lobby_deadline = None
            now = self.clock.now()
            self._set_turn_deadline(table, None, now)
            snapshot = game.to_dict()
            try:
                await self.store.games.start_game(
                    table.id, seed=seed, options=table.options, snapshot=snapshot,
                    seats=table.seats, turn_deadline=table.turn_deadline, now=now)
            except BaseException:
                table.game, table.status = None, "lobby"
                raise
            view = table.view()
            table.outbox.append(GameStarted(view, game.observation(None)))
            for s in table.seats:
                if s.level is None and s.user_id is not None:
                    table.outbox.append(HandChanged(view, s.index, s.user_id,
                                                    game.observation(s.index)))
            self._announce_turn(table)
            await self._settle_forced(table)
        self._kick(table)
        await self._flush(table)
        return table.view()

    # -- turns -------------------------------------------------------------------------

    async def submit(
        self, game_id: int, user_id: int, action: str, *, expected_ply: int | None = None
    ) -> Moved:
        """Play ``action`` for the user's seat. Raises a typed error and changes nothing
        when it is not allowed."""
        table = self._table(game_id)
        async with table.lock:
            game = self._game_of(table)
            seat = table.person_seat(user_id)
            if seat is None:
                raise refuse("not_a_player", "You are not playing in this game.")
            if expected_ply is not None and expected_ply != len(game.history):
                raise refuse("already_played", "That move was already played.",
                             ply=len(game.history))
            if game.current_seat != seat:
                raise refuse("not_your_turn", "It is not your turn.",
                              turn=game.current_seat)
            if not isinstance(action, str):
                raise IllegalAction("malformed", "An action is text such as lion@B3 or roll.")
            table.change_seat(seat, absences=0)
            moved = await self._step(table, seat, _applying(action), by="player",
                                     user_id=user_id, seats_changed=True)
            await self._settle_forced(table)
        self._kick(table)
        await self._flush(table)
        return moved

    async def resign(self, game_id: int, user_id: int, seat: int | None = None) -> TableView:
        """Give up, in turn or out of turn: the seat is skipped from now on. A grown-up
        holding several seats says which (``seat``); the one seat held needs no saying."""
        return await self._quit(game_id, user_id, seat, hand_over=False, change="resigned")

    async def leave_game(self, game_id: int, user_id: int, seat: int | None = None
                         ) -> TableView:
        """Leave mid-game: skipped like a resignation, or, if the lobby chose
        ``on_leave="computer"``, a computer player takes the seat and plays on."""
        table = self._table(game_id)
        return await self._quit(game_id, user_id, seat,
                                hand_over=table.on_leave == "computer", change="left")

    async def _quit(self, game_id: int, user_id: int, seat: int | None, *, hand_over: bool,
                    change: str) -> TableView:
        table = self._table(game_id)
        async with table.lock:
            self._game_of(table)
            held = table.held_seats(user_id)
            if not held or (seat is not None and seat not in held):
                raise refuse("not_a_player", "You are not playing in this game.")
            if seat is None:
                if len(held) > 1:
                    raise refuse("which_seat", "You hold several seats: say which.",
                                 seats=", ".join(f"{i + 1} ({table.seats[i].name})"
                                                 for i in held))
                seat = held[0]
            await self._free_seat(table, seat, hand_over=hand_over, change=change)
            await self._settle_forced(table)
        self._kick(table)
        await self._flush(table)
        return table.view()

    async def end(self, game_id: int, user_id: int, *, is_moderator: bool = False) -> TableView:
        """Stop a lobby or a game with no result: the host, or a moderator (the caller
        decides who is one, from the member's permissions)."""
        table = self._table(game_id)
        async with table.lock:
            if table.status not in ("lobby", "playing"):
                raise refuse("game_over", "The game is over.")
            if user_id != table.host_id and not is_moderator:
                raise refuse("not_host", "Only the host or a moderator can end the game.")
            if table.status == "lobby":
                await self._cancel_lobby(table, "ended")
            else:
                game = self._game_of(table)
                await self.store.games.set_status(table.id, "cancelled", now=self.clock.now(),
                                            end_reason="ended")
                self._close_table(table, "cancelled")
                table.outbox.append(GameOver(table.view(), None, False, "ended", (),
                                             game.observation(None), ended_by=user_id))
        await self._flush(table)
        return table.view()

    async def hint(self, game_id: int, user_id: int) -> Hint:
        """The move the hint player (medium) suggests for the asking player's turn, why,
        and the observation it was chosen for. Computed off the event loop.

        Refuses with ``game_not_started`` (a lobby), ``not_a_player``, ``not_your_turn``.
        The same position and game always give the same hint (seeded by game and ply)."""
        table = self._table(game_id)
        game = self._game_of(table)
        seat = table.person_seat(user_id)
        if seat is None:
            raise refuse("not_a_player", "You are not playing in this game.")
        if game.current_seat != seat:
            raise refuse("not_your_turn", "It is not your turn.", turn=game.current_seat)
        obs = game.observation(seat)
        if not obs["legal"]:
            raise refuse("not_your_turn", "It is not your turn.", turn=game.current_seat)
        return await asyncio.to_thread(suggest, obs, table.id * 100_003 + len(game.history))

    # -- timers ------------------------------------------------------------------------

    async def check_timers(self) -> None:
        """Cancel idle lobbies; remind, act for, and finally free absent players.

        On PostgreSQL, shared with other processes: claim the chores that are due (any
        game, cached here or not) and do them (``chores.py``)."""
        if self._sharing is not None:
            await self._do_chores()
            return
        now = self.clock.now()
        for table in list(self._tables.values()):
            try:
                async with table.lock:
                    await self._timers_of(table, now)
            except Exception:
                log.exception("timers of game %d failed", table.id)
            self._kick(table)
            await self._flush(table)

    async def _timers_of(self, table: _Table, now: float) -> None:
        """What is due in one table at ``now`` (its lock held)."""
        if table.status == "lobby":
            if table.lobby_deadline is not None and now >= table.lobby_deadline:
                await self._cancel_lobby(table, "idle")
        elif table.status == "playing" and table.turn_deadline is not None:
            await self._turn_timer(table, now)
            await self._settle_forced(table)

    async def _do_chores(self) -> None:
        """Do the chores this process claimed: each under its game's lock, on the game as
        stored (the lock catches the cache up), so a chore that another change made moot
        does nothing but write the game's real next chore, which ends the claim."""
        sharing = self._sharing
        assert sharing is not None
        for game_id, what in await sharing.claim_due(self.clock.now()):
            table = self._tables.get(game_id)
            try:
                if table is None:
                    await self.adopt(game_id)
                    table = self._tables.get(game_id)
                if table is None:
                    continue  # it ended: the next look drops its chore
                async with table.lock:
                    if (what == COMPUTER and table.status == "playing"
                            and (table.driver is None or table.driver.done())):
                        log.warning("game %d: a computer turn nobody played in time; "
                                    "playing it here", game_id)
                    await self._timers_of(table, self.clock.now())
                    await sharing.schedule(game_id, self._chore(table))
            except Exception:
                log.exception("chore %s of game %d failed", what, game_id)
            if table is not None:
                self._kick(table)
                await self._flush(table)

    async def _turn_timer(self, table: _Table, now: float) -> None:
        game = self._game_of(table)
        seat = game.current_seat
        deadline = table.turn_deadline
        timer = table.settings.turn_timer
        if deadline is None or seat is None or not table.is_person(seat):
            return
        user_id = table.seats[seat].user_id
        assert user_id is not None
        if not table.turn_reminded and timer and now >= deadline - timer / 2:
            table.turn_reminded = True
            await self.store.games.save_timers(table.id, turn_deadline=deadline, turn_reminded=True,
                                         now=now)
            table.outbox.append(TurnReminder(table.view(), seat, user_id, deadline))
        if now < deadline:
            return
        record = table.change_seat(seat, absences=table.seats[seat].absences + 1)
        if record.absences >= table.settings.absences_to_free:
            await self._free_seat(table, seat, hand_over=table.on_leave == "computer",
                                  change="freed")
            table.outbox.append(TurnTimedOut(table.view(), seat, user_id, "seat_freed"))
        elif table.settings.timeout_action == "computer":
            obs = game.observation(seat)
            pick_seed = game.seed + len(game.history)
            action = await asyncio.to_thread(choose, self._agent(table, seat, TAKEOVER_LEVEL),
                                             obs, pick_seed)
            await self._step(table, seat, _applying(action), by="timer", user_id=user_id,
                             seats_changed=True, preface=lambda view: TurnTimedOut(
                                 view, seat, user_id, "computer_moved"))
        else:
            await self._step(table, seat, lambda g: g.skip(), by="timer", user_id=user_id,
                             seats_changed=True, preface=lambda view: TurnTimedOut(
                                 view, seat, user_id, "skipped"))

    async def _timer_loop(self) -> None:
        # Real sleeping here: the clock decides what is due, not how often we look.
        while not self._closing:
            await asyncio.sleep(self.timer_interval)
            await self.check_timers()

    # -- the steps every change is made of ------------------------------------------------

    async def _step(
        self,
        table: _Table,
        seat: int,
        change: Callable[[Game], None],
        *,
        by: str,
        user_id: int | None,
        seats_changed: bool = False,
        preface: Callable[[TableView], Event] | None = None,
    ) -> Moved:
        """Engine, commit, queue the announcements. Call with the table's lock held.

        ``preface``: the event that says why this step happened (a player resigned, the
        timer ran out), queued before the move and whatever follows it (the game's end), so
        listeners hear of things in the order they happened."""
        game = self._game_of(table)
        before_hands = self._hands(table, game)
        turn_before = game.current_seat
        ply = len(game.history)
        change(game)  # raises IllegalAction without changing anything
        try:
            await self._commit(table, turn_before, ply, seat, seats_changed)
        except BaseException:
            # Not committed means not accepted: rebuild the game as it was.
            table.game = replay(table.kind, len(table.seats), game.seed, game.history[:ply],
                                **table.options)
            raise
        entry = game.history[ply]
        if preface is not None:
            table.outbox.append(preface(table.view()))
        spectator = game.observation(None)
        last = spectator["last"]
        moved = Moved(table.view(), seat, entry, by, user_id, spectator,
                      last["placed"] if last else None, last["removed"] if last else None, ply)
        table.outbox.append(moved)
        view = moved.table
        # A card played or exchanged means a card drawn, even when the new card is another
        # copy of the one that left (the same hand, but a fresh DM the player waits for).
        drew = seat if "@" in entry or entry.startswith("dead:") else None
        for s, hand in self._hands(table, game).items():
            if hand != before_hands.get(s) or s == drew:
                uid = table.seats[s].user_id
                assert uid is not None
                table.outbox.append(HandChanged(view, s, uid, game.observation(s)))
        if game.is_over:
            self._announce_game_over(table)
        else:
            self._announce_turn(table)
        return moved

    async def _commit(
        self, table: _Table, turn_before: int | None, ply: int, seat: int | None,
        seats_changed: bool,
    ) -> None:
        game = self._game_of(table)
        now = self.clock.now()
        entries = [(p, seat, game.history[p]) for p in range(ply, len(game.history))]
        results = self._results(table) if game.is_over else None
        if game.is_over:
            table.turn_deadline, table.turn_reminded = None, False
        else:
            self._set_turn_deadline(table, turn_before, now)
        await self.store.games.record(
            table.id, entries, game.to_dict(), now=now, turn_deadline=table.turn_deadline,
            turn_reminded=table.turn_reminded,
            seats=table.seats if seats_changed or results is not None else None,
            results=results, end_reason=game.end_reason)
        if game.is_over:
            self._close_table(table, "finished")

    async def _settle_forced(self, table: _Table) -> None:
        """Apply forced passes (the only legal action), recorded like any action."""
        game = table.game
        while (table.status == "playing" and game is not None and not game.is_over
               and game.legal_actions() == ["pass"]):
            seat = game.current_seat
            assert seat is not None
            await self._step(table, seat, _applying("pass"), by="auto",
                             user_id=table.seats[seat].user_id)

    async def _free_seat(self, table: _Table, seat: int, *, hand_over: bool,
                         change: str) -> None:
        """A person leaves mid-game: a computer takes over, or the engine skips the seat."""
        game = self._game_of(table)
        user_id = table.seats[seat].user_id
        if hand_over:
            table.change_seat(seat, left=True, level=TAKEOVER_LEVEL, absences=0)
            turn = game.current_seat
            ply = len(game.history)
            # The game itself does not change, only who plays the seat; the engine's
            # history records it (computer:N) so a replay tells the whole story.
            game.hand_over(seat)
            try:
                await self._commit(table, turn, ply, seat, seats_changed=True)
            except BaseException:
                table.game = replay(table.kind, len(table.seats), game.seed,
                                    game.history[:ply], **table.options)
                raise
            table.outbox.append(SeatChanged(table.view(), seat, user_id, "computer"))
            return
        table.change_seat(seat, left=change != "resigned", resigned=True)
        await self._step(table, seat, lambda g: g.resign(seat), by="player", user_id=user_id,
                         seats_changed=True, preface=lambda view: SeatChanged(
                             view, seat, user_id, change))

    # -- computer players ---------------------------------------------------------------

    def _kick(self, table: _Table) -> None:
        """Make sure a computer seat to move has someone thinking for it."""
        if self._closing or table.status != "playing":
            return
        game = table.game
        if game is None or game.is_over or table.is_person(game.current_seat):
            return
        if table.driver is None or table.driver.done():
            table.driver = asyncio.create_task(self._drive(table), name=f"computer-{table.id}")

    async def _drive(self, table: _Table) -> None:
        try:
            while not self._closing:
                async with table.lock:
                    game = table.game
                    if table.status != "playing" or game is None or game.is_over:
                        return
                    seat = game.current_seat
                    if seat is None or table.is_person(seat):
                        return
                    ply = len(game.history)
                    obs = game.observation(seat)
                    agent = self._agent(table, seat, table.seats[seat].level or TAKEOVER_LEVEL)
                await self.clock.sleep(self.computer_delay)
                action = await asyncio.to_thread(choose, agent, obs, game.seed + ply)
                async with table.lock:
                    if (table.game is not game or table.status != "playing"
                            or len(game.history) != ply):
                        continue  # something else moved meanwhile: look again
                    await self._step(table, seat, _applying(action), by="computer",
                                     user_id=None)
                    await self._settle_forced(table)
                await self._flush(table)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("computer player of game %d stopped", table.id)

    def _agent(self, table: _Table, seat: int, level: str) -> Agent:
        agent = table.agents.get(seat)
        if agent is None:
            assert table.game is not None
            agent = self._make_agent(level, table.game.seed * 4 + seat)
            table.agents[seat] = agent
        return agent

    # -- announcements -------------------------------------------------------------------

    def _announce_turn(self, table: _Table) -> None:
        game = self._game_of(table)
        seat = game.current_seat
        if seat is not None and table.is_person(seat) and game.legal_actions() != ["pass"]:
            uid = table.seats[seat].user_id
            assert uid is not None
            table.outbox.append(TurnStarted(table.view(), seat, uid, game.observation(seat)))

    def _announce_game_over(self, table: _Table) -> None:
        table.outbox.append(_game_over(table))

    async def _flush(self, table: _Table) -> None:
        """Deliver queued events in commit order. A listener may call the manager back:
        then the delivery already running picks up the new events."""
        if table.delivering:
            return
        table.delivering = True
        try:
            while table.outbox:
                await self._tell(table.outbox.popleft())
            if self._sharing is not None:
                await self._sharing.delivered(table.id, table.lock)
        finally:
            table.delivering = False

    async def _tell(self, event: Event) -> None:
        for listener in list(self._listeners):
            try:
                await listener.on_event(event)
            except Exception:
                log.exception("listener %r failed on %s of game %d", listener,
                              type(event).__name__, event.game_id)

    async def unshown_end(self, game_id: int) -> GameOver | None:
        """How a game ended, as its ``GameOver`` said it, if its final board has not got
        out (``end_shown``): the process that finished it died before posting it. None
        for a game whose end was shown, in play, cancelled or unknown."""
        if await self.store.games.end_is_shown(game_id):
            return None
        rec = await self.store.games.load_game(game_id)
        if rec is None or rec.status != "finished" or rec.snapshot is None:
            return None
        table = await self._restore(rec, check=False)
        table.game = load(rec.snapshot)
        return _game_over(table)

    async def ends_not_shown(self) -> list[int]:
        """The finished games whose final board has not got out."""
        return await self.store.games.ends_not_shown()

    async def end_shown(self, game_id: int) -> None:
        """The listener posted the game's final board (``GameOver``): a later restart or
        take-over need not."""
        await self.store.games.end_shown(game_id)

    # -- sharing the database with other processes (engine/manager/sharing.py) ------------

    def _share(self, table: _Table, version: str | None = None) -> None:
        """On PostgreSQL a table's lock is the game's lock in the database."""
        if self._sharing is not None:
            async def reload() -> None:
                await self._reload(table)

            table.lock = self._sharing.lock(table.id, reload, version,
                                            chore=lambda: self._chore(table))

    def _chore(self, table: _Table) -> Chore:
        """What this table waits for next, as the change being committed leaves it (the
        row any process may claim: ``chores.py``)."""
        game = table.game
        going = table.status == "playing" and game is not None and not game.is_over
        return next_chore(
            status=table.status, now=self.clock.now(), lobby_deadline=table.lobby_deadline,
            computer_to_move=going and game is not None and game.current_seat is not None
            and not table.is_person(game.current_seat),
            computer_delay=self.computer_delay, turn_deadline=table.turn_deadline,
            turn_reminded=table.turn_reminded, turn_timer=table.settings.turn_timer,
            playing_here=not self._closing,
            claim=self._sharing.claim if self._sharing is not None else 0.0)

    def now(self) -> float:
        return self.clock.now()

    async def _reload(self, table: _Table) -> None:
        """Bring a cached table to what the store holds (its lock is held): another
        process changed it. A game that ended elsewhere leaves this process's tables."""
        rec = await self.store.games.load_game(table.id)
        if rec is None or rec.status not in ("lobby", "playing"):
            self._close_table(table, rec.status if rec is not None else "cancelled")
            return
        fresh = await self._restore(rec, check=False)
        if self._by_channel.get(table.channel_id) == table.id:
            del self._by_channel[table.channel_id]
        for f in fields(_Table):
            if f.name not in _PROCESS_FIELDS:
                setattr(table, f.name, getattr(fresh, f.name))
        self._tables[table.id] = table
        self._by_channel[table.channel_id] = table.id

    async def catch_up(self, game_id: int) -> None:
        """Before reading a game to answer a click: on PostgreSQL, bring its cache to the
        stored version (one query; a reload only if another process changed it, or it is a
        game this process has not heard of yet). A click may come faster than the news of
        the move before it: a DM reaches shard 0's process however far the other is. On
        SQLite, nothing to do."""
        if self._sharing is None:
            return
        lock = self.shared_lock(game_id)
        if lock is None:
            await self.adopt(game_id)
        else:
            await lock.refresh()

    def shared_lock(self, game_id: int) -> SharedLock | None:
        table = self._tables.get(game_id)
        return table.lock if table is not None and isinstance(table.lock, SharedLock) else None

    async def adopt(self, game_id: int) -> None:
        """A lobby or game another process made: cache it here too."""
        versions_first = self._sharing.games if self._sharing is not None else None
        version = await versions_first.version(game_id) if versions_first else None
        rec = await self.store.games.load_game(game_id)
        if rec is None or rec.status not in ("lobby", "playing") or game_id in self._tables:
            return
        table = await self._restore(rec, check=False)
        if game_id in self._tables:
            return  # adopted meanwhile
        self._share(table, version)
        self._tables[game_id] = table
        self._by_channel[table.channel_id] = game_id

    def cached_ids(self) -> list[int]:
        return list(self._tables)

    async def show_again(self, game_id: int) -> None:
        """Tell the listeners to show a table again (``sharing.ShowAgain``): the process
        that changed it died before it had told everything."""
        table = self._tables.get(game_id)
        if table is None:
            await self.adopt(game_id)
            table = self._tables.get(game_id)
        if table is None:
            # it ended: if with a result, its final board may be what is missing
            final = await self.unshown_end(game_id)
            if final is not None:
                await self._tell(ShowAgain(final.table))
            if self._sharing is not None:
                await self._sharing.delivered(game_id, None)
            return
        table.outbox.append(ShowAgain(table.view()))
        await self._flush(table)

    def showing(self, game_id: int) -> contextlib.AbstractAsyncContextManager[None]:
        """Held while a table is shown again after a restart or a take-over, so two
        processes never both post what its channel is missing (a no-op on SQLite)."""
        if self._sharing is None:
            return contextlib.nullcontext()
        return self._sharing.showing(game_id)

    # -- helpers -----------------------------------------------------------------------

    def _table(self, game_id: int) -> _Table:
        table = self._tables.get(game_id)
        if table is None:
            raise refuse("no_such_game", f"There is no game {game_id} in play.",
                         game_id=game_id)
        return table

    def _lobby(self, channel_id: int) -> _Table:
        game_id = self._by_channel.get(channel_id)
        if game_id is None:
            raise refuse("no_lobby", "There is no lobby in this channel.")
        return self._tables[game_id]

    @staticmethod
    def _check_lobby(table: _Table) -> None:
        if table.status == "playing":
            raise refuse("game_started", "The game has already started.")
        if table.status != "lobby":
            raise refuse("no_lobby", "There is no lobby in this channel.")

    @staticmethod
    def _check_room(table: _Table) -> None:
        if len(table.seats) >= MAX_SEATS:
            raise refuse("lobby_full", "The lobby is full (4 players).", seats=MAX_SEATS)

    @staticmethod
    def _game_of(table: _Table) -> Game:
        if table.status == "lobby" or table.game is None:
            raise refuse("game_not_started", "The game has not started yet.")
        if table.status != "playing":
            raise refuse("game_over", "The game is over.")
        return table.game

    @staticmethod
    def _renumber(table: _Table) -> None:
        table.seats[:] = [replace(s, index=i) for i, s in enumerate(table.seats)]

    async def _save_lobby(self, table: _Table, reason: str) -> None:
        now = self.clock.now()
        table.lobby_deadline = now + self.lobby_idle
        await self.store.games.save_lobby(table.id, table.seats,
                                          lobby_deadline=table.lobby_deadline, now=now)
        table.outbox.append(LobbyChanged(table.view(), reason))

    async def move_game(self, game_id: int, channel_id: int) -> TableView:
        """The game goes on in ``channel_id`` (a thread the transport opened for it): its
        messages go there, commands there find it, and its old channel is free for a new
        lobby. Stored, so a restart keeps it there."""
        table = self._table(game_id)
        async with self._channel_lock, table.lock:
            if table.status not in ("lobby", "playing"):
                raise refuse("no_such_game", f"There is no game {game_id} in play.",
                             game_id=game_id)
            if channel_id == table.channel_id:
                return table.view()
            if channel_id in self._by_channel:
                raise refuse("channel_busy", "This channel already has a lobby or a game.",
                             game_id=self._by_channel[channel_id])
            await self.store.games.move_game(game_id, channel_id, now=self.clock.now())
            if self._by_channel.get(table.channel_id) == table.id:
                del self._by_channel[table.channel_id]
            table.channel_id = channel_id
            self._by_channel[channel_id] = table.id
        return table.view()

    async def _cancel_lobby(self, table: _Table, reason: str) -> None:
        await self.store.games.set_status(table.id, "cancelled", now=self.clock.now(),
                                    end_reason=reason)
        self._close_table(table, "cancelled")
        table.outbox.append(LobbyCancelled(table.view(), reason))

    def _close_table(self, table: _Table, status: str) -> None:
        table.status = status
        table.lobby_deadline = table.turn_deadline = None
        self._tables.pop(table.id, None)
        if self._by_channel.get(table.channel_id) == table.id:
            del self._by_channel[table.channel_id]
        if table.driver is not None and table.driver is not asyncio.current_task():
            table.driver.cancel()

    def _set_turn_deadline(self, table: _Table, turn_before: int | None, now: float) -> None:
        """A new deadline when the turn passes to a person (if the server has a timer)."""
        game = self._game_of(table)
        seat = game.current_seat
        timer = table.settings.turn_timer
        if not timer or not table.is_person(seat):
            table.turn_deadline, table.turn_reminded = None, False
        elif seat != turn_before or table.turn_deadline is None:
            table.turn_deadline, table.turn_reminded = now + timer, False

    @staticmethod
    def _hands(table: _Table, game: Game) -> dict[int, Any]:
        """What each person privately holds (Kids hands), to notice a changed hand."""
        hands = getattr(game, "hands", None)
        if hands is None:
            return {}
        return {s.index: list(hands[s.index]) for s in table.seats
                if s.level is None and not s.left}

    def _results(self, table: _Table) -> list[ResultRecord]:
        game = self._game_of(table)
        out = []
        for s in table.seats:
            side = game.side_of[s.index]
            outcome = ("draw" if game.draw else "win" if side == game.winner else "loss")
            out.append(ResultRecord(s.index, s.user_id, s.level, s.name, side, outcome,
                                    s.resigned or s.left, guardian=s.guardian))
        return out

    async def _restore(self, rec: GameRecord, *, check: bool = True) -> _Table:
        settings = _with_timer(
            await self.store.games.guild_settings(rec.guild_id) if rec.guild_id is not None
            else GuildSettings(0), rec.turn_timer)
        table = _Table(
            id=rec.id, kind=rec.kind, options=rec.options, status=rec.status,
            guild_id=rec.guild_id, channel_id=rec.channel_id, host_id=rec.host_id,
            seats=rec.seats, on_leave=rec.on_leave, created_at=rec.created_at,
            settings=settings, lobby_deadline=rec.lobby_deadline,
            turn_deadline=rec.turn_deadline, turn_reminded=rec.turn_reminded,
            turn_timer=rec.turn_timer, family_seats=rec.family_seats)
        if rec.status == "playing" and not check and rec.snapshot is not None:
            table.game = load(rec.snapshot)  # a cache brought up to date: no replay
        elif rec.status == "playing":
            table.game = self._check_snapshot(rec)
            if table.game.to_dict() != rec.snapshot:
                # The log won: write its state back so snapshot and log agree again.
                await self.store.games.record(rec.id, [], table.game.to_dict(),
                                        now=self.clock.now(), turn_deadline=rec.turn_deadline,
                                        turn_reminded=rec.turn_reminded)
        return table

    @staticmethod
    def _check_snapshot(rec: GameRecord) -> Game:
        """The saved snapshot if the replayed log agrees with it; else, loudly, the log."""
        assert rec.seed is not None
        replayed = replay(rec.kind, len(rec.seats), rec.seed, rec.actions, **rec.options)
        state = replayed.to_dict()
        if rec.snapshot is not None and state == rec.snapshot:
            return load(rec.snapshot)
        log.error("game %d: the snapshot does not match its action log (%d actions, "
                  "snapshot at %s); restoring from the log", rec.id, len(rec.actions),
                  len(rec.snapshot["history"]) if rec.snapshot else "none")
        return replayed


def _with_timer(settings: GuildSettings, turn_timer: float | None) -> GuildSettings:
    """The server's settings with this game's own turn timer, if the host set one
    (0: none)."""
    if turn_timer is None:
        return settings
    return replace(settings, turn_timer=turn_timer or None)
# What a process keeps of a table when it reloads it from the store (sharing): its lock,
# what it is still announcing, its computer players. Everything else is the store's.
_PROCESS_FIELDS = frozenset({"id", "lock", "outbox", "delivering", "driver", "agents"})


def _game_over(table: _Table) -> GameOver:
    """The event that tells how a table's game ended (its game is over)."""
    game = table.game
    assert game is not None
    winning = tuple(game.sides[game.winner]) if game.winner is not None else ()
    return GameOver(table.view(), game.winner, game.draw, game.end_reason, winning,
                    game.observation(None))


def _applying(action: str) -> Callable[[Game], None]:
    """The engine step that applies ``action`` (bound now, not when called)."""

    def apply(game: Game) -> None:
        game.apply(action)

    return apply


__all__ = ["GameManager", "ManagerError"]
