"""ek.scorer.assign under order: weighted LCS and the partially ordered assignment against brute force."""

from __future__ import annotations

import itertools
import math
from functools import lru_cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ek.calls import Precedence, must_precede
from ek.scorer import assign
from ek.scorer.assign import OrderTooComplex, ordered_assignment, weighted_lcs

Edge = tuple[int, int]


@st.composite
def instances(draw: st.DrawFn, max_rows: int = 5, max_cols: int = 5) -> tuple[int, int, dict[Edge, float]]:
    rows, cols = draw(st.integers(0, max_rows)), draw(st.integers(0, max_cols))
    values = {}
    for i in range(rows):
        for j in range(cols):
            v = draw(st.one_of(st.none(), st.integers(1, 6)))  # integers: sums are exact, ties are real ties
            if v is not None:
                values[(i, j)] = float(v)
    return rows, cols, values


@st.composite
def direct_orders(draw: st.DrawFn, cols: int) -> list[list[int]]:
    """A random acyclic ``after`` relation (edges follow a random linear order), as given: not closed."""
    rank = draw(st.permutations(range(cols)))
    after: list[list[int]] = [[] for _ in range(cols)]
    for a, b in itertools.combinations(range(cols), 2):
        if draw(st.booleans()) and draw(st.booleans()):
            lo, hi = (a, b) if rank.index(a) < rank.index(b) else (b, a)
            after[hi].append(lo)
    return after


@st.composite
def posets(draw: st.DrawFn, cols: int) -> tuple[frozenset[int], ...]:
    """A random acyclic ``after`` relation, transitively closed."""
    return must_precede(draw(direct_orders(cols)))


def _matchings(values: dict[Edge, float]) -> list[tuple[Edge, ...]]:
    edges = sorted(values)
    out = []
    for size in range(len(edges) + 1):
        for subset in itertools.combinations(edges, size):
            if len({i for i, _ in subset}) == size and len({j for _, j in subset}) == size:
                out.append(subset)
    return out


def _respects(pairs: tuple[Edge, ...] | list[Edge], before: tuple[frozenset[int], ...]) -> bool:
    return all(not (a in before[b] and r > s) for (r, a), (s, b) in itertools.permutations(pairs, 2))


def _is_matching(pairs: list[Edge], values: dict[Edge, float]) -> bool:
    return (all(e in values for e in pairs) and len({i for i, _ in pairs}) == len(pairs)
            and len({j for _, j in pairs}) == len(pairs))


def _textbook_lcs(rows: int, cols: int, values: dict[Edge, float]) -> float:
    @lru_cache(maxsize=None)
    def best(i: int, j: int) -> float:
        if i == rows or j == cols:
            return 0.0
        options = [best(i + 1, j), best(i, j + 1)]
        if (i, j) in values:
            options.append(values[(i, j)] + best(i + 1, j + 1))
        return max(options)

    return best(0, 0)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(instances(6, 6))
def test_weighted_lcs_is_the_textbook_optimum(instance: tuple[int, int, dict[Edge, float]]) -> None:
    rows, cols, values = instance
    pairs = weighted_lcs(rows, cols, values)
    assert _is_matching(pairs, values)
    assert all(r1 < r2 and c1 < c2 for (r1, c1), (r2, c2) in zip(pairs, pairs[1:]))
    assert sum(values[e] for e in pairs) == _textbook_lcs(rows, cols, values)


def _table_lcs(rows: int, cols: int, values: dict[Edge, float]) -> list[Edge]:
    """The textbook programme over the whole table, as ek ran it before it visited candidates only: among equal
    totals the traceback from the end keeps a pair, then drops a row, then a column."""
    best = [[0.0] * (cols + 1) for _ in range(rows + 1)]
    step = [[0] * (cols + 1) for _ in range(rows + 1)]
    for i in range(1, rows + 1):
        for j in range(1, cols + 1):
            v = values.get((i - 1, j - 1))
            take = best[i - 1][j - 1] + v if v is not None else None
            drop_row, drop_col = best[i - 1][j], best[i][j - 1]
            if take is not None and take >= drop_row and take >= drop_col:
                best[i][j], step[i][j] = take, 1
            elif drop_row >= drop_col:
                best[i][j], step[i][j] = drop_row, 2
            else:
                best[i][j], step[i][j] = drop_col, 3
    pairs, i, j = [], rows, cols
    while i and j:
        if step[i][j] == 1:
            pairs.append((i - 1, j - 1))
            i, j = i - 1, j - 1
        elif step[i][j] == 2:
            i -= 1
        else:
            j -= 1
    return pairs[::-1]


