"""Comparing gold and predicted argument values, one argument and one record at a time.

The rules (see docs/scoring.md):

- strings go through the canonicalizer (or the argument's ``compare`` policy);
- ``True`` is never ``1``; numbers compare by value (``1 == 1.0``) unless the
  schema types the argument ``int``, where a predicted float never matches;
- lists compare element by element in order (``unordered``: as multisets);
  dicts key by key, recursively, canonicalizing nested strings too;
- numbers within ``tol(X)`` are compared on their written decimals, exactly;
- a gold :class:`~ek.values.OneOf` accepts any alternative, at any depth;
- defaults are symmetric: the *effective* value (given, or the declared default
  when omitted) is compared on both sides; a bare ``OMITTABLE`` gold value
  counts exactly as if gold left the argument out;
- in BFCL mode (the metric's canonicalizer is :func:`ek.canon.bfcl`) schema
  defaults play no part, a required argument must be given, BFCL's
  omission marker ``""`` is also a value, and a call's argument is judged by
  BFCL's rules for its declared type and depth (:mod:`ek.bfclvalues`, which
  :func:`ek.bfcl.check` asks too: :func:`bfcl_agrees`), as in BFCL's AST checker.
"""

from __future__ import annotations

import datetime as _dt
import math
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

import attrs

from ek.bfclvalues import value_failure
from ek.canon import CANONICALIZERS, Canonicalizer, bfcl
from ek.grammar.model import (
    NO_DEFAULT,
    EnumType,
    FieldSpec,
    GraphGrammar,
    ListType,
    NamedType,
    ObjectType,
    PrimitiveType,
    ToolSpec,
)
from ek.parsing.values import int_too_long
from ek.scorer.accounting import ABSENT, OK_STATUSES, ArgCheck, CheckRow
from ek.scorer.assign import has_perfect_matching
from ek.sentinel import Sentinel
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
    required: bool = False


def rule_for_field(grammar: GraphGrammar, spec: FieldSpec, order: int = 0) -> ArgRule:
    """Resolve a ``FieldSpec`` (following named types) into an :class:`ArgRule`."""
    plain = _plain_rule(spec, order)
    if plain is not None:
        return plain
    kind, item, fields = _type_parts(grammar, spec.type)
    policy = spec.compare
    return ArgRule(
        importance=float(spec.importance),
        policy=None if policy is None else policy.kind,
        tolerance=None if policy is None else policy.tolerance,
        kind=kind,
        default=spec.default,
        item=item,
        fields=fields,
        order=order,
        required=spec.required,
    )


#: The rules :func:`_plain_rule` has made, by (kind, order, required): one frozen rule serves every such field.
_PLAIN_RULES: dict[tuple[str, int, bool], ArgRule] = {}
#: The orders :func:`_plain_rule` shares rules for (a field further down a tool gets its own, as before):
#: bounds :data:`_PLAIN_RULES` to a few thousand rules, whatever the grammars.
_PLAIN_ORDERS = 64


def _plain_rule(spec: FieldSpec, order: int) -> ArgRule | None:
    """Fast path of :func:`rule_for_field` for a field of a primitive type (``str``, ``int``, ...) with no
    ``compare`` policy, importance 1 and no default (most of BFCL's parameters), or None.

    Such a field's rule holds only its kind, order and whether it is required (constraints play no part
    in a rule), so one rule per (kind, order, required) is made once and shared, instead of a new one per
    field of every BFCL question's every tool. Safe because :class:`ArgRule` is frozen, equal rules are
    interchangeable (nothing tells rules apart by identity), and the rule shared is exactly the one the
    general path builds. tests/scorer/test_agree_fast_path.py holds it to the general path.
    """
    node = spec.type
    if (type(node) is not PrimitiveType or spec.compare is not None or spec.importance != 1.0
            or spec.default is not NO_DEFAULT or type(spec.required) is not bool or not 0 <= order < _PLAIN_ORDERS):
        return None
    key = (node.name, order, spec.required)
    rule = _PLAIN_RULES.get(key)
    if rule is None:
        rule = _PLAIN_RULES[key] = ArgRule(kind=node.name, order=order, required=spec.required)
    return rule


def _rule_for_type(grammar: GraphGrammar, node: Any) -> ArgRule:
    kind, item, fields = _type_parts(grammar, node)
    return ArgRule(kind=kind, item=item, fields=fields)


def _type_parts(grammar: GraphGrammar, node: Any) -> tuple[str, ArgRule | None, Mapping[str, ArgRule] | None]:
    """The ``kind``, ``item`` and ``fields`` of the rule of a type node (named types followed).

    Built straight into the argument's one :class:`ArgRule` (no rule of the bare type first, then an
    ``attrs.evolve`` of it: an argument's rules are made once per tool of every BFCL question); only a
    named type goes through :meth:`GraphGrammar.resolve`, whose merged constraints a rule does not use.
    """
    if isinstance(node, NamedType):
        node, _ = grammar.resolve(node)
    if isinstance(node, PrimitiveType):
        return node.name, None, None
    if isinstance(node, EnumType):  # integer members compare as int does: a predicted 1.0 is not a 1
        return ("int" if all(type(m) is int for m in node.members) else "enum"), None, None
    if isinstance(node, ListType):
        return "list", _rule_for_type(grammar, node.item), None
    if isinstance(node, ObjectType):
        return "object", None, rules_for_fields(grammar, node.fields)
    raise TypeError(f"unsupported type node {node!r}")


