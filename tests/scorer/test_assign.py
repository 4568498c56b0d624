"""ek.scorer.assign: matchings are maximum, greedy keeps exact pairs, the optimum is optimal and canonical (brute force)."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction
from typing import Any

import pytest
from cputime import growth
from hypothesis import given, settings
from hypothesis import strategies as st

from ek.scorer import assign
from ek.scorer.assign import _scipy, greedy_assignment, has_perfect_matching, max_matching, max_weight_assignment

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


@settings(max_examples=400, deadline=None)
@given(graphs)
def test_a_matching_in_any_order_leaves_the_same_left_nodes_unmatched(graph: tuple[int, list[list[int]]]) -> None:
    # any_order lists each left node's fits and takes a free one first: another maximum matching, with the
    # unmatched left nodes of Kuhn's in order (what ek.bfcl.check reports: the first unmatched answer)
    m, adjacency = graph
    sets = [set(options) for options in adjacency]
    asked: list[tuple[int, int]] = []

    def fits(i: int, j: int) -> bool:
        asked.append((i, j))
        return j in sets[i]

    kuhn = max_matching(len(adjacency), m, lambda i, j: j in sets[i])
    listed = max_matching(len(adjacency), m, fits, any_order=True)
    assert [r is None for r in listed] == [r is None for r in kuhn]
    used = [r for r in listed if r is not None]
    assert len(used) == len(set(used)) and all(r is None or r in sets[i] for i, r in enumerate(listed))
    assert len(asked) == len(set(asked))  # each pair asked once


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


# --------------------------------------------------------------------------- the canonical optimum, both solvers

BACKENDS = ["python", pytest.param("scipy", marks=pytest.mark.skipif(_scipy() is None, reason="SciPy not installed"))]


def _canonical_by_brute_force(table: list[list[Any]]) -> list[tuple[int, int]]:
    """Of all assignments with the largest exact total, the lexicographically smallest partner list of the shorter side."""
    n, m = len(table), len(table[0])
    if n > m:
        flipped = _canonical_by_brute_force([[table[r][c] for r in range(n)] for c in range(m)])
        return sorted((r, c) for c, r in flipped)
    best: tuple[Fraction, tuple[int, ...]] | None = None
    for cols in itertools.permutations(range(m), n):  # in lexicographic order: the first best is the smallest
        total = sum((Fraction(table[r][c]) for r, c in enumerate(cols)), Fraction(0))
        if best is None or total > best[0]:
            best = (total, cols)
    assert best is not None
    return list(enumerate(best[1]))


tied_values = st.sampled_from([0, 1, 2])  # three values: ties everywhere
float_values = st.sampled_from([0.1, 0.2, 0.3, 0.30000000000000004, 1.5, 2.0])  # 0.1 + 0.2 != 0.3: exactness shows
fraction_values = st.builds(Fraction, st.integers(-3, 3), st.integers(1, 3))
extreme_values = st.sampled_from([1e308, -1e308, 5e-324, 0.0, 1.0])  # past float64's range once summed or scaled


def _tables(values: st.SearchStrategy[Any]) -> st.SearchStrategy[list[list[Any]]]:
    return st.integers(1, 5).flatmap(lambda n: st.integers(1, 5).flatmap(
        lambda m: st.lists(st.lists(values, min_size=m, max_size=m), min_size=n, max_size=n)))


@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=300, deadline=None)
@given(st.one_of(_tables(tied_values), _tables(float_values), _tables(fraction_values), _tables(extreme_values)))
def test_the_optimum_is_the_lexicographically_smallest_of_the_best(backend: str, table: list[list[Any]]) -> None:
    assert max_weight_assignment(table, backend=backend) == _canonical_by_brute_force(table)


@pytest.mark.parametrize("backend", BACKENDS)
def test_floats_count_at_their_exact_values(backend: str) -> None:
    # As stored, 0.1 + 0.2 exceeds 0.3 + 0.0 by 2**-55: no tie, so the lexicographically larger pairing wins.
    assert max_weight_assignment([[0.3, 0.1], [0.2, 0.0]], backend=backend) == [(0, 1), (1, 0)]


@pytest.mark.skipif(_scipy() is None, reason="SciPy not installed")
@pytest.mark.parametrize("values", [[1.0, 2.0, 3.0], [0.5, 1.25, 3.0], [0.1, 0.7, 2.3], [1, 2, 10 ** 17], [1, 2, 10 ** 18],
                                    [0.1, 1e20]])
def test_both_solvers_agree_on_large_tied_tables(values: list[Any]) -> None:
    # Whole numbers and dyadic fractions (proof in float64), non-dyadic floats and ints past 2**53 (int64),
    # past 2**58 once scaled (Python integers).
    rnd = random.Random(7)
    for n, m in [(40, 60), (60, 40), (50, 50)]:
        table = [[rnd.choice(values) for _ in range(m)] for _ in range(n)]
        assert max_weight_assignment(table, backend="scipy") == max_weight_assignment(table, backend="python")


def test_an_all_equal_table_pairs_row_i_with_column_i() -> None:
    table = [[1.0] * 80 for _ in range(80)]  # past SCIPY_MIN_CELLS: the "auto" solver is SciPy when installed
    assert max_weight_assignment(table) == [(i, i) for i in range(80)]


def _tied_table(n: int) -> list[list[float]]:
    """The scorer's table of one tool's n x n calls that all partly agree (a query of ten, a page of ten, a
    language always wrong): 1 + the number of equal arguments, so three scores, ties everywhere."""
    rnd = random.Random(1)
    gold = [(rnd.randint(0, 9), rnd.randint(0, 9)) for _ in range(n)]
    pred = [(rnd.randint(0, 9), rnd.randint(0, 9)) for _ in range(n)]
    return [[1.0 + (p[0] == g[0]) + (p[1] == g[1]) for g in gold] for p in pred]


def test_the_own_solver_reads_a_tied_table_a_few_times_not_once_a_row() -> None:
    # What runs without SciPy (and for every table under SCIPY_MIN_CELLS). Most rows of a tied table take a
    # cheapest free column at once, and a search stops at the first free column as near as any. The textbook
    # loop searched from every row, column by column in Python: 150 to 220 times the cost of reading the
    # table at 200 to 400 calls, and 17 to 67 s for one tool's 1,000 x 1,000 calls under order="gold"; now 7.
    table = _tied_table(300)
    assert max_weight_assignment(table, backend="python") == max_weight_assignment(_tied_table(300))
    ratio = growth(lambda: [[x * 2.0 for x in row] for row in table],
                   lambda: max_weight_assignment(table, backend="python"), rounds=3)
    assert ratio < 40, f"solving cost {ratio:.0f}x reading the table"


distinct_floats = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False) | st.sampled_from([5e-324, 1e-300, 1e300])
distinct_ints = st.integers(-10 ** 6, 10 ** 6) | st.integers(-2 ** 80, 2 ** 80)


@settings(max_examples=300, deadline=None)
@given(st.one_of(_tables(distinct_floats), _tables(distinct_ints),
                 _tables(st.builds(Fraction, st.integers(-10 ** 4, 10 ** 4), st.integers(1, 100)))))
def test_the_own_solver_finds_the_canonical_optimum_of_many_distinct_scores(table: list[list[Any]]) -> None:
    # Few cells per distinct score: converted row by row (floats scaled by a power of two, ints as they are).
    assert max_weight_assignment(table, backend="python") == _canonical_by_brute_force(table)


@settings(max_examples=300, deadline=None)
@given(st.one_of(_tables(distinct_floats), _tables(distinct_ints)), st.integers(1, 3))
def test_searches_over_each_rows_cheapest_columns_find_the_canonical_optimum(table: list[list[Any]], near: int) -> None:
    # Rows listing only their `near` cheapest columns (16 in ek; fewer here, so that 5 x 5 tables list):
    # rows read whole when their floor comes near, searches that switch to whole rows when that is frequent.
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(assign, "_NEAR", near)
        assert max_weight_assignment(table, backend="python") == _canonical_by_brute_force(table)


def _untied_tables() -> list[list[list[Any]]]:
    rnd = random.Random(11)
    tables: list[list[list[Any]]] = []
    for n, m in [(90, 90), (70, 120), (120, 70), (100, 100)]:
        tables.append([[rnd.random() for _ in range(m)] for _ in range(n)])
        tables.append([[rnd.randint(0, 10 ** 6) for _ in range(m)] for _ in range(n)])
        tables.append([[i * j for j in range(m)] for i in range(n)])  # every search long; row 0 tied
        tables.append([[(i + 1) * (j + 1) for j in range(m)] for i in range(n)])  # untied: rows read whole
        tables.append([[rnd.choice([0.1, 0.7, 2.3]) + rnd.randint(0, 3) * 1e-9 for _ in range(m)] for _ in range(n)])
    return tables


@pytest.mark.skipif(_scipy() is None, reason="SciPy not installed")
def test_both_solvers_agree_on_large_untied_tables() -> None:
    # Searches over each row's cheapest columns (many distinct scores), long searches over whole rows (past
    # 64 columns, the lists they read shrink as columns are reached), rectangles both ways.
    for table in _untied_tables():
        assert max_weight_assignment(table, backend="python") == max_weight_assignment(table, backend="scipy")


def test_the_own_solver_on_distinct_scores_costs_a_bounded_number_of_table_reads() -> None:
    # 300 x 300 random floats: 140 times the cost of reading the table before (each float converted alone,
    # every row left after the first pass added by a search that read every row it reached whole), about 40
    # now (floats scaled in C, searches over each row's 16 cheapest columns).
    rnd = random.Random(3)
    table = [[rnd.random() for _ in range(300)] for _ in range(300)]
    ratio = growth(lambda: [[x * 2.0 for x in row] for row in table],
                   lambda: max_weight_assignment(table, backend="python"), rounds=3)
    assert ratio < 80, f"solving cost {ratio:.0f}x reading the table"


def test_bad_tables_get_clear_errors() -> None:
    with pytest.raises(ValueError, match="row 1 has 1 cells"):
        max_weight_assignment([[1, 2], [3]])
    with pytest.raises(ValueError, match="row 0, column 1 is not finite"):
        max_weight_assignment([[1.0, float("nan")]])
    with pytest.raises(TypeError, match="row 0, column 0 is not a number: str"):
        max_weight_assignment([["1"]])
    with pytest.raises(ValueError, match="backend must be one of"):
        max_weight_assignment([[1]], backend="fast")
    nan_table = [[1.0] * 60 for _ in range(60)]
    nan_table[3][4] = float("inf")
    with pytest.raises(ValueError, match="row 3, column 4 is not finite"):
        max_weight_assignment(nan_table)


def test_without_scipy_ek_solves_alone_and_says_what_scipy_would_need(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(assign, "_SCIPY", None)  # as if SciPy were not installed
    table = [[1.0] * 60 for _ in range(60)]
    assert max_weight_assignment(table) == [(i, i) for i in range(60)]
    with pytest.raises(ImportError, match=r"pip install 'ek\[fast\]'"):
        max_weight_assignment(table, backend="scipy")


@pytest.mark.skipif(_scipy() is None, reason="SciPy not installed")
def test_a_proof_that_would_leave_int64_goes_on_in_python_integers(monkeypatch: pytest.MonkeyPatch) -> None:
    # Scores near 2**57: int64 holds about 30 rounds of Bellman-Ford exactly, and the chain of moves
    # 0 -> 1 -> ... -> 39 needs 40. The proof must finish in Python integers and still find row i, column i.
    n = 40
    table = [[0 if c == r else 1 if c == r + 1 else -(2 ** 57) for c in range(n)] for r in range(n)]
    dtypes: list[str] = []
    certify = assign._certify

    def spy(np: Any, costs: Any, match: list[int]) -> Any:
        dtypes.append(costs.dtype.name)
        return certify(np, costs, match)

    monkeypatch.setattr(assign, "_certify", spy)
    assert max_weight_assignment(table, backend="scipy") == [(i, i) for i in range(n)]
    assert dtypes == ["int64", "object"]
