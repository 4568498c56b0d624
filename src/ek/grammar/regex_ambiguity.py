"""How many ways can a backtracking matcher read the same text? The bound behind every regex ek runs.

``re`` tries the paths of a pattern's automaton (:mod:`ek.grammar.regex_automaton`)
one after another. A full match that fails visits every path that reads a
prefix of the value; a path that can still reach the end of the pattern is
one reading of a longer value, so the paths per prefix are at most the
readings of one value. That count is what decides the time:

- **exponential**: some position has two different loops back to itself that
  read the same text (``(a+)+``, ``(\\w|\\d)*``): the readings double with each
  round. Found as a component of the pair automaton that holds both a pair of
  equal positions and a pair of different ones (or a step ``re`` can take in
  two ways, like ``(a*)*``).
- **polynomial**: two different loops ``p`` and ``q`` and one text ``v`` that
  ``p`` can repeat, ``q`` can repeat, and that leads from ``p`` to ``q``
  (``a*a*``, ``.+@.+``): the place where the text passes from one loop to the
  other can be anywhere. Found in the triple automaton: ``(p, p, q)`` reaches
  ``(p, q, q)``.
- otherwise the readings per prefix are bounded, and the match is linear;
  the bound itself is kept small (``(?:\\d|\\d\\d){8}`` three times over has
  millions) by running all paths side by side and counting them.

These are the tests of Weber and Seidl (1991) for the degree of ambiguity of
a finite automaton, and the reading of matching time by ambiguity is that of
Weideman et al. (2016). One refinement: from a position where every remaining
text is accepted and every step stays in such positions (the ``[\\s\\S]*`` that
ends an imported search pattern), ``re``'s first try succeeds, so those
positions are taken out before counting.
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from ek.grammar.regex_automaton import START, Automaton, strongly_connected
from ek.grammar.regex_charsets import covers_everything, meet

#: Readings of one value a pattern may have at most, as a power of two (2**10: about a thousand).
MAX_WAYS_LOG2 = 10
#: States of the pair and triple automata explored before a pattern is called too complex to check.
_PRODUCT_STATES = 400_000


@attrs.frozen
class Finding:
    """Why a pattern can take super-linear time.

    ``kind``: ``exponential`` (``positions`` hold a loop with two readings of the same text),
    ``polynomial`` (``loops`` are the two loops), ``many-ways`` (readings multiply, ``positions``
    where they part), or ``too-complex``.
    """

    kind: str
    loops: tuple[frozenset[int], ...] = ()
    positions: tuple[int, ...] = ()
    cycle: frozenset[int] = frozenset()  # exponential: the positions the two readings go around


class _Budget:
    def __init__(self) -> None:
        self.left = _PRODUCT_STATES

    def spend(self, n: int = 1) -> bool:
        self.left -= n
        return self.left >= 0


def find_problem(auto: Automaton) -> Finding | None:
    """The first reason ``auto`` may need super-linear time for a full match; None when it needs linear time."""
    live = _live(auto)
    succ = {x: [y for y in auto.succ.get(x, {}) if y in live] for x in live}
    meets = _Meets(auto)
    budget = _Budget()
    components = strongly_connected(sorted(live), lambda x: succ[x])
    loops = [frozenset(c) for c in components if len(c) > 1 or c[0] in succ[c[0]]]
    for loop in loops:
        found = _two_readings_in_loop(auto, loop, succ, meets, budget)
        if found is not None:
            return found
    found = _loop_into_loop(loops, succ, meets, budget)
    if found is not None:
        return found
    return _many_ways(auto, live, succ, budget)


def _live(auto: Automaton) -> set[int]:
    """Positions a failing match can visit: reached from the start without passing a position from which
    ``re`` surely succeeds, and able to reach the end of the pattern or such a position."""
    sure = _sure_to_succeed(auto)
    if START in sure:
        return set()
    reached = {START}
    stack = [START]
    while stack:
        x = stack.pop()
        for y in auto.succ.get(x, {}):
            if y not in sure and y not in reached:
                reached.add(y)
                stack.append(y)
    back: dict[int, list[int]] = {}
    for x in reached:
        for y in auto.succ.get(x, {}):
            back.setdefault(y, []).append(x)
    ending = [x for x in reached if x in auto.final or any(y in sure for y in auto.succ.get(x, {}))]
    alive = set(ending)
    stack = list(ending)
    while stack:
        y = stack.pop()
        for x in back.get(y, ()):
            if x in reached and x not in alive:
                alive.add(x)
                stack.append(x)
    return alive


def _sure_to_succeed(auto: Automaton) -> set[int]:
    """Positions after which ``re`` succeeds at its first try whatever text remains: each may end the match,
    each of its steps tests nothing and leads to such a position, and its steps read every character."""
    sure = {x for x, (_, guarded) in auto.final.items() if not guarded}
    changed = True
    while changed:
        changed = False
        for x in list(sure):
            steps = auto.succ.get(x, {})
            if any(guarded or y not in sure for y, (_, guarded) in steps.items()) or not covers_everything(
                    auto.positions[y].chars for y in steps):  # type: ignore[misc]
                sure.discard(x)
                changed = True
    return sure


class _Meets:
    """Can positions ``x`` and ``y`` read the same character? Cached per pair."""

    def __init__(self, auto: Automaton) -> None:
        self.auto = auto
        self.cache: dict[tuple[int, int], bool] = {}

    def __call__(self, x: int, y: int) -> bool:
        if x == y:
            return True
        key = (x, y) if x < y else (y, x)
        hit = self.cache.get(key)
        if hit is None:
            a, b = self.auto.positions[x].chars, self.auto.positions[y].chars
            hit = self.cache[key] = a is not None and b is not None and meet(a, b)
        return hit


def _pair(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a <= b else (b, a)


def _two_readings_in_loop(auto: Automaton, loop: frozenset[int], succ: dict[int, list[int]], meets: _Meets,
                          budget: _Budget) -> Finding | None:
    """Exponential: a cycle of the pair automaton inside ``loop`` through equal and different positions."""
    edges: dict[tuple[int, int], list[tuple[int, int]]] = {}
    heavy: set[tuple[tuple[int, int], tuple[int, int]]] = set()
    stack = [(p, p) for p in sorted(loop)]
    seen = set(stack)
    while stack:
        state = stack.pop()
        if not budget.spend():
            return Finding("too-complex")
        a, b = state
        out = []
        for a2 in succ[a]:
            if a2 not in loop:
                continue
            for b2 in succ[b]:
                if b2 not in loop or not meets(a2, b2):
                    continue
                nxt = _pair(a2, b2)
                out.append(nxt)
                if a == b and a2 == b2 and auto.succ[a][a2][0] > 1:
                    heavy.add((state, nxt))
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        edges[state] = out
    for component in strongly_connected(sorted(seen), lambda s: edges[s]):
        members = set(component)
        if not any(a == b for a, b in members):
            continue
        different = [s for s in component if s[0] != s[1]]
        inside_heavy = [(s, t) for s, t in heavy if s in members and t in members]
        if different or inside_heavy:
            where = different[0] if different else inside_heavy[0][1]
            cycle = frozenset(x for state in component for x in state)
            return Finding("exponential", (loop,), tuple(sorted(set(where))), cycle)
    return None


def _loop_into_loop(loops: list[frozenset[int]], succ: dict[int, list[int]], meets: _Meets,
                    budget: _Budget) -> Finding | None:
    """Polynomial: loops ``p`` and ``q`` and a text both repeat that also leads from ``p`` to ``q``."""
    reach = {loop: _reachable(loop, succ) for loop in loops}
    for first in loops:
        for second in loops:
            if first is second or not (second & reach[first]):
                continue
            if not any(meets(a, c) for a in first for c in second):
                continue
            between = reach[first] & _reaching(second, succ)
            for p in sorted(first):
                for q in sorted(second):
                    hit = _triple_path(p, q, first, between, second, succ, meets, budget)
                    if hit is None:
                        return Finding("too-complex")
                    if hit:
                        return Finding("polynomial", (first, second), (p, q))
    return None


def _triple_path(p: int, q: int, first: frozenset[int], between: set[int], second: frozenset[int],
                 succ: dict[int, list[int]], meets: _Meets, budget: _Budget) -> bool | None:
    """Does one text lead ``p`` to ``p``, ``p`` to ``q`` and ``q`` to ``q``? None when out of budget."""
    start, goal = (p, p, q), (p, q, q)
    stack, seen = [start], {start}
    while stack:
        a, b, c = stack.pop()
        if not budget.spend():
            return None
        for a2 in succ[a]:
            if a2 not in first:
                continue
            for b2 in succ[b]:
                if b2 not in between or not meets(a2, b2):
                    continue
                for c2 in succ[c]:
                    if c2 not in second or not meets(b2, c2) or not meets(a2, c2):
                        continue
                    nxt = (a2, b2, c2)
                    if nxt == goal:
                        return True
                    if nxt not in seen:
                        seen.add(nxt)
                        stack.append(nxt)
    return False


def _reachable(sources: Iterable[int], succ: dict[int, list[int]]) -> set[int]:
    out = set(sources)
    stack = list(out)
    while stack:
        for y in succ[stack.pop()]:
            if y not in out:
                out.add(y)
                stack.append(y)
    return out


def _reaching(targets: Iterable[int], succ: dict[int, list[int]]) -> set[int]:
    back: dict[int, list[int]] = {}
    for x, ys in succ.items():
        for y in ys:
            back.setdefault(y, []).append(x)
    out = set(targets)
    stack = list(out)
    while stack:
        for x in back.get(stack.pop(), ()):
            if x not in out:
                out.add(x)
                stack.append(x)
    return out


def _many_ways(auto: Automaton, live: set[int], succ: dict[int, list[int]], budget: _Budget) -> Finding | None:
    """Bounded but large: some text is read by more than ``2**MAX_WAYS_LOG2`` paths at once.

    Runs all paths side by side (the subset construction, keeping a count of paths per position) over
    one character of each kind the pattern tells apart. Without the two shapes above the counts stay
    bounded, so the set of reachable counts is finite and the walk ends.
    """
    if START not in live:
        return None
    limit = 2 ** MAX_WAYS_LOG2
    samples = _sample_characters(auto, live)
    root: tuple[tuple[int, int], ...] = ((START, 1),)
    seen = {root}
    stack = [root]
    while stack:
        config = stack.pop()
        for code in samples:
            counts: dict[int, int] = {}
            for x, n in config:
                if not budget.spend(len(succ[x]) + 1):
                    return Finding("too-complex")
                for y in succ[x]:
                    if code in auto.positions[y].chars:  # type: ignore[operator]
                        counts[y] = counts.get(y, 0) + n * auto.succ[x][y][0]
            if not counts:
                continue
            if sum(counts.values()) > limit:
                return Finding("many-ways", (), tuple(sorted(counts)))
            nxt = tuple(sorted(counts.items()))
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return None


#: Characters of every kind ``re`` tells apart by category, tried besides those a pattern names.
_EVERYDAY = "0a_A \t\n!.-@\x00\xa0\xe9\xc9\u0660\u2028\uffff\U0001f600"


def _sample_characters(auto: Automaton, live: set[int]) -> list[int]:
    """One character for each way the positions of ``auto`` split the alphabet that shows up at the ends of
    its ranges, next to its excluded characters and among everyday characters of each category."""
    codes = {ord(ch) for ch in _EVERYDAY}
    charsets = [auto.positions[x].chars for x in sorted(live) if auto.positions[x].chars is not None]
    for chars in charsets:
        for part in chars.parts:  # type: ignore[union-attr]
            if part.kind == "range":
                codes.update((part.lo, part.hi, min(part.lo + 1, part.hi), max(part.hi - 1, part.lo)))
            for lo, hi in part.ranges:
                codes.update(c for c in (lo - 1, lo, hi, hi + 1) if 0 <= c <= 0x10FFFF)
    by_kind: dict[tuple[bool, ...], int] = {}
    for code in sorted(codes):
        by_kind.setdefault(tuple(code in chars for chars in charsets), code)  # type: ignore[operator]
    return list(by_kind.values())
