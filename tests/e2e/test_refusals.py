"""Bad input is refused with the right words, ephemerally, and the game does not change."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from engine.action import Action
from tests.e2e.conftest import World, make_world
from tests.e2e.people import boards, card_ids, latest_hand, tap_card, whose_turn
from tests.e2e.test_whole_games import join, open_lobby, start
from tests.engine.positions import simple_choice
from tests.fakediscord import FakeMessage
from tests.fakediscord.payloads import MANAGE_CHANNELS, MEMBER_PERMISSIONS


async def two_player_game(world: World) -> int:
    lobby = await open_lobby(world)
    await join(world, lobby, "Bob")
    await start(world, lobby)
    table = world.bot.manager.table_for_channel(world.guild.channel_id)
    assert table is not None
    return table.game_id


def button_copy(world: World, channel_id: int, custom_id: str) -> FakeMessage:
    """A message holding a copy of a button: a forged or replayed custom_id, clickable.

    (discord.py, like Discord, ignores a custom_id that is not on the clicked message.)
    """
    row = {"type": 1, "components": [{"type": 2, "style": 1, "label": "copy",
                                      "custom_id": custom_id}]}
    return world.discord.create_message(channel_id, {"components": [row]}, [])


def ply(world: World, game_id: int) -> int:
    return world.bot.manager.get(game_id).ply


async def refused(interaction_reply: FakeMessage, words: str) -> None:
    assert interaction_reply.ephemeral, "a refusal is for the clicker only"
    assert words in interaction_reply.content, interaction_reply.content


async def test_a_card_clicked_out_of_turn_is_refused(world: World) -> None:
    game = await two_player_game(world)
    board = boards(world.discord, world.guild.channel_id)[-1]
    waiting = world["Bob"] if whose_turn(board) == world["Alice"].id else world["Alice"]
    hand = await latest_hand(waiting)
    before = ply(world, game)
    reply = await (await waiting.click(hand, hand.custom_ids()[0])).reply()
    await refused(reply, "It's not your turn.")
    assert ply(world, game) == before


async def test_a_stranger_cannot_use_a_players_buttons(world: World) -> None:
    game = await two_player_game(world)
    fake, channel = world.discord, world.guild.channel_id
    carol = world["Carol"]
    board = boards(fake, channel)[-1]
    await refused(await (await carol.click(board, label="My hand")).reply(),
                  "You are not playing in this game.")
    # a forged move button: the custom_id of a real move, clicked by someone without a seat
    mover = world["Alice"] if whose_turn(board) == world["Alice"].id else world["Bob"]
    legal = world.bot.manager.observation_for(game, mover.id)["legal"]
    forged = button_copy(world, channel, f"seq:play:{game}:{ply(world, game)}:{legal[0]}")
    before = ply(world, game)
    reply = await (await carol.click(forged, forged.custom_ids()[0])).reply()
    await refused(reply, "That button belongs to another player.")
    assert ply(world, game) == before


async def test_a_card_not_in_hand_is_refused(world: World) -> None:
    game = await two_player_game(world)
    board = boards(world.discord, world.guild.channel_id)[-1]
    mover = world["Alice"] if whose_turn(board) == world["Alice"].id else world["Bob"]
    obs = world.bot.manager.observation_for(game, mover.id)
    missing = next(c for c in ("lion", "zebra", "whale", "moose", "panda")
                   if c not in obs["hand"])
    before = ply(world, game)
    reply = await (await mover.slash("sequence play", card=missing, space="B3")).reply()
    await refused(reply, "You do not have that card.")
    assert ply(world, game) == before


#: a two-player game dealt from this seed: after the first move (``simple_choice``), the
#: second player holds a card whose space that move took (found through the engine)
TAKEN_SPACE_SEED = 4


@pytest.fixture
async def seeded_world(tmp_path: Path) -> AsyncIterator[World]:
    async for world in make_world(tmp_path, ("Alice", "Bob"), game_seed=TAKEN_SPACE_SEED):
        yield world


async def test_a_taken_space_is_refused(seeded_world: World) -> None:
    world = seeded_world
    game = await two_player_game(world)
    fake, channel = world.discord, world.guild.channel_id
    people = {p.id: p for p in (world["Alice"], world["Bob"])}
    first = people[whose_turn(boards(fake, channel)[-1])]  # type: ignore[index]
    chosen = Action.parse(simple_choice(
        world.bot.manager.observation_for(game, first.id)["legal"]))
    card, space = chosen.what, chosen.space or ""
    played = await (await first.slash("sequence play", card=card, space=space)).reply()
    assert "Played" in played.content, played.content
    board = await fake.wait_for(lambda: boards(fake, channel)[1:], 5, "the move's board")
    mover = people[whose_turn(board[-1])]  # type: ignore[index]
    obs = world.bot.manager.observation_for(game, mover.id)
    taken = [i for i, side in enumerate(obs["board"]) if side is not None]
    names = [f"{chr(65 + i % obs['width'])}{i // obs['width'] + 1}" for i in taken]
    attempt = next((c, n) for c in obs["hand"] for i, n in zip(taken, names, strict=True)
                   if c == "unicorn" or obs["layout"][i] == c)
    before = ply(world, game)
    reply = await (await mover.slash("sequence play", card=attempt[0],
                                     space=attempt[1])).reply()
    await refused(reply, f"{attempt[1]} already has a chip.")
    assert ply(world, game) == before


async def test_only_the_host_or_a_moderator_ends_a_game(world: World) -> None:
    game = await two_player_game(world)
    fake, channel = world.discord, world.guild.channel_id
    before = ply(world, game)
    reply = await (await world["Bob"].slash("sequence end")).reply()
    await refused(reply, "Only the host")
    assert world.bot.manager.get(game).status == "playing" and ply(world, game) == before
    world["Dan"].permissions = MEMBER_PERMISSIONS | MANAGE_CHANNELS
    reply = await (await world["Dan"].slash("sequence end")).reply()
    assert reply.ephemeral and "ended" in reply.content
    await fake.wait_for(lambda: any(f"ended by {world['Dan'].mention}" in m.content
                                    for m in fake.visible_messages(channel)), 5, "the end")
    assert world.bot.manager.table_for_channel(channel) is None


async def test_a_second_click_on_an_old_move_button_does_not_move_again(world: World) -> None:
    game = await two_player_game(world)
    fake, channel = world.discord, world.guild.channel_id
    board = boards(fake, channel)[-1]
    mover = world["Alice"] if whose_turn(board) == world["Alice"].id else world["Bob"]
    hand = await latest_hand(mover)
    # a card that puts a chip on a space with a button of its own (not a dead card's
    # exchange, not a Unicorn's or Dragon's menus: which the deal gives is luck)
    for card in card_ids(hand):
        prompt = await tap_card(mover, hand, card)
        spaces = [c for c in prompt.custom_ids() if c.startswith("seq:play:") and "@" in c]
        if spaces:
            break
    else:
        raise AssertionError(f"no card of {hand!r} offers a space by button")
    await (await mover.click(prompt, spaces[0])).wait_ack()
    await fake.wait_for(lambda: "Played" in prompt.content, 5, "the prompt to say Played")
    after_first = ply(world, game)
    # the move buttons are gone: the answer is now the new hand (cards, no moves)
    assert after_first == 1 and not any(c.startswith(("seq:play:", "seq:spaces:"))
                                        for c in prompt.custom_ids())
    assert any(c.startswith("seq:card:") for c in prompt.custom_ids())
    # the same button once more (a double tap that arrived late, or a copy of it)
    copy = button_copy(world, prompt.channel_id, spaces[0])
    again = await (await mover.click(copy, spaces[0])).reply()
    await refused(again, "already played")
    assert ply(world, game) == after_first


async def test_an_unexpected_error_is_logged_and_answered_with_an_apology(
        world: World, monkeypatch, caplog) -> None:
    game = await two_player_game(world)
    board = boards(world.discord, world.guild.channel_id)[-1]
    mover = world["Alice"] if whose_turn(board) == world["Alice"].id else world["Bob"]

    async def broken(*args, **kwargs):
        raise RuntimeError("the database fell over")

    monkeypatch.setattr(world.bot.manager, "submit", broken)
    cards = await mover.autocomplete("sequence play", "card", "")
    spaces = await mover.autocomplete("sequence play", "space", "", card=cards[0]["value"])
    before = ply(world, game)
    reply = await (await mover.slash("sequence play", card=cards[0]["value"],
                                     space=spaces[0]["value"] if spaces else "A1")).reply()
    await refused(reply, "Sorry, something went wrong")
    assert ply(world, game) == before
    assert "the database fell over" in caplog.text and "/sequence play failed" in caplog.text


async def test_a_button_no_version_of_the_bot_knows_is_answered(world: World) -> None:
    old = button_copy(world, world.guild.channel_id, "seq:play")
    reply = await (await world["Alice"].click(old, "seq:play")).reply()
    await refused(reply, "That button no longer works")


async def test_only_the_host_removes_a_seat_from_the_lobby(world: World) -> None:
    fake = world.discord
    lobby = await open_lobby(world)
    await join(world, lobby, "Bob")
    await (await world["Bob"].click(lobby, label="Add computer (easy)")).wait_ack()
    await fake.wait_for(lambda: "Computer (easy)" in lobby.text, 5, "a computer seated")
    await refused(await (await world["Bob"].slash("sequence remove", seat=3)).reply(),
                  "Only the host")
    assert "Computer (easy)" in lobby.text
    reply = await (await world["Alice"].slash("sequence remove", seat=3)).reply()
    assert reply.ephemeral and "removed" in reply.content
    await fake.wait_for(lambda: "Computer (easy)" not in lobby.text, 5, "the seat gone")
