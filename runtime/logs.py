"""The bot's log: one line per record, the token never in it.

Faults that are not bugs (Discord or the database away for a while) are said in one line
by whoever meets them; only bugs carry a traceback (docs/ADMIN.md, "Logs").
"""

from __future__ import annotations

import logging


class RedactToken(logging.Filter):
    """Replaces the token wherever it would appear in a log line."""

    def __init__(self, token: str) -> None:
        super().__init__()
        self.token = token

    def filter(self, record: logging.LogRecord) -> bool:
        if self.token and self.token in record.getMessage():
            record.msg = record.getMessage().replace(self.token, "[token]")
            record.args = None
        return True


def setup_logging(level: str, token: str) -> None:
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RedactToken(token))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level if level in logging.getLevelNamesMapping() else "INFO")