@st.composite
def tied_instances(draw: st.DrawFn) -> tuple[int, int, dict[Edge, float]]:
    """Tables with many equal totals: few weights, zero among them; some negative or NaN (never kept)."""
    rows, cols = draw(st.integers(0, 9)), draw(st.integers(0, 9))
    weights = draw(st.sampled_from([[1.0], [1.0, 2.0], [0.0, 1.0], [0.0, 1.0, 2.0, 3.0], [0.5, 0.25, 0.1],
                                    [-1.0, 0.0, 1.0, math.nan]]))
    density = draw(st.sampled_from([0.1, 0.3, 0.7, 1.0]))
    cells = draw(st.lists(st.tuples(st.floats(0, 1), st.sampled_from(weights)), min_size=rows * cols,
                          max_size=rows * cols))
    return rows, cols, {(c // cols, c % cols): v for c, (p, v) in enumerate(cells) if p < density}


@pytest.mark.slow
@settings(max_examples=1500, deadline=None)
@given(tied_instances(), st.sampled_from([0, 10 ** 9]))
def test_weighted_lcs_gives_the_tables_answer_visiting_only_its_candidates(
        instance: tuple[int, int, dict[Edge, float]], dense: int) -> None:
    """Candidate by candidate (or the table read whole, when it is mostly candidates) the same pairs as the
    table's programme, ties included: the explanations of strict order stay as they were."""
    rows, cols, values = instance
    kept = assign._DENSE
    assign._DENSE = dense  # 0: candidates only; 10**9: the table whenever it has a candidate
    try:
        assert weighted_lcs(rows, cols, values) == _table_lcs(rows, cols, values)
    finally:
        assign._DENSE = kept


def test_weighted_lcs_prefers_weight_over_length() -> None:
    values = {(0, 2): 10.0, (1, 0): 1.0, (2, 1): 1.0}
    assert weighted_lcs(3, 3, values) == [(0, 2)]


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(instances(4, 4).flatmap(lambda inst: st.tuples(st.just(inst), posets(inst[1]))))
def test_ordered_assignment_is_the_brute_force_optimum(case: tuple[tuple[int, int, dict[Edge, float]], tuple]) -> None:
    (rows, cols, values), before = case
    pairs = ordered_assignment(values, before)
    assert _is_matching(pairs, values)
    assert _respects(pairs, before)
    best = max(sum(values[e] for e in m) for m in _matchings(values) if _respects(m, before))
    assert sum(values[e] for e in pairs) == best
    assert ordered_assignment(values, before) == pairs  # deterministic


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(instances(4, 5).flatmap(lambda inst: st.tuples(st.just(inst), direct_orders(inst[1]))))
def test_ordered_assignment_reads_the_order_from_the_direct_constraints(
        case: tuple[tuple[int, int, dict[Edge, float]], list[list[int]]]) -> None:
    """``after`` as written (b after a, c after b) is the order its closure is (c after a too), asked without
    building the closure: the same pairs as from the closure, and the brute-force optimum under it."""
    (rows, cols, values), after = case
    closure = must_precede(after)
    pairs = ordered_assignment(values, after)
    assert pairs == ordered_assignment(values, closure)
    assert _respects(pairs, closure)
    assert sum(values[e] for e in pairs) == max(sum(values[e] for e in m) for m in _matchings(values)
                                                if _respects(m, closure))


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 8).flatmap(direct_orders), st.data())
def test_precedence_answers_as_the_transitive_closure(after: list[list[int]], data: st.DataObject) -> None:
    order = Precedence(after)
    closure = must_precede(after)
    size = len(after)
    assert [order.ancestors(j) for j in range(size)] == [set(c) for c in closure]
    assert [order.descendants(k) for k in range(size)] == [{j for j in range(size) if k in closure[j]}
                                                           for k in range(size)]
    rows = data.draw(st.dictionaries(st.integers(0, max(size - 1, 0)), st.integers(0, 5))) if size else {}
    latest, earliest = order.latest_before(rows), order.earliest_after(rows)
    for j in range(size):
        before = [(rows[k], -k) for k in closure[j] if k in rows]
        later = [(rows[k], k) for k in range(size) if j in closure[k] and k in rows]
        assert latest[j] == (None if not before else (max(before)[0], -max(before)[1]))
        assert earliest[j] == (min(later) if later else None)


