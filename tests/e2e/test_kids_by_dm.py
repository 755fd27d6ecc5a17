"""A whole Sequence for Kids game, every move from the DM buttons."""

from __future__ import annotations

from tests.e2e.conftest import World
from tests.e2e.people import boards, latest_hand, mentioned, play_from_hand


async def open_and_start(world: World, *joiners: str, game: str = "kids", **options):
    host = world["Alice"]
    lobby = await (await host.slash("sequence new", game=game, **options)).reply()
    assert "Alice" in lobby.text
    for name in joiners:
        await (await world[name].click(lobby, label="Join")).wait_ack()
        await world.discord.wait_for(lambda n=name: n in lobby.text, 5, f"{name} in the lobby")
    await (await host.click(lobby, label="Start")).wait_ack()
    channel = world.guild.channel_id
    await world.discord.wait_for(lambda: boards(world.discord, channel), 5, "the first board")
    return lobby


async def test_two_children_play_a_whole_game_from_their_dms(world: World) -> None:
    fake, channel = world.discord, world.guild.channel_id
    alice, bob = world["Alice"], world["Bob"]
    lobby = await open_and_start(world, "Bob")
    assert lobby.buttons() == []  # the lobby closed when the game started
    by_id = {alice.id: alice, bob.id: bob}
    for _ in range(80):
        board = boards(fake, channel)[-1]
        assert board.png_files(), "every board is a real PNG"
        assert board.files[0].description, "every board has alt text"
        if not mentioned(board):  # the winning move: no one's turn; the result follows
            break
        turn = mentioned(board)[-1]  # the last line says whose turn it is
        player = by_id[turn]
        before = len(boards(fake, channel))
        await play_from_hand(player, await latest_hand(player))
        await fake.wait_for(lambda b=before: len(boards(fake, channel)) > b, 5, "the next board")
    final = await fake.wait_for(lambda: next(
        (b for b in boards(fake, channel) if "seq:rematch" in str(b.custom_ids())), None),
        5, "the final board")
    assert "🏆" in final.content and "Winning line" in final.content
    assert final.button(label="Rematch")
    # every move made a board; hands never reached the channel
    public = fake.visible_messages(channel)
    assert not any(f.filename == "hand.png" for m in public for f in m.files)
    assert not any(c.startswith("seq:card:") for m in public for c in m.custom_ids())
