"""Helpers for the computer-player tests: games driven to random positions."""

from __future__ import annotations

import random
from typing import Any

import engine
from engine.game import Game

# Every table the engine allows: (game, seats, options).
TABLES: list[tuple[str, int, dict[str, Any]]] = [
    ("kids", 2, {}), ("kids", 3, {}), ("kids", 4, {}), ("kids", 4, {"teams": True}),
    ("kids", 2, {"level": "1"}), ("kids", 3, {"level": "2"}), ("kids", 2, {"level": "3"}),
    ("dice", 2, {}), ("dice", 3, {}), ("dice", 4, {"teams": True}),
    ("dice", 2, {"sequence_length": 5}),
]


def random_position(game: str, seats: int, options: dict[str, Any], seed: int,
                    plies: int) -> Game:
    """A game after up to ``plies`` random moves (fewer if it ends first)."""
    g = engine.new_game(game, seats, seed, **options)
    rng = random.Random(seed)
    for _ in range(plies):
        if g.is_over:
            break
        g.apply(rng.choice(g.legal_actions()))
    return g


def _mask(spaces: list[str], width: int, height: int) -> int:
    from engine.spaces import parse_space

    mask = 0
    for name in spaces:
        mask |= 1 << parse_space(name, width, height)
    return mask


def kids_position(chips: list[list[str]], hand: list[str], seed: int = 1,
                  to_move: int = 0, seats: int = 2) -> Game:
    """A Kids game with the given chips per side and the hand of the seat to move; every
    other card is dealt from the rest (other hands full, the rest in the deck)."""
    from engine.kids import KidsGame
    from engine.kids_board import CARD_NUMBER

    g = engine.new_game("kids", seats, seed)
    assert isinstance(g, KidsGame)
    g.chips = [_mask(c, g.width, g.height) for c in chips]
    g.occupied = 0
    for m in g.chips:
        g.occupied |= m
    cards = list(g.deck)
    for h in g.hands:
        cards.extend(h)
    wanted = [CARD_NUMBER[c] for c in hand]
    for c in wanted:
        cards.remove(c)
    random.Random(seed).shuffle(cards)
    g.hands = [wanted if s == to_move else [cards.pop() for _ in range(g.hand_size)]
               for s in range(seats)]
    g.deck = cards
    g.current = to_move
    return g


def dice_position(chips: list[list[str]], dice: tuple[int, int], seed: int = 1,
                  to_move: int = 0, seats: int = 2, **options: Any) -> Game:
    """A Dice game with the given chips per side, the seat to move having rolled ``dice``."""
    from engine.dice import DiceGame

    g = engine.new_game("dice", seats, seed, **options)
    assert isinstance(g, DiceGame)
    g.chips = [_mask(c, g.width, g.height) for c in chips]
    g.occupied = 0
    for m in g.chips:
        g.occupied |= m
    g.current = to_move
    g.roll(*dice)
    return g
