"""A move in words, and the numbered choices a child matches to the picture.

Pure builders, like ``messages``: the moves of one choice are numbered 1, 2, 3 ... in the
order given, the numbers the choice picture marks (``render.choice``); the buttons (or
select menus, past 20 moves) carry the same numbers as keycap emoji, then the coordinate,
the parents' hint.
"""

from __future__ import annotations

import discord

from engine.action import DICE_VERBS, Action, offered_with, parsed
from render.emoji import CARD_EMOJI, number_emoji

from ..i18n import card as card_name
from ..i18n import t
from .buttons import PlayButton, PlaySelect
from .messages import stopped

MAX_BUTTONS = 20  # 4 rows of 5; more choices go into select menus of 25
MAX_MENUS = 5
MENU_SIZE = 25


def action_label(action: str, lang: str) -> str:
    act = Action.parse(action)
    if act.dead:
        return t("button.exchange", lang, card=card_name(act.what, lang))
    if act.what in ("remove", "replace"):
        return t(f"autocomplete.{act.what}", lang, space=act.space)
    return act.space or act.text


def describe(action: str, lang: str) -> str:
    """A move in words, for "You played ..."."""
    act = Action.parse(action)
    if act.what == "roll" and act.space is None:
        return t("button.roll", lang)
    if act.dead:
        return t("button.exchange", lang, card=card_name(act.what, lang))
    if act.space and act.what not in DICE_VERBS:
        return f"{card_name(act.what, lang)} → {act.space}"
    return action_label(action, lang)


def numbered(actions: list[str]) -> list[tuple[int | None, str]]:
    """Number the moves with a space 1, 2, 3 ... in the order given (the numbers on the
    choice picture); a move without a space (a dead-card exchange) has no number."""
    out: list[tuple[int | None, str]] = []
    n = 0
    for action in actions:
        if Action.parse(action).space is not None:
            n += 1
            out.append((n, action))
        else:
            out.append((None, action))
    return out


def spaces_of(actions: list[str]) -> list[str]:
    """The spaces of the numbered moves, in number order (what the picture marks)."""
    return [str(Action.parse(a).space) for n, a in numbered(actions) if n is not None]


def number_of(actions: list[str], action: str) -> int | None:
    """The number ``action`` has among ``actions`` (as on the picture), if any."""
    return next((n for n, a in numbered(actions) if a == action), None)


def choices_view(game_id: int, ply: int, actions: list[str], lang: str) -> discord.ui.View:
    """Buttons for up to 20 moves; beyond that, select menus of 25 (5 at most). Each move
    with a space carries its number from the picture (as a keycap emoji up to ten), then
    the coordinate, the parents' hint."""
    view = discord.ui.View(timeout=None)
    moves = numbered(actions)
    if len(actions) <= MAX_BUTTONS:
        for n, action in moves:
            act = Action.parse(action)
            style = (discord.ButtonStyle.danger if act.dead or act.takes
                     else discord.ButtonStyle.success)
            label = action_label(action, lang)
            emoji = number_emoji(n) if n is not None else _card_emoji(action)
            if n is not None and emoji is None:
                label = t("button.space.numbered", lang, n=n, label=label)
            view.add_item(PlayButton(game_id, ply, action, label, style, emoji=emoji))
        return stopped(view)
    for part, start in enumerate(range(0, min(len(actions), MENU_SIZE * MAX_MENUS),
                                       MENU_SIZE)):
        chunk = moves[start:start + MENU_SIZE]
        options = [discord.SelectOption(label=numbered_label(n, a, lang), value=a,
                                        emoji=number_emoji(n) if n is not None else None)
                   for n, a in chunk]
        placeholder = t("prompt.spaces", lang, first=numbered_label(*chunk[0], lang),
                        last=numbered_label(*chunk[-1], lang))
        view.add_item(PlaySelect(game_id, ply, part, options, placeholder[:150]))
    return stopped(view)


def same_choice(action: str, legal: list[str]) -> list[str]:
    """The moves offered together with ``action`` (one card's spaces, or one roll's), so
    its number matches the choice picture a player sees for it."""
    return [a.text for a in offered_with(Action.parse(action), parsed(legal))]


def suggestion(action: str, legal: list[str], lang: str) -> tuple[str, int | None]:
    """A suggested move in the words and numbers of the choices ("play Lion on 2 (B3)"),
    and its number on the choice picture."""
    act = Action.parse(action)
    if act.dead:
        return t("hint.dead", lang, card=card_name(act.what, lang)), None
    n = number_of(same_choice(action, legal), action)
    if not act.space or n is None:
        return describe(action, lang), None
    card = (card_name(act.what, lang) if act.what not in DICE_VERBS
            else action_label(action, lang))
    return t("hint.play", lang, card=card, n=n, space=act.space), n


def numbered_label(n: int | None, action: str, lang: str) -> str:
    """"12 · B3": a move's number and its label, for menus and autocomplete."""
    label = action_label(action, lang)
    return label if n is None else t("autocomplete.numbered", lang, n=n, label=label)


def _card_emoji(action: str) -> str | None:
    return CARD_EMOJI.get(Action.parse(action).what)
