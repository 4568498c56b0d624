"""Enums of integers and of text and integers keep their members through import and export."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ek.grammar import EnumType, PrimitiveType, format_grammar, parse
from ek.interop import TARGETS, export_tools, import_tools
from ek.runtime import compile_grammar


def _import(prop: dict[str, Any], required: bool = True) -> Any:
    schema = {"type": "object", "properties": {"x": prop}, "required": ["x"] if required else []}
    return import_tools([{"type": "function", "function": {"name": "t", "parameters": schema}}], "openai")


@pytest.mark.parametrize(
    ("prop", "members"),
    [
        ({"type": "integer", "enum": [1, 5, 10]}, (1, 5, 10)),
        ({"type": "integer", "enum": [0, -90, 90]}, (0, -90, 90)),
        ({"type": "number", "enum": [1, 2.0]}, (1, 2)),  # JSON does not tell 2 from 2.0
        ({"type": "integer", "enum": [1, 2, 3], "minimum": 1, "maximum": 3}, (1, 2, 3)),  # the range is redundant
        ({"const": 7}, (7,)),
        ({"anyOf": [{"const": 1}, {"const": 2}]}, (1, 2)),
        ({"enum": ["auto", 0, 1]}, ("auto", 0, 1)),
        ({"type": ["string", "integer"], "enum": ["auto", 0]}, ("auto", 0)),
    ],
)
def test_integer_and_mixed_enums_import_exactly(prop: dict[str, Any], members: tuple[Any, ...]) -> None:
    result = _import(prop)
    assert result.issues == ()
    node = result.grammar.tool("t").field("x").type
    assert node == EnumType(members) and [type(m) for m in node.members] == [type(m) for m in members]
    assert parse(format_grammar(result.grammar)) == result.grammar


def test_members_outside_the_range_are_dropped_with_a_warning() -> None:
    result = _import({"type": "integer", "enum": [0, 1, 2, 99], "minimum": 1, "maximum": 10})
    assert result.grammar.tool("t").field("x").type == EnumType((1, 2))
    (issue,) = result.issues
    assert issue.path == "$[0].function.parameters.properties.x.enum" and "[0, 99]" in issue.message


@pytest.mark.parametrize(
    ("prop", "expected", "fragment"),
    [
        ({"type": "number", "enum": [0.5, 1]}, PrimitiveType("float"), "widened to float"),
        ({"type": "integer", "enum": [1, True]}, PrimitiveType("int"), "not numbers, which type int never accepts"),
        ({"type": "integer", "enum": ["1", "dontcare"]}, PrimitiveType("int"), "not numbers"),
        ({"enum": ["a", 1, True]}, PrimitiveType("any"), "widened to any"),
        ({"type": "boolean", "enum": [True]}, PrimitiveType("bool"), "widened to bool"),
        ({"const": 0.5}, PrimitiveType("any"), "const 0.5"),
    ],
)
def test_enums_dsl_cannot_hold_are_widened_with_a_warning(prop: dict[str, Any], expected: Any, fragment: str) -> None:
    result = _import(prop)
    assert result.grammar.tool("t").field("x").type == expected
    assert any(fragment in i.message for i in result.issues), result.issues


SOURCE = '''grammar e 1

type Level = enum(1, 2, 3)

tool t {
    level: Level = 2
    angle: enum(0, 90, 180, -90)?
    mode: enum(auto, 0, "1") = auto
    levels: list[Level]?
}
'''


@pytest.mark.parametrize("target", TARGETS)
def test_integer_enums_round_trip_in_every_format(target: str) -> None:
    grammar = parse(SOURCE)
    data, issues = export_tools(grammar, target)
    assert issues == ()
    text = json.dumps(data)
    result = import_tools(json.loads(text), target, name="e", version=1)
    assert result.issues == () and result.grammar == grammar
    assert json.dumps(export_tools(result.grammar, target)[0]) == text


def test_exported_shapes_and_strict_mode() -> None:
    data, _ = export_tools(parse(SOURCE), "openai")
    params = data[0]["function"]["parameters"]
    assert params["$defs"]["Level"] == {"type": "integer", "enum": [1, 2, 3]}
    assert params["properties"]["angle"] == {"type": "integer", "enum": [0, 90, 180, -90]}
    assert params["properties"]["mode"] == {"enum": ["auto", 0, "1"], "default": "auto"}
    strict, issues = export_tools(parse(SOURCE), "openai", openai_strict=True)
    assert issues == ()
    props = strict[0]["function"]["parameters"]["properties"]
    assert props["angle"] == {"type": ["integer", "null"], "enum": [0, 90, 180, -90, None]}
    # strict mode wants a type in every schema ("schema must have a 'type' key"): a type list for a mixed enum
    assert props["mode"] == {"type": ["string", "integer", "null"], "enum": ["auto", 0, "1", None], "default": "auto"}
    back = import_tools(strict, "openai", name="e", version=1)
    assert back.grammar == parse(SOURCE)
    assert export_tools(back.grammar, "openai", openai_strict=True)[0] == strict


def test_defaults_are_checked_by_type_not_python_equality() -> None:
    result = _import({"type": "integer", "enum": [0, 1], "default": False}, required=False)
    assert not result.grammar.tool("t").field("x").has_default
    assert any("default False" in i.message for i in result.issues)


def test_the_generated_validator_checks_imported_integer_members() -> None:
    validate = compile_grammar(_import({"type": "integer", "enum": [1, 5, 10]}).grammar).validate
    assert validate("t", {"x": 5}) == []
    assert [v.path for v in validate("t", {"x": 2})] == ["$.x"]
    assert [v.path for v in validate("t", {"x": True})] == ["$.x"]
