"""bot.py's settings: from the environment, with defaults, and the token kept out of logs."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from runtime.logs import RedactToken
from runtime.settings import DEFAULT_API_BASE, Settings, SettingsError


def test_only_the_token_is_required() -> None:
    s = Settings.from_env({"DISCORD_TOKEN": "abc"})
    assert s.token == "abc" and s.api_base == DEFAULT_API_BASE
    assert s.database_path == Path("data/sequence.db") and s.dev_guild_id is None


def test_every_setting_is_read() -> None:
    s = Settings.from_env({
        "DISCORD_TOKEN": "abc", "DATABASE_PATH": "/tmp/x.db", "DEV_GUILD_ID": "42",
        "LOG_LEVEL": "debug", "DISCORD_API_BASE": "http://127.0.0.1:9/api/v10/",
        "DISCORD_GATEWAY_URL": "ws://127.0.0.1:9/gw", "COMPUTER_DELAY": "0",
        "DISCORD_GLOBAL_LIMIT": "0"})
    assert (s.database_path, s.dev_guild_id, s.log_level) == (Path("/tmp/x.db"), 42, "DEBUG")
    assert s.api_base == "http://127.0.0.1:9/api/v10" and s.gateway_url == "ws://127.0.0.1:9/gw"
    assert s.computer_delay == 0.0 and s.global_limit == 0
    assert Settings.from_env({"DISCORD_TOKEN": "abc"}).global_limit == 50  # Discord's


def test_games_are_shuffled_at_random_unless_a_benchmark_fixes_the_seed() -> None:
    assert Settings.from_env({"DISCORD_TOKEN": "abc"}).game_seed is None
    assert Settings.from_env({"DISCORD_TOKEN": "abc", "SEQUENCE_SEED": "7"}).game_seed == 7


@pytest.mark.parametrize("env", [{}, {"DISCORD_TOKEN": "  "},
                                 {"DISCORD_TOKEN": "a", "DEV_GUILD_ID": "my server"},
                                 {"DISCORD_TOKEN": "a", "COMPUTER_DELAY": "soon"},
                                 {"DISCORD_TOKEN": "a", "SEQUENCE_SEED": "lucky"},
                                 {"DISCORD_TOKEN": "a", "DISCORD_GLOBAL_LIMIT": "fifty"}])
def test_a_missing_or_malformed_setting_says_what_to_do(env: dict[str, str]) -> None:
    with pytest.raises(SettingsError):
        Settings.from_env(env)


def test_the_token_never_shows(caplog: pytest.LogCaptureFixture) -> None:
    s = Settings.from_env({"DISCORD_TOKEN": "sekrit-token"})
    assert "sekrit" not in repr(s)
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "sent %s", ("sekrit-token",), None)
    RedactToken("sekrit-token").filter(record)
    assert record.getMessage() == "sent [token]"


def test_without_shard_settings_the_bot_is_one_unsharded_process() -> None:
    from bot import SequenceBot, bot_class

    s = Settings.from_env({"DISCORD_TOKEN": "abc"})
    assert not s.sharded and s.runs_shard_zero and bot_class(s) is SequenceBot


def test_shard_settings_make_an_auto_sharded_bot_for_those_shards() -> None:
    from discord.ext import commands

    from bot import SequenceBot, bot_class

    s = Settings.from_env({"DISCORD_TOKEN": "abc", "SHARD_COUNT": "4", "SHARD_IDS": "3, 1"})
    assert (s.shard_count, s.shard_ids, s.runs_shard_zero) == (4, (1, 3), False)
    cls = bot_class(s)
    assert issubclass(cls, SequenceBot) and issubclass(cls, commands.AutoShardedBot)
    bot = cls(s)
    assert (bot.shard_count, bot.shard_ids) == (4, [1, 3])
    assert "shards=[1, 3] of 4" in repr(s)


def test_a_shard_count_alone_runs_every_shard_here() -> None:
    s = Settings.from_env({"DISCORD_TOKEN": "abc", "SHARD_COUNT": "2"})
    assert (s.shard_count, s.shard_ids, s.runs_shard_zero) == (2, None, True)


@pytest.mark.parametrize(("shards", "why"), [
    ({"SHARD_IDS": "0"}, "needs SHARD_COUNT"),
    ({"SHARD_COUNT": "0"}, "at least 1"),
    ({"SHARD_COUNT": "two"}, "at least 1"),
    ({"SHARD_COUNT": "2", "SHARD_IDS": "2"}, "from 0 to 1"),
    ({"SHARD_COUNT": "2", "SHARD_IDS": "0,0"}, "different shards"),
    ({"SHARD_COUNT": "2", "SHARD_IDS": "0;1"}, "separated by commas"),
])
def test_a_malformed_shard_setting_says_what_is_wrong(shards: dict[str, str], why: str) -> None:
    with pytest.raises(SettingsError, match=why):
        Settings.from_env({"DISCORD_TOKEN": "abc", **shards})


def test_metrics_and_health_are_off_unless_a_port_is_set() -> None:
    from bot import SequenceBot

    s = Settings.from_env({"DISCORD_TOKEN": "abc"})
    assert s.metrics_port is None and SequenceBot(s).watching is None


def test_metrics_listen_on_this_machine_unless_told_otherwise() -> None:
    from bot import SequenceBot

    s = Settings.from_env({"DISCORD_TOKEN": "abc", "METRICS_PORT": "9464"})
    assert (s.metrics_host, s.metrics_port) == ("127.0.0.1", 9464)
    bot = SequenceBot(s)
    assert bot.watching is not None and bot.watching.url == "http://127.0.0.1:9464"
    assert bot.http.http_trace is not None, "the REST metrics ride on discord.py's trace"
    s = Settings.from_env({"DISCORD_TOKEN": "abc", "METRICS_PORT": "9464",
                           "METRICS_HOST": "0.0.0.0"})
    assert s.metrics_host == "0.0.0.0"


@pytest.mark.parametrize("port", ["metrics", "-1", "65536", "9464.5"])
def test_a_malformed_metrics_port_says_what_is_wrong(port: str) -> None:
    with pytest.raises(SettingsError, match="METRICS_PORT must be a port number"):
        Settings.from_env({"DISCORD_TOKEN": "abc", "METRICS_PORT": port})
