"""A six-year-old plays without reading, and a family's first game has no rough edges
(issue 16), through the fake Discord in English and Norwegian: every choice is a picture
with numbers first, and the defects a family met in its first games stay fixed."""

from __future__ import annotations

import io
import re

from PIL import Image

from render.emoji import CARD_EMOJI, KEYCAPS
from tests.community.play import add_computer, lobby_of, seat, start, started
from tests.e2e.conftest import World
from tests.e2e.people import boards, choose_first, final_board, latest_hand, tap_card
from tests.fakediscord import FakeMessage, Person

CARD_ID = re.compile(r"seq:card:\d+:(?:\d:)?(?P<card>[a-z]+)")


def emoji_of(component: dict) -> str | None:  # type: ignore[type-arg]
    emoji = component.get("emoji") or {}
    return emoji.get("name")


async def mover_and_hand(world: World) -> tuple[Person, FakeMessage]:
    """Whose turn it is, and their hand by DM."""
    table = world.bot.manager.table_for_channel(world.guild.channel_id)
    assert table is not None and table.turn is not None
    user = table.seats[table.turn].user_id
    person = next(p for p in world.people.values() if p.id == user)
    return person, await latest_hand(person)


async def choices_for_a_card(person: Person, hand: FakeMessage, *, buttons: bool = False
                             ) -> tuple[str, FakeMessage]:
    """Click cards until one offers spaces (a card, not an exchange): the card and the
    reply with the choices (``buttons``: only as buttons, not in select menus)."""
    for button in hand.buttons():
        card = CARD_ID.fullmatch(button["custom_id"])
        if card is None:
            continue
        reply = await tap_card(person, hand, button["custom_id"])
        if any(b["custom_id"].startswith("seq:play:") and "@" in b["custom_id"]
               for b in reply.buttons()) or (reply.selects() and not buttons):
            return card["card"], reply
    raise AssertionError(f"no card of {person.name} offers a space")


def numbers_on(reply: FakeMessage) -> list[tuple[str, str]]:
    """(number, space) for each move button, in order: the keycap emoji and the label."""
    out = []
    for b in reply.buttons():
        if "@" not in b["custom_id"]:
            continue
        keycap = emoji_of(b)
        assert keycap in KEYCAPS, f"a space button without its number: {b}"
        out.append((keycap[0] if keycap != KEYCAPS[10] else "10", b["label"]))
    return out


# -- 1. every choice is a picture first ----------------------------------------------------


async def test_card_buttons_carry_the_animals_emoji(world: World) -> None:
    await started(world, world["Alice"], world["Bob"])
    _, hand = await mover_and_hand(world)
    cards = [(CARD_ID.fullmatch(b["custom_id"]), b) for b in hand.buttons()]
    assert cards and all(m is not None for m, _ in cards)
    for match, button in cards:
        assert match is not None
        assert emoji_of(button) == CARD_EMOJI[match["card"]], button


async def test_a_card_answers_with_a_numbered_picture_and_the_same_numbers_on_buttons(
        world: World) -> None:
    await started(world, world["Alice"], world["Bob"])
    person, hand = await mover_and_hand(world)
    card, reply = await choices_for_a_card(person, hand, buttons=True)
    picture = next(f for f in reply.files if f.filename == "choices.png")
    assert Image.open(io.BytesIO(picture.data)).width <= 400  # a phone's width
    pairs = numbers_on(reply)
    assert pairs, reply
    # the picture's alt text says what each number is, the buttons carry the same ones
    assert picture.description == "Board with the possible spaces numbered: " + ", ".join(
        f"{n} = {space}" for n, space in pairs)
    assert [n for n, _ in pairs] == [str(i) for i in range(1, len(pairs) + 1)]
    assert "Tap the number you see on the picture." in reply.content
    assert reply.content.startswith(f"Where does the {card.capitalize()} go?") or \
        card in ("unicorn", "dragon")


