"""The all-exact fast path of :class:`~ek.scorer.metric.ToolCallMetric`: an output whose every call pairs
exactly with a gold call, and every gold call with one of them.

Such an episode's score does not depend on which exact pairs are chosen: every unit is a TP ``match``, one
per gold call and one per argument that counts (a bare ``OMITTABLE`` left out counts nothing, an ignored
argument nothing, every other gold argument one), each of the weight the general path gives it
(:func:`exact_parts`). Scoring such an output is then telling, call by call, that it is exact
(:func:`exact_cover`), which skips the assignment, the comparison rows and the units. The explanation is
worked out by the general path when it is first read (:class:`~ek.scorer.accounting.DeferredExplanation`).

The path only answers when it is *sure*: each (predicted, gold) verdict is ``True`` (the general path's
comparison gives no row that is a mistake), ``False`` (it gives one) or ``None`` (a case left to the general
rules: defaults, hallucinated arguments, a given value for a bare ``OMITTABLE``); any ``False`` or ``None``
where an exact pair is needed, or a tool whose calls could pair in more than one exact way that counts
differently, sends the episode to the general path. Values are judged by :func:`ek.scorer.agree.values_agree`,
the one owner of agreement.

The same verdicts also tell, for most wrong outputs, how *every* assignment pairs the calls (:func:`exact_cover`):
the exact pairs, the inexact pairs every assignment makes (one call left on each side of a tool), and the calls
left over. The metric then counts those units without ranking a pair (an exact pair and a call left over count
as :func:`call_parts` says) and compares only the inexact pairs; the explanation is again the general path's,
built when read.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from types import MappingProxyType
from typing import Any

import attrs

from ek.calls import Step
from ek.canon import Canonicalizer, bfcl
from ek.grammar.model import NO_DEFAULT
from ek.limits import EXACT_PAIRWISE_CALLS
from ek.scorer.accounting import ABSENT, FN, TP, Exact, TallyKey, tally_add, unit_weight, weight_exact
from ek.scorer.agree import (
    _BFCL_SCALARS,
    _TEMPORAL,
    ArgRule,
    ToolRules,
    _bfcl_scalar_agrees,
    _one_of_agree,
    answer_kind,
    bfcl_agrees,
    bfcl_judges,
    value_key,
    values_agree,
)
from ek.sentinel import Sentinel
from ek.values import OMITTABLE, OneOf

_NO_RULES: Mapping[str, ArgRule] = MappingProxyType({})


def exact_parts(gold: Sequence[Step], rules_of: Callable[[str], Mapping[str, ArgRule] | None],
                weight_of: Callable[[str], float], level: str) -> tuple[Exact, Mapping[TallyKey, tuple[Exact, int]]]:
    """TP and tally of an all-exact output for ``gold``: each gold call's own unit and, at level ``arg``, one
    per argument that counts (a bare ``OMITTABLE`` left out gives no row, an ignored argument an
    ``ignored`` one: neither counts), each of the weight the general path gives it."""
    if len(gold) == 1:  # the common case (what _sum_parts does with one call), spared the list and a call
        g = gold[0]
        weight, count = call_parts(g, rules_of, weight_of(g.name), level)
        return weight, _one_call_tally(g.name, weight, count)
    return _sum_parts(gold, [call_parts(g, rules_of, weight_of(g.name), level) for g in gold])


def _sum_parts(gold: Sequence[Step], parts: Sequence[tuple[Exact, int]]) -> tuple[Exact, Mapping[TallyKey,
                                                                                                  tuple[Exact, int]]]:
    """TP and tally of ``gold`` all paired exactly, from each call's :func:`call_parts`."""
    if len(gold) == 1:  # the common case, spared the dict, the sort and the sum
        weight, count = parts[0]
        return weight, _one_call_tally(gold[0].name, weight, count)
    sums: dict[str, list[Any]] = {}
    for g, (weight, count) in zip(gold, parts):
        slot = sums.get(g.name)
        if slot is None:
            sums[g.name] = [weight, count]  # (0 + weight is weight: ints and Fractions alike)
        else:
            slot[0] += weight
            slot[1] += count
    if len(sums) == 1:  # one tool called several times: its sums are the total, nothing to sort or add up
        for tool, (w, n) in sums.items():
            w = _normal(w)
            return w, MappingProxyType({(TP, tool, "match"): (w, n)})
    tally: dict[TallyKey, tuple[Exact, int]] = {}
    total: Exact = 0
    for tool in sorted(sums):  # the tally by tool name, its total summed in that order (exact: any order gives it)
        w, n = sums[tool]
        w = _normal(w)
        tally[(TP, tool, "match")] = (w, n)
        total += w
    return _normal(total), MappingProxyType(tally)


#: (tool, exact weight, count) -> the read-only tally of one exact call: the same few repeat across a corpus
_ONE_CALL_TALLIES: dict[tuple[str, Exact, int], Mapping[TallyKey, tuple[Exact, int]]] = {}


