"""How many choices fit: buttons up to 20, then select menus of at most 25 options each."""

from __future__ import annotations

import discord

from cogs.table.buttons import PlayButton, PlaySelect
from cogs.table.choices import choices_view


def view_for(actions: list[str]) -> discord.ui.View:
    return choices_view(7, 5, actions, "en")


def test_a_card_with_two_spaces_gets_two_buttons() -> None:
    view = view_for(["lion@B3", "lion@F6"])
    assert [type(i) for i in view.children] == [PlayButton, PlayButton]
    assert [i.item.custom_id for i in view.children] == ["seq:play:7:5:lion@B3",
                                                         "seq:play:7:5:lion@F6"]


def test_a_unicorn_with_38_open_spaces_gets_two_select_menus() -> None:
    spaces = [f"unicorn@{c}{r}" for r in range(1, 8) for c in "ABCDEF"][:38]
    view = view_for(spaces)
    menus = [i for i in view.children if isinstance(i, PlaySelect)]
    assert [len(m.item.options) for m in menus] == [25, 13]
    assert sorted(o.value for m in menus for o in m.item.options) == sorted(spaces)
    assert all(len(i.item.custom_id) <= 100 for i in view.children)
