"""The engine's public face: options, action text, errors, seats leaving, observations,
the JSON round trip and replay."""

from __future__ import annotations

import json
import random

import pytest

import engine
from engine import IllegalAction, InvalidOptions
from engine.kids import KidsGame

from .positions import dice, kids

# -- options ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("game", "seats", "options", "code"),
    [
        ("kids", 5, {}, "bad_seats"),
        ("kids", 1, {}, "bad_seats"),
        ("dice", 5, {}, "bad_seats"),
        ("kids", 3, {"teams": True}, "teams_need_four"),
        ("kids", 2, {"teams": True}, "teams_need_four"),
        ("dice", 3, {"teams": True}, "teams_need_four"),
        ("dice", 2, {"sequence_length": 7}, "bad_sequence_length"),
        ("dice", 2, {"sequence_length": 4}, "bad_sequence_length"),
        ("dice", 2, {"level": "1"}, "level_not_for_dice"),
        ("kids", 2, {"level": "4"}, "bad_level"),
        ("kids", 2, {"sequence_length": 5}, "length_not_for_kids"),
        ("kids", 2, {"colour": "red"}, "unknown_option"),
        ("chess", 2, {}, "unknown_game"),
        ("kids", 2, {"teams": "yes"}, "bad_option"),
    ],
)
def test_impossible_options_are_refused_with_a_clear_error(game: str, seats: int,
                                                          options: dict[str, object],
                                                          code: str) -> None:
    with pytest.raises(InvalidOptions) as e:
        engine.new_game(game, seats, 1, **options)
    assert e.value.code == code
    assert isinstance(e.value, ValueError) and e.value.message


def test_a_seed_must_be_a_whole_number() -> None:
    with pytest.raises(InvalidOptions):
        engine.new_game("kids", 2, "seven")  # type: ignore[arg-type]


def test_team_play_in_kids_is_two_teams_of_two_seated_alternately() -> None:
    g = engine.new_game("kids", 4, 1, teams=True)
    assert g.sides == [[0, 2], [1, 3]]
    assert g.observation(None)["colours"] == ["red", "blue"]
    assert engine.new_game("kids", 4, 1).sides == [[0], [1], [2], [3]]


# -- action text ----------------------------------------------------------------------------


def test_actions_are_case_insensitive_and_trimmed_on_input_and_upper_case_in_output() -> None:
    g = kids(2, hands={0: ["lion", "fox", "wolf"]})
    g.apply("  LION@b3 ")
    assert g.history == ["lion@B3"]


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("", "malformed"),
        ("lion", "malformed"),
        ("lion@", "bad_space"),
        ("lion@B3@C4", "malformed"),
        ("lion@Z9", "space_off_board"),
        ("lion@B8", "space_off_board"),
        ("lion@33", "bad_space"),
        ("tiger-king@B3", "unknown_card"),
        ("dead:", "unknown_card"),
        ("roll", "malformed"),
        ("lion@B3; DROP TABLE games", "bad_space"),
        ("🦁@B3", "unknown_card"),
    ],
)
def test_malformed_kids_text_is_refused_with_a_specific_code(text: str, code: str) -> None:
    g = kids(2, hands={0: ["lion", "fox", "wolf"]})
    before = g.to_dict()
    with pytest.raises(IllegalAction) as e:
        g.apply(text)
    assert e.value.code == code
    assert g.to_dict() == before


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("place", "malformed"),
        ("put@B2", "malformed"),
        ("place@G1", "space_off_board"),
        ("lion@B2", "malformed"),
    ],
)
def test_malformed_dice_text_is_refused_with_a_specific_code(text: str, code: str) -> None:
    g = dice(2, roll=(3, 4))
    before = g.to_dict()
    with pytest.raises(IllegalAction) as e:
        g.apply(text)
    assert e.value.code == code
    assert g.to_dict() == before


def test_a_non_string_action_is_refused() -> None:
    g = kids(2)
    with pytest.raises(IllegalAction) as e:
        g.apply(42)  # type: ignore[arg-type]
    assert e.value.code == "malformed"


def test_legal_actions_are_sorted_and_unique_even_with_two_copies_of_a_card() -> None:
    g = kids(2, hands={0: ["lion", "lion", "wolf"]})
    legal = g.legal_actions()
    assert legal == sorted(set(legal))
    assert legal.count("lion@B3") == 1


# -- leaving, resigning, skipping ---------------------------------------------------------


def test_a_resigned_players_chips_stay_and_their_seat_is_skipped() -> None:
    g = kids(3, chips={1: "B3"}, hands={0: ["fox", "wolf", "camel"]})
    g.resign(1)
    assert g.observation(None)["board"][13] == 1
    g.apply(g.legal_actions()[0])
    assert g.current_seat == 2
    assert g.history[0] == "resign:1"


def test_the_last_side_standing_wins() -> None:
    g = kids(3)
    g.resign(1)
    assert not g.is_over
    g.resign(0)
    assert g.winner == 2 and g.end_reason == "last_side_standing"


def test_a_team_plays_on_while_one_member_remains() -> None:
    g = kids(4, teams=True)
    g.resign(0)
    assert not g.is_over
    g.resign(1)
    assert not g.is_over
    g.resign(3)
    assert g.winner == 0  # seat 2 is still there for team 0


def test_resigning_on_your_turn_passes_the_turn() -> None:
    g = dice(3, roll=(3, 4), current=0)
    g.resign(0)
    assert g.current_seat == 1 and g.legal_actions() == ["roll"]


def test_resigning_twice_or_for_no_seat_is_refused() -> None:
    g = kids(3)
    g.resign(2)
    with pytest.raises(IllegalAction) as e:
        g.resign(2)
    assert e.value.code == "already_resigned"
    with pytest.raises(IllegalAction) as e:
        g.resign(7)
    assert e.value.code == "no_such_seat"


