"""A mapping that holds at most so many entries, the least lately used going first.

What the Discord side keeps in memory about people and games is a cache in front of the
store or a note for a game in play: either way it must not grow with the months a bot
runs. Each such collection is one of these (or is pruned by its owner when its game
ends), so its size has a ceiling whatever happens to the games.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Lru(Generic[K, V]):
    """At most ``size`` entries; putting one more drops the least lately used.

    >>> seen: Lru[int, str] = Lru(2)
    >>> seen.put(1, "a"); seen.put(2, "b"); seen.get(1)
    'a'
    >>> seen.put(3, "c"); sorted(seen)
    [1, 3]
    """

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError("an Lru holds at least one entry")
        self.size = size
        self._entries: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        """The entry (now the most lately used), or None."""
        value = self._entries.get(key)
        if value is not None:
            self._entries.move_to_end(key)
        return value

    def put(self, key: K, value: V) -> None:
        self._entries[key] = value
        self._entries.move_to_end(key)
        while len(self._entries) > self.size:
            self._entries.popitem(last=False)

    def pop(self, key: K) -> V | None:
        return self._entries.pop(key, None)

    def drop(self, unwanted: Callable[[K], bool]) -> None:
        """Drop every entry whose key is ``unwanted`` (a game that ended)."""
        for key in [k for k in self._entries if unwanted(k)]:
            del self._entries[key]

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[K]:
        return iter(list(self._entries))
