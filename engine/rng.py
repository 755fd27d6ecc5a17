"""The game's one source of chance: a small seeded generator with a one-int state.

Why not ``random.Random``: its state is 625 ints (7 KB of JSON in every snapshot) and its
``shuffle``/``randrange`` algorithms are not promised to stay the same across Python
versions. SplitMix64 is tiny, fast enough for shuffles and dice, and its whole state is one
integer, so a game saved today replays identically on any later Python.
"""

from __future__ import annotations

from collections.abc import MutableSequence
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
        """A uniform integer in ``range(n)`` (rejection sampling, so no modulo bias)."""
        if n <= 0:
            raise ValueError("n must be positive")
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            x = self.next64()
            if x < limit:
                return x % n

    def die(self) -> int:
        """One six-sided die, 1 to 6."""
        return self.below(6) + 1

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Fisher-Yates, in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    @staticmethod
    def from_seed(seed: int) -> GameRng:
        # Mix the seed once so that neighbouring seeds start far apart.
        rng = GameRng(seed)
        return GameRng(rng.next64())
