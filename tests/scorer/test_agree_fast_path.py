"""``values_agree``'s inline verdicts (``_same_plain_agree``) are the full rules' verdicts: equal flat lists."""

from __future__ import annotations

import tracemalloc
from typing import Any
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from ek.calls import Step
from ek.canon import CANONICALIZERS, bfcl, fold
from ek.grammar.model import (
    NO_CONSTRAINTS,
    NO_DEFAULT,
    ComparePolicy,
    Constraints,
    EnumType,
    FieldSpec,
    GraphGrammar,
    ListType,
    PrimitiveType,
    ToolSpec,
)
from ek.scorer import agree
from ek.scorer.agree import ArgRule, rule_for_field, values_agree
from ek.scorer.metric import ToolCallMetric
from ek.values import OMITTABLE, OneOf

POLICIES = st.sampled_from([None, "fold", "exact", "bfcl", "unordered", "ignore"]) | st.builds(
    lambda t: "tol:" + repr(t), st.sampled_from([0.0, 0.5, 2.0]))
KINDS = st.sampled_from([None, "str", "int", "float", "date", "datetime", "any", "enum", "list"])


def _rule(policy: str | None, kind: str | None, item: ArgRule | None = None) -> ArgRule:
    if policy is not None and policy.startswith("tol:"):
        return ArgRule(policy="tol", tolerance=float(policy[4:]), kind=kind, item=item)
    return ArgRule(policy=policy, kind=kind, item=item)


ITEM_RULES = st.none() | st.builds(_rule, POLICIES, KINDS)
LIST_RULES = st.none() | st.builds(_rule, POLICIES, st.just("list"), ITEM_RULES)
ITEMS = (st.sampled_from(["a", "A", " a", "", "2024-01-02", "2024-1-2", "1"]) | st.integers(-2, 2) | st.booleans()
         | st.sampled_from([1.0, 0.5, float("nan")]) | st.none() | st.lists(st.integers(0, 1), max_size=2)
         | st.just(OMITTABLE))


@st.composite
def list_pairs(draw: Any) -> tuple[Any, list[Any]]:
    """A gold list and a prediction mostly equal to it (the fast path's case), sometimes changed."""
    gold = draw(st.lists(ITEMS, max_size=4))
    pred = list(gold)
    change = draw(st.sampled_from(["none", "none", "none", "item", "drop", "add", "swap"]))
    if change == "item" and pred:
        pred[draw(st.integers(0, len(pred) - 1))] = draw(ITEMS)
    elif change == "drop" and pred:
        pred.pop()
    elif change == "add":
        pred.append(draw(ITEMS))
    elif change == "swap" and len(pred) > 1:
        pred[0], pred[-1] = pred[-1], pred[0]
    wrapped = draw(st.sampled_from(["plain", "plain", "oneof", "omittable"]))
    if wrapped == "oneof":
        return OneOf(draw(st.lists(ITEMS, max_size=2)), gold), pred
    if wrapped == "omittable":
        return OneOf(gold, OMITTABLE), pred
    return gold, pred


def _full_rules(gold: Any, pred: Any, rule: ArgRule | None, canon: Any, top: bool) -> bool:
    """The verdict with equal flat lists decided by the full rules, item by item (the fast path off)."""
    with mock.patch.object(agree, "_same_flat_list", lambda _g, _p: False):
        return values_agree(gold, pred, rule, canon, top=top)


@settings(max_examples=3000, deadline=None)
@given(pair=list_pairs(), rule=LIST_RULES, canon=st.sampled_from([fold, bfcl, CANONICALIZERS["exact"]]),
       top=st.booleans())
def test_equal_flat_lists_agree_as_the_full_rules_say(pair: tuple[Any, list[Any]], rule: ArgRule | None, canon: Any,
                                                      top: bool) -> None:
    gold, pred = pair
    assert values_agree(gold, pred, rule, canon, top=top) == _full_rules(gold, pred, rule, canon, top)


def test_the_fast_path_is_taken_and_refuses_what_differs_in_type() -> None:
    assert agree._same_plain_agree(["a", 1], ["a", 1], None, fold) is True
    assert agree._same_plain_agree(["a", 1], ["a", 2], None, fold) is None  # left to the full rules
    assert agree._same_plain_agree([1], [True], None, fold) is None and agree._same_plain_agree([1], [1.0], None, fold) is None
    assert agree._same_plain_agree([[1]], [[1]], None, fold) is None  # nested: the full rules
    assert values_agree([1], [1.0], ArgRule(kind="list", item=ArgRule(kind="int")), fold) is False


