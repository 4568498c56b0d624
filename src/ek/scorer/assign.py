"""Which predicted call stands for which gold call: every assignment algorithm of ek, in one place.

Three questions, each answered once here and used by the scorer, the
multiset comparison of ``unordered`` lists and the BFCL checker alike:

- :func:`max_matching`: is there a complete pairing under a yes/no relation?
  (Kuhn's augmenting paths, iterative; edges asked for lazily, once each).
- :func:`greedy_assignment`: best-first over ranked pairs, exact pairs grown to
  a maximum matching so an exact pair is never lost to another exact pair.
- :func:`max_weight_assignment`: the exact optimum, the lexicographically smallest among ties (SciPy when
  installed and the table is large, proved optimal exactly; else ek's own Hungarian method).
- :func:`weighted_lcs`: the exact optimum when both sides are sequences (``order="strict"``).
- :func:`ordered_assignment`: the exact optimum when gold calls are partially ordered
  (``order="gold"``): branch and bound over :func:`max_weight_assignment`.

Every function is deterministic: ties resolve towards lower indices or the
caller's tie-break keys, never towards hash or input order by accident.
"""

from __future__ import annotations

import bisect
import math
import numbers
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from functools import reduce
from heapq import heappop, heappush
from itertools import compress, repeat
from operator import add, itemgetter, lt, mul, or_, rshift, sub
from typing import Any

from ek.calls import Precedence
from ek.extras import import_failure
from ek.limits import ORDER_MAX_NODES, ORDER_MAX_WORK

Neighbours = Callable[[int], Iterable[int]]
Edge = tuple[int, int]


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


def max_matching(left_size: int, right_size: int, fits: Callable[[int, int], bool], *,
                 any_order: bool = False) -> list[int | None]:
    """For each left node, its right node (``None``: unmatched) in a maximum matching.

    Left nodes are taken in order (Kuhn's), each matched when an alternating path reaches a free right
    node, and never unmatched after; so a left node is left unmatched exactly when it and the left nodes
    before it cannot all be matched, whichever paths are taken (given a matching of a set S of left nodes,
    a path from k exists iff S and k can all be matched: a property of S, not of the matching).

    ``fits(left, right)`` is asked lazily and at most once per pair, so when the
    first fitting right node is free this costs what first-fit costs. With ``any_order`` (``fits`` is pure
    and may be asked about any pair, in any order, as it cannot raise), each left node's fitting right nodes
    are listed once and a free one is taken before any path is searched: many interchangeable nodes, most of
    whose fitting rights are taken, then cost a scan each, where searching paths through the owners of
    those rights costs the cube of the size. The same left nodes are matched; the right nodes they get may
    differ.

    >>> edges = {(0, 0), (0, 1), (1, 0)}
    >>> max_matching(2, 2, lambda i, j: (i, j) in edges)   # first-fit would strand left 1
    [1, 0]
    >>> max_matching(3, 2, lambda i, j: (i, j) in edges | {(2, 1)}, any_order=True)  # left 2 takes none
    [1, 0, None]
    """
    if any_order:
        return _listed_matching(left_size, right_size, fits)
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


def _listed_matching(left_size: int, right_size: int, fits: Callable[[int, int], bool]) -> list[int | None]:
    """:func:`max_matching` with ``any_order``: each left node's fitting right nodes listed once, a free one
    taken first, else an alternating path searched (:func:`augment`) over the lists."""
    adjacency: list[list[int] | None] = [None] * left_size

    def listed(left: int) -> list[int]:
        rights = adjacency[left]
        if rights is None:
            rights = adjacency[left] = [right for right in range(right_size) if fits(left, right)]
        return rights

    match_left: dict[int, int] = {}
    match_right: dict[int, int] = {}
    for left in range(left_size):
        for right in listed(left):
            if right not in match_right:
                match_left[left], match_right[right] = right, left
                break
        else:
            augment(left, listed, match_left, match_right)
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


#: Which solver finds an optimum: ``"auto"`` (SciPy for large tables when it is installed, else ek's own),
#: ``"python"`` (ek's own Hungarian method) or ``"scipy"`` (SciPy; ImportError when it is missing).
BACKENDS = ("auto", "python", "scipy")

#: Tables with fewer cells than this are solved by ek's own solver even when SciPy is installed: importing
#: SciPy and converting to arrays costs more than the whole solve at this size.
SCIPY_MIN_CELLS = 2_500


