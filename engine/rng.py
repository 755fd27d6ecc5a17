"""The game's one source of chance: a small seeded generator with a one-int state.

Why not ``random.Random``: its state is 625 ints (7 KB of JSON in every snapshot) and its
``shuffle``/``randrange`` algorithms are not promised to stay the same across Python
versions. SplitMix64 is tiny, fast enough for shuffles and dice, and its whole state is one
integer, so a game saved today replays identically on any later Python.
"""

from __future__ import annotations

from collections.abc import MutableSequence
from functools import cache
from math import factorial
from typing import TypeVar

_MASK = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15

T = TypeVar("T")


class GameRng:
    """SplitMix64. ``state`` is a plain int, so ``GameRng(rng.state)`` is a perfect copy."""

    __slots__ = ("state",)

    def __init__(self, state: int) -> None:
        self.state = state & _MASK

    def next64(self) -> int:
        self.state = z = (self.state + _GAMMA) & _MASK
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in ``range(n)``, ``0 < n < 2**32``.

        Lemire's multiply-and-shift with rejection: exact, and one multiplication in the
        common case instead of a modulo.
        """
        if n <= 0:
            raise ValueError("n must be positive")
        m = self.next64() * n
        low = m & _MASK
        if low < n:
            threshold = ((1 << 64) - n) % n
            while low < threshold:
                m = self.next64() * n
                low = m & _MASK
        return m >> 64

    def die(self) -> int:
        """One six-sided die, 1 to 6."""
        return self.below(6) + 1

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Fisher-Yates, in place, with all of its choices taken from one draw.

        A uniform integer below ``n!`` written in the factorial number system gives every
        Fisher-Yates index at once, independent and uniform. Three 64-bit draws and a few
        divmods beat forty separate bounded draws: a deal or a reshuffle is the costliest
        chance event of a playout.
        """
        n = len(items)
        if n < 2:
            return
        words, limit, total = _perm_table(n)
        while True:
            x = 0
            for _ in range(words):
                x = x << 64 | self.next64()
            if x < limit:
                break
        x %= total
        for i in range(n - 1, 0, -1):
            x, j = divmod(x, i + 1)
            items[i], items[j] = items[j], items[i]

    @staticmethod
    def from_seed(seed: int) -> GameRng:
        # Mix the seed once so that neighbouring seeds start far apart.
        rng = GameRng(seed)
        return GameRng(rng.next64())


@cache
def _perm_table(n: int) -> tuple[int, int, int]:
    """For shuffling ``n`` items: how many 64-bit words to draw, the rejection limit (the
    largest multiple of ``n!`` they can hold) and ``n!``."""
    total = factorial(n)
    words = (total.bit_length() + 64 + 63) // 64  # 64 spare bits: rejection < 2**-64
    span = 1 << (64 * words)
    return words, span - span % total, total
