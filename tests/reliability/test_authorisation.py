"""Who may do what: only seat owners act for their seat; only the host or a moderator
(Manage Channels / Manage Server) ends a game; settings need Manage Server.

Each refusal is checked to be private to the person refused, in the bot's words, and to
leave the game exactly as it was (its row and log in the database).
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.action import Action
from tests.fakediscord import FakeMessage, Interaction, Person
from tests.fakediscord.payloads import MANAGE_CHANNELS, MANAGE_GUILD, MEMBER_PERMISSIONS

from .harness import board_messages
from .players import newest_with
from .rig import Rig
from .truth import GameTruth


def state(rig: Rig) -> tuple[Any, ...]:
    g = rig.game_in()
    return g.status, g.actions, g.seats


async def refused(interaction: Interaction, words: str) -> None:
    reply = await interaction.reply()
    assert reply.ephemeral and reply.visible_to == interaction.user_id, reply
    assert words in reply.content, reply.content


def copy_of(rig: Rig, custom_id: str, channel: int | None = None) -> FakeMessage:
    """A forged message carrying a button with this custom_id (as a modified client could)."""
    return rig.fake.create_message(channel or rig.channel, {"components": [
        {"type": 1, "components": [{"type": 2, "style": 1, "label": "x",
                                    "custom_id": custom_id}]}]}, [])


def person(rig: Rig, name: str, permissions: int = MEMBER_PERMISSIONS) -> Person:
    if name not in rig.people:
        rig.people[name] = rig.fake.add_person(name, rig.guild, permissions=permissions)
    return rig.people[name]


async def in_play(rig: Rig, game: str = "kids") -> GameTruth:
    return await rig.start(await rig.lobby(game, "Alice", "Bob"), "Alice")


def turn_and_waiting(rig: Rig) -> tuple[Person, Person]:
    g = rig.game_in()
    mover = rig.fake.people[g.user_of(g.replayed().current_seat)]  # type: ignore[index]
    other = rig["Bob"] if mover is rig["Alice"] else rig["Alice"]
    return mover, other


# ------------------------------------------------------------------ lobby
@pytest.mark.parametrize("what", ["start", "cancel"])
async def test_only_the_host_starts_or_cancels_a_lobby_by_button(rig: Rig, what: str) -> None:
    lobby = await rig.lobby("kids", "Alice", "Bob")
    before = state(rig)
    gid = rig.game_in().id
    await refused(await rig["Bob"].click(lobby, f"seq:lobby:{gid}:{what}"), "Only the host")
    assert state(rig) == before


async def test_only_the_host_starts_by_command(rig: Rig) -> None:
    await rig.lobby("kids", "Alice", "Bob")
    before = state(rig)
    await refused(await rig["Bob"].slash("sequence start"), "Only the host")
    assert state(rig) == before


async def test_someone_not_seated_cannot_add_a_computer(rig: Rig) -> None:
    lobby = await rig.lobby("kids", "Alice")
    before = state(rig)
    gid = rig.game_in().id
    await refused(await rig["Carol"].click(lobby, f"seq:lobby:{gid}:cpu-easy"),
                  "You are not in this lobby.")
    assert state(rig) == before


# ------------------------------------------------------------------ seats
async def test_a_card_button_acts_only_for_its_owner(rig: Rig) -> None:
    await in_play(rig)
    mover, other = turn_and_waiting(rig)
    hand = await rig.fake.wait_for(lambda: newest_with(mover.dms(), "seq:card:"), 5,
                                   "the mover's hand")
    card = hand.custom_ids()[0]
    before = state(rig)
    # the other player and a stranger click a copy of the mover's card button (it names the
    # mover's seat, so it is not the other player's either)
    await refused(await other.click(copy_of(rig, card), card),
                  "That button belongs to another player.")
    await refused(await rig["Carol"].click(copy_of(rig, card), card),
                  "That button belongs to another player.")
    assert state(rig) == before


async def test_a_move_button_acts_only_for_the_seat_to_move(rig: Rig) -> None:
    game = await in_play(rig)
    mover, other = turn_and_waiting(rig)
    legal = game.replayed().observation(game.replayed().current_seat)["legal"]
    custom_id = f"seq:play:{game.id}:{len(game.actions)}:{legal[0]}"
    before = state(rig)
    await refused(await other.click(copy_of(rig, custom_id), custom_id), "It's not your turn.")
    await refused(await rig["Carol"].click(copy_of(rig, custom_id), custom_id),
                  "That button belongs to another player.")
    # clicked in the mover's own DM by somebody else: still not theirs
    dm_copy = copy_of(rig, custom_id, rig.fake.dm_channel(mover.id))
    await refused(await other.click(dm_copy, custom_id), "It's not your turn.")
    assert state(rig) == before


async def test_my_hand_shows_a_hand_only_to_a_seated_player(rig: Rig) -> None:
    game = await in_play(rig)
    board = board_messages(rig.fake, rig.channel)[-1]
    await refused(await rig["Carol"].click(board, f"seq:hand:{game.id}"),
                  "You are not playing in this game.")


async def test_the_roll_button_rolls_only_for_the_seat_to_move(rig: Rig) -> None:
    game = await in_play(rig, "dice")
    _, other = turn_and_waiting(rig)
    board = board_messages(rig.fake, rig.channel)[-1]
    roll = next(c for c in board.custom_ids() if c.startswith("seq:roll:"))
    before = state(rig)
    await refused(await other.click(board, roll), "It's not your turn.")
    await refused(await rig["Carol"].click(board, roll), "That button belongs to another")
    assert state(rig) == before and game.actions == ()


async def test_play_and_resign_by_command_act_only_for_the_callers_seat(rig: Rig) -> None:
    game = await in_play(rig)
    _, other = turn_and_waiting(rig)
    legal = game.replayed().observation(game.replayed().current_seat)["legal"]
    first = Action.parse(legal[0])
    card, space = first.what, first.space or ""
    before = state(rig)
    await refused(await other.slash("sequence play", card=card, space=space or "A1"),
                  "It's not your turn.")
    await refused(await rig["Carol"].slash("sequence play", card=card, space=space or "A1"),
                  "You are not playing in this game.")
    await refused(await rig["Carol"].slash("sequence resign"), "You are not playing")
    assert state(rig) == before


# ------------------------------------------------------------------ ending
@pytest.mark.parametrize("phase", ["lobby", "playing"])
async def test_a_player_who_is_not_the_host_cannot_end(rig: Rig, phase: str) -> None:
    lobby = await rig.lobby("kids", "Alice", "Bob")
    if phase == "playing":
        await rig.start(lobby, "Alice")
    before = state(rig)
    await refused(await rig["Bob"].slash("sequence end"), "Only the host")
    await refused(await person(rig, "Eve").slash("sequence end"), "Only the host")
    assert state(rig) == before


@pytest.mark.parametrize(("who", "permissions"), [
    ("Alice", MEMBER_PERMISSIONS),  # the host
    ("Mod", MEMBER_PERMISSIONS | MANAGE_CHANNELS),
    ("Admin", MEMBER_PERMISSIONS | MANAGE_GUILD),
])
@pytest.mark.parametrize("phase", ["lobby", "playing"])
async def test_the_host_or_a_moderator_ends_a_lobby_or_a_game(
        rig: Rig, who: str, permissions: int, phase: str) -> None:
    lobby = await rig.lobby("kids", "Alice", "Bob")
    if phase == "playing":
        await rig.start(lobby, "Alice")
    reply = await (await person(rig, who, permissions).slash("sequence end")).reply()
    assert reply.ephemeral
    assert rig.game_in().status == "cancelled"


# ------------------------------------------------------------------ settings
async def test_settings_need_manage_server(rig: Rig) -> None:
    await refused(await rig["Alice"].slash("sequence settings", turn_timer=5), "Manage Server")
    mod = person(rig, "Mod", MEMBER_PERMISSIONS | MANAGE_CHANNELS)
    await refused(await mod.slash("sequence settings", turn_timer=5), "Manage Server")
    assert (await rig.bot.manager.guild_settings(rig.guild.id)).turn_timer is None
    admin = person(rig, "Admin", MEMBER_PERMISSIONS | MANAGE_GUILD)
    reply = await (await admin.slash("sequence settings", turn_timer=5)).reply()
    assert reply.ephemeral
    assert (await rig.bot.manager.guild_settings(rig.guild.id)).turn_timer == 300


# ------------------------------------------------------------------ removing a seat
async def test_the_host_removes_a_seat_and_nobody_else_in_the_seats_may(rig: Rig) -> None:
    await rig.lobby("kids", "Alice", "Bob", "Carol")
    before = state(rig)
    await refused(await rig["Bob"].slash("sequence remove", seat=3), "Only the host")
    await refused(await person(rig, "Eve").slash("sequence remove", seat=2), "Only the host")
    assert state(rig) == before
    reply = await (await rig["Alice"].slash("sequence remove", seat=3)).reply()
    assert reply.ephemeral
    assert [s.user_id for s in rig.game_in().seats] == [rig["Alice"].id, rig["Bob"].id]


async def test_a_moderator_may_remove_a_seat(rig: Rig) -> None:
    await rig.lobby("kids", "Alice", "Bob")
    mod = person(rig, "Mod", MEMBER_PERMISSIONS | MANAGE_CHANNELS)
    await (await mod.slash("sequence remove", seat=2)).reply()
    assert len(rig.game_in().seats) == 1
