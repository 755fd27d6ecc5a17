"""The waits between tries while Discord cannot be reached: doubling, capped, reset."""

from __future__ import annotations

import logging

from runtime.link import Backoff, ReconnectLine


def test_the_wait_doubles_up_to_the_cap() -> None:
    delays = Backoff(1.0, 30.0)
    assert [delays.delay() for _ in range(8)] == [1, 2, 4, 8, 16, 30, 30, 30]


def test_a_quiet_spell_starts_again_from_the_base() -> None:
    now = [1000.0]
    delays = Backoff(1.0, 30.0, clock=lambda: now[0])
    assert [delays.delay() for _ in range(3)] == [1, 2, 4]
    now[0] += 3600  # connected for an hour
    assert delays.delay() == 1


def test_discords_reconnect_traceback_becomes_one_line() -> None:
    try:
        raise ConnectionRefusedError(111, "Connect call failed ('127.0.0.1', 9)")
    except OSError as exc:
        record = logging.LogRecord("discord.client", logging.ERROR, __file__, 1,
                                   "Attempting a reconnect in %.2fs", (4.0,),
                                   (type(exc), exc, exc.__traceback__))
    assert ReconnectLine("wss://gateway.discord.gg").filter(record)
    assert record.getMessage() == ("lost the connection to Discord at wss://gateway.discord.gg "
                                   "(connection refused); trying again in 4 s")
    assert record.exc_info is None and record.levelname == "WARNING"
