"""Invariants over random games (hypothesis): cards are conserved, no chip on a free corner,
legal_actions is exact, the JSON round trip and replay are faithful, observations leak
nothing, chips vanish only by a Dragon, a 10 or a replacement, and random play always ends."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.game import Game
from engine.kids import KidsGame
from engine.kids_board import CARDS, CORNER_MASK
from engine.spaces import space_name

SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def setups(draw: st.DrawFn) -> dict[str, Any]:
    game = draw(st.sampled_from(["kids", "dice"]))
    seats = draw(st.integers(2, 4))
    options: dict[str, Any] = {}
    if game == "kids":
        options["level"] = draw(st.sampled_from(["1", "2", "3", "normal"]))
        if seats == 4:
            options["teams"] = draw(st.booleans())
    elif seats != 4:
        options["sequence_length"] = draw(st.sampled_from([5, 6]))
    return {"game": game, "seats": seats, "seed": draw(st.integers(0, 2**62)),
            "options": options, "choices": draw(st.integers(0, 2**32))}


def new(setup: dict[str, Any]) -> Game:
    return engine.new_game(setup["game"], setup["seats"], setup["seed"], **setup["options"])


def random_play(setup: dict[str, Any], limit: int = 20_000) -> Iterator[Game]:
    """Yield the game after each action of a random game (with a rare resignation)."""
    g = new(setup)
    rng = random.Random(setup["choices"])
    yield g
    for _ in range(limit):
        if g.is_over:
            return
        if rng.random() < 0.005:
            seat = rng.randrange(g.seats)
            if not g.resigned[seat]:
                g.resign(seat)
                yield g
                continue
        legal = g.legal_actions()
        g.apply(rng.choice(legal))
        yield g
    raise AssertionError(f"not over after {limit} actions")


def well_formed_actions(g: Game) -> list[str]:
    spaces = [space_name(s, g.width) for s in range(g.width * g.height)]
    if isinstance(g, KidsGame):
        return ([f"{c}@{s}" for c in CARDS for s in spaces]
                + [f"dead:{c}" for c in CARDS] + ["pass"])
    return (["roll", "pass"]
            + [f"{k}@{s}" for k in ("place", "replace", "remove") for s in spaces])


@SETTINGS
@given(setups())
def test_random_play_always_ends(setup: dict[str, Any]) -> None:
    *_, g = random_play(setup)
    assert g.is_over
    assert (g.winner is None) == g.draw


@SETTINGS
@given(setups())
def test_cards_are_conserved_and_no_chip_is_ever_on_a_free_corner(setup: dict[str, Any]) -> None:
    for g in random_play(setup):
        if isinstance(g, KidsGame):
            total = len(g.deck) + sum(map(len, g.hands)) + sum(map(len, g.discards))
            assert total == (42 if g.level == "normal" else 38)
            assert not g.occupied & CORNER_MASK
            assert all(len(h) <= g.hand_size for h in g.hands)
        # chips never overlap, and occupied is exactly their union
        union = 0
        for mask in g.chips:
            assert not union & mask
            union |= mask
        assert union == g.occupied


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(setups())
def test_every_legal_action_applies_and_every_other_well_formed_action_is_refused(
    setup: dict[str, Any],
) -> None:
    for step, g in enumerate(random_play(setup)):
        if g.is_over or step % 7:
            continue
        saved = g.to_dict()
        legal = set(g.legal_actions())
        accepted = set()
        for action in well_formed_actions(g):
            try:
                g.apply(action)
            except engine.IllegalAction:
                assert g.to_dict() == saved, action  # a refusal changes nothing
                continue
            accepted.add(action)
            restored = engine.load(saved)
            g.__dict__.update(restored.__dict__)
        assert accepted == legal


@SETTINGS
@given(setups())
def test_a_game_survives_a_trip_through_json_and_replays_from_its_history(
    setup: dict[str, Any],
) -> None:
    for step, g in enumerate(random_play(setup)):
        if step % 5 == 0 or g.is_over:
            copy = engine.load(json.loads(json.dumps(g.to_dict())))
            assert copy == g
            assert copy.legal_actions() == g.legal_actions()
    replayed = engine.replay(setup["game"], setup["seats"], setup["seed"], g.history,
                             **setup["options"])
    assert replayed == g


def hide_secrets_differently(g: Game, seat: int, rng: random.Random) -> Game:
    """The same game but for what ``seat`` cannot know: other hands and the deck order are
    shuffled among themselves (hand sizes kept)."""
    other = engine.load(g.to_dict())
    if isinstance(other, KidsGame):
        hidden = list(other.deck)
        for s, hand in enumerate(other.hands):
            if s != seat:
                hidden += hand
        rng.shuffle(hidden)
        for s in range(other.seats):
            if s != seat:
                n = len(other.hands[s])
                other.hands[s], hidden = hidden[:n], hidden[n:]
        other.deck = hidden
    return other


@SETTINGS
@given(setups())
def test_an_observation_reveals_no_hidden_card(setup: dict[str, Any]) -> None:
    rng = random.Random(setup["seed"])
    for step, g in enumerate(random_play(setup)):
        if step % 4:
            continue
        for seat in [None, *range(g.seats)]:
            view = g.observation(seat)
            other = hide_secrets_differently(g, -1 if seat is None else seat, rng)
            assert other.observation(seat) == view
            if isinstance(g, KidsGame) and seat is not None:
                assert view["hand"] == [CARDS[c] for c in g.hands[seat]]
            text = json.dumps(view)
            assert "deck\"" not in text  # no deck order, only its size


@SETTINGS
@given(setups())
def test_a_chip_leaves_the_board_only_by_a_dragon_a_ten_or_a_replacement(
    setup: dict[str, Any],
) -> None:
    before = None
    for g in random_play(setup):
        if before is not None and g.history:
            gone = before & ~g.occupied
            if gone:
                action = g.history[-1]
                assert action.startswith(("dragon@", "remove@", "replace@")), action
                assert bin(gone).count("1") == 1
        before = g.occupied


@SETTINGS
@given(setups())
def test_the_seat_to_move_is_never_a_resigned_seat(setup: dict[str, Any]) -> None:
    for g in random_play(setup):
        if not g.is_over:
            seat = g.current_seat
            assert seat is not None and not g.resigned[seat]
