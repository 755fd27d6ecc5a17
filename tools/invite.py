"""Print the link that invites the bot to a server, without starting it.

    python -m tools.invite        (or: make invite)

The settings are the bot's own (the environment and ``.env``; only ``DISCORD_TOKEN`` and
``DISCORD_API_BASE`` matter here). A bot token starts with its application's id in base64,
so the link is usually made without any network; a token that does not (an old or odd one)
is answered by asking Discord who the application is. The permissions are ``bot.py``'s, the
same the running bot puts in its start-up line.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import logging
import os
import sys

import aiohttp

from runtime.invite import invite_url
from runtime.settings import Settings, SettingsError

log = logging.getLogger("sequence.invite")


def application_id_from_token(token: str) -> int | None:
    """The id in the token's first part (base64 of the digits), or None if it holds none."""
    first = token.split(".", 1)[0]
    try:
        decoded = base64.b64decode(first + "=" * (-len(first) % 4), validate=True).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    return int(decoded) if decoded.isdigit() else None


class RefusedToken(Exception):
    """Discord answered 401: the token is not a bot token it knows."""


async def ask_discord(settings: Settings) -> int:
    """The application's id from Discord itself (GET /oauth2/applications/@me)."""
    url = f"{settings.api_base}/oauth2/applications/@me"
    headers = {"Authorization": f"Bot {settings.token}"}
    timeout = aiohttp.ClientTimeout(total=15)
    async with aiohttp.ClientSession(timeout=timeout) as session, \
            session.get(url, headers=headers) as response:
        if response.status == 401:
            raise RefusedToken
        response.raise_for_status()
        return int((await response.json())["id"])


def main() -> int:
    logging.basicConfig(format="%(levelname)s: %(message)s")
    with contextlib.suppress(ImportError):
        from dotenv import load_dotenv

        load_dotenv()
    try:
        settings = Settings.from_env(os.environ)
    except SettingsError as exc:
        log.error("%s", exc)
        return 2
    application_id = application_id_from_token(settings.token)
    if application_id is None:
        try:
            application_id = asyncio.run(ask_discord(settings))
        except RefusedToken:
            log.error("Discord refused the token: check DISCORD_TOKEN.")
            return 1
        except (aiohttp.ClientError, OSError) as exc:
            log.error("cannot reach Discord at %s to ask for the application id (%s); "
                      "the Developer Portal shows it too (General Information > "
                      "Application ID)", settings.api_base, exc)
            return 1
    print(invite_url(application_id))
    return 0


if __name__ == "__main__":
    sys.exit(main())
