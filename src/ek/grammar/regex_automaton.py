"""A regex as ``re`` runs it: the positions that read one character each, and the ways to step between them.

This is the position (Glushkov) automaton of the pattern's parse tree, as
``re``'s own parser builds it, with one addition: each step counts the ways
``re`` can make it (two when an inner and an outer loop can both start the
next round, as in ``(a*)*``), because ``re`` tries every way in turn. A
backtracking match visits one state per path the automaton has for a prefix
of the value, so :mod:`ek.grammar.regex_ambiguity` bounds the time of a match
by counting those paths.

Counted repetitions are kept exact while small (``[0-9a-f]{4}`` is four
positions); a large count is read as "at least a few, then any number", which
has at least the paths of the original, so the verdict errs the safe way.
Zero-width parts (``^``, ``$``, ``\\b``, lookarounds) are steps that read
nothing: they are kept where they cut paths for certain (nothing after ``\\Z``,
nothing read before ``^``) and otherwise assumed to pass.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import attrs

from ek.grammar.regex_charsets import ANYTHING, CharSet, char_range, everything_except, ignoring_case, named_category
from ek.limits import REGEX_MAX_POSITIONS

_c: Any = importlib.import_module("re._constants")

_REPEATS = (_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT)
_SINGLE = (_c.LITERAL, _c.NOT_LITERAL, _c.ANY, _c.IN)

#: A repetition of one character up to this count is expanded exactly (``\\d{4}`` is four positions).
EXPAND_CHARACTER = 64
#: A repeated group up to this count is expanded exactly (``(\\.\\d{1,3}){3}``); past it, it becomes a loop.
EXPAND_GROUP = 8
#: Steps spent following zero-width parts before the pattern is called too complex to check.
_ZERO_WIDTH_STEPS = 200_000

#: Where a start position of a match is: position 0 of the automaton, reading nothing.
START = 0


class Refused(Exception):
    """The pattern uses something whose matching time cannot be bounded (a backreference, a conditional)."""

    def __init__(self, what: str, item: tuple[Any, Any]) -> None:
        super().__init__(what)
        self.what = what
        self.item = item


class TooLarge(Exception):
    """The pattern has more positions, or zero-width steps, than the analysis will follow."""


@attrs.frozen
class Node:
    """One item of ``re``'s parse tree (``op``, ``av``), kept to name the part of a pattern a message is about."""

    op: Any
    av: Any
    parent: int | None


@attrs.frozen
class Position:
    """``chars``: what the position reads (None for the start and for zero-width parts); ``zero``: the kind
    of a zero-width part (``begin``, ``end``, ``dollar``, ``free``), empty for a character."""

    chars: CharSet | None
    node: int
    zero: str = ""


@attrs.frozen
class Lookaround:
    """A lookahead or lookbehind: its body is matched on its own wherever the outer match reaches it."""

    node: int
    position: int
    body: Any  # re._parser.SubPattern
    flags: int


#: A step: (ways, guarded), capped at 2 ways; guarded when it passes a zero-width test that may fail.
Step = tuple[int, bool]


def _cap(n: int) -> int:
    return 2 if n > 2 else n


@attrs.define
class _Frag:
    first: dict[int, int]
    last: dict[int, int]
    null: int  # ways to match the empty string, capped at 2


def _empty() -> _Frag:
    return _Frag({}, {}, 1)


@attrs.define
class Automaton:
    """``succ[x][y]``: the step from position ``x`` to ``y`` (which reads a character); ``final[x]``: the
    step from ``x`` to the end of the pattern. Positions are numbered; :data:`START` is where matching begins."""

    positions: list[Position]
    nodes: list[Node]
    succ: dict[int, dict[int, Step]]
    final: dict[int, Step]
    lookarounds: list[Lookaround]
    looped: frozenset[int]  # zero-width positions a loop can reach first (lookarounds re-run at many places)
    loop_backs: dict[int, set[tuple[int, int]]]  # repetition node -> the steps from the end of a round to a start
    empty_rounds: frozenset[int]  # repetitions whose body can match the empty text
    #: bounded repetitions whose count was too large to expand, read as "the first few, then any number"
    widened: frozenset[int] = frozenset()


