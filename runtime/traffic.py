"""Discord's REST traffic as the bot's metrics see it, through discord.py's ``http_trace``.

discord.py takes one ``aiohttp.TraceConfig`` (``Client(http_trace=...)``) and hands it to
the HTTP session every REST call goes through. ``RestTraffic.trace_into(config)`` adds its
callbacks to a config it is given, so another part that traces the same session (a
rate-limit budget, say) adds its own to the same config: both are called for every
request.

Seen at the end of each request:

- the request's route class: its method and path with the ids and tokens taken out
  (``POST /channels/{id}/messages``), so a dashboard shows what the bot spends its
  requests on without a series per channel;
- a 429, and Discord's scope for it (``X-RateLimit-Scope``: ``user`` for a route's own
  limit, ``global`` for the token's 50 a second, ``shared`` for a resource's limit
  shared with other bots);
- an interaction's acknowledgement (``POST /interactions/{id}/{token}/callback``): how
  long after Discord created the interaction the answer got back to it (one Discord
  refused for coming after its 3 s included). The time of
  creation is in the interaction's id (a snowflake), so nothing is kept per interaction;
  the figure assumes this machine's clock agrees with Discord's (NTP).
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Protocol

import aiohttp
import yarl

DISCORD_EPOCH = 1_420_070_400  # seconds: the start of snowflake time (2015-01-01)
SCOPES = ("user", "global", "shared")
_VERSION = re.compile(r"v\d+")
_TOKENS_AFTER = ("interactions", "webhooks")  # /interactions/{id}/{token}/...


class TrafficWatch(Protocol):
    """Told of each REST request once its answer is in (or it failed)."""

    def request(self, route: str, status: str) -> None:
        """``status``: "2xx", "3xx", "4xx", "429", "5xx" or "error" (no answer)."""

    def rate_limited(self, scope: str) -> None:
        """A 429: ``scope`` is "user", "global", "shared" or "unknown"."""

    def acknowledged(self, seconds: float) -> None:
        """An interaction was answered ``seconds`` after Discord created it."""


def route_class(method: str, path: str) -> str:
    """``POST /channels/{id}/messages`` for ``POST /api/v10/channels/123/messages``: the
    ids, tokens, emoji and Activity instances of a REST path taken out."""
    parts = [p for p in path.split("/") if p]
    if "api" in parts:
        parts = parts[parts.index("api") + 1:]
    if parts and _VERSION.fullmatch(parts[0]):
        parts = parts[1:]
    shown: list[str] = []
    for i, part in enumerate(parts):
        if part.isdigit():
            shown.append("{id}")
        elif i >= 2 and parts[i - 2] in _TOKENS_AFTER and parts[i - 1].isdigit():
            shown.append("{token}")
        elif i >= 1 and parts[i - 1] == "reactions":
            shown.append("{emoji}")
        elif i >= 1 and parts[i - 1] == "activity-instances":
            # (an id a page names, made up as often as not: never one series each)
            shown.append("{instance}")
        else:
            shown.append(part)
    return f"{method.upper()} /{'/'.join(shown)}"


def status_class(status: int) -> str:
    return "429" if status == 429 else f"{status // 100}xx"


def scope_of(headers: Mapping[str, str]) -> str:
    """Discord's scope of a 429, from its headers (as aiohttp gives them: any case);
    ``unknown``: none said, as when a 429 comes from Cloudflare in front of Discord."""
    scope = headers.get("X-RateLimit-Scope", "").lower()
    if scope in SCOPES:
        return scope
    if headers.get("X-RateLimit-Global", "").lower() == "true":
        return "global"
    return "unknown"


def created_at(snowflake: int) -> float:
    """When Discord made the thing with this id (seconds since 1970)."""
    return (snowflake >> 22) / 1000 + DISCORD_EPOCH


def interaction_of(path: str) -> int | None:
    """The interaction id of an interaction callback's path, else None."""
    parts = path.split("/")
    for i in range(len(parts) - 3):
        if parts[i] == "interactions" and parts[i + 3] == "callback" and parts[i + 1].isdigit():
            return int(parts[i + 1])
    return None


@dataclass
class RestTraffic:
    """Feeds a ``TrafficWatch`` from a trace config. ``api_base``: only requests under it
    are Discord's REST (the gateway's websocket and attachment downloads are not)."""

    watch: TrafficWatch
    api_base: str

    def trace_into(self, config: aiohttp.TraceConfig) -> aiohttp.TraceConfig:
        """Add the callbacks to ``config`` (which may carry others') and return it."""
        config.on_request_end.append(self._ended)
        config.on_request_exception.append(self._failed)
        return config

    def _is_rest(self, url: yarl.URL) -> bool:
        return url.path.startswith(yarl.URL(self.api_base).path)

    async def _ended(self, session: aiohttp.ClientSession, context: SimpleNamespace,
                     params: aiohttp.TraceRequestEndParams) -> None:
        url = params.url
        if not self._is_rest(url):
            return
        status = params.response.status
        self.watch.request(route_class(params.method, url.path), status_class(status))
        if status == 429:
            self.watch.rate_limited(scope_of(params.response.headers))
        elif status < 500:  # (a 429 or a 5xx is tried again: the answer that stays counts)
            # a 4xx counts too: an answer later than Discord's 3 s is refused (Unknown
            # interaction), and is exactly the late answer the figure must show
            interaction = interaction_of(url.path)
            if interaction is not None:
                self.watch.acknowledged(max(0.0, time.time() - created_at(interaction)))

    async def _failed(self, session: aiohttp.ClientSession, context: SimpleNamespace,
                      params: aiohttp.TraceRequestExceptionParams) -> None:
        if self._is_rest(params.url):
            self.watch.request(route_class(params.method, params.url.path), "error")
