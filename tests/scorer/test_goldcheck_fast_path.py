"""The gold check's fast path (``OneOf`` s of plain values, BFCL's possible answers) finds what its general
path finds: the same problems, in the same order, on gold of any shape against a real compiled validator."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ek.calls import Step
from ek.grammar.model import (
    Constraints,
    EnumType,
    FieldSpec,
    GraphGrammar,
    ListType,
    ObjectType,
    PrimitiveType,
    ToolSpec,
)
from ek.runtime import validator_for
from ek.runtime.lazy import GrammarValidator
from ek.scorer import goldcheck
from ek.values import OMITTABLE, OneOf

_FIELDS = (
    FieldSpec("s", PrimitiveType("str")),
    FieldSpec("i", PrimitiveType("int"), Constraints(0, 9)),
    FieldSpec("f", PrimitiveType("float")),
    FieldSpec("b", PrimitiveType("bool")),
    FieldSpec("e", EnumType(("a", "b"))),
    FieldSpec("l", ListType(PrimitiveType("int"))),
    FieldSpec("o", ObjectType((FieldSpec("x", PrimitiveType("int")),
                               FieldSpec("y", PrimitiveType("str"), required=False)))),
    FieldSpec("d", PrimitiveType("str"), required=False, default="x"),
)
GRAMMAR = GraphGrammar("g", 1, tools=(ToolSpec("t", _FIELDS),))
validate = validator_for(GRAMMAR)

plain = st.none() | st.booleans() | st.integers(-2, 12) | st.floats(-1, 1, allow_nan=False) | st.sampled_from(
    ["a", "b", "", "x"])


def _one_of(alternatives: list[Any]) -> Any:
    return OneOf(*alternatives) if alternatives else OMITTABLE


values = st.recursive(
    plain | st.just(OMITTABLE),
    lambda inner: (st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["x", "y", "z"]), inner, max_size=2)
                   | st.lists(inner | st.just(OMITTABLE), max_size=4).map(_one_of)),
    max_leaves=8,
)
# BFCL's shape most of the time: a OneOf of plain values, OMITTABLE among them at times
possible_answers = st.lists(plain | st.just(OMITTABLE), min_size=1, max_size=4).map(lambda alts: OneOf(*alts))
names = st.sampled_from(["s", "i", "f", "b", "e", "l", "o", "d", "nope"])


@settings(max_examples=500, deadline=None)
@given(st.dictionaries(names, possible_answers | values, max_size=6))
def test_the_fast_path_finds_what_the_general_path_finds(args: dict[str, Any]) -> None:
    step = Step("t", args)
    fast = goldcheck.call_problems(validate, step)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(goldcheck, "_plain_choices", lambda value: None)
        patch.setattr(goldcheck, "_plain_value", lambda value: False)
        patch.setattr(goldcheck, "_all_plain", lambda args: False)
        general = goldcheck.call_problems(validate, step)
    assert fast == general


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(names, plain, max_size=6))
def test_a_call_of_plain_values_takes_its_fast_path_and_finds_what_the_general_path_finds(args: dict[str, Any]) -> None:
    step = Step("t", args)
    assert goldcheck._all_plain(args)
    fast = goldcheck.call_problems(validate, step)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(goldcheck, "_all_plain", lambda args: False)
        general = goldcheck.call_problems(validate, step)
    assert fast == general


def test_the_fast_path_takes_bfcl_s_possible_answers() -> None:
    assert goldcheck._plain_choices(OneOf("a", OMITTABLE, 2)) == ("a", 2)
    assert goldcheck._plain_choices(OneOf("a", [1])) is None
    assert goldcheck._plain_choices("a") is None
    assert all(goldcheck._plain_value(v) for v in ("a", 1, 2.5, True, None))
    assert not any(goldcheck._plain_value(v) for v in (OMITTABLE, OneOf("a", 2), [1], {"x": 1}))


_PLAIN_KINDS = _FIELDS + (
    FieldSpec("a", PrimitiveType("any"), required=False),
    FieldSpec("n", EnumType((1, 2, "x")), required=False),
    FieldSpec("r", PrimitiveType("bool"), required=False),
    FieldSpec("m", ListType(PrimitiveType("str")), required=False),
    FieldSpec("k", ListType(PrimitiveType("float")), required=False),
    FieldSpec("q", ListType(EnumType(("a", "b", 1))), required=False),
    FieldSpec("c", ListType(PrimitiveType("str")), Constraints(1, 2), required=False),
)
# s f b e d a n r m k q c
_PLAIN_ONLY = (_FIELDS[0], _FIELDS[2], _FIELDS[3], _FIELDS[4]) + _PLAIN_KINDS[len(_FIELDS) - 1:]
PLAIN_GRAMMAR = GraphGrammar("p", 1, tools=(ToolSpec("t", _PLAIN_KINDS), ToolSpec("w", _PLAIN_ONLY), ToolSpec("v", ())))
plain_names = st.sampled_from(["s", "i", "f", "b", "e", "l", "o", "d", "a", "n", "r", "m", "k", "q", "c", "nope"])
# BFCL's list answers: lists of plain values, alone or among a OneOf's alternatives
plain_lists = st.lists(plain, max_size=3)
list_answers = st.lists(plain | plain_lists | st.just(OMITTABLE), min_size=1, max_size=3).map(lambda alts: OneOf(*alts))


def _answer(values: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """One argument of ``values`` as BFCL's answers give it: a plain value, or a OneOf of them (OMITTABLE too)."""
    return values | st.lists(values | st.just(OMITTABLE), min_size=1, max_size=3).map(lambda alts: OneOf(*alts))


