"""What is due next in a lobby or a game, as a row any process can claim.

Several processes on one PostgreSQL share every game, so the work a game waits for cannot
live in the memory of the process that last changed it: a computer player's turn, a turn
reminder at half time, a turn timer running out, an idle lobby's time-out. Each active
game has one row in ``chores`` saying what comes next and when. The row is rewritten in
the transaction of every change of the game (``store.shared.SharedGames.locked`` runs
it last), so it always says what the stored game says, and a crash can never leave a
change without its next chore or a chore without its change.

Any live process claims the rows that are due (``FOR UPDATE SKIP LOCKED``: one process
each) for ``CLAIM`` seconds and does the work under the game's lock, checking the game
as stored first: a chore is a reason to look, the game decides what to do. A computer's
turn is claimed by the process that made the move before it, in that move's own
transaction, because that process plays it at once; if it dies, the claim runs out and
another process plays the turn. Doing a chore writes the game's next one, which lets the
claim go.

One process on SQLite needs none of this: its manager checks its own games' deadlines
(the same rules in ``GameManager``); the table exists there only to keep the schemas
alike.
"""

from __future__ import annotations

from dataclasses import dataclass

CLAIM = 30.0  # seconds a process has to do a chore it claimed before another may

#: The kinds of chore (``what``). ``look``: a game found without a row (a lobby just
#: made, a game copied from SQLite): a process looks at it and writes its real chore.
COMPUTER, REMINDER, TURN_TIMER, LOBBY_TIMEOUT, LOOK, WAIT = (
    "computer", "reminder", "turn_timer", "lobby_timeout", "look", "wait")


@dataclass(frozen=True)
class Chore:
    """A game's next piece of scheduled work. ``due_at`` None: nothing is due (a person
    is thinking, with no timer). ``claimed_until`` set: the writer does it itself (a
    computer's turn it is about to play), and nobody else may claim it before then."""

    what: str
    due_at: float | None
    claimed_until: float | None = None


def next_chore(*, status: str, now: float, lobby_deadline: float | None = None,
               computer_to_move: bool = False, computer_delay: float = 0.0,
               turn_deadline: float | None = None, turn_reminded: bool = False,
               turn_timer: float | None = None, playing_here: bool = True,
               claim: float = CLAIM) -> Chore:
    """The chore a lobby or game in this state waits for.

    ``computer_to_move``: a computer seat is to move in a game still going;
    ``playing_here``: this process plays that turn now (False while it shuts down: then
    the turn is left for any process at once)."""
    if status == "lobby":
        return Chore(LOBBY_TIMEOUT, lobby_deadline)
    if status != "playing":
        return Chore(WAIT, None)
    if computer_to_move:
        # due at once: only the claim keeps the others off while this process plays it
        # (after its pause, ``computer_delay``, which whoever takes it over pauses too)
        return Chore(COMPUTER, now, now + max(claim, computer_delay) if playing_here else None)
    if turn_deadline is None:
        return Chore(WAIT, None)
    if not turn_reminded and turn_timer:
        return Chore(REMINDER, turn_deadline - turn_timer / 2)
    return Chore(TURN_TIMER, turn_deadline)
