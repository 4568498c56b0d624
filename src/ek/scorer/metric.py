"""Tool-call correctness over a multiset of calls: the metric behind :mod:`ek.agents.toolcalls`.

Predicted calls are first *assigned* to gold calls (:mod:`ek.scorer.assign`);
each matched pair is then compared argument by argument
(:mod:`ek.scorer.agree`) and every unit is counted with the grammar's tool
``weight`` and argument ``importance`` (:mod:`ek.scorer.accounting`).

>>> from ek.calls import Step, after_of, must_precede
>>> score = ToolCallMetric(level="arg")([Step("search", {"q": "dogs"})], [("search", {"q": "cats"})])
>>> score.tp, score.fp, score.fn
(1.0, 1.0, 1.0)
"""

from __future__ import annotations

import bisect
import re
import sys
from collections import deque
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from functools import partial
from typing import Any

import attrs

import ek.runtime
from ek.calls import ANY_CALL, Precedence, Step, after_of
from ek.canon import Canonicalizer, get_canonicalizer
from ek.grammar.model import GraphGrammar
from ek.limits import EXACT_PAIRWISE_CALLS, MATCH_MAX_PAIRS
from ek.parsing import ParseError, coerce_call, get_format, parse_calls, read_plain_bfcl
from ek.runtime.api import grammar_of, validator_for
from ek.scorer.accounting import (
    ABSENT,
    FN,
    FP,
    OK_STATUSES,
    PLAIN_FIELDS,
    TP,
    ArgCheck,
    CheckRow,
    DeferredExplanation,
    Explanation,
    PairRecords,
    Score,
    TallyKey,
    UnitRow,
    UnitRows,
    micro_f1,
    one_pair_parts,
    tally_add,
    tally_pair_rows,
    unit_rows_from_checks,
    unit_weight,
    weight_exact,
)
from ek.scorer.agree import (
    ArgRule,
    arg_keys,
    compare_rows,
    content_order_key,
    declared_order,
    is_bfcl_mode,
    key_of,
    rules_for_tool,
)
from ek.scorer.assign import greedy_assignment, max_weight_assignment, ordered_assignment, weighted_lcs
from ek.scorer.exact import (
    ALL_EXACT,
    Cover,
    ExactPlan,
    call_parts,
    exact_candidates,
    exact_cover,
    exact_parts,
    exact_verdict,
    group_index,
    plan_exact,
    shallow,
)
from ek.scorer.goldcheck import gold_problems
from ek.scorer.turns import EpisodeScore, score_turns
from ek.values import OMITTABLE

#: What one unit is: ``call`` (a call, TP only on an exact match), ``arg`` (a call and each of its arguments) or
#: ``name`` (a call, TP when it calls a gold call's tool: tool selection, arguments not read).
LEVELS = ("call", "arg", "name")

#: How the order of calls counts: ``any`` (a multiset), ``strict`` (gold list order), ``gold`` (each gold call's
#: ``after`` constraints, free elsewhere; with no ``after`` anywhere it is ``any``).
ORDERS = ("any", "strict", "gold")


# --------------------------------------------------------------------------- inputs


def _to_step(obj: Any, where: str) -> Step:
    if isinstance(obj, Step):
        return obj
    if isinstance(obj, (tuple, list)) and len(obj) == 2 and isinstance(obj[0], str):
        name, args = obj
        if not isinstance(args, Mapping):
            raise TypeError(f"{where} {name!r}: args must be a mapping of argument name to value, "
                            f"got {type(args).__name__}")
        return Step(name, args)
    if isinstance(obj, Mapping):
        return coerce_call(obj, where)
    raise TypeError(f"{where}: expected a Step, a (name, args) tuple or a tool-call dict, "
                    f"got {type(obj).__name__}: {_short(obj)}")


def _short(obj: Any, limit: int = 80) -> str:
    try:
        text = repr(obj)
    except RecursionError:
        text = f"<{type(obj).__name__} nested too deeply to show>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _is_decoded_output(pred: Any) -> bool:
    """A non-empty list of JSON objects: a decoded model output (content blocks, tool calls, BFCL dicts).

    It is read like raw output, so text or reasoning blocks are skipped and an
    unreadable one scores as zero predicted calls instead of raising.
    """
    if not isinstance(pred, list) or not pred:
        return False
    for item in pred:  # a loop, not all() over a generator: this runs once per scored output
        if type(item) is not dict and not isinstance(item, Mapping):
            return False
    return True


def coerce_calls(calls: Any, side: str) -> tuple[Step, ...]:
    """Turn a sequence of call-likes into Steps, naming the offending call on bad input.

    Raw model output (a ``str``, ``bytes`` or one JSON object) is parsed with
    :func:`ek.parsing.parse_calls`; a parse failure raises :class:`ek.ParseError`.
    """
    if calls is None:
        return ()
    if type(calls) is PreparedGold:
        return calls.steps
    if type(calls) is list or type(calls) is tuple:  # the usual case, spared the ABC check below
        for c in calls:  # Steps already (gold built once, parsed calls): kept as they are, without a generator
            if type(c) is not Step:
                break
        else:
            return calls if type(calls) is tuple else tuple(calls)
        return tuple(c if type(c) is Step else _to_step(c, f"{side} call #{i}") for i, c in enumerate(calls))
    if isinstance(calls, (str, bytes, bytearray, Mapping)):
        return tuple(parse_calls(bytes(calls) if isinstance(calls, bytearray) else calls))
    if isinstance(calls, Step):
        raise TypeError(f"{side}: expected a list of calls, got a single Step {calls!r}; wrap it in a list")
    try:
        items = list(calls)
    except TypeError:
        raise TypeError(f"{side}: expected a list of calls, got {type(calls).__name__}: {_short(calls)}") from None
    return tuple(_to_step(c, f"{side} call #{i}") for i, c in enumerate(items))


@attrs.frozen(eq=False)
class PreparedGold:
    """Gold calls read once, to score many outputs against them (:meth:`ToolCallMetric.prepare`).

    Every metric accepts it wherever it accepts gold calls. The metric that prepared it also reuses what it
    worked out from the gold alone (the score of an all-exact output), which is most of the work left when
    an output is right: the same result, sooner. Several samples of one task (pass@k, an RL group) are
    scored this way.
    """

    #: the gold calls, as the metric reads them
    steps: tuple[Step, ...]
    #: the metric context it was read for, and what the all-exact path works out from the gold under it
    #: (:class:`~ek.scorer.exact.ExactPlan`; None when the metric's order rules that path out)
    _context: Any = attrs.field(repr=False)
    _exact: Any = attrs.field(repr=False)
    #: the calls as that context scores them (:meth:`_Context.without_nulls`); None: ``steps``, read again
    _read: Any = attrs.field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.steps)

    def __iter__(self) -> Iterator[Step]:
        return iter(self.steps)

    def __getitem__(self, index: int) -> Step:
        return self.steps[index]

    def __reduce__(self) -> tuple[Any, ...]:
        # the context holds compiled validators: a copy keeps the calls, and any metric reads them again
        return (PreparedGold, (self.steps, None, None))


# --------------------------------------------------------------------------- grammar context


def _resolve_grammar(grammar: Any) -> GraphGrammar | None:
    if grammar is None or isinstance(grammar, GraphGrammar):
        return grammar
    return grammar_of(grammar)


_PATH_HEAD = re.compile(r"""^\$(?:\.([^.\[]+)|\[("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')\])""")


def _top_arg(path: str) -> str | None:
    """The argument a JSON-path-like violation location starts with (``$.a[2].b`` -> ``a``)."""
    if path[:2] == "$." and "." not in path[2:] and "[" not in path:
        return path[2:] or None  # a top-level argument itself (most violations): what the pattern gives
    m = _PATH_HEAD.match(path)
    if not m:
        return None
    if m.group(1) is not None:
        return m.group(1)
    import json

    quoted = m.group(2)
    try:
        name = json.loads(quoted if quoted.startswith('"') else '"' + quoted[1:-1].replace('"', '\\"') + '"')
    except ValueError:
        return None
    return name if isinstance(name, str) else None


def _generated(source: Any) -> bool:
    """Is ``source`` (what the user passed for the grammar) a generated module or its path, which validates with
    its own code? Not a GraphGrammar, nor a ``.ek`` schema (validated by validators compiled per tool)."""
    if source is None or isinstance(source, GraphGrammar):
        return False
    return not ek.runtime.is_schema_path(source)  # the package's lazy export (the loader read the path already)


