"""Weighted TP/FP/FN accounting: the :class:`Score` monoid, explanations, and :class:`FieldMetric`.

A score is a sum of *units*: each unit is one thing that was right (TP) or
wrong (FP and/or FN) with a cost weight. Sums are kept exactly (as
:class:`fractions.Fraction`), so a corpus split across processes and merged in
any order gives bit-identical totals.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction
from types import MappingProxyType
from typing import Any

import attrs

from ek.calls import Step
from ek.goldjson import encode_value
from ek.runtime.violation import safe_repr
from ek.sentinel import Sentinel

#: Unit kinds.
TP, FP, FN = "tp", "fp", "fn"

#: Why a unit was counted. Every FP/FN unit carries one of these.
REASONS: Mapping[str, str] = MappingProxyType(
    {
        "match": "agrees with gold",
        "inexact_call": "right tool, but some argument is wrong (call-level scoring)",
        "wrong_value": "argument present with a wrong value",
        "invalid_value": "argument value violates the tool's schema",
        "missing_arg": "gold argument missing from the prediction",
        "hallucinated_arg": "argument that gold does not expect",
        "extra_call": "more calls to this tool than gold has",
        "wrong_tool": "call to a tool that gold never calls",
        "unknown_tool": "call to a tool the grammar does not declare",
        "missing_call": "gold call with no predicted call",
        "spurious_call": "a call where gold wants none (gold is []: the model should have abstained)",
        "missed_call": "gold call missed because the model made no call at all (it abstained wrongly)",
        "out_of_order": "right tool, but the pair breaks the order gold requires",
        "unparseable_output": "the model output could not be parsed; gold calls count as missed",
    }
)


class _Absent(Sentinel):
    """Sentinel for "no value on this side" in units and checks (``None`` is a real value)."""

    NAME = "ABSENT"


ABSENT: Any = _Absent()


def _repr_missing(value: Any) -> str:
    return "<absent>" if value is ABSENT else safe_repr(value)  # an int past the int/str limit too


@attrs.frozen
class Unit:
    """One counted unit: a call's name or one argument, scored TP, FP or FN with a weight."""

    kind: str
    reason: str
    weight: float
    tool: str
    arg: str | None = None
    expected: Any = ABSENT
    got: Any = ABSENT
    pred_index: int | None = None
    gold_index: int | None = None
    detail: str = ""

    def describe(self) -> str:
        """One line a person reads: what, where, why, with expected vs got."""
        where = self.tool if self.arg is None else f"{self.tool}.{self.arg}"
        idx = []
        if self.pred_index is not None:
            idx.append(f"pred #{self.pred_index}")
        if self.gold_index is not None:
            idx.append(f"gold #{self.gold_index}")
        text = f"{self.kind.upper()} {self.weight:g} {where} [{', '.join(idx)}]: {self.reason}"
        if self.expected is not ABSENT or self.got is not ABSENT:
            text += f" (expected {_repr_missing(self.expected)}, got {_repr_missing(self.got)})"
        if self.detail:
            text += f" - {self.detail}"
        return text

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "reason": self.reason, "weight": self.weight, "tool": self.tool}
        for name in ("arg", "pred_index", "gold_index"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        _put_values(out, self.expected, self.got, self.detail)
        return out


def _put_values(out: dict[str, Any], expected: Any, got: Any, detail: str) -> None:
    """Add JSON-able ``expected``/``got`` (OneOf and OMITTABLE encoded as in gold files) and ``detail``."""
    if expected is not ABSENT:
        out["expected"] = encode_value(expected)
    if got is not ABSENT:
        out["got"] = encode_value(got)
    if detail:
        out["detail"] = detail


@attrs.frozen
class ArgCheck:
    """How one argument of a (pred, gold) pair compared.

    ``status`` is ``match``, ``wrong_value``, ``invalid_value``, ``missing_arg``,
    ``hallucinated_arg`` or ``ignored``; ``weight`` is the argument's importance.
    """

    arg: str
    status: str
    weight: float
    expected: Any = ABSENT
    got: Any = ABSENT
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.status in ("match", "ignored")

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"arg": self.arg, "status": self.status, "weight": self.weight}
        _put_values(out, self.expected, self.got, self.detail)
        return out


@attrs.frozen
class PairExplanation:
    """A matched (pred, gold) pair and the per-argument comparison behind its units."""

    pred_index: int
    gold_index: int
    tool: str
    exact: bool
    checks: tuple[ArgCheck, ...]


#: One unit as a plain tuple, in :class:`Unit`'s field order: ``(kind, reason, weight, tool, arg, expected, got,
#: pred_index, gold_index, detail)``. The metric counts these; a :class:`Unit` is only built when one is read.
UnitRow = tuple[str, str, float, str, "str | None", Any, Any, "int | None", "int | None", str]

#: One argument comparison as a plain tuple, in :class:`ArgCheck`'s field order: ``(arg, status, weight,
#: expected, got, detail)``.
CheckRow = tuple[str, str, float, Any, Any, str]

#: The statuses of an :class:`ArgCheck` that are not a mistake.
OK_STATUSES = frozenset({"match", "ignored"})


class PairRecords(tuple):  # type: ignore[type-arg]
    """An explanation's pairs not yet built: ``(pred_index, gold_index, tool, exact, check rows)`` each.

    Scoring a corpus reads few explanations, so the metric hands these over and
    :attr:`Explanation.pairs` builds the :class:`PairExplanation` objects on first read.
    """

    __slots__ = ()


