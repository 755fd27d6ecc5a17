"""A commit whose answer was lost: ask the store what it kept, never guess.

A move's COMMIT may reach PostgreSQL and its answer never come back (the connection cut
on the way, the server stopped just then): the store raises ``CommitUnknown``, and the
move may be stored or not. Saying "nothing changed" would be a guess, and a wrong one
when the move was kept (its board would then come only when its promise ran out, and
meanwhile the game would seem stuck on a turn that had passed).

So every change is stored with the id of the request that made it (the transport's for
a person's move: Discord's interaction id, the Activity's id per tap; the manager's own,
``own_request``, for a move nobody asked for), and the store is asked by that id once it
answers again (``Doubts.settle``), waiting at most ``wait`` seconds:

- not stored: the change is undone here too, and "nothing changed" is now the truth
  (``StoreUnavailable``);
- stored: the game's lock is taken again (it went with the connection) and the change
  goes on as if its commit had answered: its events are told, the board follows. Unless
  the game went on meanwhile in another process (``KeptUntold``: the person is told it
  was kept, and the table is read again);
- no answer within ``wait``: the bot cannot tell yet, and says so (``CommitUnknown``);
  if it was kept, its promise to announce runs out and the table is shown again.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Awaitable, Callable

from store import CommitUnknown, Store, StoreUnavailable

#: Seconds a change whose commit got no answer waits for the database to say what it kept
#: (its game's lock held meanwhile: nothing else changes that game here until then).
DOUBT_WAIT = 60.0


def own_request() -> str:
    """A request id for a change nobody asked for (a computer's turn, the timer, a forced
    pass): unique, so its commit can be looked up like a person's."""
    return "m:" + secrets.token_hex(8)


class KeptUntold(StoreUnavailable):
    """A change whose commit got no answer was found stored, but it cannot be told from
    here: the game went on meanwhile (another process changed it), or its lock could not
    be taken again. The table is read again; what it owes is shown by whoever holds its
    promise. Said to a person: their move was kept, and the board follows."""

    code = "store_kept"


class Doubts:
    """What a commit whose answer was lost did, asked of the store.

    ``hold_again(game_id, last_ply)``: the sharing strategy takes the game's lock again
    (several processes: on a new connection) and says whether the stored game still ends
    at ``last_ply`` (nobody changed it since)."""

    def __init__(self, store: Store, hold_again: Callable[[int, int], Awaitable[bool]], *,
                 wait: float = DOUBT_WAIT) -> None:
        self._store = store
        self._hold_again = hold_again
        self.wait = wait

    async def settle(self, game_id: int, request_id: str, last_ply: int,
                     unknown: CommitUnknown) -> None:
        """Return when the store kept the change and this process may go on with it (the
        game's lock held again, the stored game where the change left it); else raise
        what is true: ``StoreUnavailable`` (not kept), ``CommitUnknown`` (no answer in
        time), ``KeptUntold`` (kept, but it cannot be told from here)."""
        if not await self._kept(game_id, request_id, unknown):
            raise StoreUnavailable(f"{unknown.reason}; the change was not kept") from unknown
        try:
            still_ours = await self._hold_again(game_id, last_ply)
        except StoreUnavailable as exc:
            raise KeptUntold(exc.reason) from exc
        if not still_ours:
            raise KeptUntold("the game went on meanwhile")

    async def _kept(self, game_id: int, request_id: str, unknown: CommitUnknown) -> bool:
        loop = asyncio.get_running_loop()
        give_up = loop.time() + self.wait
        while True:
            try:
                return await self._store.games.ply_of_request(game_id, request_id) is not None
            except StoreUnavailable:
                if loop.time() >= give_up:
                    raise CommitUnknown(unknown.reason) from unknown
                await self._store.outages.wait_to_retry()