def build(tree: Any, flags: int, *, exact: bool = True, anchored: bool = True,
          tail_anything: bool = False) -> Automaton:
    """The automaton of parsed pattern ``tree`` (a ``re._parser.SubPattern``) under ``flags``.

    ``exact``: expand small counted repetitions (else every repetition is a loop: fewer positions).
    ``anchored``: the match starts at the start of the value (``^`` holds there); a lookaround body is not.
    ``tail_anything``: the pattern is followed by "any text" (a lookahead needs only a prefix to match).
    """
    builder = _Builder(exact)
    frag = builder.seq(tree, flags, None)
    if tail_anything:
        tail = builder.single(ANYTHING, -1)
        frag = builder.concat(frag, builder.loop(tail, plus=False, node=-1))
    builder.follow[START] = dict(frag.first)
    final = dict(frag.last)
    if frag.null:
        final[START] = frag.null
    return builder.finish(final, anchored)


class _Builder:
    def __init__(self, exact: bool) -> None:
        self.exact = exact
        self.positions: list[Position] = [Position(None, -1)]
        self.nodes: list[Node] = []
        self.follow: dict[int, dict[int, int]] = {}
        self.lookarounds: list[Lookaround] = []
        self.loop_backs: dict[int, set[tuple[int, int]]] = {}
        self.empty_rounds: set[int] = set()
        self.widened: set[int] = set()

    # --- positions and fragments ------------------------------------------------------------------------------
    def position(self, chars: CharSet | None, node: int, zero: str = "") -> int:
        if len(self.positions) >= REGEX_MAX_POSITIONS:
            raise TooLarge(f"more than {REGEX_MAX_POSITIONS} positions")
        self.positions.append(Position(chars, node, zero))
        return len(self.positions) - 1

    def single(self, chars: CharSet, node: int, zero: str = "") -> _Frag:
        x = self.position(chars if not zero else None, node, zero)
        return _Frag({x: 1}, {x: 1}, 0)

    def link(self, x: int, y: int, ways: int) -> None:
        row = self.follow.setdefault(x, {})
        row[y] = _cap(row.get(y, 0) + ways)

    def concat(self, f: _Frag, g: _Frag) -> _Frag:
        for x, a in f.last.items():
            for y, b in g.first.items():
                self.link(x, y, a * b)
        first = dict(f.first)
        if f.null:
            for y, b in g.first.items():
                first[y] = _cap(first.get(y, 0) + f.null * b)
        last = dict(g.last)
        if g.null:
            for x, a in f.last.items():
                last[x] = _cap(last.get(x, 0) + g.null * a)
        return _Frag(first, last, _cap(f.null * g.null))

    @staticmethod
    def union(frags: list[_Frag]) -> _Frag:
        out = _Frag({}, {}, 0)
        for f in frags:
            for x, a in f.first.items():
                out.first[x] = _cap(out.first.get(x, 0) + a)
            for x, a in f.last.items():
                out.last[x] = _cap(out.last.get(x, 0) + a)
            out.null = _cap(out.null + f.null)
        return out

    def loop(self, f: _Frag, plus: bool, node: int) -> _Frag:
        """``f*`` or ``f+`` for repetition ``node``. A body that can match empty may also start a round after
        an empty one: counted as a second way (``re`` mostly stops such loops, so this errs the safe way)."""
        again = 2 if f.null else 1
        if f.null:
            self.empty_rounds.add(node)
        backs = self.loop_backs.setdefault(node, set())
        for x, a in f.last.items():
            for y, b in f.first.items():
                self.link(x, y, a * b * again)
                backs.add((x, y))
        return _Frag(f.first, f.last, _cap(f.null + (0 if plus else 1)))

    @staticmethod
    def optional(f: _Frag) -> _Frag:
        return _Frag(f.first, f.last, _cap(f.null + 1))

    # --- the parse tree -------------------------------------------------------------------------------------------
    def seq(self, items: Any, flags: int, parent: int | None) -> _Frag:
        frag = _empty()
        for op, av in items:
            frag = self.concat(frag, self.item(op, av, flags, parent))
        return frag

    def item(self, op: Any, av: Any, flags: int, parent: int | None) -> _Frag:
        self.nodes.append(Node(op, av, parent))
        node = len(self.nodes) - 1
        if op in _SINGLE:
            return self.single(charset(op, av, flags), node)
        if op is _c.BRANCH:
            return self.union([self.seq(alternative, flags, node) for alternative in av[1]])
        if op is _c.SUBPATTERN:
            _group, add, remove, body = av
            return self.seq(body, (flags | add) & ~remove, node)
        if op is _c.ATOMIC_GROUP:  # fewer paths than the plain group: counting the plain group's errs safe
            return self.seq(av, flags, node)
        if op in _REPEATS:
            return self.repeat(av, flags, node)
        if op is _c.AT:
            return self.single(ANYTHING, node, _anchor_kind(av, flags))
        if op in (_c.ASSERT, _c.ASSERT_NOT):
            frag = self.single(ANYTHING, node, "free")
            self.lookarounds.append(Lookaround(node, next(iter(frag.first)), av[1], flags))
            return frag
        if op is _c.GROUPREF:
            raise Refused("a backreference", (op, av))
        if op is _c.GROUPREF_EXISTS:
            raise Refused("a conditional group", (op, av))
        raise Refused(f"the regex construct {op}", (op, av))  # pragma: no cover - every construct of re is above

    def repeat(self, av: Any, flags: int, node: int) -> _Frag:
        lo, hi, body = av
        unbounded = hi == _c.MAXREPEAT

        def copy() -> _Frag:
            return self.seq(body, flags, node)

        if hi == 0:
            return _empty()
        if hi == 1:
            return copy() if lo == 1 else self.optional(copy())
        limit = (EXPAND_CHARACTER if _is_single(body) else EXPAND_GROUP) if self.exact else 1
        frag = _empty()
        if not unbounded and hi <= limit:
            for _ in range(lo):
                frag = self.concat(frag, copy())
            tail = _empty()
            for _ in range(hi - lo):  # a(a(a)?)?: one way to read each count
                tail = self.optional(self.concat(copy(), tail))
            return self.concat(frag, tail)
        # A large count reads as "the first few, then any number": every path of the original is one of these.
        if not unbounded:
            self.widened.add(node)
        if lo == 0:
            return self.loop(copy(), plus=False, node=node)
        for _ in range(min(lo, limit) - 1):
            frag = self.concat(frag, copy())
        return self.concat(frag, self.loop(copy(), plus=True, node=node))

    # --- zero-width steps -----------------------------------------------------------------------------------------
    def finish(self, final: dict[int, int], anchored: bool) -> Automaton:
        """Replace zero-width positions by the steps through them, keeping the ones that surely fail out."""
        budget = [_ZERO_WIDTH_STEPS]
        succ: dict[int, dict[int, Step]] = {}
        ends: dict[int, Step] = {}
        for source, pos in enumerate(self.positions):
            if pos.zero:
                continue
            out: dict[int, list[Any]] = {}
            end: list[Any] = [0, False]
            self._walk(source, source, 1, False, "", {source}, out, end, final, anchored, budget)
            succ[source] = {y: (ways, guarded) for y, (ways, guarded) in out.items()}
            if end[0]:
                ends[source] = (end[0], end[1])
        return Automaton(self.positions, self.nodes, succ, ends, self.lookarounds, self._reached_by_loops(),
                         self.loop_backs, frozenset(self.empty_rounds), frozenset(self.widened))

    def _walk(self, source: int, at: int, ways: int, guarded: bool, need: str, seen: set[int],
              out: dict[int, list[Any]], end: list[Any], final: dict[int, int], anchored: bool,
              budget: list[int]) -> None:
        budget[0] -= 1
        if budget[0] < 0:
            raise TooLarge("too many zero-width steps")
        for y, b in self.follow.get(at, {}).items():
            w = _cap(ways * b)
            pos = self.positions[y]
            if not pos.zero:
                if need == "end" or (need == "newline" and 10 not in pos.chars):  # type: ignore[operator]
                    continue
                step = out.setdefault(y, [0, False])
                step[0] = _cap(step[0] + w)
                step[1] = step[1] or guarded
                continue
            if y in seen:
                continue  # re stops a loop whose round matched nothing
            kind, g, n = pos.zero, guarded, need
            if kind == "begin":
                if source != START:
                    continue  # a character was read: ^ and \A fail
                g = guarded or not anchored  # a lookaround body starts anywhere, where ^ may fail
            elif kind == "end":
                n = "end"
            elif kind == "dollar":
                n, g = ("end" if need == "end" else "newline"), True
            else:
                g = True
            self._walk(source, y, w, g, n, seen | {y}, out, end, final, anchored, budget)
        if at in final:
            end[0] = _cap(end[0] + ways * final[at])
            end[1] = end[1] or guarded

    def _reached_by_loops(self) -> frozenset[int]:
        """Zero-width positions that some loop can reach: they are passed at many places of a value."""
        on_cycle = _on_cycles(self.follow, len(self.positions))
        back: dict[int, list[int]] = {}
        for x, row in self.follow.items():
            for y in row:
                back.setdefault(y, []).append(x)
        reached = set()
        for look in self.lookarounds:
            stack, seen = [look.position], {look.position}
            while stack:
                x = stack.pop()
                if x in on_cycle:
                    reached.add(look.position)
                    break
                for w in back.get(x, ()):
                    if w not in seen:
                        seen.add(w)
                        stack.append(w)
        return frozenset(reached)


