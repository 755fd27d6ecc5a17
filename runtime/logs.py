"""The bot's log: one line per record, the token never in it.

Faults that are not bugs (Discord or the database away for a while) are said in one line
by whoever meets them; only bugs carry a traceback (docs/ADMIN.md, "Logs").
"""

from __future__ import annotations

import logging


class RedactToken(logging.Filter):
    """Replaces the token (and any other secret: the Activity's client secret) wherever it
    would appear in a log line."""

    def __init__(self, token: str, *secrets: str | None) -> None:
        super().__init__()
        self.token = token
        self.secrets = [s for s in (token, *secrets) if s]

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if any(s in message for s in self.secrets):
            for secret in self.secrets:
                message = message.replace(secret, "[token]")
            record.msg = message
            record.args = None
        return True


def setup_logging(level: str, token: str, *secrets: str | None) -> None:
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RedactToken(token, *secrets))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level if level in logging.getLevelNamesMapping() else "INFO")