class _Context:
    """Per-metric caches: canonicalizer, grammar rules per tool, the schema validator."""

    def __init__(self, canon: Canonicalizer, grammar: GraphGrammar | None, validate: bool, source: Any = None) -> None:
        """``source``: what the user passed for the grammar; a generated module (or its path)
        validates with its own code, a schema or GraphGrammar with validators compiled per tool."""
        self.canon = canon
        self.grammar = grammar
        self._rules: dict[str, dict[str, ArgRule]] = {}
        self._weights: dict[str, float] = {}
        #: tool -> (its declared argument names, its compiled check or None): see violations
        self._checks: dict[str, tuple[frozenset[str], Callable[[Mapping[str, Any]], Sequence[Any]] | None]] = {}
        self._validator: Callable[[str, Mapping[str, Any]], Sequence[Any]] | None = None
        #: no grammar to say an argument is optional, or BFCL mode: a null is a value (without_nulls)
        self._keeps_nulls = grammar is None or is_bfcl_mode(canon)
        if grammar is not None and validate:
            self._validator = validator_for(source if _generated(source) else grammar)

    def rules(self, tool: str) -> dict[str, ArgRule] | None:
        """The tool's per-argument rules; None for a tool the grammar does not declare (or no grammar)."""
        rules = self._rules.get(tool)
        if rules is None:
            spec = self.grammar.tool(tool) if self.grammar is not None else None
            if spec is None:
                return None  # not remembered: names from model output must not grow the cache
            rules = self._rules[tool] = rules_for_tool(self.grammar, spec)  # type: ignore[arg-type]
        return rules

    def weight(self, tool: str) -> float:
        """The tool's weight; 1.0 for a tool the grammar does not declare (or no grammar)."""
        weight = self._weights.get(tool)
        if weight is None:
            spec = self.grammar.tool(tool) if self.grammar is not None else None
            if spec is None:
                return 1.0  # not remembered, as in rules()
            weight = self._weights[tool] = float(spec.weight)
        return weight

    def known(self, tool: str) -> bool:
        return self.grammar is None or self.grammar.tool(tool) is not None

    def without_nulls(self, steps: tuple[Step, ...]) -> tuple[Step, ...]:
        """``steps`` with each ``null`` (``None``) given for an optional argument left out, as if not given.

        The grammar's own reading of such a null (its validator, generated classes, ``ek import`` of a
        strict tool): OpenAI's strict mode has the model send every optional argument, ``null`` where it
        means to leave it out, and gold rarely writes those nulls. Scored as a value, each was a
        hallucinated argument, and every strict-mode call with an optional argument left out was wrong.
        Both sides are read so (a gold null, too, is an omission). Not without a grammar (nothing says an
        argument is optional) nor in BFCL mode (BFCL's checker takes a ``None`` as a value of the wrong type).
        """
        if self._keeps_nulls:
            return steps
        for step in steps:  # fast path: most outputs and golds hold no null at all
            if None in step.args.values():
                break
        else:
            return steps
        out: list[Step] | None = None
        for i, step in enumerate(steps):
            if None not in step.args.values():
                continue
            rules = self.rules(step.name)
            if rules is None:
                continue
            kept = {k: v for k, v in step.args.items()
                    if v is not None or k not in rules or rules[k].required}
            if len(kept) < len(step.args):
                out = list(steps) if out is None else out
                out[i] = attrs.evolve(step, args=kept)
        return steps if out is None else tuple(out)

    def arg_type(self, tool: str, arg: str) -> str | None:
        """The declared kind of ``tool``'s argument (``int``, ``str``, ...), or None: the parser's type hint
        for formats that write values as bare text (qwen3-coder, glm45, minimax-m2, DeepSeek's DSML), so ``"3"``
        for an int argument is 3."""
        rules = self.rules(tool) if self.grammar is not None else None
        rule = rules.get(arg) if rules else None
        return rule.kind if rule is not None else None

    def violations(self, step: Step) -> dict[str, str]:
        """Schema problems of a predicted call's arguments, keyed by top-level argument.

        Arguments the tool does not declare are always reported (with any grammar);
        value violations only when validation is on.
        """
        if self.grammar is None:
            return {}
        checks = self._checks.get(step.name)
        if checks is None:
            spec = self.grammar.tool(step.name)
            if spec is None:
                return {}  # not remembered: names from model output must not grow the cache
            checks = self._checks[step.name] = (frozenset(f.name for f in spec.fields), self._tool_check(step.name))
        declared, check = checks
        args = step.args
        if check is not None:
            found = check(args)
        elif self._validator is not None:
            found = self._validator(step.name, args)
        else:
            found = ()
        if not found and declared.issuperset(args):
            return {}
        out: dict[str, str] = {}
        for v in found:
            # ek.runtime's Violation renders its path and reason when read (the reason only if it is kept; the
            # path once: getattr, not hasattr then the attribute); a plain pair is read by index
            lazy_path = getattr(v, "path", None)
            path = str(v[0] if lazy_path is None else lazy_path)
            arg = _top_arg(path)
            if arg is not None and arg in args and arg not in out:
                out[arg] = f"{path}: {v[1] if lazy_path is None else v.reason}"
        for arg in args:
            if arg not in declared and arg not in out:  # (the validator's own text, when it gave one, is kept)
                out[arg] = f"$.{arg}: not an argument of {step.name!r} in {self.grammar.key}"
        return out

    def _tool_check(self, tool: str) -> Callable[[Mapping[str, Any]], Sequence[Any]] | None:
        """The compiled per-tool check behind the validator, when it has one (``GrammarValidator``): called
        directly, it spares a lookup per call; None otherwise (the validator is then called by tool name)."""
        tool_validator = getattr(self._validator, "tool_validator", None)
        return tool_validator(tool) if tool_validator is not None else None


class _DepthGuard:
    """Turn a RecursionError from absurdly nested argument values into a clear ValueError.

    Parsed model output is already bounded (see ek.parsing); this covers values handed in directly. A
    plain context manager class: a ``contextlib`` generator cost more than some whole comparisons.
    """

    __slots__ = ()

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: object) -> bool:
        if kind is not None and issubclass(kind, RecursionError):
            raise _too_deep() from None
        return False


def _too_deep() -> ValueError:
    """The error the guard turns a RecursionError into."""
    return ValueError("argument values are nested too deeply to compare "
                      f"(Python's recursion limit is {sys.getrecursionlimit()})")


_GUARD = _DepthGuard()


def _depth_guard() -> _DepthGuard:
    """The guard around scoring (see :class:`_DepthGuard`)."""
    return _GUARD


# --------------------------------------------------------------------------- assignment


@attrs.frozen
class _PairEval:
    exact: bool
    agreement: float
    #: the argument comparisons as :data:`~ek.scorer.accounting.CheckRow` tuples
    rows: tuple[CheckRow, ...]

    @property
    def checks(self) -> tuple[ArgCheck, ...]:
        return tuple(ArgCheck(*row) for row in self.rows)


def _evaluate(p: Step, g: Step, ctx: _Context, invalid: Mapping[str, str]) -> _PairEval:
    return _evaluation(compare_rows(p.args, g.args, ctx.rules(g.name), ctx.canon, invalid=invalid), ctx.weight(g.name))


def _evaluation(rows: Sequence[CheckRow], weight: float) -> _PairEval:
    """A pair's :class:`_PairEval` from its comparison ``rows`` (its tool's ``weight``): exact when no row is a
    mistake, agreement one plus the weights of its ``match`` rows, times the tool's weight."""
    agreement, exact = 1.0, True
    for row in rows:
        status = row[1]
        if status == "match":
            agreement += row[2]
        elif status != "ignored":
            exact = False
    return _PairEval(exact, agreement * weight, tuple(rows))


def _count_pair(tally: dict[TallyKey, list[Any]], tool: str, w: float, rows: Sequence[CheckRow], level: str) -> bool:
    """Count a matched pair's units (its comparison ``rows``, the tool's weight ``w``) into ``tally``; whether
    the pair is exact.

    Fast path of ``ToolCallMetric._pair_units`` then :func:`~ek.scorer.accounting.tally_unit_rows`, for a
    score whose explanation is built later: it skips the :class:`_PairEval` and the ten-field unit rows,
    which only the explanation reads. The units counted are the same (the call's own ``match`` of weight
    ``w``, then each row's at level ``arg``; at level ``call`` one ``match``, or an FP and an FN
    ``inexact_call``, of weight ``w``; :func:`~ek.scorer.accounting.tally_pair_rows` counts the first two),
    and so is the verdict (:func:`_evaluate`'s: exact when no row is a mistake)."""
    if level != "call":
        return tally_pair_rows(rows, tool, w, tally)  # (it tells the verdict in the same pass)
    exact = True
    for row in rows:
        if row[1] not in OK_STATUSES:
            exact = False
            break
    weight = weight_exact(w)
    for kind in ((TP,) if exact else (FP, FN)):
        tally_add(tally, (kind, tool, "match" if exact else "inexact_call"), weight, 1)
    return exact


#: (pred index, gold index) -> the pair's comparison, computed once per episode and reused (see _assign)
_Evals = dict[tuple[int, int], _PairEval]


def _evaluated(pred: Sequence[Step], gold: Sequence[Step], ctx: _Context, invalid: Sequence[Mapping[str, str]],
               i: int, j: int, evals: _Evals | None) -> _PairEval:
    """:func:`_evaluate` of pair (i, j), remembered in ``evals``: ranking a group compares the pairs it
    considers, and the chosen ones are then explained from the same comparison instead of a second one
    (``_evaluate`` is a pure function of the two calls, the context and the pred's violations)."""
    if evals is None:
        return _evaluate(pred[i], gold[j], ctx, invalid[i])
    ev = evals.get((i, j))
    if ev is None:
        ev = evals[(i, j)] = _evaluate(pred[i], gold[j], ctx, invalid[i])
    return ev


