"""A hand that cannot be true says so (issue 25): a tap on the hand message of a game that
is over, or of an older game in the same DM, turns it into the final board and words
saying what to do, and acts on no game; a tap on a hand message that is out of date (one
left from before hands were kept) turns it into the hand as it is."""

from __future__ import annotations

from typing import Any

from tests.community.play import lobby_of, seat, start
from tests.e2e.conftest import World
from tests.e2e.people import (
    boards,
    card_ids,
    cards_shown,
    choose_first,
    final_board,
    kept_hand,
    shows_choices,
    tap_card,
)
from tests.fakediscord import FakeMessage, Person

from .test_hand_edited_when_it_changes import a_game, mover_of, true_cards


def plays(world: World) -> dict[int, int]:
    """Every game in play and how many moves it has."""
    assert world.bot.manager is not None
    return {t.game_id: t.ply for t in world.bot.manager.tables()}


async def resigned(world: World, person: Person, channel: int) -> FakeMessage:
    """``person`` resigns the two-person game in ``channel``: its final board."""
    fake = world.discord
    await (await person.slash("sequence resign", channel=channel)).wait_ack()
    return await fake.wait_for(lambda: final_board(fake, channel), 5, "the final board")


def over_note(message: FakeMessage) -> None:
    """What a hand message of a finished game turns into: how it ended, what to do."""
    assert message.content.startswith("**This game is over.** The picture shows how it ended.")
    assert "press 🔁 Rematch under the final board in #" in message.content
    assert [f.filename for f in message.files] == ["board.png"]
    assert message.files[0].description  # the final board, with its alt text
    assert message.custom_ids() == [], "nothing on it can act on a game any more"


async def test_a_tap_on_the_hand_of_a_finished_game_shows_how_it_ended_and_what_to_do(
        world: World) -> None:
    alice, bob = world["Alice"], world["Bob"]
    _, game_id, _, _ = await a_game(world)
    hand = await world.discord.wait_for(lambda: kept_hand(alice, game_id, 0), 5, "hand")
    await resigned(world, bob, world.guild.channel_id)
    tap = await alice.click(hand, card_ids(hand)[0])
    answer = await tap.reply()
    assert tap.callback_type == 7 and answer is hand, "the hand message itself changes"
    over_note(hand)
    assert "#general on Family" in hand.content
    assert plays(world) == {}, "no game was touched"


async def test_in_norwegian_the_hand_of_a_finished_game_says_so(norsk_family: World) -> None:
    world = norsk_family
    mum, dad = world["Mum"], world["Dad"]
    lobby = await lobby_of(world, mum)
    await seat(world, lobby, dad)
    await start(world, lobby, mum)
    _, game_id, _ = await mover_of(world)
    hand = await world.discord.wait_for(lambda: kept_hand(dad, game_id, 1), 5, "hand")
    await resigned(world, mum, world.guild.channel_id)
    await (await dad.click(hand, card_ids(hand)[0])).reply()
    assert hand.content.startswith("**Dette partiet er over.** Bildet viser hvordan det endte.")
    assert "trykker dere 🔁 Spill igjen under det siste brettet i #general på Family" in (
        hand.content)
    assert [f.filename for f in hand.files] == ["board.png"] and hand.custom_ids() == []


async def test_a_tap_on_an_older_games_hand_names_the_game_being_played_now(
        two_tables: World) -> None:
    world = two_tables
    fake = world.discord
    alice, bob = world["Alice"], world["Bob"]
    general, garden = world.guild.channel_ids
    games = []
    for channel in (general, garden):
        lobby = await (await alice.slash("sequence new", game="kids", channel=channel)).reply()
        await (await bob.click(lobby, label="Join")).wait_ack()
        await fake.wait_for(lambda lobby=lobby: "Bob" in lobby.text, 5, "Bob seated")
        await (await alice.click(lobby, label="Start")).wait_ack()
        first = await fake.wait_for(lambda c=channel: boards(fake, c), 5, "the first board")
        games.append(int(first[0].custom_ids()[0].rsplit(":", 1)[1]))
    older = await fake.wait_for(lambda: kept_hand(alice, games[0], 0), 5, "the first hand")
    newer = await fake.wait_for(lambda: kept_hand(alice, games[1], 0), 5, "the second hand")
    assert older is not newer
    await resigned(world, bob, general)
    moves = plays(world)
    await (await alice.click(older, card_ids(older)[0])).reply()
    over_note(older)
    assert ("The cards for the game now being played in #garden on Family are in another "
            "message here") in older.content
    assert plays(world) == moves and list(moves) == [games[1]], "the newer game untouched"
    assert card_ids(newer), "the newer game's hand is still there to play from"


