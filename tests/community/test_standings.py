"""What stats and the leaderboard count: the store's queries and the form of a player."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from cogs.community import form_of
from cogs.table.manners import Layout, TableManners
from store import ResultLine, ResultRecord, Seat, Store


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    async with await Store.open(tmp_path / "stats.db") as s:
        yield s


async def finish(store: Store, kind: str, guild: int, channel: int, seats: list[Seat],
                 winners: set[int], *, at: float, draw: bool = False) -> None:
    gid = await store.games.create_lobby(kind, {}, guild, channel, seats[0].user_id or 0, seats,
                                   lobby_deadline=None, on_leave="skip", now=at)
    assert gid is not None
    results = [ResultRecord(s.index, s.user_id, s.level, s.name, s.index,
                            "draw" if draw else "win" if s.index in winners else "loss", False)
               for s in seats]
    await store.games.record(gid, [], {}, now=at, turn_deadline=None, results=results)


ANN, BOB = Seat(0, 1, "Ann"), Seat(1, 2, "Bob")
EASY, HARD = Seat(1, None, "Computer", "easy"), Seat(1, None, "Computer", "hard")


async def test_a_newcomer_with_one_lucky_win_is_not_on_the_leaderboard(store: Store) -> None:
    for n in range(3):
        await finish(store, "kids", 10, n, [ANN, BOB], {0 if n < 2 else 1}, at=n)
    await finish(store, "kids", 10, 9, [Seat(0, 3, "Cid"), EASY], {0}, at=9)
    ranking = await store.standings.ranking(10, min_games=3)
    assert [(r.name, r.wins, r.games) for r in ranking] == [("Ann", 2, 3), ("Bob", 1, 3)]
    assert "Cid" in [r.name for r in await store.standings.ranking(10, min_games=1)]


async def test_win_rate_ranks_before_the_number_of_wins(store: Store) -> None:
    # Ann wins 3 of 6, Bob 2 of 2 (against computers): Bob's rate is better
    for n in range(6):
        await finish(store, "dice", 10, n, [ANN, Seat(1, 4, "Dee")], {0 if n < 3 else 1},
                     at=n)
    for n in range(2):
        await finish(store, "dice", 10, 20 + n, [Seat(0, 2, "Bob"), EASY], {0}, at=20 + n)
    assert [r.name for r in await store.standings.ranking(10, min_games=2)][:2] == ["Bob", "Ann"]


async def test_computer_players_are_counted_by_level_never_with_people(store: Store) -> None:
    await finish(store, "kids", 10, 1, [ANN, EASY], {1}, at=1)
    await finish(store, "kids", 10, 2, [ANN, HARD], {1}, at=2)
    await finish(store, "kids", 10, 3, [ANN, HARD], {0}, at=3)
    await finish(store, "dice", 10, 4, [ANN, HARD], {1}, at=4)
    levels = await store.standings.computer_standings(10, kind="kids")
    assert [(r.level, r.wins, r.games) for r in levels] == [("easy", 1, 1), ("hard", 1, 2)]
    assert all(r.user_id is not None for r in await store.standings.ranking(10))
    assert [r.name for r in await store.standings.ranking(10)] == ["Ann"]


async def test_another_servers_games_do_not_count(store: Store) -> None:
    await finish(store, "kids", 10, 1, [ANN, BOB], {0}, at=1)
    await finish(store, "kids", 20, 2, [ANN, BOB], {1}, at=2)
    assert [r.outcome for r in await store.standings.results_of(1, guild_id=10)] == ["win"]
    assert await store.standings.computer_standings(20) == []


async def test_results_come_newest_first(store: Store) -> None:
    for n, winner in enumerate([1, 0, 0]):
        await finish(store, "kids", 10, n, [ANN, BOB], {winner}, at=float(n))
    assert [r.outcome for r in await store.standings.results_of(1)] == ["win", "win", "loss"]


def line(outcome: str, kind: str = "kids", side: int = 0, at: float = 0.0) -> ResultLine:
    return ResultLine(int(at), kind, side, outcome, at)


def test_the_current_streak_counts_wins_up_to_the_newest_game() -> None:
    newest_first = [line("win", at=5), line("win", at=4), line("loss", at=3),
                    line("win", at=2), line("win", at=1), line("win", at=0)]
    form = form_of(newest_first)
    assert (form.streak, form.best_streak) == (2, 3)


def test_a_loss_or_a_draw_ends_the_streak() -> None:
    assert form_of([line("draw"), line("win")]).streak == 0
    assert form_of([line("loss"), line("win")]).best_streak == 1


def test_the_favourite_colour_is_the_most_played_one_across_both_games() -> None:
    # Kids side 1 is blue, Dice side 1 is blue too; Dice side 0 is green
    results = [line("win", "kids", 1), line("loss", "dice", 1), line("win", "dice", 0)]
    assert form_of(results).favourite_colour == "blue"


def test_a_tie_of_colours_goes_to_the_most_recent_one() -> None:
    results = [line("win", "kids", 3, at=2), line("win", "kids", 0, at=1)]
    assert form_of(results).favourite_colour == "yellow"
    assert form_of([]).favourite_colour is None


async def test_thread_and_tidy_settings_are_kept(store: Store, tmp_path: Path) -> None:
    assert await Layout(store.rows).table_manners(10) == TableManners(10)
    await Layout(store.rows).save_table_manners(TableManners(10, own_thread=True))
    await Layout(store.rows).save_table_manners(TableManners(10, own_thread=True, tidy_boards=True))
    assert await Layout(store.rows).table_manners(10) == TableManners(10, True, True)
    assert await Layout(store.rows).table_manners(11) == TableManners(11)


def test_the_examples_in_the_docstrings_hold() -> None:
    import doctest

    import cogs.community

    assert doctest.testmod(cogs.community).failed == 0