def test_a_seat_handed_to_a_computer_is_in_the_history_and_changes_nothing_else() -> None:
    g = kids(3)
    before = g.to_dict()
    g.hand_over(1)
    after = g.to_dict()
    assert after.pop("history") == ["computer:1"]
    before.pop("history")
    assert after == before
    again = engine.replay("kids", 3, 1, g.history)
    assert again.history == ["computer:1"]
    g.resign(2)
    with pytest.raises(IllegalAction) as e:
        g.hand_over(2)
    assert e.value.code == "already_resigned"


def test_a_skipped_turn_places_nothing_and_moves_on() -> None:
    g = kids(2, hands={0: ["fox", "wolf", "camel"]})
    hand = list(g.hands[0])
    g.skip()
    assert g.current_seat == 1 and g.hands[0] == hand and g.occupied == 0
    assert g.observation(None)["last"]["action"] == "skip"


# -- observations ----------------------------------------------------------------------------


def test_a_spectator_sees_the_board_discards_and_counts_but_no_hand() -> None:
    g = engine.new_game("kids", 3, 2)
    g.apply(g.legal_actions()[0])
    obs = g.observation(None)
    assert "hand" not in obs and obs["legal"] == []
    assert obs["hand_sizes"] == [3, 3, 3] and obs["deck_size"] == 42 - 9 - 1
    assert json.loads(json.dumps(obs)) == obs


def test_only_the_seat_to_move_gets_its_legal_actions() -> None:
    g = engine.new_game("kids", 2, 2)
    assert g.observation(0)["legal"] == g.legal_actions()
    assert g.observation(1)["legal"] == []


def test_dice_observation_shows_the_current_roll_to_everyone() -> None:
    g = engine.new_game("dice", 2, 2)
    assert g.observation(0)["dice"] is None
    g.apply("roll")
    assert g.observation(None)["dice"] == g.observation(0)["dice"]
    assert len(g.observation(None)["dice"]) == 2


def test_the_observation_of_a_seat_out_of_range_is_refused() -> None:
    with pytest.raises(ValueError):
        engine.new_game("kids", 2, 2).observation(2)


# -- round trip and replay -------------------------------------------------------------------


@pytest.mark.parametrize("game", ["kids", "dice"])
def test_a_restored_game_goes_on_exactly_as_the_original(game: str) -> None:
    g = engine.new_game(game, 3, 77)
    for _ in range(15):
        g.apply(g.legal_actions()[len(g.legal_actions()) // 2])
    copy = engine.load(json.loads(json.dumps(g.to_dict())))
    assert copy == g
    while not g.is_over:
        action = g.legal_actions()[-1]
        g.apply(action)
        copy.apply(action)
        assert copy == g


def test_replaying_the_history_on_the_same_seed_gives_an_equal_game() -> None:
    g = engine.new_game("kids", 4, 5, teams=True)
    for i in range(12):
        g.apply(g.legal_actions()[i % len(g.legal_actions())])
    g.hand_over(1)
    g.resign(3)
    g.skip()
    again = engine.replay("kids", 4, 5, g.history, teams=True)
    assert again == g


def test_a_different_seed_deals_differently() -> None:
    a = engine.new_game("kids", 2, 1)
    b = engine.new_game("kids", 2, 2)
    assert isinstance(a, KidsGame) and isinstance(b, KidsGame)
    assert a.hands != b.hands


def test_a_save_loads_through_the_registry_and_never_as_the_other_game() -> None:
    from engine.dice import DiceGame
    from engine.kids import KidsGame

    saved = json.loads(json.dumps(engine.new_game("dice", 2, seed=3).to_dict()))
    assert isinstance(engine.load(saved), DiceGame)
    assert engine.GAMES["kids"] is KidsGame and engine.GAMES["dice"] is DiceGame
    with pytest.raises(ValueError):
        KidsGame.from_dict(saved)


@pytest.mark.parametrize("game", ["kids", "dice"])
def test_every_observation_key_is_named_in_the_observation_type(game: str) -> None:
    from engine.observation import LastAction, Observation

    g = engine.new_game(game, 3, seed=4)
    for _ in range(5):
        g.apply(g.legal_actions()[0])
    for seat in (None, 0, 1, 2):
        obs = g.observation(seat)
        assert set(obs) <= set(Observation.__annotations__)
        assert Observation.__required_keys__ <= set(obs)
        last = obs["last"]
        assert last is not None and set(last) <= set(LastAction.__annotations__)
        assert LastAction.__required_keys__ <= set(last)


@pytest.mark.parametrize("game", ["kids", "dice"])
def test_the_engine_names_exactly_the_hands_a_move_changed(game: str) -> None:
    """``hands_changed`` is what a transport trusts to send new hands: every seat whose
    private view changed is named (a Kids card played or exchanged leaves the hand, and
    another is drawn, even the same animal again), and no other; Dice has no hidden
    hands."""
    rng = random.Random(7)
    named_a_draw = 0
    for seed in range(12):
        g = engine.new_game(game, 3, seed)
        while not g.is_over:
            seat = g.current_seat
            assert seat is not None
            before = [g.observation(s).get("hand") for s in range(3)]
            action = rng.choice(g.legal_actions())
            g.apply(action)
            changed = {s for s in range(3) if g.observation(s).get("hand") != before[s]}
            named = g.hands_changed(g.history[-1], seat)
            assert changed <= named, (action, changed, named)
            assert named <= {seat}
            played = game == "kids" and action != "pass"  # a card left the hand
            assert (seat in named) == played, action
            named_a_draw += played
    assert (named_a_draw > 0) == (game == "kids")
