"""Comparing gold and predicted argument values, one argument and one record at a time.

The rules (see docs/scoring.md):

- strings go through the canonicalizer (or the argument's ``compare`` policy);
- ``True`` is never ``1``; numbers compare by value (``1 == 1.0``) unless the
  schema types the argument ``int``, where a predicted float never matches;
- lists compare element by element in order (``unordered``: as multisets);
  dicts key by key, recursively, canonicalizing nested strings too;
- a gold :class:`~ek.values.OneOf` accepts any alternative, at any depth;
- an omitted argument equals its declared default.
"""

from __future__ import annotations

import datetime as _dt
import math
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from ek.canon import CANONICALIZERS, Canonicalizer
from ek.grammar.model import (
    NO_DEFAULT,
    EnumType,
    FieldSpec,
    GraphGrammar,
    ListType,
    ObjectType,
    PrimitiveType,
    ToolSpec,
)
from ek.parsing.values import int_too_long
from ek.scorer.accounting import ArgCheck
from ek.scorer.assign import has_perfect_matching
from ek.values import OMITTABLE, OneOf, is_omittable


@attrs.frozen
class ArgRule:
    """How one argument is compared and weighted: the scorer's view of a ``FieldSpec``."""

    importance: float = 1.0
    policy: str | None = None  # fold / exact / bfcl / tol / unordered / ignore; None: the metric's canonicalizer
    tolerance: float | None = None
    kind: str | None = None  # str int float bool date datetime any enum list object; None: no schema
    default: Any = NO_DEFAULT
    item: ArgRule | None = None
    fields: Mapping[str, ArgRule] | None = None
    order: int = 0


def rule_for_field(grammar: GraphGrammar, spec: FieldSpec, order: int = 0) -> ArgRule:
    """Resolve a ``FieldSpec`` (following named types) into an :class:`ArgRule`."""
    node, _constraints = grammar.resolve(spec.type)
    base = _rule_for_type(grammar, node)
    policy = spec.compare
    return attrs.evolve(
        base,
        importance=float(spec.importance),
        policy=None if policy is None else policy.kind,
        tolerance=None if policy is None else policy.tolerance,
        default=spec.default,
        order=order,
    )


def _rule_for_type(grammar: GraphGrammar, node: Any) -> ArgRule:
    node, _ = grammar.resolve(node)
    if isinstance(node, PrimitiveType):
        return ArgRule(kind=node.name)
    if isinstance(node, EnumType):
        return ArgRule(kind="enum")
    if isinstance(node, ListType):
        return ArgRule(kind="list", item=_rule_for_type(grammar, node.item))
    if isinstance(node, ObjectType):
        return ArgRule(kind="object", fields=rules_for_fields(grammar, node.fields))
    raise TypeError(f"unsupported type node {node!r}")


def rules_for_fields(grammar: GraphGrammar, fields: Sequence[FieldSpec]) -> dict[str, ArgRule]:
    return {f.name: rule_for_field(grammar, f, i) for i, f in enumerate(fields)}


def rules_for_tool(grammar: GraphGrammar, tool: ToolSpec) -> dict[str, ArgRule]:
    """Per-argument rules of a tool, in declaration order."""
    return rules_for_fields(grammar, tool.fields)


def _canon_for(rule: ArgRule | None, canon: Canonicalizer) -> Canonicalizer:
    if rule is None or rule.policy is None or rule.policy in ("fold", "tol", "unordered", "ignore"):
        return canon if rule is None or rule.policy != "fold" else CANONICALIZERS["fold"]
    return CANONICALIZERS[rule.policy]