def rules_for_fields(grammar: GraphGrammar, fields: Sequence[FieldSpec]) -> dict[str, ArgRule]:
    return {f.name: rule_for_field(grammar, f, i) for i, f in enumerate(fields)}


class ToolRules(dict):  # type: ignore[type-arg]
    """A tool's rules (argument name -> :class:`ArgRule`, as built, never changed) with what
    :func:`compare_rows` derives from them on every pair worked out once: each argument's sort key and
    the required arguments."""

    def __init__(self, rules: Mapping[str, ArgRule]) -> None:
        super().__init__(rules)
        self.sort_keys = {name: (rule.order, name) for name, rule in rules.items()}
        self.required = tuple(name for name, rule in rules.items() if rule.required)
        self.required_set = frozenset(self.required)
        #: the arguments whose every unit weighs the call's weight: importance 1, not ignored
        self.unit_weight_names = frozenset(name for name, rule in rules.items()
                                           if rule.importance == 1.0 and rule.policy != "ignore")
        #: every declared argument sorts before any undeclared name (each order below the number of arguments,
        #: as rules_for_fields numbers them): see _declared_order
        self.declared_first = all(rule.order < len(rules) for rule in rules.values())
        #: (gold's names, pred's names, with required) -> the names in declared order (see _declared_order)
        self.orders: dict[tuple[tuple[str, ...], tuple[str, ...], bool], list[str] | None] = {}
        #: BFCL mode: each argument BFCL's rules judge (:func:`bfcl_judges`) -> its declared scalar type, or
        #: None for another kind (list, object, any)
        self.bfcl_judged = {name: _BFCL_SCALARS.get(rule.kind) for name, rule in rules.items()  # type: ignore[arg-type]
                            if bfcl_judges(rule)}


def rules_for_tool(grammar: GraphGrammar, tool: ToolSpec) -> dict[str, ArgRule]:
    """Per-argument rules of a tool, in declaration order."""
    return ToolRules(rules_for_fields(grammar, tool.fields))


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


def is_bfcl_mode(canon: Canonicalizer) -> bool:
    """True when the metric's canonicalizer is BFCL's: scoring then follows BFCL's AST checker (docs/bfcl.md)."""
    return canon is bfcl


def values_agree(gold: Any, pred: Any, rule: ArgRule | None, canon: Canonicalizer, *, top: bool = False) -> bool:
    """True when a predicted value is acceptable for a gold value under ``rule``.

    ``top``: the value is a tool's argument (not a field or item inside one);
    only BFCL mode tells the two apart, as BFCL type-checks top-level values only.

    >>> from ek.canon import fold
    >>> values_agree("New York", " new  york", None, fold), values_agree(True, 1, None, fold)
    (True, False)
    >>> values_agree(OneOf("NYC", "New York"), "nyc", None, fold)
    True
    """
    if top and canon is bfcl and rule is not None and rule.policy is None and rule.kind is not None:
        return bfcl_agrees(gold, pred, rule)  # BFCL mode, an argument BFCL's rules judge (bfcl_judges, inline)
    same = _same_plain_agree(gold, pred, rule, canon)
    if same is not None:
        return same
    if isinstance(gold, OneOf):
        # The present alternatives first, then what omission accepts: the verdict is their "or", and a
        # given value usually equals one of the alternatives (the omission test is then never run).
        alternatives = gold.alternatives  # what .omittable and .values read, read once here
        omittable = False
        for alt in alternatives:
            if alt is OMITTABLE:
                omittable = True
                continue
            same = _same_plain_agree(alt, pred, rule, canon)
            if same if same is not None else values_agree(alt, pred, rule, canon):
                return True
        return omittable and _omission_accepts(gold, pred, rule, canon, top=top)
    if gold is OMITTABLE:
        return _omission_accepts(gold, pred, rule, canon, top=top)
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
        return all(row[1] in OK_STATUSES for row in compare_rows(pred, gold, fields, canon, nested=True))
    return type(gold) is type(pred) and bool(gold == pred)


#: Schema kinds whose strings are parsed before they compare (:func:`_same_plain_agree` leaves them alone).
_TEMPORAL = frozenset({"date", "datetime"})


def _same_plain_agree(gold: Any, pred: Any, rule: ArgRule | None, canon: Canonicalizer) -> bool | None:
    """Fast path of :func:`values_agree` for a gold and a predicted value of the same exact type ``str``,
    ``int`` or ``float`` under no compare policy; ``None`` for anything else (the full rules decide).

    It skips the type dispatch only: ``type(x) is str``/``int``/``float`` rules out ``OneOf``, ``OMITTABLE``,
    ``None``, ``bool`` and subclasses; with no policy there is no ``ignore``/``tol``/``fold``/``exact`` to apply,
    so an int compares by value, a float by value unless the schema types the argument ``int`` (then never, as
    :func:`_numbers_agree` says), and a string through the metric's canonicalizer (equal strings need no call:
    a canonicalizer is a function of its text) unless the schema types it as a date or datetime (those take
    the full path, which parses them) - exactly the full rules' verdict. :func:`compare_rows` calls it for
    each argument before :func:`values_agree`.

    Two ``list`` s equal item for item, every item of the same exact type ``str`` or ``int`` on both sides
    (:func:`_same_flat_list`), agree too: the full rules compare such lists item by item under the item's
    rule, and two equal strings or ints agree under every rule (as above; under a policy too: ``fold``,
    ``exact`` and ``bfcl`` put equal texts in equal forms, ``tol`` holds a difference of 0, its tolerance
    being non-negative, ``ignore`` accepts anything; dates parse equal texts to equal dates). Other lists
    (a difference, a float, nesting) are left to the full rules (``None``).
    """
    kind = type(gold)
    if kind is not type(pred):
        return None
    if rule is not None and (rule.policy is not None or rule.kind in _TEMPORAL):
        return None
    if kind is str:
        return gold == pred or canon(gold) == canon(pred)
    if kind is int:
        return gold == pred
    if kind is float:
        # two floats under no policy: _numbers_agree's verdict (no tolerance to apply; NaN equals nothing), but
        # False for an argument declared int (a float there is a type error, equal or not)
        return gold == pred and (rule is None or rule.kind != "int")
    if kind is list:
        return True if _same_flat_list(gold, pred) else None
    return None


