"""Whole games played as families play them (issue 25): before each turn the app reloads,
and each player plays only from the one hand message kept in their DMs, to the final
board. That message is true at every turn, and it is the only hand message there is."""

from __future__ import annotations

import io
import re

from PIL import Image

from engine.factory import new_game
from tests.community.play import lobby_of, seat, start
from tests.community.test_family_seats_e2e import add_child
from tests.e2e.conftest import World
from tests.e2e.people import assert_no_hand_in_public, boards, game_of, play_until_over
from tests.fakediscord import FakeDiscord, Person

from .kept import KeptHands


def dm_channel(fake: FakeDiscord, person: Person) -> int:
    return fake.dm_channel_of[person.id]


def requests_to_dms(fake: FakeDiscord, person: Person, method: str) -> int:
    """Rate-limited requests on the person's DM channel: new messages (POST), edits
    (PATCH)."""
    path = f"/channels/{dm_channel(fake, person)}/messages"
    return sum(1 for r in fake.rate_limited_requests()
               if r.method == method and r.path.startswith(path))


async def dead_marks_changed(world: World, game_id: int, person: Person) -> int:
    """How often the person's hands had to be edited to show which cards are dead: each
    of their seats' turns at which the dead cards differ from what its message showed
    since that seat's own last move (the others' moves took both spaces of a card's animal,
    or a Dragon freed one). Read from the game's log, replayed."""
    manager = world.bot.manager
    assert manager is not None
    record = await manager.load_record(game_id)
    assert record is not None and record.seed is not None
    game = new_game(record.kind, len(record.seats), record.seed, **record.options)
    mine = {s.index for s in record.seats if s.user_id == person.id and s.level is None}
    shown = {s: frozenset(game.observation(s).get("dead") or ()) for s in mine}
    changed = 0
    for entry in record.actions:
        mover = game.current_seat
        game.apply_entry(entry)
        if mover in mine:
            shown[mover] = frozenset(game.observation(mover).get("dead") or ())
        seat = game.current_seat
        if seat in mine and not game.is_over and game.legal_actions() != ["pass"]:
            dead = frozenset(game.observation(seat).get("dead") or ())
            if dead != shown[seat]:
                changed += 1
                shown[seat] = dead
    return changed


def clicks(fake: FakeDiscord, person: Person, prefix: str) -> list[int | None]:
    """How the bot answered each of the person's clicks on buttons in their DMs whose
    custom_id starts with ``prefix``: the callback types (7 UPDATE_MESSAGE, 6 deferred
    update, 4 a message of its own)."""
    return [i.callback_type for i in fake.interactions.values()
            if i.user_id == person.id and i.channel_id == dm_channel(fake, person)
            and str(i.payload["data"].get("custom_id", "")).startswith(prefix)]


async def test_two_people_play_a_whole_game_from_the_hand_kept_in_their_dms(
        world: World) -> None:
    fake, channel = world.discord, world.guild.channel_id
    alice, bob = world["Alice"], world["Bob"]
    lobby = await lobby_of(world, alice)
    await seat(world, lobby, bob)
    await start(world, lobby, alice)
    kept = KeptHands(world)
    final = await play_until_over(fake, channel, [alice, bob], kept.turn)
    assert "🏆" in final.content or "draw" in final.content
    game = game_of(final) or 0
    # the kept hand was the true hand at every turn, and it was one message per person
    assert kept.turns >= 6 and kept.stale == []
    assert sorted(len(ids) for ids in kept.messages.values()) == [1, 1]
    kept_ids = set().union(*kept.messages.values())
    for person in (alice, bob):
        # what stays in the DMs: the hello at joining, and the one hand message
        staying = [m for m in person.dms() if not m.ephemeral]
        assert len(staying) == 2 and staying[1].id in kept_ids, staying
        assert staying[0].content.startswith("You are in a game of Sequence for Kids")
        # nothing of a hand ever came as an ephemeral message in the DMs
        assert not [m for m in fake.visible_messages(dm_channel(fake, person), person.id)
                    if m.ephemeral and (m.files or m.custom_ids())]
        # a card tap changed the hand message into its choices (UPDATE_MESSAGE), a number
        # tap deferred the update of it and then edited it into the new hand
        assert set(clicks(fake, person, "seq:card:")) <= {7, 4} and \
            7 in clicks(fake, person, "seq:card:")
        assert set(clicks(fake, person, "seq:play:")) == {6}
        # and none of it counted against the bot's global budget: after the hello and
        # the deal, nothing was sent to the DMs, and nothing edited there the costly way
        # but to show a card the others' moves made dead, at the person's turn
        assert requests_to_dms(fake, person, "POST") == 2
        assert requests_to_dms(fake, person, "PATCH") == await dead_marks_changed(
            world, game, person)
    # what a move leaves: the move on top, then the new hand
    assert all(text.startswith("Played: ") for text in kept.after_moves), kept.after_moves
    assert any(c.files and c.files[0].filename == "choices.png" for c in kept.choices)
    assert all("seq:back:" in " ".join(c.custom_ids()) for c in kept.choices)
    assert_no_hand_in_public(fake, channel)


