"""bot.py's settings: from the environment, with defaults, and the token kept out of logs."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from bot import DEFAULT_API_BASE, RedactToken, Settings, SettingsError


def test_only_the_token_is_required() -> None:
    s = Settings.from_env({"DISCORD_TOKEN": "abc"})
    assert s.token == "abc" and s.api_base == DEFAULT_API_BASE
    assert s.database_path == Path("data/sequence.db") and s.dev_guild_id is None


def test_every_setting_is_read() -> None:
    s = Settings.from_env({
        "DISCORD_TOKEN": "abc", "DATABASE_PATH": "/tmp/x.db", "DEV_GUILD_ID": "42",
        "LOG_LEVEL": "debug", "DISCORD_API_BASE": "http://127.0.0.1:9/api/v10/",
        "DISCORD_GATEWAY_URL": "ws://127.0.0.1:9/gw", "COMPUTER_DELAY": "0"})
    assert (s.database_path, s.dev_guild_id, s.log_level) == (Path("/tmp/x.db"), 42, "DEBUG")
    assert s.api_base == "http://127.0.0.1:9/api/v10" and s.gateway_url == "ws://127.0.0.1:9/gw"
    assert s.computer_delay == 0.0


@pytest.mark.parametrize("env", [{}, {"DISCORD_TOKEN": "  "},
                                 {"DISCORD_TOKEN": "a", "DEV_GUILD_ID": "my server"},
                                 {"DISCORD_TOKEN": "a", "COMPUTER_DELAY": "soon"}])
def test_a_missing_or_malformed_setting_says_what_to_do(env: dict[str, str]) -> None:
    with pytest.raises(SettingsError):
        Settings.from_env(env)


def test_the_token_never_shows(caplog: pytest.LogCaptureFixture) -> None:
    s = Settings.from_env({"DISCORD_TOKEN": "sekrit-token"})
    assert "sekrit" not in repr(s)
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "sent %s", ("sekrit-token",), None)
    RedactToken("sekrit-token").filter(record)
    assert record.getMessage() == "sent [token]"
