"""The fake Discord's REST plumbing: one router under ``/api/v10`` that records each request,
applies the rules every request meets (the rate limits, ``limits.py``; the faults a test
injected, ``faults.py``; the token), and hands it to the route that answers it.

Routes come in groups (``routes/``, and ``interactions.py``): an object with
``register(router)`` that calls ``router.add(method, pattern, handler)`` for each of its
routes. ``routes/__init__.py`` says how to add one.
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from aiohttp import BodyPartReader, web

from .errors import HttpError
from .faults import Faults
from .limits import RateLimits, is_interaction_endpoint, route_of
from .world import API_PREFIX

log = logging.getLogger(__name__)

JSON = "application/json"  # exactly this: discord.py only parses an exact match
#: where an error response keeps its code for the log
ERROR_CODE = web.ResponseKey("discord_error_code", int)
#: what Discord refuses a user-installed app where it wanders outside its reach: the bot
#: in a channel it is not in (50001 Missing Access), a sixth follow-up (40094), a token
#: used after its 15 minutes (10015 Unknown Webhook)
USER_INSTALL_REFUSALS = frozenset({50001, 40094, 10015})


@dataclass
class RequestBody:
    json: Any
    files: list[tuple[str, bytes, str | None]]


@dataclass
class RecordedRequest:
    """One request the bot made, as received (for leak checks and call counts)."""

    method: str
    path: str
    query: dict[str, str]
    body: Any
    files: list[tuple[str, bytes]]
    status: int = 0
    at: float = 0.0
    via: str | None = None  # the ``Via`` header: which proxy it came through, if any
    code: int | None = None  # Discord's error code of a refusal (50001, 40094, 10015, ...)

    def brief(self, now: float) -> str:
        """One line: how long ago, the route, the answer's status, and what it said (an
        interaction's answer type, the text, the flags: 64 is ephemeral)."""
        body = self.body if isinstance(self.body, dict) else {}
        inner = body["data"] if isinstance(body.get("data"), dict) else body
        said = [f"type {body['type']}"] if "type" in body else []
        if inner.get("content"):
            said.append(repr(str(inner["content"])[:80]))
        if inner.get("flags"):
            said.append(f"flags {inner['flags']}")
        names = [str(a.get("filename")) for a in inner.get("attachments") or []
                 if isinstance(a, dict) and a.get("filename")]
        if names or self.files:
            said.append(", ".join(names) or f"{len(self.files)} file(s)")
        return (f"  {now - self.at:6.2f} s ago {self.route} -> {self.status or 'unanswered'}"
                + (": " + "; ".join(said) if said else ""))

    @property
    def route(self) -> str:
        """``POST /channels/{id}/messages``: the request with ids and tokens left out."""
        return route_of(self.method, self.path)

    @property
    def interaction(self) -> bool:
        """On an interaction endpoint (callback, followup, @original): outside the global
        budget. Every other request counts against the token's 50 a second."""
        return is_interaction_endpoint(self.path)


#: A route's handler: the request, its path's match (the named groups), its body. It returns
#: the JSON to answer with (None: 204 No Content) or raises ``HttpError``.
Handler = Callable[[web.Request, re.Match[str], RequestBody], Awaitable[Any]]
#: The step after recording and the rate limits: faults, then the route (``Router.answer``).
Answer = Callable[[web.Request, str, RequestBody], Awaitable[web.StreamResponse]]


class RouteGroup(Protocol):
    """A set of routes with one job (``routes/channels.py``, ``interactions.py``, ...)."""

    def register(self, router: Router) -> None: ...


@dataclass
class _Route:
    method: str
    pattern: re.Pattern[str]
    handler: Handler
    auth: str | None


