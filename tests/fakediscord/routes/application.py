"""Routes about the bot itself: who it is (``/users``), its application, where its gateway
is, and the slash commands it registers (each with its ``integration_types`` and
``contexts`` as Discord keeps them: ``installs.command_as_kept``)."""

from __future__ import annotations

import re
from typing import Any

from aiohttp import web

from ..errors import HttpError
from ..installs import command_as_kept
from ..payloads import snowflake
from ..rest import RequestBody, Router
from ..world import World


class ApplicationRoutes:
    """``/users``, ``/applications``, ``/gateway`` and the application's commands."""

    def __init__(self, world: World) -> None:
        self.world = world

    def register(self, router: Router) -> None:
        r = router.add
        app = r"(?P<app>\d+)"
        r("GET", r"/users/@me", self._get_me)
        r("GET", r"/users/(?P<user>\d+)", self._get_user)
        r("GET", r"/oauth2/applications/@me", self._get_application)
        r("GET", r"/applications/@me", self._get_application)
        r("GET", r"/gateway", self._get_gateway)
        r("GET", r"/gateway/bot", self._get_gateway_bot)
        r("PUT", rf"/applications/{app}/commands", self._put_commands)
        r("PUT", rf"/applications/{app}/guilds/(?P<guild>\d+)/commands", self._put_commands)
        r("GET", rf"/applications/{app}/commands", self._get_commands)
        r("GET", rf"/applications/{app}/guilds/(?P<guild>\d+)/commands", self._get_commands)

    async def _get_me(self, request: web.Request, m: re.Match[str], body: RequestBody) -> Any:
        return self.world.bot_user

    async def _get_user(self, request: web.Request, m: re.Match[str], body: RequestBody) -> Any:
        user = self.world.users.get(int(m["user"]))
        if user is None:
            raise HttpError(404, 10013, "Unknown User")
        return user

    async def _get_application(self, request: web.Request, m: re.Match[str], body: RequestBody
                               ) -> Any:
        world = self.world
        return {
            "id": str(world.application_id), "name": world.bot_user["username"], "icon": None,
            "description": "", "bot_public": True, "bot_require_code_grant": False,
            "owner": world.owner_user, "team": None, "verify_key": "0" * 64, "flags": 0,
            "interactions_endpoint_url": None, "summary": "", "rpc_origins": [],
            "bot": world.bot_user, "approximate_guild_count": len(world.guilds),
        }

    async def _get_gateway(self, request: web.Request, m: re.Match[str], body: RequestBody
                           ) -> Any:
        return {"url": self.world.gateway_url}

    async def _get_gateway_bot(self, request: web.Request, m: re.Match[str], body: RequestBody
                               ) -> Any:
        return {"url": self.world.gateway_url, "shards": self.world.shards,
                "session_start_limit": {"total": 1000, "remaining": 1000,
                                        "reset_after": 0, "max_concurrency": 1}}

    async def _put_commands(self, request: web.Request, m: re.Match[str], body: RequestBody
                            ) -> Any:
        world = self.world
        if int(m["app"]) != world.application_id:
            raise HttpError(403, 50001, "Missing Access")
        guild_id = int(m["guild"]) if m.groupdict().get("guild") else None
        if guild_id in world.reach.foreign_guilds:
            raise HttpError(403, 50001, "Missing Access")  # (a server without the bot)
        sent = [command_as_kept(c, i) for i, c in enumerate(body.json or [])]
        keeps_entry_point(world.commands.get(guild_id, []), sent, guild_id)
        old = {c["name"]: c for c in world.commands.get(guild_id, [])}
        stored = []
        for command in sent:
            previous = old.get(command["name"])
            entry = {
                "type": 1, "default_member_permissions": None, "nsfw": False,
                "name_localizations": None, "description_localizations": None,
                **command,
                "id": previous["id"] if previous else str(snowflake()),
                "application_id": str(world.application_id),
                "version": str(snowflake()),
            }
            if guild_id is not None:
                entry["guild_id"] = str(guild_id)
            stored.append(entry)
        world.commands[guild_id] = stored
        return stored

    async def _get_commands(self, request: web.Request, m: re.Match[str], body: RequestBody
                            ) -> Any:
        guild_id = int(m["guild"]) if m.groupdict().get("guild") else None
        return self.world.commands.get(guild_id, [])


ENTRY_POINT = 4  # application command type PRIMARY_ENTRY_POINT (an Activity's)


def keeps_entry_point(held: list[dict[str, Any]], sent: list[dict[str, Any]],
                      guild_id: int | None) -> None:
    """Discord's rule for a bulk overwrite: an application's entry point command (global
    only, with a ``handler``) may not be left out of it (50240)."""
    sent_points = [c for c in sent if int(c.get("type") or 1) == ENTRY_POINT]
    if guild_id is not None and sent_points:
        raise HttpError(400, 50035, "Invalid Form Body: an entry point command is global only")
    if guild_id is None and not sent_points and any(
            int(c.get("type") or 1) == ENTRY_POINT for c in held):
        raise HttpError(400, 50240, "You cannot remove this app's Entry Point command in a "
                                    "bulk update operation. Please include the Entry Point "
                                    "command in your update request or delete it separately.")
    for command in sent_points:
        if "handler" not in command:
            raise HttpError(400, 50035, "Invalid Form Body: an entry point needs a handler")