def _same_flat_list(gold: list[Any], pred: list[Any]) -> bool:
    """``gold`` and ``pred`` hold equal items in the same order, each of the same exact type ``str`` or ``int``
    on both sides (``bool`` is not ``int`` here, nor ``1.0`` equal to ``1``: their rules differ)."""
    if len(gold) != len(pred):
        return False
    for g, p in zip(gold, pred):
        kind = type(p)
        if (kind is not str and kind is not int) or type(g) is not kind or g != p:
            return False
    return True


#: BFCL's Python type of each argument kind (``any`` is checked as a string, like BFCL's ``any``).
_BFCL_TYPES: Mapping[str, type] = {
    "str": str, "enum": str, "any": str, "date": str, "datetime": str,
    "int": int, "float": float, "bool": bool, "list": list, "object": dict,
}


def bfcl_judges(rule: ArgRule | None) -> bool:
    """Whether BFCL mode judges a call's argument with this rule by BFCL's rules (:func:`bfcl_agrees`): it has
    a declared type and no ``compare`` policy (which, given, decides)."""
    return rule is not None and rule.policy is None and rule.kind is not None


def bfcl_agrees(gold: Any, pred: Any, rule: ArgRule) -> bool:
    """BFCL mode: whether ``pred``, given for a call's argument, is among ``gold``'s acceptable values by BFCL's
    rules for its declared type (:func:`ek.bfclvalues.value_failure`, which :func:`ek.bfcl.check` asks too),
    the type read from ``rule`` (its kind and its items' kind; ``rule`` has no compare policy).

    ``gold`` is written back as BFCL writes an answer (a ``OneOf``'s alternatives, ``""`` for ``OMITTABLE``,
    :func:`_bfcl_answer` each), so the value is judged as ``check`` judges it against BFCL's own answer: by
    its depth (the value's type, or the answers' for a "variable", compared as written; strings standardised
    at the first level only; anything deeper by ``==``).

    A grammar reads BFCL's ``dict`` without properties as ``any``: such an argument (or list item) is a dict
    where the answer holds one (:func:`_bfcl_expected`).

    >>> bfcl_agrees(OneOf("New York", "NYC"), "new-york", ArgRule(kind="str"))
    True
    >>> bfcl_agrees("Data['Sales']", "data['sales']", ArgRule(kind="list", item=ArgRule(kind="float")))
    False
    >>> bfcl_agrees(2, 2.0, ArgRule(kind="enum")), bfcl_agrees({"w": 20}, {"w": 20.0}, ArgRule(kind="object"))
    (False, True)
    """
    alternatives = gold.alternatives if type(gold) is OneOf else (gold,)
    kind = type(pred)
    declared = _BFCL_SCALARS.get(rule.kind)  # type: ignore[arg-type]
    if declared is not None and (kind is declared or kind is int and declared is float):
        fast = _bfcl_scalar_agrees(alternatives, pred, kind, declared)
        if fast is not None:
            return fast
    elif kind is list and rule.kind == "list" and _bfcl_flat_list_agrees(alternatives, pred, rule.item):
        return True
    elif kind is dict and type(gold) is dict and (rule.kind == "object" or rule.kind == "any") \
            and _same_dict(gold, pred):
        # Fast path: a dict equal to gold's one dict, key for key, each value of the same type. Safe: it is a
        # dict where a dict is declared, and BFCL's dict_checker finds each of its values among the one
        # acceptable value of its key (a string standardised, anything else by ``==``) and no key left out.
        return True
    expected = _BFCL_TYPES[rule.kind]  # type: ignore[index]
    if expected is str and rule.kind == "any":
        expected = _bfcl_expected("any", alternatives)
    if kind is not expected and not (kind is int and expected is float) and kind is not answer_kind(alternatives):
        return False  # Fast path: BFCL's type check fails (neither the declared type nor the answers')
    nested = None
    if expected is list and rule.item is not None and rule.item.kind is not None:
        nested = _bfcl_expected(rule.item.kind, _first_items(alternatives))
    if expected is float and kind is int:
        pred = float(pred)  # BFCL: Python's int for a float (top level only)
    answers = [_bfcl_answer(alt) for alt in alternatives]
    return value_failure("", pred, answers, rule.kind, expected, nested, _rejected) is None


def answer_kind(alternatives: tuple[Any, ...]) -> type | None:
    """The type of gold's first alternative that is not ``OMITTABLE`` (nor ``""``): BFCL's answers' type
    (:func:`ek.bfclvalues.answer_type`, BFCL's ``""`` being ``OMITTABLE``)."""
    for alt in alternatives:
        if alt is not OMITTABLE and alt != "":
            return type(alt)
    return None


