"""What the Discord layer posted for each table, each person's DM door, and the hand
message kept in their DMs for each seat they play.

Several bot processes may share one PostgreSQL, and any of them may post a game's next
board, edit its lobby or DM one of its players (every DM click arrives at shard 0's
process, whatever server the game is in). So what one process posted must not live in
its memory alone: a board it posted has to be tidied away by whichever process posts the
next one, a lobby message it posted edited by another, a DM door it found closed left
alone by the others. Like ``layout``, not the manager's business (it knows nothing of
messages); kept in the same database so one backup holds everything.

A hand message (``dm_hands``) is one per seat, edited for every change of its hand by
whichever process hears of it, so its ids are kept here too; it outlives its game, and the
same person's next game takes it over (``claim_dm_hand``) instead of sending another.

The newest board is settled in one transaction (``board_posted``): the stored newest is
read under a row lock (``FOR UPDATE`` on PostgreSQL; SQLite's one writer serialises it
anyway) and the newer of the two by ply is kept, so two processes posting boards of one
game at once end with one newest board and one stale board to delete, never two newest.

Most of these rows are hints, written with ``durable=False`` (``Database.write``): what a
hand message shows, which board is the newest. They outlive a killed process, as every
row does; on SQLite they go without an fsync of their own (the next move's makes them
durable), so a machine that loses its power may lose the last of them, and that costs an
old board left untidied or one more edit of a hand. The rows that would cost a message
sent twice (a hand message made or taken over, a DM channel opened, a lobby's message)
are durable.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from store import OPEN_SQL, Database, Tx


@dataclass(frozen=True)
class NewestBoard:
    """A game's newest board message and the move it shows."""

    message_id: int
    ply: int


@dataclass(frozen=True)
class DmDoor:
    """What is known of a person's DMs: their channel (opened once: its id never changes),
    when a DM was last refused, and when one last reached them (epoch seconds; None: not
    since the last one that got through, and never or not since a refusal)."""

    user_id: int
    dm_channel: int | None = None
    closed_at: float | None = None
    reached_at: float | None = None


@dataclass(frozen=True)
class DmHand:
    """The message in ``user_id``'s DMs that shows the hand of ``seat`` in ``game_id``, and
    what it shows now (``shows``: words of the Discord layer's own; '' when not known), as
    of which move (``ply``: the game's moves made when what it shows was true; -1 when not
    known). Several processes edit one message, and a change heard late must not put an
    older hand back over a newer one (``dms.py``)."""

    game_id: int
    seat: int
    user_id: int
    dm_channel: int
    message_id: int
    shows: str = ""
    ply: int = -1


# A row is only ever made for a lobby or game in play: a late write for a game that has
# ended (another process posting its last board as this one forgets it) keeps nothing.
# (SQLite reads INSERT ... SELECT ... ON CONFLICT right only when the SELECT has a WHERE.)
_IN_PLAY = ("WHERE EXISTS (SELECT 1 FROM games WHERE id = ?"
            " AND status IN " + OPEN_SQL + ")")


# Read under a row lock where the backend has one (SQLite has one writer at a time); each
# is one constant text, so no SQL is ever put together at run time.
_LOBBY = "SELECT lobby_channel, lobby_message FROM table_posts WHERE game_id = ?"
# A finished game's hand message of this person, the oldest first (so a grown-up's hands
# keep their order from one game to the next), free for their next game to take over.
_FREE_HAND = ("SELECT game_id, seat, dm_channel, message_id FROM dm_hands h"
              " WHERE user_id = ? AND NOT EXISTS (SELECT 1 FROM games g WHERE g.id = h.game_id"
              " AND g.status IN " + OPEN_SQL + ") ORDER BY message_id LIMIT 1")
_NEWEST = "SELECT board_message, board_ply FROM table_posts WHERE game_id = ?"

#: how many free hand messages one claim tries before it settles for a new DM
CLAIM_TRIES = 5


def _now(now: float | None) -> float:
    return time.time() if now is None else now


