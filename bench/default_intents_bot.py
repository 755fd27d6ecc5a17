"""``python bot.py`` as it was before issue 46's item 5, for the intents bench to compare
with (``bench/intents_bench.py``): discord.py's ``Intents.default()`` (every message,
typing and reaction in its servers) and its cache of the last 1,000 messages. Everything
else is the bot's own start (``bot.run``: its settings, its log, SIGTERM to stop).

Not a setting of the bot: no admin has a reason to ask Discord for more than the game uses.

    python -m bench.default_intents_bot        (the environment of ``python bot.py``)
"""

from __future__ import annotations

import asyncio
import os
import sys

import discord

import bot
from runtime.logs import setup_logging
from runtime.settings import Settings


def main() -> int:
    settings = Settings.from_env(os.environ)
    setup_logging(settings.log_level, settings.token, settings.client_secret)
    asyncio.run(bot.run(settings, intents=discord.Intents.default(), max_messages=1000))
    return 0


if __name__ == "__main__":
    sys.exit(main())
