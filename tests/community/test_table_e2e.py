"""Around the table, through the fake Discord in both languages: visible turn timers,
the same-seats Rematch with the replay on the final board, hints, rules, the server's
language."""

from __future__ import annotations

import io
import re

from PIL import Image

from engine.action import Action
from manager.timers import ManualClock
from tests.community.play import (
    add_computer,
    lobby_of,
    seat,
    seated,
    start,
    started,
    won_by_resignation,
)
from tests.community.test_settings_e2e import admin
from tests.e2e.conftest import World
from tests.e2e.people import boards, turn_from_dm
from tests.fakediscord import FakeMessage, Person


def newest_board(world: World) -> FakeMessage:
    return boards(world.discord, world.guild.channel_id)[-1]


def posted_since(world: World, before: int) -> list[FakeMessage]:
    return world.discord.visible_messages(world.guild.channel_id)[before:]


async def timed_game(world: World, host: Person, guest: Person, *, minutes: int,
                     on_timeout: str) -> ManualClock:
    """A Kids game under a turn timer, on the world's clock the test moves."""
    clock = world.clock
    assert clock is not None, "a world made with a clock (the timed_... fixtures)"
    boss = admin(world, "Boss", locale=host.locale)
    await (await boss.slash("sequence settings", turn_timer=minutes,
                            on_timeout=on_timeout)).reply()
    await started(world, host, guest)
    return clock


async def test_a_turn_timer_shows_reminds_once_and_announces_the_skip(timed_world: World) -> None:
    world = timed_world
    alice, bob = world["Alice"], world["Bob"]
    clock = await timed_game(world, alice, bob, minutes=1, on_timeout="skip")
    manager = world.bot.manager
    table = manager.table_for_channel(world.guild.channel_id)
    mover = alice if table.turn == 0 else bob
    board = newest_board(world)
    assert f"<t:{int(table.turn_deadline)}:R>" in board.content
    assert "Time runs out" in board.content and int(table.turn_deadline) == int(clock.now()) + 60
    before = len(world.discord.visible_messages(world.guild.channel_id))
    clock.advance(31)
    await manager.check_timers()
    reminder = await world.discord.wait_for(
        lambda: [m for m in posted_since(world, before) if "still your turn" in m.content],
        5, "the reminder")
    assert reminder[0].content == f"{mover.mention}, it's still your turn."
    clock.advance(5)
    await manager.check_timers()
    clock.advance(25)
    await manager.check_timers()
    said = await world.discord.wait_for(
        lambda: [m for m in posted_since(world, before) if "ran out of time" in m.content],
        5, "the time-out")
    assert said[0].content == f"⏰ {mover.name} ran out of time: their turn is skipped."
    reminders = [m for m in posted_since(world, before) if "still your turn" in m.content]
    assert len(reminders) == 1, "one reminder per turn"
    assert manager.table_for_channel(world.guild.channel_id).turn != table.turn


async def test_a_turn_timer_in_norwegian_and_a_computer_moves(timed_norsk: World) -> None:
    norsk = timed_norsk
    kari, ola = norsk["Kari"], norsk["Ola"]
    clock = await timed_game(norsk, kari, ola, minutes=2, on_timeout="computer")
    manager = norsk.bot.manager
    table = manager.table_for_channel(norsk.guild.channel_id)
    mover = kari if table.turn == 0 else ola
    assert "Tiden går ut <t:" in newest_board(norsk).content
    before = len(norsk.discord.visible_messages(norsk.guild.channel_id))
    clock.advance(121)
    await manager.check_timers()
    said = await norsk.discord.wait_for(
        lambda: [m for m in posted_since(norsk, before) if "Tiden gikk ut" in m.content],
        5, "the time-out")
    assert f"Tiden gikk ut for {mover.name}, så en datamaskinspiller gjorde trekket" in (
        said[0].content)
    assert manager.table_for_channel(norsk.guild.channel_id).ply > table.ply


async def test_without_a_timer_the_board_names_no_deadline(world: World) -> None:
    await started(world, world["Alice"], world["Bob"])
    assert "Time runs out" not in newest_board(world).content


