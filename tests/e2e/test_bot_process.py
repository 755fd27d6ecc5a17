"""``python bot.py`` as its own process, configured only through the environment."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

from tests.fakediscord import FakeDiscord

ROOT = Path(__file__).resolve().parents[2]


def bot_env(**settings: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "DEV_GUILD"))}
    env.update(settings)
    return env


async def run_bot(env: dict[str, str]) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable, str(ROOT / "bot.py"), cwd=str(ROOT), env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)


async def test_without_a_token_it_says_what_to_do_and_fails() -> None:
    process = await run_bot(bot_env(DISCORD_TOKEN=""))
    _, err = await asyncio.wait_for(process.communicate(), 30)
    assert process.returncode not in (0, None)
    assert b"DISCORD_TOKEN is not set" in err and b".env.example" in err


async def test_the_bot_runs_against_the_fake_discord_and_stops_cleanly(tmp_path: Path) -> None:
    async with FakeDiscord(token="process-token-1234") as fake:
        guild = fake.add_guild("Family")
        alice = fake.add_person("Alice")
        db = tmp_path / "bot.db"
        process = await run_bot(bot_env(
            DISCORD_TOKEN=fake.token, DISCORD_API_BASE=fake.api_base,
            DISCORD_GATEWAY_URL=fake.gateway_url, DATABASE_PATH=str(db), LOG_LEVEL="DEBUG"))
        try:
            # no DEV_GUILD_ID: the commands are synced globally, once
            await fake.wait_for(lambda: fake.commands.get(None), 30, "the global command sync")
            await fake.wait_until_connected(10)
            lobby = await (await alice.slash("sequence new", game="kids")).reply(timeout=10)
            assert "Sequence for Kids" in lobby.text and lobby.button(label="Join")
        finally:
            if process.returncode is None:
                process.send_signal(signal.SIGTERM)
            _, err = await asyncio.wait_for(process.communicate(), 30)
        assert process.returncode == 0, err.decode()[-2000:]
        log = err.decode()
        assert "database closed" in log
        assert fake.token not in log, "the token never reaches the log"
        assert db.exists() and guild.id in fake.guilds
