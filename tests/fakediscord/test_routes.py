"""A route group is a class registered with the fake's router (routes/__init__.py): one with
another token scheme (an Activity's ``Bearer``) sits beside the bot's routes on the same
path, and the bot's token is still checked as before."""

from __future__ import annotations

import re
from typing import Any

import aiohttp
from aiohttp import web

from tests.fakediscord import FakeDiscord
from tests.fakediscord.rest import RequestBody, Router


class SignedInPerson:
    """``GET /users/@me`` for whoever a Bearer token was granted to."""

    def __init__(self, fake: FakeDiscord, grants: dict[str, int]) -> None:
        self.fake = fake
        self.grants = grants

    def register(self, router: Router) -> None:
        router.accept("Bearer", lambda token: token in self.grants)
        router.add("GET", r"/users/@me", self._me, auth="Bearer")

    async def _me(self, request: web.Request, m: re.Match[str], body: RequestBody) -> Any:
        token = request.headers["Authorization"].removeprefix("Bearer ")
        return self.fake.users[self.grants[token]]


async def test_a_bearer_route_sits_beside_the_bots_on_the_same_path(fake: FakeDiscord) -> None:
    alice = next(iter(fake.people.values()))
    SignedInPerson(fake, {"grant-1": alice.id}).register(fake.router)

    async with aiohttp.ClientSession() as http:
        async def me(headers: dict[str, str]) -> tuple[int, Any]:
            async with http.get(fake.api_base + "/users/@me", headers=headers) as answer:
                return answer.status, await answer.json()

        assert await me({"Authorization": f"Bot {fake.token}"}) == (200, fake.bot_user)
        assert await me({"Authorization": "Bearer grant-1"}) == (200, fake.users[alice.id])
        for refused in ({"Authorization": "Bearer forged"}, {"Authorization": "Bot wrong"}, {}):
            assert await me(refused) == (401, {"message": "401: Unauthorized", "code": 0})
    assert fake.route_counts()["GET /users/@me"] == 5
    assert fake.unhandled == []
