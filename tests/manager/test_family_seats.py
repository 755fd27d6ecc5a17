"""Family seats: a child without a Discord account plays from a grown-up's account.

Discord's accounts are for 13 and over, Sequence for Kids is for small children: the seat
is the child's (its name in the legend, its own hand, its own results), the clicks are the
grown-up's. A grown-up may hold several seats; whatever they do acts for the seat whose
turn it is, or for the seat they name.
"""

from __future__ import annotations

import random

import pytest

from engine import Refusal
from manager import GameManager, ManualClock, Player

from .conftest import ANN, BOB, CHANNEL, GUILD, OpenStore, make_manager

MUM = Player(7, "Mum")


async def family_lobby(manager: GameManager, **kw: object) -> int:
    """Ann hosts; Mum joins and adds Emma: seats Ann, Mum, Emma (with Mum)."""
    table = await manager.create_lobby("kids", {}, ANN, GUILD, CHANNEL, **kw)  # type: ignore[arg-type]
    await manager.join(table.game_id, MUM)
    await manager.add_child(table.game_id, MUM, "Emma")
    return table.game_id


async def test_a_grown_up_adds_a_child_who_gets_a_seat_of_their_own(
        manager: GameManager) -> None:
    gid = await family_lobby(manager)
    seats = manager.get(gid).seats
    assert [(s.name, s.user_id, s.guardian) for s in seats] == [
        ("Ann", ANN.user_id, None), ("Mum", MUM.user_id, None), ("Emma", MUM.user_id, "Mum")]
    assert seats[2].is_child and not seats[1].is_child
    assert manager.get(gid).held_seats(MUM.user_id) == [1, 2]


async def test_a_grown_up_may_hold_only_childrens_seats(manager: GameManager) -> None:
    lobby = await manager.create_lobby("kids", {}, ANN, GUILD, CHANNEL)
    view = await manager.add_child(lobby.game_id, MUM, "Noah")
    assert [s.name for s in view.seats] == ["Ann", "Noah"]
    view = await manager.join(lobby.game_id, MUM)  # and join themselves afterwards
    assert [s.name for s in view.seats] == ["Ann", "Noah", "Mum"]


@pytest.mark.parametrize(("name", "code"), [
    ("", "child_name_empty"), ("   ", "child_name_empty"),
    ("A" * 21, "child_name_long"), ("emma", "child_name_taken"), ("ann", "child_name_taken")])
async def test_a_childs_name_is_one_to_twenty_letters_and_not_taken(
        manager: GameManager, name: str, code: str) -> None:
    gid = await family_lobby(manager)
    before = manager.get(gid).seats
    with pytest.raises(Refusal) as refused:
        await manager.add_child(gid, MUM, name)
    assert refused.value.code == code
    assert manager.get(gid).seats == before


async def test_a_name_of_twenty_letters_is_fine_and_spaces_are_tidied(
        manager: GameManager) -> None:
    lobby = await manager.create_lobby("kids", {}, ANN, GUILD, CHANNEL)
    view = await manager.add_child(lobby.game_id, MUM, "  Anna   Maria  ")
    assert view.seats[-1].name == "Anna Maria"
    view = await manager.add_child(lobby.game_id, MUM, "B" * 20)
    assert view.seats[-1].name == "B" * 20


async def test_the_host_can_turn_family_seats_off(manager: GameManager) -> None:
    lobby = await manager.create_lobby("kids", {}, ANN, GUILD, CHANNEL, family_seats=False)
    with pytest.raises(Refusal) as refused:
        await manager.add_child(lobby.game_id, MUM, "Emma")
    assert refused.value.code == "family_seats_off"


async def test_a_full_table_takes_no_child(manager: GameManager) -> None:
    lobby = await manager.create_lobby("kids", {}, ANN, GUILD, CHANNEL)
    for name in ("A", "B", "C"):
        await manager.add_child(lobby.game_id, MUM, name)
    with pytest.raises(Refusal) as refused:
        await manager.add_child(lobby.game_id, MUM, "D")
    assert refused.value.code == "lobby_full"


async def test_the_grown_up_or_the_host_removes_a_child_before_the_start_but_no_stranger(
        manager: GameManager) -> None:
    gid = await family_lobby(manager)
    with pytest.raises(Refusal):
        await manager.remove_seat(gid, BOB.user_id, 2)
    await manager.remove_seat(gid, MUM.user_id, 2)  # Mum removes Emma
    assert [s.name for s in manager.get(gid).seats] == ["Ann", "Mum"]
    await manager.add_child(gid, MUM, "Emma")
    with pytest.raises(Refusal):
        await manager.remove_seat(gid, MUM.user_id, 0)  # not the host's seat
    await manager.remove_seat(gid, ANN.user_id, 2)  # the host removes Emma
    assert [s.name for s in manager.get(gid).seats] == ["Ann", "Mum"]


async def test_a_grown_up_who_leaves_the_lobby_takes_their_children_along(
        manager: GameManager) -> None:
    gid = await family_lobby(manager)
    await manager.join(gid, BOB)
    await manager.leave(gid, MUM.user_id)
    assert [s.name for s in manager.get(gid).seats] == ["Ann", "Bob"]


