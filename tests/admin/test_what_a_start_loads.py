"""A bot loads the web servers only when they are switched on: the Activity
(``ACTIVITY_PORT``) and ``/metrics`` with ``/healthz`` (``METRICS_PORT``) each bring
aiohttp's server, and a chat bot without them starts without it (each test run starts
about fifty bot processes; a home server's bot restarts on every update)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

from tests.test_layering import ROOT

WEB = "('activity' in sys.modules, 'runtime.watching' in sys.modules, " \
      "'aiohttp.web' in sys.modules)"


def _loaded_after_building_a_bot(**env: str) -> str:
    """Build ``SequenceBot`` from the settings ``env`` gives (never connecting), and say
    which web parts are loaded then."""
    clean = {k: v for k, v in os.environ.items()
             if k not in ("ACTIVITY_PORT", "METRICS_PORT", "DATABASE_URL")}
    clean.update(DISCORD_TOKEN="x" * 59, DISCORD_CLIENT_SECRET="s", **env)
    code = textwrap.dedent(f"""
        import asyncio, os, sys
        import bot
        from runtime.settings import Settings

        async def main():
            built = bot.SequenceBot(Settings.from_env(os.environ))
            await built.close()
            print({WEB})

        asyncio.run(main())
    """)
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=clean,
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_chat_bot_loads_no_web_server() -> None:
    assert _loaded_after_building_a_bot() == "(False, False, False)"


def test_the_activity_and_the_metrics_are_loaded_when_switched_on() -> None:
    assert _loaded_after_building_a_bot(ACTIVITY_PORT="0") == "(True, False, True)"
    assert _loaded_after_building_a_bot(METRICS_PORT="0") == "(False, True, True)"