def forged_hand(world: World, person: Person, buttons: list[dict[str, Any]]) -> FakeMessage:
    """A hand message in the person's DMs as the bot sent them before hands were kept in
    one message (an older DM left in the conversation)."""
    fake = world.discord
    return fake.create_message(fake.dm_channel_of[person.id], {
        "content": "Your hand", "components": [{"type": 1, "components": buttons}]}, [])


def button(custom_id: str) -> dict[str, Any]:
    return {"type": 2, "style": 1, "label": "x", "custom_id": custom_id}


async def test_a_tap_on_a_card_no_longer_held_makes_that_hand_message_true(
        world: World) -> None:
    person, game_id, seat_, _ = await a_game(world)
    assert world.bot.manager is not None
    held = world.bot.manager.seat_observation(game_id, seat_)["hand"]
    gone = next(c for c in ("lion", "zebra", "shark", "moose", "tiger", "whale")
                if c not in held)
    old = forged_hand(world, person, [button(f"seq:card:{game_id}:{seat_}:{gone}")])
    tap = await person.click(old, f"seq:card:{game_id}:{seat_}:{gone}")
    assert await tap.reply() is old and tap.callback_type == 7
    assert old.content.startswith("That hand was out of date: here are the cards now.")
    assert cards_shown(old) == true_cards(world, game_id, seat_) and card_ids(old)
    # it is the seat's hand message from now on: the one that is kept true
    assert kept_hand(person, game_id, seat_) is old
    assert world.bot.manager.get(game_id).ply == 0, "nothing was played"


async def test_numbers_of_a_turn_gone_by_show_the_hand_again_and_say_why(
        world: World) -> None:
    person, game_id, seat_, _ = await a_game(world)
    assert world.bot.manager is not None
    legal = world.bot.manager.seat_observation(game_id, seat_)["legal"]
    stale = f"seq:play:{game_id}:7:{legal[0]}"  # a choice from a later ply that never was
    old = forged_hand(world, person, [button(stale), button(f"seq:back:{game_id}:{seat_}")])
    tap = await person.click(old, stale)
    said = await tap.reply()
    assert said.ephemeral and said.content.startswith("That move was already played")
    await world.discord.wait_for(lambda: card_ids(old), 5, "the hand shown again")
    assert old.content.startswith("That hand was out of date: here are the cards now.")
    assert cards_shown(old) == true_cards(world, game_id, seat_)
    assert world.bot.manager.get(game_id).ply == 0, "nothing was played"


async def test_a_number_tapped_as_the_game_is_ended_shows_the_end_not_the_numbers(
        world: World) -> None:
    """The mover taps a card, then a number; their move's board is slow at Discord, and the
    host ends the game meanwhile. The hand of that move is never to be shown (the game is
    over by the time its turn to be told comes), so the tapped message, still showing the
    card's numbers, is answered with the end."""
    fake = world.discord
    person, _, _, hand = await a_game(world)
    host = world["Alice"]
    prompt = await tap_card(person, hand, card_ids(hand)[0])
    assert prompt is hand and shows_choices(hand)
    held = fake.faults.slow(30.0, method="POST", path=rf"^/channels/{world.guild.channel_id}"
                            r"/messages$", body=lambda b: isinstance(b, dict)
                            and str(b.get("content", "")).startswith(person.name))
    await (await choose_first(person, hand)).wait_ack()
    await fake.wait_for(lambda: held.holding, 5, "the move's board at a slow Discord")
    ended = await (await host.slash("sequence end")).reply()
    assert ended.content == "The game was ended."  # (committed, while the board waits)
    held.release()
    await fake.wait_for(lambda: not shows_choices(hand), 10, "the tapped message answered")
    assert hand.content.startswith("Played: ") and "**This game is over.**" in hand.content
    assert hand.custom_ids() == [], "nothing on it can act on a game any more"
