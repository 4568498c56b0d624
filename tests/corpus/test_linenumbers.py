"""LineNumbers, the run-length column of a summary's line numbers, against a plain list of the same numbers."""

from __future__ import annotations

import pickle
from operator import itemgetter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ek.corpus.linenumbers import LineNumbers

#: Runs of consecutive numbers with jumps between them (forwards, backwards, repeats, far), as corpora make them.
_RUNS = st.lists(st.tuples(st.one_of(st.integers(-5, 40), st.sampled_from([0, 2**32 - 1, 2**62, -(2**63)])),
                           st.integers(1, 6)), max_size=8)


def _numbers(runs: list[tuple[int, int]]) -> list[int]:
    return [start + k for start, length in runs for k in range(length)]


def _column(numbers: list[int]) -> LineNumbers:
    column = LineNumbers()
    for number in numbers:
        column.append(number)
    return column


@settings(max_examples=300, deadline=None)
@given(_RUNS)
def test_reads_back_what_was_appended(runs: list[tuple[int, int]]) -> None:
    numbers = _numbers(runs)
    column = _column(numbers)
    assert list(column) == numbers and len(column) == len(numbers)
    assert [column[k] for k in range(len(numbers))] == numbers
    assert [column[-k] for k in range(1, len(numbers) + 1)] == [numbers[-k] for k in range(1, len(numbers) + 1)]
    # runs are maximal: no run continues the one before it
    found = column.runs()
    assert all(end != start for (_s, end), (start, _e) in zip(found, found[1:]))
    assert _numbers([(start, end - start) for start, end in found]) == numbers
    assert pickle.loads(pickle.dumps(column)) == column
    assert LineNumbers(numbers) == column


@settings(max_examples=300, deadline=None)
@given(_RUNS, _RUNS)
def test_extend_is_appending_each_number(first: list[tuple[int, int]], later: list[tuple[int, int]]) -> None:
    mine, theirs = _column(_numbers(first)), _column(_numbers(later))
    mine.extend(theirs)
    whole = _column(_numbers(first) + _numbers(later))
    assert mine == whole and list(mine) == list(whole) and len(mine) == len(whole)
    assert mine.runs() == whole.runs()  # a later chunk that continues the open run joins it


@settings(max_examples=300, deadline=None)
@given(_RUNS, st.randoms(use_true_random=False), st.integers(-(2**40), 2**40))
def test_picked_and_shifted_are_the_list_reordered_and_moved(runs: list[tuple[int, int]], rng, offset: int) -> None:
    numbers = _numbers(runs)
    column = _column(numbers)
    if len(numbers) >= 2:
        order = list(range(len(numbers)))
        rng.shuffle(order)
        pick = itemgetter(*order)
        assert list(column.picked(pick)) == list(pick(numbers))
        assert column.picked(pick).runs() == _column(list(pick(numbers))).runs()
    if all(-(2**63) <= n + offset < 2**63 - 1 for n in numbers):
        moved = column.shifted(offset)
        assert list(moved) == [n + offset for n in numbers] and moved.runs() == _column(list(moved)).runs()
    assert list(column) == numbers  # neither changed the column


def test_out_of_range_indexes_and_numbers_raise_and_change_nothing():
    column = _column([3, 4, 7])
    with pytest.raises(IndexError):
        column[3]
    with pytest.raises(IndexError):
        column[-4]
    with pytest.raises(OverflowError):
        column.append(2**63)
    assert list(column) == [3, 4, 7] and len(column) == 3
    empty = LineNumbers()
    assert len(empty) == 0 and list(empty) == [] and empty.runs() == []
    with pytest.raises(IndexError):
        empty[0]
