"""The pictures a page draws the board with, served from ``render.looks`` (one source).

``/looks/space/<lang>/<game>/<picture>.png``, ``/looks/chip/<colour>.png``,
``/looks/die/<n>.png``, ``/looks/card/<lang>/<card>.png`` (``<card>-dead.png``: greyed
and crossed) and ``/looks/palette.json``. Each is drawn once (off the event loop) and kept;
the browser keeps it a day. A name the game has not is a 404, never a drawing.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable

from aiohttp import web

from render import looks
from render.words import LANGUAGES

log = logging.getLogger(__name__)

CACHED = {"Cache-Control": "public, max-age=86400"}


def palette_json() -> str:
    return json.dumps(looks.palette(), separators=(",", ":"))


async def _png(draw: Callable[[], bytes]) -> web.Response:
    try:
        body = await asyncio.to_thread(draw)
    except ValueError as exc:
        raise web.HTTPNotFound(text=str(exc)) from exc
    return web.Response(body=body, content_type="image/png", headers=CACHED)


def _lang(request: web.Request) -> str:
    lang = request.match_info["lang"]
    if lang not in LANGUAGES:
        raise web.HTTPNotFound(text=f"no language {lang!r}")
    return lang


async def space(request: web.Request) -> web.Response:
    lang, game, picture = _lang(request), request.match_info["game"], \
        request.match_info["picture"]
    return await _png(lambda: looks.space_png(game, picture, lang))


async def chip(request: web.Request) -> web.Response:
    colour = request.match_info["colour"]
    return await _png(lambda: looks.chip_png(colour))


async def die(request: web.Request) -> web.Response:
    value = request.match_info["value"]
    return await _png(lambda: looks.die_png(int(value) if value.isdigit() else 0))


async def card(request: web.Request) -> web.Response:
    lang, name = _lang(request), request.match_info["card"]
    dead = name.endswith("-dead")
    return await _png(lambda: looks.card_png(name.removesuffix("-dead"), dead, lang))


async def palette(request: web.Request) -> web.Response:
    return web.Response(text=palette_json(), content_type="application/json",
                        headers=CACHED)


ROUTES: tuple[tuple[str, Callable[[web.Request], object]], ...] = (
    ("/looks/space/{lang}/{game}/{picture}.png", space),
    ("/looks/chip/{colour}.png", chip),
    ("/looks/die/{value}.png", die),
    ("/looks/card/{lang}/{card}.png", card),
    ("/looks/palette.json", palette),
)


def warm() -> None:
    """Draw every board's pictures once (in a worker thread at start), so a page's first
    board waits for none of them. (Cards are drawn when first asked for: three a hand.)"""
    for picture in looks.KIDS_PICTURES:
        looks.space_png("kids", picture, "en")
    for lang in LANGUAGES:
        looks.space_png("kids", "free", lang)
    for picture in looks.DICE_PICTURES:
        looks.space_png("dice", picture, "en")
    for colour in looks.palette()["chips"]:
        looks.chip_png(colour)
    for value in range(1, 7):
        looks.die_png(value)
