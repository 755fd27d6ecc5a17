"""Every change of a table, in one order: engine -> commit -> events.

Called with the table's lock held (``sharing``). The engine step comes first and raises
without changing anything when the move is illegal; the commit is one store transaction;
the events are queued only after it, so a listener never hears of a move that is not
saved. A commit that fails undoes the engine step (the game is replayed from its log
without it): not committed means not accepted.
"""

from __future__ import annotations

from collections.abc import Callable

from ..factory import replay
from ..game import Game
from .deadlines import turn_deadline_after
from .errors import refuse
from .events import (
    Event,
    GameOver,
    GameStarted,
    HandChanged,
    LobbyCancelled,
    LobbyChanged,
    Moved,
    SeatChanged,
    TableView,
    TurnReminder,
    TurnStarted,
)
from .outbox import Outbox
from .status import Status
from .store import ResultRecord, Store
from .table import Table, Tables
from .timers import Clock

TAKEOVER_LEVEL = "medium"  # the computer player that takes a seat a person left


class Steps:
    """The changes a table goes through, each committed before it is told."""

    def __init__(self, store: Store, clock: Clock, tables: Tables, outbox: Outbox, *,
                 lobby_idle: float) -> None:
        self._store = store
        self._clock = clock
        self._tables = tables
        self._outbox = outbox
        self.lobby_idle = lobby_idle

    def tell(self, table: Table, event: Event) -> None:
        self._outbox.queue(table.id, event)

    # -- lobbies -----------------------------------------------------------------------

    async def open_lobby(self, table: Table) -> Table:
        """A new lobby (``table``, its id still 0), saved: it gets its id and its idle
        deadline, and is held from now on. Refuses ``channel_busy`` (checked again by the
        store: another process may have opened one there)."""
        async with self._tables.channel_lock:
            self._tables.check_channel_free(table.channel_id)
            now = self._clock.now()
            table.created_at = now
            table.lobby_deadline = now + self.lobby_idle
            game_id = await self._store.games.create_lobby(
                table.kind, table.options, table.guild_id, table.channel_id, table.host_id,
                table.seats, lobby_deadline=table.lobby_deadline, on_leave=table.on_leave,
                now=now, turn_timer=table.turn_timer, family_seats=table.family_seats)
            if game_id is None:
                raise refuse("channel_busy", "This channel already has a lobby or a game.")
            table.id = game_id
            self._tables.put(table)
            self.tell(table, LobbyChanged(table.view(), "created"))
        return table

    async def move(self, table: Table, channel_id: int) -> None:
        """The table goes on in ``channel_id`` (a thread opened for it), saved first."""
        if channel_id == table.channel_id:
            return
        async with self._tables.channel_lock:
            self._tables.check_channel_free(channel_id)
            await self._store.games.move_game(table.id, channel_id, now=self._clock.now())
            self._tables.move(table, channel_id)

    async def save_lobby(self, table: Table, reason: str) -> None:
        """The lobby's seats changed: a new idle deadline, saved, then told."""
        now = self._clock.now()
        table.lobby_deadline = now + self.lobby_idle
        await self._store.games.save_lobby(table.id, table.seats,
                                           lobby_deadline=table.lobby_deadline, now=now)
        self.tell(table, LobbyChanged(table.view(), reason))

    async def cancel_lobby(self, table: Table, reason: str) -> None:
        await self._store.games.set_status(table.id, Status.CANCELLED, now=self._clock.now(),
                                           end_reason=reason)
        self._tables.close(table, Status.CANCELLED)
        self.tell(table, LobbyCancelled(table.view(), reason))

    async def start(self, table: Table, game: Game, seed: int) -> None:
        """Deal (Kids) or roll off (Dice): the lobby becomes a game in play."""
        table.options = dict(game.options)
        table.game = game
        table.status = Status.PLAYING
        table.lobby_deadline = None
        now = self._clock.now()
        table.turn_deadline, table.turn_reminded = turn_deadline_after(table, None, now)
        try:
            await self._store.games.start_game(
                table.id, seed=seed, options=table.options, snapshot=game.to_dict(),
                seats=table.seats, turn_deadline=table.turn_deadline, now=now)
        except BaseException:
            table.game, table.status = None, Status.LOBBY
            raise
        view = table.view()
        self.tell(table, GameStarted(view, game.observation(None)))
        for s in table.seats:
            if s.level is None and s.user_id is not None:
                self.tell(table, HandChanged(view, s.index, s.user_id,
                                             game.observation(s.index)))
        self._announce_turn(table)
        await self.settle_forced(table)

    async def end(self, table: Table, user_id: int) -> None:
        """Stop a game with no result (the host or a moderator)."""
        game = table.playing()
        await self._store.games.set_status(table.id, Status.CANCELLED, now=self._clock.now(),
                                           end_reason="ended")
        self._tables.close(table, Status.CANCELLED)
        self.tell(table, GameOver(table.view(), None, False, "ended", (),
                                  game.observation(None), ended_by=user_id))

    # -- moves -------------------------------------------------------------------------

    async def step(
        self,
        table: Table,
        seat: int,
        change: Callable[[Game], None],
        *,
        by: str,
        user_id: int | None,
        seats_changed: bool = False,
        preface: Callable[[TableView], Event] | None = None,
        via: str | None = None,
    ) -> Moved:
        """Engine, commit, queue the announcements.

        ``preface``: the event that says why this step happened (a player resigned, the
        timer ran out), queued before the move and whatever follows it (the game's end), so
        listeners hear of things in the order they happened. ``via``: where a person's move
        came from, passed on in ``Moved.via``."""
        game = table.playing()
        turn_before = game.current_seat
        ply = len(game.history)
        change(game)  # raises IllegalAction without changing anything
        await self._commit(table, turn_before, ply, seat, seats_changed)
        entry = game.history[ply]
        if preface is not None:
            self.tell(table, preface(table.view()))
        spectator = game.observation(None)
        last = spectator["last"]
        passes_next = must_pass(table)
        moved = Moved(table.view(), seat, entry, by, user_id, spectator,
                      last["placed"] if last else None, last["removed"] if last else None, ply,
                      via=via, passes_next=passes_next)
        self.tell(table, moved)
        view = moved.table
        for s in sorted(set().union(*(game.hands_changed(e, seat)
                                      for e in game.history[ply:]))):
            held = table.seats[s]
            if held.level is None and not held.left:  # a person still at the table
                assert held.user_id is not None
                self.tell(table, HandChanged(view, s, held.user_id, game.observation(s)))
        if game.is_over:
            self.tell(table, table.ending())
        elif not passes_next:
            self._announce_turn(table)
        return moved

    async def settle_forced(self, table: Table) -> None:
        """Apply forced passes (the only legal action), recorded like any action."""
        while must_pass(table):
            game = table.playing()
            seat = game.current_seat
            assert seat is not None
            await self.step(table, seat, applying("pass"), by="auto",
                            user_id=table.seats[seat].user_id)

    async def free_seat(self, table: Table, seat: int, *, hand_over: bool, change: str
                        ) -> None:
        """A person leaves mid-game: a computer takes over, or the engine skips the seat."""
        game = table.playing()
        user_id = table.seats[seat].user_id
        if not hand_over:
            table.change_seat(seat, left=change != "resigned", resigned=True)
            await self.step(table, seat, lambda g: g.resign(seat), by="player",
                            user_id=user_id, seats_changed=True,
                            preface=lambda view: SeatChanged(view, seat, user_id, change))
            return
        table.change_seat(seat, left=True, level=TAKEOVER_LEVEL, absences=0)
        turn = game.current_seat
        ply = len(game.history)
        # The game itself does not change, only who plays the seat; the engine's history
        # records it (computer:N) so a replay tells the whole story.
        game.hand_over(seat)
        await self._commit(table, turn, ply, seat, seats_changed=True)
        self.tell(table, SeatChanged(table.view(), seat, user_id, "computer"))

    async def remind(self, table: Table, seat: int, user_id: int) -> None:
        """Half the turn's time is gone: saved, so a restart does not remind again."""
        deadline = table.turn_deadline
        assert deadline is not None
        table.turn_reminded = True
        await self._store.games.save_timers(table.id, turn_deadline=deadline,
                                            turn_reminded=True, now=self._clock.now())
        self.tell(table, TurnReminder(table.view(), seat, user_id, deadline))

    # -- the commit ----------------------------------------------------------------------

    async def _commit(self, table: Table, turn_before: int | None, ply: int,
                      seat: int | None, seats_changed: bool) -> None:
        """The engine's new entries since ``ply``, the snapshot and the deadlines in one
        transaction; if it fails, the game goes back to ``ply``."""
        game = table.playing()
        now = self._clock.now()
        entries = [(p, seat, game.history[p]) for p in range(ply, len(game.history))]
        results = _results(table, game) if game.is_over else None
        table.turn_deadline, table.turn_reminded = turn_deadline_after(table, turn_before, now)
        try:
            await self._store.games.record(
                table.id, entries, game.to_dict(), now=now, turn_deadline=table.turn_deadline,
                turn_reminded=table.turn_reminded,
                seats=table.seats if seats_changed or results is not None else None,
                results=results, end_reason=game.end_reason)
        except BaseException:
            undo(table, ply)
            raise
        if game.is_over:
            self._tables.close(table, Status.FINISHED)

    def _announce_turn(self, table: Table) -> None:
        """Prompt the person whose turn it now is (not for a forced pass)."""
        game = table.playing()
        seat = game.current_seat
        if seat is not None and table.is_person(seat) and not must_pass(table):
            uid = table.seats[seat].user_id
            assert uid is not None
            self.tell(table, TurnStarted(table.view(), seat, uid, game.observation(seat)))


def undo(table: Table, ply: int) -> None:
    """The game as it was at ``ply`` (its first ``ply`` entries replayed)."""
    game = table.game
    assert game is not None
    table.game = replay(table.kind, len(table.seats), game.seed, game.history[:ply],
                        **table.options)


def applying(action: str) -> Callable[[Game], None]:
    """The engine step that applies ``action`` (bound now, not when called)."""

    def apply(game: Game) -> None:
        game.apply(action)

    return apply


def must_pass(table: Table) -> bool:
    """The seat to move can only pass (Kids: only dead cards, and no exchange left this
    turn): the pass is made for it at once, under the same lock (``settle_forced``), so
    nobody is ever asked to make it, and the moment before it is never a turn to show."""
    game = table.game
    return (table.status is Status.PLAYING and game is not None and not game.is_over
            and game.legal_actions() == ["pass"])


def _results(table: Table, game: Game) -> list[ResultRecord]:
    out = []
    for s in table.seats:
        side = game.side_of[s.index]
        outcome = "draw" if game.draw else "win" if side == game.winner else "loss"
        out.append(ResultRecord(s.index, s.user_id, s.level, s.name, side, outcome,
                                s.resigned or s.left, guardian=s.guardian))
    return out
