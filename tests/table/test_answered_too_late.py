"""A click whose answer Discord refuses as too late is one warning, not a bug's traceback
and apology (``replies.refusals``)."""

from __future__ import annotations

import logging
from types import SimpleNamespace
from typing import Any, cast

import discord
import pytest

from cogs.table.replies import refusals


class Response:
    def __init__(self) -> None:
        self.sent: list[str] = []

    def is_done(self) -> bool:
        return False

    async def send_message(self, content: str, **_: Any) -> None:
        self.sent.append(content)


def a_click() -> Any:
    return SimpleNamespace(user=SimpleNamespace(id=7), channel_id=9, guild_id=None,
                           locale="en-US", response=Response(), extras={})


async def refused(code: int, message: str) -> None:
    """What discord.py raises when Discord answers 404 with ``code``."""
    raise discord.NotFound(cast(Any, SimpleNamespace(status=404, reason="Not Found")),
                           {"code": code, "message": message})


@pytest.mark.parametrize(("code", "message"), [(10062, "Unknown interaction"),
                                               (10015, "Unknown Webhook")])
async def test_an_answer_refused_as_too_late_is_one_warning(
        caplog: pytest.LogCaptureFixture, code: int, message: str) -> None:
    click = a_click()
    with caplog.at_level(logging.INFO, logger="cogs.table.replies"):
        async with refusals(click, "card button"):
            await refused(code, message)
    assert [(r.levelname, r.exc_info) for r in caplog.records] == [("WARNING", None)]
    assert "too late" in caplog.records[0].getMessage()
    assert click.response.sent == [], "nobody left to tell"


async def test_another_missing_thing_is_still_a_bug(caplog: pytest.LogCaptureFixture) -> None:
    click = a_click()
    with caplog.at_level(logging.INFO, logger="cogs.table.replies"):
        async with refusals(click, "card button"):
            await refused(10008, "Unknown Message")
    assert caplog.records[0].levelname == "ERROR" and caplog.records[0].exc_info
    assert click.response.sent, "the person gets the apology"
