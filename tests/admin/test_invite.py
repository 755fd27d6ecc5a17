"""``python -m tools.invite``: the invite link from the token, without starting the bot."""

from __future__ import annotations

import asyncio
import base64
import sys
from pathlib import Path

from runtime.invite import bot_permissions, invite_url
from tests.e2e.test_bot_process import bot_env
from tests.fakediscord import FakeDiscord
from tools.invite import application_id_from_token

ROOT = Path(__file__).resolve().parents[2]
NOWHERE = "http://127.0.0.1:9/api/v10"  # nothing listens: any network use would fail


def token_of(application_id: int) -> str:
    head = base64.b64encode(str(application_id).encode()).decode().rstrip("=")
    return f"{head}.GhJkLm.abcdefghijklmnopqrstuvwxyz0123456789AB"


async def invite(env: dict[str, str]) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tools.invite", cwd=str(ROOT), env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(process.communicate(), 30)
    assert process.returncode is not None
    return process.returncode, out.decode().strip(), err.decode()


def test_the_application_id_is_the_first_part_of_the_token() -> None:
    assert application_id_from_token(token_of(1234567890123456789)) == 1234567890123456789
    assert application_id_from_token("fake-token") is None
    assert application_id_from_token("") is None


def test_the_link_has_both_scopes_and_the_bots_permissions() -> None:
    url = invite_url(42)
    assert url == ("https://discord.com/oauth2/authorize?client_id=42"
                   f"&scope=bot+applications.commands&permissions={bot_permissions().value}")


async def test_the_link_is_printed_without_network() -> None:
    code, out, err = await invite(bot_env(DISCORD_TOKEN=token_of(987654321098765432),
                                          DISCORD_API_BASE=NOWHERE))
    assert code == 0, err
    assert out == invite_url(987654321098765432)


async def test_an_odd_token_asks_discord_for_the_application() -> None:
    async with FakeDiscord(token="an-odd-token") as fake:
        code, out, err = await invite(bot_env(DISCORD_TOKEN=fake.token,
                                              DISCORD_API_BASE=fake.api_base))
    assert code == 0, err
    assert out == invite_url(fake.application_id)


async def test_a_refused_token_says_so_and_fails() -> None:
    async with FakeDiscord(token="the-right-token") as fake:
        code, out, err = await invite(bot_env(DISCORD_TOKEN="not-a-token",
                                              DISCORD_API_BASE=fake.api_base))
    assert code == 1 and out == ""
    assert "Discord refused the token" in err and "Traceback" not in err


async def test_without_a_token_it_says_what_to_do() -> None:
    code, _, err = await invite(bot_env(DISCORD_TOKEN=""))
    assert code == 2 and "DISCORD_TOKEN is not set" in err
