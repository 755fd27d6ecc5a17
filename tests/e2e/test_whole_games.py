"""Whole games through Discord: each way of moving, both games, computers and teams."""

from __future__ import annotations

from engine.action import Action
from tests.e2e.conftest import World
from tests.e2e.people import (
    assert_no_hand_in_public,
    boards,
    choose_first,
    play_until_over,
    turn_by_roll,
    turn_by_slash_command,
    turn_from_dm,
    turn_from_my_hand_button,
)
from tests.fakediscord import FakeMessage


async def open_lobby(world: World, game: str = "kids", **options: object) -> FakeMessage:
    lobby = await (await world["Alice"].slash("sequence new", game=game, **options)).reply()
    assert "Alice" in lobby.text and lobby.button(label="Join")
    return lobby


async def join(world: World, lobby: FakeMessage, *names: str) -> None:
    for name in names:
        await (await world[name].click(lobby, label="Join")).wait_ack()
        await world.discord.wait_for(lambda n=name: n in lobby.text, 5, f"{name} seated")


async def start(world: World, lobby: FakeMessage) -> None:
    await (await world["Alice"].click(lobby, label="Start")).wait_ack()
    await world.discord.wait_for(lambda: boards(world.discord, world.guild.channel_id), 5,
                                 "the first board")
    assert lobby.buttons() == [], "the lobby closes when the game starts"


async def test_two_children_play_a_whole_game_from_their_dms(world: World) -> None:
    fake, channel = world.discord, world.guild.channel_id
    lobby = await open_lobby(world)
    await join(world, lobby, "Bob")
    await start(world, lobby)
    final = await play_until_over(fake, channel, [world["Alice"], world["Bob"]], turn_from_dm)
    assert "🏆" in final.content and "Winning line" in final.content
    assert final.button(label="Rematch")
    assert_no_hand_in_public(fake, channel)
    # the hand came by DM as a picture naming where the game is
    dm = next(m for m in world["Bob"].dms() if m.png_files())
    assert "#general on Family" in dm.content


async def test_four_seats_with_two_computer_players(world: World) -> None:
    fake, channel = world.discord, world.guild.channel_id
    lobby = await open_lobby(world)
    await join(world, lobby, "Bob")
    for level in ("easy", "medium"):
        await (await world["Bob"].click(lobby, label=f"Add computer ({level})")).wait_ack()
    await fake.wait_for(lambda: "Computer (medium)" in lobby.text, 5, "two computers seated")
    await start(world, lobby)
    final = await play_until_over(fake, channel, [world["Alice"], world["Bob"]], turn_from_dm)
    assert "🏆" in final.content or "draw" in final.content
    movers = "\n".join(b.content for b in boards(fake, channel))
    assert "Computer (easy) played" in movers or "Computer (easy) exchanged" in movers
    assert_no_hand_in_public(fake, channel)


async def test_sequence_dice_in_two_teams_of_two(world: World) -> None:
    fake, channel = world.discord, world.guild.channel_id
    lobby = await open_lobby(world, "dice", teams=True, sequence_length=5)
    await join(world, lobby, "Bob", "Carol", "Dan")
    await start(world, lobby)
    people = [world[n] for n in ("Alice", "Bob", "Carol", "Dan")]

    async def turn(person, board):  # Alice and Carol type /sequence roll; the others click
        if person in (world["Alice"], world["Carol"]):
            prompt = await (await person.slash("sequence roll")).reply()
            assert prompt.ephemeral and "rolled" in prompt.content
            if list(prompt.components()):
                await (await choose_first(person, prompt)).wait_ack()
        else:
            await turn_by_roll(person, board)

    final = await play_until_over(fake, channel, people, turn)
    assert " & " in final.content, "a team wins together"
    assert "rolled" in "\n".join(b.content for b in boards(fake, channel))


async def test_the_same_moves_by_slash_command_and_autocomplete(world: World) -> None:
    fake, channel = world.discord, world.guild.channel_id
    lobby = await open_lobby(world)
    await join(world, lobby, "Bob")
    await start(world, lobby)
    final = await play_until_over(fake, channel, [world["Alice"], world["Bob"]],
                                  turn_by_slash_command)
    # a winner, or the draw the rules give after a full round of forced passes (RULES.md)
    assert "🏆" in final.content or "draw" in final.content


async def test_a_player_with_closed_dms_plays_through_the_ephemeral_hand(world: World) -> None:
    fake, channel = world.discord, world.guild.channel_id
    fake.faults.closed_dms.add(world["Bob"].id)
    lobby = await open_lobby(world)
    join_click = await world["Bob"].click(lobby, label="Join")
    warning = await join_click.reply()
    assert warning.ephemeral and "cannot send you direct messages" in warning.content
    await fake.wait_for(lambda: "Bob" in lobby.text, 5, "Bob seated")
    await start(world, lobby)
    told = await fake.wait_for(lambda: [m for m in fake.visible_messages(channel)
                                        if "cannot send you direct messages" in m.content], 5,
                               "the channel told about Bob's DMs")
    assert world["Bob"].mention in told[0].content

    async def turn(person, board):
        if person is world["Bob"]:
            await turn_from_my_hand_button(person, board)
        else:
            await turn_from_dm(person, board)

    final = await play_until_over(fake, channel, [world["Alice"], world["Bob"]], turn)
    assert "🏆" in final.content
    assert world["Bob"].dms() == []
    assert_no_hand_in_public(fake, channel)
    # the bot tried Bob's DMs once or twice, never in a loop
    dm_sends = [r for r in fake.requests if r.status == 403]
    assert 1 <= len(dm_sends) <= 2