class UnitRows(tuple):  # type: ignore[type-arg]
    """An explanation's units not yet built: :data:`UnitRow` tuples (see :class:`PairRecords`)."""

    __slots__ = ()


def _build_pairs(records: PairRecords) -> tuple[PairExplanation, ...]:
    return tuple(PairExplanation(i, j, tool, exact, tuple(ArgCheck(*row) for row in rows))
                 for i, j, tool, exact, rows in records)


@attrs.frozen(eq=False)
class Explanation:
    """Everything behind one episode's score: the alignment and every counted unit.

    ``pairs`` and ``units`` may be given as :class:`PairRecords` / :class:`UnitRows`: they are then built
    on first read (the same objects either way; equality and pickling see no difference).
    """

    pred: tuple[Step, ...]
    gold: tuple[Step, ...]
    _pairs: tuple[PairExplanation, ...] = attrs.field(alias="pairs", repr=False)
    unmatched_pred: tuple[int, ...]
    unmatched_gold: tuple[int, ...]
    _units: tuple[Unit, ...] = attrs.field(alias="units", repr=False)
    parse_error: str | None = None
    #: the output could not be parsed because it ends inside a call (``ParseError.cut_short``: ``max_tokens``)
    cut_short: bool = False
    #: (pred, gold) pairs that agree on the tool but could not be kept without breaking the order; both
    #: indices are also in ``unmatched_pred``/``unmatched_gold`` (they count as FP and FN, ``out_of_order``)
    out_of_order: tuple[tuple[int, int], ...] = ()
    #: the gold was :data:`ek.calls.ANY_CALL` (some call, whichever), not a list of calls
    any_call: bool = False

    @property
    def pairs(self) -> tuple[PairExplanation, ...]:
        """Each matched (pred, gold) pair with its per-argument checks."""
        pairs = self._pairs
        if type(pairs) is PairRecords:
            pairs = _build_pairs(pairs)
            object.__setattr__(self, "_pairs", pairs)
        return pairs

    @property
    def units(self) -> tuple[Unit, ...]:
        """Every counted unit, TP, FP and FN, with its reason."""
        units = self._units
        if type(units) is UnitRows:
            units = tuple(Unit(*row) for row in units)
            object.__setattr__(self, "_units", units)
        return units

    def failed_checks(self) -> list[tuple[str, str, str]]:
        """``(tool, arg, status)`` of every failing argument check of an inexact pair (what ``ek score``
        counts per argument), read without building the pairs when they are not built yet."""
        pairs = self._pairs
        if type(pairs) is PairRecords:
            return [(tool, row[0], row[1]) for _i, _j, tool, exact, rows in pairs if not exact
                    for row in rows if row[1] not in OK_STATUSES]
        return [(p.tool, c.arg, c.status) for p in pairs if not p.exact for c in p.checks if not c.ok]

    def _fields(self) -> tuple[Any, ...]:
        return (self.pred, self.gold, self.pairs, self.unmatched_pred, self.unmatched_gold, self.units,
                self.parse_error, self.cut_short, self.out_of_order)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Explanation):  # a DeferredExplanation equals the explanation it defers
            return NotImplemented
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        names = ("pred", "gold", "pairs", "unmatched_pred", "unmatched_gold", "units", "parse_error", "cut_short",
                 "out_of_order")
        return "Explanation(" + ", ".join(f"{n}={v!r}" for n, v in zip(names, self._fields())) + ")"

    def errors(self) -> tuple[Unit, ...]:
        """The FP and FN units, each with its reason.

        Fast path while the units are still rows (:class:`UnitRows`): only the FP and FN rows become
        :class:`Unit` objects (an alignment reads only those: the TP units are half of them), the same objects
        ``units`` would hold; the rows stay rows.
        """
        units = self._units
        if type(units) is UnitRows:
            return tuple(Unit(*row) for row in units if row[0] != TP)
        return tuple(u for u in units if u.kind != TP)

    def __str__(self) -> str:
        lines = []
        if self.parse_error:
            lines.append(f"output not parsed: {self.parse_error}")
        if self.any_call:
            lines.append(f"gold: some call, whichever; the output holds {len(self.pred)} call(s)")
        for pair in self.pairs:
            mark = "exact" if pair.exact else "inexact"
            lines.append(f"pred #{pair.pred_index} -> gold #{pair.gold_index} {pair.tool}: {mark}")
        late = dict(self.out_of_order)
        lines.extend(f"pred #{i} {self.pred[i].name}: " + (f"out of order (gold #{late[i]})" if i in late
                                                           else "unmatched") for i in self.unmatched_pred)
        lines.extend(f"gold #{i} {self.gold[i].name}: unmatched" for i in self.unmatched_gold)
        lines.extend("  " + u.describe() for u in self.units if u.kind != TP)
        return "\n".join(lines) if lines else "nothing predicted, nothing expected"

    def to_dict(self) -> dict[str, Any]:
        return {
            "pred": [{"name": s.name, "arguments": encode_value(dict(s.args))} for s in self.pred],
            "gold": [{"name": s.name, "arguments": encode_value(dict(s.args))} for s in self.gold],
            "pairs": [
                {"pred": p.pred_index, "gold": p.gold_index, "tool": p.tool, "exact": p.exact,
                 "checks": [c.to_dict() for c in p.checks]}
                for p in self.pairs
            ],
            "unmatched_pred": list(self.unmatched_pred),
            "unmatched_gold": list(self.unmatched_gold),
            "out_of_order": [{"pred": i, "gold": j} for i, j in self.out_of_order],
            "units": [u.to_dict() for u in self.units],
            "parse_error": self.parse_error,
            "cut_short": self.cut_short,
            **({"any_call": True} if self.any_call else {}),
        }


