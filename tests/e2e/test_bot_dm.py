"""A game in the bot's own DM (issue 48, item 4): one person against computer players, or
a grown-up with a child's seat. The bot is in that channel, so it posts there as it does in
a server's: the lobby, a board after every move (the one before it tidied away, so the
newest stays by the hand message, which is kept in place).
The commands are synced globally here, as in production (a dev server's copy would not
reach a DM)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot import SequenceBot
from manager import Status
from tests.community.test_family_seats_e2e import add_child
from tests.e2e.conftest import World, make_world, running_bot
from tests.e2e.people import (
    boards,
    boards_posted,
    final_board,
    kept_hand,
    play_from_hand,
    play_until_over,
    shows_choices,
    turn_by_roll,
    turn_from_dm,
    whose_turn,
)
from tests.fakediscord import ClientRefused, FakeDiscord, FakeMessage, Person
from tests.waiting import until


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    async for w in make_world(tmp_path, ("Alice", "Bob"), dev_guild=False):
        yield w


async def dm_lobby(bot: SequenceBot, fake: FakeDiscord, person: Person, *levels: str,
                   game: str = "kids", **options: object) -> FakeMessage:
    """``person`` opens a game in their DM with the bot and seats a computer per level."""
    dm = fake.dm_channel(person.id)
    lobby = await (await person.slash("sequence new", channel=dm, game=game,
                                      **options)).reply()
    assert lobby.channel_id == dm and not lobby.ephemeral, "the lobby, in the DM"
    for seats, level in enumerate(levels, 2):
        button = next(c for c in lobby.custom_ids() if c.endswith(f":cpu-{level}"))
        await (await person.click(lobby, button)).wait_ack()
        await until(lambda n=seats: len(getattr(bot.manager.table_for_channel(dm), "seats",
                                                ())) == n, "a computer seated")
    return lobby


async def started(fake: FakeDiscord, person: Person, lobby: FakeMessage,
                  label: str = "Start") -> FakeMessage:
    await (await person.click(lobby, label=label)).wait_ack()
    dm = fake.dm_channel(person.id)
    return (await fake.wait_for(lambda: boards(fake, dm), 5, "the first board, in the DM"))[0]


async def test_a_game_in_the_bots_dm_against_two_computers(world: World) -> None:
    fake, alice = world.discord, world["Alice"]
    dm = fake.dm_channel(alice.id)
    lobby = await dm_lobby(world.bot, fake, alice, "easy", "medium")
    first = await started(fake, alice, lobby)
    assert lobby.buttons() == [], "the lobby closes when the game starts"
    # the hand is in the same DM, saying so; no hello to the DM Alice is typing in
    hand = await fake.wait_for(lambda: next((m for m in alice.dms()
                                             if "Your hand" in m.content), None), 5, "the hand")
    assert "(this DM)" in hand.content and "the board in this DM shows" in hand.content
    assert "#" not in hand.content.splitlines()[0], "no channel or server named"
    assert "Computer (easy)" in first.content and "Computer (medium)" in first.content
    final = await play_until_over(fake, dm, [alice], turn_from_dm)
    assert "🏆" in final.content or "draw" in final.content
    assert final.button(label="Rematch")
    # every move on a board: the computers' too, each board naming who moved
    moved = [b.content.splitlines()[0] for b in boards_posted(fake, dm)[1:]]
    assert any(line.startswith("Computer (easy) ") for line in moved)
    assert any(line.startswith("Computer (medium) ") for line in moved)
    assert any(line.startswith("Alice ") for line in moved)
    texts = [m.content for m in fake.visible_messages(dm)]
    assert not any(text.startswith("You are in a game") for text in texts)
    # one board stays, by the hand: the boards before it are tidied away as they go
    # (the hand message itself may show the final board: a winning tap turns it so)
    await fake.wait_for(lambda: [b.id for b in boards(fake, dm) if b.id != hand.id]
                        == [final.id], 5, "the older boards tidied")
    assert [m.id for m in fake.visible_messages(dm)][-2:] == [hand.id, final.id]
    # the rematch: the same seats, in the same DM
    again = await (await alice.click(final, label="Rematch")).reply()
    assert again.channel_id == dm and "Same seats and options" in again.text
    assert "Computer (easy)" in again.text and "Computer (medium)" in again.text
    assert fake.refused_requests() == [], "nothing Discord would refuse"


async def test_sequence_dice_in_the_bots_dm_against_a_computer(world: World) -> None:
    fake, alice = world.discord, world["Alice"]
    dm = fake.dm_channel(alice.id)
    lobby = await dm_lobby(world.bot, fake, alice, "hard", game="dice")
    await started(fake, alice, lobby)
    final = await play_until_over(fake, dm, [alice], turn_by_roll)
    assert "🏆" in final.content or "draw" in final.content
    assert "rolled" in "\n".join(b.content for b in boards(fake, dm))
    assert fake.refused_requests() == []


@pytest.fixture
async def norwegian(tmp_path: Path) -> AsyncIterator[World]:
    async for w in make_world(tmp_path, ("Kari",), locale="no", dev_guild=False):
        yield w


async def test_the_bots_dm_game_speaks_its_persons_language(norwegian: World) -> None:
    """No server to take the language from: the DM's person's own, for the boards too."""
    fake, kari = norwegian.discord, norwegian["Kari"]
    lobby = await dm_lobby(norwegian.bot, fake, kari, "easy")
    first = await started(fake, kari, lobby)
    assert "starter" in first.content, first.content  # the board's line, in Norwegian
    hand = await fake.wait_for(lambda: next((m for m in kari.dms()
                                             if "Kortene dine" in m.content), None), 5,
                               "the hand, in Norwegian")
    assert "(denne DM-en)" in hand.content and "brettet i denne DM-en" in hand.content


def moved_on(world: World, channel_id: int, *, turn: int | None = None,
             ply: int | None = None) -> bool:
    """The table in ``channel_id`` is over, or past ``turn`` / ``ply``."""
    now = world.bot.manager.table_for_channel(channel_id)
    if now is None or now.status is not Status.PLAYING:
        return True
    return (turn is not None and now.turn != turn) or (ply is not None and now.ply > ply)


async def test_a_grown_up_plays_a_childs_seat_and_their_own_in_the_bots_dm(world: World
                                                                            ) -> None:
    fake, mum = world.discord, world["Alice"]
    dm = fake.dm_channel(mum.id)
    lobby = await dm_lobby(world.bot, fake, mum, "easy")
    said = await add_child(world, lobby, mum, "Emma")
    assert said.ephemeral and "Emma" in said.content
    await fake.wait_for(lambda: "Emma (with Alice)" in lobby.text, 5, "Emma seated")
    await started(fake, mum, lobby)
    table = world.bot.manager.table_for_channel(dm)
    assert table is not None and table.guild_id is None
    game_id = table.game_id
    seats_played: set[int] = set()
    for _ in range(200):
        if final_board(fake, dm) is not None:
            break
        now = world.bot.manager.table_for_channel(dm)
        if now is None or now.status is not Status.PLAYING:
            break
        turn = now.turn
        if turn is None or now.seats[turn].level is not None:  # (a computer's turn)
            await until(lambda t=turn: moved_on(world, dm, turn=t), "the computer's move")
            continue
        hand = await until(lambda t=turn: kept_hand(mum, game_id, t), "the seat's hand")
        if now.seats[turn].is_child and not shows_choices(hand):
            assert "Emma" in hand.content.splitlines()[0], "Emma's hand says whose it is"
        ply = now.ply
        if await play_from_hand(mum, hand) is not None:
            seats_played.add(turn)
        await until(lambda p=ply: moved_on(world, dm, ply=p), "the move taken")
    await fake.wait_for(lambda: final_board(fake, dm), 10, "the final board")
    assert len(seats_played) == 2, "Alice played Emma's seat and her own"
    assert fake.refused_requests() == []


async def test_a_game_in_the_bots_dm_goes_on_after_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "sequence.db"
    async with FakeDiscord() as fake:
        guild = fake.add_guild("Family")
        alice = fake.add_person("Alice")
        dm = fake.dm_channel(alice.id)
        with fake.pointed_at():
            async with running_bot(fake, guild, db, dev_guild=False) as bot:
                lobby = await dm_lobby(bot, fake, alice, "easy")
                await started(fake, alice, lobby)
                board = await fake.wait_for(
                    lambda: next((b for b in reversed(boards(fake, dm))
                                  if whose_turn(b) == alice.id), None), 10, "Alice's turn")
                await turn_from_dm(alice, board)
                await fake.wait_for(lambda: whose_turn(boards(fake, dm)[-1]) == alice.id,
                                    10, "Alice's turn again")
            shown, hands = len(boards(fake, dm)), len(alice.dms())
            async with running_bot(fake, guild, db, dev_guild=False):
                await fake.wait_for(lambda: any(
                    r.method == "GET" and r.path.endswith(f"/{dm}/messages")
                    for r in fake.requests), 5, "the bot reading the DM back")
                assert len(boards(fake, dm)) == shown, "nothing shown twice"
                assert len(alice.dms()) == hands
                final = await play_until_over(fake, dm, [alice], turn_from_dm)
                assert "🏆" in final.content or "draw" in final.content
        assert fake.refused_requests() == []


async def test_settings_in_the_bots_dm_say_they_are_for_a_server(world: World) -> None:
    alice = world["Alice"]
    said = await (await alice.slash("sequence settings", channel=world.discord.dm_channel(
        alice.id), language="no")).reply()
    assert said.ephemeral and "server" in said.content.lower(), said.content


async def test_sequence_is_offered_in_the_bots_dm_but_not_yet_in_a_group_dm(world: World
                                                                           ) -> None:
    """Group DMs need the app installed to a person's account and a game told through
    interaction answers alone (issue 48, items 2 and 3): not offered until then."""
    fake, alice, bob = world.discord, world["Alice"], world["Bob"]
    alice.install_app()
    group = fake.private.group_dm(alice, bob)
    with pytest.raises(ClientRefused):
        await alice.slash("sequence new", channel=group, game="kids")
    kept = next(c for c in fake.commands[None] if c["name"] == "sequence")
    assert kept["contexts"] == [0, 1] and kept["integration_types"] == [0]


async def test_the_bots_dm_has_no_board_button_while_the_activity_cannot_run_there(
        tmp_path: Path) -> None:
    """Discord runs an Activity in a DM only for an app installed to the person (issue 48,
    item 5): a DM game's lobby and boards offer no "Play on the board", a server's do."""
    async with FakeDiscord(activities=True) as fake:
        guild = fake.add_guild("Family")
        alice = fake.add_person("Alice")
        with fake.pointed_at():
            async with running_bot(fake, guild, tmp_path / "sequence.db", activity=True,
                                   dev_guild=False) as bot:
                in_server = await (await alice.slash("sequence new", game="kids")).reply()
                assert any(c.startswith("seq:launch:") for c in in_server.custom_ids())
                lobby = await dm_lobby(bot, fake, alice, "easy")
                assert not any(c.startswith("seq:launch:") for c in lobby.custom_ids())
                first = await started(fake, alice, lobby)
                assert first.custom_ids() and not any(
                    c.startswith("seq:launch:") for c in first.custom_ids())