async def test_a_child_moves_in_two_clicks_from_the_hand(world: World) -> None:
    await started(world, world["Alice"], world["Bob"])
    person, hand = await mover_and_hand(world)
    table = world.bot.manager.table_for_channel(world.guild.channel_id)
    assert table is not None
    _, reply = await choices_for_a_card(person, hand)  # click 1: the animal
    if reply.selects():  # a Unicorn on an empty board: more than buttons can hold
        menu = reply.selects()[0]
        option = menu["options"][1]
        assert option["label"].startswith("2 · ") and option["emoji"]["name"] == KEYCAPS[2]
        await (await person.select(reply, menu["custom_id"], [option["value"]])).wait_ack()
    else:
        two = next(b for b in reply.buttons() if emoji_of(b) == KEYCAPS[2])
        await (await person.click(reply, two["custom_id"])).wait_ack()  # click 2: the number
    await world.discord.wait_for(lambda: reply.content.startswith("Played:"), 5, "played")
    # the choice picture goes once the move is made: the answer becomes the new hand
    assert [f.filename for f in reply.files] == ["hand.png"]
    assert world.bot.manager.get(table.game_id).ply > table.ply


async def test_in_norwegian_the_question_names_the_animal_in_its_definite_form(
        norsk: World) -> None:
    await started(norsk, norsk["Kari"], norsk["Ola"])
    person, hand = await mover_and_hand(norsk)
    card, reply = await choices_for_a_card(person, hand)
    picture = next(f for f in reply.files if f.filename == "choices.png")
    assert picture.description.startswith("Brett med de mulige feltene nummerert: 1 = ")
    assert "Trykk på tallet du ser på bildet." in reply.content
    if card not in ("unicorn", "dragon"):
        definite = {"moose": "elgen", "lion": "løven", "ostrich": "strutsen",
                    "hippo": "flodhesten"}.get(card)
        if definite:
            assert reply.content.startswith(f"Hvor skal {definite} ligge?")
        assert re.match(r"Hvor skal [a-zæøå]+ ligge\?", reply.content), reply.content


async def test_a_dice_roll_answers_with_the_numbered_picture(world: World) -> None:
    alice, bob = world["Alice"], world["Bob"]
    await started(world, alice, bob, game="dice")
    table = world.bot.manager.table_for_channel(world.guild.channel_id)
    assert table is not None and table.turn is not None
    roller = alice if table.seats[table.turn].user_id == alice.id else bob
    board = boards(world.discord, world.guild.channel_id)[-1]
    reply = await (await roller.click(board, label="Roll")).reply()
    if "@" not in " ".join(reply.custom_ids()):
        return  # no space for this roll: the turn passed (nothing to choose)
    picture = next(f for f in reply.files if f.filename == "choices.png")
    assert re.match(r"Board with the (possible spaces|chips that can be removed) numbered: 1 = ",
                    picture.description)


async def test_autocomplete_and_hint_use_the_same_numbers(world: World) -> None:
    await started(world, world["Alice"], world["Bob"])
    person, _ = await mover_and_hand(world)
    choices = await person.autocomplete("sequence play", "space", "")
    assert choices and all(re.fullmatch(r".+ - space \d+ \([A-F][1-7]\)", c["name"])
                           for c in choices), choices
    hint = await (await person.slash("sequence hint")).reply()
    assert re.search(r"play .+ on \d+ \([A-F][1-7]\)|exchange the dead", hint.content), hint


# -- 2. the defects a family meets ----------------------------------------------------------


async def resigned(w: World, host: str, guest: str, said: str) -> None:
    await started(w, w[host], w[guest])
    await (await w[guest].slash("sequence resign")).wait_ack()
    final = await w.discord.wait_for(lambda: final_board(w.discord, w.guild.channel_id), 5,
                                     "the final board")
    channel = w.discord.visible_messages(w.guild.channel_id)
    assert not any("resign:" in m.content or "computer:" in m.content
                   or re.search(r"\bskip\b", m.content) for m in channel), channel
    told = next(i for i, m in enumerate(channel) if m.content == said)
    assert told < channel.index(final), "the resignation is told before the end"


async def test_a_resignation_is_told_in_words_before_the_end(world: World) -> None:
    await resigned(world, "Alice", "Bob", "Bob resigned.")


async def test_a_resignation_is_told_in_norwegian_words_before_the_end(norsk: World) -> None:
    await resigned(norsk, "Kari", "Ola", "Ola ga opp.")