#: The fields of an explanation whose pairs are all exact and cover every call (see DeferredExplanation).
ALL_EXACT_FIELDS: Mapping[str, Any] = MappingProxyType({
    "unmatched_pred": (), "unmatched_gold": (), "parse_error": None, "cut_short": False, "out_of_order": (),
    "any_call": False})

#: The fields of an explanation with no order broken, no parse error and gold a list of calls.
PLAIN_FIELDS: Mapping[str, Any] = MappingProxyType({
    "parse_error": None, "cut_short": False, "out_of_order": (), "any_call": False})

#: The fields a build sets (everything but pred and gold).
_BUILT_FIELDS = ("_pairs", "_units", "unmatched_pred", "unmatched_gold", "parse_error", "cut_short", "out_of_order",
                 "any_call")

#: What a deferred explanation knows of its pairs that may hold a mistake: ``(tool, exact, check rows)`` each,
#: in gold order (the pairs of the explanation it defers that are not among them are exact).
FailedPairs = tuple[tuple[str, bool, tuple[CheckRow, ...]], ...]


class _DeferredField:
    """A field of a :class:`DeferredExplanation` that may not be set yet: read from the field's slot (the one
    :class:`Explanation` has) once set, else worked out then, once (:meth:`DeferredExplanation._fill`).

    A descriptor per such field, not a ``__getattr__`` on the class: with ``__getattr__``, every attribute of
    the class is looked up through a hook (``pred``, ``gold``, ``parse_error``: four times a slot's read each,
    and read for every corpus line), while a descriptor costs only the reads of the fields it stands for.
    """

    __slots__ = ("_name", "_slot")

    def __init__(self, name: str) -> None:
        self._name = name
        self._slot = Explanation.__dict__[name]  # the field's slot

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        try:
            return self._slot.__get__(obj, owner)
        except AttributeError:  # not set yet
            return obj._fill(self._name)

    def __set__(self, obj: Any, value: Any) -> None:
        self._slot.__set__(obj, value)


class DeferredExplanation(Explanation):
    """An :class:`Explanation` whose pairs and units are worked out on first read, by ``build`` (which returns
    the whole explanation): what a fast path hands over when it knows the score without them
    (:mod:`ek.scorer.exact`). Reading ``pairs``, ``units`` or anything derived from them, comparing,
    hashing, printing or pickling builds them once; a pickled copy is a plain :class:`Explanation`.
    """

    #: _deferred: ``(known, inexact)`` as given, one slot for both (one setter call less per score made)
    __slots__ = ("_build", "_deferred")

    # the fields set on first read (_BUILT_FIELDS but parse_error, which is set at creation)
    _pairs = _DeferredField("_pairs")
    _units = _DeferredField("_units")
    unmatched_pred = _DeferredField("unmatched_pred")
    unmatched_gold = _DeferredField("unmatched_gold")
    cut_short = _DeferredField("cut_short")
    out_of_order = _DeferredField("out_of_order")
    any_call = _DeferredField("any_call")

    def __init__(self, pred: tuple[Step, ...], gold: tuple[Step, ...], build: Callable[[], Explanation],
                 known: Mapping[str, Any] = ALL_EXACT_FIELDS, inexact: FailedPairs = ()) -> None:
        """``pred`` and ``gold`` as scored; ``known``: the other fields known without building (by default those
        of an explanation whose every pair is exact and covers every call; they are set on first read);
        ``inexact``: the pairs that may hold a mistake (:data:`FailedPairs`), which ``failed_checks`` reads
        without building."""
        set_pred, set_gold, set_build, set_deferred, set_parse_error = _DEFERRED_SLOTS
        set_pred(self, pred)
        set_gold(self, gold)
        set_build(self, build)
        set_deferred(self, (known, inexact))
        # parse_error is set at once: every corpus line reads it (is_exact), and a field first read through
        # its _DeferredField costs an AttributeError, three times the whole construction
        set_parse_error(self, known["parse_error"])

    def _fill(self, name: str) -> Any:
        """The value of field ``name``, read before it was set (see :class:`_DeferredField`): set from ``known``
        when it is known, else every built field is set from the explanation ``build`` returns, once."""
        known = self._deferred[0]
        if name in known:
            value = known[name]
            object.__setattr__(self, name, value)
            return value
        full = self._build()
        for field in _BUILT_FIELDS:
            object.__setattr__(self, field, object.__getattribute__(full, field))
        object.__setattr__(self, "_build", None)
        return object.__getattribute__(self, name)

    def failed_checks(self) -> list[tuple[str, str, str]]:
        """Read from the pairs that may hold a mistake while the pairs are not built yet (the others are
        exact: nothing of theirs fails)."""
        if self._build is not None:
            inexact = self._deferred[1]
            return [(tool, row[0], row[1]) for tool, exact, rows in inexact if not exact
                    for row in rows if row[1] not in OK_STATUSES] if inexact else []
        return super().failed_checks()

    def __reduce__(self) -> tuple[Any, ...]:
        return (Explanation, (self.pred, self.gold, self._pairs, self.unmatched_pred, self.unmatched_gold,
                              self._units, self.parse_error, self.cut_short, self.out_of_order, self.any_call))


