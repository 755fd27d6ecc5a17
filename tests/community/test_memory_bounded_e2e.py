"""A bot that plays for months keeps only what its live games need: everything the Discord
side remembers per game (lobby and board messages, boards posted, threads, "DMs are
closed" notes, the hand messages' rows and notes, the moves a click shows), in its memory
and in the store, is dropped when the game ends or its lobby is cancelled; what it keeps
per person (their DM door) is a bounded cache of the store's rows, one entry a person."""

from __future__ import annotations

from cogs.table.posted import Posted
from store import Store
from tests.community.play import lobby_of, won_by_resignation
from tests.e2e.conftest import World
from tests.waiting import until

GAMES = 50


async def test_fifty_finished_games_leave_nothing_behind_on_the_discord_side(
        world: World) -> None:
    fake, alice, bob = world.discord, world["Alice"], world["Bob"]
    desk = world.bot.desk
    manager = world.bot.manager
    assert desk is not None and manager is not None
    fake.faults.closed_dms.add(bob.id)  # the channel is told once per game: a note to drop
    for n in range(GAMES):
        winner, loser = (alice, bob) if n % 2 else (bob, alice)
        await won_by_resignation(world, winner, loser, game="dice" if n % 3 == 0 else "kids")
        # (the replay joins the final board after it: the game's entries go after that)
        await until(lambda: desk.posts.tracked_games() == 0 and desk.dms.tracked_games() == 0,
                    f"nothing kept after game {n + 1}")
    lobby = await lobby_of(world, alice)
    await (await alice.click(lobby, label="Cancel")).wait_ack()
    await until(lambda: manager.tables() == [], "the lobby cancelled")
    await until(lambda: desk.posts.tracked_games() == 0, "nothing kept of the lobby")
    store = world.bot.store
    assert store is not None
    # (the store's row goes just after the memory's)
    await until(lambda: kept_none(store), "no row kept of the lobby")
    # the DM side: nothing per game, no note left to write, no channel being opened, and a
    # door for each of the two people (Bob's closed), however many games they played
    await until(lambda: desk.dms.held()["notes"] == 0, "the hand notes written")
    assert desk.dms.held() == {"warned": 0, "retries": 0, "hand_locks": 0,
                               "doors": 2, "opening": 0, "hands": 0, "notes": 0}


async def kept_none(store: Store) -> bool:
    return not await Posted(store.rows).games_kept()