async def test_rematch_keeps_the_seats_and_options_with_a_new_shuffle(world: World) -> None:
    alice, bob, carol = world["Alice"], world["Bob"], world["Carol"]
    lobby = await lobby_of(world, alice, "kids", level="2")
    await add_computer(world, lobby, alice, "hard")
    await seat(world, lobby, bob)
    await start(world, lobby, alice)
    store = world.bot.manager.store
    first = world.bot.manager.table_for_channel(world.guild.channel_id)
    await (await alice.slash("sequence resign")).wait_ack()
    await (await bob.slash("sequence resign")).wait_ack()
    final = await world.discord.wait_for(
        lambda: next((m for m in boards(world.discord, world.guild.channel_id)
                      if any(c.startswith("seq:rematch:") for c in m.custom_ids())), None),
        10, "the final board")
    # the replay of the whole game joins the final board as soon as it is drawn
    gif = await world.discord.wait_for(
        lambda: next((f for f in final.files if f.filename == "replay.gif"), None), 10,
        "the replay on the final board")
    assert Image.open(io.BytesIO(gif.data)).format == "GIF" and gif.description
    refusal = await (await carol.click(final, label="Rematch")).reply()
    assert refusal.ephemeral and "Only the players of that game" in refusal.content
    again = await (await bob.click(final, label="Rematch")).reply()
    assert "Same seats and options" in again.text and "Level: Beginner 2" in again.text
    seats = re.findall(r"^\d\. (.+)$", again.text, re.M)
    assert seats[:3] == ["Alice (host)", "Computer (hard)", "Bob"]
    await (await alice.click(again, label="Start")).wait_ack()
    second = await world.discord.wait_for(
        lambda: world.bot.manager.table_for_channel(world.guild.channel_id), 5, "the rematch")
    old = await store.games.load_game(first.game_id)
    new = await store.games.load_game(second.game_id)
    assert old is not None and new is not None
    assert new.options == old.options and new.seed != old.seed
    assert [(s.user_id, s.level) for s in new.seats] == [(s.user_id, s.level) for s in old.seats]


async def test_rematch_in_norwegian(norsk: World) -> None:
    final = await won_by_resignation(norsk, norsk["Kari"], norsk["Ola"])
    replay = await norsk.discord.wait_for(
        lambda: next((f for f in final.files if f.filename == "replay.gif"), None), 10,
        "the replay")
    assert replay.description == "Hele partiet ligger i animasjonen."
    again = await (await norsk["Ola"].click(final, custom_id=final.button(
        custom_id_contains="seq:rematch:")["custom_id"])).reply()
    assert again.text.startswith("Omkamp! Samme plasser og valg")


async def test_a_hint_shows_the_move_its_reason_and_a_small_board(world: World) -> None:
    alice, bob = world["Alice"], world["Bob"]
    # beginners' level: no Dragon, which is dead (nowhere to play) while the board is empty
    await started(world, alice, bob, level="1")
    table = world.bot.manager.table_for_channel(world.guild.channel_id)
    mover, other = (alice, bob) if table.turn == 0 else (bob, alice)
    hint = await (await mover.slash("sequence hint")).reply()
    assert hint.ephemeral and hint.content.startswith("Try this: ")
    assert "\nWhy: " in hint.content
    pictures = hint.png_files()
    assert len(pictures) == 1, hint.content
    picture = pictures[0]
    assert picture.filename == "hint.png" and picture.description
    legal = world.bot.manager.observation_for(table.game_id, mover.id)["legal"]
    assert any((Action.parse(a).space or a) in hint.content for a in legal)
    refusal = await (await other.slash("sequence hint")).reply()
    assert refusal.ephemeral and refusal.content == "It's not your turn."


async def test_a_hint_in_norwegian(norsk: World) -> None:
    kari, ola = norsk["Kari"], norsk["Ola"]
    await started(norsk, kari, ola, level="1")
    table = norsk.bot.manager.table_for_channel(norsk.guild.channel_id)
    mover = kari if table.turn == 0 else ola
    hint = await (await mover.slash("sequence hint")).reply()
    assert "\nHvorfor: " in hint.content and hint.png_files()


async def test_the_rules_come_with_pictures_and_the_draw_rule(world: World) -> None:
    both = await (await world["Bob"].slash("sequence rules")).reply()
    assert both.ephemeral and len(both.embeds) == 2
    assert [f.filename for f in both.png_files()] == ["rules_kids.png", "rules_dice.png"]
    assert all(f.description for f in both.files)
    assert "full round" in both.text and "500 turns" in both.text
    assert "Beginners' levels (for parents)" in both.text
    dice = await (await world["Bob"].slash("sequence rules", game="dice")).reply()
    assert [e["title"] for e in dice.embeds] == ["How to play Sequence Dice"]