def _parse_temporal(text: str, kind: str) -> Any:
    try:
        if kind == "date":
            return _dt.date.fromisoformat(text.strip())
        return _dt.datetime.fromisoformat(text.strip())
    except ValueError:
        return None


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def values_agree(gold: Any, pred: Any, rule: ArgRule | None, canon: Canonicalizer) -> bool:
    """True when a predicted value is acceptable for a gold value under ``rule``.

    >>> from ek.canon import fold
    >>> values_agree("New York", " new  york", None, fold), values_agree(True, 1, None, fold)
    (True, False)
    >>> values_agree(OneOf("NYC", "New York"), "nyc", None, fold)
    True
    """
    if isinstance(gold, OneOf):
        return any(values_agree(alt, pred, rule, canon) for alt in gold.values)
    if gold is OMITTABLE:
        return False  # only absence satisfies a bare OMITTABLE
    if rule is not None and rule.policy == "ignore":
        return True
    if gold is None or pred is None:
        return gold is None and pred is None
    if isinstance(gold, bool) or isinstance(pred, bool):
        return isinstance(gold, bool) and isinstance(pred, bool) and gold == pred
    if _is_number(gold) and _is_number(pred):
        return _numbers_agree(gold, pred, rule)
    if isinstance(gold, str) and isinstance(pred, str):
        if rule is not None and rule.kind in ("date", "datetime"):
            g, p = _parse_temporal(gold, rule.kind), _parse_temporal(pred, rule.kind)
            if g is not None and p is not None:
                return bool(g == p)
        fn = _canon_for(rule, canon)
        return fn(gold) == fn(pred)
    if isinstance(gold, (list, tuple)) and isinstance(pred, (list, tuple)):
        item_rule = _item_rule(rule, canon)
        if len(gold) != len(pred):
            return False
        if rule is not None and rule.policy == "unordered":
            return _multiset_agree(gold, pred, item_rule, canon)
        return all(values_agree(g, p, item_rule, canon) for g, p in zip(gold, pred))
    if isinstance(gold, Mapping) and isinstance(pred, Mapping):
        fields = rule.fields if rule is not None else None
        return all(c.ok for c in compare_records(pred, gold, fields, canon))
    return type(gold) is type(pred) and bool(gold == pred)


def _item_rule(rule: ArgRule | None, canon: Canonicalizer) -> ArgRule | None:
    if rule is None:
        return None
    item = rule.item
    # A list's own string policy (exact/bfcl/fold) applies to its string items too.
    if rule.policy in ("exact", "bfcl", "fold"):
        return attrs.evolve(item or ArgRule(), policy=rule.policy)
    return item


def _numbers_agree(gold: int | float, pred: int | float, rule: ArgRule | None) -> bool:
    if isinstance(gold, float) and math.isnan(gold) or isinstance(pred, float) and math.isnan(pred):
        return False
    if rule is not None and rule.policy == "tol" and rule.tolerance is not None:
        try:
            return abs(gold - pred) <= rule.tolerance
        except OverflowError:
            return False
    if rule is not None and rule.kind == "int" and isinstance(pred, float):
        return False  # the schema says int: a predicted 1.0 is a type error, not a 1
    return gold == pred


def _multiset_agree(gold: Sequence[Any], pred: Sequence[Any], rule: ArgRule | None, canon: Canonicalizer) -> bool:
    """Equal-length lists that pair up one to one under :func:`values_agree` (a perfect matching)."""
    return has_perfect_matching(len(gold), lambda i, j: values_agree(gold[i], pred[j], rule, canon))


def compare_records(
    pred: Mapping[str, Any],
    gold: Mapping[str, Any],
    rules: Mapping[str, ArgRule] | None,
    canon: Canonicalizer,
    *,
    invalid: Mapping[str, str] | None = None,
) -> tuple[ArgCheck, ...]:
    """Compare two records key by key; one :class:`~ek.scorer.accounting.ArgCheck` per argument that counts.

    ``rules`` (from a grammar) give importance, policy and defaults; without
    them every argument weighs 1 and strings use ``canon``. ``invalid`` maps an
    argument name to a schema violation found in the predicted value.
    """
    rules = rules or {}
    invalid = invalid or {}
    checks: list[ArgCheck] = []
    for name in _ordered_names(pred, gold, rules):
        rule = rules.get(name)
        weight = rule.importance if rule is not None else 1.0
        in_gold, in_pred = name in gold, name in pred
        if rule is not None and rule.policy == "ignore":
            checks.append(ArgCheck(name, "ignored", weight))
            continue
        has_default = rule is not None and rule.default is not NO_DEFAULT
        if in_gold:
            g = gold[name]
            if in_pred:
                p = pred[name]
                if name in invalid:
                    checks.append(ArgCheck(name, "invalid_value", weight, g, p, invalid[name]))
                elif values_agree(g, p, rule, canon):
                    checks.append(ArgCheck(name, "match", weight, g, p))
                else:
                    checks.append(ArgCheck(name, "wrong_value", weight, g, p))
            elif g is OMITTABLE:
                continue  # nothing expected, nothing given: no unit
            elif is_omittable(g) or (has_default and values_agree(g, rule.default, rule, canon)):  # type: ignore[union-attr]
                checks.append(ArgCheck(name, "match", weight, g))
            else:
                checks.append(ArgCheck(name, "missing_arg", weight, g))
        else:
            p = pred[name]
            if name in invalid and rule is not None:
                checks.append(ArgCheck(name, "invalid_value", weight, got=p, detail=invalid[name]))
            elif has_default:
                default = rule.default  # type: ignore[union-attr]
                status = "match" if values_agree(default, p, rule, canon) else "wrong_value"
                checks.append(ArgCheck(name, status, weight, default, p, "gold omits it: its default applies"))
            else:
                checks.append(ArgCheck(name, "hallucinated_arg", weight, got=p))
    return tuple(checks)


