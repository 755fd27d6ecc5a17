"""Typed refusals: one base, ``Refusal``, for the rules (``IllegalAction``,
``InvalidOptions``) and the manager (``manager.ManagerError``) alike.

Every refusal carries a stable ``code`` (for the Discord layer to translate into English
or Norwegian), ``params`` (the facts the message names) and a readable English message.
"""

from __future__ import annotations

from typing import Any


class Refusal(ValueError):
    """Something a player asked for that is not allowed: a ``ValueError`` with a stable
    ``code``, the ``params`` its message names, and a readable English ``message``."""

    def __init__(self, code: str, message: str, **params: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.params = params

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.message!r})"


class IllegalAction(Refusal):
    """An action that is malformed, or not allowed in the current state.

    Raising it never changes the game.
    """


class InvalidOptions(Refusal):
    """A combination of game options that the rules do not allow."""
