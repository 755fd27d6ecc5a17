"""A dead card exchanged, and the next card dead too: the turn passes at once. The channel
never shows a board that still calls on the player whose turn has already gone.

Found as a flake of the metrics test: the board of the exchange read "Alice exchanged a
dead Giraffe card. It's @Alice's turn." while the forced pass had already been made, so a
person who believed it found ``/sequence play`` offering nothing (it was Bob's turn).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.e2e.conftest import World, make_world
from tests.e2e.people import begin_game, boards, game_of, whose_turn
from tests.engine.positions import DEAD_INTO_PASS_SEED, simple_choice
from tests.waiting import until


@pytest.fixture
async def seeded(tmp_path: Path) -> AsyncIterator[World]:
    async for world in make_world(tmp_path, ("Alice", "Bob"), game_seed=DEAD_INTO_PASS_SEED):
        yield world


async def test_a_dead_card_exchanged_for_another_shows_one_board_naming_the_next_player(
        seeded: World) -> None:
    fake, channel, manager = seeded.discord, seeded.guild.channel_id, seeded.bot.manager
    assert manager is not None
    alice, bob = seeded["Alice"], seeded["Bob"]
    _, first = await begin_game(fake, alice, bob, level="1")
    game = game_of(first)
    assert game is not None
    people = {alice.id: alice, bob.id: bob}
    for _ in range(120):
        view = manager.get(game)
        assert view.turn is not None, "the game ended before a dead card was exchanged"
        mover = view.seats[view.turn].user_id
        assert mover is not None
        action = simple_choice(manager.observation_for(game, mover)["legal"])
        posted = len(boards(fake, channel))
        await manager.submit(game, mover, action, expected_ply=view.ply)
        exchanged_into_a_pass = action.startswith("dead:") and manager.get(game).turn != view.turn
        # a board for the move, and the manager tells in order: every board of it is out
        await fake.wait_for(lambda n=posted: boards(fake, channel)[n:], 5, "the move's board")
        await until(lambda: not manager.announcing(game), "all of it told", 5)
        if not exchanged_into_a_pass:
            continue
        newest = boards(fake, channel)
        assert len(newest) == posted + 1, "one board for the exchange and the pass"
        (board,) = newest[posted:]
        lines = board.content.splitlines()
        assert "exchanged a dead" in lines[0] and lines[1].endswith("passed."), board.content
        next_player = whose_turn(board)
        assert next_player != mover and next_player == manager.get(game).seats[
            manager.get(game).turn].user_id  # type: ignore[index]
        # ... and the player it names can play, as a person would find with the command
        cards = await people[next_player].autocomplete("sequence play", "card", "",
                                                       channel=channel)
        assert cards, "autocomplete offers the playable cards"
        return
    raise AssertionError("no dead card was exchanged for another dead one in 120 moves")