SCALARS = (st.sampled_from(["a", "A", " a", "", "b", "2024-01-02", "1"]) | st.integers(-1, 2) | st.booleans()
           | st.sampled_from([1.0, 0.5]) | st.none() | st.lists(st.sampled_from(["a", 1]), max_size=2))


@settings(max_examples=800, deadline=None)
@given(st.lists(SCALARS | st.just(OMITTABLE), min_size=1, max_size=3), SCALARS,
       st.none() | st.builds(_rule, POLICIES, KINDS), st.sampled_from([fold, bfcl]), st.booleans())
def test_a_one_of_decided_inline_is_the_full_rules_verdict(alternatives: list[Any], pred: Any,
                                                          rule: ArgRule | None, canon: Any, top: bool) -> None:
    """compare_rows' verdict on a OneOf gold (agree._one_of_agree), when it gives one, is values_agree's, wherever
    it is asked (BFCL mode's top-level values with a rule are judged by BFCL's rules instead)."""
    gold = OneOf(*alternatives) if len(alternatives) > 1 else OneOf(alternatives[0], "zz")
    verdict = agree._one_of_agree(gold, pred, rule, canon, top)
    if verdict is not None and not (top and canon is bfcl and agree.bfcl_judges(rule)):
        assert verdict == values_agree(gold, pred, rule, canon, top=top)


def test_a_wrong_value_for_a_one_of_is_decided_inline() -> None:
    """BFCL's usual wrong value: every alternative decided, then what omission accepts."""
    assert agree._one_of_agree(OneOf("units", OMITTABLE), "units extra", None, bfcl, True) is False
    assert agree._one_of_agree(OneOf("units", OMITTABLE), "", None, bfcl, True) is True
    assert agree._one_of_agree(OneOf(5, 6), 7, None, bfcl, True) is False
    assert agree._one_of_agree(OneOf(5, 6.0), 7, None, bfcl, True) is None  # a float: the full rules


FIELD_TYPES = st.sampled_from([PrimitiveType("str"), PrimitiveType("int"), PrimitiveType("float"),
                               PrimitiveType("bool"), PrimitiveType("any"), PrimitiveType("date"),
                               EnumType(("a", "b")), EnumType((1, 2)), ListType(PrimitiveType("int"))])
FIELDS = st.builds(
    FieldSpec, st.sampled_from(["a", "b"]), FIELD_TYPES,
    st.sampled_from([NO_CONSTRAINTS, Constraints(1, 3)]), st.booleans() | st.just(1),
    st.sampled_from([NO_DEFAULT, "x", 0, None]), st.sampled_from([1.0, 1, 2.0, 0.5]),
    st.none() | st.sampled_from([ComparePolicy("exact"), ComparePolicy("tol", 0.5), ComparePolicy("ignore")]))


@settings(max_examples=500, deadline=None)
@given(spec=FIELDS, order=st.sampled_from([0, 1, 5, 63, 64, 200]))
def test_a_field_s_rule_is_the_general_path_s(spec: FieldSpec, order: int) -> None:
    grammar = GraphGrammar("g", 1, tools=(ToolSpec("t", (spec,)),))
    fast = rule_for_field(grammar, spec, order)
    with mock.patch.object(agree, "_plain_rule", lambda _spec, _order: None):
        general = rule_for_field(grammar, spec, order)
    assert fast == general
    assert (fast.importance, fast.policy, fast.kind, fast.order, fast.required) == (
        general.importance, general.policy, general.kind, general.order, general.required)
    assert type(fast.required) is type(general.required) and fast.default is general.default


def test_plain_fields_share_one_rule() -> None:
    spec = FieldSpec("x", PrimitiveType("str"))
    assert agree._plain_rule(spec, 2) is agree._plain_rule(FieldSpec("y", PrimitiveType("str")), 2)
    assert agree._plain_rule(spec, 2) is not agree._plain_rule(spec, 3)
    assert agree._plain_rule(FieldSpec("x", PrimitiveType("str"), required=False), 2).required is False
    assert agree._plain_rule(FieldSpec("x", PrimitiveType("str"), default="d"), 2) is None


NAMES = st.sampled_from(["a", "b", "c", "d", "x", "y", "zz", "A"])


@settings(max_examples=1500, deadline=None)
@given(declared=st.lists(st.tuples(NAMES, st.integers(0, 6), st.booleans()), max_size=5, unique_by=lambda t: t[0]),
       gold=st.lists(NAMES, max_size=5, unique=True), pred=st.lists(NAMES, max_size=5, unique=True),
       with_required=st.booleans(), twice=st.booleans())
