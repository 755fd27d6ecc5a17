"""Sequence for Kids: cards, dead cards, Unicorns, Dragons, free corners, 4 in a row.

Fast-path moves are ints:
- ``card << 6 | space``: play ``card`` (animal, Unicorn or Dragon) on ``space``;
- ``DEAD | card``: discard a dead card and draw; the turn goes on;
- ``PASS``: only dead cards and no exchange left this turn.
"""

from __future__ import annotations

from typing import Any

from .errors import IllegalAction
from .game import Game
from .kids_board import (
    ANIMAL_SPACES,
    ANIMALS,
    CARD_NUMBER,
    CARDS,
    COLOURS,
    CORNER_MASK,
    DRAGON,
    HEIGHT,
    LAYOUT,
    LINES_THROUGH,
    PLAYABLE_MASK,
    UNICORN,
    WIDTH,
    deck_for,
    hand_size_for,
)
from .spaces import bits, parse_space

DEAD = 1 << 12
PASS = 1 << 13
_PLAYABLE_SPACES = tuple(bits(PLAYABLE_MASK))


class KidsGame(Game):
    game = "kids"
    width = WIDTH
    height = HEIGHT
    colours = COLOURS

    def __init__(self, seats: int, seed: int, options: dict[str, Any], deal: bool = True):
        super().__init__(seats, seed, options)
        self.level: str = options["level"]
        self.hand_size = hand_size_for(self.level)
        self.hands: list[list[int]] = [[] for _ in range(seats)]
        self.discards: list[list[int]] = [[] for _ in range(seats)]
        self.deck: list[int] = []
        self.exchanges = 0  # dead cards exchanged by the seat to move, this turn
        self.idle = 0  # turns in a row in which no chip was placed or removed
        if deal:
            self.deck = deck_for(self.level)
            self.rng.shuffle(self.deck)
            # One card at a time to each player, as the rules deal.
            for _ in range(self.hand_size):
                for seat in range(seats):
                    self.hands[seat].append(self.deck.pop())

    # -- fast path -----------------------------------------------------------------------

    def moves(self) -> list[int]:
        if self.winner is not None or self.draw:
            return []
        seat = self.current
        assert seat is not None
        occ = self.occupied
        out: list[int] = []
        dead: list[int] = []
        for card in set(self.hands[seat]):
            if card < UNICORN:
                free = ANIMAL_SPACES[card] & ~occ
                if free:
                    out.extend(card << 6 | s for s in bits(free))
                else:
                    dead.append(card)
            elif card == UNICORN:
                base = UNICORN << 6
                before = len(out)
                out.extend(base | s for s in _PLAYABLE_SPACES if not occ >> s & 1)
                if len(out) == before:
                    dead.append(card)
            else:
                targets = occ & ~self.chips[self.side_of[seat]]
                if targets:
                    out.extend(DRAGON << 6 | s for s in bits(targets))
                else:
                    dead.append(card)
        if dead and self.exchanges < self.hand_size:
            out.extend(DEAD | c for c in dead)
        if not out:
            out.append(PASS)
        return out

    def play(self, move: int) -> None:
        seat = self.current
        assert seat is not None
        hand = self.hands[seat]
        if move == PASS:
            self.last = {"seat": seat, "action": "pass", "card": None, "placed": None,
                         "removed": None, "removed_side": None}
            self._end_turn(seat, changed=False)
            return
        if move & DEAD:
            card = move & 63
            hand.remove(card)
            self.discards[seat].append(card)
            self.exchanges += 1
            self._draw(seat)
            self.last = {"seat": seat, "action": "dead:" + CARDS[card], "card": CARDS[card],
                         "placed": None, "removed": None, "removed_side": None}
            return
        card, space = move >> 6, move & 63
        hand.remove(card)
        self.discards[seat].append(card)
        bit = 1 << space
        name = self.space(space)
        if card == DRAGON:
            victim = next(side for side, mask in enumerate(self.chips) if mask & bit)
            self.chips[victim] ^= bit
            self.occupied ^= bit
            self.last = {"seat": seat, "action": f"dragon@{name}", "card": "dragon",
                         "placed": None, "removed": name, "removed_side": victim}
        else:
            side = self.side_of[seat]
            mine = self.chips[side] | bit
            self.chips[side] = mine
            self.occupied |= bit
            self.last = {"seat": seat, "action": f"{CARDS[card]}@{name}", "card": CARDS[card],
                         "placed": name, "removed": None, "removed_side": None}
            # Corners count as a chip of every colour.
            mine |= CORNER_MASK
            won = 0
            for line in LINES_THROUGH[space]:
                if mine & line == line:
                    won |= line
            if won:
                self.winner = side
                self.win_line = won
                self.end_reason = "sequence"
                return
        self._draw(seat)
        self._end_turn(seat, changed=True)

    def _draw(self, seat: int) -> None:
        deck = self.deck
        if not deck:
            self._reshuffle()
        if deck:
            self.hands[seat].append(deck.pop())
        if not deck:
            # When the draw deck is used up, all discard piles become a new deck.
            self._reshuffle()

    def _reshuffle(self) -> None:
        for pile in self.discards:
            self.deck.extend(pile)
            pile.clear()
        self.rng.shuffle(self.deck)

    def _end_turn(self, seat: int, changed: bool) -> None:
        self.exchanges = 0
        self.idle = 0 if changed else self.idle + 1
        # A full round with no chip placed or removed: nobody can move, so it is a draw.
        if self.idle >= self.active_seat_count():
            self.draw = True
            self.end_reason = "no_moves"
            return
        self.current = self.next_active_seat(seat)

    def end_turn_without_move(self) -> None:
        assert self.current is not None
        self.last = {"seat": self.current, "action": "skip", "card": None, "placed": None,
                     "removed": None, "removed_side": None}
        self._end_turn(self.current, changed=False)

    # -- text ----------------------------------------------------------------------------

    def move_text(self, move: int) -> str:
        if move == PASS:
            return "pass"
        if move & DEAD:
            return "dead:" + CARDS[move & 63]
        return f"{CARDS[move >> 6]}@{self.space(move & 63)}"

    def parse_move(self, action: str) -> int:
        text = action.strip().lower()
        seat = self.current
        assert seat is not None
        hand = self.hands[seat]
        legal = set(self.moves())
        if text == "pass":
            if PASS in legal:
                return PASS
            raise IllegalAction("cannot_pass", "You cannot pass: you still have a card to "
                                "play or a dead card to exchange.")
        if text.startswith("dead:"):
            card = self._card(text[5:])
            if card not in hand:
                raise IllegalAction("card_not_in_hand", f"You have no {CARDS[card]} card.",
                                    card=CARDS[card])
            if DEAD | card in legal:
                return DEAD | card
            if self.exchanges >= self.hand_size and self._is_dead(card, seat):
                raise IllegalAction("no_exchanges_left", f"You have already exchanged "
                                    f"{self.exchanges} dead cards this turn.",
                                    count=self.exchanges)
            raise IllegalAction("card_not_dead", f"The {CARDS[card]} card is not dead: it "
                                "can still be played.", card=CARDS[card])
        if text.count("@") != 1:
            raise IllegalAction("malformed", f"{action.strip()!r} is not a move: write a "
                                "card and a space, like lion@B3.", action=action.strip())
        card_text, space_text = text.split("@")
        card = self._card(card_text)
        space = parse_space(space_text, WIDTH, HEIGHT)
        name = self.space(space)
        if card not in hand:
            raise IllegalAction("card_not_in_hand", f"You have no {CARDS[card]} card.",
                                card=CARDS[card])
        if CORNER_MASK >> space & 1:
            raise IllegalAction("free_corner", f"{name} is a free corner: no chip is ever "
                                "placed there or taken from there.", space=name)
        bit = 1 << space
        if card == DRAGON:
            if not self.occupied & bit:
                raise IllegalAction("no_chip", f"There is no chip on {name} to remove.",
                                    space=name)
            if self.chips[self.side_of[seat]] & bit:
                whose = "your team's" if len(self.sides[self.side_of[seat]]) > 1 else "your own"
                raise IllegalAction("own_chip", f"The chip on {name} is {whose}: a Dragon "
                                    "only removes an opponent's chip.", space=name)
        else:
            if card < UNICORN and LAYOUT[space] != CARDS[card]:
                where = " and ".join(self.space(s) for s in bits(ANIMAL_SPACES[card]))
                raise IllegalAction("wrong_space", f"{name} shows a {LAYOUT[space]}, not a "
                                    f"{CARDS[card]}: the {CARDS[card]} spaces are {where}.",
                                    space=name, card=CARDS[card], picture=LAYOUT[space],
                                    where=where)
            if self.occupied & bit:
                raise IllegalAction("space_taken", f"{name} already has a chip.", space=name)
        move = card << 6 | space
        assert move in legal, (action, self.to_dict())
        return move

    @staticmethod
    def _card(text: str) -> int:
        name = text.strip().lower()
        if name not in CARD_NUMBER:
            raise IllegalAction("unknown_card", f"{text.strip()!r} is not a card.",
                                card=text.strip())
        return CARD_NUMBER[name]

    def _is_dead(self, card: int, seat: int) -> bool:
        occ = self.occupied
        if card < UNICORN:
            return not ANIMAL_SPACES[card] & ~occ
        if card == UNICORN:
            return not PLAYABLE_MASK & ~occ
        return not occ & ~self.chips[self.side_of[seat]]

    def dead_cards(self, seat: int) -> list[str]:
        """The cards in ``seat``'s hand that cannot be played now, in hand order."""
        return [CARDS[c] for c in self.hands[seat] if self._is_dead(c, seat)]

    # -- observation and state ------------------------------------------------------------

    def layout_labels(self) -> list[str]:
        return list(LAYOUT)

    def add_observation(self, obs: dict[str, Any], seat: int | None) -> None:
        obs["level"] = self.level
        obs["hand_size"] = self.hand_size
        obs["deck_size"] = len(self.deck)
        obs["hand_sizes"] = [len(h) for h in self.hands]
        # Discard piles lie face up: everything on them has been seen by everyone.
        obs["discards"] = [[CARDS[c] for c in pile] for pile in self.discards]
        obs["discard_tops"] = [CARDS[p[-1]] if p else None for p in self.discards]
        obs["exchanges_left"] = self.hand_size - self.exchanges
        obs["idle_turns"] = self.idle
        if seat is not None:
            obs["hand"] = [CARDS[c] for c in self.hands[seat]]
            obs["dead"] = self.dead_cards(seat)

    def add_state(self, d: dict[str, Any]) -> None:
        d["hands"] = [[CARDS[c] for c in h] for h in self.hands]
        d["discards"] = [[CARDS[c] for c in p] for p in self.discards]
        d["deck"] = [CARDS[c] for c in self.deck]
        d["exchanges"] = self.exchanges
        d["idle"] = self.idle

    def load_state(self, d: dict[str, Any]) -> None:
        self.hands = [[CARD_NUMBER[c] for c in h] for h in d["hands"]]
        self.discards = [[CARD_NUMBER[c] for c in p] for p in d["discards"]]
        self.deck = [CARD_NUMBER[c] for c in d["deck"]]
        self.exchanges = d["exchanges"]
        self.idle = d["idle"]

    def copy(self) -> KidsGame:
        """A fast independent copy for search (history is shared-nothing but not kept)."""
        g = KidsGame.__new__(KidsGame)
        g.__dict__.update(self.__dict__)
        g.chips = list(self.chips)
        g.resigned = list(self.resigned)
        g.hands = [list(h) for h in self.hands]
        g.discards = [list(p) for p in self.discards]
        g.deck = list(self.deck)
        g.history = []
        g.rng = type(self.rng)(self.rng.state)
        return g


assert len(ANIMALS) == 19
