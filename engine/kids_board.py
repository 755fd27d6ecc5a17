"""Sequence for Kids: the board, the cards and the deck (decisions: docs/RULES-MAP.md)."""

from __future__ import annotations

from .spaces import lines, lines_through

WIDTH = 6
HEIGHT = 7
SEQUENCE_LENGTH = 4
FREE = "free"

# Card ids are lower-case English words; index in this tuple is the card's number.
ANIMALS: tuple[str, ...] = (
    "moose", "penguin", "gorilla", "panda", "turtle", "fox", "elephant", "camel", "tiger",
    "wolf", "lion", "whale", "ostrich", "giraffe", "alligator", "hippo", "shark", "kangaroo",
    "zebra",
)  # fmt: skip
UNICORN = len(ANIMALS)  # 19
DRAGON = UNICORN + 1  # 20
CARDS: tuple[str, ...] = (*ANIMALS, "unicorn", "dragon")
CARD_NUMBER: dict[str, int] = {name: i for i, name in enumerate(CARDS)}

# Read off the Jax board, rows 1..7 top to bottom, columns A..F.
LAYOUT: tuple[str, ...] = (
    FREE,       "moose",     "penguin",  "gorilla",   "panda",    FREE,
    "turtle",   "fox",       "elephant", "camel",     "turtle",   "tiger",
    "wolf",     "lion",      "whale",    "wolf",      "fox",      "ostrich",
    "giraffe",  "alligator", "ostrich",  "hippo",     "shark",    "whale",
    "kangaroo", "zebra",     "camel",    "giraffe",   "kangaroo", "elephant",
    "tiger",    "gorilla",   "shark",    "alligator", "zebra",    "lion",
    FREE,       "hippo",     "panda",    "moose",     "penguin",  FREE,
)  # fmt: skip
SPACES = WIDTH * HEIGHT
CORNERS = tuple(i for i, name in enumerate(LAYOUT) if name == FREE)
CORNER_MASK = sum(1 << i for i in CORNERS)
FULL_MASK = (1 << SPACES) - 1
PLAYABLE_MASK = FULL_MASK & ~CORNER_MASK

# For each animal card, the bitmask of its two spaces.
ANIMAL_SPACES: tuple[int, ...] = tuple(
    sum(1 << i for i, name in enumerate(LAYOUT) if name == animal) for animal in ANIMALS
)
LINES = lines(WIDTH, HEIGHT, SEQUENCE_LENGTH)
LINES_THROUGH = lines_through(WIDTH, HEIGHT, SEQUENCE_LENGTH)

COLOURS = ("red", "blue", "green", "yellow")
LEVELS = ("1", "2", "3", "normal")


_BEGINNERS_DECK = tuple(c for c in range(len(ANIMALS)) for _ in range(2))
_NORMAL_DECK = (*_BEGINNERS_DECK, UNICORN, UNICORN, DRAGON, DRAGON)


def deck_for(level: str) -> list[int]:
    """The cards in play at a level: two of each animal, plus 2 Unicorns and 2 Dragons at
    normal level (beginners' levels leave them out)."""
    return list(_NORMAL_DECK if level == "normal" else _BEGINNERS_DECK)


def hand_size_for(level: str) -> int:
    return 3 if level == "normal" else int(level)
