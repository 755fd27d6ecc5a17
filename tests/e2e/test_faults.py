"""Discord misbehaving mid-game: the game goes on and nothing is lost or doubled."""

from __future__ import annotations

from tests.e2e.conftest import World
from tests.e2e.people import begin_game, boards, latest_hand, play_from_hand, whose_turn


async def started(world: World) -> None:
    await begin_game(world.discord, world["Alice"], world["Bob"])


async def one_move(world: World) -> None:
    fake, channel = world.discord, world.guild.channel_id
    board = boards(fake, channel)[-1]
    mover = world["Alice"] if whose_turn(board) == world["Alice"].id else world["Bob"]
    count = len(boards(fake, channel))
    await play_from_hand(mover, await latest_hand(mover, timeout=10))
    await fake.wait_for(lambda: len(boards(fake, channel)) > count, 10, "the next board")


async def test_a_rate_limited_board_is_retried_and_posted_once(world: World) -> None:
    await started(world)
    fake, channel = world.discord, world.guild.channel_id
    fault = fake.faults.rate_limit(times=2, retry_after=0.05, method="POST",
                                   path=rf"/channels/{channel}/messages$")
    before = len(boards(fake, channel))
    await one_move(world)
    assert fault.hits == 2
    assert len(boards(fake, channel)) == before + 1


async def test_a_dropped_gateway_resumes_and_the_game_goes_on(world: World) -> None:
    await started(world)
    await one_move(world)
    await world.discord.disconnect(resume=True)
    await one_move(world)
    assert world.discord.resumed == 1


async def test_a_discord_outage_on_a_dm_does_not_stop_the_game(world: World) -> None:
    await started(world)
    fake = world.discord
    # the next message send fails with 502: discord.py waits a second and retries
    fault = fake.faults.server_errors(502, times=1, method="POST",
                                      path=r"/channels/\d+/messages$")
    await one_move(world)
    await one_move(world)
    assert fault.hits == 1
