"""Moves stored and never told, told again by the process that takes them over.

A process that dies after committing moves and before telling them leaves a promise
(``deliveries``) that says from which move on it owed announcements. Showing only where
the game stands now would leave the moves in between stored and never shown (the
reliability run of two processes found games with three moments missing from their
boards). So the process that takes the promise over tells each of those moves again, in
order and as it was told when made (``step.move_events``: its board, the hands it
changed, the game's end), holding the game's lock while it queues them, so nothing new
in the game is told before them. Each board carries a nonce per moment on the Discord
side, so a board the dead process did post before it died is not posted twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from engine.factory import replay
from store import GameLog, Status

from .events import Event
from .restore import Restorer
from .step import move_events
from .table import Table

#: history entries that never had a move's board of their own (a seat handed to a
#: computer is told as the seat's change)
NOT_TOLD_AS_MOVES = ("computer:",)


async def told_again(restorer: Restorer, log: GameLog, game_id: int, from_ply: int | None,
                     table: Table | None = None) -> list[Event]:
    """The events of the moves of ``game_id`` owed from ``from_ply`` on (None: not known:
    none); ``table``: the game as stored now (None: one that ended, read back)."""
    if from_ply is None:
        return []
    if table is None:
        _, table = await restorer.load(game_id, ended=True)
        if table is None:
            return []
    return moves_told_again(table, await log.history(game_id), from_ply)


def moves_told_again(table: Table, moves: Sequence[tuple[int, int | None, str, float]],
                     from_ply: int) -> list[Event]:
    """The events of the stored moves from ``from_ply`` on, as they were told when they
    were made. ``table``: the table as stored now (its game at the last move); ``moves``:
    its action log (ply, seat, action, when)."""
    now = table.game
    if now is None:
        return []
    log = [action for _, _, action, _ in moves]
    told: list[Event] = []
    for ply, seat, action, _ in moves[from_ply:]:
        if seat is None or action.startswith(NOT_TOLD_AS_MOVES):
            continue
        game = replay(table.kind, len(table.seats), now.seed, log[:ply + 1], **table.options)
        then = replace(table, game=game,
                       status=Status.FINISHED if game.is_over else Status.PLAYING)
        held = table.seats[seat]
        by = ("auto" if action == "pass" else "computer" if held.level is not None
              else "player")
        told += move_events(then, game, seat, ply, by=by,
                            user_id=held.user_id if held.level is None else None)
    return told
