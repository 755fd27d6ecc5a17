"""Faults the fake Discord can inject, the way the real one fails."""

from __future__ import annotations

import re
from dataclasses import dataclass, field


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
class Faults:
    """Switches a test flips to make the fake Discord misbehave."""

    #: Users whose DMs are closed: sending them a message answers 403 with code 50007.
    closed_dms: set[int] = field(default_factory=set)
    http: list[HttpFault] = field(default_factory=list)

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
