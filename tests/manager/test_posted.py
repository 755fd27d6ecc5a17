"""What the Discord layer posted, its own rows in the store's database
(``cogs.table.posted.Posted`` over ``Store.rows``), on both backends: any process can find
a lobby message, tidy the board before the newest, and leave a
refused DM door alone, whoever posted or knocked first."""

from __future__ import annotations

import asyncio

from cogs.table.posted import DmDoor, DmHand, NewestBoard, Posted
from manager import Store
from store import Seat

from .conftest import OpenStore

ROUNDS = 100  # concurrent claims in the race test


async def a_game(store: Store, channel: int = 900) -> int:
    game_id = await store.games.create_lobby("kids", {}, 500, channel, 1, [Seat(0, 1, "Ann")],
                                             lobby_deadline=None, on_leave="skip", now=0)
    assert game_id is not None
    return game_id


async def test_a_lobby_message_is_found_until_the_lobby_closes(store: Store) -> None:
    game = await a_game(store)
    assert await Posted(store.rows).lobby_message(game) is None
    await Posted(store.rows).lobby_posted(game, 900, 111)
    assert await Posted(store.rows).lobby_message(game) == (900, 111)
    assert await Posted(store.rows).lobby_closed(game) == (900, 111)
    assert await Posted(store.rows).lobby_message(game) is None
    assert await Posted(store.rows).lobby_closed(game) is None


async def test_the_first_board_leaves_nothing_to_tidy(store: Store) -> None:
    game = await a_game(store)
    assert await Posted(store.rows).board_posted(game, 1000, 0) is None
    assert await Posted(store.rows).newest_board(game) == NewestBoard(1000, 0)


async def test_a_newer_board_makes_the_one_before_it_stale(store: Store) -> None:
    game = await a_game(store)
    await Posted(store.rows).board_posted(game, 1000, 0)
    assert await Posted(store.rows).board_posted(game, 1001, 1) == 1000
    assert await Posted(store.rows).newest_board(game) == NewestBoard(1001, 1)


async def test_a_board_of_an_older_move_arriving_late_is_the_stale_one(store: Store) -> None:
    game = await a_game(store)
    await Posted(store.rows).board_posted(game, 1005, 5)
    assert await Posted(store.rows).board_posted(game, 1006, 4) == 1006
    assert await Posted(store.rows).newest_board(game) == NewestBoard(1005, 5)


async def test_at_the_same_ply_the_later_message_is_the_newest(store: Store) -> None:
    game = await a_game(store)
    await Posted(store.rows).board_posted(game, 1000, 3)
    assert await Posted(store.rows).board_posted(game, 1002, 3) == 1000
    assert await Posted(store.rows).board_posted(game, 1001, 3) == 1001


async def test_the_same_board_posted_again_is_not_stale(store: Store) -> None:
    game = await a_game(store)
    await Posted(store.rows).board_posted(game, 1000, 2)
    assert await Posted(store.rows).board_posted(game, 1000, 2) is None
    assert await Posted(store.rows).newest_board(game) == NewestBoard(1000, 2)


async def test_a_thread_knows_the_channel_it_hangs_from_while_its_game_lasts(
        store: Store) -> None:
    game = await a_game(store)
    await Posted(store.rows).lobby_posted(game, 900, 111)
    await Posted(store.rows).moved_to_thread(game, 7000, 900)
    assert await Posted(store.rows).thread_parent(7000) == 900
    assert await Posted(store.rows).thread_parent(900) is None
    assert await Posted(store.rows).lobby_message(game) == (900, 111)  # the thread kept it
    await Posted(store.rows).game_over(game)
    assert await Posted(store.rows).thread_parent(7000) is None
    assert await Posted(store.rows).games_kept() == 0


async def test_nothing_is_kept_of_a_game_that_ended(store: Store) -> None:
    game, other = await a_game(store, 900), await a_game(store, 901)
    await Posted(store.rows).lobby_posted(game, 900, 111)
    await Posted(store.rows).board_posted(game, 1000, 0)
    await Posted(store.rows).board_posted(other, 2000, 0)
    await Posted(store.rows).game_over(game)
    assert await Posted(store.rows).newest_board(game) is None
    assert await Posted(store.rows).lobby_message(game) is None
    assert await Posted(store.rows).newest_board(other) == NewestBoard(2000, 0)
    assert await Posted(store.rows).games_kept() == 1


