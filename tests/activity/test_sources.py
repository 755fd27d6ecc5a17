"""Who sent a login, as far as anyone can tell: only a proxy the admin trusts may say it."""

from __future__ import annotations

from unittest import mock

from aiohttp.test_utils import make_mocked_request
from multidict import CIMultiDict

from activity.doors import Door, Sources


def source(sources: Sources, peer: str, *headers: tuple[str, str]) -> str | None:
    """The source ``sources`` sees in a login from ``peer`` (the TCP peer) with ``headers``."""
    transport = mock.Mock()
    transport.get_extra_info.return_value = (peer, 4000)
    request = make_mocked_request("POST", "/api/token", headers=CIMultiDict(headers),
                                  transport=transport)
    return sources.of(request)


def test_without_a_trusted_proxy_nobody_is_known() -> None:
    sources = Sources(())
    assert source(sources, "127.0.0.1", ("X-Forwarded-For", "10.0.0.7")) is None
    assert source(sources, "203.0.113.9") is None, "the peer is the tunnel, for everyone"


def test_a_trusted_proxy_says_the_client_and_nobody_else_does() -> None:
    sources = Sources(("127.0.0.1", "10.1.0.0/16"))
    assert source(sources, "127.0.0.1", ("X-Forwarded-For", "10.0.0.7")) == "10.0.0.7"
    # read from the right: what the client wrote itself, left of its address, is nothing
    assert source(sources, "127.0.0.1",
                  ("X-Forwarded-For", "6.6.6.6, 10.0.0.7, 10.1.2.3")) == "10.0.0.7"
    # a peer that is no trusted proxy came straight here: it is the client
    assert source(sources, "198.51.100.4", ("X-Forwarded-For", "10.0.0.7")) == "198.51.100.4"
    # a trusted proxy that says nothing, or what is not an address, tells nothing
    assert source(sources, "127.0.0.1") is None
    assert source(sources, "127.0.0.1", ("X-Forwarded-For", "unknown")) is None


def test_the_header_is_the_one_the_admin_names() -> None:
    sources = Sources(("::1",), "CF-Connecting-IP")
    assert source(sources, "::1", ("CF-Connecting-IP", "2001:db8::7"),
                  ("X-Forwarded-For", "10.0.0.7")) == "2001:db8::7"


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_door_lets_its_bursts_in_then_one_a_rate_and_one_key_cannot_take_the_rest() -> None:
    clock = Clock()
    door = Door(60, 5, 60, 2, clock=clock)  # one a second in all and per key
    assert [door.let_in("a")[1] for _ in range(3)] == ["", "", "key"]
    assert [door.let_in(None)[1] for _ in range(4)] == ["", "", "", "all"]
    wait, why = door.let_in("b")
    assert why == "all" and 0 < wait <= 1.0
    clock.now += 1.0
    assert door.let_in("b") == (0.0, "")


def test_a_door_shut_by_discord_lets_nothing_in_until_it_said() -> None:
    clock = Clock()
    door = Door(60, 5, 0, 0, clock=clock)
    door.shut_for(30)
    assert door.let_in(None) == (30.0, "shut")
    clock.now += 30
    assert door.let_in(None) == (0.0, "")


def test_a_rate_of_zero_is_no_bucket() -> None:
    door = Door(0, 1, 0, 1, clock=Clock())
    assert all(door.let_in("a") == (0.0, "") for _ in range(100))
