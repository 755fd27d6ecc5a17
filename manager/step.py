"""Every change of a table, in one order: engine -> commit -> events.

Called with the table's lock held (``sharing``). The engine step comes first and raises
without changing anything when the move is illegal; the commit is one store transaction;
the events are queued only after it, so a listener never hears of a move that is not
saved. A commit that fails undoes the engine step (the game is replayed from its log
without it): not committed means not accepted. A commit whose answer was lost is neither:
the store is asked what it kept (``doubt``), and the step goes on or is undone by that.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from engine.errors import IllegalAction, Refusal
from engine.factory import replay
from engine.game import Game
from store import CommitUnknown, GuildSettings, IntegrityError, ResultRecord, Status, Store

from . import lobby as rules
from .deadlines import turn_deadline_after
from .doubt import Doubts, own_request
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
from .table import Table, Tables
from .timers import Clock

TAKEOVER_LEVEL = "medium"  # the computer player that takes a seat a person left


class Steps:
    """The changes a table goes through, each committed before it is told."""

    def __init__(self, store: Store, clock: Clock, tables: Tables, outbox: Outbox,
                 doubts: Doubts, *, lobby_idle: float) -> None:
        """``doubts``: asks the store what a commit whose answer was lost did."""
        self._store = store
        self._clock = clock
        self._tables = tables
        self._outbox = outbox
        self._doubts = doubts
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
                now=now, turn_timer=table.rules.host_timer, family_seats=table.family_seats)
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

    async def follow_server(self, table: Table, settings: GuildSettings) -> None:
        """The server's settings changed: the table follows them where its game did not
        choose for itself. A turn timer that changed starts the current turn's time again
        (or stops it). Saved even when nothing changed here, so every process reads the
        table again with the server's new settings."""
        before = table.rules.turn_timer
        table.rules = table.rules.following(settings)
        now = self._clock.now()
        if table.status is Status.PLAYING and table.rules.turn_timer != before:
            table.turn_deadline, table.turn_reminded = turn_deadline_after(table, None, now)
        await self._store.games.save_timers(table.id, turn_deadline=table.turn_deadline,
                                            turn_reminded=table.turn_reminded, now=now)
        if table.status is Status.LOBBY:
            self.tell(table, LobbyChanged(table.view(), "settings"))

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
        request_id: str | None = None,
        reply_to: object = None,
    ) -> Moved:
        """Engine, commit, queue the announcements.

        ``preface``: the event that says why this step happened (a player resigned, the
        timer ran out), queued before the move and whatever follows it (the game's end), so
        listeners hear of things in the order they happened. ``via``: where a person's move
        came from, passed on in ``Moved.via``. ``request_id``: the request that made it
        (stored with it; None: the manager's own), so a second delivery is refused and a
        commit whose answer was lost is looked up (``doubt``). ``reply_to``: the
        transport's handle on the request, carried by the move's events (``Event``)."""
        game = table.playing()
        turn_before = game.current_seat
        ply = len(game.history)
        change(game)  # raises IllegalAction without changing anything
        doubted = await self._commit(table, turn_before, ply, seat, seats_changed,
                                     request_id=request_id)
        if preface is not None:
            self.tell(table, preface(table.view()))
        told = move_events(table, game, seat, ply, by=by, user_id=user_id, via=via,
                           kept_after_doubt=doubted)
        for event in told:
            self.tell(table, event if reply_to is None else replace(event, reply_to=reply_to))
        moved = told[0]
        assert isinstance(moved, Moved)
        return moved

    async def play(self, table: Table, user_id: int, action: str, *,
                   expected_ply: int | None, via: str | None, request_id: str | None,
                   reply_to: object = None) -> Moved:
        """A person's move: checked (their seat, their turn, the ply the button was drawn
        at), then made. A request that is refused as the game stands now, but was itself
        played before (delivered or retried again), is refused as ``already_played``."""
        game = table.playing()
        try:
            seat = rules.player_seat(table, user_id)
            if expected_ply is not None and expected_ply != len(game.history):
                raise refuse("already_played", "That move was already played.",
                             ply=len(game.history))
            rules.check_turn(game, seat)
            if not isinstance(action, str):
                raise IllegalAction("malformed", "An action is text such as lion@B3 or roll.")
            # a move of their own ends a run of turns lost to the timer; the seat's row is
            # written only then (most moves leave every seat as it was)
            absent = table.seats[seat].absences != 0
            if absent:
                table.change_seat(seat, absences=0)
            return await self.step(table, seat, applying(action), by="player",
                                   user_id=user_id, seats_changed=absent, via=via,
                                   request_id=request_id, reply_to=reply_to)
        except Refusal:
            if request_id is not None and await self._store.games.ply_of_request(
                    table.id, request_id) is not None:
                raise refuse("already_played", "That move was already played.",
                             ply=len(game.history)) from None
            raise

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
                      seat: int | None, seats_changed: bool, *,
                      request_id: str | None = None) -> bool:
        """The engine's new entries since ``ply``, the snapshot and the deadlines in one
        transaction; if it is not stored, the game goes back to ``ply``. True when the
        commit got no answer and the store, asked afterwards, had kept it (``doubt``).

        ``request_id`` (None: one of the manager's own) is stored with the first entry:
        a request already stored in this game is refused as ``already_played``."""
        game = table.playing()
        now = self._clock.now()
        entries = [(p, seat, game.history[p]) for p in range(ply, len(game.history))]
        results = _results(table, game) if game.is_over else None
        table.turn_deadline, table.turn_reminded = turn_deadline_after(table, turn_before, now)
        request_id = request_id or own_request()
        doubted = False
        try:
            try:
                await self._store.games.record(
                    table.id, entries, game.to_dict(), now=now,
                    turn_deadline=table.turn_deadline, turn_reminded=table.turn_reminded,
                    seats=table.seats if seats_changed or results is not None else None,
                    results=results, end_reason=game.end_reason, request_id=request_id)
            except CommitUnknown as unknown:
                await self._doubts.settle(table.id, request_id, len(game.history) - 1,
                                          unknown)
                doubted = True
            except IntegrityError:
                if await self._store.games.ply_of_request(table.id, request_id) is None:
                    raise
                raise refuse("already_played", "That move was already played.",
                             ply=ply) from None
        except BaseException:
            undo(table, ply)
            raise
        if game.is_over:
            self._tables.close(table, Status.FINISHED)
        return doubted

    def _announce_turn(self, table: Table) -> None:
        """Prompt the person whose turn it now is (not for a forced pass)."""
        prompt = turn_prompt(table)
        if prompt is not None:
            self.tell(table, prompt)


