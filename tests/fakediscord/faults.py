"""Faults the fake Discord can inject, the way the real one fails."""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class HttpFault:
    """Answer the next ``times`` requests matching ``method`` and ``path`` with ``status``."""

    status: int
    times: int
    method: str | None = None
    path: str | None = None  # a regular expression searched in the path after /api/v10
    retry_after: float = 0.05
    hits: int = 0
    #: the request is carried out, then answered with ``status`` (the client cannot know)
    after_handling: bool = False

    def matches(self, method: str, path: str) -> bool:
        if self.hits >= self.times:
            return False
        if self.method is not None and self.method != method:
            return False
        return self.path is None or re.search(self.path, path) is not None


@dataclass
class Hold:
    """A slow Discord: each request matching ``method``, ``path`` and ``body`` (a check of
    its JSON) is answered only after ``seconds``, or once the test lets go (``release``),
    whichever comes first; then it is carried out as usual."""

    seconds: float
    method: str | None = None
    path: str | None = None
    body: Callable[[Any], bool] | None = None
    held: int = 0  # requests held so far
    holding: int = 0  # requests being held now
    _released: asyncio.Event = field(default_factory=asyncio.Event)

    def matches(self, method: str, path: str, body: Any) -> bool:
        if self._released.is_set() or (self.method is not None and self.method != method):
            return False
        if self.path is not None and re.search(self.path, path) is None:
            return False
        return self.body is None or self.body(body)

    async def wait(self) -> None:
        self.held += 1
        self.holding += 1
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._released.wait(), self.seconds)
        finally:
            self.holding -= 1

    def release(self) -> None:
        """Let every request held go now (and hold no more)."""
        self._released.set()


@dataclass
class Faults:
    """Switches a test flips to make the fake Discord misbehave."""

    #: Users whose DMs are closed: sending them a message answers 403 with code 50007.
    closed_dms: set[int] = field(default_factory=set)
    http: list[HttpFault] = field(default_factory=list)
    holds: list[Hold] = field(default_factory=list)

    def slow(self, seconds: float, *, method: str | None = None, path: str | None = None,
             body: Callable[[Any], bool] | None = None) -> Hold:
        """Matching requests are answered ``seconds`` late (or when released)."""
        hold = Hold(seconds, method, path, body)
        self.holds.append(hold)
        return hold

    def hold_for(self, method: str, path: str, body: Any) -> Hold | None:
        return next((h for h in self.holds if h.matches(method, path, body)), None)

    def rate_limit(self, *, times: int = 1, retry_after: float = 0.05, method: str | None = None,
                   path: str | None = None) -> HttpFault:
        """The next matching requests get 429 with ``retry_after`` (discord.py waits, retries)."""
        fault = HttpFault(429, times, method, path, retry_after)
        self.http.append(fault)
        return fault

    def server_errors(self, status: int = 500, *, times: int = 1, method: str | None = None,
                      path: str | None = None, after_handling: bool = False) -> HttpFault:
        """A burst of 500/502/504 answers (discord.py retries after 1 s, 3 s, ...);
        ``after_handling``: each request is carried out first, only its answer is lost."""
        fault = HttpFault(status, times, method, path, after_handling=after_handling)
        self.http.append(fault)
        return fault

    def take(self, method: str, path: str) -> HttpFault | None:
        for fault in self.http:
            if fault.matches(method, path):
                fault.hits += 1
                return fault
        return None