async def test_the_rules_in_norwegian(norsk: World) -> None:
    rules = await (await norsk["Ola"].slash("sequence rules", game="kids")).reply()
    assert [e["title"] for e in rules.embeds] == ["Slik spiller du Sequence for Kids"]
    assert "Nybegynnernivåer (for foreldre)" in rules.text and "uavgjort" in rules.text
    assert rules.png_files()[0].filename == "rules_kids.png"


async def test_the_server_language_setting_changes_the_channel_messages(world: World) -> None:
    mum = admin(world)
    lobby = await lobby_of(world, world["Alice"])
    assert "a new game" in lobby.text
    await (await world["Alice"].click(lobby, label="Cancel")).wait_ack()
    reply = await (await mum.slash("sequence settings", language="no")).reply()
    assert reply.content.startswith("Saved.")  # the admin still reads English
    lobby = await lobby_of(world, world["Alice"])
    assert "et nytt parti" in lobby.text and lobby.button(label="Bli med")


async def test_tidy_boards_keeps_one_board_per_game_in_the_channel(world: World) -> None:
    mum = admin(world)
    await (await mum.slash("sequence settings", tidy_boards=True)).reply()
    alice, bob = world["Alice"], world["Bob"]
    await started(world, alice, bob, level="1")
    channel = world.guild.channel_id
    every = world.discord.channel_messages[channel]
    first = newest_board(world)
    table = world.bot.manager.table_for_channel(channel)
    mover = alice if table.turn == 0 else bob
    await turn_from_dm(mover, first)
    second = await world.discord.wait_for(
        lambda: next((m for m in every if m is not first and any(
            f.filename == "board.png" for f in m.files)), None), 5, "the next board")
    await world.discord.wait_for(lambda: first.deleted, 5, "the old board tidied away")
    assert boards(world.discord, channel) == [second]


async def test_without_tidying_every_board_stays(world: World) -> None:
    alice, bob = world["Alice"], world["Bob"]
    await started(world, alice, bob, level="1")
    channel = world.guild.channel_id
    first = newest_board(world)
    table = world.bot.manager.table_for_channel(channel)
    await turn_from_dm(alice if table.turn == 0 else bob, first)
    await world.discord.wait_for(lambda: len(boards(world.discord, channel)) == 2, 5,
                                 "two boards")
    assert not first.deleted


async def test_rematch_does_not_seat_someone_who_left_again(world: World) -> None:
    alice, bob, carol = world["Alice"], world["Bob"], world["Carol"]
    await started(world, alice, bob, carol, game="dice")
    await (await carol.slash("sequence leave")).wait_ack()
    await (await bob.slash("sequence resign")).wait_ack()
    final = await world.discord.wait_for(
        lambda: next((m for m in boards(world.discord, world.guild.channel_id)
                      if any(c.startswith("seq:rematch:") for c in m.custom_ids())), None),
        10, "the final board")
    # Carol played, so she may ask for the rematch; she left, so she is not seated again
    again = await (await carol.click(final, label="Rematch")).reply()
    assert not again.ephemeral and "Same seats and options" in again.text
    seats = re.findall(r"^\d\. (.+)$", again.text, re.M)
    assert seats[:3] == ["Alice (host)", "Bob", "open"]


async def test_missing_too_many_turns_frees_the_seat_with_one_message(timed_world: World) -> None:
    world = timed_world
    alice, bob, carol = world["Alice"], world["Bob"], world["Carol"]
    lobby = await seated(world, alice, bob, carol, level="1")
    clock = world.clock
    assert clock is not None
    boss = admin(world, "Boss")
    await (await boss.slash("sequence settings", turn_timer=1, on_timeout="skip")).reply()
    await world.bot.manager.set_guild_settings(world.guild.id, absences_to_free=1)
    await start(world, lobby, alice)
    manager = world.bot.manager
    table = manager.table_for_channel(world.guild.channel_id)
    mover = table.seats[table.turn]
    before = len(world.discord.visible_messages(world.guild.channel_id))
    clock.advance(61)
    await manager.check_timers()
    freed = await world.discord.wait_for(
        lambda: [m for m in posted_since(world, before) if "seat is free" in m.content], 5,
        "the freed seat")
    assert freed[0].content.startswith(f"{mover.name}'s seat is free")
    # events reach the channel in order: once the end is announced, all before it has been
    await (await alice.slash("sequence end")).wait_ack()
    await world.discord.wait_for(
        lambda: [m for m in posted_since(world, before) if "was ended by" in m.content], 5,
        "the end")
    assert not [m for m in posted_since(world, before) if "ran out of time" in m.content]
