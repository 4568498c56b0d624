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