#: The kinds BFCL checks as a scalar type, and that type (``any`` is left out: it may be read as a dict).
_BFCL_SCALARS: Mapping[str, type] = {"str": str, "enum": str, "date": str, "datetime": str, "int": int,
                                     "float": float, "bool": bool}


def _bfcl_scalar_agrees(alternatives: tuple[Any, ...], pred: Any, kind: type, declared: type) -> bool | None:
    """Fast path of :func:`bfcl_agrees` for a str, int, float or bool ``pred`` of its declared scalar type
    (``declared``; an int for a float): True when an alternative equals it, False when none can (every
    alternative a str for a str, an int for an int, or ``OMITTABLE``); None: the general path decides.

    Safe: such a value passes BFCL's type check (its type is the declared one; an int for a float is first
    made a float). An equal alternative of its type (for a number, an int or a float: ``2 == 2.0``) is then
    found whatever the comparison is (the standardised one of strings, or ``in``), as the value is not a
    variable or is compared by ``in``, which finds it. When every alternative is a str (or ``OMITTABLE``, BFCL's
    ``""``), a str is no variable and is compared standardised: among them or not; when every alternative is
    an int (or ``OMITTABLE``, which equals no int), an int is compared by ``in``: one of them or not.
    """
    numeric = declared is int or declared is float
    only_own = True  # every alternative of the value's own type (or OMITTABLE): the verdict is known below
    for alt in alternatives:
        alt_kind = type(alt)
        if alt == pred and (alt_kind is kind or numeric and (alt_kind is int or alt_kind is float)):
            return True
        if alt_kind is not kind and alt is not OMITTABLE:
            only_own = False
    if not only_own or (kind is not str and kind is not int) or kind is not declared:
        return None
    if kind is int:
        return False  # an int equal to none of the ints
    form = bfcl(pred)
    for alt in alternatives:
        if (bfcl(alt) if alt is not OMITTABLE else "") == form:
            return True
    return False


def _bfcl_flat_list_agrees(alternatives: tuple[Any, ...], pred: list[Any], item: ArgRule | None) -> bool:
    """Fast path of :func:`bfcl_agrees` for a list argument whose items are of a scalar type: True when
    ``pred``'s every item has that type (an int for a float) and some alternative is a list equal to it item
    for item, each of the same type; False: the general path decides.

    Safe: such a list passes BFCL's type check (a list, each item of the declared item type, whatever the
    answers), and is then compared by ``in`` (a variable) or item by item (standardised strings, ``==``):
    either finds the equal alternative.
    """
    declared = _BFCL_SCALARS.get(item.kind) if item is not None else None  # type: ignore[arg-type]
    if declared is None:
        return False
    for value in pred:
        kind = type(value)
        if kind is not declared and not (kind is int and declared is float):
            return False
    for alt in alternatives:
        if type(alt) is list and len(alt) == len(pred):
            for a, value in zip(alt, pred):
                if type(a) is not type(value) or a != value:
                    break
            else:
                return True
    return False


def _same_dict(gold: dict[str, Any], pred: dict[str, Any]) -> bool:
    """The same keys, each value of the same type and ``==`` (so no gold marker among gold's values)."""
    if len(gold) != len(pred):
        return False
    for key, value in pred.items():
        expected = gold.get(key, ABSENT)
        if type(expected) is not type(value) or expected != value:
            return False
    return True


def _bfcl_expected(kind: str, alternatives: Any) -> type:
    """BFCL's Python type of an argument of this kind (``any``: a dict where the answers' first value is one)."""
    expected = _BFCL_TYPES[kind]
    if kind == "any":
        for alt in alternatives:
            if alt is not OMITTABLE and alt != "":
                if type(alt) is dict:
                    expected = dict
                break
    return expected


def _first_items(alternatives: tuple[Any, ...]) -> list[Any]:
    """The items of the first list among the alternatives (what a list's item type is read by, for ``any``)."""
    for alt in alternatives:
        if type(alt) is list:
            return alt
    return []


def _bfcl_answer(value: Any) -> Any:
    """One acceptable value of an argument as BFCL writes it (:func:`ek.bfcl.gold.gold_calls` read backwards):
    ``OMITTABLE`` is ``""``; a dict is a nested answer, its values lists of acceptable values (which BFCL compares
    by ``==``: :func:`_bfcl_raw`); a list's dict items are nested answers too (a list of dicts), its other items
    as they are."""
    kind = type(value)
    if kind is str or kind is int or kind is float or kind is bool or value is None:
        return value
    if value is OMITTABLE:
        return ""
    if kind is dict or isinstance(value, Mapping):
        return {key: _bfcl_nested(item) for key, item in value.items()}
    if kind is list or kind is tuple:
        return [{key: _bfcl_nested(v) for key, v in item.items()} if type(item) is dict or isinstance(item, Mapping)
                else _bfcl_raw(item) for item in value]
    return value


def _bfcl_nested(value: Any) -> list[Any]:
    """A nested answer's value as BFCL's list of acceptable values, each compared by ``==``."""
    if value is OMITTABLE:
        return [""]
    if type(value) is OneOf:
        return [_bfcl_raw(alt) for alt in value.alternatives]
    return [_bfcl_raw(value)]