def max_weight_assignment(scores: Sequence[Sequence[Any]], *, backend: str = "auto") -> list[tuple[int, int]]:
    """Rows assigned to distinct columns maximising the total score (every row or every column used).

    Exact: scores are ints, floats, Fractions or Decimals, taken at their exact values (a float is
    the dyadic fraction it stores), so no rounding can pick a worse assignment or break a tie.

    Canonical among equal totals: of all optimal assignments, the one whose partner list of the
    shorter side (the column of row 0, of row 1, ...; columns when there are more rows than columns)
    is lexicographically smallest. The answer is a function of the table alone, whatever the
    solver (:data:`BACKENDS`): SciPy's ``linear_sum_assignment`` when installed (the ``fast`` extra)
    and the table has :data:`SCIPY_MIN_CELLS` cells or more, else ek's own Hungarian method,
    O(n^2 m). See :func:`_canonical`.

    >>> max_weight_assignment([[3, 1], [3, 2]])
    [(0, 0), (1, 1)]
    >>> max_weight_assignment([[1, 5, 1]])
    [(0, 1)]
    >>> max_weight_assignment([[1, 1], [1, 1]])   # a tie: row 0 takes the lowest column it can
    [(0, 0), (1, 1)]
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    n = len(scores)
    m = len(scores[0]) if n else 0
    for r, row in enumerate(scores):
        if len(row) != m:
            raise ValueError(f"scores must be a rectangular table: row {r} has {len(row)} cells, row 0 has {m}")
    if n == 0 or m == 0:
        return []
    flip = n > m
    optimum = None
    if backend == "scipy" and _scipy() is None:
        hint = "backend='scipy' needs SciPy: pip install 'ek[fast]'"
        raise ImportError(import_failure(_SCIPY_FAILURE[-1], "scipy", hint) if _SCIPY_FAILURE else hint)
    if backend == "scipy" or (backend == "auto" and n * m >= SCIPY_MIN_CELLS and _scipy() is not None):
        optimum = _solve_scipy(scores, flip)
    if optimum is None:
        optimum = _solve_python(scores, flip)
    match = _canonical(optimum)
    if flip:
        return sorted((r, c) for c, r in enumerate(match))
    return list(enumerate(match))


def _scipy() -> Any:
    """``(numpy, scipy.optimize.linear_sum_assignment)``, or None when SciPy is not installed.

    Imported on first use only: ``import ek`` must not pay for SciPy."""
    global _SCIPY
    if _SCIPY is False:
        try:
            # SciPy first (not in isort's order): without it, the error names SciPy, not NumPy (SciPy's own)
            from scipy.optimize import linear_sum_assignment  # noqa: I001
            import numpy
        except ImportError as exc:
            _SCIPY = None
            _SCIPY_FAILURE.append(exc)
        else:
            _SCIPY = (numpy, linear_sum_assignment)
    return _SCIPY


_SCIPY: Any = False  # not looked for yet
#: why SciPy could not be imported (when _SCIPY is None): for the message of backend="scipy"
_SCIPY_FAILURE: list[ImportError] = []


class _Optimum:
    """One optimal assignment of a min-cost table (``n <= m``) with optimal dual potentials, seen through
    what :func:`_canonical` needs: each row's column, which cells are tight (reduced cost zero), and which
    columns have potential zero (only those may be left free by an optimal assignment)."""

    def __init__(self, n: int, m: int, match: list[int], zero_v: list[bool],
                 tight_cols: Callable[[int], list[int]], tight_rows: Callable[[int], list[int]]) -> None:
        self.n, self.m, self.match, self.zero_v = n, m, match, zero_v
        self._cols, self._rows = tight_cols, tight_rows
        self._cols_memo: dict[int, list[int]] = {}
        self._rows_memo: dict[int, list[int]] = {}
        self._col_sets: dict[int, frozenset[int]] = {}

    def tight_cols(self, row: int) -> list[int]:
        """The columns tight for ``row``, ascending."""
        hit = self._cols_memo.get(row)
        if hit is None:
            hit = self._cols_memo[row] = self._cols(row)
        return hit

    def tight_col_set(self, row: int) -> frozenset[int]:
        """The columns tight for ``row``, as a set."""
        hit = self._col_sets.get(row)
        if hit is None:
            hit = self._col_sets[row] = frozenset(self.tight_cols(row))
        return hit

    def tight_rows(self, col: int) -> list[int]:
        """The rows tight for ``col``, ascending."""
        hit = self._rows_memo.get(col)
        if hit is None:
            hit = self._rows_memo[col] = self._rows(col)
        return hit


def _ratio(x: Any, r: int, c: int) -> tuple[int, int]:
    """``x`` as an exact fraction (numerator, denominator); a clear error for what is not a finite number."""
    if isinstance(x, int):
        return int(x), 1
    if isinstance(x, numbers.Rational):
        return int(x.numerator), int(x.denominator)
    as_ratio = getattr(x, "as_integer_ratio", None)
    if as_ratio is None or isinstance(x, (str, bytes)):
        raise TypeError(f"score at row {r}, column {c} is not a number: {type(x).__name__}")
    try:
        num, den = as_ratio()
    except (ValueError, OverflowError):
        raise ValueError(f"score at row {r}, column {c} is not finite: {x!r}") from None
    return int(num), int(den)


def _exact_costs(scores: Sequence[Sequence[Any]], flip: bool, times: int = 1) -> list[list[int]]:
    """The min-cost table as integers: minus each score times the least common denominator, times ``times``
    (transposed if ``flip``).

    A table of a few distinct scores (a scorer's) converts each of them once: 1,000 x 1,000 cells of three
    scores took 1 s one by one, 0.05 s so. A table of many distinct floats, or of ints, is converted row by row
    in C (:func:`_float_costs`; 1.5 s one by one for a million random floats, 0.3 s so). A table with something
    that is not a finite number is read cell by cell, for the error that names its row and column."""
    costs = None
    ratios = _distinct_ratios(scores)
    if ratios is not None:  # equal scores are equal numbers (Python compares ints, floats, Fractions and Decimals exactly)
        scale = math.lcm(*{den for _, den in ratios.values()}) * times
        cost_of = {x: -(num * (scale // den)) for x, (num, den) in ratios.items()}
        costs = [list(map(cost_of.__getitem__, row)) for row in scores]
    else:
        types = set().union(*(map(type, row) for row in scores))
        if types <= {int, bool}:
            costs = [list(map(mul, row, repeat(-times))) for row in scores]
        elif types == {float}:
            costs = _float_costs(scores, times)
    if costs is None:
        cells = [[_ratio(x, r, c) for c, x in enumerate(row)] for r, row in enumerate(scores)]
        scale = math.lcm(*{den for row in cells for _, den in row}) * times
        costs = [[-(num * (scale // den)) for num, den in row] for row in cells]
    return [list(col) for col in zip(*costs)] if flip else costs


def _distinct_ratios(scores: Sequence[Sequence[Any]]) -> dict[Any, tuple[int, int]] | None:
    """Each distinct score as an exact fraction, when the table holds few of them (at least
    :data:`_DISTINCT_SHARE` cells each); else None (also when one is not a finite number: the caller names the cell).

    The distinct scores are gathered row by row and given up on as soon as there are too many: a table of a
    million distinct floats spent 0.3 s building the whole set for nothing."""
    limit = len(scores) * len(scores[0]) // _DISTINCT_SHARE
    distinct: set[Any] = set()
    try:
        for row in scores:
            distinct.update(row)
            if len(distinct) > limit:
                return None
    except TypeError:  # not hashable: not a number either
        return None
    try:
        return {x: _ratio(x, 0, 0) for x in distinct}
    except (TypeError, ValueError):
        return None


def _float_costs(scores: Sequence[Sequence[float]], times: int) -> list[list[int]] | None:
    """:func:`_exact_costs` of a table of floats, each row in C, or None when a float is not finite or the
    table's range is too wide for float scaling (then the caller converts cell by cell).

    A finite float is an integer times its ulp, so every float of the table times ``2**k`` is an integer once
    ``2**-k`` is at most the ulp of the smallest nonzero magnitude; scaling by a power of two is exact
    (``math.ldexp``, unless it overflows). The common factors of two left over are then divided out, so that
    the integers are those of the least common denominator, as for any other table."""
    if not all(all(map(math.isfinite, row)) for row in scores):
        return None
    smallest = min((min(filter(None, map(abs, row)), default=math.inf) for row in scores), default=math.inf)
    if smallest == math.inf:  # every score is zero
        return [[0] * len(row) for row in scores]
    k = max(0, 1 - math.frexp(math.ulp(smallest))[1])
    try:
        scaled = [list(map(int, map(math.ldexp, row, repeat(k)))) for row in scores]
    except OverflowError:
        return None
    bits = reduce(or_, (reduce(or_, row) for row in scaled))
    spare = min(k, (bits & -bits).bit_length() - 1)  # factors of two every integer has: the scale was too large
    if spare:
        return [list(map(mul, map(rshift, row, repeat(spare)), repeat(-times))) for row in scaled]
    return [list(map(mul, row, repeat(-times))) for row in scaled]


#: A table converts its distinct scores once when it has at least this many cells per distinct score (else
#: the set and the mapping cost more than they save).
_DISTINCT_SHARE = 8


def _solve_python(scores: Sequence[Sequence[Any]], flip: bool) -> _Optimum:
    """ek's own solver, in exact integers: shortest augmenting paths with potentials (the Hungarian method, as
    SciPy's ``linear_sum_assignment`` runs it), O(n^2 m) at worst.

    Each row starts at its cheapest cost as potential and takes the lowest free column at that cost, if one is
    free (on a scorer's table of a few distinct scores, most rows do). Each row left is then added along a
    shortest augmenting path: by :func:`_add_row_near` when rows hold mostly distinct costs (random scores: a
    search there reaches most rows, each again in search after search, and needs only each row's few cheapest
    columns), else by :func:`_add_row`, which reads whole rows; also once :func:`_add_row_near` has had to read
    a quarter of its rows whole (``i * j``: every row's cheapest columns are the same few).
    Invariants (what :func:`_canonical` needs): reduced costs ``cost - u - v`` are never negative, assigned
    cells have zero, ``v <= 0``, and a free column has ``v == 0``.

    Costs and potentials are held times ``2 * (n + 1)``, so that below that unit a search's
    distance can carry whether a column is free and which row reached it (:func:`_add_row`).
    """
    n = min(len(scores), len(scores[0]))
    rank_unit = n + 1  # more than any rank of a row in a search
    cost = _exact_costs(scores, flip, 2 * rank_unit)
    m = len(cost[0])
    u = [min(row) for row in cost]
    v = [0] * m
    col_of = [-1] * n
    row_of = [-1] * m
    for r in range(n):  # the lowest free column at the row's cheapest cost, if one is free: no search needed
        crow, low = cost[r], u[r]
        c = crow.index(low)
        while row_of[c] >= 0:
            try:
                c = crow.index(low, c + 1)
            except ValueError:
                break
        else:
            col_of[r], row_of[c] = c, r
    # rows of mostly distinct costs (not a scorer's few scores, where a row's cheapest columns tie by the hundred)
    untied = m > _NEAR and len(set(cost[0])) * 2 > m
    near: list[tuple[list[int], list[int], int] | None] | None = [None] * n if untied else None
    col_term: list[int] | None = None
    rows_read = rows_whole = 0
    for root in range(n):
        if col_of[root] >= 0:
            continue
        if near is not None and rows_whole * 4 <= rows_read + 8:  # few rows read whole: the lists pay
            read, whole = _add_row_near(root, cost, u, v, col_of, row_of, near)
            rows_read, rows_whole = rows_read + read, rows_whole + whole
            continue
        near = None  # from here on, every search reads whole rows (as a row's list would, most of the time)
        if col_term is None:
            col_term = [x - rank_unit if row_of[c] >= 0 else x for c, x in enumerate(v)]  # v, less the unit if taken
        _add_row(root, cost, u, v, col_term, col_of, row_of, rank_unit)
    pot_u, pot_v = u, v

    def tight_cols(r: int) -> list[int]:
        crow, ur = cost[r], pot_u[r]
        return [c for c in range(m) if crow[c] - ur == pot_v[c]]

    def tight_rows(c: int) -> list[int]:
        vc = pot_v[c]
        return [r for r in range(n) if cost[r][c] - pot_u[r] == vc]

    return _Optimum(n, m, col_of, [x == 0 for x in pot_v], tight_cols, tight_rows)


def _add_row(root: int, cost: list[list[int]], u: list[int], v: list[int], col_term: list[int], col_of: list[int],
             row_of: list[int], rank_unit: int) -> None:
    """Assign the free row ``root`` along a shortest augmenting path, then move the potentials of the rows and
    columns the search reached so that the invariants of :func:`_solve_python` hold again.

    Dijkstra's search over reduced costs (never negative) from ``root``, the potentials held until it ends. Each
    step reads one row in C (``map`` over it; the textbook loop, column by column in Python, also moved every
    potential at every step). A column's key is its distance (a multiple of ``2 * rank_unit``), plus
    ``rank_unit`` if it is taken, plus the rank of the row that reached it first at that distance: so the
    least key is the nearest column, a free one first (where a taken one would only lead on, on tied tables),
    and says where the path came from. A long search drops the columns it has reached from the lists it reads
    (an eighth of them reached: about what one step's reading then wastes).
    """
    unit = 2 * rank_unit
    ur = u[root]
    keys = list(map(sub, map(sub, cost[root], col_term), repeat(ur)))
    done = max(keys) + 1  # above every key still to come: marks the columns reached
    cols: list[int] | None = None  # the columns the lists hold (None: all, in order)
    term = list(col_term)  # col_term less ``done`` at the columns reached: their keys never come below it
    pick: Callable[[list[int]], Sequence[int]] | None = None  # a row's costs at ``cols``
    marked = 0  # columns reached still in the lists
    rows_reached = [(root, 0)]  # (row, its distance), by rank
    cols_reached: dict[int, tuple[int, int]] = {}  # col -> (its distance, the rank of the row it came from)
    while True:
        low = min(keys)
        at = keys.index(low)
        col = at if cols is None else cols[at]
        dist = low - low % unit
        cols_reached[col] = (dist, low % rank_unit)
        row = row_of[col]
        if row < 0:
            break
        keys[at] = done
        term[at] -= done
        marked += 1
        if marked * 8 > len(keys) and len(keys) > 64:
            live = [k != done for k in keys]
            cols = list(compress(range(len(keys)) if cols is None else cols, live))
            keys, term = list(compress(keys, live)), list(compress(term, live))
            pick, marked = itemgetter(*cols), 0
        step = dist - u[row] + len(rows_reached)
        rows_reached.append((row, dist))
        crow = cost[row] if pick is None else pick(cost[row])
        keys = [k if k < c else c for k, c in zip(keys, map(add, map(sub, crow, term), repeat(step)))]
    while True:  # back along the path, each row taking the column it reached
        row = rows_reached[cols_reached[col][1]][0]
        before = col_of[row]
        col_of[row], row_of[col] = col, row
        if row == root:
            break
        col = before
    for r, d in rows_reached:
        u[r] += dist - d
    for c, (d, _rank) in cols_reached.items():
        v[c] -= dist - d
        col_term[c] = v[c] - rank_unit  # taken now, the sink too


#: Columns a row lists for :func:`_add_row_near`: its cheapest (cost less ``v``) when it is first read.
_NEAR = 16


def _listed(row: int, cost: list[list[int]], v: list[int]) -> tuple[list[int], list[int], int]:
    """The columns ``row`` lists (its :data:`_NEAR` cheapest, cost less ``v``, or fewer on a tie), their costs,
    and the least cost less ``v`` of the columns it does not list: a floor that holds from then on, as ``v``
    only falls."""
    crow = cost[row]
    reduced = list(map(sub, crow, v))
    floor = sorted(reduced)[_NEAR]
    cols = list(compress(range(len(v)), map(lt, reduced, repeat(floor))))
    return cols, [crow[c] for c in cols], floor


def _add_row_near(root: int, cost: list[list[int]], u: list[int], v: list[int], col_of: list[int],
                  row_of: list[int], near: list[tuple[list[int], list[int], int] | None]) -> tuple[int, int]:
    """:func:`_add_row` reading only each row's cheapest columns (``near[row]``, :func:`_listed`), for tables
    of many distinct scores, where a search reads most rows, each again in search after search.

    The same search, exactly: a row's unlisted columns are all at least its floor away, so a row is read
    whole (and listed anew) only when that floor comes nearer than the next column the search would reach.
    Keys sit in a heap, a free column before a taken one at the same distance.
    """
    best: dict[int, int] = {}  # col -> its least key so far; -1 once reached
    heap: list[tuple[int, bool, int, int]] = []  # (key, taken, col, the row that reached it)
    floors: list[tuple[int, int, int]] = []  # (least key a row's unlisted columns can give, row, its distance)
    rows_reached = {root: 0}
    cols_reached: dict[int, tuple[int, int]] = {}  # col -> (its distance, the row it came from)

    def push(row: int, cols: Iterable[int], keys: Iterable[int]) -> None:
        for c, key in zip(cols, keys):
            was = best.get(c)
            if was is None or key < was:
                best[c] = key
                heappush(heap, (key, row_of[c] >= 0, c, row))

    def scan(row: int, dist: int) -> None:
        listed = near[row]
        if listed is None:
            listed = near[row] = _listed(row, cost, v)
        cols, costs, floor = listed
        base = dist - u[row]
        push(row, cols, [w - v[c] + base for c, w in zip(cols, costs)])
        heappush(floors, (floor + base, row, dist))

    scan(root, 0)
    whole = 0
    while True:
        if floors and (not heap or floors[0][0] < heap[0][0]):  # an unlisted column may be nearer: read it whole
            _, row, dist = heappop(floors)
            whole += 1
            push(row, range(len(v)), map(add, map(sub, cost[row], v), repeat(dist - u[row])))
            near[row] = _listed(row, cost, v)
            continue
        key, _taken, col, row = heappop(heap)
        if best[col] != key:
            continue  # a stale entry: the col was reached, or got nearer
        best[col] = -1
        cols_reached[col] = (key, row)
        owner = row_of[col]
        if owner < 0:
            break
        rows_reached[owner] = key
        scan(owner, key)
    dist = key
    while True:  # back along the path, each row taking the column it reached
        row = cols_reached[col][1]
        before = col_of[row]
        col_of[row], row_of[col] = col, row
        if row == root:
            break
        col = before
    for r, d in rows_reached.items():
        u[r] += dist - d
    for c, (d, _row) in cols_reached.items():
        v[c] -= dist - d
    return len(rows_reached), whole


def _solve_scipy(scores: Sequence[Sequence[Any]], flip: bool) -> _Optimum | None:
    """SciPy finds an optimal assignment; ek proves it optimal in exact arithmetic and finds its potentials.

    The scores are scaled to integers exactly (floats by a power of two). When those stay small enough that
    float64 holds every sum exactly, the proof runs in float64; otherwise in int64 within its exact range,
    else in Python integers (numpy object arrays), and SciPy sees the scores as floats. The potentials are shortest-path distances over "row r
    leaves its column for column c" moves, by Bellman-Ford: they exist exactly when no cycle of moves
    gains, that is when the assignment is optimal. None (use ek's own solver) when the table is not plain
    numbers, or the proof fails (SciPy's floats rounded a difference away).
    """
    np, linear_sum_assignment = _scipy()
    try:
        table = np.array(scores)
    except (ValueError, TypeError, OverflowError):
        return None
    if table.ndim != 2 or table.dtype.kind not in "biuf":
        return None  # Fractions, Decimals, huge ints, not numbers: ek's own exact solver (or its clear error)
    if table.dtype.kind == "f" and not np.isfinite(table).all():
        return None
    exact = _integer_table(np, table)
    costs = -(exact.T if flip else exact)
    n, m = costs.shape
    # SciPy sees floats: the scaled table when that is exact, else the scores themselves (scaling changes no answer)
    approx = costs if costs.dtype.kind == "f" else -(table.T if flip else table).astype(np.float64)
    try:
        rows, match = linear_sum_assignment(approx)
    except ValueError:  # sums past float64's range look infeasible to SciPy: ek's own solver has no range
        return None
    return _certify(np, costs, [int(c) for c in match])


#: Scaled integer tables below this magnitude are proved in int64 (see :func:`_certify` for the rounds that keeps
#: exact); larger ones in Python integers.
_INT64_MAX_ENTRY = 2 ** 58


def _integer_table(np: Any, table: Any) -> Any:
    """``table`` times the smallest power of two that makes every entry an integer: float64 when every sum the
    proof forms stays below 2**53 (so float64 is exact), int64 below :data:`_INT64_MAX_ENTRY`, else an object
    array of Python integers."""
    n, m = table.shape
    headroom = 2 ** 53 // (2 * (n + m) + 4)
    if table.dtype.kind in "bui":
        ints = table.astype(np.int64) if table.dtype.kind == "b" else table
        biggest_int = int(np.abs(ints).max())
        if biggest_int < headroom:
            return ints.astype(np.float64)
        if biggest_int < _INT64_MAX_ENTRY:
            return ints.astype(np.int64)
        return np.array([[int(x) for x in row] for row in ints.tolist()], dtype=object)
    biggest = float(np.abs(table).max())
    if biggest < headroom and (np.floor(table) == table).all():
        return table  # whole numbers already: the usual table of a scorer
    mantissa, exponent = np.frexp(table)  # table = mantissa * 2**exponent, 0.5 <= |mantissa| < 1
    odd = np.ldexp(mantissa, 53).astype(np.int64)  # table = odd * 2**(exponent - 53), exactly
    zero = odd == 0
    lowest = np.where(zero, 1, odd & -odd)  # the lowest set bit of each mantissa
    shift = np.where(zero, 0, exponent - 53 + np.log2(lowest.astype(np.float64)).astype(np.int64))
    scale = max(0, -int(shift.min()))
    try:
        scaled_biggest = math.ldexp(biggest, scale)
    except OverflowError:  # tiny and huge floats together: past float64's range once scaled
        scaled_biggest = math.inf
    if scaled_biggest < headroom:
        return np.ldexp(table, scale)
    if scaled_biggest < _INT64_MAX_ENTRY:
        return np.ldexp(table, scale).astype(np.int64)  # scaling by a power of two is exact; so is this cast
    # Python integers, made once per distinct score (a scorer's table holds a handful) and spread by index
    values, where = np.unique(table, return_inverse=True)
    exact = np.array([(num << scale) // den for num, den in map(float.as_integer_ratio, values.tolist())], dtype=object)
    return exact[where.reshape(table.shape)]


def _certify(np: Any, costs: Any, match: list[int]) -> _Optimum | None:
    """Potentials proving ``match`` optimal for the min-cost table ``costs``, exactly, or None when it is not.

    ``v[c]`` is the cheapest chain of moves (row r leaves its column for c at cost costs[r, c] - costs[r, own])
    ending in c, from any start (Bellman-Ford, re-relaxing only rows whose column got cheaper). A chain ending
    at a free column must not gain; a cycle of moves that gains never settles (at most n + 1 rounds).

    In int64, k rounds keep every value within 2 * (biggest entry + (k + 1) * spread of the entries), so the
    rounds stop before that could pass 2**63 and the proof goes on in Python integers if it has not settled.
    """
    n, m = costs.shape
    rounds = n + 2
    if costs.dtype == np.int64:
        biggest, spread = int(np.abs(costs).max()), int(costs.max()) - int(costs.min())
        rounds = min(rounds, (2 ** 63 - 1 - 2 * biggest) // (2 * spread + 2) - 1)
    rows = np.arange(n)
    cols = np.array(match)
    own = costs[rows, cols]
    moves = costs - own[:, None]
    v = np.zeros(m, dtype=costs.dtype)
    active = rows
    for _ in range(max(rounds, 0)):
        if not len(active):
            break
        reach = (moves[active] + v[cols[active]][:, None]).min(axis=0)
        better = reach < v
        if not better.any():
            break
        v = np.where(better, reach, v)
        active = np.flatnonzero(better[cols])
    else:
        if costs.dtype == np.int64:
            return _certify(np, costs.astype(object), match)  # not settled within int64's exact range
        return None
    free = np.ones(m, dtype=bool)
    free[cols] = False
    if (v[free] < 0).any():
        return None  # a chain of moves ending at a free column gains: not optimal
    u = own - v[cols]
    tight = np.asarray((costs - u[:, None] - v[None, :]) == 0, dtype=bool)
    tight_t = tight.T.copy()
    return _Optimum(n, m, match, (v == 0).tolist(), lambda r: np.flatnonzero(tight[r]).tolist(),
                    lambda c: np.flatnonzero(tight_t[c]).tolist())


def _canonical(opt: _Optimum) -> list[int]:
    """The lexicographically smallest optimal assignment, from any optimal one and its potentials.

    An assignment is optimal exactly when it uses tight cells only and leaves free only columns of potential
    zero (complementary slackness; true for every optimal assignment against any optimal potentials). So row
    by row, from row 0: the row takes the lowest tight column it can, if a chain of moves over tight cells
    among the later rows gives up its current column (:func:`_chain`); earlier rows keep theirs. Each step
    keeps the assignment optimal, so the end is the smallest in order of all optimal ones.
    """
    match = list(opt.match)
    owner = [-1] * opt.m
    for r, c in enumerate(match):
        owner[c] = r
    fixed: set[int] = set()  # the columns of the rows done
    for r in range(opt.n):
        target = match[r]
        tight = opt.tight_cols(r)
        lower = [c for c in tight[: bisect.bisect_left(tight, target)] if c not in fixed]
        if lower:
            path = _chain(opt, r, lower, match, owner, fixed)
            if path is not None:
                _rotate(r, path, match, owner, opt.m)
        fixed.add(match[r])
    return match


def _chain(opt: _Optimum, r: int, candidates: list[int], match: list[int], owner: list[int],
           fixed: set[int]) -> list[int] | None:
    """The lowest of ``candidates`` row ``r`` can take, with the chain of moves that frees it up, or None.

    A path of columns ``c -> ... -> match[r]`` in which each column's owner moves on to the next column over a
    tight cell; ``FREE`` (numbered ``m``) stands for "a free column" in between: a chain may end on a free
    column (``x -> FREE``) and start by freeing a column of potential zero (``FREE -> y``). Only rows after
    ``r`` move. Searched from both ends (breadth first, the smaller frontier first); the backward search
    from ``match[r]`` is shared by the candidates, and a candidate whose forward search runs out takes every
    column it reached with it. Which path is found does not matter: only whether one exists, and that
    does not depend on the current assignment (any two optimal ones differ by such chains).
    """
    m, target = opt.m, match[r]
    free_node = m

    def forward(x: int) -> set[int]:
        if x == free_node:
            return {y for y in range(m) if owner[y] >= r and opt.zero_v[y]}
        q = owner[x]
        if q < 0:
            return {free_node}
        return opt.tight_col_set(q) - fixed

    def backward(y: int) -> set[int]:
        if y == free_node:
            return {x for x in range(m) if owner[x] < 0}
        rows = opt.tight_rows(y)
        out = set(map(match.__getitem__, rows[bisect.bisect_right(rows, r):]))  # rows after r move
        if owner[y] >= 0 and opt.zero_v[y]:
            out.add(free_node)
        return out

    behind: dict[int, int] = {target: -1}  # node -> the next node towards target
    behind_set = {target}
    back_frontier = [target]
    dead: set[int] = set()
    for start in candidates:
        if start in dead:
            continue
        if not back_frontier:  # everything that can reach target is known
            break
        ahead: dict[int, int] = {start: -1}  # node -> the node before it
        ahead_set = {start}
        frontier = [start]
        meet = start if start in behind_set else None
        while meet is None and frontier and back_frontier:
            if len(frontier) <= len(back_frontier):
                frontier, meet = _expand(frontier, forward, ahead, ahead_set, behind_set)
            else:
                back_frontier, meet = _expand(back_frontier, backward, behind, behind_set, ahead_set)
        if meet is not None:
            return _join(meet, ahead, behind)
        if not frontier:
            dead |= ahead_set
    if not back_frontier:
        reachable = [c for c in candidates if c in behind_set]
        return _join(reachable[0], {reachable[0]: -1}, behind) if reachable else None
    return None


def _expand(frontier: list[int], step: Callable[[int], set[int]], seen: dict[int, int], seen_set: set[int],
            other: set[int]) -> tuple[list[int], int | None]:
    """One breadth-first level: the new frontier, or a node the other side has seen (the meeting)."""
    nxt: list[int] = []
    for x in frontier:
        new = step(x) - seen_set
        if not new:
            continue
        hit = new & other
        if hit:
            y = min(hit)
            seen[y] = x
            return nxt, y
        seen_set |= new
        seen.update(dict.fromkeys(new, x))
        nxt.extend(sorted(new))
    return nxt, None


def _join(meet: int, ahead: dict[int, int], behind: dict[int, int]) -> list[int]:
    """The path start -> meet (from ``ahead``'s back links) -> target (from ``behind``'s forward links)."""
    path = []
    x = meet
    while x != -1:
        path.append(x)
        x = ahead[x]
    path.reverse()
    x = behind[meet]
    while x != -1:
        path.append(x)
        x = behind[x]
    return path


def _rotate(r: int, path: list[int], match: list[int], owner: list[int], m: int) -> None:
    """Row ``r`` takes ``path[0]``; along the path, each column's owner takes the next column."""
    moves = [(r, path[0])]
    moves += [(owner[a], b) for a, b in zip(path, path[1:]) if a != m and b != m and owner[a] >= 0]
    for q, _ in moves:
        owner[match[q]] = -1
    for q, col in moves:
        match[q] = col
        owner[col] = q


def weighted_lcs(rows: int, cols: int, values: Mapping[Edge, float]) -> list[Edge]:
    """Pairs ``(row, col)`` increasing in both, of the largest total ``value``: a weighted longest common subsequence.

    ``values[(row, col)]`` is a candidate pair's weight (``row < rows``, ``col < cols``); other pairs cannot pair.
    The answer is the one the textbook dynamic programme over the ``rows x cols`` table gives, tracing back from
    the end and keeping a pair first, then dropping a row, then a column among equal totals; but only the r
    candidates are visited: O(r log r) time and O(r) memory, where the table cost rows x cols whatever r (a
    correct 10,000-call sequence of distinct tools: 100 million cells, 40 s and 900 MB, for 10,000 candidates).

    Forward, each candidate's best total ending at it, ``F``, is its weight plus the best ``F`` above and to the
    left of it (a prefix maximum over columns, row by row). The traceback from a state (rows below ``i``,
    columns below ``j``) whose best total is ``T`` then goes, in the table, up column ``j`` while the total stays
    ``T`` and takes the first diagonal candidate of total ``T`` it meets, or else turns left at the lowest row
    holding such a candidate and takes that row's last one: :func:`_lcs_traceback`.

    >>> weighted_lcs(2, 2, {(0, 0): 1.0, (0, 1): 1.0, (1, 0): 1.0, (1, 1): 1.0})
    [(0, 0), (1, 1)]
    >>> weighted_lcs(2, 2, {(0, 1): 5.0, (1, 0): 1.0, (1, 1): 1.0})
    [(0, 1)]
    """
    if rows * cols <= _DENSE * len(values):
        return _lcs_table(rows, cols, values)
    # A pair of negative (or NaN) weight is never kept by the table, nor does it raise a total: left out.
    candidates = sorted((e, v) for e, v in values.items() if v >= 0)
    columns = sorted({j for (_i, j), _v in candidates})
    at = {j: x + 1 for x, j in enumerate(columns)}  # 1-based, for the Fenwick tree of prefix maxima
    size = len(columns)
    tree = [0.0] * (size + 1)
    prefix: dict[Edge, float] = {}  # each candidate's best total strictly above and left of it
    ends: dict[float, list[Edge]] = {}  # candidates by their F
    row: list[tuple[Edge, float]] = []

    def flush() -> None:
        for (i, j), v in row:  # a row's prefixes read before any of its F goes in
            x, best = at[j] - 1, 0.0
            while x:
                if tree[x] > best:
                    best = tree[x]
                x &= x - 1
            prefix[(i, j)] = best
        for (i, j), v in row:
            total = prefix[(i, j)] + v
            ends.setdefault(total, []).append((i, j))
            x = at[j]
            while x <= size:
                if tree[x] < total:
                    tree[x] = total
                x += x & -x
        row.clear()

    for e, v in candidates:
        if row and row[0][0][0] != e[0]:
            flush()
        row.append((e, v))
    flush()
    best = max(ends, default=0.0)
    return _lcs_traceback(rows, cols, max(best, 0.0), prefix, ends)


#: A table at most this many times larger than its candidates is read whole (:func:`_lcs_table`): a cell of it
#: costs 70 to 250 ns, a candidate visited alone about 1.5 µs (1,000 x 1,000 candidates: 0.25 s against 1.7 s;
#: one in ten of them: 0.08 s against 0.14 s). So at most 16 bytes of moves a candidate.
_DENSE = 16


def _lcs_table(rows: int, cols: int, values: Mapping[Edge, float]) -> list[Edge]:
    """:func:`weighted_lcs` by its dynamic programme over the whole table, row by row: the same answer, quicker
    when most cells are candidates. O(rows·cols) time, one byte a cell (the moves) and two rows of totals."""
    by_row: dict[int, list[tuple[int, float]]] = {}
    for (i, j), v in values.items():
        by_row.setdefault(i, []).append((j, v))
    above = [0.0] * (cols + 1)
    step = [bytearray(cols + 1)]  # 1: pair, 2: drop the row, 3: drop the column
    for i in range(rows):
        row: list[float | None] = [None] * (cols + 1)
        for j, v in by_row.get(i, ()):
            row[j + 1] = v
        here = [0.0] * (cols + 1)
        moves = bytearray(cols + 1)
        for j in range(1, cols + 1):
            v = row[j]
            take = above[j - 1] + v if v is not None else None
            drop_row, drop_col = above[j], here[j - 1]
            if take is not None and take >= drop_row and take >= drop_col:
                here[j], moves[j] = take, 1
            elif drop_row >= drop_col:
                here[j], moves[j] = drop_row, 2
            else:
                here[j], moves[j] = drop_col, 3
        step.append(moves)
        above = here
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


def _lcs_traceback(rows: int, cols: int, total: float, prefix: Mapping[Edge, float],
                   ends: Mapping[float, list[Edge]]) -> list[Edge]:
    """The textbook traceback of :func:`weighted_lcs`, candidate by candidate (``ends``: candidates by their best
    total ending at them, each list in increasing order; ``prefix``: each one's best total before it).

    From the state (``i``, ``j``) of best total ``T``, the candidates that can be taken next are those of
    ``F == T`` above and left of it. The table's traceback goes up column ``j`` (the cell ``(i, j)`` looks at the
    candidate ``(i - 1, j - 1)``) as long as the total above is still ``T``, that is down to the lowest row
    holding one of them: it takes the last of them in column ``j - 1`` if there is one; otherwise it turns left
    at that lowest row and walks it to the last of them in it (at ``T == 0`` no row holds it: the walk ends at
    the border). ``T`` never grows along the way and ``i`` and
    ``j`` only shrink, so each group of equal ``F`` is read in one stretch, each of its candidates passed over
    once.
    """
    pairs: list[Edge] = []
    i, j = rows, cols
    loaded: float | None = None
    by_col: dict[int, list[int]] = {}
    by_row: dict[int, list[int]] = {}
    queue: list[Edge] = []
    head = 0
    while True:
        if loaded is None or loaded != total:
            queue, head, loaded = ends.get(total, []), 0, total
            by_col, by_row = {}, {}
            for a, b in queue:  # in increasing order: each list sorted
                by_col.setdefault(b, []).append(a)
                by_row.setdefault(a, []).append(b)
        in_col = by_col.get(j - 1, [])
        k = bisect.bisect_left(in_col, i) - 1
        if k >= 0:
            a, b = in_col[k], j - 1
        elif not total:  # a total of 0 is the border's too: the table goes up column j to row 0 and stops there
            break
        else:
            while head < len(queue) and queue[head][1] >= j:  # out of reach for good: j only shrinks
                head += 1
            if head == len(queue) or queue[head][0] >= i:
                break
            a = queue[head][0]
            in_row = by_row[a]
            b = in_row[bisect.bisect_left(in_row, j) - 1]
        pairs.append((a, b))
        i, j = a, b
        total = prefix[(a, b)]
    return pairs[::-1]


class OrderTooComplex(ValueError):
    """The order constraints of one episode need more search than :data:`ek.limits.ORDER_MAX_NODES` (nodes)
    or :data:`ek.limits.ORDER_MAX_WORK` (search work) allows."""


class _Blocks:
    """The candidate pairs split into connected blocks (in the scorer, one block per tool), each solved alone."""

    def __init__(self, values: Mapping[Edge, float]) -> None:
        cols_of: dict[int, list[int]] = {}
        rows_of: dict[int, list[int]] = {}
        for i, j in values:
            cols_of.setdefault(i, []).append(j)
            rows_of.setdefault(j, []).append(i)
        # connected components, each row's and each col's candidates read once (a union-find over ("r", i) and
        # ("c", j) nodes took three times as long: 2.6 s for the million pairs of one tool)
        block_of_row: dict[int, int] = {}
        first_col: list[int] = []
        for start in sorted(cols_of):
            if start in block_of_row:
                continue
            block = block_of_row[start] = len(first_col)
            todo, seen = [start], set()
            while todo:
                for j in cols_of[todo.pop()]:
                    if j not in seen:
                        seen.add(j)
                        for i in rows_of[j]:
                            if i not in block_of_row:
                                block_of_row[i] = block
                                todo.append(i)
            first_col.append(min(seen))
        members: list[list[Edge]] = [[] for _ in first_col]
        for edge in values:
            members[block_of_row[edge[0]]].append(edge)
        # blocks by their first col, each block's pairs in order (what solve's tables and the search read)
        self.edges = [sorted(members[b]) for b in sorted(range(len(first_col)), key=first_col.__getitem__)]
        self.values = values
        self._memo: dict[tuple[int, frozenset[Edge]], tuple[float, tuple[Edge, ...]]] = {}
        self.work = 0  # sum of k²·l over the assignments solved, and what the search read (ordered_assignment)

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


#: Steps of :data:`ek.limits.ORDER_MAX_WORK` a pair, a gold call or a constraint read by a search node counts:
#: 330 to 380 ns each (reversed chains of 1,000 to 10,000 calls to distinct tools), where a step of assignment
#: (k²·l) is 60 to 90 ns.
_SCAN_COST = 5


def ordered_assignment(
    values: Mapping[Edge, float],
    after: Sequence[Iterable[int]],
    max_nodes: int = ORDER_MAX_NODES,
    max_work: int = ORDER_MAX_WORK,
) -> list[Edge]:
    """Pairs ``(row, col)`` of the largest total ``value`` in which rows (a sequence) respect a partial order on cols.

    ``values[(row, col)] > 0`` is a candidate pair's weight; ``after[col]`` holds the cols that must come before
    ``col`` (acyclic; the order is its transitive closure, which is never built: :class:`ek.calls.Precedence`
    walks it). Two kept pairs ``(r, a)``, ``(s, b)`` with ``a`` before ``b`` need ``r < s``. Cols nobody
    orders are a free multiset.

    Exact, by branch and bound: the bound is the unordered optimum (:func:`max_weight_assignment`,
    solved per connected block of candidate pairs and cached); when it breaks a constraint, the first pair
    (in order) of a broken constraint is branched on (kept, with every pair it conflicts with removed; or
    removed), the kept branch first. Subtrees whose bound cannot beat the best found are cut. At most
    ``max_nodes`` nodes, and at most ``max_work`` for the work of them all: each block's assignment (k²·l
    for k rows and l cols) plus, at each node, the p pairs and the n + e cols and constraints it reads
    (:data:`_SCAN_COST` steps each; a broken constraint is found by one walk over the order, the latest row
    before and the earliest after each col, not by trying every two pairs: p² at each node). Past either :class:`OrderTooComplex` is
    raised: never a greedy answer. Deterministic: branching and ties follow indices.

    >>> after = [(), (0,)]        # col 1 must come after col 0
    >>> ordered_assignment({(0, 1): 3.0, (1, 0): 3.0, (0, 0): 2.0, (1, 1): 2.0}, after)
    [(0, 0), (1, 1)]
    >>> ordered_assignment({(0, 1): 3.0, (1, 0): 3.0, (0, 0): 1.0, (1, 1): 1.0}, after)
    [(0, 1)]
    """
    after = [tuple(a) for a in after]
    order = Precedence(after)
    blocks = _Blocks(values)
    ordered = {j for j, b in enumerate(after) if b} | {k for b in after for k in b}
    scan = _SCAN_COST * (len(values) + order.size)  # what a node reads besides its assignments

    best_total, best_pairs = float("-inf"), ()
    stack: list[tuple[frozenset[Edge], frozenset[Edge]]] = [(frozenset(), frozenset())]  # (kept, closed)
    nodes = 0
    while stack:
        kept, closed = stack.pop()
        nodes += 1
        blocks.work += scan
        if nodes > max_nodes or blocks.work > max_work:
            what = (f"{max_nodes} search nodes; ek.limits.ORDER_MAX_NODES" if nodes > max_nodes
                    else f"{max_work:,} steps of search work; ek.limits.ORDER_MAX_WORK")
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
        rows = {j: i for i, j in pairs if j in ordered}
        latest, earliest = order.latest_before(rows), order.earliest_after(rows)
        edge = next((e for e in sorted(e for e in pairs if e[1] in ordered and e not in kept)
                     if _breaks(e, latest[e[1]], earliest[e[1]])), None)
        if edge is None:
            best_total, best_pairs = total, tuple(pairs)
            continue
        stack.append((kept, closed | {edge}))
        r, a = edge
        up, down = order.ancestors(a), order.descendants(a)
        others = frozenset(f for f in values
                           if f not in kept and (f[1] in down and f[0] < r or f[1] in up and f[0] > r))
        stack.append((kept | {edge}, closed | others))
    return sorted(best_pairs)


def _breaks(edge: Edge, latest_before: tuple[int, int] | None, earliest_after: tuple[int, int] | None) -> bool:
    """Whether the pair ``edge`` (row, col) breaks a constraint against the pairs whose rows gave ``latest_before``
    and ``earliest_after`` its col (:meth:`ek.calls.Precedence.latest_before`, ``earliest_after``)."""
    row = edge[0]
    return (latest_before is not None and latest_before[0] > row) or (earliest_after is not None
                                                                      and earliest_after[0] < row)
