"""A first look at the page in Chromium."""

from __future__ import annotations

from tests.activity.browser import BROWSER
from tests.activity.conftest import Table
from tests.e2e.people import begin_game

pytestmark = BROWSER


async def test_the_board_shows_on_a_phone(browser_table: Table) -> None:
    await begin_game(browser_table.discord, browser_table["Alice"], browser_table["Bob"])
    alice = await browser_table.screen("Alice")
    frame = await alice.table_where(lambda t: t["status"] == "playing", "the game")
    await alice.wait_for(lambda: frame, "x")
    await alice.page.wait_for_selector(".space")
    await alice.page.wait_for_function("window.__seq && window.__seq.firstBoard !== null")
    await alice.shot("smoke-phone")
    print(alice.console)