def move_events(table: Table, game: Game, seat: int, ply: int, *, by: str,
                user_id: int | None, via: str | None = None,
                kept_after_doubt: bool = False) -> list[Event]:
    """What a move tells, in order: the move itself (its board), then each person's hand
    it changed, then the game's end or the turn of the person to move next. ``game`` is
    as the move left it (its entry at ``ply``), ``table`` the table then. Written once:
    for a move as it is made (``Steps.step``) and for moves told again from the store
    (``retell``)."""
    entry = game.history[ply]
    spectator = game.observation(None)
    last = spectator["last"]
    passes_next = must_pass(table)
    view = table.view()
    told: list[Event] = [Moved(view, seat, entry, by, user_id, spectator,
                               last["placed"] if last else None,
                               last["removed"] if last else None, ply, via=via,
                               passes_next=passes_next, kept_after_doubt=kept_after_doubt)]
    for s in sorted(set().union(*(game.hands_changed(e, seat) for e in game.history[ply:]))):
        held = table.seats[s]
        if held.level is None and not held.left:  # a person still at the table
            assert held.user_id is not None
            told.append(HandChanged(view, s, held.user_id, game.observation(s),
                                    kept_after_doubt=kept_after_doubt))
    if game.is_over:
        told.append(table.ending())
    elif not passes_next:
        prompt = turn_prompt(table)
        if prompt is not None:
            told.append(prompt)
    return told


def turn_prompt(table: Table) -> TurnStarted | None:
    """The prompt of the person whose turn it now is (none for a forced pass)."""
    game = table.playing()
    seat = game.current_seat
    if seat is None or not table.is_person(seat) or must_pass(table):
        return None
    uid = table.seats[seat].user_id
    assert uid is not None
    return TurnStarted(table.view(), seat, uid, game.observation(seat))


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
    """The seat to move can only pass (``Table.must_pass``)."""
    return table.must_pass


def _results(table: Table, game: Game) -> list[ResultRecord]:
    out = []
    for s in table.seats:
        side = game.side_of[s.index]
        outcome = "draw" if game.draw else "win" if side == game.winner else "loss"
        out.append(ResultRecord(s.index, s.user_id, s.level, s.name, side, outcome,
                                s.resigned or s.left, guardian=s.guardian))
    return out