async def test_a_dm_door_keeps_its_channel_and_when_it_was_refused_or_reached(
        store: Store) -> None:
    assert await Posted(store.rows).door(42) is None
    await Posted(store.rows).dm_channel_opened(42, 4200)
    assert await Posted(store.rows).door(42) == DmDoor(42, 4200, None, None)
    await Posted(store.rows).door_reached(42, at=1_700_000_000.0)
    assert await Posted(store.rows).door(42) == DmDoor(42, 4200, None, 1_700_000_000.0)
    await Posted(store.rows).door_closed(42, at=1_700_000_000.5)  # not reached since
    assert await Posted(store.rows).door(42) == DmDoor(42, 4200, 1_700_000_000.5, None)
    await Posted(store.rows).door_reached(42, at=1_700_000_001.0)  # open again
    assert await Posted(store.rows).door(42) == DmDoor(42, 4200, None, 1_700_000_001.0)


async def test_a_door_reached_before_its_channel_was_written_keeps_both(store: Store) -> None:
    await Posted(store.rows).door_reached(44, at=7.0)
    await Posted(store.rows).dm_channel_opened(44, 4400)
    assert await Posted(store.rows).door(44) == DmDoor(44, 4400, None, 7.0)


async def test_a_door_refused_before_its_channel_was_known_keeps_both(store: Store) -> None:
    await Posted(store.rows).door_closed(43, at=10.0)
    await Posted(store.rows).dm_channel_opened(43, 4300)
    assert await Posted(store.rows).door(43) == DmDoor(43, 4300, 10.0)


async def test_what_was_posted_survives_a_restart(open_store: OpenStore) -> None:
    async with await open_store() as first:
        game = await a_game(first)
        await Posted(first.rows).board_posted(game, 1000, 4)
        await Posted(first.rows).door_closed(42, at=5.0)
    async with await open_store() as again:
        assert await Posted(again.rows).board_posted(game, 1001, 5) == 1000
        assert (await Posted(again.rows).door(42)) == DmDoor(42, None, 5.0)


async def test_two_processes_posting_boards_at_once_keep_one_newest(
        open_store: OpenStore) -> None:
    # two stores are two processes (each its own connection or pool); on PostgreSQL the
    # row lock makes the second read what the first wrote
    first, second = await open_store(), await open_store()
    try:
        game = await a_game(first)
        await Posted(first.rows).board_posted(game, 1001, 0)
        for ply in range(1, 21):
            older, newer = 1000 + 2 * ply, 1001 + 2 * ply
            stale = await asyncio.gather(Posted(first.rows).board_posted(game, older, ply),
                                         Posted(second.rows).board_posted(game, newer, ply))
            # in either order: the board before them is stale once, and so is the older
            # of the two (never the same board twice, never two newest)
            assert sorted(s for s in stale if s is not None) == sorted([older, newer - 2])
            assert await Posted(first.rows).newest_board(game) == NewestBoard(newer, ply)
    finally:
        await first.close()
        await second.close()


async def test_two_first_boards_at_once_leave_exactly_one_stale(open_store: OpenStore) -> None:
    first, second = await open_store(), await open_store()
    try:
        for n in range(10):
            game = await a_game(first, channel=900 + n)
            stale = await asyncio.gather(Posted(first.rows).board_posted(game, 5000, 1),
                                         Posted(second.rows).board_posted(game, 5001, 2))
            # whichever came first, the board of ply 1 is the stale one, named once
            assert [s for s in stale if s is not None] == [5000]
            assert await Posted(second.rows).newest_board(game) == NewestBoard(5001, 2)
    finally:
        await first.close()
        await second.close()


async def test_a_board_posted_after_its_game_ended_keeps_nothing(store: Store) -> None:
    # another process posts the last board just as this one forgets the finished game
    game = await a_game(store)
    await Posted(store.rows).board_posted(game, 1000, 0)
    await store.games.set_status(game, "finished", now=1)
    await Posted(store.rows).game_over(game)
    assert await Posted(store.rows).board_posted(game, 1001, 1) is None
    await Posted(store.rows).lobby_posted(game, 900, 111)
    await Posted(store.rows).moved_to_thread(game, 7000, 900)
    assert await Posted(store.rows).games_kept() == 0


