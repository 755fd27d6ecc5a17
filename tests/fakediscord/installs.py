"""Where the app is installed, and what Discord makes of it (issue 48, item 6).

Two ways in (*integration types*): ``GUILD_INSTALL`` (0), a server invited the bot (the
world's ``guilds``); ``USER_INSTALL`` (1), a person added the app to their account
(``Reach.user_installs``) and may use it wherever its commands allow, even where the bot is
not: a server that never invited it (``Reach.foreign_guilds``), a group DM, a DM between
two people (``private_channels.py`` makes those). Three places (*interaction contexts*):
``GUILD`` (0), ``BOT_DM`` (1, the DM with the app's bot user), ``PRIVATE_CHANNEL`` (2).

What Discord does with them, kept here:

- a command carries ``integration_types`` and ``contexts`` as the bot's sync sent them;
  absent or null, Discord's defaults: ``integration_types`` ``[0]``, ``contexts`` null (all
  of them). Anything else is 400 50035 Invalid Form Body (``command_as_kept``);
- which commands a person sees in a place (``commands_visible``): a server's own commands
  only in that server, and only if it installed the app; a global one where its
  ``contexts`` allow and one of its ``integration_types`` is installed there (only
  ``USER_INSTALL`` counts in a private channel: Discord's docs, "the PRIVATE_CHANNEL
  interaction context is only meaningful for commands installed to a user");
- every interaction's ``authorizing_integration_owners`` (``authorizing_owners``): "0" is
  the server's id (``"0"`` in the bot's DM) where the server installed the app, "1" the
  user who installed it to their account; a click inherits the owners of the interaction
  that made the clicked message;
- the bot user is only where it was let in: anywhere else its token reads and writes
  nothing (403 50001 Missing Access, ``Reach.require_bot_in``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .errors import HttpError
from .guild import FakeGuild

GUILD_INSTALL, USER_INSTALL = 0, 1
GUILD, BOT_DM, PRIVATE_CHANNEL = 0, 1, 2
INTEGRATION_TYPES = (GUILD_INSTALL, USER_INSTALL)
CONTEXTS = (GUILD, BOT_DM, PRIVATE_CHANNEL)
#: what an app may do in a DM or group DM it is not in, by Discord's docs
#: (ATTACH_FILES | EMBED_LINKS | MENTION_EVERYONE)
PRIVATE_PERMISSIONS = (1 << 15) | (1 << 14) | (1 << 17)


@dataclass
class Reach:
    """Where the app is besides the servers that invited the bot (``World.guilds``)."""

    #: people who installed the app to their account (``Person.install_app``)
    user_installs: set[int] = field(default_factory=set)
    #: servers where the bot was never invited (a member installed the app): no
    #: GUILD_CREATE, no events, no posting; their channels are in ``outside``
    foreign_guilds: dict[int, FakeGuild] = field(default_factory=dict)
    #: channels the bot user is not in (group DMs, DMs between people, foreign servers')
    outside: set[int] = field(default_factory=set)

    def context_of(self, channel_id: int, guild_id: int | None) -> int:
        """The interaction context of an action in ``channel_id``."""
        if guild_id is not None:
            return GUILD
        return PRIVATE_CHANNEL if channel_id in self.outside else BOT_DM

    def guild_installed(self, guild_id: int | None) -> bool:
        """Whether GUILD_INSTALL authorizes there (a server that invited the bot; the bot's
        DM, which exists because it shares one with the person)."""
        return guild_id not in self.foreign_guilds

    def require_bot_in(self, channel_id: int) -> None:
        """The bot's token in a channel it is not in: Discord's 403 50001."""
        if channel_id in self.outside:
            raise HttpError(403, 50001, "Missing Access")


# ----------------------------------------------------------------- the commands' shapes
def command_as_kept(command: dict[str, Any], index: int) -> dict[str, Any]:
    """``integration_types`` and ``contexts`` of one command of a sync, checked and with
    Discord's defaults; the rest of the command as it came (``index``: its place in the
    bulk overwrite, where Discord's error points)."""
    errors: dict[str, Any] = {}
    for key, allowed in (("integration_types", INTEGRATION_TYPES), ("contexts", CONTEXTS)):
        problem = _list_problem(command.get(key), allowed)
        if problem:
            errors[key] = problem
    if errors:
        raise HttpError(400, 50035, "Invalid Form Body", errors={str(index): errors})
    kept = dict(command)
    kept["integration_types"] = list(command.get("integration_types") or [GUILD_INSTALL])
    kept["contexts"] = (None if command.get("contexts") is None
                        else list(command["contexts"]))
    return kept


