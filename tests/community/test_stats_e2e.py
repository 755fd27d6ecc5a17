"""/sequence stats and /sequence leaderboard through the fake Discord, in both languages,
and numbers that are the same after the bot restarts."""

from __future__ import annotations

from pathlib import Path

from tests.community.play import add_computer, lobby_of, start, won_by_resignation
from tests.e2e.conftest import World, running_bot
from tests.fakediscord import FakeDiscord


def fields(message) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return {f["name"]: f["value"] for e in message.embeds for f in e.get("fields", [])}


async def test_stats_count_games_wins_and_the_current_streak(world: World) -> None:
    alice, bob = world["Alice"], world["Bob"]
    await won_by_resignation(world, alice, bob)
    await won_by_resignation(world, alice, bob)
    await won_by_resignation(world, bob, alice)
    mine = await (await alice.slash("sequence stats")).reply()
    assert mine.ephemeral
    got = fields(mine)
    assert (got["Games"], got["Wins"], got["Win rate"]) == ("3", "2", "67%")
    assert got["Wins in a row now"] == "0" and got["Best run of wins"] == "2"
    assert got["Favourite colour"] in ("red", "blue")
    assert got["Sequence for Kids"] == "3 played · 2 won · 1 lost · 0 drawn · 67%"
    theirs = fields(await (await alice.slash("sequence stats", player=bob)).reply())
    assert (theirs["Games"], theirs["Wins"], theirs["Wins in a row now"]) == ("3", "1", "1")


async def test_someone_without_games_is_told_kindly(world: World) -> None:
    reply = await (await world["Carol"].slash("sequence stats", game="dice")).reply()
    assert reply.ephemeral and "has not finished a game" in reply.content


async def test_the_leaderboard_needs_three_games_and_keeps_computers_apart(world: World
                                                                         ) -> None:
    alice, bob, carol = world["Alice"], world["Bob"], world["Carol"]
    for _ in range(3):
        await won_by_resignation(world, alice, bob)
    await won_by_resignation(world, carol, alice)  # Carol: one game, not ranked yet
    board = await (await bob.slash("sequence leaderboard")).reply()
    assert not board.ephemeral
    people = fields(board)["People (at least 3 finished games)"]
    assert people.splitlines()[0] == "🥇 **Alice**: won 3 of 4 games (75%)"
    assert people.splitlines()[1] == "🥈 **Bob**: won 0 of 3 games (0%)"
    assert "Carol" not in people
    assert fields(board)["Computer players (never ranked with people)"] == (
        "No games against computer players yet.")
    dice = await (await bob.slash("sequence leaderboard", game="dice")).reply()
    assert "Nobody has finished 3 games yet" in dice.text


async def test_stats_stay_correct_across_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "sequence.db"
    async with FakeDiscord() as fake:
        guild = fake.add_guild("Family")
        alice, bob = fake.add_person("Alice", guild), fake.add_person("Bob", guild)
        with fake.pointed_at():
            async with running_bot(fake, guild, db) as bot:
                world = World(fake, guild, bot, {"Alice": alice, "Bob": bob})
                await won_by_resignation(world, alice, bob)
                await won_by_resignation(world, bob, alice)
                before = fields(await (await alice.slash("sequence stats")).reply())
            async with running_bot(fake, guild, db) as bot:
                world = World(fake, guild, bot, {"Alice": alice, "Bob": bob})
                after = fields(await (await alice.slash("sequence stats")).reply())
                assert after == before and after["Games"] == "2"
                await won_by_resignation(world, alice, bob)
                again = fields(await (await alice.slash("sequence stats")).reply())
                assert (again["Games"], again["Wins"], again["Wins in a row now"]) == (
                    "3", "2", "1")


async def test_stats_and_leaderboard_in_norwegian(norsk: World) -> None:
    kari, ola = norsk["Kari"], norsk["Ola"]
    await won_by_resignation(norsk, kari, ola)
    stats = await (await kari.slash("sequence stats")).reply()
    got = fields(stats)
    assert got["Partier"] == "1" and got["Seire"] == "1" and got["Andel seire"] == "100%"
    assert got["Yndlingsfarge"] in ("rød", "blå")
    board = await (await ola.slash("sequence leaderboard")).reply()
    assert "Ingen har spilt ferdig 3 partier ennå" in board.text
    assert "Datamaskinspillere" in board.text


async def test_computer_players_appear_by_level_apart_from_people(world: World) -> None:
    alice = world["Alice"]
    for level in ("easy", "hard"):
        lobby = await lobby_of(world, alice)
        await add_computer(world, lobby, alice, level)
        await start(world, lobby, alice)
        await (await alice.slash("sequence resign")).wait_ack()
        await world.discord.wait_for(
            lambda: world.bot.manager.table_for_channel(world.guild.channel_id) is None, 5,
            "the game over")
    board = await (await alice.slash("sequence leaderboard")).reply()
    got = fields(board)
    assert got["Computer players (never ranked with people)"].splitlines() == [
        "Computer (easy): won 1 of 1 games (100%)", "Computer (hard): won 1 of 1 games (100%)"]
    assert "Computer" not in got["People (at least 3 finished games)"]
    mine = fields(await (await alice.slash("sequence stats")).reply())
    assert (mine["Games"], mine["Wins"]) == ("2", "0")
