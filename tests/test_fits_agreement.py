"""One answer to "does this value fit this type": lint (a default), import (a JSON Schema default), the generated
validator and the scorer (``invalid_value``) all agree with ek.grammar.fits on random types and values."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ek.agents.toolcalls import ToolCallMetric
from ek.grammar import SchemaError, format_grammar, parse
from ek.grammar.fits import violations
from ek.grammar.model import (
    NO_CONSTRAINTS,
    NO_DEFAULT,
    Constraints,
    EnumType,
    FieldSpec,
    GraphGrammar,
    ListType,
    ObjectType,
    PrimitiveType,
    ToolSpec,
    TypeNode,
)
from ek.interop import export_tools, import_tools
from ek.runtime import compile_grammar

PATTERNS = [None, "[A-Z]{3}", "[a-c]+x?", "\\d{2,4}"]


@st.composite
def constraints_for(draw: st.DrawFn, kind: str) -> Constraints:
    if kind in ("int", "float", "str", "list") and draw(st.booleans()):
        lo = draw(st.none() | st.integers(0, 3))
        hi = draw(st.none() | st.integers(3, 6))
        pattern = draw(st.sampled_from(PATTERNS)) if kind == "str" else None
        return Constraints(lo, hi, pattern)
    return NO_CONSTRAINTS


def types(depth: int = 2) -> st.SearchStrategy[tuple[TypeNode, Constraints]]:
    prim = st.sampled_from(["str", "int", "float", "bool", "date", "datetime", "any"]).flatmap(
        lambda kind: st.tuples(st.just(PrimitiveType(kind)), constraints_for(kind)))
    enum = st.lists(st.sampled_from(["a", "b", "c d", "Ä"]), min_size=1, max_size=3, unique=True).map(
        lambda members: (EnumType(tuple(members)), NO_CONSTRAINTS))
    if depth == 0:
        return prim | enum
    inner = types(depth - 1)
    lists = st.tuples(inner, constraints_for("list")).map(lambda t: (ListType(t[0][0]), t[1]))
    fields = st.lists(st.tuples(st.sampled_from(["x", "y", "max-n"]), inner, st.booleans()), min_size=1, max_size=2,
                      unique_by=lambda f: f[0])
    objects = fields.map(lambda fs: (ObjectType(tuple(FieldSpec(n, t, c, required=r) for n, (t, c), r in fs)),
                                     NO_CONSTRAINTS))
    return prim | enum | lists | objects


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 8) | st.floats(-10, 10) | st.sampled_from(
        ["", "JFK", "abx", "2024", "2024-01-01", "20240101", "2024-02-30", "2024-05-01T09:30", "a", "c d", "Ä"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(["x", "y", "max-n", "z"]), inner,
                                                                max_size=3),
    max_leaves=6,
)


def grammar_with(type_node: TypeNode, cons: Constraints, default: Any = NO_DEFAULT) -> GraphGrammar:
    field = FieldSpec("a", type_node, cons, required=default is NO_DEFAULT, default=default)
    return GraphGrammar("agree", 1, tools=(ToolSpec("t", (field,)),))


def fits(type_node: TypeNode, cons: Constraints, value: Any) -> bool:
    return violations(value, type_node, cons, grammar_with(type_node, cons).resolve) == []


SETTINGS = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.slow
@SETTINGS
@given(typed=types(), value=JSONISH)
def test_generated_validator_and_scorer_agree_with_fits(typed: tuple[TypeNode, Constraints], value: Any) -> None:
    type_node, cons = typed
    grammar = grammar_with(type_node, cons)
    expected = fits(type_node, cons, value)
    module = compile_grammar(grammar)
    assert (module.validate("t", {"a": value}) == []) == expected
    score = ToolCallMetric(level="arg", grammar=grammar)([("t", {"a": value})], [("t", {"a": value})])
    assert ("invalid_value" not in score.by_reason()) == expected


def _printable_default(value: Any) -> bool:
    """Values the DSL can write as a default literal (no NaN/inf, no null inside containers)."""
    if value is None:
        return False
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(_printable_default(v) for v in value)
    if isinstance(value, dict):
        return all(_printable_default(v) for v in value.values())
    return True


@pytest.mark.slow
@SETTINGS
@given(typed=types(), value=JSONISH)
def test_lint_of_a_default_agrees_with_fits(typed: tuple[TypeNode, Constraints], value: Any) -> None:
    type_node, cons = typed
    if not _printable_default(value):
        return
    expected = fits(type_node, cons, value)
    try:
        text = format_grammar(grammar_with(type_node, cons, default=value))
    except (ValueError, TypeError):
        assert not expected, "a fitting default must be printable"
        return
    try:
        parse(text, "agree.ek")
    except SchemaError as exc:
        assert not expected, f"lint refused a fitting default:\n{exc}"
    else:
        assert expected, f"lint accepted a default that does not fit:\n{text}"


@pytest.mark.slow
@SETTINGS
@given(typed=types(), value=JSONISH)
def test_import_of_a_json_schema_default_agrees_with_fits(typed: tuple[TypeNode, Constraints], value: Any) -> None:
    type_node, cons = typed
    if value is None:
        return
    expected = fits(type_node, cons, value)
    exported, _issues = export_tools(grammar_with(type_node, cons), "jsonschema")
    (schema,) = exported
    schema["properties"]["a"]["default"] = value
    schema["required"] = []
    imported = import_tools([schema], "jsonschema")
    field = imported.grammar.tool("t").field("a")
    kept = field.default is not NO_DEFAULT
    dropped = [i for i in imported.issues if "default" in i.message]
    assert kept == expected, (value, [i.message for i in imported.issues])
    assert bool(dropped) != expected


@pytest.mark.parametrize(("text", "ok"), [("2024-01-01", True), ("20240101", False), ("2024-02-30", False)])
def test_a_date_default_is_checked_like_the_generated_validator(text: str, ok: bool) -> None:
    source = f'grammar g 1\ntool t {{\n    d: date = "{text}"\n}}\n'
    if ok:
        parse(source)
    else:
        with pytest.raises(SchemaError, match="not an ISO date YYYY-MM-DD"):
            parse(source)
    module = compile_grammar(grammar_with(PrimitiveType("date"), NO_CONSTRAINTS))
    assert (module.validate("t", {"a": text}) == []) is ok