def _bfcl_raw(value: Any) -> Any:
    """A value BFCL compares by ``==`` (inside a nested answer), as its answers write one: a dict's values bare
    (BFCL's data writes them so, the one form an output can equal), several alternatives as their list."""
    kind = type(value)
    if kind is str or kind is int or kind is float or kind is bool or value is None:
        return value
    if value is OMITTABLE:
        return ""
    if kind is dict or isinstance(value, Mapping):
        return {key: [_bfcl_raw(alt) for alt in item.alternatives] if type(item) is OneOf else _bfcl_raw(item)
                for key, item in value.items()}
    if kind is list or kind is tuple:
        return [_bfcl_raw(item) for item in value]
    return value


class _Rejected(Sentinel):
    """What :func:`bfcl_agrees` keeps of a failure of BFCL's rules: only that there was one."""

    NAME = "REJECTED"


_REJECTED = _Rejected()


def _rejected(*_: Any) -> Any:
    """The ``fail`` of :func:`ek.bfclvalues.value_failure` for the metric: no message is ever read."""
    return _REJECTED


def _bfcl_key(value: Any, rule: ArgRule) -> Any:
    """BFCL mode: the normal form of a call's argument value (a rule with no compare policy), or ``_NOT_PLAIN``.

    Only a value of its declared type has one (a list: every item of its declared item type, an int for a
    float): a string standardised, a number by value (an int and an equal float share one, unless the
    argument is an ``int``), a bool as it is, a list as its items'. Two such values agree by BFCL's rules
    (:func:`bfcl_agrees`, the gold one plain) exactly when their forms are equal: neither is a "variable",
    both pass the type check, and the comparison BFCL then makes (standardised strings, ``in``, a list item by
    item, ``True`` never ``1``) is equality of these forms. Anything else (a "variable", a dict, a ``OneOf``)
    has none, and is compared by :func:`bfcl_agrees`.
    """
    kind = type(value)
    expected = _BFCL_TYPES[rule.kind]  # type: ignore[index]
    if kind is not expected and not (kind is int and expected is float):
        return _NOT_PLAIN
    if kind is list:
        item = rule.item
        nested = _BFCL_SCALARS.get(item.kind) if item is not None else None  # type: ignore[arg-type]
        if nested is None:  # items of no scalar type (lists, dicts, any: a dict where the answer holds one)
            return _NOT_PLAIN
        keys = []
        for x in value:
            key = _bfcl_scalar_key(x, nested)
            if key is _NOT_PLAIN:
                return _NOT_PLAIN
            keys.append(key)
        return ("list", tuple(keys))
    return _bfcl_scalar_key(value, expected)


def _bfcl_scalar_key(value: Any, expected: type) -> Any:
    """:func:`_bfcl_key` of a str, int, float or bool of the type ``expected`` (an int for a float)."""
    kind = type(value)
    if kind is str:
        return ("str", bfcl(value)) if expected is str else _NOT_PLAIN
    if kind is bool:
        return ("bool", value) if expected is bool else _NOT_PLAIN
    if kind is int:
        return ("num", value) if expected is int or expected is float else _NOT_PLAIN
    if kind is float and expected is float and not math.isnan(value):
        return ("num", value)
    return _NOT_PLAIN


def _omission_accepts(gold: Any, pred: Any, rule: ArgRule | None, canon: Canonicalizer, *, top: bool) -> bool:
    """Whether a *given* value ``pred`` satisfies the ``OMITTABLE`` alternative of ``gold``.

    Leaving the argument out is what ``OMITTABLE`` accepts; a given value does
    too when it is what leaving it out means:

    - outside BFCL mode, the declared default (defaults are symmetric);
    - in BFCL mode, BFCL's omission marker ``""`` read as a value, as BFCL's
      checker reads it: a string standardised to ``""`` for a string-typed
      argument or any nested dict value, ``[]`` for a list-typed argument, and
      exactly ``""`` where the answer is a "variable" (its type is not the
      declared type).
    """
    if not is_bfcl_mode(canon):
        if rule is None or rule.default is NO_DEFAULT or rule.policy == "ignore":
            return False
        return values_agree(rule.default, pred, rule, canon)
    if top and bfcl_judges(rule):
        return bfcl_agrees(OMITTABLE, pred, rule)  # BFCL's "" as a value of the declared type
    if not top:  # BFCL's dict_checker: standardised value among the standardised alternatives
        return isinstance(pred, str) and _canon_for(rule, canon)(pred) == _canon_for(rule, canon)("")
    present = gold.values if isinstance(gold, OneOf) else ()
    answer_type = type(present[0]) if present else None
    kind = rule.kind if rule is not None else None
    declared = _BFCL_TYPES.get(kind) if kind is not None else None
    if kind == "any" and answer_type is dict:
        declared = dict  # an untyped BFCL dict was read as `any` (docs/bfcl.md)
    if declared is None:  # no schema: the value's own type decides, as a schema of that type would
        declared = list if isinstance(pred, (list, tuple)) else str
    if answer_type is not None and answer_type is not declared:  # a BFCL "variable": `pred in answers`
        return pred == "" and type(pred) is str and str in (declared, answer_type)
    if declared is str:
        return isinstance(pred, str) and _canon_for(rule, canon)(pred) == _canon_for(rule, canon)("")
    if declared is list:
        return isinstance(pred, (list, tuple)) and len(pred) == 0
    return False


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
        if isinstance(gold, float) and math.isinf(gold) or isinstance(pred, float) and math.isinf(pred):
            return gold == pred
        return abs(written(gold) - written(pred)) <= written(rule.tolerance)
    if rule is not None and rule.kind == "int" and isinstance(pred, float):
        return False  # the schema says int: a predicted 1.0 is a type error, not a 1
    return gold == pred