def _one_call_tally(tool: str, weight: Exact, count: int) -> Mapping[TallyKey, tuple[Exact, int]]:
    """The tally of one gold call paired exactly (read-only, so one is shared by every score that has it)."""
    key = (tool, weight, count)
    tally = _ONE_CALL_TALLIES.get(key)
    if tally is None:
        tally = MappingProxyType({(TP, tool, "match"): (weight, count)})
        if len(_ONE_CALL_TALLIES) < 4096:  # bounded: gold's tool names, not the model's, but many may come
            _ONE_CALL_TALLIES[key] = tally
    return tally


def call_parts(call: Step, rules_of: Callable[[str], Mapping[str, ArgRule] | None], w: float,
               level: str) -> tuple[Exact, int]:
    """The exact weight and the number of a call's units when it is counted whole: the call's own unit, then,
    at level ``arg``, one per argument that counts (not ``OMITTABLE``, not ignored), each ``w`` times the
    argument's importance. That is an exact gold call's TP units, and the units of a call left unmatched
    (FP for a predicted call, FN for a gold one): the general path counts the same arguments with the same
    weights in each case (``ToolCallMetric._unmatched_units``)."""
    at_w = 1  # the call's own unit, and every argument of importance 1: each weighs w (w * 1.0 is w)
    other: Exact = 0  # the exact weights of the other arguments' units, and how many
    n_other = 0
    if level != "call":
        rules = rules_of(call.name) or _NO_RULES
        args = call.args
        if type(rules) is ToolRules and args.keys() <= rules.unit_weight_names:
            # Fast path: every argument is declared with importance 1 and not ignored, so each counts one
            # unit of weight w unless its value is a bare OMITTABLE (the loop below, without the rule lookups).
            for value in args.values():
                if value is OMITTABLE:
                    break
            else:
                count = 1 + len(args)
                return weight_exact(w) * count, count
        elif not rules:
            # Fast path: no rules (a tool the grammar does not declare, or no grammar), so every argument weighs
            # w and counts one unit unless its value is a bare OMITTABLE (the loop below, without the lookups).
            for value in args.values():
                if value is not OMITTABLE:
                    at_w += 1
            total = weight_exact(w) * at_w
            return (total if type(total) is int else _normal(total)), at_w
        for name, value in call.args.items():
            rule = rules.get(name)
            if value is OMITTABLE or (rule is not None and rule.policy == "ignore"):
                continue
            if rule is None or rule.importance == 1.0:
                at_w += 1
            else:
                other += weight_exact(unit_weight(w, rule.importance))
                n_other += 1
    total = weight_exact(w) * at_w + other
    return (total if type(total) is int else _normal(total)), at_w + n_other


def _normal(value: Exact) -> Exact:
    """An integral Fraction as an int, as a score's own sums keep it."""
    return value.numerator if type(value) is Fraction and value.denominator == 1 else value


