"""Watch the product work without Discord: a whole game through the game manager.

    make demo                                   # Sequence for Kids, 3 seats
    python -m tools.demo --game dice --seats 4  # Sequence Dice, two teams

A person ("You") hosts the lobby and adds computer players; the host's moves are the
easy computer player's hints, submitted like a click would be. Every event the Discord
cog would receive is logged to the console. With ``render/`` installed, the board after
each chip move, the final board and a replay GIF are written into ``demo/``; the game's
database is ``demo/demo.sqlite3`` (a fresh one each run).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import time
from pathlib import Path
from typing import Any

from manager import (
    Event,
    GameManager,
    GameOver,
    GameStarted,
    HandChanged,
    LobbyChanged,
    Moved,
    Player,
    SeatChanged,
    Store,
    TurnStarted,
)

log = logging.getLogger("demo")
YOU = Player(1, "You")

render: Any
try:  # render/ is optional here: the demo still plays without pictures
    import render as _render

    render = _render
except ImportError:  # pragma: no cover - only before render/ exists
    render = None


class ConsoleListener:
    """Logs what happened, in words; draws the board after each chip move."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.names: list[str] = []
        self.images = 0

    async def on_event(self, event: Event) -> None:
        t = event.table
        self.names = [s.name for s in t.seats]
        if isinstance(event, LobbyChanged):
            log.info("lobby %d (%s): %s -> %s", t.game_id, event.reason, t.game,
                     ", ".join(self.names))
        elif isinstance(event, GameStarted):
            log.info("game %d starts: %s; %s to move", t.game_id, t.options,
                     self.names[event.observation["turn"]])
            await self.draw(event.observation, "start")
        elif isinstance(event, Moved):
            obs = event.observation
            extra = f" (dice {obs['last_roll']})" if obs.get("last_roll") and \
                event.action != "roll" else ""
            if event.action == "roll" and obs.get("dice"):
                extra = f" -> {obs['dice'][0]} + {obs['dice'][1]}"
            log.info("ply %3d  %-12s %-14s%s%s", event.ply, self.names[event.seat],
                     event.action, extra, "  [forced]" if event.by == "auto" else "")
            if event.placed or event.removed:
                await self.draw(obs, f"ply{event.ply:03d}")
        elif isinstance(event, HandChanged) and "hand" in event.observation:
            log.info("  (DM to %s: hand %s)", self.names[event.seat],
                     event.observation.get("hand"))
        elif isinstance(event, TurnStarted):
            log.debug("  %s to move: %d choices", self.names[event.seat],
                      len(event.observation["legal"]))
        elif isinstance(event, SeatChanged):
            log.info("seat %d (%s): %s", event.seat, self.names[event.seat], event.change)
        elif isinstance(event, GameOver):
            obs = event.observation
            if event.winner is not None:
                winners = " and ".join(self.names[s] for s in event.winning_seats)
                log.info("GAME OVER: %s win (%s) %s", winners, event.reason,
                         " ".join(obs["winning_line"]))
            else:
                log.info("GAME OVER: no winner (%s)", event.reason)
            await self.draw(obs, "final")

    async def draw(self, obs: dict[str, Any], name: str) -> None:
        if render is None:
            return
        png = await asyncio.to_thread(render.board_png, obs, names=self.names)
        (self.out / f"board-{name}.png").write_bytes(png)
        self.images += 1


async def main(args: argparse.Namespace) -> int:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for old in [*out.glob("board-*.png"), *out.glob("demo.sqlite3*")]:
        old.unlink()
    store = await Store.open(out / "demo.sqlite3")
    manager = GameManager(store, computer_delay=args.delay, seed_source=lambda: args.seed)
    console = ConsoleListener(out)
    manager.add_listener(console)
    started = time.perf_counter()
    try:
        await manager.start(run_timers=False)
        options: dict[str, Any] = {"teams": True} if args.seats == 4 else {}
        if args.game == "kids" and args.level:
            options["level"] = args.level
        lobby = await manager.create_lobby(args.game, options, YOU, guild_id=1, channel_id=1)
        levels = args.levels.split(",")
        for i in range(args.seats - 1):
            await manager.add_computer(lobby.game_id, YOU.user_id, levels[i % len(levels)])
        await manager.start_game(lobby.game_id, YOU.user_id)
        gid = lobby.game_id
        while manager.is_active(gid):
            await manager.settle()
            if not manager.is_active(gid):
                break
            view = manager.get(gid)
            if view.turn is not None and view.seats[view.turn].user_id == YOU.user_id:
                hint = await manager.hint(gid, YOU.user_id)
                await manager.submit(gid, YOU.user_id, hint.action)
        rec = await store.games.load_game(gid)
        assert rec is not None and rec.seed is not None
        log.info("%d actions committed to %s in %.1f s", len(rec.actions),
                 out / "demo.sqlite3", time.perf_counter() - started)
        if render is not None:
            gif = await asyncio.to_thread(
                render.replay_gif, rec.kind, len(rec.seats), rec.seed, rec.actions,
                rec.options, names=[s.name for s in rec.seats])
            (out / "replay.gif").write_bytes(gif)
            log.info("wrote %d board images and replay.gif (%d KB) into %s/",
                     console.images, len(gif) // 1024, out)
        else:
            log.info("render/ is not installed: no pictures this time")
        stats = await store.standings.stats(YOU.user_id)
        log.info("your stats: %d game(s), %d win(s)", stats.games, stats.wins)
    finally:
        await manager.close()
        await store.close()
    return 0


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--game", choices=("kids", "dice"), default="kids")
    p.add_argument("--seats", type=int, choices=(2, 3, 4), default=3)
    p.add_argument("--level", choices=("1", "2", "3", "normal"), default=None,
                   help="Sequence for Kids beginners' level")
    p.add_argument("--levels", default="easy,medium",
                   help="computer levels, comma-separated, used in turn")
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--delay", type=float, default=0.0,
                   help="seconds before each computer move (the bot uses ~1.5)")
    p.add_argument("--out", default="demo")
    return p.parse_args(argv)


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    raise SystemExit(asyncio.run(main(parse())))