#: DeferredExplanation's slot setters used at creation (see slot_setters).
_DEFERRED_SLOTS: tuple[Callable[[Any, Any], None], ...] = ()

Exact = int | Fraction  # an exact non-negative count: int when integral (fast), else a Fraction


#: check status -> the unit kinds it produces
_KINDS_OF_STATUS: Mapping[str, tuple[str, ...]] = {
    "match": (TP,),
    "wrong_value": (FP, FN),
    "invalid_value": (FP, FN),
    "missing_arg": (FN,),
    "hallucinated_arg": (FP,),
    "ignored": (),
}


def _unit_kinds(status: str, expected: Any) -> tuple[str, ...]:
    """The unit kinds a check row of ``status`` counts: its status's, except an invalid value where nothing was
    expected (an argument the gold does not have), which is only an FP."""
    if status == "invalid_value" and expected is ABSENT:
        return (FP,)
    return _KINDS_OF_STATUS[status]


def unit_rows_from_checks(
    checks: Iterable[CheckRow],
    tool: str = "",
    scale: float = 1.0,
    pred_index: int | None = None,
    gold_index: int | None = None,
    into: list[UnitRow] | None = None,
) -> list[UnitRow]:
    """:func:`units_from_checks` on check rows, giving unit rows (no object is built: the metric's hot path),
    appended to ``into`` when given (and returned)."""
    units: list[UnitRow] = [] if into is None else into
    for arg, status, weight, expected, got, detail in checks:
        for kind in _unit_kinds(status, expected):
            units.append((kind, status, unit_weight(scale, weight), tool, arg, expected, got, pred_index, gold_index,
                          detail))
    return units


def tally_check_rows(checks: Iterable[CheckRow], tool: str, scale: float,
                     tally: dict[TallyKey, list[Any]]) -> None:
    """Count the units of check rows into ``tally`` (as :func:`tally_unit_rows` takes them): what
    :func:`unit_rows_from_checks` then :func:`tally_unit_rows` count, without making the unit rows.

    A fast path for scoring, which needs only the counts of a pair whose explanation is built later: it
    skips the ten-field unit tuple per unit (the row's kinds, key and weight ``unit_weight(scale, weight)``
    are the same, so the same exact weights are added under the same keys; sums of exact numbers do not
    depend on their order)."""
    known = _WEIGHT_CACHE
    for row in checks:
        status = row[1]
        kinds = _unit_kinds(status, row[3])
        if not kinds:
            continue
        importance = row[2]
        weight = scale if importance == 1.0 else unit_weight(scale, importance)
        exact = known.get(weight)
        if exact is None:
            exact = weight_exact(weight)
        for kind in kinds:
            key = (kind, tool, status)
            slot = tally.get(key)
            if slot is None:
                tally[key] = [exact, 1]
            else:
                slot[0] += exact
                slot[1] += 1


def tally_pair_rows(checks: Sequence[CheckRow], tool: str, scale: float, tally: dict[TallyKey, list[Any]]) -> bool:
    """Count a matched pair's units into ``tally``: the call's own TP ``match`` of weight ``scale``, then its
    check rows' (what ``tally_add`` of the call's unit then :func:`tally_check_rows` count); whether the pair
    is exact (no row is a mistake: every status in :data:`OK_STATUSES`), told in the same pass.

    A fast path for the usual pair: the call's unit and every ``match`` row of importance 1 weigh ``scale``
    each (``scale * 1.0`` is ``scale``) under the one key ``(TP, tool, "match")``, so they are added at once,
    ``k`` units of ``k`` times the weight's exact value (what ``k`` additions of it sum to: exact numbers),
    and only the other rows are counted one by one. Skipped: a key, a lookup and an addition per such row."""
    matches = 1
    exact = True
    rest: list[CheckRow] = []
    for row in checks:
        status = row[1]
        if status == "match":
            if row[2] == 1.0:
                matches += 1
                continue
        elif status != "ignored":
            exact = False
        rest.append(row)
    weight = _WEIGHT_CACHE.get(scale)
    tally_add(tally, (TP, tool, "match"), (weight_exact(scale) if weight is None else weight) * matches, matches)
    if rest:
        tally_check_rows(rest, tool, scale, tally)
    return exact


#: What :func:`one_pair_parts` gives: TP, FP, FN, the frozen tally and whether the pair is exact.
PairParts = tuple[Any, Any, Any, Mapping[tuple[str, str, str], tuple[Any, int]], bool]


