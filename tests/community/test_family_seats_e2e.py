"""Family seats through the fake Discord, in English and Norwegian (issue 20): a grown-up
adds a child in the lobby with a form, the game starts, the grown-up's DMs hold two
labelled hands, the grown-up plays both seats to the end against another person, who
never sees either hand; a stranger's click on the child's cards is refused; a restart
keeps the child's seat with its grown-up."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cogs.table.hands import hand_cards
from manager import GameManager
from tests.community.play import lobby_of, seat
from tests.e2e.conftest import World, running_bot
from tests.e2e.people import boards, choose_first, final_board, whose_turn
from tests.fakediscord import ClientRefused, FakeDiscord, FakeMessage, Person
from tests.waiting import until

SEAT_CARD = re.compile(r"seq:card:(?P<game>\d+):(?P<seat>\d):(?P<card>[a-z]+)")


async def add_child(world: World, lobby: FakeMessage, grown_up: Person, name: str,
                    label: str = "Add a child") -> FakeMessage:
    """Press "Add a child", type the name in the form, submit: the bot's answer."""
    opening = await grown_up.click(lobby, label=label)
    assert opening.callback_type == 9  # the answer to the click is the form
    modal = await grown_up.opened_modal()
    field = modal.fields[0]
    assert field.min_length == 1 and field.max_length == 20 and field.required
    return await (await grown_up.submit_modal(modal, {field.custom_id: name})).reply()


def hands_of(person: Person, seat: int) -> list[FakeMessage]:
    return [m for m in person.dms()
            if any((c := SEAT_CARD.fullmatch(i)) and int(c["seat"]) == seat
                   for i in m.custom_ids())]


async def family_game(world: World, mum: Person, dad: Person) -> tuple[FakeMessage, int]:
    """Mum hosts, adds Emma; Dad joins; Mum starts. The lobby message and the game id."""
    lobby = await lobby_of(world, mum)
    said = await add_child(world, lobby, mum, "Emma")
    assert said.ephemeral and "Emma" in said.content
    await world.discord.wait_for(lambda: "Emma (with Mum)" in lobby.text, 5, "Emma seated")
    assert "Mum plays for Emma and for themselves" in lobby.text
    await seat(world, lobby, dad)
    await (await mum.click(lobby, label="Start")).wait_ack()
    await world.discord.wait_for(lambda: boards(world.discord, world.guild.channel_id), 5,
                                 "the first board")
    table = world.bot.manager.table_for_channel(world.guild.channel_id)  # type: ignore[union-attr]
    assert table is not None
    return lobby, table.game_id


@pytest.fixture
async def family(tmp_path: Path):  # type: ignore[no-untyped-def]
    from tests.e2e.conftest import make_world

    async for w in make_world(tmp_path, ("Mum", "Dad", "Stranger")):
        yield w


NOT_YOUR_TURN = ("It's not your turn.", "Det er ikke din tur.")


async def newest_hand(manager: GameManager, channel: int, holder: Person, seat: int,
                      lang: str) -> FakeMessage | None:
    """The newest hand of ``seat`` in ``holder``'s DMs once it shows the seat's cards as
    they are now (a new one comes after each of its moves; a forced pass leaves the last
    one standing); None if the turn moves on first. Polled: the state read here changes
    without Discord traffic, which is what the fake's own waits wake on."""
    moved_on = object()

    def shown() -> FakeMessage | object | None:
        view = manager.table_for_channel(channel)
        if view is None or view.turn != seat:
            return moved_on
        cards = hand_cards(manager.seat_observation(view.game_id, seat), lang)
        hands = hands_of(holder, seat)
        if hands and hands[-1].files and hands[-1].files[0].description == cards:
            return hands[-1]
        return None

    found = await until(shown, f"seat {seat}'s hand as it is now", 5)
    return None if found is moved_on else found  # type: ignore[return-value]


async def play_to_the_end(world: World, people: list[Person]) -> FakeMessage:
    """Whoever holds the seat to move plays from that seat's newest hand in the DMs."""
    fake, channel = world.discord, world.guild.channel_id
    manager = world.bot.manager
    assert manager is not None
    for _ in range(300):
        done = final_board(fake, channel)
        if done is not None:
            return done
        table = manager.table_for_channel(channel)
        if table is None or table.turn is None:
            return await fake.wait_for(lambda: final_board(fake, channel), 5, "the end")
        turn, ply = table.turn, table.ply
        holder = next(p for p in people if p.id == table.seats[turn].user_id)
        lang = world.bot.desk.prefs.user_lang(holder.id, table.guild_id)  # type: ignore[union-attr]
        hand = await newest_hand(manager, channel, holder, turn, lang)
        if hand is None:
            continue  # the turn moved on meanwhile (a forced pass): look again
        for button in hand.buttons():
            prompt = await (await holder.click(hand, button["custom_id"])).reply()
            if prompt.content in NOT_YOUR_TURN:
                # an exchange left no playable card: the forced pass that follows moved the
                # turn on while we looked (a person would wait for the next board too)
                break
            if any("seq:play:" in c or "seq:spaces:" in c for c in prompt.custom_ids()):
                await (await choose_first(holder, prompt)).wait_ack()
                break
        else:
            raise AssertionError(f"no playable card in {hand!r}: {prompt.content!r}")
        if prompt.content not in NOT_YOUR_TURN:
            await until(lambda ply=ply: (view := manager.table_for_channel(channel)) is None
                        or view.ply > ply, "the move (read, as newest_hand says why)", 5)
    raise AssertionError("the game did not end")