class Posted:
    """Lobby and board messages, threads and DM doors, on the shared connection."""

    def __init__(self, db: Database) -> None:
        self._db = db
        # (upper case: constants for the rest of its life, the texts above, locking the
        # rows they read where several processes write them)
        self._LOBBY_SQL, self._NEWEST_SQL = _LOBBY + db.lock_rows, _NEWEST + db.lock_rows
        self._FREE_HAND_SQL = _FREE_HAND + db.lock_free_rows

    @property
    def shared(self) -> bool:
        """Whether other processes write these rows too (then what one process remembers
        of them may be out of date); else this process is their only writer."""
        return self._db.shared

    # -- lobbies -----------------------------------------------------------------------

    async def lobby_posted(self, game_id: int, channel_id: int, message_id: int, *,
                           now: float | None = None) -> None:
        """The message that shows this lobby (``channel_id``: where it is)."""
        async def work(db: Tx) -> None:
            await db.execute(
                "INSERT INTO table_posts (game_id, lobby_channel, lobby_message, updated_at)"
                f" SELECT ?, ?, ?, ? {_IN_PLAY} ON CONFLICT (game_id) DO UPDATE SET"
                " lobby_channel = excluded.lobby_channel,"
                " lobby_message = excluded.lobby_message, updated_at = excluded.updated_at",
                (game_id, channel_id, message_id, _now(now), game_id))

        await self._db.write(work)

    async def lobby_message(self, game_id: int) -> tuple[int, int] | None:
        """(channel, message) of the lobby's message, if one is kept."""
        row = await self._db.fetchone(
            "SELECT lobby_channel, lobby_message FROM table_posts WHERE game_id = ?"
            " AND lobby_message IS NOT NULL", (game_id,))
        return None if row is None else (int(row[0]), int(row[1]))

    async def lobby_closed(self, game_id: int, *, now: float | None = None
                           ) -> tuple[int, int] | None:
        """The lobby became a game (or went): its message is no longer kept. Returns
        (channel, message) as it was, so the game can hang its thread from it."""
        async def work(db: Tx) -> tuple[int, int] | None:
            row = await db.fetchone(self._LOBBY_SQL, (game_id,))
            if row is None or row[1] is None:
                return None
            await db.execute(
                "UPDATE table_posts SET lobby_channel = NULL, lobby_message = NULL,"
                " updated_at = ? WHERE game_id = ?", (_now(now), game_id))
            return int(row[0]), int(row[1])

        return await self._db.write(work)

    # -- boards ------------------------------------------------------------------------

    async def board_posted(self, game_id: int, message_id: int, ply: int, *,
                           now: float | None = None) -> int | None:
        """A board of move ``ply`` got through as ``message_id``. Keeps the newer of it and
        the stored newest (by ply; at the same ply the later message, whose id is the
        larger), in one transaction, and returns the board that is now stale: the
        previous newest, or ``message_id`` itself when a newer board is already kept
        (another process got there first). None: nothing is stale."""
        async def work(db: Tx) -> int | None:
            # the row first, so that two first boards at once queue on its key
            await db.execute(
                f"INSERT INTO table_posts (game_id, updated_at) SELECT ?, ? {_IN_PLAY}"
                " ON CONFLICT (game_id) DO NOTHING", (game_id, _now(now), game_id))
            row = await db.fetchone(self._NEWEST_SQL, (game_id,))
            if row is None:
                return None  # the game has ended and been forgotten: nothing to tidy
            kept = None if row[0] is None else (int(row[1]), int(row[0]))
            if kept is not None and kept[1] == message_id:
                return None  # the same message again (a nonce answered with it)
            if kept is not None and kept > (ply, message_id):
                return message_id
            await db.execute(
                "UPDATE table_posts SET board_message = ?, board_ply = ?, updated_at = ?"
                " WHERE game_id = ?", (message_id, ply, _now(now), game_id))
            return None if kept is None else kept[1]

        # A hint (``Database.write``): lost with the machine, one old board is not tidied
        return await self._db.write(work, durable=False)

    async def newest_board(self, game_id: int) -> NewestBoard | None:
        row = await self._db.fetchone(
            "SELECT board_message, board_ply FROM table_posts WHERE game_id = ?"
            " AND board_message IS NOT NULL", (game_id,))
        return None if row is None else NewestBoard(int(row[0]), int(row[1]))

    # -- threads -----------------------------------------------------------------------

    async def moved_to_thread(self, game_id: int, thread_id: int, parent_id: int, *,
                              now: float | None = None) -> None:
        """The game moved to a thread the bot opened on ``parent_id``."""
        async def work(db: Tx) -> None:
            await db.execute(
                "INSERT INTO table_posts (game_id, thread_id, thread_parent, updated_at)"
                f" SELECT ?, ?, ?, ? {_IN_PLAY} ON CONFLICT (game_id) DO UPDATE SET"
                " thread_id = excluded.thread_id, thread_parent = excluded.thread_parent,"
                " updated_at = excluded.updated_at",
                (game_id, thread_id, parent_id, _now(now), game_id))

        await self._db.write(work)

    async def thread_parent(self, thread_id: int) -> int | None:
        """The channel a live game's thread hangs from, if the bot opened it for one."""
        row = await self._db.fetchone(
            "SELECT thread_parent FROM table_posts WHERE thread_id = ? LIMIT 1", (thread_id,))
        return None if row is None or row[0] is None else int(row[0])

    async def game_over(self, game_id: int) -> None:
        """The game ended (or its lobby went): nothing of its messages is kept. Rows of
        other games that ended without being dropped (a process stopped in between) go
        too: the table holds only live games, so looking at them all is cheap."""
        async def work(db: Tx) -> None:
            await db.execute(
                "DELETE FROM table_posts WHERE game_id = ? OR game_id IN ("
                "SELECT p.game_id FROM table_posts p JOIN games g ON g.id = p.game_id"
                " WHERE g.status NOT IN " + OPEN_SQL + ")", (game_id,))

        await self._db.write(work)

    async def games_kept(self) -> int:
        """How many games have messages kept (a leak shows here)."""
        row = await self._db.fetchone("SELECT COUNT(*) FROM table_posts")
        return 0 if row is None else int(row[0])

    # -- DM doors ----------------------------------------------------------------------

    async def door(self, user_id: int) -> DmDoor | None:
        row = await self._db.fetchone(
            "SELECT dm_channel, closed_at, reached_at FROM dm_doors WHERE user_id = ?",
            (user_id,))
        if row is None:
            return None
        return DmDoor(user_id, None if row[0] is None else int(row[0]),
                      None if row[1] is None else float(row[1]),
                      None if row[2] is None else float(row[2]))

    async def dm_channel_opened(self, user_id: int, channel_id: int, *,
                                now: float | None = None) -> None:
        async def work(db: Tx) -> None:
            await db.execute(
                "INSERT INTO dm_doors (user_id, dm_channel, updated_at) VALUES (?, ?, ?)"
                " ON CONFLICT (user_id) DO UPDATE SET dm_channel = excluded.dm_channel,"
                " updated_at = excluded.updated_at", (user_id, channel_id, _now(now)))

        await self._db.write(work)

    async def door_closed(self, user_id: int, at: float, *, now: float | None = None) -> None:
        """A DM to ``user_id`` was refused at ``at`` (epoch seconds): not reached since."""
        async def work(db: Tx) -> None:
            await db.execute(
                "INSERT INTO dm_doors (user_id, closed_at, updated_at) VALUES (?, ?, ?)"
                " ON CONFLICT (user_id) DO UPDATE SET closed_at = excluded.closed_at,"
                " reached_at = NULL, updated_at = excluded.updated_at",
                (user_id, at, _now(now)))

        await self._db.write(work)

    async def door_reached(self, user_id: int, at: float, *, now: float | None = None
                           ) -> None:
        """A DM reached ``user_id`` at ``at`` (epoch seconds): a refusal kept for them is
        over."""
        async def work(db: Tx) -> None:
            await db.execute(
                "INSERT INTO dm_doors (user_id, reached_at, updated_at) VALUES (?, ?, ?)"
                " ON CONFLICT (user_id) DO UPDATE SET reached_at = excluded.reached_at,"
                " closed_at = NULL, updated_at = excluded.updated_at",
                (user_id, at, _now(now)))

        await self._db.write(work)

    # -- hand messages in DMs ----------------------------------------------------------

    async def dm_hand(self, game_id: int, seat: int) -> DmHand | None:
        """The message kept for this seat's hand, if there is one."""
        row = await self._db.fetchone(
            "SELECT user_id, dm_channel, message_id, shows, ply FROM dm_hands"
            " WHERE game_id = ? AND seat = ?", (game_id, seat))
        if row is None:
            return None
        return DmHand(game_id, seat, int(row[0]), int(row[1]), int(row[2]), str(row[3]),
                      int(row[4]))

    async def dm_hand_shows(self, hand: DmHand, *, durable: bool = True,
                            now: float | None = None) -> None:
        """``hand.message_id`` is the seat's hand message and shows ``hand.shows``. A message
        shows one seat's hand at a time: a row that had this message for another seat (a
        message tapped and so taken over) is dropped in the same transaction. ``durable``:
        False for a hint, which must outlive the process but not the machine
        (``Database.write``)."""
        async def work(db: Tx) -> None:
            await db.execute(
                "DELETE FROM dm_hands WHERE message_id = ? AND NOT (game_id = ? AND seat = ?)",
                (hand.message_id, hand.game_id, hand.seat))
            await db.execute(
                "INSERT INTO dm_hands (game_id, seat, user_id, dm_channel, message_id, shows,"
                " ply, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (game_id, seat)"
                " DO UPDATE SET user_id = excluded.user_id, dm_channel = excluded.dm_channel,"
                " message_id = excluded.message_id, shows = excluded.shows,"
                " ply = excluded.ply, updated_at = excluded.updated_at",
                (hand.game_id, hand.seat, hand.user_id, hand.dm_channel, hand.message_id,
                 hand.shows, hand.ply, _now(now)))

        await self._db.write(work, durable=durable)

    async def dm_hands_show(self, hands: list[DmHand], *, now: float | None = None) -> None:
        """What each of these seats' hand messages shows now, in one transaction (notes
        kept a moment by the Discord side, so a click's note costs no commit of its own).
        A row whose message changed meanwhile (taken over, gone), or that another process
        made newer meanwhile (a later move's hand), is left as it is."""
        async def work(db: Tx) -> None:
            await db.executemany(
                "UPDATE dm_hands SET shows = ?, ply = ?, updated_at = ?"
                " WHERE game_id = ? AND seat = ? AND message_id = ? AND ply <= ?",
                [(h.shows, h.ply, _now(now), h.game_id, h.seat, h.message_id, h.ply)
                 for h in hands])

        await self._db.write(work, durable=False)  # (hints: see ``dm_memory``)

    async def dm_hand_editing(self, hand: DmHand, ply: int, *, now: float | None = None
                              ) -> bool:
        """Before another process may edit the same message (``shared``): this one is about
        to make it show the hand as of move ``ply``. False when the row is of a later move
        already (that hand, or its edit, is under way: this one is older, and skipped);
        else the row says so, showing what is not known until ``dm_hand_edited``."""
        async def work(db: Tx) -> bool:
            row = await db.fetchone(
                "UPDATE dm_hands SET ply = ?, shows = '', updated_at = ?"
                " WHERE game_id = ? AND seat = ? AND message_id = ? AND ply <= ?"
                " RETURNING message_id",
                (ply, _now(now), hand.game_id, hand.seat, hand.message_id, ply))
            return row is not None

        return await self._db.write(work)

    async def dm_hand_edited(self, hand: DmHand, *, now: float | None = None) -> bool:
        """The edit that ``dm_hand_editing`` announced is done: the message shows
        ``hand.shows``. False when another process announced a later move's edit meanwhile:
        Discord may have taken that one first and this one over it, so the row says the
        message shows what is not known, and the hand is to be shown again."""
        async def work(db: Tx) -> bool:
            row = await db.fetchone(
                "UPDATE dm_hands SET shows = ?, updated_at = ?"
                " WHERE game_id = ? AND seat = ? AND message_id = ? AND ply = ?"
                " RETURNING message_id",
                (hand.shows, _now(now), hand.game_id, hand.seat, hand.message_id, hand.ply))
            return row is not None

        return await self._db.write(work)

    async def claim_dm_hand(self, user_id: int, game_id: int, seat: int, *,
                            now: float | None = None) -> DmHand | None:
        """For a new game's seat: take over the hand message of one of ``user_id``'s
        finished games (the oldest), in one transaction, so the new hand is an edit and
        not another DM. Returns it (showing nothing known yet), the seat's own message if
        it already has one, or None if the person has no message free."""
        async def work(db: Tx) -> DmHand | None:
            own = await db.fetchone(
                "SELECT user_id, dm_channel, message_id, shows, ply FROM dm_hands"
                " WHERE game_id = ? AND seat = ?", (game_id, seat))
            if own is not None:
                return DmHand(game_id, seat, int(own[0]), int(own[1]), int(own[2]), str(own[3]),
                              int(own[4]))
            for _ in range(CLAIM_TRIES):
                free = await db.fetchone(self._FREE_HAND_SQL, (user_id,))
                if free is None:
                    return None
                # Taken only if it still belongs to a game that is over, asked again now
                # that the row is locked: on PostgreSQL another process may have claimed it
                # between this look's snapshot and its lock, and the lock then follows the
                # row to its new version without asking ``games`` again (the look's join
                # keeps what it saw). The UPDATE's own snapshot sees that claim.
                taken = await db.fetchone(
                    "UPDATE dm_hands SET game_id = ?, seat = ?, shows = '', ply = -1,"
                    " updated_at = ?"
                    " WHERE game_id = ? AND seat = ? AND message_id = ? AND NOT EXISTS ("
                    "SELECT 1 FROM games g WHERE g.id = dm_hands.game_id"
                    " AND g.status IN " + OPEN_SQL + ") RETURNING message_id",
                    (game_id, seat, _now(now), free[0], free[1], free[3]))
                if taken is not None:
                    return DmHand(game_id, seat, user_id, int(free[2]), int(free[3]))
            return None  # every free message went to other games meanwhile: a new DM

        return await self._db.write(work)

    async def dm_hand_gone(self, game_id: int, seat: int, message_id: int) -> None:
        """The seat's hand message can no longer be edited (deleted): forget it."""
        async def work(db: Tx) -> None:
            await db.execute("DELETE FROM dm_hands WHERE game_id = ? AND seat = ?"
                             " AND message_id = ?", (game_id, seat, message_id))

        await self._db.write(work)

    async def dm_hands_kept(self, user_id: int) -> int:
        """How many hand messages are kept for a person (bounded: see the module doc)."""
        row = await self._db.fetchone("SELECT COUNT(*) FROM dm_hands WHERE user_id = ?",
                                      (user_id,))
        return 0 if row is None else int(row[0])