def one_pair_parts(checks: Sequence[CheckRow], tool: str, scale: float) -> PairParts | None:
    """TP, FP, FN and frozen tally of a score whose only units are one matched pair's at level ``arg`` (the
    call's TP ``match`` of weight ``scale``, then its check rows'), and whether the pair is exact: what
    :func:`tally_pair_rows` into an empty tally then :meth:`Score.from_exact_tally` give, when at most one row
    counts apart from the call's unit and the ``match`` rows of importance 1 (a wrong output's usual pair: one
    wrong, missing or extra argument); None otherwise (count them the general way).

    A fast path for a wrong output's result: it skips the tally being counted (a list per key), the sort and
    the second copy :meth:`Score.from_exact_tally` makes. It is safe because such a tally has at most three
    keys, all of one tool: the row's FN and FP (``_unit_kinds``: one or both, under the row's status) and the
    TP ``match``, in that order when sorted (``"fn" < "fp" < "tp"``); each weight is what the general way
    sums for its key (one row's :func:`weight_exact`; ``matches`` units of ``scale``'s), in its normal form."""
    matches = 1
    other: CheckRow | None = None
    for row in checks:
        status = row[1]
        if status == "match":
            if row[2] == 1.0:
                matches += 1
                continue
        elif status == "ignored":
            continue  # no unit
        if other is not None:
            return None  # two rows that count apart: the general way
        other = row
    weight = _WEIGHT_CACHE.get(scale)
    tp = (weight_exact(scale) if weight is None else weight) * matches
    if type(tp) is not int:
        tp = _exact(tp)
    if other is None:
        return tp, 0, 0, MappingProxyType({(TP, tool, "match"): (tp, matches)}), True
    status = other[1]
    kinds = _unit_kinds(status, other[3])
    if TP in kinds:
        return None  # a match of another importance: counted under the call's key, the general way
    exact = weight_exact(unit_weight(scale, other[2]))
    tally: dict[TallyKey, tuple[Exact, int]] = {}
    fp: Exact = 0
    fn: Exact = 0
    if FN in kinds:
        tally[(FN, tool, status)] = (exact, 1)
        fn = exact
    if FP in kinds:
        tally[(FP, tool, status)] = (exact, 1)
        fp = exact
    tally[(TP, tool, "match")] = (tp, matches)
    return tp, fp, fn, MappingProxyType(tally), False


def units_from_checks(
    checks: Iterable[ArgCheck],
    *,
    tool: str = "",
    scale: float = 1.0,
    pred_index: int | None = None,
    gold_index: int | None = None,
) -> list[Unit]:
    """Turn per-field comparisons into weighted units (weight = ``scale`` x field weight).

    A present-but-invalid value with no gold counterpart is only an FP.
    """
    rows = [(c.arg, c.status, c.weight, c.expected, c.got, c.detail) for c in checks]
    return [Unit(*row) for row in unit_rows_from_checks(rows, tool, scale, pred_index, gold_index)]


def _exact(value: Any) -> Exact:
    """A count as an exact number: an int, or a Fraction. A float is read as the decimal it prints as (its
    shortest repr, which reads back as the same float): ``0.1`` is 1/10, the weight a grammar wrote, not the
    binary fraction nearest it, so sums of decimal weights are the decimal sums (thirty units of 0.03: 9/10,
    which prints as 0.9), rounded once, when read as a float."""
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)):
        raise TypeError(f"score counts must be numbers, got {value!r}")
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError(f"score counts must be finite and non-negative, got {value!r}")
        value = int(value) if value.is_integer() else Fraction(repr(value))
    if value < 0:
        raise ValueError(f"score counts must be finite and non-negative, got {value!r}")
    if isinstance(value, Fraction) and value.denominator == 1:
        return value.numerator
    exact: Exact = value
    return exact


#: tally key: (kind, tool, reason) -> (exact weight, unit count)
TallyKey = tuple[str, str, str]


def _freeze_tally(value: Mapping[TallyKey, tuple[Any, int]] | None) -> Mapping[TallyKey, tuple[Exact, int]]:
    if not value:
        return MappingProxyType({})
    return MappingProxyType({k: (_exact(w), int(n)) for k, (w, n) in sorted(value.items())})


_WEIGHT_CACHE: dict[float, Exact] = {}


def weights_past_float(grammar: Any) -> str | None:
    """Why a grammar's weights cannot be counted, or None when they can.

    A tool's call weighs at most ``weight * (1 + the sum of its arguments' importance)``: its own
    unit and each argument's (``weight * importance``), and a pair's agreement. Those are floats;
    past a float's range (a weight and an importance near 1e308) they are infinite, and every
    score of such a call would raise. The exact sums of :class:`Score` never overflow.
    """
    for tool in grammar.tools:
        reach = 1.0 + sum(field.importance for field in tool.fields)
        if not math.isfinite(tool.weight * reach):
            return (f"tool {tool.name!r}: its weight ({tool.weight:g}) times 1 plus its arguments' importance "
                    f"({reach:g}) is past a float's range (about 1.8e308), so its calls could not be counted; "
                    "make the weights smaller")
    return None


_UNIT_WEIGHTS: dict[tuple[float, float], float] = {}


def unit_weight(weight: float, importance: float) -> float:
    """The weight of one argument's unit: its call's weight times its importance, multiplied as the decimal
    numbers a grammar writes them (``0.1`` and ``0.7``: 0.07) and rounded once to the nearest float, where
    the float product multiplies their binary approximations (0.06999999999999999). Summed over a corpus,
    the units then read as the numbers a user works out by hand (30 of them: 2.1, not 2.0999999999999996).
    Every place that weighs an argument's unit asks here, so fast and general paths count the same weight.
    The decimal of a float is its shortest repr, the number the grammar gave when it gave at most 17 digits.
    """
    if importance == 1.0:
        return weight
    if weight == 1.0:
        return importance
    key = (weight, importance)
    product = _UNIT_WEIGHTS.get(key)
    if product is None:
        try:
            product = float(Fraction(repr(weight)) * Fraction(repr(importance)))
        except (ValueError, OverflowError):  # inf or nan, or a product past a float (a grammar built in code):
            product = weight * importance      # the float product, inf or nan as before
        if len(_UNIT_WEIGHTS) < 4096:
            _UNIT_WEIGHTS[key] = product
    return product


