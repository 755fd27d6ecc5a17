"""Doing what a table's chore says is due: an idle lobby's time-out, a turn reminder, a
turn timer running out. (A computer's turn is its driver's: ``computer.Computers``.)

A chore is only a reason to look: under the table's lock the rule (``deadlines``) is
asked again of the table as it stands, so a chore that a later change made moot does
nothing. The turn timer: a reminder at half time; at the deadline a computer move for the
absent player or a skip (the server's ``timeout_action``); after ``absences_to_free``
timeouts in a row the seat is freed. Moving yourself resets the count (``GameManager``).
"""

from __future__ import annotations

import asyncio

from .computer import Computers, choose
from .deadlines import LOBBY_TIMEOUT, REMINDER, TURN_TIMER, next_chore
from .events import TurnTimedOut
from .step import TAKEOVER_LEVEL, Steps, applying
from .table import Table


class Due:
    """Does what is due in one table, its lock held."""

    def __init__(self, steps: Steps, computers: Computers) -> None:
        self._steps = steps
        self._computers = computers

    async def do(self, table: Table, now: float) -> None:
        # after a long stop a reminder and the timer may both be due: in order, then stop
        for _ in range(2):
            chore = next_chore(table, now)
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
        if record.absences >= table.settings.absences_to_free:
            await self._steps.free_seat(table, seat, hand_over=table.on_leave == "computer",
                                        change="freed")
            self._steps.tell(table, TurnTimedOut(table.view(), seat, user_id, "seat_freed"))
        elif table.settings.timeout_action == "computer":
            obs = game.observation(seat)
            agent = self._computers.agent(table, seat, TAKEOVER_LEVEL)
            action = await asyncio.to_thread(choose, agent, obs, game.seed + len(game.history))
            await self._steps.step(table, seat, applying(action), by="timer", user_id=user_id,
                                   seats_changed=True, preface=lambda view: TurnTimedOut(
                                       view, seat, user_id, "computer_moved"))
        else:
            await self._steps.step(table, seat, lambda g: g.skip(), by="timer",
                                   user_id=user_id, seats_changed=True,
                                   preface=lambda view: TurnTimedOut(view, seat, user_id,
                                                                     "skipped"))