def exact_verdict(args: Mapping[str, Any], gold: Mapping[str, Any], rules: Mapping[str, ArgRule],
                  bfcl_mode: bool, canon: Canonicalizer) -> bool | None:
    """Whether a predicted call with ``args`` (valid: no schema violation) pairs exactly with a gold call of
    the same tool with ``gold`` arguments: True, False, or None when the general rules must decide (see the
    module's docstring). ``rules``: the tool's (empty without a grammar)."""
    if not args.keys() <= gold.keys():  # some predicted name gold does not give (a set test, in C)
        for name in args:
            if name not in gold:
                rule = rules.get(name)
                if rule is not None and rule.policy == "ignore":
                    continue  # an "ignored" row
                if rule is None or bfcl_mode or rule.default is NO_DEFAULT:
                    return False  # hallucinated_arg
                return None  # gold's default applies: a match would be a unit more than exact_parts counts
    if bfcl_mode:
        required = (rules.required_set if type(rules) is ToolRules
                    else frozenset(n for n, r in rules.items() if r.required))
        if not gold.keys() >= required:
            for name in required:
                if name not in gold and rules[name].policy != "ignore":
                    return False  # BFCL: missing_arg left out, hallucinated_arg given
    # BFCL mode: each argument BFCL's rules judge -> its declared scalar type (None: list, object, any)
    judged = (rules.bfcl_judged if type(rules) is ToolRules
              else {n: _BFCL_SCALARS.get(r.kind) for n, r in rules.items() if bfcl_judges(r)}) if bfcl_mode else None
    for name, value in gold.items():
        pred = args.get(name, ABSENT)
        kind = type(pred)
        # An equal value agrees whatever the rule, so no rule is looked up. values_agree accepts two equal
        # strings under every rule: as they are with no policy; whatever they hold under ignore; under a
        # string policy or the canonicalizer (a function of its text) because the same text gives the same
        # form; as dates because the same text parses to the same date (or is compared as text). Two equal
        # ints too (a tolerance holds a difference of 0; int refuses floats only), and two equal bools
        # (decided before any policy). A str equals only a str; an int may equal a bool or a float and a
        # bool an int, hence the type test. Two equal floats agree too, but for an argument declared int (a
        # float there is a type error, equal or not); NaN equals nothing. In BFCL mode (``judged`` not None)
        # BFCL's rules agree too where the first of gold's alternatives (BFCL's answers' type) has the
        # value's type, whatever the declared type: the value passes the type check (a "variable" if that is
        # not the declared type) and is compared standardised or by ``in``, either of which finds the equal
        # alternative (:func:`ek.scorer.agree.answer_kind`; a plain gold value is its own first). A float,
        # where the rules above ask the declared kind, asks whether BFCL's rules judge the argument.
        if kind is str:
            if type(value) is OneOf:
                alternatives = value.alternatives
                if pred in alternatives and (judged is None or type(alternatives[0]) is str and alternatives[0] != ""
                                             or answer_kind(alternatives) is str):
                    continue
            elif pred == value:
                continue
        elif (kind is int or kind is bool) and (
                _has_equal(value.alternatives, pred, kind) and (judged is None
                                                                 or answer_kind(value.alternatives) is kind)
                if type(value) is OneOf else type(value) is kind and value == pred):
            continue
        elif kind is float and (_has_equal(value.alternatives, pred, float) if type(value) is OneOf
                                else type(value) is float and value == pred):
            if judged is not None and name in judged:
                if type(value) is not OneOf or answer_kind(value.alternatives) is float:
                    continue
            else:
                rule = rules.get(name)
                if rule is None or rule.kind != "int":
                    continue
        if judged is not None and pred is not ABSENT and value is not OMITTABLE:
            declared = judged.get(name, _UNJUDGED)
            if declared is not _UNJUDGED:
                # BFCL mode: BFCL's rules for the declared type, as compare_rows asks them (an equal value of
                # another type than the declared one may be a type error there, a string that is not equal
                # but standardises alike a "variable" compared as written). A str, int, float or bool of its
                # declared scalar type is judged by bfcl_agrees' own fast path, without its call.
                if declared is kind:
                    verdict = _bfcl_scalar_agrees(value.alternatives if type(value) is OneOf else (value,), pred,
                                                  kind, declared)
                    if verdict is not None:
                        if not verdict:
                            return False
                        continue
                if not bfcl_agrees(value, pred, rules[name]):
                    return False
                continue
        rule = rules.get(name)
        if (kind is str or kind is int) and type(value) is kind and (
                rule is None or (rule.policy is None and rule.kind not in _TEMPORAL)):
            # Fast path: two plain values of one type (str, or int: not bool) under no compare policy and not a
            # date, not equal (that was tested above): what values_agree answers (_same_plain_agree: ints by
            # value, strings through the canonicalizer), without its dispatch; the tests below do not apply
            # (no ignore policy, a value given, gold's not OMITTABLE nor a OneOf). A wrong value, and every
            # candidate but one when a repeated tool's calls are tested pair by pair.
            if kind is int or canon(value) != canon(pred):
                return False
            continue
        if rule is not None and rule.policy == "ignore":
            continue  # an "ignored" row whatever is predicted
        if pred is ABSENT:
            if bfcl_mode and rule is not None and rule.required:
                return False  # BFCL: a required argument must be given, whatever gold allows
            if value is OMITTABLE or (type(value) is OneOf and OMITTABLE in value.alternatives):
                continue  # no row (bare OMITTABLE) or a match
            if rule is None or bfcl_mode or rule.default is NO_DEFAULT:
                return False  # missing_arg
            return None  # the prediction's default may agree: the general rules
        if value is OMITTABLE:
            return None  # a value where gold's bare OMITTABLE is: the general rules (BFCL's "")
        # a OneOf (BFCL's every value) decided inline when it can be (agree._one_of_agree: the same verdict)
        agree = _one_of_agree(value, pred, rule, canon, True) if type(value) is OneOf else None
        if not (values_agree(value, pred, rule, canon, top=True) if agree is None else agree):
            return False
    return True


#: :func:`exact_verdict`'s mark of an argument BFCL's rules do not judge (no declared type, or a compare policy).
_UNJUDGED = object()


def _has_equal(alternatives: tuple[Any, ...], value: int, kind: type) -> bool:
    """An alternative of type ``kind`` (``int``, ``bool`` or ``float``) equal to ``value`` (an equal alternative
    of another type does not always agree with it)."""
    for alt in alternatives:
        if alt == value and type(alt) is kind:
            return True
    return False


#: A repeated tool's index (:func:`group_index`): an argument, and its gold values -> the position of the call
#: (among the tool's calls) that gives each.
GroupIndex = tuple[str, Mapping[Any, int]]


@attrs.frozen
class ExactPlan:
    """What the all-exact path works out from a gold alone (:meth:`ToolCallMetric.prepare` keeps it): the
    score parts of an all-exact output, the gold calls of each tool, and each repeated tool's index."""

    parts: tuple[Exact, Mapping[TallyKey, tuple[Exact, int]]]
    #: each gold call's :func:`call_parts`, in gold order
    calls: tuple[tuple[Exact, int], ...]
    #: the tools with a gold call not :func:`shallow`
    deep: frozenset[str]
    #: tool -> the positions of its gold calls
    gold_of: Mapping[str, tuple[int, ...]]
    #: tool called more than once -> (an argument, its gold values -> the position among the tool's calls)
    #: (see :func:`group_index`)
    index: Mapping[str, GroupIndex]
    #: FN and tally of an output read with no call in it (see :func:`missed_parts`)
    missed: tuple[Exact, Mapping[TallyKey, tuple[Exact, int]]]