def written(number: int | float) -> Fraction:
    """The exact value of a number as written: a float's shortest ``repr`` (``0.1`` is 1/10, not 0.1000000000000000055...).

    Tolerances compare these, so ``0.7`` and ``0.8`` are within ``tol(0.1)``.

    >>> written(0.1), written(3), written(1e-05)
    (Fraction(1, 10), Fraction(3, 1), Fraction(1, 100000))
    """
    return Fraction(repr(number)) if isinstance(number, float) else Fraction(number)


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
    nested: bool = False,
) -> tuple[ArgCheck, ...]:
    """Compare two records key by key; one :class:`~ek.scorer.accounting.ArgCheck` per argument that counts.

    ``rules`` (from a grammar) give importance, policy and defaults; without
    them every argument weighs 1 and strings use ``canon``. ``invalid`` maps an
    argument name to a schema violation found in the predicted value.
    ``nested``: the records are the fields of an object value, not a call's arguments.
    """
    return tuple(ArgCheck(*row) for row in compare_rows(pred, gold, rules, canon, invalid=invalid, nested=nested))


def compare_rows(
    pred: Mapping[str, Any],
    gold: Mapping[str, Any],
    rules: Mapping[str, ArgRule] | None,
    canon: Canonicalizer,
    *,
    invalid: Mapping[str, str] | None = None,
    nested: bool = False,
    first_failure: bool = False,
) -> list[CheckRow]:
    """:func:`compare_records` as plain rows ``(arg, status, weight, expected, got, detail)``, in
    :class:`~ek.scorer.accounting.ArgCheck`'s field order: the metric builds the objects only when an
    explanation is read.

    ``first_failure``: stop after the first row that is not a match (the rows are then a prefix of the
    full ones, ending with a failure; without one they are complete): enough to tell an exact pair.
    """
    rules = rules or {}
    bfcl_mode = canon is bfcl  # is_bfcl_mode, inline
    checks: list[CheckRow] = []
    enforce_required = bfcl_top = bfcl_mode and not nested
    rule_of, gold_value, pred_value = rules.get, gold.get, pred.get
    for name in _ordered_names(pred, gold, rules, with_required=enforce_required):
        rule = rule_of(name)
        if rule is None:
            weight = 1.0
        elif rule.policy == "ignore":
            checks.append((name, "ignored", rule.importance, ABSENT, ABSENT, ""))
            continue
        else:
            weight = rule.importance
        g = gold_value(name, ABSENT)
        p = pred_value(name, ABSENT)
        violation = invalid.get(name) if invalid else None
        # Fast path of _compare_arg for its most common case: both sides give a value, gold's is not a bare
        # OMITTABLE and the predicted one breaks no schema rule. _compare_arg would then only compare the two
        # values (defaults and ``required`` play no part), which is done here without the call.
        if g is not ABSENT and p is not ABSENT and violation is None and g is not OMITTABLE:
            if bfcl_top and rule is not None and rule.policy is None and rule.kind is not None:  # bfcl_judges
                # BFCL mode: BFCL's rules for the declared type. A str, int, float or bool equal to gold's plain
                # value of its type agrees without the call (bfcl_agrees' first test: the answers' type is the
                # value's, so it passes the type check and the comparison finds the equal answer).
                kind = type(p)
                agree = True if type(g) is kind and g == p and (kind is str or kind is int or kind is float
                                                               or kind is bool) else bfcl_agrees(g, p, rule)
            elif type(g) is OneOf:  # BFCL's possible answers: decided inline when every alternative is
                # (a string equal to an alternative agrees: _one_of_agree's first test, made without the call)
                agree = True if type(p) is str and p in g.alternatives else _one_of_agree(g, p, rule, canon,
                                                                                          not nested)
            else:
                agree = _same_plain_agree(g, p, rule, canon)
            if agree is None:  # not decided inline: the full rules (they give the same verdict where it was)
                agree = values_agree(g, p, rule, canon, top=not nested)
            check: CheckRow | None = (name, "match" if agree else "wrong_value", weight, g, p, "")
        else:
            default = NO_DEFAULT if rule is None or bfcl_mode else rule.default
            # BFCL's simple_function_checker: a required parameter must be given, whatever the answer allows.
            required = enforce_required and rule is not None and rule.required
            check = _compare_arg(name, g, p, rule, weight, canon, violation, default, required, top=not nested)
        if check is not None:
            checks.append(check)
            if first_failure and check[1] not in OK_STATUSES:
                break
    return checks


