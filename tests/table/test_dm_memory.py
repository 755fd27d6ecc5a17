"""What the bot knows of each person's DMs has one owner (``DmMemory``): the store's rows,
with bounded caches in front. A DM channel is opened once per person, whatever the number
of DMs starting at once or of restarts; a click's note of what a hand message shows costs
no commit of its own and is read back meanwhile."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from cogs.table.dm_memory import DmMemory
from cogs.table.posted import DmHand, Posted
from manager import Store
from tests.e2e.conftest import World
from tests.e2e.people import latest_hand
from tests.waiting import until


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    store = await Store.open(tmp_path / "sequence.db")
    yield store
    await store.close()


class Opener:
    """Opens DM channels as Discord would (a new id each time), counting the requests;
    each request waits until ``answer`` is set, so a test can have several at once."""

    def __init__(self) -> None:
        self.opened: list[int] = []
        self.answer = asyncio.Event()
        self.answer.set()

    def of(self, user_id: int) -> Callable[[], Awaitable[int]]:
        async def open_channel() -> int:
            self.opened.append(user_id)
            await self.answer.wait()
            return 10_000 + len(self.opened)

        return open_channel


async def test_two_dms_starting_at_once_open_the_persons_channel_once(store: Store) -> None:
    memory, opener = DmMemory(Posted(store.rows)), Opener()
    opener.answer.clear()  # the first request is still on its way when the second comes
    hello = asyncio.create_task(memory.channel(7, opener.of(7)))
    hand = asyncio.create_task(memory.channel(7, opener.of(7)))
    await until(lambda: opener.opened, "the first request out")
    opener.answer.set()
    assert await hello == await hand == 10_001
    assert opener.opened == [7]
    assert memory.held()["opening"] == 0
    assert (await Posted(store.rows).door(7)).dm_channel == 10_001  # type: ignore[union-attr]


async def test_a_channel_the_store_knows_is_not_opened_again_after_a_restart(
        store: Store) -> None:
    opener = Opener()
    first = await DmMemory(Posted(store.rows)).channel(7, opener.of(7))
    again = DmMemory(Posted(store.rows))  # the next process on the same database
    assert await again.channel(7, opener.of(7)) == first
    assert await again.is_dm_of(7, first)
    assert opener.opened == [7]


async def test_the_doors_held_are_bounded_and_a_door_let_go_is_asked_of_the_store(
        store: Store) -> None:
    memory, opener = DmMemory(Posted(store.rows), doors_held=3), Opener()
    for user in range(10):
        await memory.channel(user, opener.of(user))
        await memory.reached(user)
    assert memory.held()["doors"] == 3
    assert await memory.channel(0, opener.of(0)) == 10_001
    assert await memory.reached_before(0)
    assert opener.opened == list(range(10))


async def test_a_door_refused_and_reached_is_known_to_the_next_process(store: Store) -> None:
    now = [1000.0]
    memory = DmMemory(Posted(store.rows), clock=lambda: now[0])
    await memory.refused(5)
    await memory.reached(6)
    again = DmMemory(Posted(store.rows), clock=lambda: now[0])
    assert await again.refused_lately(5) and not await again.reached_before(5)
    assert not await again.refused_lately(6) and await again.reached_before(6)
    now[0] += 600  # ten minutes on, a refused door is knocked on once more
    assert not await again.refused_lately(5)


async def test_a_clicks_note_is_read_back_at_once_and_written_with_the_others(
        store: Store) -> None:
    memory = DmMemory(Posted(store.rows), note_after=0.05)
    dealt = [DmHand(3, seat, 40 + seat, 400 + seat, 7000 + seat, "hand:lion") for seat in (0, 1)]
    for hand in dealt:
        await memory.hand_shows(hand)  # a message new to the seat: written at once
    assert await Posted(store.rows).dm_hand(3, 0) == dealt[0]
    for hand in dealt:  # the new hand after a move, shown by the click's answer
        await memory.hand_shows(DmHand(3, hand.seat, hand.user_id, hand.dm_channel,
                                       hand.message_id, "hand:bear"))
    assert (await memory.kept_hand(3, 1)).shows == "hand:bear"  # type: ignore[union-attr]

    async def written() -> bool:
        rows = [await Posted(store.rows).dm_hand(3, seat) for seat in (0, 1)]
        return all(row is not None and row.shows == "hand:bear" for row in rows)

    await until(written, "both notes in the store")
    assert memory.held()["notes"] == 0


async def test_the_notes_waiting_are_written_when_the_bot_stops(store: Store) -> None:
    memory = DmMemory(Posted(store.rows), note_after=3600)
    await memory.hand_shows(DmHand(3, 0, 40, 400, 7000, "choice:2"))
    await memory.hand_shows(DmHand(3, 0, 40, 400, 7000, "hand:lion"))  # back to the cards
    assert (await Posted(store.rows).dm_hand(3, 0)).shows == "choice:2"  # type: ignore[union-attr]
    await memory.close()
    assert (await Posted(store.rows).dm_hand(3, 0)).shows == "hand:lion"  # type: ignore[union-attr]


async def test_a_hand_message_that_stops_showing_the_cards_is_kept_at_once(
        store: Store) -> None:
    """A card tapped turns the hand into its numbered spaces: that is in the store before
    the next moment, so a process killed then leaves no row saying the cards are shown
    (a restart would leave the numbers of a move never kept in the DM)."""
    memory = DmMemory(Posted(store.rows), note_after=3600)
    await memory.hand_shows(DmHand(3, 0, 40, 400, 7000, "hand:lion,bear"))
    await memory.hand_shows(DmHand(3, 0, 40, 400, 7000, "choice:2"))
    assert (await Posted(store.rows).dm_hand(3, 0)).shows == "choice:2"  # type: ignore[union-attr]
    assert memory.held()["notes"] == 0


async def test_a_finished_games_hand_rows_leave_the_memory(store: Store) -> None:
    memory = DmMemory(Posted(store.rows))
    await memory.hand_shows(DmHand(3, 0, 40, 400, 7000, "hand:lion"))
    await memory.hand_shows(DmHand(4, 0, 40, 400, 7001, "hand:bear"))
    memory.forget(3)
    assert memory.held()["hands"] == 1
    assert (await memory.kept_hand(3, 0)).message_id == 7000  # type: ignore[union-attr]


async def test_a_hand_dealt_while_the_hello_opens_the_dm_waits_for_that_same_channel(
        world: World) -> None:
    fake, alice, bob = world.discord, world["Alice"], world["Bob"]
    lobby = await (await alice.slash("sequence new", game="kids")).reply()
    await fake.wait_for(lambda: alice.dms(), 5, "Alice's hello")
    # Discord holds the opening of Bob's DM channel (the hello on joining) for a second:
    # Alice presses Start meanwhile, and Bob's hand is dealt while it is still on its way
    fake.faults.rate_limit(method="POST", path="/users/@me/channels$", retry_after=1.0)
    join = next(b["custom_id"] for b in lobby.buttons() if b["custom_id"].endswith(":join"))
    await (await bob.click(lobby, join)).wait_ack()
    await fake.wait_for(lambda: "Bob" in lobby.text, 5, "Bob seated")
    start = next(b["custom_id"] for b in lobby.buttons() if b["custom_id"].endswith(":start"))
    await (await alice.click(lobby, start)).wait_ack()
    await latest_hand(bob)
    opened = [r for r in fake.requests
              if r.route == "POST /users/@me/channels" and r.status == 200]
    assert sorted(int(r.body["recipient_id"]) for r in opened) == sorted([alice.id, bob.id])


async def test_on_postgresql_a_later_moves_hand_written_by_another_process_beats_a_note(
        postgres_url: str) -> None:
    """This process noted the hand it showed after a tap, not written yet; another process
    has since shown the hand of a later move. The later one is what the message shows, so an
    older change heard late here finds it and is not edited back over it (issue 46: Bob's
    DM showed the hand from before his last move until his next turn)."""
    here, there = await Store.connect(postgres_url), await Store.connect(postgres_url)
    try:
        memory = DmMemory(Posted(here.rows), note_after=3600)
        other = DmMemory(Posted(there.rows), note_after=3600)
        await memory.hand_shows(DmHand(3, 1, 40, 400, 7000, "choice:1", 1))
        await memory.hand_shows(DmHand(3, 1, 40, 400, 7000, "hand:moose,dragon", 1))  # a note
        kept = await other.kept_hand(3, 1)
        assert kept is not None and await other.editing(kept, 4)
        assert await other.edited(DmHand(3, 1, 40, 400, 7000, "hand:moose,hippo", 4))
        assert await memory.kept_hand(3, 1) == DmHand(3, 1, 40, 400, 7000, "hand:moose,hippo", 4)
        # and an edit of move 3 begun here now is refused: it would put an older hand back
        assert not await memory.editing(DmHand(3, 1, 40, 400, 7000), 3)
        await memory.close()  # (the note left is older than the row: it changes nothing)
        assert (await other.kept_hand(3, 1)).shows == "hand:moose,hippo"  # type: ignore[union-attr]
        await other.close()
    finally:
        await here.close()
        await there.close()