class _GroupRanker:
    """Ranks candidate (pred, gold) pairs of one tool group: (exact, agreement).

    Plain calls (no OneOf, tolerance or schema violation) are ranked from
    precomputed per-argument normal forms, which is what keeps large groups
    fast; anything else goes through the full comparison.
    """

    def __init__(self, pred: Sequence[Step], gold: Sequence[Step], ctx: _Context, tool: str,
                 pkeys: Mapping[int, dict[str, Any] | None], gkeys: Mapping[int, dict[str, Any] | None],
                 invalid: Sequence[Mapping[str, str]], evals: _Evals | None = None) -> None:
        self.pred, self.gold, self.ctx, self.invalid, self.evals = pred, gold, ctx, invalid, evals
        self.pkeys, self.gkeys = pkeys, gkeys
        rules = ctx.rules(tool) or {}
        self.importance = {name: r.importance for name, r in rules.items()}
        self.weight = ctx.weight(tool)

    def rank(self, i: int, j: int) -> tuple[bool, float]:
        pk, gk = self.pkeys[i], self.gkeys[j]
        if pk is None or gk is None:
            ev = _evaluated(self.pred, self.gold, self.ctx, self.invalid, i, j, self.evals)
            return ev.exact, ev.agreement
        p_args, g_args = self.pred[i].args, self.gold[j].args
        agreement = 1.0
        for name, key in gk.items():
            if (name in g_args or name in p_args) and name in pk and pk[name] == key:
                agreement += self.importance.get(name, 1.0)
        exact = len(pk) == len(gk) and all(name in pk and pk[name] == key for name, key in gk.items())
        return exact, agreement * self.weight


def _assign(
    pred: Sequence[Step], gold: Sequence[Step], ctx: _Context, optimal: bool,
    invalid: Sequence[Mapping[str, str]],
) -> tuple[list[tuple[int, int, _PairEval]], list[int], list[int]]:
    simple = _one_call_per_tool(pred, gold, ctx, invalid)
    if simple is not None:
        return simple
    evals: _Evals = {}
    chosen = _pair_up(pred, gold, ctx, optimal, invalid, range(len(pred)), range(len(gold)), evals)
    return _finish(pred, gold, ctx, invalid, chosen, evals)


def _one_call_per_tool(
    pred: Sequence[Step], gold: Sequence[Step], ctx: _Context, invalid: Sequence[Mapping[str, str]],
) -> tuple[list[tuple[int, int, _PairEval]], list[int], list[int]] | None:
    """Fast path of :func:`_assign` when no tool called on both sides is called twice on either (most
    episodes): what :func:`_pair_up` and :func:`_finish` give, with none of their grouping, ranking or
    sorting; ``None`` when a tool of both sides is called twice on one, or a paired call holds values with
    parts inside parts.

    Each tool group is then one call against one, which :func:`_only_pair` pairs whatever it holds (every
    assignment chooses its only pair), or calls of one side only, which stay unmatched; the pairs come in
    gold order, as :func:`_finish` sorts them. Deep values keep the full path, as :func:`_only_pair`'s
    callers do.
    """
    if len(pred) == 1 == len(gold):  # one call each (most outputs): the same answer, spared the dicts
        p, g = pred[0], gold[0]
        if p.name != g.name:
            return [], [0], [0]
        if not (shallow(p.args) and shallow(g.args)):
            return None
        return [(0, 0, _evaluate(p, g, ctx, invalid[0]))], [], []
    gold_at: dict[str, int] = {}
    repeated: set[str] = set()
    for j, g in enumerate(gold):
        if g.name in gold_at:
            repeated.add(g.name)
        gold_at[g.name] = j
    pred_at: dict[str, int] = {}
    for i, p in enumerate(pred):
        name = p.name
        if name in gold_at and (name in pred_at or name in repeated
                                or not (shallow(p.args) and shallow(gold[gold_at[name]].args))):
            return None  # a group of more than one by one, or deep values: the full path
        pred_at[name] = i
    pairs: list[tuple[int, int, _PairEval]] = []
    unmatched_gold: list[int] = []
    for j, g in enumerate(gold):
        i = pred_at.get(g.name)  # type: ignore[assignment]
        if i is None:
            unmatched_gold.append(j)
        else:
            pairs.append((i, j, _evaluate(pred[i], g, ctx, invalid[i])))
    unmatched_pred = [i for i, p in enumerate(pred) if p.name not in gold_at]
    return pairs, unmatched_pred, unmatched_gold


def _finish(
    pred: Sequence[Step], gold: Sequence[Step], ctx: _Context, invalid: Sequence[Mapping[str, str]],
    chosen: list[tuple[int, int]], evals: _Evals | None = None,
) -> tuple[list[tuple[int, int, _PairEval]], list[int], list[int]]:
    """The chosen pairs in gold order with their comparison, and the calls left over on each side."""
    if len(chosen) == len(pred) == len(gold) == 1:  # one call each, paired: nothing to sort or leave over
        return [(0, 0, _evaluated(pred, gold, ctx, invalid, 0, 0, evals))], [], []
    chosen.sort(key=lambda ij: (ij[1], ij[0]))
    pairs = [(i, j, _evaluated(pred, gold, ctx, invalid, i, j, evals)) for i, j in chosen]
    matched_p = {i for i, _ in chosen}
    matched_g = {j for _, j in chosen}
    return (pairs, [i for i in range(len(pred)) if i not in matched_p],
            [j for j in range(len(gold)) if j not in matched_g])


class TooManyPairs(ValueError):
    """An episode with more pairs of calls to compare and rank than :data:`ek.limits.MATCH_MAX_PAIRS`: refused,
    as a corpus run refuses its line, rather than scored for minutes."""

    def __init__(self, tool: str, preds: int, golds: int, pairs: int) -> None:
        super().__init__(f"too many calls to pair: {preds:,} predicted and {golds:,} gold calls of tool {tool!r} "
                         f"to compare pair by pair, {pairs:,} pairs in the episode, more than {MATCH_MAX_PAIRS:,} "
                         "(ek.limits.MATCH_MAX_PAIRS)")


def _pair_up(
    pred: Sequence[Step], gold: Sequence[Step], ctx: _Context, optimal: bool,
    invalid: Sequence[Mapping[str, str]], p_only: Iterable[int], g_only: Iterable[int],
    evals: _Evals | None = None,
) -> list[tuple[int, int]]:
    """Today's unordered assignment of the calls ``p_only`` to ``g_only``, tool by tool.

    ``evals`` collects the pair comparisons made while ranking (for :func:`_finish` to reuse).
    """
    by_name: dict[str, tuple[list[int], list[int]]] = {}
    for i in p_only:
        by_name.setdefault(pred[i].name, ([], []))[0].append(i)
    for j in g_only:
        by_name.setdefault(gold[j].name, ([], []))[1].append(j)

    chosen: list[tuple[int, int]] = []
    ranked = 0  # pairs ranked so far, held to MATCH_MAX_PAIRS
    for name in sorted(by_name):
        p_idx, g_idx = by_name[name]
        if not p_idx or not g_idx:
            continue
        plain = all(shallow(pred[i].args) for i in p_idx) and all(shallow(gold[j].args) for j in g_idx)
        if plain and _only_pair(p_idx, g_idx):
            chosen.append((p_idx[0], g_idx[0]))
            continue
        rules = ctx.rules(name)
        gkeys: dict[int, dict[str, Any] | None] | None = None
        if plain and len(p_idx) * len(g_idx) > EXACT_PAIRWISE_CALLS ** 2:
            # A large group whose gold calls all have normal forms goes straight to the buckets below, which
            # pair exact calls by equal normal forms in linear time and give what the exact edges' shortcuts
            # give (they were added to spare small groups the normal forms); the edges of, say, 2,000 calls
            # alike on each side are 4 million pairs.
            gkeys = {j: arg_keys(gold[j].args, rules, ctx.canon) for j in g_idx}
            if all(keys is not None for keys in gkeys.values()):
                plain = False
            else:
                gkeys = None
        if plain:
            edges = _exact_edges(pred, gold, ctx, invalid, p_idx, g_idx, evals)
            found = _exact_matching(edges, p_idx, g_idx)
            if found is None and not optimal and all(arg_keys(gold[j].args, rules, ctx.canon) is None
                                                     for j in g_idx):
                found = _greedy_exact_star(pred, gold, edges, p_idx, g_idx)
                if found is not None and found[1] and found[2]:
                    chosen.extend(found[0])
                    if _only_pair(found[1], found[2]):  # one call left on each side: the greedy pairs them
                        chosen.append((found[1][0], found[2][0]))
                        continue
                    p_idx, g_idx = found[1], found[2]
                    found = None
            if found is not None:
                pairs, rest_p, rest_g = found
                if not rest_p or not rest_g:
                    chosen.extend(pairs)
                    continue
                if not optimal:
                    chosen.extend(pairs)
                    if _only_pair(rest_p, rest_g):  # one call left on each side: the greedy pairs them
                        chosen.append((rest_p[0], rest_g[0]))
                        continue
                    p_idx, g_idx = rest_p, rest_g
        pkeys = {i: None if invalid[i] else arg_keys(pred[i].args, rules, ctx.canon) for i in p_idx}
        if gkeys is None:
            gkeys = {j: arg_keys(gold[j].args, rules, ctx.canon) for j in g_idx}
        # Fast path: a predicted call whose normal form equals a gold call's is an exact match,
        # and taking it can never hurt (agreement is an equivalence on such calls).
        buckets: dict[Any, deque[int]] = {}
        for j in g_idx:
            if gkeys[j] is not None:
                buckets.setdefault(key_of(gkeys[j]), deque()).append(j)  # type: ignore[arg-type]
        rest_p: list[int] = []
        taken: set[int] = set()
        for i in p_idx:
            keys = pkeys[i]
            bucket = buckets.get(key_of(keys)) if keys is not None else None
            if bucket:
                j = bucket.popleft()
                taken.add(j)
                chosen.append((i, j))
            else:
                rest_p.append(i)
        rest_g = [j for j in g_idx if j not in taken]
        if rest_p and rest_g:
            ranked += len(rest_p) * len(rest_g)
            if ranked > MATCH_MAX_PAIRS:
                raise TooManyPairs(name, len(rest_p), len(rest_g), ranked)
            ranker = _GroupRanker(pred, gold, ctx, name, pkeys, gkeys, invalid, evals)
            solver = _assign_optimal if optimal else _assign_greedy
            chosen.extend(solver(pred, gold, rest_p, rest_g, ranker))
    return chosen


