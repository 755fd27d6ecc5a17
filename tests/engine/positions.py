"""Building exact positions for rule tests, without breaking the engine's invariants.

Cards are moved, never created: a card put into a hand comes out of the deck (or another
hand or a discard pile), and the card it replaces goes back to the deck, so there are still
42 cards (38 at beginners' levels).
"""

from __future__ import annotations

from typing import Any

from engine.dice import DiceGame
from engine.game import Game
from engine.kids import KidsGame
from engine.kids_board import CARD_NUMBER, HEIGHT, WIDTH
from engine.spaces import parse_space


def mask(spaces: str, width: int = WIDTH, height: int = HEIGHT) -> int:
    """``"A2 B3"`` -> bitmask."""
    m = 0
    for name in spaces.split():
        m |= 1 << parse_space(name, width, height)
    return m


def set_chips(game: Game, chips: dict[int, str]) -> None:
    """Put chips on the board: ``{side: "A2 B3"}``. Other sides' chips are cleared."""
    game.chips = [0] * len(game.sides)
    for side, spaces in chips.items():
        game.chips[side] = mask(spaces, game.width, game.height)
    game.occupied = 0
    for m in game.chips:
        assert not game.occupied & m, "two chips on one space"
        game.occupied |= m


def _take(game: KidsGame, card: int) -> None:
    """Remove one copy of ``card`` from wherever it is outside the hands being set."""
    if card in game.deck:
        game.deck.remove(card)
        return
    for pile in game.discards:
        if card in pile:
            pile.remove(card)
            return
    for hand in game.hands:
        if card in hand:
            hand.remove(card)
            # keep that hand's size: give it a replacement from the deck
            hand.append(game.deck.pop())
            return
    raise AssertionError(f"no {card} left anywhere")


def set_hand(game: KidsGame, seat: int, cards: list[str]) -> None:
    """Give ``seat`` exactly these cards (their old cards go back to the bottom of the deck)."""
    old = game.hands[seat]
    game.hands[seat] = []
    game.deck[:0] = old
    for name in cards:
        _take(game, CARD_NUMBER[name])
        game.hands[seat].append(CARD_NUMBER[name])


def kids(
    seats: int = 2,
    *,
    seed: int = 1,
    chips: dict[int, str] | None = None,
    hands: dict[int, list[str]] | None = None,
    current: int = 0,
    **options: Any,
) -> KidsGame:
    import engine

    game = engine.new_game("kids", seats, seed, **options)
    assert isinstance(game, KidsGame)
    if chips is not None:
        set_chips(game, chips)
    for seat, cards in (hands or {}).items():
        set_hand(game, seat, cards)
    game.current = current
    return game


def dice(
    seats: int = 2,
    *,
    seed: int = 1,
    chips: dict[int, str] | None = None,
    current: int = 0,
    roll: tuple[int, int] | None = None,
    **options: Any,
) -> DiceGame:
    import engine

    game = engine.new_game("dice", seats, seed, **options)
    assert isinstance(game, DiceGame)
    if chips is not None:
        set_chips(game, chips)
    game.current = current
    if roll is not None:
        game.roll(*roll)
    return game


def card_count(game: KidsGame) -> int:
    return len(game.deck) + sum(map(len, game.hands)) + sum(map(len, game.discards))


#: A two-player game of Sequence for Kids at level 1 (one card in hand) dealt from this
#: seed, played by ``simple_choice``, reaches at its 39th move a dead card exchanged for
#: another dead card, after which the turn can only pass (found by playing seeds through
#: the engine): the tests of a forced pass through the manager and through Discord.
DEAD_INTO_PASS_SEED = 160


def simple_choice(legal: list[str]) -> str:
    """The first card that places a chip; the first exchange when none does."""
    plays = [a for a in legal if not a.startswith("dead:") and a != "pass"]
    return plays[0] if plays else legal[0]
