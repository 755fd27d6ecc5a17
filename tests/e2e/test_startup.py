"""What an admin reads when ``python bot.py`` starts: one line per stage, no traceback, no
voice warning, and a bot that keeps trying while Discord cannot be reached."""

from __future__ import annotations

import asyncio
import re
import signal
import socket
from pathlib import Path

import pytest

from runtime.invite import bot_permissions
from tests.e2e.test_bot_process import bot_env, run_bot
from tests.fakediscord import FakeDiscord

VOICE_WARNING = "voice will NOT be supported"
QUICK_RETRIES = {"RECONNECT_BASE_DELAY": "0.1", "RECONNECT_MAX_DELAY": "0.4"}


class Log:
    """The bot's stderr, read line by line as it comes."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        assert process.stderr is not None
        self.process = process
        self.lines: list[str] = []
        self._new_line = asyncio.Condition()
        self._reader = asyncio.create_task(self._read(process.stderr))

    async def _read(self, stream: asyncio.StreamReader) -> None:
        try:
            async for line in stream:
                async with self._new_line:
                    self.lines.append(line.decode().rstrip("\n"))
                    self._new_line.notify_all()
        finally:
            async with self._new_line:
                self._new_line.notify_all()  # the end of the log: nothing more will come

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    async def wait_for(self, pattern: str, count: int = 1, timeout: float = 15) -> list[str]:
        """The lines matching ``pattern``, once there are ``count`` of them (woken by each
        new line)."""

        def found() -> list[str]:
            return [line for line in self.lines if re.search(pattern, line)]

        def enough() -> bool:
            return len(found()) >= count or self._reader.done()

        try:
            async with asyncio.timeout(timeout), self._new_line:
                await self._new_line.wait_for(enough)
        except TimeoutError:
            pass
        if len(found()) < count:
            raise AssertionError(f"no {count} line(s) matching {pattern!r}:\n{self.text}")
        return found()

    async def stop(self, *, terminate: bool = True) -> int:
        """Its exit status, after a SIGTERM (``terminate``) or once it ends by itself."""
        if terminate and self.process.returncode is None:
            self.process.send_signal(signal.SIGTERM)
        await asyncio.wait_for(self.process.wait(), 20)
        await asyncio.wait_for(self._reader, 5)
        assert self.process.returncode is not None
        return self.process.returncode


def fake_env(fake: FakeDiscord, db: Path, **more: str) -> dict[str, str]:
    return bot_env(DISCORD_TOKEN=fake.token, DISCORD_API_BASE=fake.api_base,
                   DISCORD_GATEWAY_URL=fake.gateway_url, DATABASE_PATH=str(db), **more)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_start_up_says_logged_in_invite_synced_and_ready(tmp_path: Path) -> None:
    async with FakeDiscord(token="startup-token-1234") as fake:
        fake.add_guild("Family")
        fake.add_guild("School")
        log = Log(await run_bot(fake_env(fake, tmp_path / "bot.db")))
        try:
            await log.wait_for(r"sequence: ready$")
        finally:
            code = await log.stop()
        assert code == 0, log.text
        text = log.text
        assert "commands synced globally" in text
        assert f"logged in as Sequence (id {fake.application_id}) in 2 servers" in text
        [invite] = re.findall(r"invite it to a server: (\S+)", text)
        assert invite == (
            f"https://discord.com/oauth2/authorize?client_id={fake.application_id}"
            f"&scope=bot+applications.commands&permissions={bot_permissions().value}")
        order = [next(i for i, line in enumerate(log.lines) if stage in line)
                 for stage in ("commands synced", "logged in as", "invite it", ": ready")]
        assert order == sorted(order), text
        assert VOICE_WARNING not in text and "Traceback" not in text
        assert fake.token not in text


async def test_a_second_start_says_the_commands_were_not_synced_again(tmp_path: Path) -> None:
    async with FakeDiscord(token="startup-token-5678") as fake:
        fake.add_guild("Family")
        for _ in range(2):
            log = Log(await run_bot(fake_env(fake, tmp_path / "bot.db")))
            try:
                await log.wait_for(r"sequence: ready$")
            finally:
                assert await log.stop() == 0, log.text
        assert "commands unchanged since the last sync, not synced again" in log.text
        assert "commands synced" not in log.text


async def test_the_permissions_are_exactly_what_the_bot_does() -> None:
    # discord.py lists View Channel under its old name, read_messages
    granted = {name for name, value in bot_permissions() if value}
    assert granted == {"read_messages", "send_messages", "embed_links", "attach_files",
                       "read_message_history", "create_public_threads",
                       "send_messages_in_threads"}


async def test_a_refused_token_is_one_line_and_status_1(tmp_path: Path) -> None:
    async with FakeDiscord(token="the-right-token") as fake:
        fake.add_guild("Family")
        env = fake_env(fake, tmp_path / "bot.db")
        env["DISCORD_TOKEN"] = "a-wrong-token"
        log = Log(await run_bot(env))
        code = await log.stop(terminate=False)
    assert code == 1, log.text
    assert "Discord refused the token: check DISCORD_TOKEN." in log.text
    assert "Traceback" not in log.text and VOICE_WARNING not in log.text


async def test_without_discord_it_retries_with_a_reason_then_connects(tmp_path: Path) -> None:
    port = free_port()
    api_base = f"http://127.0.0.1:{port}/api/v10"
    fake = FakeDiscord(token="patient-token-1234", port=port)
    fake.add_guild("Family")
    log = Log(await run_bot(fake_env(fake, tmp_path / "bot.db", **QUICK_RETRIES)))
    try:
        tries = await log.wait_for(r"cannot reach Discord", count=3)
        assert tries[0].endswith(f"cannot reach Discord at {api_base} (connection refused); "
                                 "trying again in 0.1 s")
        assert tries[1].endswith("trying again in 0.2 s")
        async with fake:
            await log.wait_for(r"sequence: ready$")
            await fake.wait_until_connected(5)
    finally:
        code = await log.stop()
    assert code == 0, log.text
    assert "Traceback" not in log.text and VOICE_WARNING not in log.text
    assert "Unclosed" not in log.text, "each try's HTTP session is closed before the next"
    waits = [float(w) for w in re.findall(r"trying again in ([\d.]+) s", log.text)]
    assert max(waits) <= 0.4, "the wait is capped by RECONNECT_MAX_DELAY"


async def test_when_discord_goes_away_later_it_comes_back_with_one_line_a_try(
        tmp_path: Path) -> None:
    async with FakeDiscord(token="comeback-token-1234") as fake:
        fake.add_guild("Family")
        log = Log(await run_bot(fake_env(fake, tmp_path / "bot.db", **QUICK_RETRIES)))
        try:
            await log.wait_for(r"sequence: ready$")
            await fake.close()
            await log.wait_for(r"lost the connection to Discord", count=2)
            await fake.start()  # the same port, the same session: the bot resumes it
            await fake.wait_until_connected(10)
        finally:
            code = await log.stop()
    assert code == 0, log.text
    lost = [line for line in log.lines if "lost the connection" in line]
    assert all(re.search(r"\(connection refused\); trying again in [\d.]+ s$", line)
               for line in lost), lost
    assert "Traceback" not in log.text


@pytest.mark.parametrize("name", ["RECONNECT_BASE_DELAY", "RECONNECT_MAX_DELAY"])
async def test_a_malformed_retry_setting_says_what_is_wrong(name: str, tmp_path: Path) -> None:
    env = bot_env(DISCORD_TOKEN="x", DATABASE_PATH=str(tmp_path / "bot.db"), **{name: "soon"})
    process = await run_bot(env)
    _, err = await asyncio.wait_for(process.communicate(), 30)
    assert process.returncode == 2
    assert f"{name} must be a number of seconds." in err.decode()
