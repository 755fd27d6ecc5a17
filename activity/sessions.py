"""Who is who: a short-lived session the server signs once Discord said who the player is.

The page is never trusted with an identity. It hands the server the one-use code that
Discord's ``commands.authorize`` gave it; the server trades the code for an access token at
Discord (``login.DiscordLogin``, with the client secret, which never leaves the server) and
asks Discord whose token it is. Only then does it issue a ``Session``: the user id, the
name to show and the language, with an expiry, signed with a key derived from the client
secret. Every process of the bot derives the same key, so a page whose process was killed
reconnects to another one (or to the restarted one) with the session it holds; nobody
without the secret can make or alter one.

A session is refreshed (a new one, a new expiry) each time a page connects, so a long game
keeps going while a stolen copy of an old one runs out.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from collections.abc import Callable
from dataclasses import dataclass

SESSION_SECONDS = 60 * 60  # a session lives an hour (refreshed at every connect)
_KEY_LABEL = b"sequence-activity-session-v1"


class BadSession(ValueError):
    """A session that is malformed, not signed by this bot, or expired."""


@dataclass(frozen=True)
class Session:
    """A person the server knows through Discord: their id, name and language."""

    user_id: int
    name: str
    lang: str
    expires: float


class Sessions:
    """Issues and checks signed sessions."""

    def __init__(self, client_secret: str, *, seconds: float = SESSION_SECONDS,
                 clock: Callable[[], float] = time.time) -> None:
        self._key = hmac.new(client_secret.encode(), _KEY_LABEL, hashlib.sha256).digest()
        self.seconds = seconds
        self._clock = clock

    def issue(self, user_id: int, name: str, lang: str) -> str:
        """A session for a person Discord vouched for, valid for ``seconds``."""
        body = json.dumps({"u": str(user_id), "n": name, "l": lang,
                           "e": round(self._clock() + self.seconds)},
                          separators=(",", ":"), ensure_ascii=False).encode()
        return f"{_b64(body)}.{_b64(self._sign(body))}"

    def check(self, token: object) -> Session:
        """The session ``token`` stands for; ``BadSession`` unless it is well formed,
        signed here, and not expired."""
        if not isinstance(token, str) or len(token) > 2048 or token.count(".") != 1:
            raise BadSession("not a session")
        body_text, signature_text = token.split(".")
        try:
            body = _unb64(body_text)
            signature = _unb64(signature_text)
        except ValueError as exc:
            raise BadSession("not a session") from exc
        if not hmac.compare_digest(signature, self._sign(body)):
            raise BadSession("not signed by this bot")
        try:
            data = json.loads(body)
            session = Session(int(data["u"]), str(data["n"]), str(data["l"]),
                              float(data["e"]))
        except (ValueError, KeyError, TypeError) as exc:
            raise BadSession("not a session") from exc
        if session.expires <= self._clock():
            raise BadSession("expired")
        return session

    def _sign(self, body: bytes) -> bytes:
        return hmac.new(self._key, body, hashlib.sha256).digest()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    if not text or len(text) % 4 == 1:
        raise ValueError("bad base64")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
