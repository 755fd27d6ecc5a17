"""Routes about servers: a server and one of its members."""

from __future__ import annotations

import re
from typing import Any

from aiohttp import web

from ..errors import HttpError
from ..payloads import member_payload
from ..rest import RequestBody, Router
from ..world import World


class GuildRoutes:
    """``/guilds/{id}`` and ``/guilds/{id}/members/{user}``."""

    def __init__(self, world: World) -> None:
        self.world = world

    def register(self, router: Router) -> None:
        router.add("GET", r"/guilds/(?P<guild>\d+)", self._get_guild)
        router.add("GET", r"/guilds/(?P<guild>\d+)/members/(?P<user>\d+)", self._get_member)

    async def _get_guild(self, request: web.Request, m: re.Match[str], body: RequestBody) -> Any:
        guild = self.world.guilds.get(int(m["guild"]))
        if guild is None:
            raise HttpError(404, 10004, "Unknown Guild")
        return self.world.guild_payload(guild)

    async def _get_member(self, request: web.Request, m: re.Match[str], body: RequestBody
                          ) -> Any:
        guild = self.world.guilds.get(int(m["guild"]))
        user_id = int(m["user"])
        if guild is None or user_id not in guild.member_ids:
            raise HttpError(404, 10007, "Unknown Member")
        return member_payload(self.world.users[user_id])
