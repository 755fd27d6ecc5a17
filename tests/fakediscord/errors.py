"""The error the fake Discord answers with, in Discord's shape.

Every part raises ``HttpError`` where Discord would refuse (an unknown channel, a payload
over a limit, a closed DM); the router (``rest.py``) turns it into the JSON answer.
"""

from __future__ import annotations


class HttpError(Exception):
    """An error answer in Discord's shape: ``{"message": ..., "code": ...}``."""

    def __init__(self, status: int, code: int, message: str) -> None:
        super().__init__(f"{status} {code} {message}")
        self.status, self.code, self.message = status, code, message