def plan_exact(gold: Sequence[Step], rules_of: Callable[[str], Mapping[str, ArgRule] | None],
               weight_of: Callable[[str], float], canon: Canonicalizer, level: str) -> ExactPlan:
    """The :class:`ExactPlan` of ``gold`` for a metric with these rules, weights, canonicalizer and level."""
    gold_of = _positions_by_tool(gold)
    index = {}
    for tool, js in gold_of.items():
        if len(js) > 1:
            found = group_index([gold[j].args for j in js], rules_of(tool) or _NO_RULES, canon)
            if found is not None:
                index[tool] = found
    calls = tuple(call_parts(g, rules_of, weight_of(g.name), level) for g in gold)
    deep = frozenset(g.name for g in gold if not shallow(g.args))
    return ExactPlan(_sum_parts(gold, calls), calls, deep,
                     MappingProxyType({tool: tuple(js) for tool, js in gold_of.items()}), MappingProxyType(index),
                     missed_parts(gold, calls))


def missed_parts(gold: Sequence[Step], calls: Sequence[tuple[Exact, int]]) -> tuple[Exact, Mapping[TallyKey,
                                                                                                  tuple[Exact, int]]]:
    """FN and tally of an output read with no call in it, for ``gold`` (not empty) and each gold call's
    :func:`call_parts`: every gold call left over, counted whole as ``missed_call`` (what
    ``ToolCallMetric._score_cover`` counts for such an output, its sums in :meth:`Score.from_exact_tally`'s
    normal form). A function of the gold alone, so a prepared gold keeps it."""
    sums: dict[TallyKey, list[Any]] = {}
    for g, (weight, count) in zip(gold, calls):
        tally_add(sums, (FN, g.name, "missed_call"), weight, count)
    tally = {key: (_normal(w), n) for key, (w, n) in sorted(sums.items())}
    return _normal(sum((w for w, _n in tally.values()), 0)), MappingProxyType(tally)


def _positions_by_tool(calls: Sequence[Step]) -> dict[str, list[int]]:
    """Tool name -> the positions of its calls, in order."""
    positions: dict[str, list[int]] = {}
    for j, call in enumerate(calls):
        positions.setdefault(call.name, []).append(j)
    return positions


def exact_candidates(args: Mapping[str, Any], index: GroupIndex | None, js: Sequence[int]) -> Sequence[int]:
    """The gold calls (``js``: a tool's, in the order its ``index`` counts them) that a predicted call with
    ``args`` may be exact with: the one its value of the indexed argument names, else all of them.

    When that value equals a gold value of call k, it agrees with no value of another call (their normal
    forms are disjoint: :func:`group_index`), so no other call can pair with it exactly.
    """
    if index is not None:
        value = args.get(index[0])
        if type(value) is str or type(value) is int:
            k = index[1].get(value)
            if k is not None:
                return (js[k],)
    return js


def group_index(golds: list[Mapping[str, Any]], rules: Mapping[str, ArgRule],
                canon: Canonicalizer) -> GroupIndex | None:
    """An argument that tells a repeated tool's gold calls apart, with each ``str``/``int`` gold value (or
    alternative) -> the position of its call; None when no argument does.

    The argument qualifies when every gold call gives it, no compare policy, date kind or ``OMITTABLE``
    applies, and the normal forms (:func:`ek.scorer.agree.value_key`: two plain values agree exactly when
    theirs are equal) of one call's values share none with another call's. A predicted value equal to a
    gold value of call k then agrees with no value of another call: the predicted call can be exact with k
    only (see :func:`_group_cover`).
    """
    for name in golds[0]:
        rule = rules.get(name)
        if rule is not None and (rule.policy is not None or rule.kind in _TEMPORAL):
            continue
        seen: set[Any] = set()
        by_value: dict[Any, int] = {}
        for k, args in enumerate(golds):
            value = args.get(name, OMITTABLE)
            alternatives = value.alternatives if type(value) is OneOf else (value,)
            keys = set()
            for alt in alternatives:
                key = None if alt is OMITTABLE else value_key(alt, rule, canon)
                if key is None:
                    break
                keys.add(key)
                if type(alt) is str or type(alt) is int:
                    by_value[alt] = k
            else:
                if keys.isdisjoint(seen):
                    seen |= keys
                    continue
            break
        else:
            return name, MappingProxyType(by_value)
    return None


_NO_INDEX: Mapping[str, GroupIndex] = MappingProxyType({})


class _AllExact(Sentinel):
    """:func:`exact_cover`'s answer when every call pairs exactly and none is left over."""

    NAME = "ALL_EXACT"


ALL_EXACT: Any = _AllExact()