def _only_pair(p_idx: Sequence[int], g_idx: Sequence[int]) -> bool:
    """Fast path: a tool called once on each side pairs those two calls, whatever they hold.

    It skips the normal forms and the ranking: with one candidate pair, the exact-match bucket, the greedy
    (exact or partial, it is the best and only pair) and the optimal assignment (every row or column of a
    1 x 1 matrix is used) all choose it, so the choice is the same and only the ranking work is saved.
    """
    return len(p_idx) == 1 and len(g_idx) == 1


def _exact_edges(
    pred: Sequence[Step], gold: Sequence[Step], ctx: _Context, invalid: Sequence[Mapping[str, str]],
    p_idx: list[int], g_idx: list[int], evals: _Evals | None,
) -> dict[tuple[int, int], _PairEval]:
    """Every exact pair of a tool group with its comparison, each pair compared only up to its first wrong
    argument (the full comparison of every pair, their normal forms and content keys are skipped).

    A pair of a valid predicted call that :func:`ek.scorer.exact.exact_verdict` finds not exact is not
    compared at all (its False means a comparison row is a mistake, so :func:`_exact_pair` would give None).
    """
    edges: dict[tuple[int, int], _PairEval] = {}
    rules = (ctx.rules(gold[g_idx[0]].name) or {}) if g_idx else {}
    bfcl_mode, canon = is_bfcl_mode(ctx.canon), ctx.canon
    # A large group is compared through an argument that tells its gold calls apart, when one does: a
    # predicted call that names one of them by it is compared with that one only (exact_candidates says why).
    index = group_index([gold[j].args for j in g_idx], rules, canon) \
        if len(p_idx) * len(g_idx) > EXACT_PAIRWISE_CALLS ** 2 else None
    for i in p_idx:
        args, valid = pred[i].args, not invalid[i]
        for j in exact_candidates(args, index, g_idx) if index is not None else g_idx:
            if valid and exact_verdict(args, gold[j].args, rules, bfcl_mode, canon) is False:
                continue
            ev = _exact_pair(pred, gold, ctx, invalid, i, j, evals)
            if ev is not None:
                edges[(i, j)] = ev
    return edges


def _exact_matching(
    edges: Mapping[tuple[int, int], _PairEval], p_idx: list[int], g_idx: list[int],
) -> tuple[list[tuple[int, int]], list[int], list[int]] | None:
    """Fast path for a tool group where no call has two exact partners: the exact pairs, and the calls of
    each side left without one; ``None`` when some call has two or more exact partners.

    It is safe because the exact pairs then form a matching: the exact-match bucket and the greedy take
    exact pairs before any partial one and never leave an exact pair whose two calls are both free, so
    they take all of these and rank only the calls left over; the optimal assignment, which maximises the
    number of exact pairs first, takes all of them too, and when one side is used up nothing else is left
    to choose.
    """
    exact_of_pred: dict[int, int] = {}
    exact_of_gold: dict[int, int] = {}
    for i, j in edges:
        if i in exact_of_pred or j in exact_of_gold:
            return None
        exact_of_pred[i], exact_of_gold[j] = j, i
    pairs = sorted(exact_of_pred.items())
    return (pairs, [i for i in p_idx if i not in exact_of_pred], [j for j in g_idx if j not in exact_of_gold])


def _greedy_exact_star(
    pred: Sequence[Step], gold: Sequence[Step], edges: Mapping[tuple[int, int], _PairEval],
    p_idx: list[int], g_idx: list[int],
) -> tuple[list[tuple[int, int]], list[int], list[int]] | None:
    """Fast path of the greedy for a group whose exact pairs share calls on one side only (a repeated
    call: two predicted calls exact for one gold call, or one predicted call exact for two gold calls):
    the exact pairs the greedy takes, and the calls left for its partial pairs; ``None`` otherwise.

    The greedy takes exact pairs in the order (-agreement, pred content key, gold content key, pred
    index, gold index). When every call on one side has at most one exact partner, the calls competing
    for a call of the other side compete for nothing else: the first in that order wins it, and no
    augmenting path can move a winner (it has no other exact partner), so the losers are left for the
    partial pairs, which the greedy ranks among the calls left over exactly as it does here. Only for
    the greedy with no exact-match bucket (callers check that gold has no plain normal form).
    """
    pred_degree: dict[int, int] = {}
    gold_degree: dict[int, int] = {}
    for i, j in edges:
        pred_degree[i] = pred_degree.get(i, 0) + 1
        gold_degree[j] = gold_degree.get(j, 0) + 1
    if max(pred_degree.values(), default=0) > 1 and max(gold_degree.values(), default=0) > 1:
        return None
    star_on_gold = max(gold_degree.values(), default=0) > 1
    degree = gold_degree if star_on_gold else pred_degree
    # The calls competing for one hub share its content key, so only their own keys order them (with the
    # agreement and their index, as in the greedy's order): each is computed only for a hub that has two
    # or more competitors, and once.
    keys: dict[int, str] = {}
    best: dict[int, tuple[Any, ...]] = {}  # the shared call -> the best (rank, pair) competing for it
    for (i, j), ev in edges.items():
        hub, rival, calls = (j, i, pred) if star_on_gold else (i, j, gold)
        if degree[hub] == 1:
            best[hub] = (0.0, "", i, j)
            continue
        key = keys.get(rival)
        if key is None:
            key = keys[rival] = content_order_key(calls[rival].args)
        rank = (-ev.agreement, key, i, j)
        if hub not in best or rank < best[hub]:
            best[hub] = rank
    pairs = sorted((rank[2], rank[3]) for rank in best.values())
    used_p, used_g = {i for i, _ in pairs}, {j for _, j in pairs}
    return pairs, [i for i in p_idx if i not in used_p], [j for j in g_idx if j not in used_g]


def _exact_pair(pred: Sequence[Step], gold: Sequence[Step], ctx: _Context, invalid: Sequence[Mapping[str, str]],
                i: int, j: int, evals: _Evals | None) -> _PairEval | None:
    """The comparison of pair (i, j) if it is exact, else None, comparing arguments only up to the first
    wrong one (an exact pair's comparison is then complete, and is kept in ``evals`` as
    :func:`_evaluated` would keep it)."""
    p, g = pred[i], gold[j]
    rows = compare_rows(p.args, g.args, ctx.rules(g.name), ctx.canon, invalid=invalid[i], first_failure=True)
    if rows and rows[-1][1] not in OK_STATUSES:
        return None
    agreement = 1.0 + sum(row[2] for row in rows if row[1] == "match")
    ev = _PairEval(True, agreement * ctx.weight(g.name), tuple(rows))
    if evals is not None:
        evals[(i, j)] = ev
    return ev


def _assign_greedy(
    pred: Sequence[Step], gold: Sequence[Step], p_idx: list[int], g_idx: list[int], ranker: _GroupRanker,
) -> list[tuple[int, int]]:
    """Best-first over the group's pairs, ties by call content then position (:func:`greedy_assignment`)."""
    p_order = {i: content_order_key(pred[i].args) for i in p_idx}
    g_order = {j: content_order_key(gold[j].args) for j in g_idx}
    return greedy_assignment(p_idx, g_idx, ranker.rank, p_order, g_order)


def _assign_optimal(
    pred: Sequence[Step], gold: Sequence[Step], p_idx: list[int], g_idx: list[int], ranker: _GroupRanker,
) -> list[tuple[int, int]]:
    """Maximum total agreement, exact matches first (:func:`max_weight_assignment`)."""
    ranks = [[ranker.rank(i, j) for j in g_idx] for i in p_idx]
    bonus = 1.0 + sum(max(a for _, a in row) for row in ranks)  # one exact pair outweighs any agreement
    scores = [[a + (bonus if exact else 0.0) for exact, a in row] for row in ranks]
    return [(p_idx[r], g_idx[c]) for r, c in max_weight_assignment(scores)]


