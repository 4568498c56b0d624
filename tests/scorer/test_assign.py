"""ek.scorer.assign: matchings are maximum, greedy keeps exact pairs, the Hungarian optimum is optimal (brute force)."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from ek.scorer.assign import greedy_assignment, has_perfect_matching, max_matching, max_weight_assignment

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
    sets = [set(options) for options in adjacency]
    assignment = max_matching(len(adjacency), m, lambda i, j: j in sets[i])
    used = [r for r in assignment if r is not None]
    assert len(used) == len(set(used))
    assert all(r is None or r in adjacency[i] for i, r in enumerate(assignment))
    assert len(used) == _best(adjacency, m)


def test_each_pair_is_asked_at_most_once_and_first_fit_cases_stay_cheap() -> None:
    asked: list[tuple[int, int]] = []

    def fits(i: int, j: int) -> bool:
        asked.append((i, j))
        return i == j

    assert max_matching(4, 4, fits) == [0, 1, 2, 3]
    assert len(asked) == len(set(asked)) == 4 + 3 + 2 + 1  # tried in order, stopping at the first fit


@settings(max_examples=200, deadline=None)
@given(graphs)
def test_perfect_matching_exists_exactly_when_the_maximum_is_complete(graph: tuple[int, list[list[int]]]) -> None:
    m, adjacency = graph
    n = min(len(adjacency), m)
    sets = [set(options) for options in adjacency[:n]]
    assert has_perfect_matching(n, lambda i, j: j in sets[i]) == (_best([list(s) for s in sets], n) == n)


scores = st.integers(1, 5).flatmap(lambda n: st.integers(1, 5).flatmap(
    lambda m: st.lists(st.lists(st.integers(0, 9), min_size=m, max_size=m), min_size=n, max_size=n)))


@settings(max_examples=200, deadline=None)
@given(scores)
def test_hungarian_total_equals_brute_force(table: list[list[int]]) -> None:
    n, m = len(table), len(table[0])
    chosen = max_weight_assignment(table)
    assert len(chosen) == min(n, m)
    assert len({r for r, _ in chosen}) == len({c for _, c in chosen}) == len(chosen)
    if n <= m:
        best = max(sum(table[r][c] for r, c in zip(range(n), cols)) for cols in itertools.permutations(range(m), n))
    else:
        best = max(sum(table[r][c] for r, c in zip(rows, range(m))) for rows in itertools.permutations(range(n), m))
    assert sum(table[r][c] for r, c in chosen) == best


@settings(max_examples=200, deadline=None)
@given(graphs)
def test_greedy_keeps_a_maximum_set_of_exact_pairs(graph: tuple[int, list[list[int]]]) -> None:
    m, adjacency = graph
    n = len(adjacency)
    sets = [set(options) for options in adjacency]
    chosen = greedy_assignment(range(n), range(m), lambda i, j: (j in sets[i], 1.0), dict.fromkeys(range(n), ""),
                               dict.fromkeys(range(m), ""))
    exact = [(i, j) for i, j in chosen if j in sets[i]]
    assert len(exact) == _best(adjacency, m)
    assert len(chosen) == min(n, m)  # partial pairs fill what exact pairs leave


def test_greedy_prefers_more_agreement_then_content_key_then_position() -> None:
    agreement = {(0, 0): 1.0, (0, 1): 3.0, (1, 0): 2.0, (1, 1): 2.0}
    chosen = greedy_assignment([0, 1], [0, 1], lambda i, j: (False, agreement[i, j]), {0: "b", 1: "a"},
                               {0: "a", 1: "b"})
    assert chosen == [(0, 1), (1, 0)]
    tied = greedy_assignment([0, 1], [0, 1], lambda i, j: (False, 1.0), {0: "b", 1: "a"}, {0: "b", 1: "a"})
    assert tied == [(0, 0), (1, 1)]  # content keys pair "a" with "a" and "b" with "b", whatever the positions