texts = st.sampled_from(["a", "b", "x"])
numbers = st.integers(-2, 12) | st.floats(-1, 1, allow_nan=False)
# calls of "w" whose values mostly fit (the fast path vouches for many), one unfit value at times
fitting_calls = st.builds(Step, st.just("w"), st.fixed_dictionaries(
    {"s": _answer(texts), "f": _answer(numbers), "b": _answer(st.booleans()), "e": _answer(texts)},
    optional={"d": _answer(texts | st.none()), "a": _answer(plain | plain_lists),
              "n": _answer(st.sampled_from([1, 2, "x", 3])), "r": _answer(st.booleans()),
              "m": _answer(st.lists(texts, max_size=2)),
              "k": _answer(st.lists(numbers | st.just("1"), max_size=2)),
              "q": _answer(st.lists(st.sampled_from(["a", "b", 1, "c", True, 1.0]), max_size=2)),
              "c": _answer(st.lists(texts, max_size=3)), "nope": st.just(1)}))
gold_calls = st.lists(fitting_calls | st.builds(Step, st.sampled_from(["t", "w", "v", "u"]),
                                st.dictionaries(plain_names, plain | possible_answers | st.just(OMITTABLE) | plain_lists
                                                | list_answers | values,
                                                max_size=7)), max_size=3)


@settings(max_examples=500, deadline=None)
@given(gold_calls)
def test_a_validator_vouching_for_plain_gold_finds_what_the_variants_find(gold: list[Step]) -> None:
    """gold_problems' fast path (the validator's plainly_valid over each argument's values) against its
    general path (every call's variants validated), with a fresh validator each (its plans made either way)."""
    fast = goldcheck.gold_problems(GrammarValidator(PLAIN_GRAMMAR), gold)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(goldcheck, "_plain_gold_choices", lambda args: None)
        general = goldcheck.gold_problems(GrammarValidator(PLAIN_GRAMMAR), gold)
    assert fast == general


def test_the_validator_vouches_for_bfcl_s_usual_answers() -> None:
    check = validator_for(PLAIN_GRAMMAR)
    assert check.plainly_valid("w", {"s": ("a", "b"), "f": (1, 2.5), "b": (True,), "e": ("a",), "a": (None, [1]),
                                     "n": (1, "x"), "m": (["a"], []), "k": ([1, 2.5],), "q": (["a", 1], [])})
    assert not check.plainly_valid("w", {"s": ("a",), "f": (1,), "b": (True,), "e": ("a",), "q": (["c"],)})
    assert not check.plainly_valid("w", {"s": ("a",), "f": (1,), "b": (True,), "e": ("a",), "c": (["a"],)})
    assert not check.plainly_valid("w", {"s": ("a",), "f": (1,), "b": (True,), "e": ("a",), "m": (["a", 1],)})
    assert check.plainly_valid("v", {})
    assert not check.plainly_valid("w", {"s": ("a",), "f": (1,), "b": (True,), "e": ("a",), "nope": (1,)})
    assert not check.plainly_valid("w", {"s": ("a", 1), "f": (1,), "b": (True,), "e": ("a",)})
    assert not check.plainly_valid("w", {"s": ("a",), "f": (1,), "b": (True,), "e": ("a",), "r": (None,)})
    assert not check.plainly_valid("w", {"f": (1,), "b": (True,), "e": ("a",)})  # "s" is required
    assert not check.plainly_valid("t", {"s": ("a",), "i": (1,), "f": (1,), "b": (True,), "e": ("a",),
                                         "l": ([1],), "o": ({"x": 1},)})  # constrained, a list, an object
    assert not check.plainly_valid("u", {})
    assert goldcheck._plain_gold_choices({"x": OneOf("a", OMITTABLE), "y": OMITTABLE, "z": 3}) == {"x": ("a",),
                                                                                                   "z": (3,)}
    assert goldcheck._plain_gold_choices({"x": [1], "y": OneOf(["a"], OMITTABLE)}) == {"x": ([1],), "y": (["a"],)}
    assert goldcheck._plain_gold_choices({"x": [[1]]}) is None
    assert goldcheck._plain_gold_choices({"x": {"y": 1}}) is None