async def test_a_grown_up_plays_their_own_seat_and_a_childs_to_the_end(family: World) -> None:
    mum, dad, stranger = family["Mum"], family["Dad"], family["Stranger"]
    _, game_id = await family_game(family, mum, dad)
    table = family.bot.manager.get(game_id)  # type: ignore[union-attr]
    assert [(s.name, s.guardian) for s in table.seats] == [
        ("Mum", None), ("Emma", "Mum"), ("Dad", None)]
    first = boards(family.discord, family.guild.channel_id)[0]
    assert "Emma" in first.files[0].description  # the legend names the child
    # two hands in Mum's DMs, each headed with its seat, its colour and its chip mark
    await family.discord.wait_for(lambda: hands_of(mum, 0) and hands_of(mum, 1), 5,
                                  "Mum's two hands")
    own, emmas = hands_of(mum, 0)[-1], hands_of(mum, 1)[-1]
    assert own.content.startswith("**Mum's cards** - ")
    assert re.match(r"\*\*Emma's cards\*\* - (red|blue|green|yellow), \w+", emmas.content)
    if table.turn == 1:
        assert f"It's **Emma**'s turn ({mum.mention})." in first.content
    # a stranger's click (or Dad's) on Emma's card does nothing but a private refusal
    before = family.bot.manager.get(game_id).ply  # type: ignore[union-attr]
    forged = family.discord.create_message(family.guild.channel_id, {"components": [
        {"type": 1, "components": [{"type": 2, "style": 1, "label": "x",
                                    "custom_id": emmas.custom_ids()[0]}]}]}, [])
    for who in (stranger, dad):
        refused = await (await who.click(forged, emmas.custom_ids()[0])).reply()
        assert refused.ephemeral and refused.content == "That button belongs to another player."
    assert family.bot.manager.get(game_id).ply == before  # type: ignore[union-attr]
    final = await play_to_the_end(family, [mum, dad])
    assert any(c.startswith("seq:rematch:") for c in final.custom_ids())
    # Dad never saw a hand of Mum's or Emma's: no card buttons of seats 0 or 1 reach him
    for message in dad.dms() + dad.ephemerals():
        assert not any((c := SEAT_CARD.fullmatch(i)) and int(c["seat"]) != 2
                       for i in message.custom_ids())
    # Emma's results are her own, under Mum's account
    standings = family.bot.store.standings  # type: ignore[union-attr]
    emma = await standings.stats(mum.id, guild_id=family.guild.id, child="Emma")
    assert emma.games == 1
    stats = await (await mum.slash("sequence stats")).reply()
    assert "Emma" in stats.text


async def test_the_lobby_refuses_a_second_emma_and_a_name_too_long(family: World) -> None:
    mum, dad = family["Mum"], family["Dad"]
    lobby = await lobby_of(family, mum)
    await add_child(family, lobby, mum, "Emma")
    again = await add_child(family, lobby, dad, "emma")
    assert again.ephemeral and "already called emma" in again.content
    await (await mum.click(lobby, label="Add a child")).wait_ack()
    modal = await mum.opened_modal()
    with pytest.raises(ClientRefused):  # Discord's own app refuses 21 letters
        await mum.submit_modal(modal, {modal.fields[0].custom_id: "A" * 21})
    mum.dismiss_modal(modal)
    table = family.bot.manager.table_for_channel(family.guild.channel_id)  # type: ignore[union-attr]
    assert table is not None and [s.name for s in table.seats] == ["Mum", "Emma"]


async def test_the_grown_up_or_the_host_removes_a_child_before_the_start(
        family: World) -> None:
    mum, dad, stranger = family["Mum"], family["Dad"], family["Stranger"]
    lobby = await lobby_of(family, mum)
    await seat(family, lobby, dad)
    await add_child(family, lobby, dad, "Noah")
    await family.discord.wait_for(lambda: "Noah (with Dad)" in lobby.text, 5, "Noah seated")
    remove = next(b for b in lobby.buttons() if b["custom_id"].startswith("seq:unseat:"))
    refused = await (await stranger.click(lobby, remove["custom_id"])).reply()
    assert refused.ephemeral
    await (await dad.click(lobby, remove["custom_id"])).wait_ack()
    await family.discord.wait_for(lambda: "Noah" not in lobby.text, 5, "Noah gone")