async def test_a_game_over_sweeps_the_rows_of_games_that_ended_unforgotten(
        store: Store) -> None:
    # a process stopped between a game's end and dropping its row: the next end sweeps it
    stopped, live, ending = (await a_game(store, 900), await a_game(store, 901),
                             await a_game(store, 902))
    for game in (stopped, live, ending):
        await Posted(store.rows).board_posted(game, 1000 + game, 0)
    await store.games.set_status(stopped, "finished", now=1)
    await Posted(store.rows).game_over(ending)
    assert await Posted(store.rows).games_kept() == 1
    assert await Posted(store.rows).newest_board(live) is not None


# -- the hand message kept in each DM per seat (issue 25) --------------------------------

async def test_a_seats_hand_message_is_found_with_what_it_shows(store: Store) -> None:
    game = await a_game(store)
    assert await Posted(store.rows).dm_hand(game, 0) is None
    await Posted(store.rows).dm_hand_shows(DmHand(game, 0, 42, 4200, 7001, "hand:lion,camel"))
    assert await Posted(store.rows).dm_hand(game, 0) == DmHand(game, 0, 42, 4200, 7001,
                                                         "hand:lion,camel")
    await Posted(store.rows).dm_hand_shows(DmHand(game, 0, 42, 4200, 7001, "choice:3"))
    assert (await Posted(store.rows).dm_hand(game, 0)).shows == "choice:3"  # type: ignore[union-attr]
    assert await Posted(store.rows).dm_hands_kept(42) == 1


async def test_notes_of_what_hand_messages_show_go_in_one_write_and_spare_a_changed_row(
        store: Store) -> None:
    game = await a_game(store)
    await Posted(store.rows).dm_hand_shows(DmHand(game, 0, 42, 4200, 7001, "hand:lion"))
    await Posted(store.rows).dm_hand_shows(DmHand(game, 1, 43, 4300, 7002, "hand:bear"))
    await Posted(store.rows).dm_hand_shows(DmHand(game, 1, 43, 4300, 7005, "hand:bear"))  # resent
    await Posted(store.rows).dm_hands_show([DmHand(game, 0, 42, 4200, 7001, "choice:4"),
                                      DmHand(game, 1, 43, 4300, 7002, "choice:5")])
    assert (await Posted(store.rows).dm_hand(game, 0)).shows == "choice:4"  # type: ignore[union-attr]
    # the note was of the message seat 1 had before: the row of its new one is untouched
    assert await Posted(store.rows).dm_hand(game, 1) == DmHand(game, 1, 43, 4300, 7005, "hand:bear")


async def test_a_message_tapped_for_another_seat_shows_only_that_seat(store: Store) -> None:
    game = await a_game(store)
    await Posted(store.rows).dm_hand_shows(DmHand(game, 0, 42, 4200, 7001, "hand:lion"))
    await Posted(store.rows).dm_hand_shows(DmHand(game, 1, 42, 4200, 7001, "hand:bear"))
    assert await Posted(store.rows).dm_hand(game, 0) is None
    assert (await Posted(store.rows).dm_hand(game, 1)).message_id == 7001  # type: ignore[union-attr]


async def test_the_next_game_takes_over_a_finished_games_hand_message(store: Store) -> None:
    old, other = await a_game(store, 900), await a_game(store, 901)
    await Posted(store.rows).dm_hand_shows(DmHand(old, 0, 42, 4200, 7002, "hand:lion"))
    await Posted(store.rows).dm_hand_shows(DmHand(old, 1, 42, 4200, 7001, "hand:bear"))
    await Posted(store.rows).dm_hand_shows(DmHand(other, 0, 43, 4300, 7003, "hand:bear"))
    new = await a_game(store, 902)
    # while the old game is in play its messages are its own
    assert await Posted(store.rows).claim_dm_hand(42, new, 0) is None
    await store.games.set_status(old, "finished", now=1)
    # the oldest message first, so a grown-up's hands keep their order
    assert await Posted(store.rows).claim_dm_hand(42, new, 0) == DmHand(new, 0, 42, 4200, 7001)
    assert await Posted(store.rows).claim_dm_hand(42, new, 0) == DmHand(new, 0, 42, 4200, 7001)
    assert await Posted(store.rows).claim_dm_hand(42, new, 1) == DmHand(new, 1, 42, 4200, 7002)
    assert await Posted(store.rows).claim_dm_hand(42, new, 2) is None  # none left: a new DM
    assert await Posted(store.rows).dm_hand(old, 1) is None
    assert await Posted(store.rows).dm_hands_kept(42) == 2  # as many as held at once


