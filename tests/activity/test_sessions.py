"""Sessions are signed by the bot and run out; a page's messages are checked and paced."""

from __future__ import annotations

import pytest

from activity.play import BadMessage, Pace, parse, ply_of
from activity.sessions import BadSession, Sessions


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def test_a_session_says_who_until_it_runs_out() -> None:
    clock = Clock()
    sessions = Sessions("secret", seconds=60, clock=clock)
    token = sessions.issue(42, "Mum", "no")
    session = sessions.check(token)
    assert (session.user_id, session.name, session.lang) == (42, "Mum", "no")
    clock.now += 61
    with pytest.raises(BadSession, match="expired"):
        sessions.check(token)


def test_another_bots_session_is_not_taken() -> None:
    token = Sessions("another secret").issue(42, "Mum", "en")
    with pytest.raises(BadSession, match="not signed"):
        Sessions("secret").check(token)


def test_every_process_of_the_bot_takes_the_others_sessions() -> None:
    token = Sessions("secret").issue(7, "Dad", "en")
    assert Sessions("secret").check(token).user_id == 7


@pytest.mark.parametrize("token", [None, 7, "", "x", "a.b.c", "abc.def", "é.é", "." * 3000])
def test_anything_else_is_not_a_session(token: object) -> None:
    with pytest.raises(BadSession):
        Sessions("secret").check(token)


def test_a_session_altered_is_refused() -> None:
    sessions = Sessions("secret")
    body, signature = sessions.issue(42, "Mum", "en").split(".")
    other_body = sessions.issue(43, "Mum", "en").split(".")[0]
    with pytest.raises(BadSession):
        sessions.check(f"{other_body}.{signature}")
    with pytest.raises(BadSession):
        sessions.check(f"{body}.{signature[:-2]}AA")


def test_a_person_is_paced_and_gets_their_pace_back() -> None:
    clock = Clock()
    pace = Pace(rate=2.0, burst=3, clock=clock)
    assert [pace.allow(1) for _ in range(4)] == [True, True, True, False]
    assert pace.allow(2), "each person has their own pace"
    clock.now += 0.5
    assert pace.allow(1) and not pace.allow(1)


@pytest.mark.parametrize("text", ["", "null", "[]", '{"t": 1}', '{"x": "move"}',
                                  '{"t": "move", "pad": "' + "x" * 600 + '"}'])
def test_a_message_that_is_not_one_is_refused(text: str) -> None:
    with pytest.raises(BadMessage):
        parse(text)


@pytest.mark.parametrize("ply", [None, -1, True, 1.5, "3", 10**9])
def test_a_ply_is_a_small_whole_number(ply: object) -> None:
    with pytest.raises(BadMessage):
        ply_of({"ply": ply})
    assert ply_of({"ply": 3}) == 3
