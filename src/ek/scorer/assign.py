"""Which predicted call stands for which gold call: every assignment algorithm of ek, in one place.

Three questions, each answered once here and used by the scorer, the
multiset comparison of ``unordered`` lists and the BFCL checker alike:

- :func:`max_matching`: is there a complete pairing under a yes/no relation?
  (Kuhn's augmenting paths, iterative; edges asked for lazily, once each).
- :func:`greedy_assignment`: best-first over ranked pairs, exact pairs grown to
  a maximum matching so an exact pair is never lost to another exact pair.
- :func:`max_weight_assignment`: the exact optimum (Hungarian method).

Every function is deterministic: ties resolve towards lower indices or the
caller's tie-break keys, never towards hash or input order by accident.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import Any

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