def test_declared_order_is_the_full_sort(declared: list[tuple[str, int, bool]], gold: list[str], pred: list[str],
                                         with_required: bool, twice: bool) -> None:
    """``_declared_order`` (undeclared names included, when every declared order is below the number of
    arguments) gives the full path's sort, remembered or not; orders at or past that number take the full path."""
    plain = {name: ArgRule(order=order, required=required) for name, order, required in declared}
    rules = agree.ToolRules(plain)
    pred_args, gold_args = dict.fromkeys(pred, 1), dict.fromkeys(gold, 1)
    full = agree._ordered_names(pred_args, gold_args, plain, with_required=with_required)  # a dict: the full sort
    for _ in range(2 if twice else 1):
        assert agree._ordered_names(pred_args, gold_args, rules, with_required=with_required) == full
    fast = agree._declared_order(pred_args, gold_args, rules, with_required)
    assert fast == full or (fast is None and not rules.declared_first)


def test_an_undeclared_name_keeps_the_fast_order() -> None:
    rules = agree.ToolRules({"b": ArgRule(order=0), "a": ArgRule(order=1)})
    assert agree._declared_order({"b": 1, "zz": 2, "c": 3}, {"a": 1}, rules, False) == ["b", "a", "c", "zz"]



def test_long_undeclared_names_are_not_remembered(travel_model: GraphGrammar) -> None:
    """A tool's rules live as long as their metric (an RL reward's: a whole training run), and a policy writing
    long hallucinated argument names had 256 of them kept per tool (77 MB after 300 names of 300 kB)."""
    metric = ToolCallMetric("arg", grammar=travel_model)
    gold = [Step("get_weather", {"location": "Paris"})]
    metric([Step("get_weather", {"location": "Paris", "x": 1})], gold)  # the rules built, a short order kept
    tracemalloc.start()
    try:
        for i in range(20):
            assert metric([Step("get_weather", {"location": "Paris", f"{i}" + "x" * 100_000: 1})], gold).f1 < 1
        kept = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert kept < 200_000, f"{kept:,} bytes kept after 20 calls naming an argument of 100 kB"


NUMBERS = st.sampled_from([0.0, -0.0, 0.5, 1.0, 2.25, 1e300, float("inf"), float("nan")]) | st.integers(-1, 2) \
    | st.floats(allow_nan=True, allow_infinity=True) | st.booleans() | st.sampled_from(["1", "a"])


@settings(max_examples=2000, deadline=None)
@given(st.tuples(NUMBERS, NUMBERS) | NUMBERS.map(lambda value: (value, value)),
       st.none() | st.builds(_rule, POLICIES, KINDS), st.sampled_from([fold, bfcl]), st.booleans())
def test_same_plain_values_agree_as_the_full_rules_say(pair: tuple[Any, Any], rule: ArgRule | None, canon: Any,
                                                      top: bool) -> None:
    """``_same_plain_agree``'s verdict on two scalars (two floats too), when it gives one, is the full rules',
    wherever it is asked (BFCL mode's top-level values with a rule are judged by BFCL's rules instead)."""
    gold, pred = pair
    verdict = agree._same_plain_agree(gold, pred, rule, canon)
    if verdict is not None and not (top and canon is bfcl and agree.bfcl_judges(rule)):
        with mock.patch.object(agree, "_same_plain_agree", lambda _g, _p, _r, _c: None):
            assert verdict == values_agree(gold, pred, rule, canon, top=top)
    if type(gold) is float and type(pred) is float and (rule is None or (rule.policy is None
                                                                         and rule.kind not in ("date", "datetime"))):
        assert verdict is not None  # two floats under no policy (nor a date kind): decided inline


def test_equal_floats_for_an_int_argument_do_not_agree() -> None:
    assert agree._same_plain_agree(1.0, 1.0, ArgRule(kind="int"), fold) is False
    assert agree._same_plain_agree(1.0, 1.0, ArgRule(kind="float"), fold) is True
    assert agree._same_plain_agree(float("nan"), float("nan"), None, fold) is False


class _Str(str):
    pass


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.text(max_size=8), st.integers(), st.booleans(), st.floats(), st.none(),
                 st.builds(_Str, st.text(max_size=4)), st.lists(st.text(max_size=3) | st.integers(), max_size=3)),
       st.sampled_from(sorted(CANONICALIZERS)))
def test_a_value_with_no_rule_has_the_normal_form_the_full_rules_give(value: Any, canon_name: str) -> None:
    # _value_key's fast path (a str or an int, no rule) against its general path, value for value.
    canon = CANONICALIZERS[canon_name]
    assert agree._value_key(value, None, canon) == agree._value_key_in_full(value, None, canon)


