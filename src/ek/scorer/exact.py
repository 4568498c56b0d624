"""The all-exact fast path of :class:`~ek.scorer.metric.ToolCallMetric`: an output whose every call pairs
exactly with a gold call, and every gold call with one of them.

Such an episode's score does not depend on which exact pairs are chosen: every unit is a TP ``match``, one
per gold call and one per argument that counts (a bare ``OMITTABLE`` left out counts nothing, an ignored
argument nothing, every other gold argument one), each of the weight the general path gives it
(:func:`exact_parts`). Scoring such an output is then telling, call by call, that it is exact
(:func:`all_exact`), which skips the assignment, the comparison rows and the units. The explanation is
worked out by the general path when it is first read (:class:`~ek.scorer.accounting.DeferredExplanation`).

The path only answers when it is *sure*: each (predicted, gold) verdict is ``True`` (the general path's
comparison gives no row that is a mistake), ``False`` (it gives one) or ``None`` (a case left to the general
rules: defaults, hallucinated arguments, a given value for a bare ``OMITTABLE``); any ``False`` or ``None``
where an exact pair is needed, or a tool whose calls could pair in more than one exact way, sends the episode
to the general path. Values are judged by :func:`ek.scorer.agree.values_agree`, the one owner of agreement.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from ek.calls import Step
from ek.canon import Canonicalizer
from ek.grammar.model import NO_DEFAULT
from ek.scorer.accounting import ABSENT, TP, Exact, TallyKey, weight_exact
from ek.scorer.agree import ArgRule, ToolRules, is_bfcl_mode, values_agree
from ek.values import OMITTABLE, OneOf

_NO_RULES: Mapping[str, ArgRule] = MappingProxyType({})


def exact_parts(gold: Sequence[Step], rules_of: Callable[[str], Mapping[str, ArgRule] | None],
                weight_of: Callable[[str], float], level: str) -> tuple[Exact, Mapping[TallyKey, tuple[Exact, int]]]:
    """TP and tally of an all-exact output for ``gold``: each gold call's own unit and, at level ``arg``, one
    per argument that counts (a bare ``OMITTABLE`` left out gives no row, an ignored argument an
    ``ignored`` one: neither counts), each of the weight the general path gives it."""
    if len(gold) == 1:  # the common case, spared the dict, the sort and the sum
        g = gold[0]
        weight, count = _call_parts(g, rules_of, weight_of(g.name), level)
        return weight, MappingProxyType({(TP, g.name, "match"): (weight, count)})
    sums: dict[str, list[Any]] = {}
    for g in gold:
        weight, count = _call_parts(g, rules_of, weight_of(g.name), level)
        slot = sums.get(g.name)
        if slot is None:
            slot = sums[g.name] = [0, 0]
        slot[0] += weight
        slot[1] += count
    tally = {(TP, tool, "match"): (_normal(w), n) for tool, (w, n) in sorted(sums.items())}
    return _normal(sum((w for w, _n in tally.values()), 0)), MappingProxyType(tally)


def _call_parts(g: Step, rules_of: Callable[[str], Mapping[str, ArgRule] | None], w: float,
                level: str) -> tuple[Exact, int]:
    """The exact weight and the number of one exact gold call's units (its own, then its arguments')."""
    at_w = 1  # the call's own unit, and every argument of importance 1: each weighs w (w * 1.0 is w)
    other: Exact = 0  # the exact weights of the other arguments' units, and how many
    n_other = 0
    if level != "call":
        rules = rules_of(g.name) or _NO_RULES
        for name, value in g.args.items():
            rule = rules.get(name)
            if value is OMITTABLE or (rule is not None and rule.policy == "ignore"):
                continue
            if rule is None or rule.importance == 1.0:
                at_w += 1
            else:
                other += weight_exact(w * rule.importance)
                n_other += 1
    return _normal(weight_exact(w) * at_w + other), at_w + n_other


def _normal(value: Exact) -> Exact:
    """An integral Fraction as an int, as a score's own sums keep it."""
    return value.numerator if type(value) is Fraction and value.denominator == 1 else value


