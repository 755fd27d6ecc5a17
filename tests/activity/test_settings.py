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


def test_the_doors_have_sane_defaults_and_the_same_names_as_the_activitys() -> None:
    from dataclasses import asdict

    from activity import Limits
    from runtime.settings import ActivityLimits

    settings = Settings.from_env({"DISCORD_TOKEN": "t", "ACTIVITY_PORT": "8080",
                                  "DISCORD_CLIENT_SECRET": "s"})
    assert settings.activity_limits == ActivityLimits()
    assert asdict(ActivityLimits()) == asdict(Limits()), "bot.py builds one from the other"
    limits = ActivityLimits()
    assert limits.source_logins_per_minute < limits.logins_per_minute
    assert limits.person_lookups_per_minute < limits.lookups_per_minute
    assert limits.trusted_proxies == (), "a header anyone can write is no source"


def test_the_doors_limits_come_from_the_environment() -> None:
    settings = Settings.from_env({
        "DISCORD_TOKEN": "t", "ACTIVITY_PORT": "8080", "DISCORD_CLIENT_SECRET": "s",
        "ACTIVITY_LOGINS_PER_MINUTE": "30", "ACTIVITY_LOGIN_BURST": "10",
        "ACTIVITY_PERSON_LOOKUPS_PER_MINUTE": "0", "ACTIVITY_SOCKETS_PER_PERSON": "6",
        "ACTIVITY_SILENT_SOCKETS": "200",
        "ACTIVITY_TRUSTED_PROXIES": "127.0.0.1, 10.0.0.0/8,::1",
        "ACTIVITY_CLIENT_IP_HEADER": "CF-Connecting-IP"})
    limits = settings.activity_limits
    assert (limits.logins_per_minute, limits.login_burst) == (30.0, 10)
    assert limits.person_lookups_per_minute == 0, "0: that bucket off"
    assert (limits.sockets_per_person, limits.silent_sockets) == (6, 200)
    assert limits.trusted_proxies == ("127.0.0.1/32", "10.0.0.0/8", "::1/128")
    assert limits.client_ip_header == "CF-Connecting-IP"


@pytest.mark.parametrize(("name", "value"), [
    ("ACTIVITY_LOGINS_PER_MINUTE", "lots"), ("ACTIVITY_LOGINS_PER_MINUTE", "-5"),
    ("ACTIVITY_LOGIN_BURST", "0"), ("ACTIVITY_SILENT_SOCKETS", "1.5"),
    ("ACTIVITY_TRUSTED_PROXIES", "127.0.0.1,my-tunnel"),
    ("ACTIVITY_CLIENT_IP_HEADER", "X-Forwarded-For: 1.2.3.4"),
])
def test_a_doors_limit_that_is_not_one_says_which(name: str, value: str) -> None:
    with pytest.raises(SettingsError, match=name):
        Settings.from_env({"DISCORD_TOKEN": "t", "ACTIVITY_PORT": "8080",
                           "DISCORD_CLIENT_SECRET": "s", name: value})