async def test_rematch_opens_a_new_lobby_and_a_busy_channel_is_refused(world: World) -> None:
    fake, channel = world.discord, world.guild.channel_id
    lobby = await open_lobby(world)
    busy = await (await world["Bob"].slash("sequence new", game="dice")).reply()
    assert busy.ephemeral and "already has a lobby or a game" in busy.content
    assert not [m for m in fake.visible_messages(channel) if m.loading], "no thinking left"
    await join(world, lobby, "Bob")
    await start(world, lobby)
    final = await play_until_over(fake, channel, [world["Alice"], world["Bob"]], turn_from_dm)
    rematch = await (await world["Bob"].click(final, label="Rematch")).reply()
    assert "Bob" in rematch.text and rematch.button(label="Join") and not rematch.ephemeral
    await (await world["Alice"].click(rematch, label="Join")).wait_ack()
    await fake.wait_for(lambda: "Alice" in rematch.text, 5, "Alice seated again")


async def test_a_new_lobby_is_one_message(world: World) -> None:
    lobby = await open_lobby(world)
    await join(world, lobby, "Bob")
    lobbies = [m for m in world.discord.visible_messages(world.guild.channel_id)
               if "a new game" in m.text]
    assert lobbies == [lobby]


async def test_a_hint_suggests_a_legal_move_privately(world: World) -> None:
    # beginners' level: no Dragon, whose first hint would be "exchange it" (no space named)
    lobby = await open_lobby(world, level="1")
    await join(world, lobby, "Bob")
    await start(world, lobby)
    table = world.bot.manager.table_for_channel(world.guild.channel_id)
    mover = world["Alice"] if table.turn == 0 else world["Bob"]
    legal = world.bot.manager.observation_for(table.game_id, mover.id)["legal"]
    hint = await (await mover.slash("sequence hint")).reply()
    assert hint.ephemeral and hint.content.startswith("Try this: ")
    assert any((Action.parse(a).space or a) in hint.content for a in legal)


def dm_posts(world: World, name: str) -> int:
    """How often the bot tried to post in this person's DMs (refused or not)."""
    fake = world.discord
    channel = fake.dm_channel_of.get(world[name].id)
    return sum(1 for r in fake.requests
               if r.method == "POST" and r.path == f"/channels/{channel}/messages")


async def test_dms_opened_again_are_used_again_after_a_quiet_while(world: World) -> None:
    fake, bob = world.discord, world["Bob"]
    assert world.bot.desk is not None
    dms = world.bot.desk.dms
    now = [1000.0]
    dms.memory.clock = lambda: now[0]
    fake.faults.closed_dms.add(bob.id)
    lobby = await open_lobby(world, level="1")  # one card in hand: each move draws
    # joining knocks on Bob's DMs: refused, and he is told so before the game starts
    warning = await (await bob.click(lobby, label="Join")).reply()
    assert "cannot send you direct messages" in warning.content
    await start(world, lobby)
    table = world.bot.manager.table_for_channel(world.guild.channel_id)
    assert table is not None and dms.closed(bob.id)
    fake.faults.closed_dms.discard(bob.id)  # Bob opens his DMs

    async def bobs_turn_done(minutes: float) -> None:
        now[0] += minutes * 60
        while True:
            view = world.bot.manager.get(table.game_id)
            board = boards(fake, world.guild.channel_id)[-1]
            person = world["Alice"] if view.seats[view.turn].user_id != bob.id else bob
            if person is bob:
                await turn_from_my_hand_button(bob, board)
                return
            await turn_from_dm(person, board)
            await fake.wait_for(lambda v=view: world.bot.manager.get(table.game_id).turn
                                != v.turn, 5, "Alice's move")

    tried = dm_posts(world, "Bob")
    await bobs_turn_done(minutes=2)  # he drew: within ten minutes his DMs are left alone
    await world.bot.manager.settle()
    assert dm_posts(world, "Bob") == tried and bob.dms() == []
    await bobs_turn_done(minutes=9)  # ten minutes after the refusal: one knock, answered
    hand = await fake.wait_for(lambda: [m for m in bob.dms() if m.png_files()], 5,
                               "Bob's hand by DM again")
    assert any(c.startswith("seq:card:") for c in hand[-1].custom_ids())
    assert not dms.closed(bob.id)


async def test_joining_again_tries_dms_that_were_closed(world: World) -> None:
    fake, bob = world.discord, world["Bob"]
    fake.faults.closed_dms.add(bob.id)
    lobby = await open_lobby(world)
    warning = await (await bob.click(lobby, label="Join")).reply()
    assert "cannot send you direct messages" in warning.content
    await (await bob.click(lobby, label="Leave")).wait_ack()
    fake.faults.closed_dms.discard(bob.id)
    warned = len([m for m in bob.ephemerals() if "direct messages" in m.content])
    await (await bob.click(lobby, label="Join")).wait_ack()
    hello = await fake.wait_for(lambda: bob.dms(), 5, "the hello by DM")
    assert hello[0].content.startswith("You are in a game of Sequence for Kids")
    assert len([m for m in bob.ephemerals() if "direct messages" in m.content]) == warned
    await fake.wait_for(lambda: "Bob" in lobby.text, 5, "Bob seated")