def weight_exact(weight: float) -> Exact:
    """Exact value of a unit weight; weights repeat a lot, so conversions are cached."""
    exact = _WEIGHT_CACHE.get(weight)
    if exact is None:
        exact = _exact(weight)
        if len(_WEIGHT_CACHE) < 4096:
            _WEIGHT_CACHE[weight] = exact
    return exact


def _ratio(num: Exact, den: Exact) -> float:
    if type(num) is int and type(den) is int:
        # fast path (precision, recall and F1 of whole counts: most scores): int / int is correctly rounded in
        # Python, and so is float(Fraction(num, den)), which divides the reduced numerator and denominator as
        # ints: the same rational, so the same float, without building the Fraction (ten times the cost)
        return num / den if den else 1.0
    return float(Fraction(num, den)) if den else 1.0


def _costliest_first(item: tuple[str, list[Any]]) -> tuple[Any, str]:
    """Sort key of a reason's ``(reason, [weight, count])``: most weight first, then by name."""
    return -item[1][0], item[0]


@attrs.frozen(eq=False)
class Score:
    """Weighted TP/FP/FN of one episode (or, after ``+``, of many).

    Scores form a monoid: ``Score()`` is the zero and ``+`` adds counts exactly,
    so any split of a corpus merges back to the same totals. ``precision``,
    ``recall`` and ``f1`` are 1.0 when there is nothing to count (nothing
    expected and nothing predicted is a perfect answer).

    >>> s = Score(tp=2, fp=1, fn=1)
    >>> s.f1, (s + Score(tp=1)).f1, dict(s.detail)
    (0.6666666666666666, 0.75, {'tp': 2.0, 'fp': 1.0, 'fn': 1.0})
    """

    _tp: Exact = attrs.field(default=0, converter=_exact, alias="tp")
    _fp: Exact = attrs.field(default=0, converter=_exact, alias="fp")
    _fn: Exact = attrs.field(default=0, converter=_exact, alias="fn")
    tally: Mapping[TallyKey, tuple[Exact, int]] = attrs.field(factory=dict, converter=_freeze_tally)
    episodes: int = 1
    explanation: Explanation | None = None

    @property
    def tp(self) -> float:
        return float(self._tp)

    @property
    def fp(self) -> float:
        return float(self._fp)

    @property
    def fn(self) -> float:
        return float(self._fn)

    @property
    def exact_counts(self) -> tuple[Exact, Exact, Exact]:
        """TP, FP, FN as exact numbers (int or Fraction): what sums are made of."""
        return self._tp, self._fp, self._fn

    @property
    def detail(self) -> Mapping[str, float]:
        """``{"tp": ..., "fp": ..., "fn": ...}`` as floats."""
        return MappingProxyType({"tp": self.tp, "fp": self.fp, "fn": self.fn})

    @property
    def precision(self) -> float:
        return _ratio(self._tp, self._tp + self._fp)

    @property
    def recall(self) -> float:
        return _ratio(self._tp, self._tp + self._fn)

    @property
    def f1(self) -> float:
        return _ratio(2 * self._tp, 2 * self._tp + self._fp + self._fn)

    @property
    def value(self) -> float:
        """The headline number: F1."""
        return self.f1

    def unit_counts(self) -> dict[str, int]:
        """Unweighted unit counts per kind (every unit counts 1, whatever its weight)."""
        out = {TP: 0, FP: 0, FN: 0}
        for (kind, _tool, _reason), (_w, n) in self.tally.items():
            out[kind] += n
        return out

    def by_tool(self) -> dict[str, Score]:
        """This score split per tool name (exact, sums back to the whole)."""
        parts: dict[str, dict[TallyKey, tuple[Exact, int]]] = {}
        for key, val in self.tally.items():
            parts.setdefault(key[1], {})[key] = val
        return {tool: Score._of_frozen_part(t) for tool, t in sorted(parts.items())}

    @classmethod
    def _of_frozen_part(cls, part: dict[TallyKey, tuple[Exact, int]]) -> Score:
        """``Score.from_tally(part, episodes=0)`` for ``part``, the items of a Score's tally taken in its order
        (:meth:`by_tool`'s fast path: 740 tools of a BFCL run, 15 ms of its report).

        Skips what ``from_tally`` and the field converters do again for each item: check and normalise its
        weight, sort and copy the tally. Safe: every Score's tally is frozen (sorted, ``(exact weight,
        count)`` values, normal: ``_freeze_tally``'s, or what ``of_exact_parts`` is handed, which it
        promises), so a part taken in its order is too. Only the three sums are made normal here (Fractions
        can add up to a whole number), and an unknown unit kind fails as in ``from_tally``.
        """
        tp: Exact = 0
        fp: Exact = 0
        fn: Exact = 0
        for (kind, _tool, _reason), (w, _n) in part.items():
            if kind == TP:
                tp += w
            elif kind == FP:
                fp += w
            elif kind == FN:
                fn += w
            else:
                raise KeyError(kind)  # not a unit kind
        score = object.__new__(cls)
        set_tp, set_fp, set_fn, set_tally, set_episodes, set_explanation = _SCORE_SLOTS
        set_tp(score, tp if type(tp) is int else _exact(tp))
        set_fp(score, fp if type(fp) is int else _exact(fp))
        set_fn(score, fn if type(fn) is int else _exact(fn))
        set_tally(score, MappingProxyType(part))
        set_episodes(score, 0)
        set_explanation(score, None)
        return score

    def by_reason(self) -> dict[str, tuple[float, int]]:
        """Weighted total and unit count of each FP/FN reason, most costly first."""
        acc: dict[str, list[Any]] = {}
        for (kind, _tool, reason), (w, n) in self.tally.items():
            if kind == TP:
                continue
            slot = acc.get(reason)
            if slot is None:  # [w, n], not [0, 0] then added: the same numbers (0 + w is w, of w's type)
                acc[reason] = [w, n]
            else:
                slot[0] += w
                slot[1] += n
        # one reason (most episodes) needs no sorting
        ranked = sorted(acc.items(), key=_costliest_first) if len(acc) > 1 else acc.items()
        return {r: (float(w), n) for r, (w, n) in ranked}

    @classmethod
    def from_tally(cls, tally: Mapping[TallyKey, tuple[Any, int]], *, episodes: int = 1,
                   explanation: Explanation | None = None) -> Score:
        """The Score of ``tally`` (``(kind, tool, reason) -> (weight, count)``), every weight and count checked.

        What ``cls(tp=..., fp=..., fn=..., tally=tally, ...)`` with the sums makes, in one pass: each weight
        is checked and made exact (``_exact``) once, summed, and kept for the frozen tally (sorted, counts
        made ints), where the field converters checked and converted every weight a second time. The same
        checks fail in the same order (weights in the tally's order, an unknown kind before its weight;
        then counts in sorted order).
        """
        sums: dict[str, Exact] = {TP: 0, FP: 0, FN: 0}
        exact: dict[TallyKey, tuple[Exact, Any]] = {}
        for key, (w, n) in tally.items():
            kind, _tool, _reason = key
            sums[kind] += (w := _exact(w))  # the kind looked up before the weight is checked, as before
            exact[key] = (w, n)
        score = object.__new__(cls)
        set_tp, set_fp, set_fn, set_tally, set_episodes, set_explanation = _SCORE_SLOTS
        set_tp(score, _exact(sums[TP]))
        set_fp(score, _exact(sums[FP]))
        set_fn(score, _exact(sums[FN]))
        set_tally(score, MappingProxyType({k: (w, int(n)) for k, (w, n) in sorted(exact.items())}))
        set_episodes(score, episodes)
        set_explanation(score, explanation)
        return score

    @classmethod
    def from_units(cls, units: Iterable[Unit], *, explanation: Explanation | None = None) -> Score:
        return cls.from_unit_rows([(u.kind, u.reason, u.weight, u.tool) for u in units], explanation=explanation)

    @classmethod
    def from_unit_rows(cls, rows: Iterable[tuple[Any, ...]], *, explanation: Explanation | None = None) -> Score:
        """The score of units given as rows that start ``(kind, reason, weight, tool, ...)`` (:data:`UnitRow`):
        what :meth:`from_units` gives for the same units, without building them."""
        tally: dict[TallyKey, list[Any]] = {}
        tally_unit_rows(rows, tally)
        return cls.from_exact_tally(tally, explanation)

    @classmethod
    def from_exact_tally(cls, tally: Mapping[TallyKey, list[Any]], explanation: Explanation | None) -> Score:
        """A one-episode score from a tally being counted: ``[exact weight, count]`` per key, the weights sums
        of exact non-negative numbers (:func:`weight_exact`'s; :func:`tally_unit_rows` counts them so). It
        skips the field converters, which would only check again what holds already, and normalises an
        integral Fraction to an int as ``_exact`` does."""
        frozen: dict[TallyKey, tuple[Exact, int]] = {}
        tp: Exact = 0
        fp: Exact = 0
        fn: Exact = 0
        # the keys sorted, not the items (the same order, as keys differ; an item's comparison first tests its
        # keys for equality, then orders them: twice the work of the lookup per key it spares), and three
        # sums, not a dict of them (an addition, not a lookup and a store, per key); one key has one order, so
        # it is not sorted (the sort would only copy it into a list)
        for key in sorted(tally) if len(tally) > 1 else tally:
            w, n = tally[key]
            if type(w) is not int:
                w = _exact(w)
            frozen[key] = (w, n)
            kind = key[0]
            if kind == TP:
                tp += w
            elif kind == FP:
                fp += w
            elif kind == FN:
                fn += w
            else:
                raise KeyError(kind)  # not a unit kind
        return cls.of_exact_parts(tp if type(tp) is int else _exact(tp), fp if type(fp) is int else _exact(fp),
                                  fn if type(fn) is int else _exact(fn), MappingProxyType(frozen), explanation)

    @classmethod
    def from_summed_tally(cls, tally: Mapping[TallyKey, list[Any]], episodes: int) -> Score:
        """The score of ``episodes`` episodes whose tallies were summed into ``tally`` (``[exact weight, count]``
        per key, each weight a sum of weights of frozen tallies: a :class:`ek.corpus.summary.Summary`'s).

        Fast path of ``Score.from_tally(tally, episodes=episodes)`` (and of ``Score(tp, fp, fn, tally)`` with
        the tally's own sums): :meth:`from_exact_tally` skips what those check again of every weight
        (``_exact``: 6,000 keys in a BFCL run of 100,000 lines) and sorts the keys, not the items. Safe
        because a sum of frozen weights is exact and non-negative already; only a sum of Fractions that came
        out whole is not normal, and ``from_exact_tally`` makes it an int as ``_exact`` does. Counts are ints
        (sums of frozen counts), so ``int(n)`` would leave them as they are.
        """
        score = cls.from_exact_tally(tally, None)
        _SCORE_SLOTS[4](score, episodes)  # the episodes' slot
        return score

    @classmethod
    def of_exact_parts(cls, tp: Exact, fp: Exact, fn: Exact, tally: Mapping[TallyKey, tuple[Exact, int]],
                       explanation: Explanation | None) -> Score:
        """A one-episode score from counts already exact and normal (ints when integral) and a read-only
        tally already frozen (sorted, ``(exact weight, count)`` values) that agrees with them: shared, not
        copied (:mod:`ek.scorer.exact` hands over the same tally for every all-exact output of a gold)."""
        score = object.__new__(cls)
        set_tp, set_fp, set_fn, set_tally, set_episodes, set_explanation = _SCORE_SLOTS
        set_tp(score, tp)
        set_fp(score, fp)
        set_fn(score, fn)
        set_tally(score, tally)
        set_episodes(score, 1)
        set_explanation(score, explanation)
        return score

    def __add__(self, other: Score) -> Score:
        if not isinstance(other, Score):
            return NotImplemented
        tally = dict(self.tally)
        for key, (w, n) in other.tally.items():
            w0, n0 = tally.get(key, (0, 0))
            tally[key] = (w0 + w, n0 + n)
        return Score(tp=self._tp + other._tp, fp=self._fp + other._fp, fn=self._fn + other._fn,
                     tally=tally, episodes=self.episodes + other.episodes)

    def __radd__(self, other: Any) -> Score:
        if other == 0:  # lets sum(scores) work
            return self
        return NotImplemented

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Score):
            return NotImplemented
        return (self.exact_counts, dict(self.tally), self.episodes) == (
            other.exact_counts, dict(other.tally), other.episodes)

    def __hash__(self) -> int:
        return hash(self.exact_counts)

    def __reduce__(self) -> tuple[Any, ...]:
        # the tally is a read-only mapping proxy, which pickle cannot copy: rebuild from a dict
        return (_restore_score, (self._tp, self._fp, self._fn, dict(self.tally), self.episodes, self.explanation))

    def __repr__(self) -> str:
        return (f"Score(tp={self.tp:g}, fp={self.fp:g}, fn={self.fn:g}, precision={self.precision:.4f}, "
                f"recall={self.recall:.4f}, f1={self.f1:.4f}, episodes={self.episodes})")

    def to_dict(self) -> dict[str, Any]:
        return {"tp": self.tp, "fp": self.fp, "fn": self.fn, "precision": self.precision,
                "recall": self.recall, "f1": self.f1, "episodes": self.episodes}