def _ordered_names(pred: Mapping[str, Any], gold: Mapping[str, Any], rules: Mapping[str, ArgRule]) -> list[str]:
    names = set(gold) | set(pred)
    big = len(rules)
    return sorted(names, key=lambda n: (rules[n].order if n in rules else big, n))


# --------------------------------------------------------------------------- canonical keys

_NOT_PLAIN = object()


def arg_keys(args: Mapping[str, Any], rules: Mapping[str, ArgRule] | None, canon: Canonicalizer) -> dict[str, Any] | None:
    """Per-argument normal forms of a call (defaults filled in, ignored arguments left out).

    Two plain values agree exactly when their keys are equal. ``None`` is
    returned for anything whose agreement is not an equivalence:
    ``OneOf``/``OMITTABLE`` gold values, ``tol`` tolerances, NaN, exotic types.
    """
    rules = rules or {}
    keys: dict[str, Any] = {}
    for name in args:
        rule = rules.get(name)
        if rule is not None and rule.policy == "ignore":
            continue
        key = _value_key(args[name], rule, canon)
        if key is _NOT_PLAIN:
            return None
        keys[name] = key
    for name, rule in rules.items():  # an omitted argument equals its default
        if name not in args and rule.default is not NO_DEFAULT and rule.policy != "ignore":
            key = _value_key(rule.default, rule, canon)
            if key is _NOT_PLAIN:
                return None
            keys[name] = key
    return keys


def key_of(keys: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    """The hashable form of :func:`arg_keys`' result."""
    return tuple(sorted(keys.items(), key=lambda kv: kv[0]))


def _value_key(value: Any, rule: ArgRule | None, canon: Canonicalizer) -> Any:
    if isinstance(value, OneOf) or value is OMITTABLE:
        return _NOT_PLAIN
    if rule is not None and rule.policy == "tol":
        return _NOT_PLAIN
    if value is None:
        return ("none",)
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, (int, float)):
        if isinstance(value, float) and math.isnan(value):
            return _NOT_PLAIN
        if rule is not None and rule.kind == "int":
            # agreement is not symmetric here (a float gold accepts an int, a float pred is refused)
            return ("int", value) if isinstance(value, int) else _NOT_PLAIN
        return ("num", value)  # 1 and 1.0 share a key (and a hash), as they agree
    if isinstance(value, str):
        if rule is not None and rule.kind in ("date", "datetime"):
            parsed = _parse_temporal(value, rule.kind)
            if parsed is not None:
                return (rule.kind, parsed.isoformat())
        return ("str", _canon_for(rule, canon)(value))
    if isinstance(value, (list, tuple)):
        item_rule = _item_rule(rule, canon)
        keys = [_value_key(v, item_rule, canon) for v in value]
        if any(k is _NOT_PLAIN for k in keys):
            return _NOT_PLAIN
        if rule is not None and rule.policy == "unordered":
            return ("bag", tuple(sorted(keys, key=_order_text)))
        return ("list", tuple(keys))
    if isinstance(value, Mapping):
        if not all(isinstance(k, str) for k in value):
            return _NOT_PLAIN
        sub = arg_keys(value, rule.fields if rule is not None else None, canon)
        return _NOT_PLAIN if sub is None else ("dict", key_of(sub))
    return _NOT_PLAIN


def content_order_key(args: Mapping[str, Any]) -> str:
    """A total, position-free order on calls, used only to break exact ties deterministically."""
    try:
        return repr(sorted((k, _stable_repr(v)) for k, v in args.items()))
    except RecursionError:  # pathological depth: fall back to something stable and cheap
        return repr(sorted(args))


def _stable_repr(value: Any) -> str:
    if isinstance(value, Mapping):
        return "{" + ",".join(f"{k!r}:{_stable_repr(v)}" for k, v in sorted(value.items(), key=lambda kv: repr(kv[0]))) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_stable_repr(v) for v in value) + "]"
    if type(value) is int and int_too_long(value):  # repr refuses it; hex is exact and unlimited
        return f"int:{value:#x}"
    return f"{type(value).__name__}:{value!r}"


def _order_text(value: Any) -> str:
    """``repr(value)`` as a sort key, or (for what repr refuses: an int past Python's int/str limit) its
    :func:`_stable_repr`; only used to put equal multisets in one order."""
    try:
        return repr(value)
    except ValueError:
        return _stable_repr(value)

