"""What the bot keeps all its life, set apart from the garbage collector's full passes.

CPython's cyclic collector now and then walks every object the process holds (a full
pass, generation 2), the game's own and, far more of them, those start-up made: the
modules, classes and functions of discord.py, aiohttp, Pillow and the bot, about 50,000.
Nothing of those ever becomes garbage, yet each full pass walked them all while the event
loop waited: 25-50 ms in the e2e bench's 50 games (``python -m bench e2e``), with the
boards of every move under way held back until it ended, the bench's slowest moves.

``settle`` is called once, when start-up is over: it collects what start-up left behind,
then freezes the rest (``gc.freeze``), so the full passes walk only what came after
(3-7 ms in the same bench). Objects made later are collected as before. What was alive
at the freeze and turns into cyclic garbage later (a game loaded at start-up that ends)
is never collected: once, for what one start loaded.

Only a process that runs the bot calls it (``bot.run``): tests build many bots in one
process, and freezing each one's objects would keep them all.
"""

from __future__ import annotations

import gc
import logging

log = logging.getLogger("sequence")


def settle() -> int:
    """Collect start-up's garbage, freeze what is left; returns how many objects are
    frozen now."""
    gc.collect()
    gc.freeze()
    frozen = gc.get_freeze_count()
    log.debug("heap settled: %d objects set apart from the full collections", frozen)
    return frozen
