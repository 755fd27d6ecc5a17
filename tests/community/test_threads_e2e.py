"""Games in a thread of their own (/sequence settings own_thread), through the fake Discord:
the thread hangs from the lobby message, every board goes there, the channel is free for
the next lobby, hears how the game ended, and a restart keeps the game in its thread."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.community.play import seated
from tests.community.test_settings_e2e import admin
from tests.e2e.conftest import World, running_bot
from tests.e2e.people import (
    begin_game,
    boards,
    final_board,
    turn_by_slash_command,
    turn_from_dm,
    whose_turn,
)
from tests.fakediscord import FakeDiscord, FakeGuild, FakeMessage, Person
from tests.fakediscord.payloads import MANAGE_GUILD, MEMBER_PERMISSIONS


async def threads_on(world: World, name: str = "Mum", locale: str = "en-US") -> None:
    boss = admin(world, name, locale)
    await (await boss.slash("sequence settings", own_thread=True)).reply()


async def started(world: World, host: Person, guest: Person) -> FakeMessage:
    """Host and guest sit down to a Kids game and start (its board goes to the thread, not
    to the channel ``play.start`` watches); the lobby message it started from."""
    lobby, _ = await begin_game(world.discord, host, guest, level="1")
    return lobby


async def the_thread(world: World) -> int:
    fake = world.discord
    return await fake.wait_for(lambda: next(iter(fake.threads), None), 5, "a thread")


async def thread_game(world: World) -> tuple[int, FakeMessage]:
    """Threads on; Alice and Bob start a Kids game: its thread, and the first board there."""
    await threads_on(world)
    await started(world, world["Alice"], world["Bob"])
    thread = await the_thread(world)
    boards_there = await world.discord.wait_for(lambda: boards(world.discord, thread), 5,
                                                "the first board")
    return thread, boards_there[0]


async def resigned_in_thread(world: World, thread: int) -> FakeMessage:
    """Bob resigns, typing in the thread: the final board there."""
    await (await world["Bob"].slash("sequence resign", channel=thread)).wait_ack()
    return await world.discord.wait_for(lambda: final_board(world.discord, thread), 5,
                                        "the final board")


async def test_a_game_moves_into_a_thread_on_its_lobby_message(world: World) -> None:
    await threads_on(world)
    alice, bob = world["Alice"], world["Bob"]
    fake, channel = world.discord, world.guild.channel_id
    lobby = await started(world, alice, bob)
    thread = await the_thread(world)
    # Discord gives a thread opened on a message that message's id
    assert thread == lobby.id and fake.threads[thread] == channel
    assert fake.channels[thread]["name"] == "Sequence for Kids #1"
    first = (await fake.wait_for(lambda: boards(fake, thread), 5, "the board in the thread"))[0]
    assert "starts!" in first.content
    assert boards(fake, channel) == []  # nothing of the game in the channel itself
    table = world.bot.manager.get(1)
    assert table.channel_id == thread
    assert world.bot.manager.table_for_channel(thread) == table
    assert world.bot.manager.table_for_channel(channel) is None
    mover = alice if whose_turn(first) == alice.id else bob
    await turn_from_dm(mover, first)
    await fake.wait_for(lambda: len(boards(fake, thread)) == 2, 5, "the next board")
    assert boards(fake, channel) == []


async def test_a_double_click_on_start_opens_one_thread_and_starts_one_game(
        world: World) -> None:
    await threads_on(world)
    alice, bob = world["Alice"], world["Bob"]
    fake, channel = world.discord, world.guild.channel_id
    lobby = await seated(world, alice, bob, level="1")
    start = next(b["custom_id"] for b in lobby.buttons() if b["custom_id"].endswith(":start"))
    clicks = await asyncio.gather(alice.click(lobby, start), alice.click(lobby, start))
    thread = await the_thread(world)
    await fake.wait_for(lambda: boards(fake, thread), 5, "the first board in the thread")
    assert list(fake.threads) == [thread], "one thread; a second one opened is gone again"
    assert boards(fake, channel) == [] and len(boards(fake, thread)) == 1
    said = [m.content for m in fake.visible_messages(channel)]
    assert not any("thread" in m.lower() for m in said), said
    refused = await fake.wait_for(lambda: [f for c in clicks for f in c.followups], 5,
                                  "the second click's answer")
    assert [(f.ephemeral, f.content) for f in refused] == [
        (True, "The game has already started.")]


async def test_slash_commands_in_the_thread_play_the_game(world: World) -> None:
    alice, bob = world["Alice"], world["Bob"]
    fake = world.discord
    thread, first = await thread_game(world)
    mover = alice if whose_turn(first) == alice.id else bob
    await turn_by_slash_command(mover, first)  # typed in the thread, where the board is
    await fake.wait_for(lambda: len(boards(fake, thread)) == 2, 5, "the next board")
    board = await (await mover.slash("sequence board", channel=thread)).reply()
    assert board.png_files()


async def test_the_channel_is_free_for_another_lobby_meanwhile(world: World) -> None:
    await threads_on(world)
    alice, bob, carol = world["Alice"], world["Bob"], world["Carol"]
    await started(world, alice, bob)
    await the_thread(world)
    other = await (await carol.slash("sequence new", game="dice")).reply()
    assert not other.ephemeral and any(c.endswith(":join") for c in other.custom_ids())


async def test_the_end_of_a_thread_game_is_told_in_the_channel(world: World) -> None:
    fake, channel = world.discord, world.guild.channel_id
    thread, _ = await thread_game(world)
    final = await resigned_in_thread(world, thread)
    assert "Alice won" in final.content
    told = await fake.wait_for(
        lambda: [m for m in fake.visible_messages(channel) if f"<#{thread}>" in m.content],
        5, "the result in the channel")
    assert told[0].content == f"🏆 Alice won: everyone else resigned. (<#{thread}>)"
    assert not told[0].files and final_board(fake, channel) is None


async def test_a_game_in_a_thread_people_opened_is_not_announced_in_the_channel(
        world: World) -> None:
    """Only threads the bot opened for a game send their result to the channel: a family
    that plays in a thread of its own keeps the channel quiet."""
    await threads_on(world)
    alice, bob = world["Alice"], world["Bob"]
    fake, channel = world.discord, world.guild.channel_id
    theirs = fake.add_thread(channel, "Saturday games", alice.id)
    await fake.wait_for(lambda: world.bot.get_channel(theirs), 5, "the thread known to the bot")
    lobby = await (await alice.slash("sequence new", game="kids", level="1",
                                     channel=theirs)).reply()
    await (await bob.click(lobby, label="Join")).wait_ack()
    await fake.wait_for(lambda: "Bob" in lobby.text, 5, "Bob seated")
    await (await alice.click(lobby, label="Start")).wait_ack()
    await fake.wait_for(lambda: boards(fake, theirs), 5, "the first board, in their thread")
    assert list(fake.threads) == [theirs]  # no thread inside their thread
    final = await resigned_in_thread(world, theirs)
    assert "Alice won" in final.content
    # the replay joins the final board after any line to the channel would have gone out
    await fake.wait_for(lambda: next((f for f in final.files if f.filename == "replay.gif"),
                                     None), 10, "the replay")
    assert [m.content for m in fake.visible_messages(channel) if f"<#{theirs}>" in m.content
            ] == []


async def test_a_rematch_in_the_thread_stays_in_that_thread(world: World) -> None:
    alice, bob = world["Alice"], world["Bob"]
    fake = world.discord
    thread, _ = await thread_game(world)
    final = await resigned_in_thread(world, thread)
    again = await (await alice.click(final, label="Rematch")).reply()
    assert again.channel_id == thread
    await (await bob.click(again, label="Join")).wait_ack()
    await fake.wait_for(lambda: "Bob" in again.text, 5, "Bob seated again")
    await (await alice.click(again, label="Start")).wait_ack()
    await fake.wait_for(lambda: world.bot.manager.is_active(2)
                        and world.bot.manager.get(2).status == "playing", 5, "game 2")
    assert list(fake.threads) == [thread]  # no thread inside the thread
    assert world.bot.manager.get(2).channel_id == thread
    await fake.wait_for(lambda: [b for b in boards(fake, thread) if "starts!" in b.content
                                 and b.id != boards(fake, thread)[0].id], 5, "game 2's board")


async def test_without_the_permission_the_game_is_played_in_the_channel(world: World
                                                                        ) -> None:
    await threads_on(world)
    alice, bob = world["Alice"], world["Bob"]
    fake, channel = world.discord, world.guild.channel_id
    fake.faults.http.append(_forbidden(r"/threads$"))
    await started(world, alice, bob)
    first = await fake.wait_for(lambda: boards(fake, channel), 5, "the board in the channel")
    assert fake.threads == {}
    told = [m.content for m in fake.visible_messages(channel) if "thread" in m.content]
    assert told == ["I could not open a thread for this game (I need the Create Public "
                    "Threads permission here), so it is played in this channel."]
    assert world.bot.manager.get(1).channel_id == channel
    mover = alice if whose_turn(first[0]) == alice.id else bob
    await turn_from_dm(mover, first[0])
    await fake.wait_for(lambda: len(boards(fake, channel)) == 2, 5, "the next board")


async def test_threads_speak_norwegian(norsk: World) -> None:
    await threads_on(norsk, "Mor", "no")
    kari, ola = norsk["Kari"], norsk["Ola"]
    fake, channel = norsk.discord, norsk.guild.channel_id
    fake.faults.http.append(_forbidden(r"/threads$"))
    await started(norsk, kari, ola)
    await fake.wait_for(lambda: boards(fake, channel), 5, "the board in the channel")
    assert any(m.content.startswith("Jeg fikk ikke åpnet en tråd")
               for m in fake.visible_messages(channel))


@dataclass
class BeforeRestart:
    """A Kids game that Alice and Bob started in a thread, and a bot that has since gone."""
    fake: FakeDiscord
    guild: FakeGuild
    db: Path
    alice: Person
    bob: Person
    boss: Person
    thread: int
    first_boards: list[FakeMessage]


@asynccontextmanager
async def a_thread_game_then_the_bot_gone(tmp_path: Path) -> AsyncIterator[BeforeRestart]:
    """Threads on, a game started in its thread, the bot stopped; start it again inside."""
    db = tmp_path / "sequence.db"
    async with FakeDiscord() as fake:
        guild = fake.add_guild("Family")
        alice, bob = fake.add_person("Alice"), fake.add_person("Bob")
        boss = fake.add_person("Mum", permissions=MEMBER_PERMISSIONS | MANAGE_GUILD)
        with fake.pointed_at():
            async with running_bot(fake, guild, db) as bot:
                world = World(fake, guild, bot, {"Alice": alice, "Bob": bob})
                await (await boss.slash("sequence settings", own_thread=True)).reply()
                await started(world, alice, bob)
                thread = await the_thread(world)
                first = await fake.wait_for(lambda: boards(fake, thread), 5, "the board")
            yield BeforeRestart(fake, guild, db, alice, bob, boss, thread, first)


async def test_a_restart_keeps_the_game_in_its_thread(tmp_path: Path) -> None:
    async with a_thread_game_then_the_bot_gone(tmp_path) as before:
        fake, thread, channel = before.fake, before.thread, before.guild.channel_id
        alice, bob = before.alice, before.bob
        before.first_boards[-1].deleted = True  # as if the crash kept it from Discord
        async with running_bot(fake, before.guild, before.db) as bot:
            assert bot.manager.get(1).channel_id == thread
            shown = await fake.wait_for(
                lambda: [b for b in boards(fake, thread) if "restarted" in b.content], 5,
                "the board shown again, in the thread")
            assert boards(fake, channel) == []
            mover = alice if whose_turn(shown[0]) == alice.id else bob
            await turn_from_dm(mover, shown[0])
            await fake.wait_for(lambda: len(boards(fake, thread)) == 2, 5, "a move after")
            assert list(fake.threads) == [thread]


def _forbidden(path: str):  # type: ignore[no-untyped-def]
    from tests.fakediscord.faults import HttpFault

    return HttpFault(403, 10, "POST", path)


async def test_after_a_restart_and_threads_turned_off_the_channel_still_hears_the_end(
        tmp_path: Path) -> None:
    """The game went on in its thread across a restart, and meanwhile the server turned its
    own-thread setting off: the channel the thread hangs from still hears how it ended."""
    async with a_thread_game_then_the_bot_gone(tmp_path) as before:
        fake, thread, channel = before.fake, before.thread, before.guild.channel_id
        async with running_bot(fake, before.guild, before.db) as bot:
            await (await before.boss.slash("sequence settings", own_thread=False)).reply()
            world = World(fake, before.guild, bot, {"Alice": before.alice, "Bob": before.bob})
            final = await resigned_in_thread(world, thread)
            assert "Alice won" in final.content
            told = await fake.wait_for(
                lambda: [m for m in fake.visible_messages(channel)
                         if f"<#{thread}>" in m.content], 5, "the result in the channel")
            assert told[0].content == (
                f"🏆 Alice won: everyone else resigned. (<#{thread}>)")
        assert fake.unhandled == [], fake.unhandled
