"""The error the fake Discord answers with, in Discord's shape.

Every part raises ``HttpError`` where Discord would refuse (an unknown channel, a payload
over a limit, a closed DM); the router (``rest.py``) turns it into the JSON answer.
"""

from __future__ import annotations

from typing import Any


class HttpError(Exception):
    """An error answer in Discord's shape: ``{"message": ..., "code": ...}``, and for an
    Invalid Form Body the tree of what was wrong where (``errors``)."""

    def __init__(self, status: int, code: int, message: str, *,
                 errors: dict[str, Any] | None = None) -> None:
        super().__init__(f"{status} {code} {message}")
        self.status, self.code, self.message = status, code, message
        self.errors = errors
