"""What the hand message and a Dice turn's board say, in both languages (issue 25): pure
builders, called with a hand-made table."""

from __future__ import annotations

from typing import Any

import pytest

from cogs.table import hands, messages
from manager import Moved, Seat, TableView


def dice_table() -> TableView:
    seats = (Seat(0, 1, "Emma"), Seat(1, 2, "Ola"))
    return TableView(game_id=5, game="dice", options={"sequence_length": 5},
                     status="playing", guild_id=9, channel_id=10, host_id=1, seats=seats,
                     on_leave="skip", turn=1, ply=4, lobby_deadline=None, turn_deadline=None,
                     created_at=0.0)


def line(action: str, roll: list[int], lang: str, **obs: Any) -> str:
    observation = {"last_roll": roll, "is_over": False, **obs}
    event = Moved(dice_table(), 0, action, "player", 1, observation, None, None, 3)
    return messages.move_line(dice_table(), event, lang)


@pytest.mark.parametrize(("action", "roll", "lang", "said"), [
    ("place@E4", [6, 3], "en", "Emma rolled 6 + 3 = 9 and covered E4."),
    ("place@E4", [6, 3], "no", "Emma kastet 6 + 3 = 9 og dekket E4."),
    ("remove@C3", [5, 5], "en", "Emma rolled 5 + 5 = 10 and took the chip off C3."),
    ("remove@C3", [5, 5], "no", "Emma kastet 5 + 5 = 10 og fjernet sjetongen på C3."),
    ("replace@B2", [3, 4], "en",
     "Emma rolled 3 + 4 = 7 and put their own chip on B2 instead of the one there."),
    ("replace@B2", [3, 4], "no",
     "Emma kastet 3 + 4 = 7 og la sin egen sjetong på B2 i stedet for den som lå der."),
])
def test_the_board_after_a_dice_move_names_the_roll_and_the_move(
        action: str, roll: list[int], lang: str, said: str) -> None:
    assert line(action, roll, lang) == said


@pytest.mark.parametrize(("roll", "lang", "said"), [
    ([4, 4], "en", "Emma rolled 4 + 4 = 8, but every 8 already has their side's chip: "
                   "no move this time."),
    ([4, 4], "no", "Emma kastet 4 + 4 = 8, men alle feltene med 8 har allerede sjetonger "
                   "fra samme lag: ingen trekk denne gangen."),
    ([6, 4], "en", "Emma rolled 6 + 4 = 10, but there is no chip a 10 may take off: "
                   "no move this time."),
    ([6, 4], "no", "Emma kastet 6 + 4 = 10, men det finnes ingen sjetong en tier kan fjerne: "
                   "ingen trekk denne gangen."),
])
def test_a_roll_that_allows_no_move_says_so_on_the_board(roll: list[int], lang: str,
                                                          said: str) -> None:
    assert line("pass", roll, lang) == said


def test_a_two_or_a_twelve_says_it_rolls_again_unless_the_game_is_over() -> None:
    assert line("place@A1", [6, 6], "en").endswith("covered A1. With a 12, Emma rolls again.")
    assert line("place@A1", [1, 1], "no").endswith(
        "dekket A1. Med 2 får Emma kaste en gang til.")
    assert line("place@A1", [6, 6], "en", is_over=True).endswith("covered A1.")


def test_what_a_hand_message_shows_is_its_cards_with_the_dead_ones_marked() -> None:
    assert hands.hand_shown({"hand": ["lion", "camel"], "dead": ["camel"]}) == \
        "hand:lion,camel*"
    assert hands.hand_shown({"hand": []}) == "hand:"
    assert hands.choice_shown(7) == "choice:7"


def custom_ids(view: Any) -> list[str]:
    return [item.custom_id for item in view.children]


def test_a_cards_choices_on_the_hand_message_keep_a_way_back_to_the_cards() -> None:
    few = hands.hand_choice_view(5, 1, 3, ["lion@B3", "lion@C4"], "en")
    assert custom_ids(few)[-1] == "seq:back:5:1"
    assert few.children[-1].item.label == "Back to the cards"  # type: ignore[attr-defined]
    # a Unicorn on an empty board offers more than buttons hold: menus, and still the way
    unicorn = [f"unicorn@{c}{r}" for c in "ABCDEF" for r in range(1, 8)][:40]
    menus = hands.hand_choice_view(5, 1, 3, unicorn, "no")
    assert custom_ids(menus)[-1] == "seq:back:5:1"
    assert menus.children[-1].item.label == "Tilbake til kortene"  # type: ignore[attr-defined]
