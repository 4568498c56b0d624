"""Properties: any JSON-ish schema imports without crashing into a grammar that lints clean and
round-trips; any grammar the model can hold survives export -> import."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ek.grammar import format_grammar, parse
from ek.interop import SOURCES, TARGETS, export_tools, import_tools

names = st.sampled_from(["a", "b", "max-results", "from", "x.y", "class", "é", "a_b", "A", "2fa", "type", "weight"])
type_names = st.sampled_from(["string", "integer", "number", "boolean", "array", "object", "null", "dict", "float",
                              "tuple", "any", "String", "long", "HashMap", "weird", ""])
scalars = st.none() | st.booleans() | st.integers(-5, 5) | st.floats(-10, 10, allow_nan=False) | st.sampled_from(
    ["", "x", "2024-02-29", "2024-02-29T10:00:00", "A", "^[a-z]+$", "(", "a|b", "dontcare"])


def junk(depth: int) -> st.SearchStrategy[dict[str, Any]]:
    """Any mix of keywords and values, sensible or not."""
    leaf_keys: dict[str, st.SearchStrategy[Any]] = {
        "type": type_names | st.lists(type_names, max_size=3),
        "description": st.text(max_size=20) | st.integers(),
        "enum": st.lists(scalars, max_size=4),
        "default": scalars | st.lists(scalars, max_size=2),
        "minimum": scalars, "maximum": scalars, "exclusiveMinimum": scalars, "exclusiveMaximum": scalars,
        "minLength": scalars, "maxLength": scalars, "minItems": scalars, "maxItems": scalars,
        "pattern": scalars, "format": st.sampled_from(["date", "date-time", "email", 3]),
        "title": st.text(max_size=5), "const": scalars, "uniqueItems": st.booleans(),
        "additionalProperties": st.booleans(), "$ref": st.sampled_from(["#/$defs/A", "#/$defs/B", "#/nope", "x"]),
        "optional": st.booleans() | st.just("yes"),
        "x-ek-importance": scalars, "x-ek-compare": st.sampled_from(["exact", "tol(0.5)", "unordered", "nope", "tol(x)"]),
    }
    if depth > 0:
        inner = schemas(depth - 1)
        leaf_keys |= {
            "items": inner | st.lists(inner, max_size=2),
            "properties": st.dictionaries(names, inner, max_size=3),
            "required": st.lists(names, max_size=3) | st.just("all"),
            "anyOf": st.lists(inner | st.just({"type": "null"}), max_size=2),
            "oneOf": st.lists(inner, max_size=2),
            "allOf": st.lists(inner, max_size=1),
        }
    return st.fixed_dictionaries({}, optional=leaf_keys)


def typed(depth: int) -> st.SearchStrategy[dict[str, Any]]:
    """Schemas of one type with the keywords that fit it (defaults and bounds may still misfit)."""
    num = st.integers(-3, 12) | st.floats(-3, 12, allow_nan=False)
    common = {"description": st.text(max_size=12), "x-ek-importance": st.sampled_from([2, 0.5])}
    options: list[st.SearchStrategy[Any]] = [
        st.fixed_dictionaries({"type": st.just("string")}, optional={
            **common, "minLength": st.integers(0, 4), "maxLength": st.integers(0, 9),
            "pattern": st.sampled_from(["^[a-z]+$", "[0-9]", "^(?:a|b)$", "^x"]),
            "enum": st.lists(st.sampled_from(["a", "b c", "D"]), min_size=1, max_size=3),
            "format": st.sampled_from(["date", "date-time"]), "default": scalars,
            "x-ek-compare": st.sampled_from(["exact", "fold", "bfcl", "ignore"])}),
        st.fixed_dictionaries({"type": st.sampled_from(["integer", "number"])}, optional={
            **common, "minimum": num, "maximum": num, "exclusiveMinimum": num, "exclusiveMaximum": num,
            "default": num, "x-ek-compare": st.just("tol(0.5)")}),
        st.fixed_dictionaries({"type": st.just("boolean")}, optional={**common, "default": st.booleans()}),
        st.fixed_dictionaries({"$ref": st.sampled_from(["#/$defs/A", "#/$defs/B"])}, optional={"description":
                                                                                             st.text(max_size=5)}),
    ]
    if depth > 0:
        inner = typed(depth - 1)
        options += [
            st.fixed_dictionaries({"type": st.just("array"), "items": inner}, optional={
                **common, "minItems": st.integers(0, 3), "maxItems": st.integers(0, 5),
                "x-ek-compare": st.just("unordered")}),
            st.fixed_dictionaries({"type": st.just("object"), "properties": st.dictionaries(names, inner, max_size=3)},
                                  optional={**common, "required": st.lists(names, max_size=2),
                                            "additionalProperties": st.just(False)}),
        ]
    return st.one_of(options)


def schemas(depth: int = 2) -> st.SearchStrategy[dict[str, Any]]:
    return typed(depth) | junk(depth)


documents = st.fixed_dictionaries(
    {"type": st.just("object"), "properties": st.dictionaries(names, schemas(), min_size=1, max_size=4)},
    optional={"required": st.lists(names, max_size=3),
              "$defs": st.fixed_dictionaries({}, optional={"A": schemas(1), "B": typed(1), "str": typed(0)})},
)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(documents, st.sampled_from(SOURCES))
def test_any_schema_imports_into_a_lint_clean_grammar(document: dict[str, Any], source: str) -> None:
    wrapped: Any = {
        "openai": [{"type": "function", "function": {"name": "t", "parameters": document}}],
        "anthropic": [{"name": "t", "input_schema": document}],
        "mcp": {"tools": [{"name": "t", "inputSchema": document}]},
        "jsonschema": {"title": "t", **document},
        "bfcl": [{"name": "t", "parameters": document}],
    }[source]
    result = import_tools(wrapped, source, name="fuzz", version=1)
    grammar = result.grammar
    assert parse(format_grammar(grammar)) == grammar
    for target in TARGETS:
        data, _ = export_tools(grammar, target)
        again = import_tools(json.loads(json.dumps(data)), target, name="fuzz", version=1)
        assert again.grammar == grammar
        assert again.issues == ()


def test_an_empty_const_is_a_zero_length_string():
    tool = {"name": "t", "parameters": {"type": "object", "properties": {"a": {"const": ""}}}}
    result = import_tools(tool, "openai", name="g")
    field = result.grammar.tools[0].fields[0]
    assert (str(field.type), field.constraints.min, field.constraints.max) == ("str", 0, 0)
    assert parse(format_grammar(result.grammar)) == result.grammar