def _anchor_kind(at: Any, flags: int) -> str:
    multiline = bool(flags & _c.SRE_FLAG_MULTILINE)
    if at is _c.AT_BEGINNING_STRING or (at is _c.AT_BEGINNING and not multiline):
        return "begin"
    if at is _c.AT_END_STRING:
        return "end"
    if at is _c.AT_END and not multiline:
        return "dollar"
    return "free"


def _is_single(body: Any) -> bool:
    """Is ``body`` exactly one character (``a``, ``[a-z]``, ``.``, maybe in a group)?"""
    while len(body) == 1:
        op, av = body[0]
        if op in _SINGLE:
            return True
        if op is not _c.SUBPATTERN:
            return False
        body = av[3]
    return False


_CATEGORIES = {
    _c.CATEGORY_DIGIT: "digit", _c.CATEGORY_NOT_DIGIT: "not_digit",
    _c.CATEGORY_WORD: "word", _c.CATEGORY_NOT_WORD: "not_word",
    _c.CATEGORY_SPACE: "space", _c.CATEGORY_NOT_SPACE: "not_space",
}


def charset(op: Any, av: Any, flags: int) -> CharSet:
    """The characters one single-character item of the parse tree reads under ``flags``."""
    ignore_case = bool(flags & _c.SRE_FLAG_IGNORECASE)
    if op is _c.LITERAL:
        found = CharSet((char_range(av, av),))
    elif op is _c.NOT_LITERAL:
        return CharSet((char_range(av, av),), negated=True)
    elif op is _c.ANY:
        return ANYTHING if flags & _c.SRE_FLAG_DOTALL else CharSet((everything_except([(10, 10)]),))
    else:
        ascii_only = bool(flags & _c.SRE_FLAG_ASCII)
        negated = bool(av) and av[0][0] is _c.NEGATE
        parts = []
        for kind, value in av[1:] if negated else av:
            if kind is _c.LITERAL:
                parts.append(char_range(value, value))
            elif kind is _c.RANGE:
                parts.append(char_range(*value))
            elif kind is _c.CATEGORY and value in _CATEGORIES:
                parts.append(named_category(_CATEGORIES[value], ascii_only))
            else:  # a kind this analysis does not know: assume it may read anything
                return ANYTHING
        found = CharSet(tuple(parts), negated)
    return ignoring_case(found) if ignore_case else found


def _on_cycles(follow: dict[int, dict[int, int]], size: int) -> set[int]:
    """Positions on some cycle of ``follow`` (self-loops included)."""
    return {x for component in strongly_connected(range(size), lambda x: follow.get(x, {}).keys())
            for x in component if len(component) > 1 or x in follow.get(x, {})}


def strongly_connected(nodes: Any, edges: Callable[[Any], Any]) -> list[list[Any]]:
    """Tarjan's strongly connected components, iteratively; each component listed once, sinks first."""
    index: dict[Any, int] = {}
    low: dict[Any, int] = {}
    on_stack: set[Any] = set()
    stack: list[Any] = []
    out: list[list[Any]] = []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(edges(root)))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(edges(w))))
                    advanced = True
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component.append(w)
                    if w == v:
                        break
                out.append(component)
    return out
