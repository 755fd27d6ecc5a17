"""What a lobby or a game waits for next, and when: the one rule, on both backends.

Every active table waits for one thing at a time, its *chore*: a computer player's turn,
a turn reminder, a turn timer running out, an idle lobby's time-out, or nothing at all (a
person thinking with no timer). ``ChoreRule.next_chore`` says which and when, from the table as a
change leaves it. The same answer is kept in two places, by the sharing strategy
(``manager/sharing``): one process on SQLite keeps it in memory, several processes
on PostgreSQL in the ``chores`` table, written in each change's own transaction. Both
claim what is due with the same ``Chore.due`` meaning, and both then do it the same way
(``due.py``), so changing a rule here changes it everywhere.

The times a process may hold what it took on are here too, one name per meaning:
``CHORE_CLAIM`` (a chore it claimed) and ``PROMISE`` (announcements it owes).
"""

from __future__ import annotations

from dataclasses import dataclass

from store import Status

from .table import Table

#: Seconds a process has to do a chore it claimed before another may take it.
CHORE_CLAIM = 30.0
#: Seconds a process has to post a change's announcements before another shows the table
#: again (several processes: ``deliveries``).
PROMISE = 30.0
#: The turn reminder comes when this share of the turn's time is left.
REMINDER_SHARE = 0.5

#: The kinds of chore (``what``). ``look``: a table found without one (a lobby just made, a
#: game restored or copied from SQLite): a process looks at it and writes its real chore.
COMPUTER, REMINDER, TURN_TIMER, LOBBY_TIMEOUT, LOOK, WAIT = (
    "computer", "reminder", "turn_timer", "lobby_timeout", "look", "wait")


@dataclass(frozen=True)
class Chore:
    """A table's next piece of scheduled work. ``due_at`` None: nothing is due.
    ``claimed_until`` set: the writer does it itself (a computer's turn it is about to
    play), and nobody else may take it before then."""

    what: str
    due_at: float | None
    claimed_until: float | None = None

    def due(self, now: float) -> bool:
        """Whether anyone may do it at ``now``: due, and no claim holds it."""
        return (self.due_at is not None and self.due_at <= now
                and (self.claimed_until is None or self.claimed_until < now))


@dataclass(frozen=True)
class ChoreRule:
    """The one rule for a table's next chore, with the times it reads: each is a
    parameter of the ``GameManager`` (a test or a benchmark shortens them there), handed
    to whoever asks the rule (both sharing strategies, and ``Due`` before it acts)."""

    #: seconds a computer pauses before it moves, so people can follow
    computer_delay: float = 0.0
    #: seconds a process has to do a chore it claimed (``CHORE_CLAIM``)
    claim: float = CHORE_CLAIM
    #: the turn reminder comes when this share of the turn's time is left
    reminder_share: float = REMINDER_SHARE

    def reminder_at(self, turn_deadline: float, turn_timer: float) -> float:
        """When a turn of ``turn_timer`` seconds, ending at ``turn_deadline``, is
        reminded."""
        return turn_deadline - turn_timer * self.reminder_share

    def next_chore(self, table: Table | None, now: float, *, playing_here: bool = True
                   ) -> Chore:
        """The chore ``table`` waits for, as it stands (None or ended: nothing).

        ``playing_here``: this process plays a computer's turn now, so it claims it (False
        while it shuts down: then the turn is left for any process at once)."""
        if table is None or not table.active:
            return Chore(WAIT, None)
        if table.status is Status.LOBBY:
            return Chore(LOBBY_TIMEOUT, table.lobby_deadline)
        if table.must_pass:
            # a forced pass is made in the change before it, under its lock; one left
            # undone (the database went away between the two commits) is due at once
            return Chore(LOOK, now)
        if table.computer_to_move:
            # due at once: only the claim keeps the others off while this process plays
            # it (after its pause, ``computer_delay``, which whoever takes it over pauses
            # too)
            return Chore(COMPUTER, now, now + max(self.claim, self.computer_delay)
                         if playing_here else None)
        deadline = table.turn_deadline
        if deadline is None:
            return Chore(WAIT, None)
        timer = table.rules.turn_timer
        if not table.turn_reminded and timer:
            return Chore(REMINDER, self.reminder_at(deadline, timer))
        return Chore(TURN_TIMER, deadline)


def turn_deadline_after(table: Table, turn_before: int | None, now: float
                        ) -> tuple[float | None, bool]:
    """The turn's (deadline, reminded) after a change: a new deadline when the turn passed
    to a person and the table has a timer, the same one while the same turn goes on."""
    game = table.game
    seat = game.current_seat if game is not None and not game.is_over else None
    timer = table.rules.turn_timer
    if not timer or not table.is_person(seat):
        return None, False
    if seat != turn_before or table.turn_deadline is None:
        return now + timer, False
    return table.turn_deadline, table.turn_reminded
