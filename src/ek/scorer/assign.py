"""Which predicted call stands for which gold call: every assignment algorithm of ek, in one place.

Three questions, each answered once here and used by the scorer, the
multiset comparison of ``unordered`` lists and the BFCL checker alike:

- :func:`max_matching`: is there a complete pairing under a yes/no relation?
  (Kuhn's augmenting paths, iterative; edges asked for lazily, once each).
- :func:`greedy_assignment`: best-first over ranked pairs, exact pairs grown to
  a maximum matching so an exact pair is never lost to another exact pair.
- :func:`max_weight_assignment`: the exact optimum (Hungarian method).
- :func:`weighted_lcs`: the exact optimum when both sides are sequences (``order="strict"``).
- :func:`ordered_assignment`: the exact optimum when gold calls are partially ordered
  (``order="gold"``): branch and bound over :func:`max_weight_assignment`.

Every function is deterministic: ties resolve towards lower indices or the
caller's tie-break keys, never towards hash or input order by accident.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence, Set
from typing import Any

from ek.limits import ORDER_MAX_NODES, ORDER_MAX_WORK

Neighbours = Callable[[int], Iterable[int]]


def augment(root: int, neighbours: Neighbours, match_left: dict[int, int], match_right: dict[int, int]) -> bool:
    """Find an alternating path from the free left node ``root`` to a free right node and flip it.

    Iterative depth-first search (no recursion limit); right nodes are tried in
    the order ``neighbours`` yields them. Returns whether the matching grew.

    >>> left, right = {0: 0}, {0: 0}
    >>> augment(1, {0: [0, 1], 1: [0]}.__getitem__, left, right), left
    (True, {0: 1, 1: 0})
    """
    seen: set[int] = set()
    frames: list[list[Any]] = [[root, iter(neighbours(root)), None]]
    while frames:
        frame = frames[-1]
        for right in frame[1]:
            if right in seen:
                continue
            seen.add(right)
            frame[2] = right
            owner = match_right.get(right)
            if owner is None:
                for left, _rest, through in frames:  # each left node on the path takes the right node it went through
                    match_left[left], match_right[through] = through, left
                return True
            frames.append([owner, iter(neighbours(owner)), None])
            break
        else:
            frames.pop()
    return False


def max_matching(left_size: int, right_size: int, fits: Callable[[int, int], bool]) -> list[int | None]:
    """For each left node, its right node (``None``: unmatched) in a maximum matching.

    ``fits(left, right)`` is asked lazily and at most once per pair, so when the
    first fitting right node is free this costs what first-fit costs.

    >>> edges = {(0, 0), (0, 1), (1, 0)}
    >>> max_matching(2, 2, lambda i, j: (i, j) in edges)   # first-fit would strand left 1
    [1, 0]
    """
    memo: dict[tuple[int, int], bool] = {}

    def neighbours(left: int) -> Iterable[int]:
        for right in range(right_size):
            key = (left, right)
            if key not in memo:
                memo[key] = fits(left, right)
            if memo[key]:
                yield right

    match_left: dict[int, int] = {}
    match_right: dict[int, int] = {}
    for left in range(left_size):
        augment(left, neighbours, match_left, match_right)
    return [match_left.get(left) for left in range(left_size)]


def has_perfect_matching(size: int, fits: Callable[[int, int], bool]) -> bool:
    """True when ``size`` left nodes can each take a distinct one of ``size`` right nodes.

    >>> has_perfect_matching(2, lambda i, j: j == 0)
    False
    """
    return None not in max_matching(size, size, fits)


def greedy_assignment(
    left: Sequence[int],
    right: Sequence[int],
    rank: Callable[[int, int], tuple[bool, float]],
    left_key: Mapping[int, Hashable],
    right_key: Mapping[int, Hashable],
) -> list[tuple[int, int]]:
    """Best-first: exact before partial, more agreement before less, ties by content key then position.

    ``rank(i, j)`` is ``(exact, agreement)``. Exact pairs are taken best-first
    and then grown to a maximum matching over exact pairs, so an exact pair is
    never lost to another exact pair that merely ranked first (BFCL's "any
    valid assignment" for parallel calls); partial pairs then fill what is left.

    >>> greedy_assignment([0, 1], [0, 1], lambda i, j: (j == 0 or i == 0, 1.0), {0: "a", 1: "b"}, {0: "a", 1: "b"})
    [(0, 1), (1, 0)]
    """
    candidates = []
    for i in left:
        for j in right:
            exact, agreement = rank(i, j)
            candidates.append((not exact, -agreement, left_key[i], right_key[j], i, j))
    candidates.sort()
    match_left: dict[int, int] = {}
    match_right: dict[int, int] = {}
    exact_adj: dict[int, list[int]] = {}
    for partial, *_, i, j in candidates:
        if partial:
            break
        exact_adj.setdefault(i, []).append(j)
        if i not in match_left and j not in match_right:
            match_left[i], match_right[j] = j, i
    neighbours = lambda i: exact_adj.get(i, ())  # noqa: E731 - a one-line adjacency view
    for i in sorted(exact_adj, key=lambda i: (left_key[i], i)):
        if i not in match_left:
            augment(i, neighbours, match_left, match_right)
    for partial, *_, i, j in candidates:
        if partial and i not in match_left and j not in match_right:
            match_left[i], match_right[j] = j, i
    return sorted(match_left.items())


def max_weight_assignment(scores: Sequence[Sequence[float]]) -> list[tuple[int, int]]:
    """Rows assigned to distinct columns maximising the total score (every row or every column used).

    Shortest augmenting paths with potentials (the Hungarian method), O(n^2 m).
    Ties resolve towards lower indices, so the result is deterministic.

    >>> max_weight_assignment([[3, 1], [3, 2]])
    [(0, 0), (1, 1)]
    >>> max_weight_assignment([[1, 5, 1]])
    [(0, 1)]
    """
    n = len(scores)
    m = len(scores[0]) if n else 0
    if n == 0 or m == 0:
        return []
    if n > m:
        flipped = max_weight_assignment([[scores[r][c] for r in range(n)] for c in range(m)])
        return sorted((r, c) for c, r in flipped)
    inf = float("inf")
    cost = [[-float(x) for x in row] for row in scores]
    u = [0.0] * (n + 1)
    v = [0.0] * (m + 1)
    p = [0] * (m + 1)  # p[col] = row (1-based) assigned to col; 0 = none
    way = [0] * (m + 1)
    for row in range(1, n + 1):
        p[0] = row
        col0 = 0
        minv = [inf] * (m + 1)
        used = [False] * (m + 1)
        while True:
            used[col0] = True
            r0 = p[col0]
            crow = cost[r0 - 1]
            ur0 = u[r0]
            delta = inf
            col1 = 0
            for col in range(1, m + 1):
                if not used[col]:
                    cur = crow[col - 1] - ur0 - v[col]
                    if cur < minv[col]:
                        minv[col] = cur
                        way[col] = col0
                    if minv[col] < delta:
                        delta = minv[col]
                        col1 = col
            for col in range(m + 1):
                if used[col]:
                    u[p[col]] += delta
                    v[col] -= delta
                else:
                    minv[col] -= delta
            col0 = col1
            if p[col0] == 0:
                break
        while col0:
            col1 = way[col0]
            p[col0] = p[col1]
            col0 = col1
    return sorted((p[col] - 1, col - 1) for col in range(1, m + 1) if p[col])


def weighted_lcs(rows: int, cols: int, value: Callable[[int, int], float | None]) -> list[tuple[int, int]]:
    """Pairs ``(row, col)`` increasing in both, of the largest total ``value``: a weighted longest common subsequence.

    ``value(row, col)`` is a pair's weight, or ``None`` when the two cannot pair. Dynamic programming over
    the ``rows x cols`` table: O(rows·cols) time and memory, each ``value`` asked once. Among equal totals
    the traceback (from the end) keeps a pair first, then drops a row, then a column, so it is deterministic.

    >>> weighted_lcs(2, 2, lambda i, j: 1.0)
    [(0, 0), (1, 1)]
    >>> weighted_lcs(2, 2, lambda i, j: {(0, 1): 5.0, (1, 0): 1.0, (1, 1): 1.0}.get((i, j)))
    [(0, 1)]
    """
    best = [[0.0] * (cols + 1) for _ in range(rows + 1)]
    step = [bytearray(cols + 1) for _ in range(rows + 1)]  # 1: pair, 2: drop the row, 3: drop the column
    for i in range(1, rows + 1):
        above, here, moves = best[i - 1], best[i], step[i]
        for j in range(1, cols + 1):
            v = value(i - 1, j - 1)
            take = above[j - 1] + v if v is not None else None
            drop_row, drop_col = above[j], here[j - 1]
            if take is not None and take >= drop_row and take >= drop_col:
                here[j], moves[j] = take, 1
            elif drop_row >= drop_col:
                here[j], moves[j] = drop_row, 2
            else:
                here[j], moves[j] = drop_col, 3
    pairs = []
    i, j = rows, cols
    while i and j:
        move = step[i][j]
        if move == 1:
            pairs.append((i - 1, j - 1))
            i, j = i - 1, j - 1
        elif move == 2:
            i -= 1
        else:
            j -= 1
    return pairs[::-1]


class OrderTooComplex(ValueError):
    """The order constraints of one episode need more search than :data:`ek.limits.ORDER_MAX_NODES` (nodes)
    or :data:`ek.limits.ORDER_MAX_WORK` (assignment work) allows."""


Edge = tuple[int, int]


class _Blocks:
    """The candidate pairs split into connected blocks (in the scorer, one block per tool), each solved alone."""

    def __init__(self, values: Mapping[Edge, float]) -> None:
        parent: dict[Any, Any] = {}

        def root(x: Any) -> Any:
            while parent.setdefault(x, x) != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for i, j in values:
            a, b = root(("r", i)), root(("c", j))
            if a != b:
                parent[max(a, b)] = min(a, b)
        members: dict[Any, list[Edge]] = {}
        for edge in sorted(values):
            members.setdefault(root(("r", edge[0])), []).append(edge)
        self.edges = [members[k] for k in sorted(members)]
        self.block_of = {e: b for b, edges in enumerate(self.edges) for e in edges}
        self.values = values
        self._memo: dict[tuple[int, frozenset[Edge]], tuple[float, tuple[Edge, ...]]] = {}
        self.work = 0  # sum of k²·l over the assignments solved

    def solve(self, block: int, closed: frozenset[Edge]) -> tuple[float, tuple[Edge, ...]]:
        """Best matching of one block without the ``closed`` edges (those of the block only): total and pairs."""
        key = (block, closed)
        hit = self._memo.get(key)
        if hit is not None:
            return hit
        edges = [e for e in self.edges[block] if e not in closed]
        rows = sorted({i for i, _ in edges})
        cols = sorted({j for _, j in edges})
        at_row = {i: r for r, i in enumerate(rows)}
        at_col = {j: c for c, j in enumerate(cols)}
        self.work += min(len(rows), len(cols)) ** 2 * max(len(rows), len(cols))
        scores = [[0.0] * len(cols) for _ in rows]
        for i, j in edges:
            scores[at_row[i]][at_col[j]] = self.values[(i, j)]
        picked = tuple((rows[r], cols[c]) for r, c in max_weight_assignment(scores) if scores[r][c] > 0)
        result = (sum(self.values[e] for e in picked), picked)
        self._memo[key] = result
        return result


def ordered_assignment(
    values: Mapping[Edge, float],
    before: Sequence[Set[int]],
    max_nodes: int = ORDER_MAX_NODES,
    max_work: int = ORDER_MAX_WORK,
) -> list[Edge]:
    """Pairs ``(row, col)`` of the largest total ``value`` in which rows (a sequence) respect a partial order on cols.

    ``values[(row, col)] > 0`` is a candidate pair's weight; ``before[col]`` is every col that must come
    before ``col`` (transitively closed). Two kept pairs ``(r, a)``, ``(s, b)`` with ``a`` in ``before[b]``
    need ``r < s``. Cols nobody orders are a free multiset.

    Exact, by branch and bound: the bound is the unordered optimum (:func:`max_weight_assignment`,
    solved per connected block of candidate pairs and cached); when it breaks a constraint, one pair of a
    broken constraint is branched on (kept, with every pair it conflicts with removed; or removed), the
    kept branch first. Subtrees whose bound cannot beat the best found are cut. At most ``max_nodes``
    nodes, each one block's assignment (O(k²·l) for a block of k rows and l cols) and an O(p²) scan of
    its p pairs, and at most ``max_work`` for the sum of those k²·l; past either :class:`OrderTooComplex`
    is raised: never a greedy answer. Deterministic:
    branching and ties follow indices.

    >>> before = [frozenset(), frozenset({0})]        # col 1 must come after col 0
    >>> ordered_assignment({(0, 1): 3.0, (1, 0): 3.0, (0, 0): 2.0, (1, 1): 2.0}, before)
    [(0, 0), (1, 1)]
    >>> ordered_assignment({(0, 1): 3.0, (1, 0): 3.0, (0, 0): 1.0, (1, 1): 1.0}, before)
    [(0, 1)]
    """
    blocks = _Blocks(values)
    ordered = {j for j, b in enumerate(before) if b} | {k for b in before for k in b}

    def conflicts(e: Edge, f: Edge) -> bool:
        (r, a), (s, b) = e, f
        return (a in before[b] and r > s) or (b in before[a] and s > r)

    best_total, best_pairs = float("-inf"), ()
    stack: list[tuple[frozenset[Edge], frozenset[Edge]]] = [(frozenset(), frozenset())]  # (kept, closed)
    nodes = 0
    while stack:
        kept, closed = stack.pop()
        nodes += 1
        if nodes > max_nodes or blocks.work > max_work:
            what = (f"{max_nodes} search nodes; ek.limits.ORDER_MAX_NODES" if nodes > max_nodes
                    else f"{max_work:,} steps of assignment work; ek.limits.ORDER_MAX_WORK")
            raise OrderTooComplex(f"the order constraints are too entangled to score exactly (more than {what})")
        used_rows = {i for i, _ in kept}
        used_cols = {j for _, j in kept}
        total = sum(values[e] for e in kept)
        pairs = list(kept)
        for block, edges in enumerate(blocks.edges):
            shut = frozenset(e for e in edges if e in closed or e[0] in used_rows or e[1] in used_cols)
            value, picked = blocks.solve(block, shut)
            total += value
            pairs.extend(picked)
        if total <= best_total:
            continue
        loose = sorted(e for e in pairs if e[1] in ordered and e not in kept)
        tight = sorted(e for e in pairs if e[1] in ordered)
        clash = next(((e, f) for e in loose for f in tight if f != e and conflicts(e, f)), None)
        if clash is None:
            best_total, best_pairs = total, tuple(pairs)
            continue
        edge = clash[0]
        stack.append((kept, closed | {edge}))
        others = frozenset(f for f in values if f not in kept and conflicts(edge, f))
        stack.append((kept | {edge}, closed | others))
    return sorted(best_pairs)