# --------------------------------------------------------------------------- order


@attrs.frozen
class _Late:
    """A pair that agrees on the tool but could not be kept without breaking the order, and why."""

    pred_index: int
    gold_index: int
    why: str


def _pair_values(
    pred: Sequence[Step], gold: Sequence[Step], ctx: _Context, invalid: Sequence[Mapping[str, str]],
    tools: set[str] | None,
) -> dict[tuple[int, int], float]:
    """Every same-tool pair's weight (of ``tools``; all when None): its agreement, exact pairs first.

    The objective of :func:`_assign_optimal`, over the whole episode: one exact pair outweighs any sum of
    agreements, so the kept pairs hold the most exact pairs, then the most agreement.
    """
    by_name: dict[str, tuple[list[int], list[int]]] = {}
    for i, s in enumerate(pred):
        if tools is None or s.name in tools:
            by_name.setdefault(s.name, ([], []))[0].append(i)
    for j, s in enumerate(gold):
        if s.name in by_name:
            by_name[s.name][1].append(j)
    ranks: dict[tuple[int, int], tuple[bool, float]] = {}
    for name, (p_idx, g_idx) in sorted(by_name.items()):
        if not g_idx:
            continue
        if len(ranks) + len(p_idx) * len(g_idx) > MATCH_MAX_PAIRS:
            raise TooManyPairs(name, len(p_idx), len(g_idx), len(ranks) + len(p_idx) * len(g_idx))
        rules = ctx.rules(name)
        pkeys = {i: None if invalid[i] else arg_keys(pred[i].args, rules, ctx.canon) for i in p_idx}
        gkeys = {j: arg_keys(gold[j].args, rules, ctx.canon) for j in g_idx}
        ranker = _GroupRanker(pred, gold, ctx, name, pkeys, gkeys, invalid)
        for i in p_idx:
            for j in g_idx:
                ranks[(i, j)] = ranker.rank(i, j)
    best_of_row: dict[int, float] = {}
    for (i, _), (_, agreement) in ranks.items():
        best_of_row[i] = max(best_of_row.get(i, 0.0), agreement)
    bonus = 1.0 + sum(best_of_row.values())
    return {ij: agreement + (bonus if exact else 0.0) for ij, (exact, agreement) in ranks.items()}


class _Clashes:
    """Which constraint a same-tool pair left over breaks against the kept pairs, and against which (the
    ``detail`` of its ``out_of_order`` units), found without trying every kept pair for every late one.

    A constraint named directly (in ``strict`` order every one is) comes first, the lowest-numbered gold call
    first. Else (``gold`` order, through other constraints) the kept call, among those that must come before it,
    predicted last, or among those that must come after it, predicted first (the lower-numbered of the two).
    """

    def __init__(self, kept: Sequence[tuple[int, int]], gold: Sequence[Step], after: Sequence[Sequence[int]],
                 strict: bool) -> None:
        self.gold = gold
        self.strict = strict
        chain = sorted(kept, key=lambda ij: ij[1])
        self.kept_rows = [i for i, _ in chain]  # strict: kept pairs increase on both sides
        self.kept_cols = [j for _, j in chain]
        self.row_of = {j: i for i, j in kept}
        if not strict:
            self.order = Precedence(after)
            self.latest = self.order.latest_before(self.row_of)
            self.earliest = self.order.earliest_after(self.row_of)

    def why(self, i: int, j: int) -> str:
        """Why predicted #i could not be kept for gold #j."""
        clashes = []
        if self.strict:
            at = bisect.bisect_right(self.kept_rows, i)  # the first kept pair predicted after i ...
            if at < len(self.kept_rows) and self.kept_cols[at] < j:  # ... is the lowest such gold call before j
                clashes.append((False, self.kept_cols[at], self.kept_rows[at], "after", "before"))
            at = bisect.bisect_right(self.kept_cols, j)  # the first kept gold call after j ...
            if at < len(self.kept_cols) and self.kept_rows[at] < i:  # ... predicted before i
                clashes.append((False, self.kept_cols[at], self.kept_rows[at], "before", "after"))
        else:
            row_of = self.row_of
            for k in self.order.after[j]:
                if k in row_of and row_of[k] > i:
                    clashes.append((False, k, row_of[k], "after", "before"))
            for k in self.order.followers[j]:
                if k in row_of and row_of[k] < i:
                    clashes.append((False, k, row_of[k], "before", "after"))
            if not clashes:
                latest, earliest = self.latest[j], self.earliest[j]
                if latest is not None and latest[0] > i:
                    clashes.append((True, latest[1], latest[0], "after", "before"))
                if earliest is not None and earliest[0] < i:
                    clashes.append((True, earliest[1], earliest[0], "before", "after"))
        if not clashes:  # cannot happen with positive pair weights and an optimal choice; said plainly if it did
            return "not kept: a pair of more weight holds its place in the order"
        indirect, j2, i2, must, came = min(clashes)
        how = " (strict order)" if self.strict else " (through other after constraints)" if indirect else ""
        gold = self.gold
        return (f"gold #{j} {gold[j].name} must come {must} gold #{j2} {gold[j2].name}{how}; "
                f"predicted #{i} came {came} predicted #{i2}")


def _in_sequence(pred: Sequence[Step], gold: Sequence[Step], ctx: _Context,
                 invalid: Sequence[Mapping[str, str]]) -> list[tuple[int, int]] | None:
    """Fast path of ``strict`` order: a prediction that is the gold sequence call for call, each an exact match
    (equal normal forms, as the multiset's buckets pair them), keeps every pair ``(i, i)``: it is the only common
    subsequence of that many exact pairs, so the weighted LCS keeps it; found in linear time, without ranking
    the pairs of a tool called many times (10,000 correct calls of one tool are 100 million pairs)."""
    if len(pred) != len(gold):
        return None
    for p, g, bad in zip(pred, gold, invalid):
        if p.name != g.name or bad:
            return None
        rules = ctx.rules(g.name)
        keys = arg_keys(g.args, rules, ctx.canon)
        if keys is None or arg_keys(p.args, rules, ctx.canon) != keys:
            return None
    return [(i, i) for i in range(len(gold))]


def _has_after(gold: Sequence[Step]) -> bool:
    """Whether some gold call carries ``after`` constraints (plain :class:`Step` calls never do)."""
    for g in gold:
        if type(g) is not Step and getattr(g, "after", ()):
            return True
    return False


def _align(
    pred: Sequence[Step], gold: Sequence[Step], ctx: _Context, optimal: bool,
    invalid: Sequence[Mapping[str, str]], order: str,
) -> tuple[list[tuple[int, int, _PairEval]], list[int], list[int], list[_Late]]:
    """Pairs, unmatched calls and out-of-order pairs under ``order`` (see :data:`ORDERS`).

    Without order (``any``, or ``gold`` with no ``after``) this is :func:`_assign`, unchanged. Otherwise the
    kept pairs are chosen exactly (:func:`ek.scorer.assign.weighted_lcs` for ``strict``,
    :func:`ek.scorer.assign.ordered_assignment` for ``gold`` over the tools that some constraint touches;
    the other tools are assigned as without order), then the calls left over are paired tool by tool as
    without order: those pairs are out of order.
    """
    if order == "any" or (order == "gold" and not _has_after(gold)):
        pairs, up, ug = _assign(pred, gold, ctx, optimal, invalid)  # no order to honour: today's path, as it was
        return pairs, up, ug, []
    after = after_of(gold)
    if order == "strict":
        tools = {s.name for s in gold}
        kept = _in_sequence(pred, gold, ctx, invalid)
        if kept is None:
            kept = weighted_lcs(len(pred), len(gold), _pair_values(pred, gold, ctx, invalid, None))
        free: list[tuple[int, int]] = []
    else:
        tied = {j for j, a in enumerate(after) if a} | {k for a in after for k in a}
        tools = {gold[j].name for j in tied}
        kept = ordered_assignment(_pair_values(pred, gold, ctx, invalid, tools), after)
        free = _pair_up(pred, gold, ctx, optimal, invalid,
                        [i for i, s in enumerate(pred) if s.name not in tools],
                        [j for j, s in enumerate(gold) if s.name not in tools])
    used_p, used_g = {i for i, _ in kept}, {j for _, j in kept}
    late_pairs = _pair_up(pred, gold, ctx, optimal, invalid,
                          [i for i, s in enumerate(pred) if i not in used_p and s.name in tools],
                          [j for j, s in enumerate(gold) if j not in used_g and s.name in tools])
    if late_pairs:
        clashes = _Clashes(kept, gold, after, order == "strict")
        late = [_Late(i, j, clashes.why(i, j)) for i, j in sorted(late_pairs)]
    else:
        late = []
    pairs, up, ug = _finish(pred, gold, ctx, invalid, list(kept) + free)
    return pairs, up, ug, late


