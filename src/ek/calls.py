"""The unit every scorer works on: one tool call of an agent's trajectory, and gold calls' order constraints."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from ek.sentinel import Sentinel


def _check_name(instance: Step, attribute: attrs.Attribute, value: object) -> None:
    if not isinstance(value, str):
        raise TypeError(f"Step name must be a str, got {type(value).__name__}: {value!r}")


def _check_args(instance: Step, attribute: attrs.Attribute, value: object) -> None:
    if not isinstance(value, Mapping):
        raise TypeError(
            f"Step {instance.name!r}: args must be a mapping of argument name to value, "
            f"got {type(value).__name__}"
        )
    for key in value:
        if not isinstance(key, str):
            raise TypeError(f"Step {instance.name!r}: argument names must be str, got {key!r}")


@attrs.frozen(hash=False)
class Step:
    """One tool call: a tool ``name`` and its ``args`` (argument name -> value).

    >>> Step("search", {"q": "cats"})
    Step(name='search', args={'q': 'cats'})
    """

    name: str = attrs.field(validator=_check_name)
    args: Mapping[str, Any] = attrs.field(factory=dict, validator=_check_args)


def step_of_plain(name: str, args: dict[str, Any]) -> Step:
    """A :class:`Step` from parts a reader has already checked: ``name`` a ``str``, ``args`` a ``dict`` whose
    keys are all ``str`` (what the field validators check, so they are not run a second time; readers build a
    step per call of every output, and the validators cost as much as the rest of a small call's reading).

    >>> step_of_plain("f", {"x": 1}) == Step("f", {"x": 1})
    True
    """
    step = object.__new__(Step)
    _SET_NAME(step, name)
    _SET_ARGS(step, args)
    return step


#: Step's own slot setters: calling them skips the attribute lookup of ``object.__setattr__`` (half the
#: time of setting a field; see ``ek.scorer.accounting.slot_setters``).
_SET_NAME = Step.__dict__["name"].__set__
_SET_ARGS = Step.__dict__["args"].__set__


def _check_after(instance: GoldCall, attribute: attrs.Attribute, value: tuple[Any, ...]) -> None:
    for index in value:
        if isinstance(index, bool) or not isinstance(index, int) or index < 0:
            raise TypeError(f"GoldCall {instance.name!r}: after must hold gold indices (ints >= 0), got {index!r}")


def _to_indices(value: Any) -> tuple[Any, ...]:
    if isinstance(value, (str, bytes, Mapping)) or not hasattr(value, "__iter__"):
        raise TypeError(f"after must be a list of gold indices, got {type(value).__name__}: {value!r:.60}")
    return tuple(value)


@attrs.frozen(hash=False)
class GoldCall(Step):
    """A gold call that names the gold calls which must come before it (``after``: 0-based indices into its list).

    Only the gold side carries order; a plain :class:`Step` in a gold list has no constraint.

    >>> GoldCall("book", {"id": 3}, after=[0])
    GoldCall(name='book', args={'id': 3}, after=(0,))
    """

    after: tuple[int, ...] = attrs.field(default=(), converter=_to_indices, validator=_check_after)


def after_of(gold: Sequence[Step], where: str = "gold") -> tuple[tuple[int, ...], ...]:
    """Each gold call's ``after`` indices (sorted, deduplicated), checked: in range, not itself, no cycle.

    The one check of order constraints: gold JSON, the metric and the corpus reader all ask it, and a bad
    constraint is a ``ValueError`` that names the call and the constraint.

    >>> after_of([Step("search"), GoldCall("book", after=[0]), GoldCall("pay", after=[1, 0])])
    ((), (0,), (0, 1))
    >>> after_of([GoldCall("a", after=[1]), GoldCall("b", after=[0])])
    Traceback (most recent call last):
    ...
    ValueError: gold: the after constraints form a cycle: gold #0 a after #1 b after #0 a
    """
    size = len(gold)
    out = []
    for j, call in enumerate(gold):
        after = getattr(call, "after", ())
        for k in after:
            if k >= size:
                raise ValueError(f"{where}[{j}] {call.name}: after index {k} is out of range "
                                 f"(the gold list has {size} call{'s' if size != 1 else ''}, indices 0 to {size - 1})")
            if k == j:
                raise ValueError(f"{where}[{j}] {call.name}: a call cannot come after itself (after holds {j})")
        out.append(tuple(sorted(set(after))))
    cycle = _find_cycle(out)
    if cycle:
        path = " after ".join(f"#{j} {gold[j].name}" for j in cycle)
        raise ValueError(f"{where}: the after constraints form a cycle: gold {path}")
    return tuple(out)


def _peel(after: Sequence[Sequence[int]]) -> tuple[list[int], list[list[int]], list[int]]:
    """Kahn's algorithm on the "comes after" graph: the calls in an order that puts every call after those it
    comes after, each call's followers, and how many calls each one still waits for (all 0 unless a cycle)."""
    pending = [len(a) for a in after]
    followers: list[list[int]] = [[] for _ in after]
    for j, before in enumerate(after):
        for k in before:
            followers[k].append(j)
    ready = [j for j, n in enumerate(pending) if n == 0]
    order = []
    while ready:
        k = ready.pop()
        order.append(k)
        for j in followers[k]:
            pending[j] -= 1
            if pending[j] == 0:
                ready.append(j)
    return order, followers, pending


def _find_cycle(after: Sequence[Sequence[int]]) -> list[int]:
    """One cycle of the "comes after" graph as a closed walk (first node repeated last), or ``[]``."""
    _order, _followers, pending = _peel(after)
    if not any(pending):
        return []
    node = min(j for j, n in enumerate(pending) if n)  # every node left sits on or behind a cycle: walk back
    seen: dict[int, int] = {}
    walk: list[int] = []
    while node not in seen:
        seen[node] = len(walk)
        walk.append(node)
        node = next(k for k in after[node] if pending[k])
    return walk[seen[node]:] + [node]


def must_precede(after: Sequence[Sequence[int]]) -> tuple[frozenset[int], ...]:
    """For each gold call, every gold call that must come before it: the transitive closure of ``after``.

    ``after`` must be acyclic (as :func:`after_of` returns it). The closure of a chain of n calls holds n²/2
    entries (5,000 calls: 600 MB): the scorer asks :class:`Precedence` instead, which never builds it.

    >>> must_precede([(), (0,), (1,)])
    (frozenset(), frozenset({0}), frozenset({0, 1}))
    """
    closure: list[frozenset[int] | None] = [None] * len(after)
    for start in range(len(after)):
        stack = [start]
        while stack:  # iterative post-order: a call's set is built once all of its direct predecessors have theirs
            j = stack[-1]
            todo = [k for k in after[j] if closure[k] is None]
            if todo:
                stack.extend(todo)
                continue
            stack.pop()
            if closure[j] is None:
                closure[j] = frozenset(after[j]).union(*(closure[k] for k in after[j]))  # type: ignore[misc]
    return tuple(c or frozenset() for c in closure)


Row = tuple[int, int]  # (predicted index, gold index): a gold call's place in a prediction


class Precedence:
    """Which gold calls must come before which (the transitive closure of their ``after`` lists), answered
    without building that closure: each question walks the direct constraints, O(n + e) for n calls and e
    constraints (:attr:`size`), however long their chains.

    >>> order = Precedence([(), (0,), (1,), ()])         # 0, then 1, then 2; 3 free
    >>> sorted(order.ancestors(2)), sorted(order.descendants(0)), sorted(order.ancestors(3))
    ([0, 1], [1, 2], [])
    >>> order.latest_before({0: 5, 1: 2}), order.earliest_after({1: 2, 2: 0})
    ([None, (5, 0), (5, 0), None], [(0, 2), (0, 2), None, None])
    """

    def __init__(self, after: Sequence[Sequence[int]]) -> None:
        """``after``: each call's direct constraints, acyclic (as :func:`after_of` returns them); a relation
        already closed works too, at the cost of its size."""
        self.after = after
        self.order, self.followers, pending = _peel(after)
        if any(pending):
            raise ValueError("the after constraints form a cycle")
        #: what one walk over all the calls and constraints costs
        self.size = len(after) + sum(len(a) for a in after)

    def ancestors(self, col: int) -> set[int]:
        """Every call that must come before ``col``."""
        return self._reach(col, self.after)

    def descendants(self, col: int) -> set[int]:
        """Every call that must come after ``col``."""
        return self._reach(col, self.followers)

    @staticmethod
    def _reach(col: int, edges: Sequence[Sequence[int]]) -> set[int]:
        seen: set[int] = set()
        todo = [col]
        while todo:
            for k in edges[todo.pop()]:
                if k not in seen:
                    seen.add(k)
                    todo.append(k)
        return seen

    def latest_before(self, rows: Mapping[int, int]) -> list[Row | None]:
        """For each call, among the calls that must come before it and have a row in ``rows`` (call -> row), the
        one of the largest row (ties: the lowest call), as ``(row, call)``; None when there is none."""
        best: list[tuple[int, int] | None] = [None] * len(self.after)  # (row, -call): the max is the one
        for j in self.order:
            top = None
            for k in self.after[j]:
                for key in (best[k], (rows[k], -k) if k in rows else None):
                    if key is not None and (top is None or key > top):
                        top = key
            best[j] = top
        return [None if key is None else (key[0], -key[1]) for key in best]

    def earliest_after(self, rows: Mapping[int, int]) -> list[Row | None]:
        """For each call, among the calls that must come after it and have a row in ``rows``, the one of the
        smallest row (ties: the lowest call), as ``(row, call)``; None when there is none."""
        best: list[tuple[int, int] | None] = [None] * len(self.after)
        for k in reversed(self.order):
            low = None
            for j in self.followers[k]:
                for key in (best[j], (rows[j], j) if j in rows else None):
                    if key is not None and (low is None or key < low):
                        low = key
            best[k] = low
        return best


class _AnyCall(Sentinel):
    """Gold that asks only that the model call some tool, any tool with any arguments: :data:`ANY_CALL`."""

    NAME = "ANY_CALL"


#: Gold meaning "some call is right, whichever" (BFCL's ``live_relevance``: an entry passes iff a call
#: decodes). Scored as one unit: TP when the output holds at least one call, else FN (``missed_call``, or
#: ``unparseable_output``). In a corpus line: ``"gold": "any_call"``.
ANY_CALL = _AnyCall()