def _one_of_agree(gold: OneOf, pred: Any, rule: ArgRule | None, canon: Canonicalizer, top: bool) -> bool | None:
    """Fast path of :func:`values_agree` for a gold :class:`~ek.values.OneOf` (every value of BFCL's possible
    answers): its verdict when :func:`_same_plain_agree` decides an alternative that agrees, or decides every
    present one (the usual wrong value); ``None`` when some alternative needs the full rules and none
    agrees inline.

    It skips only the second pass a wrong value took: :func:`values_agree` on a ``OneOf`` tries the present
    alternatives in turn (each decided by :func:`_same_plain_agree` when it can, by the full rules when
    not) and, when none agrees, answers what the ``OMITTABLE`` alternative accepts
    (:func:`_omission_accepts`), or False without one; that is what is answered here when every present
    alternative was decided inline. Some alternative agreeing makes the verdict True in any order.

    A predicted string equal to an alternative agrees first, whatever the rule (as in
    :func:`ek.scorer.exact.exact_verdict`: two equal strings agree under no policy, any string policy, the
    canonicalizer, ``ignore`` or a date kind, and a ``str`` equals only a ``str``): the usual right argument of
    a wrong output's pair, decided by one test in C instead of a call per alternative.
    """
    if type(pred) is str:
        if pred in gold.alternatives:
            return True
        if rule is None or (rule.policy is None and rule.kind not in _TEMPORAL):
            return _str_one_of_agree(gold, pred, rule, canon, top)
    omittable = undecided = False
    for alt in gold.alternatives:
        if alt is OMITTABLE:
            omittable = True
            continue
        same = _same_plain_agree(alt, pred, rule, canon)
        if same:
            return True
        if same is None:
            undecided = True
    if undecided:
        return None
    return omittable and _omission_accepts(gold, pred, rule, canon, top=top)


def _str_one_of_agree(gold: OneOf, pred: str, rule: ArgRule | None, canon: Canonicalizer, top: bool) -> bool | None:
    """Fast path of :func:`_one_of_agree` for a predicted string equal to no alternative, under no compare policy
    and not a date (``rule``): the same verdict, the prediction canonicalized once rather than once per string
    alternative. A string alternative agrees when its form is the prediction's (:func:`_same_plain_agree`, the
    equal texts ruled out already); an alternative of another type is undecided there (None), ``OMITTABLE``
    is left to :func:`_omission_accepts` when nothing agrees, as in the general loop."""
    form = canon(pred)
    omittable = undecided = False
    for alt in gold.alternatives:
        if type(alt) is str:
            if canon(alt) == form:
                return True
        elif alt is OMITTABLE:
            omittable = True
        else:
            undecided = True
    if undecided:
        return None
    return omittable and _omission_accepts(gold, pred, rule, canon, top=top)


_PRED_OMITS = "the prediction omits it: its default applies"
_GOLD_OMITS = "gold omits it: its default applies"
_REQUIRED = "a required argument (BFCL: missing_required)"


def _compare_arg(name: str, g: Any, p: Any, rule: ArgRule | None, weight: float, canon: Canonicalizer,
                 violation: str | None, default: Any, required: bool, *, top: bool) -> CheckRow | None:
    """One argument: ``g``/``p`` are the gold and predicted values, ``ABSENT`` when not given."""
    if g is OMITTABLE and not (is_bfcl_mode(canon) and p is not ABSENT and violation is None
                               and _omission_accepts(g, p, rule, canon, top=top)):
        g = ABSENT  # a bare OMITTABLE counts exactly as if gold left the argument out (BFCL: but for "")
    if p is ABSENT:
        if required:
            return (name, "missing_arg", weight, g, ABSENT, _REQUIRED)
        if g is ABSENT:
            return None  # nothing expected, nothing given: no unit
        if is_omittable(g):
            return (name, "match", weight, g, ABSENT, "")
        if default is not NO_DEFAULT:  # the prediction's effective value is the default
            status = "match" if values_agree(g, default, rule, canon, top=top) else "wrong_value"
            return (name, status, weight, g, default, _PRED_OMITS)
        return (name, "missing_arg", weight, g, ABSENT, "")
    if violation is not None and (g is not ABSENT or rule is not None):
        return (name, "invalid_value", weight, g, p, violation)
    if g is ABSENT:
        if default is not NO_DEFAULT:  # gold's effective value is the default
            status = "match" if values_agree(default, p, rule, canon, top=top) else "wrong_value"
            return (name, status, weight, default, p, _GOLD_OMITS)
        return (name, "hallucinated_arg", weight, ABSENT, p, "")
    status = "match" if values_agree(g, p, rule, canon, top=top) else "wrong_value"
    return (name, status, weight, g, p, "")


def declared_order(args: Mapping[str, Any], rules: Mapping[str, ArgRule]) -> list[str]:
    """One call's argument names in the order its checks and units come: declared order, then undeclared
    names alphabetically (the order :func:`compare_rows` gives its rows)."""
    return _ordered_names(args, {}, rules)


def _ordered_names(pred: Mapping[str, Any], gold: Mapping[str, Any], rules: Mapping[str, ArgRule], *,
                   with_required: bool = False) -> list[str]:
    if type(rules) is ToolRules:
        ordered = _declared_order(pred, gold, rules, with_required)
        if ordered is not None:
            return ordered
    names = set(gold) | set(pred)
    if with_required:
        names.update(name for name, rule in rules.items() if rule.required)
    big = len(rules)
    return sorted(names, key=lambda n: (rules[n].order if n in rules else big, n))