def _list_problem(value: Any, allowed: tuple[int, ...]) -> dict[str, Any] | None:
    """Discord's error tree for a list field that must hold some of ``allowed``."""
    if value is None:
        return None
    if not isinstance(value, list):
        return {"_errors": [{"code": "LIST_TYPE_CONVERT", "message": "Must be a list."}]}
    choices = "{" + ", ".join(str(a) for a in allowed) + "}"
    bad = {str(i): {"_errors": [{"code": "BASE_TYPE_CHOICES",
                                  "message": f"Value must be one of {choices}."}]}
           for i, v in enumerate(value)
           if isinstance(v, bool) or not isinstance(v, int) or v not in allowed}
    return bad or None


def contexts_of(command: dict[str, Any]) -> set[int]:
    """Where a command may be used (null: everywhere; the old ``dm_permission: false`` on a
    command without ``contexts``: not in the bot's DM)."""
    contexts = command.get("contexts")
    if contexts is not None:
        return set(contexts)
    return set(CONTEXTS) - ({BOT_DM} if command.get("dm_permission") is False else set())


def installs_of(command: dict[str, Any]) -> set[int]:
    return set(command.get("integration_types") or [GUILD_INSTALL])


def commands_visible(commands: dict[int | None, list[dict[str, Any]]], *, context: int,
                     guild_id: int | None = None, guild_installed: bool = True,
                     installed_by_user: bool = False) -> list[dict[str, Any]]:
    """The commands a person sees in a place: ``context`` (0, 1, 2), the server
    (``guild_id``, for context 0), whether that server installed the app
    (``guild_installed``), whether the person installed it to their account."""
    if context not in CONTEXTS:
        raise ValueError(f"context {context} is not one of {CONTEXTS}")
    present = set()
    if installed_by_user:
        present.add(USER_INSTALL)
    if guild_installed and context != PRIVATE_CHANNEL:
        present.add(GUILD_INSTALL)
    seen: list[dict[str, Any]] = []
    if context == GUILD and guild_id is not None and GUILD_INSTALL in present:
        seen += commands.get(guild_id, [])
    for command in commands.get(None, []):
        installs = installs_of(command)
        if context == PRIVATE_CHANNEL:
            installs.discard(GUILD_INSTALL)
        if context in contexts_of(command) and installs & present:
            seen.append(command)
    return seen


def authorizing_owners(*, context: int, guild_id: int | None, guild_installed: bool,
                       installer: int | None, command: dict[str, Any] | None
                       ) -> dict[str, str]:
    """An interaction's ``authorizing_integration_owners``: "0" where the server (or, in
    the bot's DM, the app's servers) installed the app, "1" the person who installed it to
    their account (``installer``) when the command (None: not a command) is a user one."""
    installs = installs_of(command) if command is not None else {GUILD_INSTALL}
    owners: dict[str, str] = {}
    if GUILD_INSTALL in installs and guild_installed and context != PRIVATE_CHANNEL:
        owners["0"] = str(guild_id) if context == GUILD else "0"
    if USER_INSTALL in installs and installer is not None:
        owners["1"] = str(installer)
    return owners


def only_user_installed(owners: dict[str, str]) -> bool:
    """Only USER_INSTALL authorized it: Discord allows 5 follow-ups, no more."""
    return set(owners) == {str(USER_INSTALL)}
