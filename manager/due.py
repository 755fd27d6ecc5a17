"""Doing what a table's chore says is due: an idle lobby's time-out, a turn reminder, a
turn timer running out, a computer's turn nobody is playing (handed to its driver:
``computer.Computers``).

Every ``interval`` seconds (``check``), the sharing strategy claims the chores that are
due (one process: its own; several: any game's, one process each). A chore is only a
reason to look: under the table's lock the rule (``deadlines``) is
asked again of the table as it stands, so a chore that a later change made moot does
nothing. The turn timer: a reminder at half time; at the deadline a computer move for the
absent player or a skip (the server's ``timeout_action``); after ``absences_to_free``
timeouts in a row the seat is freed. Moving yourself resets the count (``GameManager``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from store import StoreUnavailable

from .computer import Computers, choose, move_seed
from .deadlines import COMPUTER, LOBBY_TIMEOUT, REMINDER, TURN_TIMER, ChoreRule
from .errors import ManagerError
from .events import TurnTimedOut
from .sharing import Sharing
from .step import TAKEOVER_LEVEL, Steps, applying
from .table import Table
from .tally import Tally
from .timers import Clock

log = logging.getLogger(__name__)


class Due:
    """Looks for what is due, and does it in each table, its lock held."""

    def __init__(self, sharing: Sharing, steps: Steps, computers: Computers, clock: Clock,
                 rule: ChoreRule, *, interval: float, tally: Tally | None = None) -> None:
        """``tally``: where the chores claimed are counted (the manager's)."""
        self._sharing = sharing
        self._tally = tally or Tally()
        self._steps = steps
        self._computers = computers
        self._rule = rule
        self._clock = clock
        self.interval = interval
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        # chores held back while another process's announcements were owed are due as
        # soon as they are taken over here (several processes), not at the next look
        sharing.when_taken_over(self.wake)

    def wake(self) -> None:
        """Look now, not at the next interval."""
        self._wake.set()

    def start(self) -> None:
        self._task = asyncio.create_task(self._loop(), name="turn-timers")

    def stop(self) -> asyncio.Task[None] | None:
        """Stop looking (the task cancelled, to be awaited)."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
        return task

    async def _loop(self) -> None:
        # Real sleeping here: the clock decides what is due, not how often we look.
        while True:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.interval):
                    await self._wake.wait()
            self._wake.clear()
            try:
                await self.check()
            except StoreUnavailable:
                pass  # the database is away for a while (said once, by the store)
            except Exception:
                log.exception("could not look at what is due")

    async def check(self) -> None:
        """Do every chore due now. The database away (``StoreUnavailable``, said once by
        the store) stops the round: this chore and the rest are let go (``unclaim``) and
        done at the first look after the database answers again."""
        claimed = await self._sharing.due(self._clock.now())
        for at, (game_id, what) in enumerate(claimed):
            self._tally.chores_claimed[what] += 1
            table: Table | None = None
            try:
                # a game another process ran (as long as it takes: no click waits here)
                await self._sharing.catch_up(game_id, for_a_click=False)
                async with self._sharing.locked(game_id) as table:
                    if what == COMPUTER and not self._computers.thinking(game_id):
                        log.warning("game %d: a computer turn nobody played in time; "
                                    "playing it here", game_id)
                    await self.do(table, self._clock.now())
                    await self._sharing.schedule(game_id)
            except ManagerError as exc:
                if exc.code == "no_such_game":
                    continue  # it ended: its chore goes with it
                log.exception("chore %s of game %d failed", what, game_id)
            except StoreUnavailable:
                # this chore and the ones claimed after it are due again once the
                # database answers, not when their claims run out
                self._sharing.unclaim([g for g, _ in claimed[at:]])
                if table is not None:
                    await self._after(table)
                return
            except Exception:
                log.exception("chore %s of game %d failed", what, game_id)
            if table is not None:
                await self._after(table)

    async def _after(self, table: Table) -> None:
        await self._computers.after(table)

    async def do(self, table: Table, now: float) -> None:
        # a forced pass left undone (the database went away after the move before it)
        await self._steps.settle_forced(table)
        # after a long stop a reminder and the timer may both be due: in order, then stop
        for _ in range(2):
            chore = self._rule.next_chore(table, now)
            if chore.due_at is None or chore.due_at > now:
                return
            if chore.what == LOBBY_TIMEOUT:
                await self._steps.cancel_lobby(table, "idle")
                return
            if chore.what == REMINDER:
                await self._remind(table)
            elif chore.what == TURN_TIMER:
                await self._time_out(table)
                await self._steps.settle_forced(table)
                return
            else:
                return  # a computer's turn: its driver plays it

    def _absent(self, table: Table) -> tuple[int, int] | None:
        """The seat whose turn is timed, and the account that plays it."""
        game = table.playing()
        seat = game.current_seat
        if seat is None or not table.is_person(seat):
            return None
        user_id = table.seats[seat].user_id
        assert user_id is not None
        return seat, user_id

    async def _remind(self, table: Table) -> None:
        absent = self._absent(table)
        if absent is not None:
            await self._steps.remind(table, *absent)

    async def _time_out(self, table: Table) -> None:
        absent = self._absent(table)
        if absent is None:
            return
        seat, user_id = absent
        game = table.playing()
        record = table.change_seat(seat, absences=table.seats[seat].absences + 1)
        if record.absences >= table.rules.absences_to_free:
            await self._steps.free_seat(table, seat, hand_over=table.on_leave == "computer",
                                        change="freed")
            self._steps.tell(table, TurnTimedOut(table.view(), seat, user_id, "seat_freed"))
        elif table.rules.timeout_action == "computer":
            obs = game.observation(seat)
            agent = self._computers.agent(table, seat, TAKEOVER_LEVEL)
            action = await asyncio.to_thread(choose, agent, obs, move_seed(game))
            await self._steps.step(table, seat, applying(action), by="timer", user_id=user_id,
                                   seats_changed=True, preface=lambda view: TurnTimedOut(
                                       view, seat, user_id, "computer_moved"))
        else:
            await self._steps.step(table, seat, lambda g: g.skip(), by="timer",
                                   user_id=user_id, seats_changed=True,
                                   preface=lambda view: TurnTimedOut(view, seat, user_id,
                                                                     "skipped"))