#: :func:`exact_cover`'s answer short of :data:`ALL_EXACT`: ``(exact, pairs, extra, missing)``, the positions
#: of the gold calls paired exactly, the (pred, gold) pairs made inexactly in gold order, the predicted calls
#: left over and the gold calls left over.
Cover = tuple[Sequence[int], Sequence[tuple[int, int]], Sequence[int], Sequence[int]]

#: One call on each side, of two tools: both left over.
_TWO_TOOLS: Cover = ((), (), (0,), (0,))

#: One call on each side, of one tool, not exact: paired.
_ONE_PAIR: Cover = ((), ((0, 0),), (), ())


def _breaks_only_ignored(pred: Sequence[Step], invalid: Sequence[Mapping[str, str]],
                         rules_of: Callable[[str], Mapping[str, ArgRule] | None]) -> bool:
    """Whether a predicted call breaks the schema only in arguments its tool compares with policy ``ignore``.

    The covers below take a call that breaks the schema for exact with none; the general path's comparison
    skips an ignored argument before it looks at its violation (``ek.scorer.agree.compare_rows``), so such a
    call can pair exactly there, and which call is left over then changes the score (a hypothesis test found
    one: an exact ``s()`` beside an ``s(w=0, x=0)`` whose only fault is the ignored ``w``)."""
    for i, violations in enumerate(invalid):
        if violations:
            rules = rules_of(pred[i].name) or _NO_RULES
            if all((rule := rules.get(name)) is not None and rule.policy == "ignore" for name in violations):
                return True
    return False


def exact_cover(pred: Sequence[Step], gold: Sequence[Step], rules_of: Callable[[str], Mapping[str, ArgRule] | None],
                canon: Canonicalizer, invalid: Sequence[Mapping[str, str]],
                plan: ExactPlan | None = None) -> Cover | Any | None:
    """How the general path pairs ``pred`` with ``gold`` (no order to honour), whatever its assignment, when
    that is sure without ranking a pair: :data:`ALL_EXACT` when every call pairs exactly and none is left
    over, else a :data:`Cover`; None when the general path must decide.

    The exact pairs are told by :func:`exact_verdict` (``invalid``: each predicted call's schema violations;
    a call that breaks the schema is never exact). Tool by tool, the answer is sure when each predicted call
    has at most one exact partner and:

    - a gold call has at most one too: the exact pairs are then a matching that every assignment takes
      first (see ``ek.scorer.metric._exact_matching``), and the calls left over are those of one side only
      (left unmatched), or one on each side, which every assignment pairs (the greedy's partial pairs and
      the optimal one, which uses every row or column, alike);
    - or every gold call has one or more: every assignment gives each gold call one of its exact partners
      (the greedy takes exact pairs first and grows them to a maximum matching, the optimal one counts them
      first) and leaves the other predicted calls over. Which of a gold call's partners is left over is the
      assignment's choice; the answer names any, so it is sure only when they count the same when left
      over: the same arguments (:func:`call_parts` depends on nothing else);
    - or, with no index to tell the gold calls apart and no verdict that could be None, each call of the
      smaller side is exact with a call of its own (:func:`_exact_saturating_matching`): every assignment then
      makes that many exact pairs, whichever exact partners it picks (each pair counts its gold call's
      units), and leaves the rest of the larger side over, which is sure when those calls count the same.

    A tool whose paired calls hold values with parts inside parts (:func:`shallow`) goes the general way
    unless every call pairs exactly, as it did before this path: that is where values nested too deeply
    raise their clear error.
    """
    bfcl_mode = canon is bfcl
    if any(invalid) and _breaks_only_ignored(pred, invalid, rules_of):
        return None  # a call whose only violations are of arguments compared "ignore" may be exact: not told here
    if len(gold) == 1 and len(pred) == 1:  # the common case, spared the grouping
        p, g = pred[0], gold[0]
        if p.name != g.name:
            return _TWO_TOOLS
        if not invalid[0] and exact_verdict(p.args, g.args, rules_of(g.name) or _NO_RULES, bfcl_mode,
                                            canon) is True:
            return ALL_EXACT
        if shallow(p.args) and not _gold_deep(g.name, gold, (0,), plan):
            return _ONE_PAIR
        return None
    if len(gold) == 1 and pred:
        return _one_gold_cover(pred, gold[0], rules_of, canon, invalid, plan, bfcl_mode)
    return _cover_by_tool(pred, gold, rules_of, canon, invalid, plan, bfcl_mode)