def tally_unit_rows(rows: Iterable[tuple[Any, ...]], tally: dict[TallyKey, list[Any]]) -> None:
    """Count unit rows (``(kind, reason, weight, tool, ...)``, :data:`UnitRow`) into ``tally``: ``[exact weight,
    count]`` per ``(kind, tool, reason)``, what :meth:`Score.from_exact_tally` takes."""
    known = _WEIGHT_CACHE
    for row in rows:  # indexed, not unpacked with *_: that would build a list per row
        weight = row[2]
        exact = known.get(weight)
        if exact is None:
            exact = weight_exact(weight)
        key = (row[0], row[3], row[1])
        slot = tally.get(key)
        if slot is None:
            tally[key] = [exact, 1]
        else:
            slot[0] += exact
            slot[1] += 1


def tally_add(tally: dict[TallyKey, list[Any]], key: TallyKey, weight: Exact, count: int) -> None:
    """Add ``count`` units of total exact ``weight`` under ``key`` to a tally being counted."""
    slot = tally.get(key)
    if slot is None:
        tally[key] = [weight, count]
    else:
        slot[0] += weight
        slot[1] += count


def slot_setters(cls: type, *names: str) -> tuple[Callable[[Any, Any], None], ...]:
    """The setters of slotted attributes ``names`` of ``cls`` (a frozen attrs class): for code that builds
    many instances without ``__init__`` (its converters and validators already known to hold). Calling a
    slot's own setter skips the attribute lookup ``object.__setattr__`` makes: about half the time."""
    setters = []
    for name in names:
        for klass in cls.__mro__:
            if name in klass.__dict__:
                setters.append(klass.__dict__[name].__set__)
                break
        else:
            raise AttributeError(f"{cls.__name__} has no slot {name!r}")
    return tuple(setters)


_DEFERRED_SLOTS = slot_setters(DeferredExplanation, "pred", "gold", "_build", "_deferred", "parse_error")
#: Score's slot setters, in of_exact_parts' order.
_SCORE_SLOTS = slot_setters(Score, "_tp", "_fp", "_fn", "tally", "episodes", "explanation")


def _restore_score(tp: Exact, fp: Exact, fn: Exact, tally: dict[TallyKey, tuple[Exact, int]], episodes: int,
                   explanation: Explanation | None) -> Score:
    return Score(tp=tp, fp=fp, fn=fn, tally=tally, episodes=episodes, explanation=explanation)


ZERO = Score(episodes=0)


def merge(scores: Iterable[Score]) -> Score:
    """Sum scores (order does not matter: sums are exact)."""
    total = ZERO
    for s in scores:
        total = total + s
    return total


def micro_f1(scores: Iterable[Score]) -> float:
    """Micro-averaged F1: sum TP, FP, FN over all scores, then divide. Never a mean of F1s.

    >>> micro_f1([Score(tp=1), Score(fp=1, fn=1), Score()])
    0.5
    """
    return merge(scores).f1
