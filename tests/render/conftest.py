"""Every render test starts with no board picture cached, so a test that watches how a
board is drawn (the text pasted, the tiles made) sees it drawn, not served from the cache
an earlier test filled."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from render import board


@pytest.fixture(autouse=True)
def no_cached_boards() -> Iterator[None]:
    board.clear_board_cache()
    yield
    board.clear_board_cache()
