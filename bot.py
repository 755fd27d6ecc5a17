"""Composition root of the Discord bot (the bot itself is built in the Discord issue)."""

from __future__ import annotations

import logging
import os
import sys

log = logging.getLogger("sequence")


def main() -> int:
    logging.basicConfig(level=os.environ.get("LOG_LEVEL", "INFO"),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        from dotenv import load_dotenv

        load_dotenv()
    except ImportError:  # pragma: no cover - dotenv is a declared dependency
        pass
    if not os.environ.get("DISCORD_TOKEN"):
        log.error("DISCORD_TOKEN is not set: copy .env.example to .env and put your bot's "
                  "token in it (Discord Developer Portal > your application > Bot > Token).")
        return 2
    log.error("The Discord bot is not built yet.")
    return 3


if __name__ == "__main__":
    sys.exit(main())
