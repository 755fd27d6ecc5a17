"""What the bot knows of each person's DMs: the one owner of it on the Discord side.

The truth is the store's rows (``store.posted``): each person's door (their DM channel,
when a DM was last refused, when one last reached them) and the hand message kept for each
seat. Several processes may DM one person (every DM click arrives at shard 0's process,
whatever server the game is in), so a door one of them found closed is not knocked on by
the others, and a channel one of them opened is not opened again by another, nor by this
one after a restart. In front of the rows, this process keeps no more than bounded caches,
which are the rows themselves when no other process writes them (``Posted.shared``: one
SQLite file, one process); when others do (PostgreSQL), what they may change is asked of
the store again:

- **doors** (``DOORS_HELD``, the least lately used go first): a channel's id never
  changes, so once known it is used without asking the store; whether a door is closed is
  asked of the store before each DM this process does not know to be refused, when other
  processes may have been refused since.
- **channels being opened**: a person's channel is opened once (``POST
  /users/@me/channels`` counts against the token's global limit) even when two DMs to them
  start at once (a hello on joining, the hand dealt a moment later): the second waits for
  the first's answer. An entry lives while its request does.
- **hand rows** (``HANDS_HELD``): which message is each seat's hand, as this process last
  wrote or read it, so a click on it needs no read to be noted (and, alone on the store,
  a hand to deliver none to be found).
- **notes** that a hand message shows the seat's cards again after a click changed it
  (the new hand after a move, the way back from a card's choices): the most frequent write
  of the Discord side. They are written together, within ``NOTE_AFTER`` seconds, in one
  transaction for every game (each a commit of its own was an fsync a move beside the
  move's, queued in front of the next moves' commits). Until then they are what this
  process answers for those seats. Such a note is a hint that spares an edit: if a process
  is killed before writing it, the row still says the message shows something else (a
  card's choices, an older hand), so the hand message is edited once more.

  A change the other way, from the cards to anything else (a card's numbered spaces), is
  written at once, before the message changes (unless the database takes longer than
  ``WRITE_WAIT``: a tap is answered within Discord's 3 s): lost, the row would go on
  saying that the message shows the seat's cards, which is just what a restart compares
  with, and the choice of a move that was never kept would stay in the DM (issue 46:
  killed right after the number's tap, before the move was kept, 3 runs of 3). It must
  outlive this process, not the machine, so it is written as a hint (``durable=False``:
  on SQLite, no fsync of its own; a move's fsync makes it durable too). A message that
  becomes a seat's hand (sent, taken over) is written at once and durably: losing that
  would send a second hand.

Times are wall-clock epoch seconds (compared across processes); the clock is a parameter.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import replace
from typing import Any

from store import StoreUnavailable

from .bounded import Lru
from .posted import DmDoor, DmHand, Posted

log = logging.getLogger(__name__)

DM_CLOSED_FOR = 600.0  # seconds a refused DM is not tried again
DOORS_HELD = 4096  # people whose door this process keeps in memory, at most
GAMES_HELD = 2048  # games whose seats' hand messages this process keeps in memory, at most
NOTE_AFTER = 0.5  # seconds a note of what a hand message shows waits for others
WRITE_WAIT = 1.0  # seconds a tap waits for its row before it answers (Discord wants 3 s)
NOTES_HELD = 512  # notes waiting, at most: one more writes them all at once
CARDS = "hand:"  # what a row says a message shows when it shows the seat's cards

Seat = tuple[int, int]  # (game, seat)


class DmMemory:
    """Doors and hand messages: the store's rows, with bounded caches in front."""

    def __init__(self, posted: Posted, *, clock: Callable[[], float] = time.time,
                 doors_held: int = DOORS_HELD, games_held: int = GAMES_HELD,
                 note_after: float = NOTE_AFTER, write_wait: float = WRITE_WAIT) -> None:
        self._posted = posted
        self._alone = not posted.shared  # the caches are the rows: nobody else writes them
        self.clock = clock
        self._doors: Lru[int, DmDoor] = Lru(doors_held)
        self._opening: dict[int, asyncio.Task[int]] = {}
        self._hands: Lru[int, dict[int, DmHand]] = Lru(games_held)  # game -> seat -> row
        self._notes: dict[Seat, DmHand] = {}
        self._note_after = note_after
        self._write_wait = write_wait
        self._writing: set[asyncio.Future[None]] = set()  # writes a tap stopped waiting for
        self._full = asyncio.Event()  # so many notes wait that they go at once
        self._writer: asyncio.Task[None] | None = None

    def held(self) -> dict[str, int]:
        """How much is in memory, by collection (each bounded: see the module doc)."""
        return {"doors": len(self._doors), "opening": len(self._opening),
                "hands": sum(len(self._hands.get(g) or ()) for g in self._hands),
                "notes": len(self._notes)}

    def tracked_games(self) -> set[int]:
        """The games something is kept for here (the ended ones are forgotten)."""
        return set(self._hands)

    # -- doors -------------------------------------------------------------------------

    def closed(self, user_id: int) -> bool:
        """Whether ``user_id`` refused a DM in the last ``DM_CLOSED_FOR`` seconds, as far as
        this process knows (``refused_lately`` asks the store too)."""
        door = self._doors.get(user_id)
        return (door is not None and door.closed_at is not None
                and self.clock() - door.closed_at < DM_CLOSED_FOR)

    async def refused_lately(self, user_id: int) -> bool:
        """Whether ``user_id`` refused a DM in the last ``DM_CLOSED_FOR`` seconds, to this
        process or (the store says) to another one."""
        if self.closed(user_id):
            return True
        if not (self._alone and user_id in self._doors):
            await self._door(user_id)
        return self.closed(user_id)

    async def reached_before(self, user_id: int) -> bool:
        """Whether a DM reached ``user_id`` and none was refused since (their DMs work)."""
        door = self._doors.get(user_id)
        if door is None or (not _reached(door) and not self._alone):
            door = await self._door(user_id)  # (another process may have reached them)
        return door is not None and _reached(door)

    async def refused(self, user_id: int) -> None:
        """A DM to ``user_id`` was refused now."""
        log.info("user %d does not take direct messages", user_id)
        at = self.clock()
        self._doors.put(user_id, replace(self._known(user_id), closed_at=at, reached_at=None))
        await _kept(self._posted.door_closed(user_id, at), f"the DM door of user {user_id}")

    async def reached(self, user_id: int) -> None:
        """A DM reached ``user_id`` now: their door is open, for every process (written
        only when that is news: the first DM, or the first after a refusal)."""
        door = self._known(user_id)
        if _reached(door):
            return
        at = self.clock()
        self._doors.put(user_id, replace(door, closed_at=None, reached_at=at))
        await _kept(self._posted.door_reached(user_id, at), f"the DM door of user {user_id}")

    async def channel(self, user_id: int, open_channel: Callable[[], Awaitable[int]]) -> int:
        """The id of ``user_id``'s DM channel: known (here or in the store), or opened by
        ``open_channel`` once (a second caller meanwhile waits for the same answer) and
        kept. Raises what ``open_channel`` raises."""
        known = await self.known_channel(user_id)
        if known is not None:
            return known
        opening = self._opening.get(user_id)
        if opening is None:
            opening = asyncio.create_task(self._open(user_id, open_channel),
                                          name=f"dm-channel-{user_id}")
            self._opening[user_id] = opening
            opening.add_done_callback(lambda done: self._opened(user_id, done))
        # (a caller given up on, e.g. a click cancelled at a stop, leaves the opening to
        # finish for the others)
        return await asyncio.shield(opening)

    def _opened(self, user_id: int, done: asyncio.Task[int]) -> None:
        self._opening.pop(user_id, None)
        if not done.cancelled():
            # (the callers still waiting get its failure; one they all gave up waiting for
            # is not logged as never retrieved)
            done.exception()

    async def _open(self, user_id: int, open_channel: Callable[[], Awaitable[int]]) -> int:
        channel_id = await open_channel()
        self._doors.put(user_id, replace(self._known(user_id), dm_channel=channel_id))
        await _kept(self._posted.dm_channel_opened(user_id, channel_id),
                    f"the DM channel of user {user_id}")
        return channel_id

    async def known_channel(self, user_id: int) -> int | None:
        """``user_id``'s DM channel if this process or the store knows it (never opens)."""
        door = self._doors.get(user_id)
        if door is None or (door.dm_channel is None and not self._alone):
            door = await self._door(user_id)
        return None if door is None else door.dm_channel

    async def is_dm_of(self, user_id: int, channel_id: int | None) -> bool:
        """Whether ``channel_id`` is the DM channel the bot has with ``user_id`` (a click
        in it is theirs: a message of someone else's DMs is never changed for them)."""
        return channel_id is not None and await self.known_channel(user_id) == channel_id

    def _known(self, user_id: int) -> DmDoor:
        return self._doors.get(user_id) or DmDoor(user_id)

    async def _door(self, user_id: int) -> DmDoor | None:
        """The stored door, now kept here too (none stored: an empty one; None when the
        store cannot say: then what this process knew stays)."""
        try:
            door = await self._posted.door(user_id) or DmDoor(user_id)
        except StoreUnavailable:
            return self._doors.get(user_id)  # (the outage is said once, by the store)
        except Exception:
            log.exception("could not read the DM door of user %d", user_id)
            return self._doors.get(user_id)
        self._doors.put(user_id, door)
        return door

    # -- hand messages -----------------------------------------------------------------

    async def kept_hand(self, game_id: int, seat: int) -> DmHand | None:
        """The hand message kept for a seat (None: none, or the store cannot say): this
        process's note if it has one, else the store's row."""
        note = self._notes.get((game_id, seat))
        if self._alone and (known := note or self._held(game_id, seat)) is not None:
            return known
        try:
            hand = await self._posted.dm_hand(game_id, seat)
        except StoreUnavailable:
            return note  # (the outage is said once, by the store)
        except Exception:
            log.exception("could not read the hand message of game %d", game_id)
            return note
        if hand is not None:
            self._hold(hand)
        if note is not None and (hand is None or (note.message_id == hand.message_id
                                                  and note.ply >= hand.ply)):
            return note  # (not written yet, and no other process wrote a later move's)
        return hand

    async def editing(self, hand: DmHand, ply: int) -> bool:
        """This process is about to edit the seat's hand message to show the hand as of
        move ``ply``. Where other processes edit it too, the row says so first; False when
        it is of a later move already (this edit would put an older hand back: skip it)."""
        if self._alone:
            return True  # (one process: ``HandLocks`` orders its edits)
        try:
            ours = await self._posted.dm_hand_editing(hand, ply)
        except StoreUnavailable:
            return True  # (the outage is said once, by the store): edited as before
        except Exception:
            log.exception("could not note the edit of the hand message of game %d",
                          hand.game_id)
            return True
        self._notes.pop((hand.game_id, hand.seat), None)  # (the row is newer than a note)
        if ours:
            self._hold(replace(hand, shows="", ply=ply))
        return ours

    async def edited(self, hand: DmHand) -> bool:
        """The edit announced by ``editing`` is done: the message shows ``hand.shows``.
        False when another process announced a later move's edit meanwhile: Discord may
        have taken that first and this one over it, so the hand is to be shown again."""
        if self._alone:
            await self.hand_shows(hand)
            return True
        try:
            ours = await self._posted.dm_hand_edited(hand)
        except StoreUnavailable:
            return True  # (the outage is said once, by the store)
        except Exception:
            log.exception("could not keep the hand message of game %d", hand.game_id)
            return True
        self._hold(hand if ours else replace(hand, shows=""))
        return ours

    async def claim(self, user_id: int, game_id: int, seat: int) -> DmHand | None:
        """For a new game's seat: the seat's own message, or one of ``user_id``'s finished
        games' hand messages taken over (see ``Posted.claim_dm_hand``), or None."""
        try:
            hand = await self._posted.claim_dm_hand(user_id, game_id, seat)
        except StoreUnavailable:
            return None  # (the outage is said once, by the store)
        except Exception:
            log.exception("could not take over a hand message for game %d", game_id)
            return None
        if hand is not None:
            self._hold(hand)
        return hand

    async def hand_shows(self, hand: DmHand) -> None:
        """``hand.message_id`` is the seat's hand message and shows ``hand.shows``: a note
        written with others shortly if it is the message kept for the seat already and
        it shows the seat's cards (``CARDS``), else written now (a message new to the seat,
        or one that no longer shows the cards: see the module's doc)."""
        key = (hand.game_id, hand.seat)
        known = self._notes.get(key) or self._held(*key)
        if (known is not None and replace(known, shows=hand.shows, ply=hand.ply) == hand
                and hand.shows.startswith(CARDS)):
            self._hold(hand)
            self._note(key, hand)
            return
        self._notes.pop(key, None)  # (this write is newer than a note waiting)
        # A message new to the seat is kept durably (lost, a second hand would be sent);
        # the kept one leaving the cards is a hint (lost, one more edit: the module doc)
        new = known is None or (known.message_id, known.user_id) != (hand.message_id,
                                                                     hand.user_id)
        self._hold(hand)
        write = asyncio.ensure_future(_kept(self._posted.dm_hand_shows(hand, durable=new),
                                            f"the hand message of game {hand.game_id}"))
        self._writing.add(write)
        write.add_done_callback(self._writing.discard)
        # A tap waits for this before its answer changes the message, and Discord wants
        # the answer within 3 s: a database that stalls longer gets the write later (it
        # goes on), and the tap its answer now
        await asyncio.wait({write}, timeout=self._write_wait)

    async def hand_gone(self, hand: DmHand) -> None:
        """The seat's hand message can no longer be edited (deleted): forget it."""
        self._notes.pop((hand.game_id, hand.seat), None)
        (self._hands.get(hand.game_id) or {}).pop(hand.seat, None)
        await _kept(self._posted.dm_hand_gone(hand.game_id, hand.seat, hand.message_id),
                    f"the hand message of game {hand.game_id}")

    def _held(self, game_id: int, seat: int) -> DmHand | None:
        return (self._hands.get(game_id) or {}).get(seat)

    def _hold(self, hand: DmHand) -> None:
        """``hand`` is the row of its seat now. A message shows one seat's hand at a time:
        a row held for another seat of the game with the same message is not any more (a
        grown-up's message tapped for another seat; one taken over from a finished game
        left with that game, ``forget``)."""
        seats = self._hands.get(hand.game_id)
        if seats is None:
            seats = {}
            self._hands.put(hand.game_id, seats)
        for seat in [s for s, held in seats.items() if held.message_id == hand.message_id]:
            del seats[seat]
        seats[hand.seat] = hand

    def forget(self, game_id: int) -> None:
        """The game is over: its hand rows leave the memory (their notes are still
        written: the rows outlive the game, for the person's next game to take over)."""
        self._hands.pop(game_id)

    def _note(self, key: Seat, hand: DmHand) -> None:
        self._notes[key] = hand
        if len(self._notes) >= NOTES_HELD:
            self._full.set()  # the writer goes now
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._write_soon(), name="dm-hand-notes")

    async def _write_soon(self) -> None:
        while self._notes:  # (notes that came while the last ones were written go next)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self._note_after):
                    await self._full.wait()
            self._full.clear()
            await self.write_notes()

    async def write_notes(self) -> None:
        """Write the notes waiting, in one transaction. A write that fails drops them (they
        are hints, see the module doc: it is logged); one cut short keeps them."""
        notes = dict(self._notes)
        if not notes:
            return
        await _kept(self._posted.dm_hands_show(list(notes.values())),
                    "what the hand messages show")
        for key, hand in notes.items():
            if self._notes.get(key) is hand:  # (a newer note of the seat waits its turn)
                del self._notes[key]

    async def close(self) -> None:
        """At shutdown: the writes under way and the notes waiting are written now; an
        opening under way is left (its request is cut with the connection)."""
        if self._writing:
            await asyncio.wait(set(self._writing), timeout=self._write_wait)
        writer, self._writer = self._writer, None
        if writer is not None and not writer.done():
            writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await writer
        await self.write_notes()


def _reached(door: DmDoor) -> bool:
    """A DM reached them, and none was refused since."""
    return door.reached_at is not None and door.closed_at is None


async def _kept(write: Coroutine[Any, Any, None], what: str) -> None:
    """A write to the store; a failure is logged (this process still knows)."""
    try:
        await write
    except StoreUnavailable:
        pass  # (the outage is said once, by the store)
    except Exception:
        log.exception("could not keep %s", what)
