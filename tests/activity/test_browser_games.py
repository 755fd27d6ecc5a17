"""Whole games played by taps in the Activity, in Debian's Chromium, beside the chat: the
same table, every move with its board in the channel, the DM hands true, the page live."""

from __future__ import annotations

from typing import Any

from engine.action import Action
from tests.activity.browser import BROWSER, TABLET
from tests.activity.conftest import Table
from tests.activity.pages import hands_in
from tests.activity.taps import dm_cards, tap_a_move
from tests.e2e.people import (
    assert_no_hand_in_public,
    boards,
    game_of,
    play_until_over,
    turn_from_dm,
)
from tests.fakediscord import FakeMessage, Person

pytestmark = BROWSER


async def lobby_of(table: Table, game: str, *guests: str, computer: str | None = None,
                   **options: Any) -> FakeMessage:
    """Alice's lobby in the channel, ``guests`` seated (and a computer), started."""
    lobby = await (await table["Alice"].slash("sequence new", game=game, **options)).reply()
    for name in guests:
        await (await table[name].click(lobby, label="Join")).wait_ack()
        await table.discord.wait_for(lambda n=name: n in lobby.text, 5, f"{name} seated")
    if computer is not None:
        await (await table["Alice"].click(lobby, label=f"Add computer ({computer})")).wait_ack()
        await table.discord.wait_for(lambda: "Computer" in lobby.text, 5, "the computer")
    await (await table["Alice"].click(lobby, label="Start")).wait_ack()
    await table.discord.wait_for(lambda: boards(table.discord, table.guild.channel_id), 5,
                                 "the first board")
    return lobby


def plies_seen(frames: list[dict[str, Any]]) -> set[int]:
    return {f["ply"] for f in frames if f["t"] == "table" and f["status"] != "lobby"}


async def test_kids_one_taps_one_plays_in_chat_and_one_is_a_computer(
        browser_table: Table) -> None:
    table = browser_table
    fake, channel = table.discord, table.guild.channel_id
    await lobby_of(table, "kids", "Bob", computer="easy")
    first = boards(fake, channel)[0]
    game_id = game_of(first)
    assert game_id is not None and table.bot.manager is not None
    manager = table.bot.manager
    alice = await table.screen("Alice")
    taps = 0

    async def turn(person: Person, board: FakeMessage) -> None:
        nonlocal taps
        if person is not table["Alice"]:
            await turn_from_dm(person, board)  # Bob, in chat, from his DMs
            return
        await tap_a_move(alice)
        taps += 1
        if taps == 2:
            await alice.shot("phone-kids")
        if manager.is_active(game_id):  # her DM hand follows her taps
            hand = sorted(manager.seat_observation(game_id, 0).get("hand") or [])
            await fake.wait_for(lambda: dm_cards(table["Alice"], game_id, 0) == hand, 5,
                                "Alice's hand in her DMs true after her tap")

    final = await play_until_over(fake, channel, [table["Alice"], table["Bob"]], turn)
    assert taps >= 2
    end = await alice.table_where(lambda t: t["over"] is not None, "the end on the page")
    await alice.page.wait_for_selector("[data-over]")
    await alice.shot("phone-kids-end")
    # every move was shown live on the page, the chat's and the computer's too
    record = await manager.load_record(game_id)
    assert record is not None
    assert plies_seen(alice.frames) >= set(range(1, len(record.actions) + 1))
    assert end["ply"] == len(record.actions)
    # every move had its board (play_until_over waited for each); the end has Rematch
    assert any(c.startswith("seq:rematch:") for c in final.custom_ids())
    assert_no_hand_in_public(fake, channel)
    for frame in alice.frames:
        assert all(seat == 0 for seat, _ in hands_in(frame)), "only Alice's own hand"
    if end["over"]["winners"]:
        assert await alice.page.locator("[data-do=rematch]").is_visible()


async def test_dice_played_by_taps_on_a_tablet(browser_table: Table) -> None:
    table = browser_table
    fake, channel = table.discord, table.guild.channel_id
    await lobby_of(table, "dice", computer="easy", sequence_length=5)
    alice = await table.screen("Alice", size=TABLET)
    manager = table.bot.manager
    assert manager is not None
    shot = False
    while True:
        frame = await alice.table_where(lambda t: t["over"] is not None or bool(
            t["me"] and t["me"]["legal"]), "Alice's turn, or the end", timeout=20)
        if frame["over"] is not None:
            break
        if "roll" in frame["me"]["legal"]:
            await alice.tap("[data-roll]")
            await alice.table_where(lambda t, p=frame["ply"]: t["ply"] > p, "the dice")
            continue  # (her spaces glow next, or the roll passed her turn)
        await alice.page.wait_for_selector(".space.glow")
        if not shot and frame["ply"] > 6:
            await alice.page.wait_for_selector("[data-dice] img")
            await alice.shot("tablet-dice")
            shot = True
        spaces = await alice.glowing()
        legal = {s for a in frame["me"]["legal"] if (s := Action.parse(a).space)}
        assert set(spaces) == legal, "the roll's spaces glow, and only they"
        await alice.tap(f'[data-space="{spaces[0]}"]')
        await alice.table_where(lambda t, p=frame["ply"]: t["ply"] > p, "the chip placed")
    assert frame["over"]["winners"] or frame["over"]["draw"]
    await alice.page.wait_for_selector("[data-over]")
    await alice.shot("tablet-dice-end")
    # the channel got the final board, and the Dice board shows the rolls in words
    final = await fake.wait_for(
        lambda: [b for b in boards(fake, channel)
                 if any(c.startswith("seq:rematch:") for c in b.custom_ids())], 5,
        "the final board")
    assert final


async def test_a_grown_up_taps_for_the_child_whose_turn_it_is(browser_table: Table) -> None:
    table = browser_table
    fake, channel = table.discord, table.guild.channel_id
    lobby = await (await table["Alice"].slash("sequence new", game="kids")).reply()
    # Bob, a grown-up, holds his daughter Emma's seat (and has none of his own)
    await (await table["Bob"].click(lobby, label="Add a child")).wait_ack()
    modal = await table["Bob"].opened_modal()
    await (await table["Bob"].submit_modal(modal, {modal.fields[0].custom_id: "Emma"})
           ).wait_ack()
    await fake.wait_for(lambda: "Emma" in lobby.text, 5, "Emma seated")
    await (await table["Alice"].click(lobby, label="Start")).wait_ack()
    board = (await fake.wait_for(lambda: boards(fake, channel), 5, "the first board"))[0]
    game_id = game_of(board)
    bob = await table.screen("Bob")

    async def turn(person: Person, board: FakeMessage) -> None:
        if person is table["Bob"]:
            frame = await tap_a_move(bob)
            assert frame["me"] is None or frame["me"]["name"] == "Emma"
        else:
            await turn_from_dm(person, board)

    await play_until_over(fake, channel, [table["Alice"], table["Bob"]], turn)
    named = [f["me"] for f in bob.frames if f["t"] == "table" and f["me"]]
    assert named and all(m["name"] == "Emma" and m["child"] for m in named)
    assert all(seat == 1 for f in bob.frames for seat, _ in hands_in(f))
    assert game_id is not None
