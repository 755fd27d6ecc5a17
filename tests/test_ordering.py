"""The order the parallel run deals tests in (``tests/conftest.py``): every test once, and
each worker's block holding its share of the longest ones."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import dealt


def blocks(items: list[str], workers: int) -> list[list[str]]:
    """The blocks pytest-xdist's work stealing hands out at the start: to each idle
    worker in turn, ``len(pending) // workers_left``."""
    out, pending = [], list(items)
    for left in range(workers, 0, -1):
        size = len(pending) // left
        out.append(pending[:size])
        del pending[:size]
    return out


@given(st.integers(0, 40), st.integers(0, 300), st.integers(1, 8))
def test_every_test_is_dealt_exactly_once(longest: int, others: int, workers: int) -> None:
    long = [f"long{n}" for n in range(longest)]
    rest = [f"test{n}" for n in range(others)]
    assert sorted(dealt(long, rest, workers)) == sorted(long + rest)


@given(st.integers(0, 40), st.integers(0, 300), st.integers(2, 8))
def test_each_worker_starts_with_its_share_of_the_longest(longest: int, others: int,
                                                           workers: int) -> None:
    long = [f"long{n}" for n in range(longest)]
    rest = [f"test{n}" for n in range(others)]
    cut = blocks(dealt(long, rest, workers), workers)
    if longest <= (longest + others) // workers:  # (they fit in every block)
        for n, block in enumerate(cut):
            mine = [t for t in block if t.startswith("long")]
            assert mine == long[n::workers], (n, block)
            if mine:
                assert block[0] == mine[0], "the heaviest of a block comes first"


def test_all_put_first_would_fall_in_one_block() -> None:
    """Why they are dealt: put first, the longest all land in the first worker's block."""
    long, rest = [f"long{n}" for n in range(8)], [f"test{n}" for n in range(92)]
    assert all(t.startswith("long") for t in blocks(long + rest, 4)[0][:8])
    assert [sum(t.startswith("long") for t in b) for b in blocks(dealt(long, rest, 4), 4)] \
        == [2, 2, 2, 2]