async def test_two_games_starting_at_once_never_share_a_hand_message(
        open_store: OpenStore) -> None:
    first, second = await open_store(), await open_store()
    try:
        # many rounds: two processes' claims meet at every possible moment of each other's
        # transaction (one look, then the lock: a claim must not take a row just taken)
        for round_ in range(ROUNDS):
            channel = 1000 + 10 * round_
            old = await a_game(first, channel)
            for n, message in enumerate((7001, 7002, 7003)):
                await Posted(first.rows).dm_hand_shows(
                    DmHand(old, n, 42, 4200, 10 * round_ + message, "hand:x"))
            await first.games.set_status(old, "finished", now=1)
            one, two = await a_game(first, channel + 1), await a_game(first, channel + 2)
            claimed = await asyncio.gather(Posted(first.rows).claim_dm_hand(42, one, 0),
                                           Posted(second.rows).claim_dm_hand(42, two, 0))
            ids = [c.message_id for c in claimed if c is not None]
            assert len(ids) == len(set(ids)) == 2, (round_, claimed)
            for game in (one, two):
                await first.games.set_status(game, "finished", now=1)
            await Posted(first.rows).game_over(old)
    finally:
        await first.close()
        await second.close()


async def test_a_deleted_hand_message_is_forgotten(store: Store) -> None:
    game = await a_game(store)
    await Posted(store.rows).dm_hand_shows(DmHand(game, 0, 42, 4200, 7001, "hand:lion"))
    await Posted(store.rows).dm_hand_gone(game, 0, 7000)  # another message: kept
    assert await Posted(store.rows).dm_hand(game, 0) is not None
    await Posted(store.rows).dm_hand_gone(game, 0, 7001)
    assert await Posted(store.rows).dm_hand(game, 0) is None


async def test_an_older_moves_edit_of_a_hand_message_is_refused_once_a_later_ones_began(
        store: Store) -> None:
    """Two processes edit one seat's message, each as it hears of a change: one heard late
    (a turn's dead marks, queued behind a board) must not put the older hand back."""
    game = await a_game(store)
    posted = Posted(store.rows)
    await posted.dm_hand_shows(DmHand(game, 0, 42, 4200, 7001, "hand:lion", 4))
    assert await posted.dm_hand_editing(DmHand(game, 0, 42, 4200, 7001), 6)
    assert not await posted.dm_hand_editing(DmHand(game, 0, 42, 4200, 7001), 5)
    # while the edit is on its way the row does not say the message shows the lion
    assert await posted.dm_hand(game, 0) == DmHand(game, 0, 42, 4200, 7001, "", 6)
    assert await posted.dm_hand_edited(DmHand(game, 0, 42, 4200, 7001, "hand:bear", 6))
    assert await posted.dm_hand(game, 0) == DmHand(game, 0, 42, 4200, 7001, "hand:bear", 6)
    # a note of an older move's hand (a tap answered late) is left out too
    await posted.dm_hands_show([DmHand(game, 0, 42, 4200, 7001, "hand:lion", 5)])
    assert await posted.dm_hand(game, 0) == DmHand(game, 0, 42, 4200, 7001, "hand:bear", 6)


async def test_an_edit_overtaken_by_a_later_moves_edit_is_told_so(store: Store) -> None:
    """The older edit was announced first, the later one meanwhile: Discord may have taken
    the later one first, so the older one's writer hears that it was overtaken."""
    game = await a_game(store)
    posted = Posted(store.rows)
    await posted.dm_hand_shows(DmHand(game, 0, 42, 4200, 7001, "hand:lion", 4))
    assert await posted.dm_hand_editing(DmHand(game, 0, 42, 4200, 7001), 5)
    assert await posted.dm_hand_editing(DmHand(game, 0, 42, 4200, 7001), 6)
    assert await posted.dm_hand_edited(DmHand(game, 0, 42, 4200, 7001, "hand:bear", 6))
    assert not await posted.dm_hand_edited(DmHand(game, 0, 42, 4200, 7001, "hand:camel", 5))
    assert await posted.dm_hand(game, 0) == DmHand(game, 0, 42, 4200, 7001, "hand:bear", 6)
    # and a message taken over by the next game starts again from no move known
    await store.games.set_status(game, "finished", now=1)
    new = await a_game(store, 902)
    assert await posted.claim_dm_hand(42, new, 0) == DmHand(new, 0, 42, 4200, 7001, "", -1)
