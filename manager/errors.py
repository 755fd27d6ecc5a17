"""The manager's refusals: typed, with a stable code the Discord layer translates."""

from __future__ import annotations

from typing import Any

from engine.errors import Refusal


class ManagerError(Refusal):
    """A lobby or game call that is not allowed (see docs/MANAGER.md for the codes)."""


def refuse(code: str, message: str, **params: Any) -> ManagerError:
    return ManagerError(code, message, **params)
