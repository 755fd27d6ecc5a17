"""Rebuild a game a computer player can search from what one seat may see.

An observation holds everything public (board, discard piles, counts, dice) and the
seat's own hand; it never holds other hands or the deck order. ``rebuild`` makes a real
``KidsGame`` or ``DiceGame`` from it, so search can use the engine's fast path
(``moves``/``play``/``copy``/``roll``):

- Dice has no hidden information: the rebuilt game is exact (its future dice come from the
  generator it is given, not the real game's).
- Kids: the cards this seat has not seen are the full deck minus its own hand minus every
  discard pile (discard piles are public and complete). Cards played before the last
  reshuffle went back into the deck, so they are unseen again; chips on the board do not
  say which card placed them. ``rebuild`` deals those unseen cards at random to the other
  hands (by their known sizes) and to the deck (by its known size): one *determinization*.
  Calling it again with other random numbers gives another.

The rebuilt game gives the same ``legal_actions()`` and, apart from ``history_length``
(the history itself is not in the observation), the same ``observation(seat)``.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from .. import dice as dice_rules
from .. import kids as kids_rules
from ..action import Action
from ..dice import DiceGame
from ..game import Game
from ..kids import KidsGame
from ..kids_board import CARD_NUMBER, deck_for
from ..rng import GameRng
from ..spaces import parse_space


def rebuild(obs: dict[str, Any], rng: random.Random | None = None) -> Game:
    """A game consistent with ``obs``; hidden Kids cards are dealt with ``rng``.

    Raises ``ValueError`` when the observation is not consistent (card counts do not add
    up), which would mean the observation leaks or lacks something.
    """
    rng = rng or random.Random(0)
    if obs["game"] == "kids":
        return _rebuild_kids(obs, rng)
    if obs["game"] == "dice":
        return _rebuild_dice(obs, rng)
    raise ValueError(f"unknown game {obs['game']!r}")


def _base(cls: type[KidsGame] | type[DiceGame], obs: dict[str, Any],
          rng: random.Random) -> Game:
    game = cls(obs["seats"], 0, obs["options"], deal=False)
    # Chance during search (deck reshuffles, dice) comes from the searcher's own numbers.
    game.rng = GameRng(rng.getrandbits(64))
    chips = [0] * len(obs["sides"])
    for space, side in enumerate(obs["board"]):
        if side is not None:
            chips[side] |= 1 << space
    game.chips = chips
    game.occupied = 0
    for mask in chips:
        game.occupied |= mask
    turn = obs["turn"]
    game.current = turn if turn is not None else obs.get("seat") or 0
    game.winner = obs["winner"]
    game.draw = obs["draw"]
    game.end_reason = obs["end_reason"]
    width = obs["width"]
    height = obs["height"]
    game.win_line = 0
    for name in obs["winning_line"]:
        game.win_line |= 1 << parse_space(name, width, height)
    game.resigned = list(obs["resigned"])
    return game


def _last_tuple(obs: dict[str, Any], move: int) -> tuple[int, ...]:
    last = obs["last"]
    removed = last.get("removed_side")
    out: tuple[int, ...] = (last["seat"], move, -1 if removed is None else removed)
    if last.get("dice"):
        out += tuple(last["dice"])
    return out


def _kids_move(text: str, width: int, height: int) -> int:
    """The fast-path int of a Kids action text (no legality check)."""
    act = Action.parse(text)
    if act.space is None and not act.dead:
        return {"pass": kids_rules.PASS, "skip": kids_rules.SKIP}[act.what]
    if act.dead:
        return kids_rules.DEAD | CARD_NUMBER[act.what]
    assert act.space is not None
    return CARD_NUMBER[act.what] << 6 | parse_space(act.space, width, height)


def _dice_move(text: str, width: int, height: int) -> int:
    """The fast-path int of a Dice action text (no legality check)."""
    act = Action.parse(text)
    if act.space is None:
        return {"roll": dice_rules.ROLL, "pass": dice_rules.PASS,
                "skip": dice_rules.SKIP}[act.what]
    kinds = {"place": dice_rules.PLACE, "replace": dice_rules.REPLACE,
             "remove": dice_rules.REMOVE}
    return kinds[act.what] | parse_space(act.space, width, height)


def unseen_cards(obs: dict[str, Any]) -> list[int]:
    """The cards ``obs``'s seat cannot see (in other hands or the deck), sorted."""
    pool = Counter(deck_for(obs["level"]))
    for name in obs.get("hand") or []:
        pool[CARD_NUMBER[name]] -= 1
    for pile in obs["discards"]:
        for name in pile:
            pool[CARD_NUMBER[name]] -= 1
    if any(n < 0 for n in pool.values()):
        raise ValueError("observation shows more copies of a card than the deck holds")
    return sorted(pool.elements())


def _rebuild_kids(obs: dict[str, Any], rng: random.Random) -> KidsGame:
    game = _base(KidsGame, obs, rng)
    assert isinstance(game, KidsGame)
    seat = obs.get("seat")
    own_hand = obs.get("hand")
    hidden = unseen_cards(obs)
    rng.shuffle(hidden)
    sizes = obs["hand_sizes"]
    needed = obs["deck_size"] + sum(
        n for s, n in enumerate(sizes) if not (s == seat and own_hand is not None)
    )
    if needed != len(hidden):
        raise ValueError(f"observation is inconsistent: {len(hidden)} unseen cards for "
                         f"{needed} hidden places")
    hands: list[list[int]] = []
    for s, n in enumerate(sizes):
        if s == seat and own_hand is not None:
            hands.append([CARD_NUMBER[c] for c in own_hand])
        else:
            hands.append([hidden.pop() for _ in range(n)])
    game.hands = hands
    game.deck = hidden
    game.discards = [[CARD_NUMBER[c] for c in pile] for pile in obs["discards"]]
    game.exchanges = obs["hand_size"] - obs["exchanges_left"]
    game.idle = obs["idle_turns"]
    if obs["last"] is not None:
        move = _kids_move(obs["last"]["action"], obs["width"], obs["height"])
        game.last = _last_tuple(obs, move)
    return game


def _rebuild_dice(obs: dict[str, Any], rng: random.Random) -> DiceGame:
    game = _base(DiceGame, obs, rng)
    assert isinstance(game, DiceGame)
    game.dice = (obs["dice"][0], obs["dice"][1]) if obs["dice"] else None
    game.last_roll = (obs["last_roll"][0], obs["last_roll"][1]) if obs["last_roll"] else None
    game.turns = obs["turns"]
    game.opening_rolls = [[list(r) for r in rolls] for rolls in obs["opening_rolls"]]
    if obs["last"] is not None:
        move = _dice_move(obs["last"]["action"], obs["width"], obs["height"])
        game.last = _last_tuple(obs, move)
    return game
