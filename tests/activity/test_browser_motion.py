"""The page moves for those who like it and stands still for those whose device asks for
less motion (``prefers-reduced-motion``): the ring round whose turn it is breathes and the
spaces a card may go to pulse, or both stand still at full strength. What the page shows is
the same either way."""

from __future__ import annotations

from tests.activity.browser import BROWSER, Screen
from tests.activity.conftest import Table
from tests.activity.taps import my_turn
from tests.e2e.people import begin_game

pytestmark = BROWSER

RING = ".seat.to-move .face"
GLOW = ".space.glow"


async def looks(screen: Screen, selector: str, pseudo: str) -> dict[str, str]:
    """The animation and the opacity of ``selector``'s ``pseudo`` element, as drawn."""
    await screen.page.wait_for_selector(selector)
    found: dict[str, str] = await screen.page.eval_on_selector(
        selector, """(node, pseudo) => {
            const style = getComputedStyle(node, pseudo);
            return {animation: style.animationName, opacity: style.opacity};
        }""", pseudo)
    return found


async def choose_a_card(screen: Screen) -> None:
    frame = await my_turn(screen)
    card = next(c for c in frame["me"]["hand"]
                if any(a.startswith(f"{c}@") for a in frame["me"]["legal"]))
    await screen.tap(f'[data-card="{card}"]')
    assert await screen.glowing()


async def test_the_turn_ring_breathes_and_the_choices_pulse_when_motion_is_welcome(
        browser_table: Table) -> None:
    table = browser_table
    await begin_game(table.discord, table["Alice"], table["Bob"])
    alice = await table.screen("Alice", motion="no-preference")
    await choose_a_card(alice)
    assert (await looks(alice, RING, "::before"))["animation"] == "breathe"
    assert (await looks(alice, GLOW, "::after"))["animation"] == "pulse"


async def test_a_device_that_asks_for_less_motion_gets_the_same_marks_standing_still(
        browser_table: Table) -> None:
    table = browser_table
    await begin_game(table.discord, table["Alice"], table["Bob"])
    alice = await table.screen("Alice", motion="reduce")
    await choose_a_card(alice)
    assert await looks(alice, RING, "::before") == {"animation": "none", "opacity": "1"}
    assert await looks(alice, GLOW, "::after") == {"animation": "none", "opacity": "1"}