async def test_the_hand_in_the_dms_never_says_something_untrue(world: World) -> None:
    alice, bob = world["Alice"], world["Bob"]
    await started(world, alice, bob)
    person, hand = await mover_and_hand(world)
    _, reply = await choices_for_a_card(person, hand)
    await (await choose_first(person, reply)).wait_ack()
    await world.bot.manager.settle()
    for who in (alice, bob):
        for dm in who.dms():
            if any(c.startswith("seq:card:") for c in dm.custom_ids()):  # a hand
                assert "your turn: pick" not in dm.content.lower(), dm.content
                assert "On your turn, tap a card" in dm.content


async def test_the_dice_roll_off_is_shown_with_who_starts(world: World) -> None:
    await started(world, world["Alice"], world["Bob"], game="dice")
    table = world.bot.manager.table_for_channel(world.guild.channel_id)
    assert table is not None and table.turn is not None
    start_message = boards(world.discord, world.guild.channel_id)[0]
    rolls = re.findall(r"(Alice|Bob) (\d) \+ (\d) = (\d+)", start_message.content)
    assert {name for name, *_ in rolls} == {"Alice", "Bob"}
    assert all(int(a) + int(b) == int(total) for _, a, b, total in rolls)
    starter = table.seats[table.turn].name
    assert f"{starter} starts." in start_message.content
    last_round = rolls[-2:]
    best = max(int(total) for *_, total in last_round)
    assert [n for n, *_, total in last_round if int(total) == best] == [starter]


async def test_two_computers_of_one_level_have_two_names(world: World) -> None:
    alice = world["Alice"]
    lobby = await lobby_of(world, alice)
    await add_computer(world, lobby, alice, "medium")
    await add_computer(world, lobby, alice, "medium")
    assert "Computer 1 (medium)" in lobby.text and "Computer 2 (medium)" in lobby.text
    await start(world, lobby, alice)
    first = boards(world.discord, world.guild.channel_id)[0]
    assert "Computer 1 (medium)" in first.content and "Computer 2 (medium)" in first.content
    alt = next(f for f in first.files if f.filename == "board.png").description
    assert "Computer 1 (medium)" in alt and "Computer 2 (medium)" in alt


async def test_joining_a_dice_game_sends_no_dm_about_a_hand(world: World) -> None:
    alice, bob = world["Alice"], world["Bob"]
    lobby = await lobby_of(world, alice, "dice")
    await seat(world, lobby, bob)
    assert alice.dms() == [] and bob.dms() == []


# -- 18. the controls the rules promise ----------------------------------------------------


async def test_the_host_chooses_that_a_computer_takes_a_seat_someone_leaves(
        world: World) -> None:
    alice, bob = world["Alice"], world["Bob"]
    lobby = await (await alice.slash("sequence new", game="kids",
                                     if_someone_leaves="computer")).reply()
    assert "If a player leaves: A computer player takes the seat" in lobby.text
    await seat(world, lobby, bob)
    await start(world, lobby, alice)
    await (await bob.slash("sequence leave")).wait_ack()
    said = await world.discord.wait_for(
        lambda: [m for m in world.discord.visible_messages(world.guild.channel_id)
                 if m.content == "A computer player takes over Bob's seat."], 5, "the takeover")
    assert said
    table = world.bot.manager.table_for_channel(world.guild.channel_id)
    assert table is not None and table.status == "playing" and table.seats[1].is_computer


async def test_by_default_a_seat_someone_leaves_is_skipped_and_the_lobby_says_so(
        norsk: World) -> None:
    lobby = await (await norsk["Kari"].slash("sequence new", game="kids")).reply()
    assert "Hvis en spiller går: Plassen hoppes over" in lobby.text


async def test_a_moderator_removes_a_player_mid_game(world: World) -> None:
    alice, bob, carol = world["Alice"], world["Bob"], world["Carol"]
    lobby = await lobby_of(world, alice)
    await seat(world, lobby, bob)
    await seat(world, lobby, carol)
    await start(world, lobby, alice)
    reply = await (await alice.slash("sequence remove", seat=2)).reply()  # the host may
    assert reply.content == "The seat was removed."
    await world.discord.wait_for(
        lambda: [m for m in world.discord.visible_messages(world.guild.channel_id)
                 if m.content.startswith("Bob was removed from the game")], 5, "the removal")
    refused = await (await carol.slash("sequence remove", seat=1)).reply()  # not the host
    assert refused.ephemeral and "host" in refused.content.lower()
