"""The rules say what the decisions of docs/RULES-MAP.md decided, in both languages, with a
picture for each game."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from cogs.i18n import t
from cogs.rules import rules_embed
from render.rules import example_board, rules_picture, rules_png
from store import GuildSettings


def text_of(game: str, lang: str, settings: GuildSettings | None = None) -> str:
    embed = rules_embed(game, lang, settings)
    return "\n".join([embed.title or "", *(f"{f.name}\n{f.value}" for f in embed.fields)])


@pytest.mark.parametrize("lang", ["en", "no"])
def test_both_embeds_fit_in_one_message(lang: str) -> None:
    kids, dice = rules_embed("kids", lang), rules_embed("dice", lang)
    assert len(kids) + len(dice) <= 6000
    assert all(len(f.value) <= 1024 for e in (kids, dice) for f in e.fields)


def test_the_kids_rules_spell_out_the_draw_and_the_dead_card_limit() -> None:
    en = text_of("kids", "en")
    assert "full round" in en and "draw" in en
    assert "at most as many times in one turn as you hold cards" in en and "pass" in en
    assert "shuffled into a new deck" in en
    no = text_of("kids", "no")
    assert "hel runde" in no and "uavgjort" in no and "står du over" in no


def test_the_dice_rules_spell_out_500_turns_the_extra_roll_and_the_row_length() -> None:
    en = text_of("dice", "en")
    assert "500 turns" in en and "even if no chip could be placed" in en
    assert "6 in a row" in en and "5 in a row" in en and "no free spaces" in en
    no = text_of("dice", "no")
    assert "500 turer" in no and "ingen åpne felt" in no and "kast igjen" in no.lower()


LEVELS = {"en": (("Beginner 1", "1 card"), ("Beginner 2", "2 cards"), ("Beginner 3", "3 cards")),
          "no": (("Nybegynner 1", "1 kort"), ("Nybegynner 2", "2 kort"),
                 ("Nybegynner 3", "3 kort"))}


@pytest.mark.parametrize("lang", ["en", "no"])
def test_parents_read_what_each_beginners_level_means(lang: str) -> None:
    text = text_of("kids", lang)
    for words in LEVELS[lang]:
        assert all(w in text for w in words), words


def test_leaving_and_fair_shuffles_are_explained_in_players_words() -> None:
    en = text_of("kids", "en")
    assert "their chips stay" in en and "last side standing wins" in en
    assert "at random" in en and "shown again" in en and "seed" not in en


def test_a_server_turn_timer_appears_in_the_rules() -> None:
    assert "turn timer" not in text_of("dice", "en")
    timed = text_of("dice", "en", GuildSettings(1, turn_timer=300, timeout_action="skip"))
    assert "turn timer of 5 min" in timed and "your turn is skipped" in timed
    norsk = text_of("kids", "no", GuildSettings(1, turn_timer=120))
    assert "turtid på 2 min" in norsk and "datamaskinspiller" in norsk


PICTURE_WORDS = {"kids": ("unicorn", "dragon", "free", "line"),
                 "dice": ("roll10", "roll11", "roll_again", "line")}
PHONE_WIDTH = 400  # about how wide a phone shows an embed's picture


def _captions(game: str, lang: str) -> dict[str, str]:
    return {key: t(f"rules.picture.{game}.{key}" if key == "line" else f"rules.picture.{key}",
                   lang) for key in PICTURE_WORDS[game]}


@pytest.mark.parametrize("lang", ["en", "no"])
@pytest.mark.parametrize("game", ["kids", "dice"])
def test_the_rules_picture_is_a_portrait_png_as_wide_as_the_board(game: str, lang: str) -> None:
    image = Image.open(io.BytesIO(rules_png(game, _captions(game, lang), lang)))
    assert image.format == "PNG"
    assert example_board(game).width <= image.width < image.height  # a phone is upright


@pytest.mark.parametrize("lang", ["en", "no"])
@pytest.mark.parametrize("game", ["kids", "dice"])
def test_every_rules_caption_reads_on_a_phone(game: str, lang: str) -> None:
    picture = rules_picture(game, _captions(game, lang), lang)
    assert len(picture.caption_sizes) == 4  # every caption is drawn
    scale = PHONE_WIDTH / picture.image.width
    assert min(picture.caption_sizes) * scale >= 14, (picture.caption_sizes, picture.image.size)


def test_the_example_sequence_is_drawn_on_the_board() -> None:
    # the winning line frames its spaces in the win colour; an empty board has none
    board = example_board("kids").convert("RGB")
    colours = {c for _, c in board.getcolors(1 << 20) or []}
    from render import palette as pal
    assert pal.WIN in colours
