"""anyOf/oneOf: imported exactly where .ek can say the union, else widened with a warning naming both sides."""

from __future__ import annotations

from typing import Any

import pytest

from ek.grammar import EnumType, ListType, NamedType, PrimitiveType, format_grammar, parse
from ek.interop import import_tools

P = PrimitiveType


def _import(prop: dict[str, Any], **defs: Any) -> Any:
    schema = {"type": "object", "properties": {"x": prop}, "required": ["x"]}
    if defs:
        schema["$defs"] = defs
    return import_tools({"tools": [{"name": "t", "inputSchema": schema}]}, "mcp")


@pytest.mark.parametrize(
    ("prop", "expected"),
    [
        ({"anyOf": [{"const": "a"}, {"const": "b", "description": "the b"}]}, EnumType(("a", "b"))),
        ({"oneOf": [{"type": "string", "enum": ["a"]}, {"type": "string", "enum": ["b", "c"]}]}, EnumType(("a", "b", "c"))),
        ({"anyOf": [{"enum": ["a", "b"]}, {"enum": ["b", "c"]}]}, EnumType(("a", "b", "c"))),
        ({"anyOf": [{"type": "integer"}, {"type": "number"}]}, P("float")),
        ({"type": ["integer", "number"]}, P("float")),
        ({"oneOf": [{"type": "string"}, {"type": "string"}]}, P("str")),
        ({"anyOf": [{"type": "array", "items": {"type": "string"}}]}, ListType(P("str"))),
        ({"type": "string", "anyOf": [{"enum": ["x"]}, {"enum": ["y"]}]}, EnumType(("x", "y"))),
    ],
)
def test_unions_dsl_can_say_import_exactly(prop: dict[str, Any], expected: Any) -> None:
    result = _import(prop)
    assert result.issues == ()
    assert result.grammar.tool("t").field("x").type == expected
    assert result.grammar.types == ()


def test_a_union_of_enum_types_is_one_enum_and_leaves_no_unused_types() -> None:
    result = _import({"anyOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}]},
                     A={"enum": ["a1", "a2"]}, B={"enum": ["b1"]})
    assert result.issues == ()
    assert result.grammar.tool("t").field("x").type == EnumType(("a1", "a2", "b1"))
    assert result.grammar.types == ()


def test_a_single_ref_branch_keeps_its_named_type() -> None:
    result = _import({"oneOf": [{"$ref": "#/$defs/A"}]}, A={"type": "string", "minLength": 2})
    assert result.issues == ()
    assert result.grammar.tool("t").field("x").type == NamedType("A")
    assert [t.name for t in result.grammar.types] == ["A"]


@pytest.mark.parametrize(
    ("prop", "expected", "named"),
    [
        ({"anyOf": [{"type": "string"}, {"type": "integer"}]}, P("any"), "anyOf of str | int"),
        ({"oneOf": [{"type": "object", "properties": {"r": {"type": "number"}}},
                    {"type": "object", "properties": {"s": {"type": "number"}}}]}, P("any"), "oneOf of {r} | {s}"),
        ({"type": "string", "anyOf": [{"format": "email"}, {"format": "uri"}]}, P("str"),
         "anyOf of str (format email) | str (format uri)"),
        ({"anyOf": [{"type": "string", "format": "date"}, {"type": "string", "format": "date-time"}]}, P("str"),
         "anyOf of date | datetime"),
        ({"anyOf": [{"type": "integer", "minimum": 1}, {"type": "integer", "maximum": -1}]}, P("int"),
         "anyOf of int [1..] | int [..-1]"),
        ({"anyOf": [{"type": "integer", "minimum": 0}, {"type": "number"}]}, P("float"), "anyOf of int [0..] | float"),
        ({"anyOf": [{"enum": ["a"]}, {"type": "string", "pattern": "^[0-9]+$"}]}, P("str"),
         "anyOf of enum(a) | str /[0-9]+/"),
        ({"anyOf": [{"type": "array", "items": {"type": "string"}, "maxItems": 2},
                    {"type": "array", "items": {"type": "string"}, "minItems": 5}]}, ListType(P("str")),
         "anyOf of list[str] [..2] | list[str] [5..]"),
        ({"type": ["string", "boolean"]}, P("any"), "a union of types ['string', 'boolean']"),
    ],
)
def test_other_unions_are_widened_with_a_warning_naming_both_sides(prop: dict[str, Any], expected: Any,
                                                                   named: str) -> None:
    result = _import(prop)
    assert result.grammar.tool("t").field("x").type == expected
    (issue,) = result.issues
    assert issue.path.startswith("$.tools[0].inputSchema.properties.x.")
    assert named in issue.message and f"widened to {expected}" in issue.message, issue.message
    assert parse(format_grammar(result.grammar)) == result.grammar


def test_a_widened_union_keeps_no_type_from_its_branches() -> None:
    result = _import({"anyOf": [{"$ref": "#/$defs/A"}, {"type": "integer"}]}, A={"type": "object", "properties": {
        "k": {"type": "string"}}})
    assert result.grammar.tool("t").field("x").type == P("any") and result.grammar.types == ()
    assert [i.path for i in result.issues] == ["$.tools[0].inputSchema.properties.x.anyOf"]


def test_a_union_with_null_is_optional_and_still_merged() -> None:
    result = _import({"anyOf": [{"const": "a"}, {"const": "b"}, {"type": "null"}]})
    field = result.grammar.tool("t").field("x")
    assert field.type == EnumType(("a", "b")) and not field.required
    assert [i.path for i in result.issues] == ["$.tools[0].inputSchema.properties.x.anyOf"]
    assert "may be null" in result.issues[0].message


def test_overlapping_one_of_members_are_reported() -> None:
    result = _import({"oneOf": [{"enum": ["a", "b"]}, {"enum": ["b"]}]})
    assert result.grammar.tool("t").field("x").type == EnumType(("a", "b"))
    (issue,) = result.issues
    assert "several oneOf branches" in issue.message


@pytest.mark.parametrize(("key", "value", "what"), [
    ("allOf", [{"type": "string"}, {"minLength": 1}], "intersection"),
    ("not", {"type": "string"}, "negation"),
    ("if", {"type": "string"}, "conditional"),
    ("anyOf", [], "empty or malformed anyOf"),
])
def test_other_combinators_name_what_was_widened(key: str, value: Any, what: str) -> None:
    result = _import({key: value})
    assert result.grammar.tool("t").field("x").type == P("any")
    (issue,) = result.issues
    assert issue.path == f"$.tools[0].inputSchema.properties.x.{key}"
    assert what in issue.message and "widened to any" in issue.message