def match_calls(
    pred: Iterable[Any],
    gold: Iterable[Any],
    *,
    canon: str | Canonicalizer | None = None,
    grammar: Any = None,
    optimal: bool = False,
    order: str = "gold",
) -> tuple[list[tuple[Any, Any]], list[Any], list[Any]]:
    """Assign predicted calls to gold calls, as multisets grouped by tool name.

    Returns ``(pairs, unmatched_pred, unmatched_gold)`` with the calls as given.
    The default is a deterministic best-first greedy; ``optimal=True`` solves
    the assignment exactly (most exact matches, then most agreement).
    ``order`` (:data:`ORDERS`) keeps only pairs that respect the order; the
    out-of-order calls are among the unmatched ones.

    >>> pairs, up, ug = match_calls([("s", {"q": "b"}), ("s", {"q": "a"})],
    ...                             [("s", {"q": "a"}), ("s", {"q": "b"})])
    >>> len(pairs), up, ug          # order-insensitive within a tool name
    (2, [], [])
    """
    pred_items, gold_items = list(pred), list(gold)
    p_steps = coerce_calls(pred_items, "pred")
    g_steps = coerce_calls(gold_items, "gold")
    _check_order(order)
    ctx = _Context(get_canonicalizer(canon), _resolve_grammar(grammar), validate=True, source=grammar)
    with _depth_guard():
        invalid = [ctx.violations(s) for s in p_steps]
        pairs, up, ug, _late = _align(p_steps, g_steps, ctx, optimal, invalid, order)
    return ([(pred_items[i], gold_items[j]) for i, j, _ in pairs],
            [pred_items[i] for i in up], [gold_items[j] for j in ug])


# --------------------------------------------------------------------------- the metric


#: The detail of an unparseable output's units when it ends inside a call.
_CUT_SHORT = "output cut short inside a call (max_tokens?)"


def _check_order(order: str) -> None:
    if order not in ORDERS:
        raise ValueError(f"order must be one of {ORDERS}, got {order!r}")


#: :func:`~ek.scorer.exact.exact_cover`'s all-exact answer when the output could not be read: nothing left over
#: (gold is [] and nothing was read), which the general path explains with the parse error.
_NOTHING_LEFT: Cover = ((), (), (), ())

#: What ``_score`` gets for a gold not prepared (:class:`PreparedGold`).
_UNPREPARED: Any = object()

#: The tool name an :data:`ANY_CALL` gold's unit is counted under in per-tool tables.
ANY_CALL_TOOL = "(any call)"


def _score_any_call(pred: tuple[Step, ...], parse_error: str | None, cut_short: bool) -> Score:
    """Gold :data:`ANY_CALL`: one unit of weight 1, a TP when the output holds a call (whichever: BFCL's
    relevance check decodes and counts, nothing more), else an FN, ``missed_call`` for an output with no
    call, ``unparseable_output`` for one that cannot be read. No call is ever an FP here."""
    if pred:
        row: UnitRow = (TP, "match", 1.0, ANY_CALL_TOOL, None, ABSENT, ABSENT, 0, None, "")
    else:
        reason = "unparseable_output" if parse_error else "missed_call"
        row = (FN, reason, 1.0, ANY_CALL_TOOL, None, ABSENT, ABSENT, None, None, _CUT_SHORT if cut_short else "")
    explanation = Explanation(pred, (), PairRecords([]), (), (), UnitRows([row]), parse_error, cut_short,
                              any_call=True)
    return Score.from_unit_rows([row], explanation=explanation)


def _names_only(steps: tuple[Step, ...]) -> tuple[Step, ...]:
    """The calls without their arguments (a gold call keeps its ``after``): what level ``name`` compares."""
    return tuple(step if not step.args else attrs.evolve(step, args={}) for step in steps)