def test_each_search_node_counts_the_pairs_and_constraints_it_reads() -> None:
    """A node reads every candidate pair, gold call and constraint (its blocks, the walk that finds a broken
    constraint): that counts towards ORDER_MAX_WORK, or a long chain of distinct tools, reversed, was one
    1x1 assignment a node and ran its 2,000 nodes (seconds, each reading thousands of pairs)."""
    n = 100
    values = {(n - 1 - j, j): 2.0 for j in range(n)}  # one call per tool, the prediction the chain reversed
    chain = [[j - 1] if j else [] for j in range(n)]
    scan = assign._SCAN_COST * (len(values) + n + n - 1)
    with pytest.raises(OrderTooComplex, match="steps of search work"):
        ordered_assignment(values, chain, max_work=10 * scan)
    assert len(ordered_assignment(values, chain)) == 1  # within the default limit it is solved


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(instances(4, 4).flatmap(lambda inst: st.tuples(st.just(inst), posets(inst[1]), st.permutations(range(inst[1])))))
def test_ordered_assignment_total_does_not_depend_on_gold_numbering(case: tuple) -> None:
    (rows, cols, values), before, perm = case
    renamed = {(i, perm[j]): v for (i, j), v in values.items()}
    renamed_before = [frozenset()] * cols
    for j in range(cols):
        renamed_before[perm[j]] = frozenset(perm[k] for k in before[j])
    total = sum(values[e] for e in ordered_assignment(values, before))
    assert sum(renamed[e] for e in ordered_assignment(renamed, tuple(renamed_before))) == total


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(instances(5, 5))
def test_a_total_order_is_the_weighted_lcs(instance: tuple[int, int, dict[Edge, float]]) -> None:
    rows, cols, values = instance
    chain = tuple(frozenset(range(j)) for j in range(cols))
    assert (sum(values[e] for e in ordered_assignment(values, chain))
            == sum(values[e] for e in weighted_lcs(rows, cols, values)))


def test_no_order_is_the_unordered_optimum() -> None:
    values = {(0, 1): 3.0, (1, 0): 3.0, (0, 0): 1.0}
    assert ordered_assignment(values, (frozenset(), frozenset())) == [(0, 1), (1, 0)]


def test_entangled_constraints_are_refused_not_guessed() -> None:
    n = 7  # gold is a chain, the prediction its reverse: every unordered optimum breaks every constraint
    values = {(i, j): 1.0 + (i + j == n - 1) for i in range(n) for j in range(n)}
    chain = tuple(frozenset(range(j)) for j in range(n))
    with pytest.raises(OrderTooComplex, match="too entangled to score exactly"):
        ordered_assignment(values, chain, max_nodes=3)
    assert len(ordered_assignment(values, chain)) == n  # within the default limit it is solved


def test_a_large_entangled_group_is_refused_by_work_not_after_minutes() -> None:
    n = 12
    values = {(i, j): 1.0 + (i + j == n - 1) for i in range(n) for j in range(n)}
    chain = tuple(frozenset(range(j)) for j in range(n))
    with pytest.raises(OrderTooComplex, match="steps of search work"):
        ordered_assignment(values, chain, max_work=n ** 3 * 3)
