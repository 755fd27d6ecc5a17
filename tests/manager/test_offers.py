"""What each person may do, as the manager says it (``GameManager.offer``), is what the
manager then accepts: every lobby action it offers is taken, and every one it does not is
refused; the moves it offers are the seat's legal actions, grouped as they are tapped."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from engine import Refusal
from manager import GameManager, Offer, Player

from .conftest import ANN, BOB, CAT, CHANNEL, DAN, EVE, GUILD, two_player_game

Act = Callable[[GameManager, int, Player], Awaitable[Any]]

LOBBY_ACTS: dict[str, Act] = {
    "join": lambda m, g, p: m.join(g, p),
    "add_child": lambda m, g, p: m.add_child(g, p, "Emma"),
    "add_computer": lambda m, g, p: m.add_computer(g, p.user_id, "easy"),
    "start": lambda m, g, p: m.start_game(g, p.user_id),
    "cancel": lambda m, g, p: m.cancel(g, p.user_id),
    "leave": lambda m, g, p: m.leave(g, p.user_id),
}


def offered(offer: Offer, what: str) -> bool:
    assert offer.lobby is not None
    return bool(getattr(offer.lobby, what))


async def lobby_with(manager: GameManager, guests: int, *, child_of: Player | None = None
                     ) -> int:
    lobby = await manager.create_lobby("kids", {}, ANN, GUILD, CHANNEL)
    for guest in (BOB, CAT, DAN)[:guests]:
        await manager.join(lobby.game_id, guest)
    if child_of is not None:
        await manager.add_child(lobby.game_id, child_of, "Mia")
    return lobby.game_id


@pytest.mark.parametrize("what", list(LOBBY_ACTS))
@pytest.mark.parametrize(("who", "guests", "child_of"), [
    (ANN, 1, None),  # the host
    (BOB, 1, None),  # a guest
    (EVE, 1, None),  # a stranger
    (EVE, 1, EVE),  # a grown-up holding only a child's seat
    (EVE, 3, None),  # a stranger at a full lobby
])
async def test_a_lobby_action_is_offered_exactly_when_the_manager_takes_it(
        manager: GameManager, what: str, who: Player, guests: int,
        child_of: Player | None) -> None:
    game_id = await lobby_with(manager, guests, child_of=child_of)
    offer = manager.offer(game_id, who.user_id)
    try:
        await LOBBY_ACTS[what](manager, game_id, who)
    except Refusal as refused:
        assert not offered(offer, what), f"{what} offered, then refused: {refused.code}"
    else:
        assert offered(offer, what), f"{what} not offered, yet the manager took it"


async def test_a_grown_up_holding_only_a_childs_seat_may_add_a_computer(
        manager: GameManager) -> None:
    game_id = await lobby_with(manager, 1, child_of=EVE)
    offer = manager.offer(game_id, EVE.user_id)
    assert offer.lobby is not None and offer.lobby.add_computer == ("easy", "medium", "hard")
    assert offer.lobby.join, "and may sit down too, in a seat of their own"


async def test_the_seats_say_their_kind_their_name_and_whose_they_are(
        manager: GameManager) -> None:
    game_id = await lobby_with(manager, 0, child_of=BOB)
    await manager.add_computer(game_id, ANN.user_id, "medium")
    await manager.add_computer(game_id, ANN.user_id, "medium")
    seats = manager.offer(game_id, BOB.user_id).seats
    assert [(s.kind, s.level, s.number, s.guardian, s.yours) for s in seats] == [
        ("person", None, None, None, False), ("child", None, None, "Bob", True),
        ("computer", "medium", 1, None, False), ("computer", "medium", 2, None, False)]
    assert manager.offer(game_id, BOB.user_id).seat_limit == 4


async def test_in_a_game_the_moves_are_the_seats_legal_actions_grouped_by_card(
        manager: GameManager) -> None:
    game_id = await two_player_game(manager)
    view = manager.get(game_id)
    mover = next(p for p in (ANN, BOB) if view.seats[view.turn or 0].user_id == p.user_id)
    other = BOB if mover is ANN else ANN
    offer = manager.offer(game_id, mover.user_id)
    legal = manager.observation_for(game_id, mover.user_id)["legal"]
    assert offer.moves is not None
    assert sorted(a.text for a in offer.moves.actions) == sorted(legal)
    for group in offer.moves.groups:
        assert all(a.first == group.first and a.space == space
                   for space, a in group.spaces.items())
    assert manager.offer(game_id, other.user_id).moves is None, "not their turn"
    assert manager.offer(game_id, EVE.user_id).resign == (), "a stranger holds no seat"


async def test_in_dice_the_roll_comes_first_then_all_its_spaces(
        manager: GameManager) -> None:
    game_id = await two_player_game(manager, game="dice")
    view = manager.get(game_id)
    mover = next(p for p in (ANN, BOB) if view.seats[view.turn or 0].user_id == p.user_id)
    before = manager.offer(game_id, mover.user_id).moves
    assert before is not None and before.roll is not None and before.groups == ()
    await manager.submit(game_id, mover.user_id, "roll")
    after = manager.offer(game_id, mover.user_id).moves
    if after is not None:  # (a roll that allows nothing passes the turn at once)
        assert after.roll is None and [g.first for g in after.groups] == ["roll"]


async def test_a_child_seat_is_for_sequence_for_kids(manager: GameManager) -> None:
    """A child's seat is there for the hand it holds: Dice has none, so a Dice lobby offers
    none, and the manager refuses one (the chat showed no button, the manager took it)."""
    lobby = await manager.create_lobby("dice", {}, ANN, GUILD, CHANNEL)
    offer = manager.offer(lobby.game_id, ANN.user_id)
    assert offer.lobby is not None and not offer.lobby.add_child
    with pytest.raises(Refusal) as refused:
        await manager.add_child(lobby.game_id, ANN, "Emma")
    assert refused.value.code == "family_seats_kids"