class Router:
    """Every REST request: recorded, limited, perhaps failed on purpose, then routed."""

    def __init__(self, *, token: str, faults: Faults, limits: RateLimits,
                 changed: Callable[[], None], answer: Answer | None = None) -> None:
        self.faults = faults
        self.limits = limits
        self.requests: list[RecordedRequest] = []
        self.unhandled: list[str] = []  # "METHOD /path" of each request no route took
        self._changed = changed
        self._answer = answer or self.answer
        self._routes: list[_Route] = []
        self._schemes: dict[str, Callable[[str], bool]] = {"Bot": lambda t: t == token}

    # ----------------------------------------------------------------- building
    def add(self, method: str, pattern: str, handler: Handler, *, auth: str | None = "Bot"
            ) -> None:
        """Answer ``method`` on paths matching ``pattern`` (after ``/api/v10``, whole) with
        ``handler``. ``auth``: the ``Authorization`` scheme the route takes (``"Bot"``: the
        bot's token; None: none, as on interaction endpoints, whose token is in the path).
        Two routes may share a path with different schemes."""
        self._routes.append(_Route(method, re.compile("^" + pattern + "$"), handler, auth))

    def accept(self, scheme: str, valid: Callable[[str], bool]) -> None:
        """Take ``Authorization: <scheme> <credential>`` where ``valid(credential)``."""
        self._schemes[scheme] = valid

    def serve(self, app: web.Application) -> None:
        """Answer every request under ``API_PREFIX`` of ``app``."""
        app.router.add_route("*", API_PREFIX + "/{tail:.*}", self._request)

    # ----------------------------------------------------------------- answering
    async def _request(self, request: web.Request) -> web.StreamResponse:
        path = "/" + request.match_info["tail"]
        body = await _read_body(request)
        record = RecordedRequest(request.method, path, dict(request.query), body.json,
                                 [(name, data) for name, data, _ in body.files],
                                 at=time.perf_counter(), via=request.headers.get("Via"))
        self.requests.append(record)
        decision = self.limits.decide(request.method, path)
        if decision is not None and decision.refused is not None:
            response: web.StreamResponse = json_response(429, decision.refused,
                                                         decision.headers)
        else:
            response = await self._answer(request, path, body)
            if decision is not None:
                response.headers.update(decision.headers)
        record.status = response.status
        record.code = response.get(ERROR_CODE)
        self._changed()
        return response

    async def answer(self, request: web.Request, path: str, body: RequestBody
                     ) -> web.StreamResponse:
        """A fault the test injected for this request, else the route's answer (late, if
        the test made Discord slow for it)."""
        hold = self.faults.hold_for(request.method, path, body.json)
        if hold is not None:
            await hold.wait()
        fault = self.faults.take(request.method, path)
        if fault is not None and fault.after_handling:
            # the worst 5xx: the request went through, but the answer is lost on the way
            await self.route(request, path, body)
            return web.Response(status=fault.status, text="upstream error")
        if fault is not None:
            if fault.status == 429:
                return json_response(
                    429, {"message": "You are being rate limited.",
                          "retry_after": fault.retry_after, "global": False},
                    {"Via": "1.1 google", "X-RateLimit-Scope": "user"})
            return web.Response(status=fault.status, text="upstream error")
        return await self.route(request, path, body)

    async def route(self, request: web.Request, path: str, body: RequestBody
                    ) -> web.StreamResponse:
        """The first route whose method, path and ``Authorization`` scheme fit answers; a
        path that fits with the wrong or no credentials is 401, no path at all 404."""
        scheme, _, credential = (request.headers.get("Authorization") or "").partition(" ")
        refused = False
        for route in self._routes:
            if route.method != request.method:
                continue
            match = route.pattern.match(path)
            if match is None:
                continue
            if route.auth is not None:
                if scheme != route.auth:
                    refused = True
                    continue
                if not self._schemes.get(scheme, _nobody)(credential):
                    return error_response(HttpError(401, 0, "401: Unauthorized"))
            try:
                result = await route.handler(request, match, body)
            except HttpError as exc:
                return error_response(exc)
            if result is None:
                return web.Response(status=204)
            return json_response(200, result)
        if refused:
            return error_response(HttpError(401, 0, "401: Unauthorized"))
        self.unhandled.append(f"{request.method} {path}")
        log.warning("fake Discord has no route for %s %s", request.method, path)
        return error_response(HttpError(404, 0, "404: Not Found"))

    # ----------------------------------------------------------------- counting
    def rate_limited_requests(self) -> list[RecordedRequest]:
        """Every REST request that counts against the token's global budget (all but the
        interaction endpoints), 429s included, in arrival order."""
        return [r for r in self.requests if not r.interaction]

    def interaction_requests(self) -> list[RecordedRequest]:
        """Requests on interaction endpoints: callbacks, followups, @original edits."""
        return [r for r in self.requests if r.interaction]

    def refused_requests(self, codes: Iterable[int] | None = None) -> list[RecordedRequest]:
        """Every request answered 4xx but 429 (a route, not a rate limit, refused it: Discord
        would have too), in arrival order; ``codes``: only those with these error codes
        (``USER_INSTALL_REFUSALS``: what a user-installed app must not run into)."""
        wanted = None if codes is None else set(codes)
        return [r for r in self.requests if 400 <= r.status < 500 and r.status != 429
                and (wanted is None or r.code in wanted)]

    def recently(self, count: int = 15) -> str:
        """The last ``count`` requests, one line each (``RecordedRequest.brief``)."""
        now = time.perf_counter()
        return "\n".join(r.brief(now) for r in self.requests[-count:])

    def route_counts(self, requests: Iterable[RecordedRequest] | None = None) -> Counter[str]:
        """How many requests took each route (``requests``: all of them by default)."""
        return Counter(r.route for r in (self.requests if requests is None else requests))


def json_response(status: int, body: Any, headers: dict[str, str] | None = None
                  ) -> web.Response:
    # aiohttp's content_type= adds "; charset=utf-8", and then discord.py reads the body as
    # text rather than JSON: set the header by hand.
    return web.Response(status=status, body=json.dumps(body).encode(),
                        headers={"Content-Type": JSON, **(headers or {})})


def error_response(exc: HttpError) -> web.Response:
    body: dict[str, Any] = {"message": exc.message, "code": exc.code}
    if exc.errors is not None:
        body["errors"] = exc.errors
    response = json_response(exc.status, body)
    response[ERROR_CODE] = exc.code  # (for the request log: ``RecordedRequest.code``)
    return response


def _nobody(credential: str) -> bool:
    return False


async def _read_body(request: web.Request) -> RequestBody:
    if not request.can_read_body:
        return RequestBody(None, [])
    if request.content_type.startswith("multipart/"):
        payload: Any = None
        files: list[tuple[str, bytes, str | None]] = []
        reader = await request.multipart()
        async for part in reader:
            if not isinstance(part, BodyPartReader):
                continue  # (a nested multipart: nothing discord.py sends)
            name = part.name
            data = await part.read()
            if name == "payload_json":
                payload = json.loads(data)
            else:
                files.append((getattr(part, "filename", None) or name or "file", bytes(data),
                              part.headers.get("Content-Type")))
        # The reader stops at the closing boundary; what follows (a CRLF) must be read
        # too, or aiohttp closes the keep-alive connection and the client's next request
        # on it fails with "Server disconnected".
        while not request.content.at_eof():
            await request.content.readany()
        return RequestBody(payload, files)
    if request.content_type == "application/x-www-form-urlencoded":
        return RequestBody(dict(await request.post()), [])  # (OAuth2's token exchange)
    text = await request.text()
    return RequestBody(json.loads(text) if text else None, [])