def exact_verdict(args: Mapping[str, Any], gold: Mapping[str, Any], rules: Mapping[str, ArgRule],
                  bfcl_mode: bool, canon: Canonicalizer) -> bool | None:
    """Whether a predicted call with ``args`` (valid: no schema violation) pairs exactly with a gold call of
    the same tool with ``gold`` arguments: True, False, or None when the general rules must decide (see the
    module's docstring). ``rules``: the tool's (empty without a grammar)."""
    for name in args:
        if name not in gold:
            rule = rules.get(name)
            if rule is not None and rule.policy == "ignore":
                continue  # an "ignored" row
            if rule is None or bfcl_mode or rule.default is NO_DEFAULT:
                return False  # hallucinated_arg
            return None  # gold's default applies: a match would be a unit more than exact_parts counts
    if bfcl_mode:
        required = rules.required if type(rules) is ToolRules else [n for n, r in rules.items() if r.required]
        for name in required:
            if name not in gold and rules[name].policy != "ignore":
                return False  # BFCL: missing_arg left out, hallucinated_arg given
    for name, value in gold.items():
        rule = rules.get(name)
        if rule is not None and rule.policy == "ignore":
            continue  # an "ignored" row whatever is predicted
        pred = args.get(name, ABSENT)
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
        kind = type(pred)
        if kind is str:
            if pred in value.alternatives if type(value) is OneOf else pred == value:
                continue  # _equal_values_agree
        elif kind is int and (_has_int(value.alternatives, pred) if type(value) is OneOf
                              else type(value) is int and value == pred):
            continue  # _equal_values_agree
        if not values_agree(value, pred, rule, canon, top=True):
            return False
    return True


def _has_int(alternatives: tuple[Any, ...], value: int) -> bool:
    """An ``int`` alternative equal to ``value`` (not a bool or a float: those do not always agree with it)."""
    for alt in alternatives:
        if alt == value and type(alt) is int:
            return True
    return False


def _equal_values_agree() -> None:
    """Why :func:`exact_verdict` takes a predicted ``str`` (``int``) equal to gold's value or to one of its
    alternatives of the same exact type as agreeing without asking :func:`~ek.scorer.agree.values_agree`:
    ``values_agree`` accepts two equal strings under every rule: with no policy as they are; under ``ignore``
    whatever they hold; under a string policy or the canonicalizer (a function of its text) because the same
    text gives the same form; as dates because the same text parses to the same date (or, when it does not
    parse, is compared as text). Two equal ints agree under every rule too (a tolerance holds a difference
    of 0; ``int`` refuses floats only). A ``str`` equals only a ``str``; an ``int`` may equal a bool or a
    float, hence the type test. Documentation only; nothing calls it."""


def all_exact(pred: Sequence[Step], gold: Sequence[Step], rules_of: Callable[[str], Mapping[str, ArgRule] | None],
              canon: Canonicalizer) -> bool:
    """True when the general path pairs every predicted call with a gold call exactly and leaves no call
    unmatched on either side (the predicted calls are valid: the caller checked that none breaks the schema).

    A tool called once on each side pairs those two calls (every assignment does). A tool called more
    often must have as many calls on each side, each with exactly one exact partner: the exact pairs are
    then a perfect matching that every assignment takes first (the greedy's exact pairs share no call; the
    optimal one counts exact pairs first), so which assignment runs does not matter.
    """
    if len(pred) != len(gold):
        return False
    if len(gold) == 1:  # the common case, spared the grouping
        p, g = pred[0], gold[0]
        return p.name == g.name and exact_verdict(
            p.args, g.args, rules_of(g.name) or _NO_RULES, is_bfcl_mode(canon), canon) is True
    gold_of: dict[str, list[int]] = {}
    for j, g in enumerate(gold):
        gold_of.setdefault(g.name, []).append(j)
    pred_of: dict[str, list[int]] = {}
    for i, p in enumerate(pred):
        if p.name not in gold_of:
            return False
        pred_of.setdefault(p.name, []).append(i)
    bfcl_mode = is_bfcl_mode(canon)
    for tool, js in gold_of.items():
        mine = pred_of.get(tool)
        if mine is None or len(mine) != len(js):
            return False
    for tool, js in gold_of.items():
        mine = pred_of[tool]
        rules = rules_of(tool) or _NO_RULES
        if len(js) == 1:
            if exact_verdict(pred[mine[0]].args, gold[js[0]].args, rules, bfcl_mode, canon) is not True:
                return False
        elif not _one_exact_partner_each([pred[i].args for i in mine], [gold[j].args for j in js], rules,
                                         bfcl_mode, canon):
            return False
    return True


def _one_exact_partner_each(preds: list[Mapping[str, Any]], golds: list[Mapping[str, Any]],
                            rules: Mapping[str, ArgRule], bfcl_mode: bool, canon: Canonicalizer) -> bool:
    """Every predicted call of a tool is exact with exactly one of its gold calls and each gold call with
    exactly one of them (no verdict left to the general rules)."""
    partners_of_gold = [0] * len(golds)
    for args in preds:
        partners = 0
        for k, gold in enumerate(golds):
            verdict = exact_verdict(args, gold, rules, bfcl_mode, canon)
            if verdict is None:
                return False
            if verdict:
                partners += 1
                partners_of_gold[k] += 1
        if partners != 1:
            return False
    return all(n == 1 for n in partners_of_gold)


__all__ = ["all_exact", "exact_parts", "exact_verdict"]