_PLAIN_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=6)


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(st.text(max_size=4), _PLAIN_VALUES, max_size=4), st.sampled_from(sorted(CANONICALIZERS)))
def test_arg_keys_without_rules_are_what_the_rules_loops_give(args: dict, canon_name: str) -> None:
    # arg_keys' fast path (no rules) against the general loops, run with a rule for an argument no call has.
    canon = CANONICALIZERS[canon_name]
    unrelated = {"\x00not an argument": ArgRule()}
    fast, general = agree.arg_keys(args, None, canon), agree.arg_keys(args, unrelated, canon)
    assert fast == general and agree.arg_keys(args, {}, canon) == fast
    if fast is not None:  # key_of orders by name, never comparing values (None, tuples of any kind)
        assert agree.key_of(fast) == tuple(sorted(fast.items(), key=lambda kv: kv[0]))


# ---------------------------------------------------------------- BFCL mode: BFCL's rules, and their fast paths

BFCL_KINDS = st.sampled_from(["str", "int", "float", "bool", "enum", "any", "date", "object", "list"])
BFCL_SCALARS = (st.sampled_from(["a", "A", "a-", " a", "a\t", "", "2", "x'"]) | st.integers(-1, 2) | st.booleans()
                | st.sampled_from([2.0, 0.5, -0.0, float("nan")]))
BFCL_VALUES = st.recursive(BFCL_SCALARS, lambda inner: st.lists(inner, max_size=2)
                           | st.dictionaries(st.sampled_from(["k", "j"]), inner, max_size=2), max_leaves=4)


@st.composite
def bfcl_rules(draw: Any) -> ArgRule:
    kind = draw(BFCL_KINDS)
    item = ArgRule(kind=draw(BFCL_KINDS)) if kind == "list" and draw(st.booleans()) else None
    return ArgRule(kind=kind, item=item)


@st.composite
def bfcl_golds(draw: Any) -> Any:
    values = draw(st.lists(BFCL_VALUES, min_size=1, max_size=3))
    if draw(st.booleans()):
        values.append(OMITTABLE)
    return values[0] if len(values) == 1 else OneOf(*values)


def _bfcl_general(alternatives: tuple[Any, ...], pred: Any, rule: ArgRule) -> bool:
    """:func:`agree.bfcl_agrees` without its fast path (an alternative equal in type and value): BFCL's rules."""
    from ek.bfclvalues import value_failure

    expected = agree._bfcl_expected(rule.kind, alternatives)  # type: ignore[arg-type]
    nested = None
    if expected is list and rule.item is not None:
        nested = agree._bfcl_expected(rule.item.kind, agree._first_items(alternatives))  # type: ignore[arg-type]
    if expected is float and type(pred) is int:
        pred = float(pred)
    answers = [agree._bfcl_answer(alt) for alt in alternatives]
    return value_failure("", pred, answers, rule.kind, expected, nested, lambda *_: "rejected") is None


@settings(max_examples=3000, deadline=None)
@given(gold=bfcl_golds(), pred=BFCL_VALUES, rule=bfcl_rules(), equal=st.booleans())
def test_bfcl_mode_s_fast_path_is_bfcl_s_rules_verdict(gold: Any, pred: Any, rule: ArgRule, equal: bool) -> None:
    alternatives = gold.alternatives if type(gold) is OneOf else (gold,)
    if equal and alternatives[0] is not OMITTABLE:
        pred = alternatives[0]  # the fast path's case: an equal value
    assert agree.bfcl_agrees(gold, pred, rule) == _bfcl_general(alternatives, pred, rule)
    assert values_agree(gold, pred, rule, bfcl, top=True) == agree.bfcl_agrees(gold, pred, rule)


@settings(max_examples=3000, deadline=None)
@given(gold=BFCL_VALUES, pred=BFCL_VALUES, rule=bfcl_rules(), equal=st.booleans())
def test_bfcl_mode_s_normal_forms_are_equal_exactly_when_bfcl_s_rules_agree(gold: Any, pred: Any, rule: ArgRule,
                                                                          equal: bool) -> None:
    """Two values that both have a normal form (of the declared type) agree exactly when their forms are equal
    (the metric pairs calls by these forms: ek.scorer.metric's buckets, ek.scorer.exact.group_index)."""
    if equal:
        pred = gold
    gold_key, pred_key = agree.value_key(gold, rule, bfcl), agree.value_key(pred, rule, bfcl)
    if gold_key is not None and pred_key is not None:
        assert (gold_key == pred_key) == agree.bfcl_agrees(gold, pred, rule), (gold_key, pred_key)