async def test_the_grown_up_plays_each_seat_on_its_turn_and_sees_each_hand(
        manager: GameManager) -> None:
    gid = await family_lobby(manager)
    await manager.start_game(gid, ANN.user_id)
    rng = random.Random(3)
    played = set()
    for _ in range(9):
        view = manager.get(gid)
        assert view.turn is not None
        user = view.seats[view.turn].user_id
        assert user is not None
        obs = manager.observation_for(gid, user)
        assert obs["seat"] == view.turn  # Mum's view is of the seat whose turn it is
        await manager.submit(gid, user, rng.choice(obs["legal"]))
        played.add(view.turn)
    assert {1, 2} <= played
    mums, emmas = manager.seat_observation(gid, 1), manager.seat_observation(gid, 2)
    assert mums["seat"] == 1 and emmas["seat"] == 2 and mums["hand"] != [] != emmas["hand"]
    with pytest.raises(Refusal) as refused:  # Bob is at no seat
        await manager.submit(gid, BOB.user_id, "pass")
    assert refused.value.code == "not_a_player"


async def test_a_grown_up_with_two_seats_says_which_to_resign(manager: GameManager) -> None:
    gid = await family_lobby(manager)
    await manager.start_game(gid, ANN.user_id)
    with pytest.raises(Refusal) as refused:
        await manager.resign(gid, MUM.user_id)
    assert refused.value.code == "which_seat" and "Emma" in refused.value.params["seats"]
    with pytest.raises(Refusal):
        await manager.resign(gid, MUM.user_id, seat=0)  # Ann's seat is not Mum's
    await manager.resign(gid, MUM.user_id, seat=2)  # Mum resigns for Emma
    seats = manager.get(gid).seats
    assert seats[2].resigned and not seats[1].resigned
    await manager.resign(gid, MUM.user_id)  # one seat left: no need to say which
    assert not manager.is_active(gid)  # Ann is the last side standing


async def test_a_childs_results_are_kept_apart_from_the_grown_ups(
        manager: GameManager) -> None:
    gid = await family_lobby(manager)
    await manager.start_game(gid, ANN.user_id)
    await manager.resign(gid, ANN.user_id)
    await manager.resign(gid, MUM.user_id, seat=1)  # Emma wins alone
    standings = manager.store.standings
    mum = await standings.stats(MUM.user_id, guild_id=GUILD)
    emma = await standings.stats(MUM.user_id, guild_id=GUILD, child="Emma")
    assert (mum.games, mum.wins) == (1, 0) and (emma.games, emma.wins) == (1, 1)
    assert await standings.children_of(MUM.user_id, guild_id=GUILD) == ["Emma"]
    ranking = await standings.ranking(GUILD)
    assert {(r.name, r.guardian) for r in ranking} >= {("Emma", "Mum"), ("Mum", None)}


async def test_child_seats_and_their_grown_up_survive_a_restart(
        open_store: OpenStore, clock: ManualClock) -> None:
    store = await open_store()
    m = make_manager(store, clock)
    await m.start(run_timers=False)
    gid = await family_lobby(m)
    await m.start_game(gid, ANN.user_id)
    view = m.get(gid)
    await m.close()
    await store.close()
    store = await open_store()
    m = make_manager(store, clock)
    await m.start(run_timers=False)
    assert m.get(gid) == view and m.get(gid).seats[2].guardian == "Mum"
    await m.close()
    await store.close()


async def test_a_game_has_its_own_turn_timer_kept_across_a_restart(
        open_store: OpenStore, clock: ManualClock) -> None:
    store = await open_store()
    m = make_manager(store, clock)
    await m.start(run_timers=False)
    table = await m.create_lobby("kids", {}, ANN, GUILD, CHANNEL, turn_timer=120)
    assert table.turn_timer == 120
    await m.join(table.game_id, BOB)
    await m.start_game(table.game_id, ANN.user_id)
    view = m.get(table.game_id)
    assert view.turn_deadline == clock.now() + 120  # the server has no timer at all
    await m.close()
    await store.close()
    store = await open_store()
    m = make_manager(store, clock)
    await m.start(run_timers=False)
    assert m.get(table.game_id).turn_timer == 120
    await m.close()
    await store.close()


async def test_a_game_can_turn_the_servers_timer_off(manager: GameManager) -> None:
    await manager.set_guild_settings(GUILD, turn_timer=60)
    table = await manager.create_lobby("kids", {}, ANN, GUILD, CHANNEL, turn_timer=0)
    await manager.join(table.game_id, BOB)
    await manager.start_game(table.game_id, ANN.user_id)
    view = manager.get(table.game_id)
    assert view.turn_timer is None and view.turn_deadline is None


async def test_a_turn_timer_past_a_day_is_refused(manager: GameManager) -> None:
    with pytest.raises(Refusal) as refused:
        await manager.create_lobby("kids", {}, ANN, GUILD, CHANNEL, turn_timer=90_000)
    assert refused.value.code == "bad_setting"
    assert manager.tables() == []