async def test_in_norwegian_a_grown_up_plays_their_own_seat_and_a_childs_from_two_kept_hands(
        norsk_family: World) -> None:
    world = norsk_family
    fake, channel = world.discord, world.guild.channel_id
    mum, dad = world["Mum"], world["Dad"]
    lobby = await lobby_of(world, mum)
    await fake.wait_for(lambda: mum.dms(), 5, "the hello by DM")
    await add_child(world, lobby, mum, "Emma", label="Legg til et barn")
    await fake.wait_for(lambda: "Emma" in lobby.text, 5, "Emma seated")
    await seat(world, lobby, dad)
    await start(world, lobby, mum)
    kept = KeptHands(world)
    final = await play_until_over(fake, channel, [mum, dad], kept.turn)
    assert "🏆" in final.content or "uavgjort" in final.content
    assert kept.turns >= 6 and kept.stale == []
    # Mum's DMs hold one hand message per seat she plays, Dad's one
    assert sorted(len(ids) for ids in kept.messages.values()) == [1, 1, 1]
    kept_ids = set().union(*kept.messages.values())
    mums = [m for m in mum.dms() if m.id in kept_ids]
    assert len(mums) == 2 and len([m for m in dad.dms() if m.id in kept_ids]) == 1
    assert [m for m in mum.dms() if not m.ephemeral and m.id not in kept_ids] == \
        mum.dms()[:1], "besides the hello, nothing but the two hand messages"
    # in Norwegian: the question, the numbers, the way back, what was played (under the
    # seat's heading, since Mum's DMs hold two hands)
    for text in kept.after_moves:
        first, second = text.splitlines()[:2]
        if first.startswith("Spilt: "):  # Dad's one hand has no heading; or the game's end
            assert second.startswith(("Kortene dine", "**Dette partiet er over.**")), text
        else:
            assert first.startswith(("**Kortene til Mum**", "**Kortene til Emma**")), text
            assert second.startswith("Spilt: "), text
    assert any("Trykk på tallet du ser på bildet." in t for t in kept.choice_texts)
    backs = [b for c in kept.choices for b in c.buttons()
             if b["custom_id"].startswith("seq:back:")]
    assert backs and all(b["label"] == "Tilbake til kortene" for b in backs)
    # a choice on Emma's hand message still says whose hand it is
    assert any(t.startswith("**Kortene til Emma**") for t in kept.choice_texts)
    assert requests_to_dms(fake, mum, "PATCH") == await dead_marks_changed(
        world, game_of(final) or 0, mum)


async def test_a_dice_game_posts_one_board_a_turn_that_names_the_roll(world: World) -> None:
    fake, channel = world.discord, world.guild.channel_id
    alice, bob = world["Alice"], world["Bob"]
    lobby = await lobby_of(world, alice, "dice")
    await seat(world, lobby, bob)
    await start(world, lobby, alice)
    game_id = game_of(boards(fake, channel)[0])
    assert game_id is not None
    prompts = []

    async def turn(person: Person, board: object) -> None:
        person.reload_app()  # as in Kids: only what stays is there (Dice: the public board)
        prompt = await (await person.click(board, label="Roll")).reply()  # type: ignore[arg-type]
        prompts.append(prompt)
        if any(c.startswith(("seq:play:", "seq:spaces:")) for c in prompt.custom_ids()):
            buttons = [b for b in prompt.buttons() if b["custom_id"].startswith("seq:play:")]
            if buttons:
                await (await person.click(prompt, buttons[0]["custom_id"])).wait_ack()
            else:
                menu = prompt.selects()[0]
                await (await person.select(prompt, menu["custom_id"],
                                           [menu["options"][0]["value"]])).wait_ack()

    await play_until_over(fake, channel, [alice, bob], turn)
    assert world.bot.manager is not None
    record = await world.bot.manager.load_record(game_id)
    assert record is not None
    moves = [a for a in record.actions if a != "roll"]
    posted = boards(fake, channel)
    # one public board a turn (and the first): the roll has no board of its own
    assert len(posted) == 1 + len(moves)
    rolled = re.compile(r"(Alice|Bob) rolled (\d) \+ (\d) = (\d+)(?: and (covered|put their "
                        r"own chip on|took the chip off) [A-J]\d+|, but .*: no move this time)")
    for board in posted[1:]:
        said = rolled.search(board.content)
        assert said, board.content
        assert int(said[2]) + int(said[3]) == int(said[4])
    # the roller saw the roll in their choice: in words, and as dice above the numbers
    offered = [p for p in prompts if p.files]
    assert offered and all(re.match(r"You rolled \d \+ \d = \d+\.", p.content) for p in offered)
    picture = Image.open(io.BytesIO(offered[0].files[0].data))
    assert picture.height > picture.width, "a strip with the dice above the square board"
