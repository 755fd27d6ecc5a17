"""What a table's messages say: pure builders from a ``TableView`` and an observation.

Nothing here sends, awaits or remembers; every function can be called in a test with a
hand-made table. Channel and server names come in as words (``place``), so the builders
need no client either.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import discord

from engine.action import DICE_VERBS, as_action
from engine.observation import Observation
from manager import MAX_CHILD_NAME, GameOver, Moved, Seat, Status, TableView
from manager.offers import NOBODY, computer_numbers, offer_for
from render.words import computer_name

from ..i18n import card as card_name
from ..i18n import t
from .buttons import (
    CHILD_NAME,
    HandButton,
    LaunchButton,
    LobbyButton,
    RollButton,
    UnseatButton,
)


def stopped(view: discord.ui.View) -> discord.ui.View:
    """Dynamic items are found by custom_id; the view need not be kept per message."""
    view.stop()
    return view


# ---------------------------------------------------------------------- names
def seat_names(table: TableView, lang: str) -> list[str]:
    """Each seat's name; computers by level, numbered when two share a level (two
    "Computer (medium)" in one legend would be one name for two players)."""
    return names_of(table.seats, lang)


def names_of(seats: Sequence[Seat], lang: str) -> list[str]:
    """``seat_names`` of seats read back from the store (a finished game)."""
    return [computer_name(s.level, n, lang) if s.is_computer else s.name
            for s, n in zip(seats, computer_numbers(seats), strict=True)]


def seat_name(table: TableView, seat: int, lang: str) -> str:
    return seat_names(table, lang)[seat] if 0 <= seat < len(table.seats) else "?"


def mention(table: TableView, seat: int | None, lang: str) -> str:
    """How a seat is named in the channel: a person by mention (a ping), a computer or a
    child by name (a child's grown-up is called separately, see ``turn_line``)."""
    if seat is None or seat >= len(table.seats):
        return ""
    s = table.seats[seat]
    if s.is_computer or s.is_child or s.user_id is None:
        return f"**{seat_names(table, lang)[seat]}**"
    return f"<@{s.user_id}>"


def as_shown(table: TableView, obs: Observation) -> dict[str, Any]:
    """The position as the board picture shows it: the legend also tells a seat that left
    the game from one that resigned (the engine knows only that the seat is out)."""
    return {**obs, "left_game": [s.resigned and s.left for s in table.seats]}


def minutes(seconds: float | None) -> str:
    """A duration in minutes as people write it: "2", "1.5"."""
    value = (seconds or 0) / 60
    return str(int(value)) if value == int(value) else f"{value:.1f}"


def place(lang: str, channel: str, guild: str | None) -> str:
    """Where a game is, for a DM that must say which game it belongs to (no server: a
    game in the bot's own DM, the only place without one that offers the commands)."""
    if guild is None:
        return t("place.dm", lang)
    return t("place.channel", lang, channel=channel, guild=guild)


def game_name(table: TableView, lang: str) -> str:
    return t(f"game.{table.game}", lang)


# ---------------------------------------------------------------------- lobby
def lobby_message(table: TableView, lang: str, *, footer: str | None = None,
                  board_button: bool = False) -> tuple[discord.Embed, discord.ui.View | None]:
    """The lobby embed and, while it is open, its buttons. ``footer`` overrides the line
    under it (e.g. why it was cancelled); ``board_button``: the bot serves the Activity,
    so "Play on the board" opens it."""
    embed = discord.Embed(title=t("lobby.title", lang, game=game_name(table, lang)),
                          colour=discord.Colour.blurple())
    lines = []
    opts = table.options
    if table.game == "kids" and opts.get("level"):
        lines.append(t("lobby.level", lang, level=t(f"choice.level.{opts['level']}", lang)))
    if table.game == "dice" and opts.get("sequence_length"):
        lines.append(t("lobby.length", lang, n=opts["sequence_length"]))
    if opts.get("teams"):
        lines.append(t("lobby.teams", lang, teams=t("word.yes", lang)))
    lines.append(t("lobby.on_leave", lang, what=t(f"choice.on_leave.{table.on_leave}", lang)))
    lines.append(t("lobby.timer", lang, minutes=minutes(table.turn_timer)) if table.turn_timer
                 else t("lobby.timer.off", lang))
    if table.game == "kids" and not table.family_seats:
        lines.append(t("lobby.family.off", lang))
    lines += family_lines(table, lang)
    names = seat_names(table, lang)
    seats = [t("lobby.seat", lang, n=i + 1, name=lobby_name(s, name, lang)) +
             (" " + t("lobby.host", lang) if s.user_id == table.host_id and not s.is_child
              else "")
             for i, (s, name) in enumerate(zip(table.seats, names, strict=True))]
    offer = offer_for(table, NOBODY)  # (one message for everyone: the table's own facts)
    seats += [t("lobby.open", lang, n=n + 1)
              for n in range(len(table.seats), offer.seat_limit)]
    embed.description = "\n".join(lines) if lines else None
    embed.add_field(name=t("lobby.seats", lang), value="\n".join(seats), inline=False)
    if table.status is not Status.LOBBY:
        key = "lobby.cancelled" if table.status is Status.CANCELLED else "lobby.started"
        embed.set_footer(text=footer or t(key, lang))
        return embed, None
    help_line = t("lobby.help", lang)
    family = offer.lobby is not None and offer.lobby.add_child
    if family:
        help_line += "\n" + t("lobby.family.help", lang)
    embed.set_footer(text=footer or help_line)
    view = discord.ui.View(timeout=None)
    gid = table.game_id
    blue, grey = discord.ButtonStyle.primary, discord.ButtonStyle.secondary
    view.add_item(LobbyButton(gid, "join", t("button.join", lang), blue, 0))
    view.add_item(LobbyButton(gid, "leave", t("button.leave", lang), grey, 0))
    view.add_item(LobbyButton(gid, "start", t("button.start", lang),
                              discord.ButtonStyle.success, 0))
    view.add_item(LobbyButton(gid, "cancel", t("button.cancel", lang),
                              discord.ButtonStyle.danger, 0))
    for level in ("easy", "medium", "hard"):
        view.add_item(LobbyButton(gid, f"cpu-{level}", t(
            "button.computer", lang, level=t(f"level.{level}", lang)), grey, 1))
    if family:
        view.add_item(LobbyButton(gid, "child", t("button.add_child", lang), blue, 1))
    # a child's seat may be taken out while the lobby is open, full or not (its grown-up
    # or the host: ``lobby.why_not_remove``), so its button does not wait for room
    for s in table.seats:
        if s.is_child:
            view.add_item(UnseatButton(gid, s.index, t("button.remove_child", lang,
                                                       name=s.name)[:80]))
    if board_button:
        view.add_item(LaunchButton(gid, t("button.board", lang), row=2))
    return embed, stopped(view)


def with_board_button(view: discord.ui.View | None, table: TableView, lang: str
                      ) -> discord.ui.View:
    """``view`` with "Play on the board" added (the bot serves the Activity)."""
    out = view or discord.ui.View(timeout=None)
    out.add_item(LaunchButton(table.game_id, t("button.board", lang)))
    return stopped(out)


def lobby_name(seat: Seat, name: str, lang: str) -> str:
    """"Emma (with Mum)" for a child's seat; the name for anyone else."""
    if seat.is_child:
        return t("lobby.child_seat", lang, name=name, grown_up=seat.guardian)
    return name


def family_lines(table: TableView, lang: str) -> list[str]:
    """Fair play is visible: who plays for which children, and whether one account holds
    seats on different sides, so sees those hands ("Mum plays for Emma and for
    themselves, and sees all those hands")."""
    lines = []
    shown = offer_for(table, NOBODY).seats
    for user in dict.fromkeys(s.user_id for s in table.seats if s.is_child):
        held = [s for s in table.seats if s.user_id == user and s.level is None]
        children = [s for s in held if s.is_child]
        own_seat = len(held) > len(children)
        sides = {shown[s.index].side for s in held}
        key = "lobby.family.both" if own_seat and len(sides) > 1 else "lobby.family.children"
        names = f" {t('word.and', lang)} ".join(c.name for c in children)
        lines.append(t(key, lang, grown_up=children[0].guardian, children=names))
    return lines


# ---------------------------------------------------------------------- the table's lines
def _roll_first(table: TableView, obs: Observation, name: str, line: str, lang: str
                ) -> str:
    roll = obs.get("last_roll")
    return (t("moved.roll", lang, name=name, a=roll[0], b=roll[1]) + " " + line
            if roll and table.game == "dice" else line)


def told_before(action: str) -> bool:
    """History entries that are not moves (a resignation, a computer taking a seat, a turn
    lost to the timer): the manager announces them in words of their own."""
    return action == "skip" or action.startswith(("resign:", "computer:"))


def dice_line(name: str, action: str, obs: Observation, lang: str) -> str | None:
    """A Sequence Dice turn in one line, the roll first ("Emma rolled 6 + 3 = 9 and covered
    E4"): the roll is not posted on a board of its own, so the board after the move tells
    everyone what was rolled, and a roll that allowed no move says why. None if the
    observation has no roll to tell."""
    roll = obs.get("last_roll")
    if not roll:
        return None
    a, b = roll
    total = a + b
    act = as_action(action)
    space = act.space if act is not None else None
    if action == "pass":
        key = "moved.dice.pass.ten" if total == 10 else "moved.dice.pass"
    elif act is not None and act.what in DICE_VERBS and space:
        key = f"moved.dice.{act.what}"
    else:
        return None
    line = t(key, lang, name=name, a=a, b=b, total=total, space=space)
    if total in (2, 12) and not obs.get("is_over"):
        line += " " + t("moved.dice.again", lang, total=total, name=name)
    return line


def move_line(table: TableView, event: Moved, lang: str) -> str:
    name = seat_name(table, event.seat, lang)
    action, obs = event.action, event.observation
    act = as_action(action)  # (None: an entry of the game's own, a seat given up)
    kind, space = (act.what, act.space) if act is not None else (action, None)
    if table.game == "dice":
        said = dice_line(name, action, obs, lang)
        if said is not None:
            return said
    if action == "pass":
        return _roll_first(table, obs, name, t("moved.pass", lang, name=name), lang)
    if action == "roll":
        roll = obs.get("last_roll")
        a, b = roll if roll else ("?", "?")
        return t("moved.roll", lang, name=name, a=a, b=b)
    if act is not None and act.dead:
        return t("moved.exchange", lang, name=name, card=card_name(kind, lang))
    if table.game == "kids" and space:
        if kind in ("unicorn", "dragon"):
            return t(f"moved.{kind}", lang, name=name, space=space)
        return t("moved.card", lang, name=name, card=card_name(kind, lang), space=space)
    if kind in DICE_VERBS and space:
        return _roll_first(table, obs, name, t(f"moved.{kind}", lang, name=name, space=space),
                           lang)
    return t("moved.other", lang, name=name)  # never the internal action string


def turn_line(table: TableView, lang: str) -> str:
    if table.turn is None:
        return ""
    seat = table.seats[table.turn]
    if seat.is_computer:
        return t("turn.computer", lang, name=seat_name(table, table.turn, lang))
    if seat.is_child:  # the child's name, and a ping for the grown-up who holds the seat
        line = t("turn.child", lang, name=seat.name, mention=f"<@{seat.user_id}>")
    else:
        line = t("turn.mention", lang, mention=mention(table, table.turn, lang))
    if table.turn_deadline is not None:
        # Discord shows <t:...:R> as "in 2 minutes" in each reader's own clock
        line += " " + t("timer.deadline", lang, when=f"<t:{int(table.turn_deadline)}:R>")
    return line


def started_text(table: TableView, obs: Observation, lang: str) -> str:
    """Who plays which colour, and whose turn it is."""
    colours = obs.get("colours") or []
    side_of = obs.get("side_of_seat") or []
    names = seat_names(table, lang)
    seats = ", ".join(
        t("game.seat", lang, name=mention(table, i, lang) if not s.is_computer else names[i],
          colour=t(f"colour.{colours[side_of[i]]}", lang))
        for i, s in enumerate(table.seats))
    lines = [t("game.started", lang, game=game_name(table, lang), seats=seats)]
    rounds = obs.get("opening_rolls") or []
    if rounds and table.turn is not None:  # Sequence Dice: the roll-off, as at a table
        lines += opening_lines(rounds, names, lang)
        lines.append(t("opening.starts", lang, name=names[table.turn]))
    lines.append(turn_line(table, lang))
    return "\n".join(lines)


def opening_lines(rounds: list[list[list[int]]], names: list[str], lang: str) -> list[str]:
    """Each round of the opening roll-off (``[seat, a, b]`` per roll); ties roll again."""
    lines = []
    for number, rolls in enumerate(rounds):
        said = ", ".join(t("opening.roll", lang, name=names[seat] if seat < len(names) else "?",
                           a=a, b=b, total=a + b) for seat, a, b in rolls)
        lines.append(t("opening.again" if number else "opening.rolls", lang, rolls=said))
    return lines


def result_lines(table: TableView, event: GameOver, lang: str) -> list[str]:
    """The end of a game in words (the first line says who won)."""
    obs = event.observation
    if event.draw or event.winner is None:
        return [t("over.draw", lang)]
    names = seat_names(table, lang)
    winners = " & ".join(names[s] for s in event.winning_seats)
    if not obs.get("winning_line"):
        return [t("over.win.last", lang, names=winners)]
    return [t("over.win", lang, names=winners),
            t("over.line", lang, spaces=", ".join(obs["winning_line"]))]


# ---------------------------------------------------------------------- views
def board_view(table: TableView, obs: Observation, lang: str) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    if table.game == "kids":
        view.add_item(HandButton(table.game_id, t("button.hand", lang)))
    elif table.turn is not None and not table.seats[table.turn].is_computer \
            and "roll" in (obs.get("legal") or ["roll"]):
        view.add_item(RollButton(table.game_id, table.ply, t("button.roll", lang)))
    return stopped(view)


def child_modal(game_id: int, lang: str) -> discord.ui.Modal:
    """The "Add a child" form: one short text, the child's name (1 to 20 letters).

    Stopped before it is sent: its answer is read from the submitted custom_id and value
    (``cogs.table.buttons.modal_submitted``), so it needs no memory in this process."""
    modal = discord.ui.Modal(title=t("modal.child.title", lang)[:45],
                             custom_id=f"seq:child:{game_id}", timeout=None)
    modal.add_item(discord.ui.TextInput(
        label=t("modal.child.label", lang)[:45], custom_id=CHILD_NAME, min_length=1,
        max_length=MAX_CHILD_NAME, placeholder=t("modal.child.placeholder", lang)[:100]))
    modal.stop()
    return modal
