"""A game's end is committed before its final board is posted; ``end_shown`` says whether
that board got out, so a restart (or another process) posts exactly the missing ones."""

from __future__ import annotations

from manager import GameManager, GameOver

from .conftest import ANN, BOB, CHANNEL, Recorder, two_player_game


async def test_an_end_is_not_shown_until_the_listener_says_so(
        manager: GameManager, recorder: Recorder) -> None:
    gid = await two_player_game(manager)
    await manager.resign(gid, BOB.user_id)
    told = recorder.of(GameOver)[-1]
    assert await manager.final_boards.owed() == [gid]
    again = await manager.final_boards.ending(gid)
    assert again is not None
    assert (again.winner, again.draw, again.reason, again.winning_seats,
            again.observation, again.table) == (
        told.winner, told.draw, told.reason, told.winning_seats, told.observation,
        told.table)
    await manager.final_boards.shown(gid)
    assert await manager.final_boards.owed() == []
    assert await manager.final_boards.ending(gid) is None


async def test_a_game_ended_without_a_result_has_no_end_to_show(
        manager: GameManager) -> None:
    gid = await two_player_game(manager)
    await manager.end(gid, ANN.user_id)  # stopped by the host: cancelled, no final board
    assert await manager.final_boards.owed() == []
    assert await manager.final_boards.ending(gid) is None
    lobby = await manager.create_lobby("kids", {}, ANN, 500, CHANNEL)
    assert await manager.final_boards.ending(lobby.game_id) is None, "a lobby has no end"