def _cover_by_tool(pred: Sequence[Step], gold: Sequence[Step],
                   rules_of: Callable[[str], Mapping[str, ArgRule] | None], canon: Canonicalizer,
                   invalid: Sequence[Mapping[str, str]], plan: ExactPlan | None, bfcl_mode: bool) -> Cover | Any | None:
    """:func:`exact_cover` tool by tool: the general way, which its fast paths are held to."""
    if plan is None:
        gold_of: Mapping[str, Sequence[int]] = _positions_by_tool(gold)
        index: Mapping[str, GroupIndex] = _NO_INDEX
    else:
        gold_of, index = plan.gold_of, plan.index
    pred_of = _positions_by_tool(pred)
    exact: list[int] = []
    pairs: list[tuple[int, int]] = []
    extra: list[int] = []
    missing: list[int] = []
    for tool, mine in pred_of.items():
        if tool not in gold_of:
            extra.extend(mine)
    for tool, js in gold_of.items():
        mine = pred_of.get(tool)  # type: ignore[assignment]
        if mine is None:
            missing.extend(js)
            continue
        rules = rules_of(tool) or _NO_RULES
        if len(js) == 1 and len(mine) == 1:  # every assignment pairs these two
            i, j = mine[0], js[0]
            if not invalid[i] and exact_verdict(pred[i].args, gold[j].args, rules, bfcl_mode, canon) is True:
                exact.append(j)
            else:
                pairs.append((i, j))
            continue
        group = _group_cover(pred, gold, mine, js, invalid, rules, index.get(tool), bfcl_mode, canon)
        if group is None:
            return None
        exact.extend(group[0])
        pairs.extend(group[1])
        extra.extend(group[2])
        missing.extend(group[3])
    if not (pairs or extra or missing):
        return ALL_EXACT
    for tool, mine in pred_of.items():  # deep values keep the general path, as it was (see above)
        js = gold_of.get(tool)
        if js is None:
            continue
        if _gold_deep(tool, gold, js, plan):
            return None
        for i in mine:
            if not shallow(pred[i].args):
                return None
    if len(pairs) > 1:
        pairs.sort(key=_gold_position)
    return exact, pairs, extra, missing


def _gold_position(pair: tuple[int, int]) -> int:
    return pair[1]


def _one_gold_cover(pred: Sequence[Step], g: Step, rules_of: Callable[[str], Mapping[str, ArgRule] | None],
                    canon: Canonicalizer, invalid: Sequence[Mapping[str, str]], plan: ExactPlan | None,
                    bfcl_mode: bool) -> Cover | None:
    """Fast path of :func:`_cover_by_tool` for one gold call ``g`` and several predicted calls (a repeated
    call, an extra one, a renamed one): the same answer, without grouping the calls by tool.

    The calls of other tools are left over (in the grouping's order: by tool, each tool's in order); the
    gold call's tool's calls are told as :func:`_group_cover` tells one gold call's: exact with it, or not.
    What it skips besides the grouping: a copy of the first call found exact (the same arguments in the same
    order, each value of the same type and equal, :func:`_same_args`) is exact too without a verdict, and
    counts the same when left over (the verdict, and what :func:`_same_counted` compares, depend on nothing
    else). An answer that is not sure is None, as there.
    """
    tool = g.name
    mine: list[int] = []
    extra: list[int] = []
    for i, p in enumerate(pred):
        (mine if p.name == tool else extra).append(i)
    if len(extra) > 1:  # the grouping's order: by tool (in order of first call), then position
        by_tool: dict[str, list[int]] = {}
        for i in extra:
            by_tool.setdefault(pred[i].name, []).append(i)
        extra = [i for calls in by_tool.values() for i in calls]
    if not mine:
        return [], [], extra, [0]  # the gold call missed (no tool of both sides: nothing deep to fear)
    rules = rules_of(tool) or _NO_RULES
    gold_args = g.args
    if len(mine) == 1:  # every assignment pairs these two
        i = mine[0]
        if not invalid[i] and exact_verdict(pred[i].args, gold_args, rules, bfcl_mode, canon) is True:
            exact, pairs = [0], []
        else:
            exact, pairs = [], [(i, 0)]
    else:
        first: Mapping[str, Any] | None = None  # the arguments of the first call exact with g
        loose: list[int] = []
        rivals: list[int] = []
        for i in mine:
            args = pred[i].args
            if invalid[i]:
                loose.append(i)
            elif first is not None and _same_args(args, first):
                rivals.append(i)  # a copy of an exact call: exact, and counted the same when left over
            else:
                verdict = exact_verdict(args, gold_args, rules, bfcl_mode, canon)
                if verdict is None:
                    return None
                if not verdict:
                    loose.append(i)
                elif first is None:
                    first = args
                elif _same_counted(first, args):
                    rivals.append(i)
                else:
                    return None  # rivals that count differently: which one is left over changes the score
        if first is None:
            return None  # several calls and none exact: the assignment ranks them
        extra.extend(loose)
        extra.extend(rivals)
        exact, pairs = [0], []
    # deep values keep the general path, as in _cover_by_tool
    if _gold_deep(tool, (g,), (0,), plan):
        return None
    for i in mine:
        if not shallow(pred[i].args):
            return None
    return exact, pairs, extra, []


def _gold_deep(tool: str, gold: Sequence[Step], js: Sequence[int], plan: ExactPlan | None) -> bool:
    """Whether a gold call of ``tool`` (``gold[j]`` for ``j`` in ``js``, all of that tool's) is not
    :func:`shallow`; a prepared gold's plan knows it already (``plan.deep``)."""
    if plan is not None:
        return tool in plan.deep
    for j in js:
        if not shallow(gold[j].args):
            return True
    return False


