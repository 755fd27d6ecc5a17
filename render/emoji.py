"""The emoji of each Kids card: the same animal as its picture, for places that take text
only (Discord buttons, select menus). One table, also the one the sprites are drawn from
(``tools/make_sprites.py``), so a button and its card never show two different animals.

Unicode has no ostrich: its picture is drawn by hand, and its emoji is the plain bird.
"""

from __future__ import annotations

CARD_EMOJI: dict[str, str] = {
    "moose": "\U0001FACE",
    "penguin": "\U0001F427",
    "gorilla": "\U0001F98D",
    "panda": "\U0001F43C",
    "turtle": "\U0001F422",
    "fox": "\U0001F98A",
    "elephant": "\U0001F418",
    "camel": "\U0001F42B",
    "tiger": "\U0001F42F",
    "wolf": "\U0001F43A",
    "lion": "\U0001F981",
    "whale": "\U0001F40B",
    "giraffe": "\U0001F992",
    "alligator": "\U0001F40A",
    "hippo": "\U0001F99B",
    "shark": "\U0001F988",
    "kangaroo": "\U0001F998",
    "zebra": "\U0001F993",
    "unicorn": "\U0001F984",
    "dragon": "\U0001F409",
    "ostrich": "\U0001F426",
}
DRAWN_BY_HAND = frozenset({"ostrich"})  # no emoji of its own: tools/make_sprites.py draws it

# The numbers on the choice picture, as Discord shows them on buttons: 1️⃣ ... 🔟.
KEYCAPS = (*(f"{n}\ufe0f\u20e3" for n in range(10)), "\U0001F51F")


def number_emoji(n: int) -> str | None:
    """The keycap emoji of ``n`` (0 to 10), None past ten (the label carries it)."""
    return KEYCAPS[n] if 0 <= n < len(KEYCAPS) else None
