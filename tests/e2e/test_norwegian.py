"""Norwegian Bokmål: command names and descriptions, replies and channel messages."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.e2e.conftest import World, make_world
from tests.e2e.people import boards, latest_hand


@pytest.fixture
async def norsk(tmp_path: Path) -> AsyncIterator[World]:
    async for w in make_world(tmp_path, ("Kari", "Ola"), locale="no", guild_locale="no"):
        yield w


def command_options(world: World) -> dict[str, dict]:
    (sequence,) = [c for c in world.discord.commands[world.guild.id] if c["name"] == "sequence"]
    return {o["name"]: o for o in sequence["options"]}


async def test_commands_are_registered_with_norwegian_names_and_descriptions(norsk: World
                                                                             ) -> None:
    (sequence,) = [c for c in norsk.discord.commands[norsk.guild.id] if c["name"] == "sequence"]
    assert sequence["description_localizations"]["no"] == (
        "Spill Sequence for Kids eller Sequence Dice")
    subs = command_options(norsk)
    assert subs["new"]["name_localizations"]["no"] == "ny"
    assert subs["hand"]["description_localizations"]["no"] == "Se kortene dine, bare for deg"
    game = next(o for o in subs["new"]["options"] if o["name"] == "game")
    assert game["name_localizations"]["no"] == "spill"


async def test_the_lobby_replies_and_refusals_are_in_norwegian(norsk: World) -> None:
    fake, channel = norsk.discord, norsk.guild.channel_id
    kari, ola = norsk["Kari"], norsk["Ola"]
    lobby = await (await kari.slash("sequence new", game="kids")).reply()
    assert "et nytt parti" in lobby.text and lobby.button(label="Bli med")
    refusal = await (await ola.click(lobby, label="Start")).reply()
    assert refusal.ephemeral and "Bare verten" in refusal.content
    await (await ola.click(lobby, label="Bli med")).wait_ack()
    await fake.wait_for(lambda: "Ola" in lobby.text, 5, "Ola seated")
    await (await kari.click(lobby, label="Start")).wait_ack()
    board = await fake.wait_for(lambda: boards(fake, channel), 5, "the board")
    assert "starter!" in board[0].content and "Det er din tur" in board[0].content
    assert board[0].button(label="Mine kort")
    hand = await latest_hand(kari)
    assert "Kortene dine" in hand.content
    rules = await (await ola.slash("sequence rules")).reply()
    assert "sjetong" in rules.text