def _same_args(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """The same arguments: the same names in the same order, each value of the same type and equal, a list's
    or dict's items too (their keys in the same order), every item a scalar; False for anything else (NaN,
    nested values: not the same here). Every verdict of one is the other's (:func:`exact_verdict` reads the
    names in order, the values by type and equality), and so is what it counts (:func:`call_parts`)."""
    if len(a) != len(b):
        return False
    for (name, value), (other_name, other) in zip(a.items(), b.items()):
        kind = type(value)
        if name != other_name or kind is not type(other):
            return False
        if kind is list or kind is tuple:
            if len(value) != len(other):
                return False
            for x, y in zip(value, other):
                if type(x) is not type(y) or type(x) not in _SCALARS:
                    return False
        elif kind is dict:
            if len(value) != len(other):
                return False
            for (k, x), (k2, y) in zip(value.items(), other.items()):
                if k != k2 or type(x) is not type(y) or type(x) not in _SCALARS:
                    return False
        elif kind not in _SCALARS:
            return False
        if value != other:
            return False
    return True


def _group_cover(pred: Sequence[Step], gold: Sequence[Step], mine: Sequence[int], js: Sequence[int],
                 invalid: Sequence[Mapping[str, str]], rules: Mapping[str, ArgRule],
                 tool_index: GroupIndex | None, bfcl_mode: bool,
                 canon: Canonicalizer) -> Cover | None:
    """:func:`exact_cover` of one tool called more than once on a side: the calls ``mine`` (predicted) and
    ``js`` (gold) of ``pred`` and ``gold``; None when the general path must decide.

    A predicted call with one candidate that is already exact with a call of the same arguments
    (:func:`_same_args`: a repeated call) is exact with it too, told without a verdict (its verdicts and
    candidates are the other call's); the call is checked against no other, so a correct output never pays
    for the test."""
    if tool_index is None and len(js) > EXACT_PAIRWISE_CALLS:
        # a large group unprepared: indexed now (linear) or left to the general path, never compared pair by
        # pair here as well as there
        tool_index = group_index([gold[j].args for j in js], rules, canon)
        if tool_index is None:
            return None
    known: dict[tuple[int, int], bool | None] | None = None  # verdicts the search for a saturating matching found
    if tool_index is None and len(js) > 1 and _never_unsure(gold, js, rules, bfcl_mode):
        # (one gold call: each predicted call is tested against it once below, what the search would do)
        known = {}
        matched = _exact_saturating_matching(pred, gold, mine, js, invalid, rules, bfcl_mode, canon, known)
        if matched is not None:
            return matched[0], (), matched[1], matched[2]
    partners: dict[int, list[int]] = {}  # gold position -> the predicted calls exact with it
    loose: list[int] = []  # predicted calls exact with none
    for i in mine:
        if invalid[i]:
            loose.append(i)
            continue
        args = pred[i].args
        candidates = js if tool_index is None else exact_candidates(args, tool_index, js)
        if len(candidates) == 1:
            taken = partners.get(candidates[0])
            if taken is not None and _same_args(args, pred[taken[0]].args):
                taken.append(i)  # a copy of a call exact with its only candidate: exact too, without a verdict
                continue
        elif len(candidates) > EXACT_PAIRWISE_CALLS:
            return None
        found = -1
        for j in candidates:
            verdict = known.get((i, j)) if known else None
            if verdict is None:
                verdict = exact_verdict(args, gold[j].args, rules, bfcl_mode, canon)
            if verdict is None:
                return None
            if verdict:
                if found >= 0:
                    return None  # two exact partners: which one it takes is the assignment's choice
                found = j
        if found < 0:
            loose.append(i)
        else:
            partners.setdefault(found, []).append(i)
    left_gold = [j for j in js if j not in partners]
    shared = [rivals for rivals in partners.values() if len(rivals) > 1]
    if shared:  # every gold call must have a partner, and its rivals must count the same when left over
        if left_gold:
            return None
        for rivals in shared:
            first = pred[rivals[0]].args
            for i in rivals[1:]:
                if not _same_counted(first, pred[i].args):
                    return None
        loose.extend(i for rivals in shared for i in rivals[1:])
        return list(partners), (), loose, ()
    if left_gold and loose:
        if len(left_gold) == 1 == len(loose):
            return list(partners), ((loose[0], left_gold[0]),), (), ()
        return None  # several calls left on each side: the assignment ranks them
    return list(partners), (), loose, left_gold


def _never_unsure(gold: Sequence[Step], js: Sequence[int], rules: Mapping[str, ArgRule], bfcl_mode: bool) -> bool:
    """Whether :func:`exact_verdict` answers True or False (never None) for every predicted call against the
    gold calls ``js`` of one tool: it is None only where a default may apply (outside BFCL's mode, a rule
    with a default) or a value is given where gold holds a bare ``OMITTABLE``."""
    if not bfcl_mode:
        for rule in rules.values():
            if rule.default is not NO_DEFAULT:
                return False
    for j in js:
        for value in gold[j].args.values():
            if value is OMITTABLE:
                return False
    return True


def _exact_saturating_matching(pred: Sequence[Step], gold: Sequence[Step], mine: Sequence[int], js: Sequence[int],
                               invalid: Sequence[Mapping[str, str]], rules: Mapping[str, ArgRule], bfcl_mode: bool,
                               canon: Canonicalizer, known: dict[tuple[int, int], bool | None]
                               ) -> tuple[list[int], list[int], list[int]] | None:
    """Fast path of :func:`_group_cover` for a tool's predicted calls ``mine`` and gold calls ``js`` with no index
    to tell them apart and verdicts that are never None (:func:`_never_unsure`): ``(exact, extra, missing)``, the
    gold positions paired exactly (in the order of their predicted calls) and the calls of each side left over,
    when every call of the smaller side is exact with a call of its own on the other side and the calls that
    could be left over all count the same; None when this search finds no such pairing (the caller then tests
    every pair, reading the verdicts worked out here from ``known``).

    Each predicted call takes the first free gold call it is exact with, the one at its own rank first (a right
    output mostly lists its calls in gold order), so a right output costs one verdict a call, where testing
    every pair costs the square. Safe: such a pairing is a maximum matching of exact pairs (it uses every call
    of one side), so every assignment makes as many exact pairs (the greedy grows its exact pairs to a maximum
    matching, the optimal one counts exact pairs first) and leaves the other calls over, unpaired: there is
    nothing left on the smaller side to pair them with. An exact pair counts its gold call's units whoever
    takes it (:func:`call_parts`), and which calls are left over is the assignment's choice, so the larger
    side's calls must count the same when left over (:func:`_same_counted`: a dropped or repeated call of a
    tool called with the same arguments each time). That holds only where no verdict can be "the general
    rules decide": a default that may apply or a value given for a bare ``OMITTABLE`` can make another exact
    pairing count a unit more. A call having a second exact partner, which the pair-by-pair test sends to the
    general path, changes none of this.
    """
    spare = len(mine) - len(js)  # predicted calls to be left over (gold calls when negative)
    taken: dict[int, int] = {}  # gold position -> the predicted call it went to
    extra: list[int] = []  # predicted calls left over
    for rank, i in enumerate(mine):
        found = False
        if not invalid[i]:  # (a call that breaks the schema is exact with none)
            args = pred[i].args
            if rank < len(js):
                j = js[rank]
                if j not in taken:
                    verdict = known[(i, j)] = exact_verdict(args, gold[j].args, rules, bfcl_mode, canon)
                    found = verdict is True
                    if found:
                        taken[j] = i
            if not found:
                for j in js:
                    if j in taken or (i, j) in known:
                        continue
                    verdict = known[(i, j)] = exact_verdict(args, gold[j].args, rules, bfcl_mode, canon)
                    if verdict is True:
                        taken[j] = i
                        found = True
                        break
        if not found:
            extra.append(i)
            if len(extra) > spare:
                return None  # a call of the smaller side (or one too many) left without an exact partner
    if spare > 0:
        first = pred[mine[0]].args
        if any(not _same_counted(first, pred[i].args) for i in mine[1:]):
            return None
        return list(taken), extra, []
    missing = [j for j in js if j not in taken]
    if missing:
        first = gold[js[0]].args
        if any(not _same_counted(first, gold[j].args) for j in js[1:]):
            return None
    return list(taken), [], missing


def _same_counted(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """``_counted(a) == _counted(b)``, without building the two sets when both calls name the same arguments
    and neither holds a bare ``OMITTABLE`` (a gold marker, which parsed output never holds): each set is then
    every name, so they are equal (a repeated call, the usual rival). Otherwise the sets are compared."""
    if a.keys() == b.keys():
        for value in a.values():
            if value is OMITTABLE:
                break
        else:
            for value in b.values():
                if value is OMITTABLE:
                    break
            else:
                return True
    return _counted(a) == _counted(b)


def _counted(args: Mapping[str, Any]) -> frozenset[str]:
    """The arguments of a call that :func:`call_parts` counts (its weights depend on nothing else)."""
    return frozenset(name for name, value in args.items() if value is not OMITTABLE)


#: Value types with no parts.
_SCALARS = frozenset({str, int, float, bool, type(None)})


def shallow(args: Mapping[str, Any]) -> bool:
    """Every argument value is a scalar, a gold marker, or a list or dict of scalars.

    The metric's fast paths that skip normal forms require it of the calls they pair: computing the normal
    forms would raise RecursionError (a clear "nested too deeply" error) on absurdly nested values, so
    values with parts inside parts keep the general path and fail as they always did.
    """
    scalars = _SCALARS
    for value in args.values():
        kind = type(value)
        if kind in scalars or kind is OneOf or value is OMITTABLE:
            continue
        if kind is list or kind is tuple:
            items = value
        elif kind is dict:
            items = value.values()
        else:
            return False
        for item in items:  # a loop, not all() over a generator: this runs for every call the cover path pairs
            if type(item) not in scalars:
                return False
    return True


__all__ = ["ALL_EXACT", "Cover", "ExactPlan", "GroupIndex", "call_parts", "exact_candidates",
           "exact_cover", "exact_parts", "exact_verdict", "group_index", "plan_exact", "shallow"]
