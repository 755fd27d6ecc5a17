"""Lobbies: one per channel, host-only start and cancel, 2 to 4 seats, typed refusals."""

from __future__ import annotations

import pytest

from engine import InvalidOptions, Refusal
from manager import (
    GameManager,
    GameStarted,
    LobbyCancelled,
    LobbyChanged,
    ManagerError,
    ManualClock,
)

from .conftest import (
    ANN,
    BOB,
    CAT,
    CHANNEL,
    DAN,
    EVE,
    GUILD,
    OpenStore,
    Recorder,
    make_manager,
    two_player_game,
)


async def refused(code: str, call: object) -> Refusal:
    with pytest.raises(Refusal) as info:
        await call  # type: ignore[misc]
    assert info.value.code == code, info.value
    return info.value


async def test_host_takes_the_first_seat_and_others_join_in_order(
    manager: GameManager, recorder: Recorder
) -> None:
    lobby = await manager.create_lobby("kids", {"level": "2"}, ANN, GUILD, CHANNEL)
    await manager.join(lobby.game_id, BOB)
    view = await manager.add_computer(lobby.game_id, ANN.user_id, "hard")
    assert [(s.index, s.user_id, s.name, s.level) for s in view.seats] == [
        (0, 1, "Ann", None), (1, 2, "Bob", None), (2, None, "Computer 1", "hard")]
    assert view.status == "lobby" and view.host_id == ANN.user_id
    assert [e.reason for e in recorder.of(LobbyChanged)] == [
        "created", "joined", "computer_added"]
    assert manager.table_for_channel(CHANNEL) == view


async def test_one_lobby_or_game_per_channel_but_a_person_may_play_in_several(
    manager: GameManager,
) -> None:
    await manager.create_lobby("kids", {}, ANN, GUILD, CHANNEL)
    await refused("channel_busy", manager.create_lobby("dice", {}, BOB, GUILD, CHANNEL))
    other = await manager.create_lobby("dice", {}, ANN, GUILD, CHANNEL + 1)
    assert other.channel_id == CHANNEL + 1


async def test_every_bad_lobby_call_is_refused_with_a_stable_code(
    manager: GameManager,
) -> None:
    await refused("no_such_game", manager.join(12345, BOB))  # no such lobby
    await refused("unknown_game", manager.create_lobby("chess", {}, ANN, GUILD, CHANNEL))
    await refused("level_not_for_dice", manager.create_lobby("dice", {"level": "2"}, ANN, GUILD,
                                                    CHANNEL))
    lobby = await manager.create_lobby("kids", {}, ANN, GUILD, CHANNEL)
    await refused("already_joined", manager.join(lobby.game_id, ANN))
    await refused("not_enough_players", manager.start_game(lobby.game_id, ANN.user_id))
    await refused("bad_level", manager.add_computer(lobby.game_id, ANN.user_id, "genius"))
    await refused("not_in_lobby", manager.add_computer(lobby.game_id, EVE.user_id, "easy"))
    await refused("not_in_lobby", manager.leave(lobby.game_id, EVE.user_id))
    await manager.join(lobby.game_id, BOB)
    await refused("not_host", manager.start_game(lobby.game_id, BOB.user_id))
    await refused("not_host", manager.cancel(lobby.game_id, BOB.user_id))
    await refused("not_host", manager.remove_seat(lobby.game_id, BOB.user_id, 1))
    await manager.join(lobby.game_id, CAT)
    await manager.join(lobby.game_id, DAN)
    err = await refused("lobby_full", manager.join(lobby.game_id, EVE))
    assert isinstance(err, ManagerError) and isinstance(err, ValueError)
    assert err.params == {"seats": 4}
    await manager.start_game(lobby.game_id, ANN.user_id)
    await refused("game_started", manager.join(lobby.game_id, EVE))


async def test_a_team_game_seats_the_teams_alternately(manager: GameManager) -> None:
    lobby = await manager.create_lobby("kids", {"teams": True}, ANN, GUILD, CHANNEL)
    for p in (BOB, CAT, DAN):
        await manager.join(lobby.game_id, p)
    view = await manager.start_game(lobby.game_id, ANN.user_id)
    obs = manager.spectator_observation(view.game_id)
    # Ann and Cat (1st and 3rd to join) against Bob and Dan.
    assert obs["sides"] == [[0, 2], [1, 3]]
    assert [view.seats[i].name for i in obs["sides"][0]] == ["Ann", "Cat"]


async def test_teams_with_three_players_are_refused_at_start(manager: GameManager) -> None:
    lobby = await manager.create_lobby("kids", {"teams": True}, ANN, GUILD, CHANNEL)
    await manager.join(lobby.game_id, BOB)
    await manager.join(lobby.game_id, CAT)
    with pytest.raises(InvalidOptions) as info:
        await manager.start_game(lobby.game_id, ANN.user_id)
    assert info.value.code == "teams_need_four"
    assert manager.table_for_channel(CHANNEL) is not None  # still a lobby, nothing lost


