"""The parallel-call matching is maximum (checked against brute force) and asks each pair at most once."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from ek.bfcl.matching import max_matching, max_matching_lazy

graphs = st.integers(0, 5).flatmap(
    lambda m: st.tuples(st.just(m), st.lists(st.lists(st.integers(0, max(m - 1, 0)), max_size=m, unique=True)
                                             .map(lambda xs: [x for x in xs if x < m]), max_size=5))
)


def _best(adjacency: list[list[int]], m: int) -> int:
    n = len(adjacency)
    best = 0
    for size in range(min(n, m), -1, -1):
        for lefts in itertools.combinations(range(n), size):
            for rights in itertools.permutations(range(m), size):
                if all(r in adjacency[l] for l, r in zip(lefts, rights)):
                    return size
    return best


@settings(max_examples=200, deadline=None)
@given(graphs)
def test_matching_is_valid_and_maximum(graph: tuple[int, list[list[int]]]) -> None:
    m, adjacency = graph
    assignment = max_matching(adjacency, m)
    used = [r for r in assignment if r is not None]
    assert len(used) == len(set(used))
    assert all(r is None or r in adjacency[i] for i, r in enumerate(assignment))
    assert len(used) == _best(adjacency, m)


def test_each_pair_is_asked_at_most_once_and_first_fit_cases_stay_cheap() -> None:
    asked: list[tuple[int, int]] = []

    def fits(i: int, j: int) -> bool:
        asked.append((i, j))
        return i == j

    assert max_matching_lazy(4, 4, fits) == [0, 1, 2, 3]
    assert len(asked) == len(set(asked)) == 4 + 3 + 2 + 1  # tried in order, stopping at the first fit