class ToolCallMetric:
    """Cost-weighted tool-call correctness (BFCL AST match over a multiset of calls).

    ``level="call"`` counts one unit per call (TP only on an exact match);
    ``level="arg"`` gives partial credit per argument; ``level="name"`` scores
    tool selection: a unit per call, TP when it calls the tool of a gold call,
    whatever its arguments (neither compared nor validated; order constraints
    and tool weights still hold). ``canonicalizer`` is a
    name (``"fold"``, ``"exact"``, ``"bfcl"``) or a ``str -> str`` callable.
    ``grammar`` (a :class:`~ek.grammar.GraphGrammar`, a generated module, or a
    schema path) supplies tool weights, argument importance, compare policies,
    defaults and validation. ``optimal=True`` uses the exact assignment.
    ``order`` (:data:`ORDERS`, default ``"gold"``): ``any`` scores calls as a
    multiset; ``strict`` keeps only pairs in gold list order; ``gold`` honours
    the ``after`` constraints of :class:`~ek.calls.GoldCall` entries. A pair
    that agrees on the tool but breaks the order counts FP and FN, ``out_of_order``.

    The returned :class:`~ek.scorer.accounting.Score` carries ``tp``/``fp``/``fn`` in
    ``detail`` and an :class:`~ek.scorer.accounting.Explanation` of every unit.
    """

    def __init__(
        self,
        level: str = "call",
        *,
        canonicalizer: str | Canonicalizer | None = None,
        grammar: Any = None,
        optimal: bool = False,
        validate: bool = True,
        order: str = "gold",
        format: str = "auto",
    ) -> None:
        if level not in LEVELS:
            raise ValueError(f"level must be one of {LEVELS}, got {level!r}")
        if not isinstance(optimal, bool):
            raise ValueError(f"optimal must be True or False, got {optimal!r:.80}")
        _check_order(order)
        get_format(format)  # an unknown name fails here, not on the first output
        self.format = format
        self.level = level
        #: ``name`` counts a call as ``call`` does, on calls read without their arguments (:func:`_names_only`)
        self._names_only = level == "name"
        self._units = "call" if self._names_only else level
        self.order = order
        self.canonicalizer = get_canonicalizer(canonicalizer)
        self.optimal = optimal
        self.validate = validate
        self.grammar = _resolve_grammar(grammar)
        self._ctx = _Context(self.canonicalizer, self.grammar, self._validates, source=grammar)

    @property
    def _validates(self) -> bool:
        """Whether calls are checked against the grammar: not at level ``name``, which reads no argument."""
        return self.validate and not self._names_only

    def _context(self, grammar: Any) -> _Context:
        if grammar is None:
            return self._ctx
        resolved = _resolve_grammar(grammar)
        if resolved is self.grammar:
            return self._ctx
        return _Context(self.canonicalizer, resolved, self._validates, source=grammar)

    def read(self, output: Any, *, grammar: Any = None, format: str | None = None) -> tuple[Step, ...]:
        """The calls in raw ``output``, read as this metric scores it: in ``format`` (default the metric's),
        with the grammar's declared argument types as the hint for formats that write values as bare text.

        Raises :class:`ek.ParseError`. ``assert_calls`` and the rewards read outputs through here, so a
        format behaves the same everywhere.
        """
        return self._read(output, self._context(grammar), format)

    def _read(self, output: Any, ctx: _Context, format: str | None) -> tuple[Step, ...]:
        return tuple(parse_calls(bytes(output) if isinstance(output, bytearray) else output,
                                 format or self.format, types=ctx.arg_type))

    def __call__(self, pred: Any, gold: Any, *, grammar: Any = None, format: str | None = None,
                 explain_now: bool = False) -> Score:
        """Score ``pred`` (raw output in ``format``, default the metric's; or calls; or the
        :class:`ek.ParseError` a reader of the caller's own raised on it, scored as an unreadable output)
        against ``gold`` (calls, or :data:`ek.calls.ANY_CALL`: some call, whichever, is right).

        The score's explanation is usually worked out when it is first read (most scores of a corpus are only
        counted); ``explain_now=True`` works it out with the score, for a caller that reads every one (it
        saves the work the deferral does first). The score is the same either way.

        >>> ToolCallMetric()("f(x=1)", ANY_CALL).f1, ToolCallMetric()("No tool fits.", ANY_CALL).f1
        (1.0, 0.0)
        """
        ctx = self._ctx if grammar is None else self._context(grammar)
        # a prepared gold's calls read at once (what coerce_calls gives for it, without the call)
        g_steps = gold._read if type(gold) is PreparedGold and gold._context is ctx else () if gold is ANY_CALL \
            else ctx.without_nulls(coerce_calls(gold, "gold"))
        parse_error, cut_short = None, False
        # Fast path of _read for a decoded BFCL list (most outputs a BFCL run scores): what parse_calls reads it
        # to, asked of the parser's own fast path directly (an empty list is no call, as coerce_calls has it)
        plain = read_plain_bfcl(pred) if type(pred) is list and (format or self.format) == "bfcl" else None
        if plain is not None:
            p_steps = tuple(plain)
        elif type(pred) is tuple:
            # Fast path: calls already read (what ek score hands over for a BFCL list of saved calls) go to
            # coerce_calls, where the branches below send a tuple too; spared the Mapping ABC check of the next
            # one (a Python-level __instancecheck__ per output), which no tuple passes
            p_steps = coerce_calls(pred, "pred")
        elif _is_decoded_output(pred) if type(pred) is list else isinstance(pred, (str, bytes, bytearray, Mapping)):
            try:
                p_steps = self._read(pred, ctx, format)
            except ParseError as exc:
                p_steps, parse_error, cut_short = (), str(exc), exc.cut_short
        elif isinstance(pred, ParseError):  # an output the caller's own reader refused: unreadable, for that reason
            p_steps, parse_error, cut_short = (), str(pred), pred.cut_short
        else:
            p_steps = coerce_calls(pred, "pred")
        if gold is ANY_CALL:
            return _score_any_call(p_steps, parse_error, cut_short)
        p_steps = ctx.without_nulls(p_steps)
        if self._names_only:
            p_steps = _names_only(p_steps)
            if type(gold) is not PreparedGold or gold._context is not ctx:
                g_steps = _names_only(g_steps)
        if explain_now:
            return self._score_explained(p_steps, g_steps, ctx, parse_error, cut_short)
        if type(gold) is PreparedGold and gold._context is ctx:
            return self._score(p_steps, g_steps, ctx, parse_error, cut_short, gold._exact)
        return self._score(p_steps, g_steps, ctx, parse_error, cut_short)

    def _score_explained(self, pred: tuple[Step, ...], gold: tuple[Step, ...], ctx: _Context,
                         parse_error: str | None, cut_short: bool) -> Score:
        """The general path, explanation included: what :meth:`_score` gives once its explanation is read."""
        try:
            invalid = [ctx.violations(s) for s in pred]
        except RecursionError:
            raise _too_deep() from None
        return self._score_paired(pred, gold, ctx, invalid, parse_error, cut_short)

    def prepare(self, gold: Any, *, grammar: Any = None) -> PreparedGold:
        """``gold`` read once, to score many outputs against it: ``metric(output, prepared)`` for each.

        The result is what ``metric(output, gold)`` gives (any metric takes a :class:`PreparedGold` as gold);
        this metric also skips the work that depends on the gold alone, most of what is left to do when an
        output is right. :data:`~ek.calls.ANY_CALL` comes back as it is (there is nothing to read).

        >>> metric = ToolCallMetric("arg")
        >>> gold = metric.prepare([("search", {"q": "cats"})])
        >>> [metric(output, gold).f1 for output in ('search(q="cats")', 'search(q="dogs")')]
        [1.0, 0.5]
        """
        if gold is ANY_CALL:
            return gold  # type: ignore[no-any-return]
        ctx = self._ctx if grammar is None else self._context(grammar)
        given = coerce_calls(gold, "gold")
        steps = ctx.without_nulls(given)  # another metric reads the calls as given, under its own grammar
        if self._names_only:
            steps = _names_only(steps)
        plan = plan_exact(steps, ctx.rules, ctx.weight, ctx.canon, self._units) if self._unordered(steps) else None
        return PreparedGold(given, ctx, plan, steps)

    def _score(self, pred: tuple[Step, ...], gold: tuple[Step, ...], ctx: _Context,
               parse_error: str | None, cut_short: bool = False, plan: Any = _UNPREPARED) -> Score:
        """``plan``: a prepared gold's :class:`~ek.scorer.exact.ExactPlan` (None: its order rules the fast
        paths out)."""
        if not pred and plan is not _UNPREPARED and plan is not None and gold and parse_error is None:
            return self._score_no_call(gold, ctx, plan)
        try:  # the depth guard (_DepthGuard) as a try: free in Python 3.11 until something is raised
            invalid = [ctx.violations(s) for s in pred]
            if self._unordered(gold) if plan is _UNPREPARED else plan is not None:
                prepared = None if plan is _UNPREPARED else plan
                cover = exact_cover(pred, gold, ctx.rules, ctx.canon, invalid, prepared)  # ek.scorer.exact says why
                if cover is ALL_EXACT and parse_error is None:  # every call pairs exactly
                    tp, tally = exact_parts(gold, ctx.rules, ctx.weight, self._units) if prepared is None \
                        else prepared.parts
                    return Score.of_exact_parts(tp, 0, 0, tally, DeferredExplanation(
                        pred, gold, partial(self._explain_paired, pred, gold, ctx, invalid, None)))
                if cover is not None:
                    return self._score_cover(pred, gold, ctx, invalid, parse_error, cut_short,
                                             _NOTHING_LEFT if cover is ALL_EXACT else cover, prepared)
        except RecursionError:
            raise _too_deep() from None
        return self._score_paired(pred, gold, ctx, invalid, parse_error, cut_short)

    def _score_no_call(self, gold: tuple[Step, ...], ctx: _Context, plan: ExactPlan) -> Score:
        """Fast path of :meth:`_score` for an output read with no call in it, against a prepared gold with calls
        (no order to honour): the score the cover path gives (every gold call left over, ``missed_call``),
        read from the plan (:func:`~ek.scorer.exact.missed_parts`, worked out from the gold alone) instead of
        counted again; nothing to validate, pair or compare. The explanation is the general path's, built
        when read."""
        fn, tally = plan.missed
        return Score.of_exact_parts(0, 0, fn, tally, DeferredExplanation(
            (), gold, partial(self._explain_paired, (), gold, ctx, [], None), PLAIN_FIELDS))

    def _score_cover(self, pred: tuple[Step, ...], gold: tuple[Step, ...], ctx: _Context,
                     invalid: list[dict[str, str]], parse_error: str | None, cut_short: bool, cover: Cover,
                     plan: ExactPlan | None) -> Score:
        """Fast path of :meth:`_score_paired` when :func:`~ek.scorer.exact.exact_cover` knows how every
        assignment pairs the calls: the same units, counted without ranking a pair or building an
        explanation. An exact pair's units and a call left over count as :func:`~ek.scorer.exact.call_parts`
        says (the weights :meth:`_unmatched_units` gives, all TP ``match`` for an exact pair); only the
        inexact pairs are compared, each once, as :func:`_finish` compares them. The explanation is the
        general path's, built when read; its failing checks are known from those pairs."""
        exact, pairs, extra, missing = cover
        level = self._units
        rules_of, weight_of = ctx.rules, ctx.weight
        known = PLAIN_FIELDS if parse_error is None else {
            "parse_error": parse_error, "cut_short": cut_short, "out_of_order": (), "any_call": False}
        # the deferred explanation's builder: partials, not closures (the names a nested function reads become
        # cells for the whole of this method, each read and write of them slower)
        explanation: Callable[[], Explanation] | None = None
        only_rows = None  # the rows of a cover's only pair, compared for the fast path and counted below if need be
        if len(pairs) == 1 and not (exact or extra or missing) and level == "arg":
            # Fast path: a cover that is one inexact pair and nothing else (one call on each side, of one tool: a
            # wrong output's usual shape) is counted by one_pair_parts straight into the score's frozen tally;
            # None from it (two rows that count apart) leaves the pair to be counted below, as any other
            i, j = pairs[0]
            tool = gold[j].name
            only_rows = compare_rows(pred[i].args, gold[j].args, rules_of(tool), ctx.canon, invalid=invalid[i])
            explanation = partial(self._explain_one_pair, pred, gold, ctx, i, j, only_rows, parse_error, cut_short)
            parts = one_pair_parts(only_rows, tool, weight_of(tool))
            if parts is not None:
                tp, fp, fn, frozen, pair_exact = parts
                return Score.of_exact_parts(tp, fp, fn, frozen, DeferredExplanation(
                    pred, gold, explanation, known, ((tool, pair_exact, tuple(only_rows)),)))
        tally: dict[TallyKey, list[Any]] = {}
        calls = plan.calls if plan is not None else None  # each gold call's call_parts, when prepared
        for j in exact:
            weight, count = calls[j] if calls is not None else call_parts(gold[j], rules_of, weight_of(gold[j].name),
                                                                          level)
            tally_add(tally, (TP, gold[j].name, "match"), weight, count)
        if extra:
            # the gold's tool names (only membership and emptiness are asked): a prepared gold's plan has them
            gold_names = plan.gold_of if plan is not None else {s.name for s in gold}
            for i in extra:
                tool = pred[i].name
                weight, count = call_parts(pred[i], rules_of, weight_of(tool), level)
                tally_add(tally, (FP, tool, self._extra_reason(tool, ctx, gold_names)), weight, count)
        if missing:
            reason = "unparseable_output" if parse_error else "missed_call" if not pred else "missing_call"
            for j in missing:
                weight, count = calls[j] if calls is not None else call_parts(gold[j], rules_of,
                                                                              weight_of(gold[j].name), level)
                tally_add(tally, (FN, gold[j].name, reason), weight, count)
        inexact: list[tuple[str, bool, tuple[CheckRow, ...]]] = []
        for i, j in pairs:
            tool = gold[j].name
            rows = only_rows if only_rows is not None else compare_rows(pred[i].args, gold[j].args, rules_of(tool),
                                                                        ctx.canon, invalid=invalid[i])
            inexact.append((tool, _count_pair(tally, tool, weight_of(tool), rows, level), tuple(rows)))
        if explanation is None:
            explanation = partial(self._explain_paired, pred, gold, ctx, invalid, parse_error, cut_short)
        return Score.from_exact_tally(tally, DeferredExplanation(pred, gold, explanation, known, tuple(inexact)))

    def _unordered(self, gold: Sequence[Step]) -> bool:
        """No order to honour: ``any``, or ``gold`` with no ``after`` constraint (what :func:`_align` checks)."""
        return self.order == "any" or (self.order == "gold" and not _has_after(gold))

    def _score_paired(self, pred: tuple[Step, ...], gold: tuple[Step, ...], ctx: _Context,
                      invalid: list[dict[str, str]], parse_error: str | None, cut_short: bool = False) -> Score:
        """The general path: pair the calls, compare each pair, count every unit (``invalid``: each predicted
        call's schema violations)."""
        units, explanation = self._paired(pred, gold, ctx, invalid, parse_error, cut_short)
        return Score.from_unit_rows(units, explanation=explanation)

    def _explain_one_pair(self, pred: tuple[Step, ...], gold: tuple[Step, ...], ctx: _Context, i: int, j: int,
                          rows: Sequence[CheckRow], parse_error: str | None, cut_short: bool) -> Explanation:
        """Fast path of :meth:`_explain_paired` for a cover that is one pair, ``pred[i]`` and ``gold[j]``, whose
        comparison ``rows`` the score made: every assignment chooses that pair (what the cover says), and its
        comparison is the one :func:`_evaluate` would make (the same call of compare_rows), so the explanation is
        built from it without pairing or comparing again."""
        pair = (i, j, _evaluation(rows, ctx.weight(gold[j].name)))
        return self._explained(pred, gold, ctx, [pair], [], [], [], parse_error, cut_short)[1]

    def _explain_paired(self, pred: tuple[Step, ...], gold: tuple[Step, ...], ctx: _Context,
                        invalid: list[dict[str, str]], parse_error: str | None, cut_short: bool = False) -> Explanation:
        """The explanation :meth:`_score_paired` gives, without its score: what a deferred explanation builds
        when it is read (the score is known already; counting its units again was a tenth of the work)."""
        return self._paired(pred, gold, ctx, invalid, parse_error, cut_short)[1]

    def _paired(self, pred: tuple[Step, ...], gold: tuple[Step, ...], ctx: _Context, invalid: list[dict[str, str]],
                parse_error: str | None, cut_short: bool) -> tuple[list[UnitRow], Explanation]:
        """:meth:`_score_paired`'s units and explanation, not yet counted into a score."""
        with _GUARD:
            pairs, up, ug, late = _align(pred, gold, ctx, self.optimal, invalid, self.order)
        return self._explained(pred, gold, ctx, pairs, up, ug, late, parse_error, cut_short)

    def _explained(self, pred: tuple[Step, ...], gold: tuple[Step, ...], ctx: _Context,
                   pairs: list[tuple[int, int, _PairEval]], up: list[int], ug: list[int], late: list[_Late],
                   parse_error: str | None, cut_short: bool) -> tuple[list[UnitRow], Explanation]:
        """The units and explanation of an alignment (:func:`_align`'s pairs, unmatched and late calls)."""
        units: list[UnitRow] = []
        for i, j, ev in pairs:
            self._pair_units(units, gold[j].name, i, j, ev, ctx)
        if up or ug:
            gold_names = {s.name for s in gold}
            late_pred = {x.pred_index: x.why for x in late}
            late_gold = {x.gold_index: x.why for x in late}
            for i in up:
                if i in late_pred:
                    self._unmatched_units(units, pred[i], i, None, FP, "out_of_order", ctx, late_pred[i])
                else:
                    reason = self._extra_reason(pred[i].name, ctx, gold_names)
                    self._unmatched_units(units, pred[i], i, None, FP, reason, ctx)
            for j in ug:
                reason = "unparseable_output" if parse_error else "missed_call" if not pred else "missing_call"
                if j in late_gold:
                    self._unmatched_units(units, gold[j], None, j, FN, "out_of_order", ctx, late_gold[j])
                else:
                    self._unmatched_units(units, gold[j], None, j, FN, reason, ctx, _CUT_SHORT if cut_short else "")
        # The explanation's pairs and units stay rows until read (PairRecords, UnitRows): most scores of a
        # corpus are only counted, and building every ArgCheck and Unit object was a third of scoring.
        explanation = Explanation(
            pred, gold, PairRecords([(i, j, gold[j].name, ev.exact, ev.rows) for i, j, ev in pairs]),
            tuple(up), tuple(ug), UnitRows(units), parse_error, cut_short,
            tuple((x.pred_index, x.gold_index) for x in late) if late else (),
        )
        return units, explanation

    @staticmethod
    def _extra_reason(name: str, ctx: _Context, gold_names: Collection[str]) -> str:
        if not ctx.known(name):
            return "unknown_tool"
        if not gold_names:
            return "spurious_call"  # gold is []: calling nothing was right
        return "extra_call" if name in gold_names else "wrong_tool"

    def _pair_units(self, units: list[UnitRow], tool: str, i: int, j: int, ev: _PairEval, ctx: _Context) -> None:
        """A matched pair's units, appended to ``units``."""
        w = ctx.weight(tool)
        if self._units == "call":
            if ev.exact:
                units.append((TP, "match", w, tool, None, ABSENT, ABSENT, i, j, ""))
                return
            wrong = "; ".join(f"{row[0]}: {row[1]}" for row in ev.rows if row[1] not in OK_STATUSES)
            units.extend((kind, "inexact_call", w, tool, None, ABSENT, ABSENT, i, j, wrong) for kind in (FP, FN))
            return
        units.append((TP, "match", w, tool, None, ABSENT, ABSENT, i, j, ""))
        unit_rows_from_checks(ev.rows, tool, w, i, j, into=units)

    def _unmatched_units(self, units: list[UnitRow], step: Step, i: int | None, j: int | None, kind: str,
                         reason: str, ctx: _Context, detail: str = "") -> None:
        """An unmatched call's units (the call's, then each argument's at level ``arg``), appended to ``units``."""
        w = ctx.weight(step.name)
        units.append((kind, reason, w, step.name, None, ABSENT, ABSENT, i, j, detail))
        if self._units == "arg":
            rules = ctx.rules(step.name) or {}
            for arg in declared_order(step.args, rules):
                value = step.args[arg]
                rule = rules.get(arg)
                if value is OMITTABLE or (rule is not None and rule.policy == "ignore"):
                    continue
                imp = rule.importance if rule is not None else 1.0
                expected, got = (ABSENT, value) if kind == FP else (value, ABSENT)
                units.append((kind, reason, unit_weight(w, imp), step.name, arg, expected, got, i, j, detail))

    def score_turns(self, turns: Iterable[tuple[Any, Any]], *, grammar: Any = None) -> EpisodeScore:
        """Score a multi-turn episode: each ``(pred, gold)`` turn is its own multiset match (matches never
        cross turns; :mod:`ek.scorer.turns`), and the episode's totals are the sums over its turns.

        >>> ep = ToolCallMetric().score_turns([("f(x=1)", [("f", {"x": 1})]), ("f(x=1)", [("g", {})])])
        >>> [t.f1 for t in ep.turns], ep.total.f1, ep.exact, ep.first_failing_turn
        ([1.0, 0.0], 0.5, False, 1)
        """
        return score_turns(lambda pred, gold: self(pred, gold, grammar=grammar), turns)

    def gold_problems(self, gold: Any, *, grammar: Any = None) -> tuple[str, ...]:
        """What in the gold calls the grammar rejects: unknown tools, missing required arguments, values the
        schema refuses (every ``OneOf`` alternative must fit; see :mod:`ek.scorer.goldcheck`). Empty without
        a grammar or with ``validate=False``. Scoring does not call it; ``ek score`` does, per line.

        >>> from ek.grammar.model import EnumType, FieldSpec, GraphGrammar, ToolSpec
        >>> unit = FieldSpec("unit", EnumType(("celsius", "fahrenheit")))
        >>> metric = ToolCallMetric(grammar=GraphGrammar("weather", 1, tools=(ToolSpec("get_weather", (unit,)),)))
        >>> for problem in metric.gold_problems([Step("get_weather", {"unit": "kelvin"}), Step("get_weather", {})]):
        ...     print(problem)
        gold[0] get_weather: $.unit: expected one of 'celsius', 'fahrenheit', got 'kelvin'
        gold[1] get_weather: $.unit: missing required argument
        """
        validate = self._context(grammar)._validator
        if validate is None or gold is ANY_CALL:
            return ()
        return gold_problems(validate, coerce_calls(gold, "gold"))

    def explain(self, pred: Any, gold: Any, *, grammar: Any = None) -> Explanation:
        """The alignment and every counted unit with its reason."""
        explanation = self(pred, gold, grammar=grammar, explain_now=True).explanation
        assert explanation is not None
        return explanation

    def aggregate(self, scores: Iterable[Score]) -> float:
        """Micro-averaged F1 over a corpus (sum TP/FP/FN, then divide); never a mean of F1s."""
        return micro_f1(scores)


__all__ = ["ToolCallMetric", "PreparedGold", "match_calls", "coerce_calls", "LEVELS", "ORDERS"]
