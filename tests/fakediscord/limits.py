"""Discord's rate limits, counted and (when switched on) enforced as Discord enforces them.

A bot's real ceiling on Discord is its token's budget: 50 requests a second across all
routes (the global limit; interaction endpoints are exempt) and about 5 messages per 5 s in
one channel. Which requests count is the figure issue 19 measures, so the classification
lives here (``is_interaction_endpoint``, ``route_of``); enforcement is off unless a test or
bench turns it on, so the other tests see the unlimited fake they always saw.

Over a limit the answer is Discord's: 429 with ``{"message", "retry_after", "global"}`` and
the ``X-RateLimit-*`` headers; allowed answers on a limited route carry the same headers
with the remaining count, which is what discord.py's buckets (``discord/http.py``) read to
wait before a 429 rather than after. Windows are sliding logs, so "never more than 5 in any
5 s" holds for every interval, not only for aligned windows.
"""

from __future__ import annotations

import hashlib
import math
import re
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

_INTERACTION_ENDPOINT = re.compile(
    r"^/interactions/\d+/[^/]+/callback$"  # the interaction response
    r"|^/webhooks/\d+/[^/]+(/.*)?$")  # followups, @original: the interaction's token webhook
_NUMBER = re.compile(r"^\d+$")


def is_interaction_endpoint(path: str) -> bool:
    """Whether a request is on an interaction endpoint (exempt from the global limit).

    The fake serves webhooks only on interaction tokens (``/webhooks/{application_id}/
    {token}``), so every webhook path counts as one.
    """
    return _INTERACTION_ENDPOINT.match(path) is not None


def route_of(method: str, path: str) -> str:
    """The route a request took, ids and tokens replaced: ``POST /channels/{id}/messages``."""
    parts = path.strip("/").split("/")
    out = []
    for index, part in enumerate(parts):
        if _NUMBER.match(part):
            out.append("{id}")
        elif index == 2 and parts[0] in ("interactions", "webhooks"):
            out.append("{token}")
        else:
            out.append(part)
    return f"{method} /" + "/".join(out)


@dataclass
class RouteLimit:
    """A per-route bucket: ``limit`` requests per ``per`` seconds for each value of the
    route's major parameter (the ``major`` group of ``pattern``, e.g. the channel id)."""

    method: str
    pattern: re.Pattern[str]
    limit: int
    per: float

    @property
    def bucket(self) -> str:
        """The bucket hash Discord would send (stable, opaque)."""
        return hashlib.md5(f"{self.method} {self.pattern.pattern}".encode()).hexdigest()


def channel_messages_limit() -> RouteLimit:
    """Discord's message rate in one channel: 5 messages per 5 s."""
    return RouteLimit("POST", re.compile(r"^/channels/(?P<major>\d+)/messages$"), 5, 5.0)


@dataclass
class Decision:
    """What the limiter says about one request: refused (a 429 body) or allowed, and the
    headers to send either way."""

    headers: dict[str, str]
    refused: dict[str, object] | None = None
    scope: str = ""


@dataclass
class RateLimits:
    """The token's limits. ``enabled`` False: nothing is refused and no header is added."""

    enabled: bool = False
    global_limit: int = 50
    global_per: float = 1.0
    routes: list[RouteLimit] = field(default_factory=lambda: [channel_messages_limit()])
    clock: Callable[[], float] = time.monotonic
    global_hits: int = 0  # 429s sent for the global limit
    route_hits: int = 0  # 429s sent for a per-route bucket
    #: when each allowed request of a limited route arrived, by (route, major parameter)
    admitted: dict[tuple[str, str], list[float]] = field(default_factory=dict)
    _global: deque[float] = field(default_factory=deque)
    _buckets: dict[tuple[str, str], deque[float]] = field(default_factory=dict)

    def enable(self) -> None:
        self.enabled = True

    def disable(self) -> None:
        self.enabled = False

    @property
    def hits(self) -> int:
        """Every 429 the limits sent (faults injected by ``Faults`` are not counted)."""
        return self.global_hits + self.route_hits

    def admitted_times(self, method: str, path_pattern: str, major: int | str) -> list[float]:
        """When each allowed request to one bucket arrived, e.g.
        ``admitted_times("POST", "/channels/{id}/messages", channel_id)`` (``clock`` time)."""
        return list(self.admitted.get((f"{method} {path_pattern}", str(major)), []))

    def decide(self, method: str, path: str) -> Decision | None:
        """Admit or refuse one request now; None when enforcement is off."""
        if not self.enabled:
            return None
        now = self.clock()
        if not is_interaction_endpoint(path):
            _prune(self._global, now - self.global_per)
            if len(self._global) >= self.global_limit:
                self.global_hits += 1
                retry_after = self._global[0] + self.global_per - now
                return Decision(
                    {"Retry-After": str(math.ceil(retry_after)), "X-RateLimit-Global": "true",
                     "X-RateLimit-Scope": "global", "Via": "1.1 google"},
                    {"message": "You are being rate limited.",
                     "retry_after": round(retry_after, 3), "global": True}, "global")
            self._global.append(now)
        for route in self.routes:
            if route.method != method:
                continue
            match = route.pattern.match(path)
            if match is None:
                continue
            major = match.groupdict().get("major") or ""
            log = self._buckets.setdefault((route.bucket, major), deque())
            _prune(log, now - route.per)
            if len(log) >= route.limit:
                self.route_hits += 1
                retry_after = log[0] + route.per - now
                headers = _bucket_headers(route, 0, retry_after)
                headers.update({"Retry-After": str(math.ceil(retry_after)),
                                "X-RateLimit-Scope": "user", "Via": "1.1 google"})
                return Decision(headers, {"message": "You are being rate limited.",
                                          "retry_after": round(retry_after, 3),
                                          "global": False}, "user")
            log.append(now)
            key = (route_of(method, path), major)
            self.admitted.setdefault(key, []).append(now)
            # the bucket is whole again once its newest request leaves the window
            return Decision(_bucket_headers(route, route.limit - len(log), route.per))
        return Decision({})


def _prune(log: deque[float], before: float) -> None:
    while log and log[0] <= before:
        log.popleft()


def _bucket_headers(route: RouteLimit, remaining: int, reset_after: float) -> dict[str, str]:
    return {
        "X-RateLimit-Limit": str(route.limit),
        "X-RateLimit-Remaining": str(remaining),
        "X-RateLimit-Reset": f"{time.time() + reset_after:.3f}",
        "X-RateLimit-Reset-After": f"{reset_after:.3f}",
        "X-RateLimit-Bucket": route.bucket,
    }
