"""Four ``python bot.py`` processes on one token stay under its global rate limit
together (issue 26, item 3), where the same load without the budget overdraws it.

One throwaway PostgreSQL, one fake Discord enforcing the limit over all four at once, a
bounded load of computer games with no delay in tidy servers and people playing at a
person's pace (``one_token.py``). The figures (requests/s, board latency, the ratios)
come from ``python -m bench budget``, not from here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakediscord import FakeDiscord
from tests.fakediscord.messages import FakeFile, FakeMessage
from tests.fakediscord.payloads import snowflake
from tests.reliability.one_token import Load, before_and_after, boards_after, newest_board_id
from tools.pg_server import PostgresServer


def _post_board(fake: FakeDiscord, channel: int) -> FakeMessage:
    message = FakeMessage({"id": str(snowflake()), "channel_id": str(channel)},
                          files=[FakeFile(snowflake(), "board.png", b"", None, "image/png")])
    fake.channel_messages[channel].append(message)
    return message


def test_a_new_board_is_seen_when_a_tidy_server_deleted_the_one_before_it_first() -> None:
    """The bench's wait for a game's next board: two boards in a tidy channel, the older
    deleted, then the new one posted. The count is back where it was; the board is new."""
    fake = FakeDiscord()
    channel = fake.add_guild("Tidy").channel_id
    older, newest = _post_board(fake, channel), _post_board(fake, channel)
    seen = newest_board_id(fake, channel)
    assert seen == newest.id and boards_after(fake, channel, seen) == []
    older.deleted = True
    new = _post_board(fake, channel)
    assert boards_after(fake, channel, seen) == [new]


@pytest.mark.slow
async def test_four_processes_on_one_token_get_no_global_429_where_they_got_many(
        tmp_path: Path, postgres_server: PostgresServer) -> None:
    before, after = await before_and_after(
        postgres_server.url(), tmp_path, Load(computer_channels=6, people_tables=1,
                                              window_s=15.0))
    assert before.global_429s > 0, ("without the budget this load overdraws the token",
                                    before)
    assert after.global_429s == 0, after
    assert all("4 processes" in line for line in after.budget_lines), after.budget_lines
    assert after.board_ms, ("people kept playing meanwhile", after)
    assert after.errors == []
    # every step of the people and every computer game opened, with the budget
    assert after.stalls == 0, after.stalled
