"""Launching the Activity: "Play on the board" (LAUNCH_ACTIVITY), the entry point command
kept through the command sync, and a channel with no table."""

from __future__ import annotations

from pathlib import Path

import discord
import pytest
from discord import app_commands

from tests.activity.conftest import Table
from tests.e2e.conftest import running_bot
from tests.e2e.people import begin_game, boards
from tests.fakediscord import FakeDiscord


def launch_buttons(message: object) -> list[str]:
    return [c for c in message.custom_ids() if c.startswith("seq:launch:")]  # type: ignore[attr-defined]


async def test_play_on_the_board_opens_the_activity_in_the_channel(table: Table) -> None:
    _, first = await begin_game(table.discord, table["Alice"], table["Bob"])
    assert launch_buttons(first), "the board carries Play on the board"
    click = await table["Bob"].click(first, launch_buttons(first)[0])
    assert click.callback_type == 12  # LAUNCH_ACTIVITY
    launch = table.discord.activities.launches[-1]
    assert (launch.user_id, launch.channel_id) == (table["Bob"].id, first.channel_id)
    assert table["Bob"].id in launch.instance.users
    # the page opened by it sits at that table
    bob = await table.page("Bob")
    assert bob.instance == launch.instance.id
    frame = await bob.table_where(lambda t: t["status"] == "playing", "Bob's game")
    assert frame["me"]["seat"] == 1


async def test_the_lobby_carries_play_on_the_board(table: Table) -> None:
    lobby = await (await table["Alice"].slash("sequence new", game="kids")).reply()
    assert launch_buttons(lobby)


async def test_without_the_activity_no_button_mentions_it(tmp_path: Path) -> None:
    async with FakeDiscord(activities=True) as fake:
        guild = fake.add_guild("Family")
        alice, bob = fake.add_person("Alice", guild), fake.add_person("Bob", guild)
        with fake.pointed_at():
            async with running_bot(fake, guild, tmp_path / "sequence.db") as bot:
                assert bot.activity_app is None
                lobby, first = await begin_game(fake, alice, bob)
                assert not launch_buttons(lobby) and not launch_buttons(first)


async def test_launch_activity_follows_discords_rules(table: Table) -> None:
    """The fake holds the bot to Discord's rules for callback 12: a command or a component
    only, and only for an application with Activities on."""
    _, first = await begin_game(table.discord, table["Alice"], table["Bob"])
    table.discord.activities.enabled = False
    click = await table["Bob"].click(first, launch_buttons(first)[0])
    assert click.callback_type is None or click.callback_type != 12
    assert table.discord.activities.launches == []


async def test_the_command_sync_keeps_the_entry_point(tmp_path: Path) -> None:
    async with FakeDiscord(activities=True) as fake:
        guild = fake.add_guild("Family")
        entry = fake.activities.entry_point()
        assert entry is not None
        with fake.pointed_at():
            async with running_bot(fake, guild, tmp_path / "sequence.db", activity=True,
                                   dev_guild=False) as bot:
                await fake.wait_for(lambda: any(c["name"] == "sequence"
                                                for c in fake.commands.get(None, [])),
                                    5, "the global sync")
                kept = fake.activities.entry_point()
                assert kept is not None and kept["id"] == entry["id"]
                assert kept["handler"] == entry["handler"]
                # discord.py's own sync leaves it out, and Discord refuses that
                with pytest.raises(discord.HTTPException) as refused:
                    await app_commands.CommandTree.sync(bot.tree)
                assert refused.value.code == 50240


async def test_a_page_in_a_channel_without_a_table_opens_one(table: Table) -> None:
    alice = await table.page("Alice")
    await alice.wait_for(lambda: [f for f in alice.frames if f["t"] == "none"],
                         "the offer to open a table")
    await alice.send({"t": "open", "game": "kids", "computers": 1})
    frame = await alice.my_turn()
    assert [s["kind"] for s in frame["seats"]] == ["person", "computer"]
    # the chat sees it as a game like any other: its lobby, started, and its board
    channel = table.guild.channel_id
    await table.discord.wait_for(lambda: boards(table.discord, channel), 5, "the board")
    # opening another where one is: refused as /sequence new is
    await alice.send({"t": "open", "game": "dice", "computers": 2})
    refused = await alice.wait_for(lambda: alice.refusals(), "the refusal")
    assert refused[0]["code"] == "channel_busy"


async def test_a_page_sits_down_in_a_lobby_and_its_host_starts(table: Table) -> None:
    await (await table["Alice"].slash("sequence new", game="dice")).reply()
    alice, bob = await table.page("Alice"), await table.page("Bob")
    frame = await bob.table_where(lambda t: t["status"] == "lobby", "the lobby")
    assert frame["lobby"]["join"] and not frame["lobby"]["start"]
    await bob.send({"t": "join"})
    await alice.table_where(lambda t: t["lobby"] and t["lobby"]["start"], "two seats")
    await alice.send({"t": "start"})
    frame = await alice.table_where(lambda t: t["status"] == "playing", "the game")
    first = alice if frame["seats"][frame["turn"]]["you"] else bob
    turn = await first.my_turn()
    assert turn["me"]["legal"] == ["roll"] and turn["game"] == "dice"