def _declared_order(pred: Mapping[str, Any], gold: Mapping[str, Any], rules: ToolRules,
                    with_required: bool) -> list[str] | None:
    """Fast path of :func:`_ordered_names` for a tool's rules: the same sort, by the same ``(order, name)``
    keys, read from the tool's precomputed ones (no per-name Python key function). ``None`` when some name
    is not declared and the tool's rules do not put every declared argument first (the full path sorts it).

    A name the tool does not declare (a hallucinated argument: most wrong outputs' extra parameter) has the
    key ``(number of arguments, name)``, above every declared argument's when each declared order is below
    that number (``declared_first``): the full sort then gives the declared names in their order, then the
    undeclared ones by name, which is what is built here, two sorts of plain keys instead of one by a
    Python key function."""
    memo = (tuple(gold), tuple(pred), with_required)
    found = rules.orders.get(memo, _UNSEEN)
    if found is not _UNSEEN:  # calls of one tool mostly name the same arguments: each order is worked out once
        return found
    names = set(gold)
    names.update(pred)
    if with_required:
        names.update(rules.required)
    keys = rules.sort_keys
    if names <= keys.keys():
        ordered: list[str] | None = sorted(names, key=keys.__getitem__)
    elif rules.declared_first:
        undeclared = names - keys.keys()
        ordered = sorted(names - undeclared, key=keys.__getitem__)
        ordered.extend(sorted(undeclared))
    else:
        ordered = None
    if len(rules.orders) < _MAX_ORDERS and sum(map(len, names)) <= _MAX_ORDER_CHARS:
        rules.orders[memo] = ordered
    return ordered


_UNSEEN = object()
#: Orders remembered per tool (the memo stops growing there: a tool with many optional arguments could
#: otherwise be called with a new combination every time).
_MAX_ORDERS = 256
#: Most characters of the names of one remembered order. The names are the model's too (a hallucinated
#: argument), and the rules live as long as their metric (an RL reward's, a whole training run): a policy
#: writing megabyte-long names kept 256 of them per tool (77 MB after 300 names of 300 kB). Real argument
#: names are a few dozen characters; longer ones are sorted again each time.
_MAX_ORDER_CHARS = 1024


# --------------------------------------------------------------------------- canonical keys

_NOT_PLAIN = object()


def arg_keys(args: Mapping[str, Any], rules: Mapping[str, ArgRule] | None, canon: Canonicalizer) -> dict[str, Any] | None:
    """Per-argument normal forms of a call (defaults filled in, ignored arguments left out).

    Two plain values agree exactly when their keys are equal. ``None`` is
    returned for anything whose agreement is not an equivalence:
    ``OneOf``/``OMITTABLE`` gold values, ``tol`` tolerances, NaN, exotic types,
    and (BFCL mode) a required argument left out.
    """
    return _arg_keys(args, rules, canon, True)


def _arg_keys(args: Mapping[str, Any], rules: Mapping[str, ArgRule] | None, canon: Canonicalizer,
              top: bool) -> dict[str, Any] | None:
    """:func:`arg_keys`; ``top``: ``args`` are a call's arguments (not a dict value's fields), whose values BFCL
    mode keys by BFCL's rules (:func:`_bfcl_key`)."""
    if not rules:
        # Fast path: no rules (a reward's calls, a tool no grammar declares): no argument is ignored, none has a
        # default, so each key is its value's normal form under no rule, as the loops below give it.
        keys = {}
        for name, value in args.items():
            key = _value_key(value, None, canon)
            if key is _NOT_PLAIN:
                return None
            keys[name] = key
        return keys
    bfcl_mode = is_bfcl_mode(canon)
    bfcl_top = bfcl_mode and top
    keys: dict[str, Any] = {}
    for name in args:
        rule = rules.get(name)
        if rule is not None and rule.policy == "ignore":
            continue
        if bfcl_top and bfcl_judges(rule):
            key = _bfcl_key(args[name], rule)
        else:
            key = _value_key(args[name], rule, canon)
        if key is _NOT_PLAIN:
            return None
        keys[name] = key
    for name, rule in rules.items():  # an omitted argument equals its default (BFCL: no defaults)
        if name in args or rule.policy == "ignore":
            continue
        if bfcl_mode:
            if rule.required:
                return None  # a required argument left out is a mistake whatever gold says
            continue
        if rule.default is not NO_DEFAULT:
            key = _value_key(rule.default, rule, canon)
            if key is _NOT_PLAIN:
                return None
            keys[name] = key
    return keys


def value_key(value: Any, rule: ArgRule | None, canon: Canonicalizer) -> Any:
    """The normal form of one plain value of a call's argument under ``rule`` (see :func:`arg_keys`), or None
    when it has none."""
    if canon is bfcl and bfcl_judges(rule):
        key = _bfcl_key(value, rule)
    else:
        key = _value_key(value, rule, canon)
    return None if key is _NOT_PLAIN else key


def key_of(keys: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    """The hashable form of :func:`arg_keys`' result: its items in the order of their names. (Sorting the items
    themselves gives that order without a key function: the names are distinct strings, so no two items ever
    get as far as comparing their values, which may not be comparable.)"""
    return tuple(sorted(keys.items()))


def _value_key(value: Any, rule: ArgRule | None, canon: Canonicalizer) -> Any:
    if rule is None:
        # Fast path: a str or an int with no rule (a reward's calls, a call to a tool no grammar declares).
        # Skips the looks for OneOf, OMITTABLE, a rule's policy and kind, bool and NaN, none of which a str or
        # an int (type() is exact: a bool is not one) can be or needs; gives what the branches below give.
        cls = type(value)
        if cls is str:
            return ("str", canon(value))
        if cls is int:
            return ("num", value)
    return _value_key_in_full(value, rule, canon)


def _value_key_in_full(value: Any, rule: ArgRule | None, canon: Canonicalizer) -> Any:
    """:func:`_value_key`'s general path."""
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
        sub = _arg_keys(value, rule.fields if rule is not None else None, canon, False)
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