async def test_leaving_renumbers_seats_and_the_host_leaving_cancels(
    manager: GameManager, recorder: Recorder
) -> None:
    lobby = await manager.create_lobby("dice", {}, ANN, GUILD, CHANNEL)
    await manager.join(lobby.game_id, BOB)
    await manager.join(lobby.game_id, CAT)
    view = await manager.leave(lobby.game_id, BOB.user_id)
    assert [(s.index, s.name) for s in view.seats] == [(0, "Ann"), (1, "Cat")]
    await manager.leave(lobby.game_id, ANN.user_id)
    assert manager.table_for_channel(CHANNEL) is None
    assert recorder.of(LobbyCancelled)[-1].reason == "host_left"


async def test_host_cancels_and_the_channel_is_free_again(manager: GameManager) -> None:
    lobby = await manager.create_lobby("kids", {}, ANN, GUILD, CHANNEL)
    await manager.cancel(lobby.game_id, ANN.user_id)
    assert manager.table_for_channel(CHANNEL) is None
    lobby = await manager.create_lobby("kids", {}, BOB, GUILD, CHANNEL)


async def test_start_deals_and_announces_the_game(
    manager: GameManager, recorder: Recorder
) -> None:
    lobby = await manager.create_lobby("kids", {}, ANN, GUILD, CHANNEL)
    await manager.join(lobby.game_id, BOB)
    view = await manager.start_game(lobby.game_id, ANN.user_id)
    assert view.status == "playing" and view.turn == 0
    started = recorder.of(GameStarted)
    assert len(started) == 1 and started[0].observation["seat"] is None
    assert "hand" not in started[0].observation  # the channel never sees a hand
    assert len(manager.observation_for(view.game_id, BOB.user_id)["hand"]) == 3


async def test_server_defaults_fill_missing_options(manager: GameManager) -> None:
    await manager.set_guild_settings(GUILD, defaults={"kids": {"level": "1"}})
    view = await manager.create_lobby("kids", {}, ANN, GUILD, CHANNEL)
    assert view.options == {"level": "1"}
    await refused("bad_setting", manager.set_guild_settings(GUILD, turn_timer=-5))
    await refused("bad_setting", manager.set_guild_settings(GUILD, colour="pink"))


async def test_a_lobby_survives_a_restart(open_store: OpenStore, clock: ManualClock) -> None:
    store = await open_store()
    m = make_manager(store, clock)
    await m.start(run_timers=False)
    lobby = await m.create_lobby("dice", {"sequence_length": 5}, ANN, GUILD, CHANNEL)
    await m.join(lobby.game_id, BOB)
    before = m.table_for_channel(CHANNEL)
    await m.close()
    await store.close()

    store = await open_store()
    m = make_manager(store, clock)
    await m.start(run_timers=False)
    assert m.table_for_channel(CHANNEL) == before
    await m.start_game(lobby.game_id, ANN.user_id)
    await m.close()
    await store.close()


async def test_a_game_moved_to_its_thread_is_found_there_and_frees_its_channel(
        open_store: OpenStore, clock: ManualClock) -> None:
    thread = CHANNEL + 1
    store = await open_store()
    m = make_manager(store, clock)
    await m.start(run_timers=False)
    gid = await two_player_game(m, "kids")
    moved = await m.move_game(gid, thread)
    assert moved.channel_id == thread and m.table_for_channel(thread) == moved
    assert m.table_for_channel(CHANNEL) is None
    await m.create_lobby("dice", {}, CAT, GUILD, CHANNEL)  # the channel is free again
    with pytest.raises(ManagerError) as refused:  # a channel holds one game at a time
        await m.move_game(gid, CHANNEL)
    assert refused.value.code == "channel_busy"
    await m.close()
    await store.close()

    store = await open_store()  # and it stays moved across a restart
    m = make_manager(store, clock)
    await m.start(run_timers=False)
    assert m.get(gid).channel_id == thread and m.table_for_channel(thread) is not None
    await m.close()
    await store.close()


async def test_may_start_says_what_start_game_would_do(manager: GameManager) -> None:
    """The Discord side asks before it opens a game's thread: the answer is the start's own
    rule (the host, two seats at least, a lobby still open), never a copy of it."""
    lobby = await manager.create_lobby("kids", {}, ANN, GUILD, CHANNEL)
    assert not manager.may_start(lobby.game_id, ANN.user_id)  # one seat
    await refused("not_enough_players", manager.start_game(lobby.game_id, ANN.user_id))
    await manager.join(lobby.game_id, BOB)
    assert not manager.may_start(lobby.game_id, BOB.user_id)  # not the host
    await refused("not_host", manager.start_game(lobby.game_id, BOB.user_id))
    assert manager.may_start(lobby.game_id, ANN.user_id)
    await manager.start_game(lobby.game_id, ANN.user_id)
    assert not manager.may_start(lobby.game_id, ANN.user_id)  # started already
    assert not manager.may_start(99999, ANN.user_id)  # no such game