async def test_the_host_can_turn_family_seats_off(family: World) -> None:
    mum = family["Mum"]
    lobby = await (await mum.slash("sequence new", game="kids", family_seats=False)).reply()
    assert "Children's seats: off" in lobby.text
    assert not any(b["label"] == "Add a child" for b in lobby.buttons())


async def test_a_child_seat_and_its_grown_up_survive_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "sequence.db"
    async with FakeDiscord() as fake:
        guild = fake.add_guild("Family")
        mum, dad = fake.add_person("Mum", guild), fake.add_person("Dad", guild)
        with fake.pointed_at():
            async with running_bot(fake, guild, db) as bot:
                lobby = await (await mum.slash("sequence new", game="kids")).reply()
                world = World(fake, guild, bot, {"Mum": mum, "Dad": dad})
                await add_child(world, lobby, mum, "Emma")
                await fake.wait_for(lambda: "Emma" in lobby.text, 5, "Emma seated")
                await seat(world, lobby, dad)
                await (await mum.click(lobby, label="Start")).wait_ack()
                await fake.wait_for(lambda: hands_of(mum, 1), 5, "Emma's hand")
                emmas = hands_of(mum, 1)[-1]
            async with running_bot(fake, guild, db) as bot:
                assert bot.manager is not None
                table = bot.manager.tables()[0]
                assert (table.seats[1].name, table.seats[1].guardian,
                        table.seats[1].user_id) == ("Emma", "Mum", mum.id)
                # Emma's old card button still works for Mum (refused only if not her turn)
                answer = await (await mum.click(emmas, emmas.custom_ids()[0])).reply()
                assert answer.ephemeral
                assert (answer.content == "It's not your turn." if table.turn != 1
                        else "choices.png" in [f.filename for f in answer.files])


@pytest.fixture
async def familie(tmp_path: Path):  # type: ignore[no-untyped-def]
    from tests.e2e.conftest import make_world

    async for w in make_world(tmp_path, ("Mamma", "Pappa"), locale="no", guild_locale="no"):
        yield w


async def test_in_norwegian_the_form_the_lobby_and_the_hands_speak_norwegian(
        familie: World) -> None:
    mamma, pappa = familie["Mamma"], familie["Pappa"]
    lobby = await lobby_of(familie, mamma)
    opening = await mamma.click(lobby, label="Legg til et barn")
    modal = await mamma.opened_modal()
    assert modal.title == "Legg til et barn" and modal.fields[0].label == "Barnets navn"
    said = await (await mamma.submit_modal(modal, {modal.fields[0].custom_id: "Emma"})).reply()
    assert opening.callback_type == 9 and "Emma har fått en plass" in said.content
    await familie.discord.wait_for(lambda: "Emma (med Mamma)" in lobby.text, 5, "Emma")
    assert "Mamma spiller for Emma og for seg selv" in lobby.text
    await seat(familie, lobby, pappa)
    await (await mamma.click(lobby, label="Start")).wait_ack()
    await familie.discord.wait_for(lambda: hands_of(mamma, 1), 5, "Emma's hand")
    assert hands_of(mamma, 1)[-1].content.startswith("**Kortene til Emma** - ")
    first = boards(familie.discord, familie.guild.channel_id)[0]
    if whose_turn(first) is None and "Emma" in first.content.split("\n")[-1]:
        assert f"Det er **Emma** sin tur ({mamma.mention})." in first.content
    final = await play_to_the_end(familie, [mamma, pappa])  # Mamma plays both seats
    assert any(c.startswith("seq:rematch:") for c in final.custom_ids())
    for message in pappa.dms() + pappa.ephemerals():  # Pappa never saw their hands
        assert not any((c := SEAT_CARD.fullmatch(i)) and int(c["seat"]) != 2
                       for i in message.custom_ids())


async def test_my_hand_shows_every_seat_the_grown_up_holds_and_a_rematch_keeps_the_child(
        family: World) -> None:
    mum, dad = family["Mum"], family["Dad"]
    await family_game(family, mum, dad)
    board = boards(family.discord, family.guild.channel_id)[-1]
    await (await mum.click(board, label="My hand")).wait_ack()
    hands = await family.discord.wait_for(
        lambda: [m for m in mum.ephemerals() if m.png_files()] if len(
            [m for m in mum.ephemerals() if m.png_files()]) >= 2 else None, 5, "two hands")
    assert [h.content.split("**")[1] for h in hands] == ["Mum's cards", "Emma's cards"]
    assert {int(SEAT_CARD.fullmatch(h.custom_ids()[0])["seat"]) for h in hands} == {0, 1}  # type: ignore[index]
    # Mum resigns for both seats (she names them), Dad wins; the rematch seats Emma again
    for number in (2, 1):
        await (await mum.slash("sequence resign", seat=number)).wait_ack()
    final = await family.discord.wait_for(
        lambda: final_board(family.discord, family.guild.channel_id), 5, "the final board")
    rematch = await (await dad.click(final, label="Rematch")).reply()
    assert "Emma (with Mum)" in rematch.text and "Mum plays for Emma" in rematch.text
