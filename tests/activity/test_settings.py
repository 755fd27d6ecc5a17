"""The Activity is off unless ACTIVITY_PORT says, and then needs the client secret, which
never reaches the log."""

from __future__ import annotations

import logging

import pytest

from runtime.logs import RedactToken
from runtime.settings import Settings, SettingsError


def test_the_activity_is_off_by_default() -> None:
    settings = Settings.from_env({"DISCORD_TOKEN": "t"})
    assert not settings.activity_on and settings.activity_port is None


def test_a_port_without_the_client_secret_says_what_to_do() -> None:
    with pytest.raises(SettingsError, match="DISCORD_CLIENT_SECRET"):
        Settings.from_env({"DISCORD_TOKEN": "t", "ACTIVITY_PORT": "8080"})


@pytest.mark.parametrize("port", ["eighty", "70000", "-1"])
def test_a_port_that_is_not_one_is_refused(port: str) -> None:
    with pytest.raises(SettingsError, match="ACTIVITY_PORT"):
        Settings.from_env({"DISCORD_TOKEN": "t", "ACTIVITY_PORT": port,
                           "DISCORD_CLIENT_SECRET": "s"})


def test_on_with_its_port_its_host_and_its_secret() -> None:
    settings = Settings.from_env({"DISCORD_TOKEN": "t", "ACTIVITY_PORT": "8080",
                                  "ACTIVITY_HOST": "0.0.0.0",
                                  "DISCORD_CLIENT_SECRET": "sekrit-secret"})
    assert settings.activity_on
    assert (settings.activity_port, settings.activity_host) == (8080, "0.0.0.0")
    assert "sekrit-secret" not in repr(settings)


def test_the_client_secret_never_reaches_the_log() -> None:
    record = logging.LogRecord("x", logging.INFO, "f", 1, "exchange with %s failed",
                               ("sekrit-secret",), None)
    RedactToken("sekrit-token", "sekrit-secret").filter(record)
    assert record.getMessage() == "exchange with [token] failed"
