"""A process that plays games through the manager until it is killed (crash tests).

    python -m tests.manager.crash_worker DB SEED

It keeps four tables busy (people playing random moves, computer seats, resignations,
seats handed to computers, a turn timer that is set but never runs out), and prints a
line ``M game ply`` after each move is announced, so the parent knows what was announced
before the SIGKILL. Every announced move must be found committed afterwards.
"""

from __future__ import annotations

import asyncio
import logging
import random
import sys

from engine.ai import RandomAgent
from manager import GameManager, Player, Store, SystemClock
from manager.events import Event, Moved

GUILD = 77
CHANNELS = (1, 2, 3, 4)


class Announcer:
    async def on_event(self, event: Event) -> None:
        if isinstance(event, Moved):
            sys.stdout.write(f"M {event.game_id} {event.ply}\n")
            sys.stdout.flush()


async def main(db: str, seed: int) -> None:
    rng = random.Random(seed)
    store = await Store.open(db)
    manager = GameManager(store, computer_delay=0, clock=SystemClock(),
                          seed_source=lambda: rng.getrandbits(40),
                          agent_factory=lambda level, s: RandomAgent(s))
    manager.add_listener(Announcer())
    await manager.set_guild_settings(GUILD, turn_timer=3600.0)
    await manager.start(run_timers=False)
    sys.stdout.write("READY\n")
    sys.stdout.flush()
    while True:
        for ch in CHANNELS:
            view = manager.table_for_channel(ch)
            if view is None:
                host = Player(ch * 10, f"Host{ch}")
                kind = rng.choice(("kids", "dice"))
                lobby = await manager.create_lobby(kind, {}, host, GUILD, ch,
                                           on_leave=rng.choice(("skip", "computer")))
                if rng.random() < 0.5:
                    await manager.join(lobby.game_id, Player(ch * 10 + 1, f"Guest{ch}"))
                await manager.add_computer(lobby.game_id, host.user_id, "easy")
                if rng.random() < 0.3:
                    await manager.add_computer(lobby.game_id, host.user_id, "easy")
                await manager.start_game(lobby.game_id, host.user_id)
                continue
            if view.status != "playing" or view.turn is None:
                continue
            seat = view.seats[view.turn]
            if seat.is_computer or seat.user_id is None:
                continue
            if rng.random() < 0.003:
                await manager.leave_game(view.game_id, seat.user_id)
                continue
            legal = manager.observation_for(view.game_id, seat.user_id)["legal"]
            await manager.submit(view.game_id, seat.user_id, rng.choice(legal),
                                 expected_ply=view.ply)
        await asyncio.sleep(0.001)


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING)
    asyncio.run(main(sys.argv[1], int(sys.argv[2])))
