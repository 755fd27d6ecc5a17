"""The one hint path: the manager asks the medium computer player for the asking player's
move, with its reason, and refuses anyone who may not ask."""

from __future__ import annotations

import pytest

from engine import Refusal
from engine.ai import Explanation, make_agent
from manager import GameManager, Hint

from .conftest import ANN, BOB, CAT, CHANNEL, GUILD, two_player_game


async def test_a_hint_is_the_medium_players_move_with_its_reason(manager: GameManager) -> None:
    gid = await two_player_game(manager)
    hint = await manager.hint(gid, ANN.user_id)
    assert isinstance(hint, Hint) and isinstance(hint.why, Explanation)
    obs = manager.observation_for(gid, ANN.user_id)
    assert hint.observation == obs and hint.action in obs["legal"]
    view = manager.get(gid)
    medium = make_agent("medium", view.game_id * 100_003 + view.ply)
    assert hint.action == medium.choose(obs)
    assert hint.why == medium.explain(obs, hint.action)
    assert await manager.hint(gid, ANN.user_id) == hint  # the same position, the same hint


@pytest.mark.parametrize(("who", "code"), [(BOB, "not_your_turn"), (CAT, "not_a_player")])
async def test_only_the_player_to_move_gets_a_hint(manager: GameManager, who: object,
                                                    code: str) -> None:
    gid = await two_player_game(manager)
    with pytest.raises(Refusal) as info:
        await manager.hint(gid, who.user_id)  # type: ignore[attr-defined]
    assert info.value.code == code


async def test_no_hint_in_a_lobby(manager: GameManager) -> None:
    table = await manager.create_lobby("kids", {}, ANN, GUILD, CHANNEL)
    with pytest.raises(Refusal) as info:
        await manager.hint(table.game_id, ANN.user_id)
    assert info.value.code == "game_not_started"
