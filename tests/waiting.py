"""The one way a test waits: until what it needs has happened, never for a fixed time.

``until(check, what)`` looks at ``check`` (a function, or a coroutine function: a read of
the database) as soon as anything else had a chance to run, and then every few
milliseconds, and returns its first truthy answer; after ``timeout`` seconds it fails
saying what it waited for. A machine under load only makes it take longer, never fail, up
to the timeout, which is a bound on a bug (a game stalled), not a guess at a speed.

The fake Discord has its own waiter, woken by every change it sees
(``FakeDiscord.wait_for``); use that for what happens on Discord.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")

LOOK_EVERY = 0.02  # seconds between two looks


async def until(check: Callable[[], T | None] | Callable[[], Awaitable[T | None]], what: str,
                timeout: float = 10.0) -> T:
    """Wait until ``check()`` is truthy and return it; fail after ``timeout`` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    await asyncio.sleep(0)
    while True:
        found = check()
        if inspect.isawaitable(found):
            found = await found
        if found:
            return found  # type: ignore[return-value]
        if loop.time() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await asyncio.sleep(LOOK_EVERY)
