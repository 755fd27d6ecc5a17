"""Routes about channels: a channel, its messages, typing, threads, and opening a DM.

A DM to someone who closed their DMs (``Faults.closed_dms``) is refused here, as Discord
refuses it: 403 with code 50007. A channel the bot user is not in (a group DM, a DM
between two people, a channel of a server that never invited it: ``installs.Reach``) is
403 50001 Missing Access on every route here, reading as well as writing.
"""

from __future__ import annotations

import re
from typing import Any

from aiohttp import web

from ..errors import HttpError
from ..faults import Faults
from ..payloads import snowflake
from ..rest import Handler, RequestBody, Router
from ..world import World

CHANNEL = r"/channels/(?P<channel>\d+)"
MESSAGE = CHANNEL + r"/messages/(?P<message>\d+)"


class ChannelRoutes:
    """``/channels/...`` (messages, typing, threads) and ``POST /users/@me/channels``."""

    def __init__(self, world: World, faults: Faults) -> None:
        self.world = world
        self.faults = faults

    def register(self, router: Router) -> None:
        router.add("POST", r"/users/@me/channels", self._open_dm)

        def r(method: str, pattern: str, handler: Handler) -> None:
            router.add(method, pattern, self._in_reach(handler))

        r("GET", CHANNEL, self._get_channel)
        r("POST", CHANNEL + "/messages", self._post_message)
        r("GET", CHANNEL + "/messages", self._list_messages)
        r("GET", MESSAGE, self._get_message)
        r("PATCH", MESSAGE, self._edit_message)
        r("DELETE", MESSAGE, self._delete_message)
        r("PUT", MESSAGE + r"/reactions/(?P<emoji>[^/]+)/@me", self._react)
        r("DELETE", MESSAGE + r"/reactions/(?P<emoji>[^/]+)/@me", self._react)
        r("POST", CHANNEL + "/typing", self._typing)
        r("POST", MESSAGE + "/threads", self._start_thread)
        r("POST", CHANNEL + "/threads", self._start_thread)
        r("DELETE", CHANNEL, self._delete_thread)

    def _in_reach(self, handler: Handler) -> Handler:
        """``handler``, for a channel the bot is in (else 403 50001, ``Reach``)."""
        async def guarded(request: web.Request, m: re.Match[str], body: RequestBody) -> Any:
            self.world.reach.require_bot_in(int(m["channel"]))
            return await handler(request, m, body)
        return guarded

    def _door_open(self, channel: dict[str, Any]) -> None:
        """A DM to someone who closed their DMs is refused, a new message or an edit of an
        old one alike (the fake assumes the stricter of the two; interaction responses,
        which the person asked for, are not refused)."""
        if channel["type"] == 1:
            recipient = int(channel["recipients"][0]["id"])
            if recipient in self.faults.closed_dms:
                raise HttpError(403, 50007, "Cannot send messages to this user")

    async def _open_dm(self, request: web.Request, m: re.Match[str], body: RequestBody) -> Any:
        user_id = int(body.json["recipient_id"])
        if user_id not in self.world.users:
            raise HttpError(400, 50035, "Invalid Form Body: recipient_id")
        return self.world.channels[self.world.dm_channel(user_id)]

    async def _get_channel(self, request: web.Request, m: re.Match[str], body: RequestBody
                           ) -> Any:
        return self.world.channel(int(m["channel"]))

    async def _post_message(self, request: web.Request, m: re.Match[str], body: RequestBody
                            ) -> Any:
        world = self.world
        channel_id = int(m["channel"])
        channel = world.channel(channel_id)
        self._door_open(channel)
        payload = body.json or {}
        nonce = payload.get("nonce")
        if nonce is not None and payload.get("enforce_nonce"):
            # Discord answers a repeated nonce (a client's retry) with the message it made
            # the first time, for a few minutes; discord.py sends one with every message
            earlier = world.nonces.get((channel_id, str(nonce)))
            if earlier is not None:
                world.nonce_repeats += 1
                return earlier.data
        message = world.create_message(channel_id, payload, body.files)
        if nonce is not None and payload.get("enforce_nonce"):
            world.nonces[(channel_id, str(nonce))] = message
        return message.data

    async def _list_messages(self, request: web.Request, m: re.Match[str], body: RequestBody
                             ) -> Any:
        channel_id = int(m["channel"])
        self.world.channel(channel_id)
        limit = int(request.query.get("limit", 50))
        return [x.data for x in reversed(self.world.visible_messages(channel_id))][:limit]

    async def _get_message(self, request: web.Request, m: re.Match[str], body: RequestBody
                           ) -> Any:
        return self.world.message(int(m["channel"]), int(m["message"])).data

    async def _edit_message(self, request: web.Request, m: re.Match[str], body: RequestBody
                            ) -> Any:
        self._door_open(self.world.channel(int(m["channel"])))
        message = self.world.message(int(m["channel"]), int(m["message"]))
        return self.world.edit_message(message, body.json or {}, body.files).data

    async def _delete_message(self, request: web.Request, m: re.Match[str], body: RequestBody
                              ) -> Any:
        self.world.delete_message(self.world.message(int(m["channel"]), int(m["message"])))
        return None

    async def _react(self, request: web.Request, m: re.Match[str], body: RequestBody) -> Any:
        """The bot adds (or takes back) a reaction: the message must be there; nobody is
        told (the bot's own reactions are nothing the fake keeps)."""
        self.world.message(int(m["channel"]), int(m["message"]))
        return None

    async def _typing(self, request: web.Request, m: re.Match[str], body: RequestBody) -> Any:
        self.world.channel(int(m["channel"]))
        return None

    async def _start_thread(self, request: web.Request, m: re.Match[str], body: RequestBody
                            ) -> Any:
        """A public thread in a text channel, from one of its messages or on its own."""
        world = self.world
        parent_id = int(m["channel"])
        parent = world.channel(parent_id)
        if parent.get("type") != 0:
            raise HttpError(400, 50024, "Cannot execute action on this channel type")
        if m.groupdict().get("message"):
            message = world.message(parent_id, int(m["message"]))
            if message.data.get("thread"):
                raise HttpError(400, 160004, "A thread has already been created for this "
                                             "message")
        else:
            message = None
        name = str((body.json or {}).get("name") or "")
        if not 1 <= len(name) <= 100:
            raise HttpError(400, 50035, "Invalid Form Body: name")
        thread_id = message.id if message is not None else snowflake()  # as Discord does
        thread = world.open_thread(
            thread_id, parent_id, name, world.application_id,
            int((body.json or {}).get("auto_archive_duration") or 1440))
        if message is not None:
            message.data["thread"] = thread
        world.changed()
        return thread

    async def _delete_thread(self, request: web.Request, m: re.Match[str], body: RequestBody
                             ) -> Any:
        """Only threads are deleted here (a bot deleting a server's channel is nothing this
        bot does: refused, as missing the Manage Channels permission would be)."""
        thread_id = int(m["channel"])
        self.world.channel(thread_id)
        if thread_id not in self.world.threads:
            raise HttpError(403, 50013, "Missing Permissions")
        return self.world.delete_thread(thread_id)
