"""OpenAI strict mode and nullable properties: null is how JSON Schema says "optional" there, and ``?`` in .ek."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ek.grammar import EnumType, NamedType, PrimitiveType, parse
from ek.interop import export_tools, import_tools

# OpenAI's function-calling guide, strict mode: every property required, the optional one nullable.
WEATHER = [{"type": "function", "function": {
    "name": "get_weather", "description": "Retrieves current weather for the given location.", "strict": True,
    "parameters": {"type": "object", "properties": {
        "location": {"type": "string", "description": "City and country e.g. Bogotá, Colombia"},
        "units": {"type": ["string", "null"], "enum": ["celsius", "fahrenheit"],
                  "description": "Units the temperature will be returned in."}},
        "required": ["location", "units"], "additionalProperties": False}}}]


def test_a_strict_tool_imports_its_nullable_properties_as_optional_arguments() -> None:
    result = import_tools(WEATHER, "openai")
    tool = result.grammar.tool("get_weather")
    assert tool.field("location").required and tool.field("location").type == PrimitiveType("str")
    units = tool.field("units")
    assert not units.required and units.type == EnumType(("celsius", "fahrenheit"))
    (issue,) = result.issues  # only the flag itself, which .ek has no place for
    assert issue.path == "$[0].function.strict" and "--openai-strict" in issue.message


def _props(props: dict[str, Any], required: list[str]) -> Any:
    schema = {"type": "object", "properties": props, "required": required, "$defs": {"D": {"type": "integer"}}}
    return import_tools([{"name": "t", "input_schema": schema}], "anthropic")


@pytest.mark.parametrize(
    "prop",
    [
        {"type": ["integer", "null"]},
        {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        {"oneOf": [{"type": "null"}, {"type": "integer"}]},
    ],
)
def test_a_nullable_property_that_is_not_required_is_optional_without_a_warning(prop: dict[str, Any]) -> None:
    # Pydantic's Optional[int] = None: anyOf with null, default null, not required.
    result = _props({"x": {**prop, "default": None, "description": "d"}}, [])
    field = result.grammar.tool("t").field("x")
    assert result.issues == ()
    assert (field.type, field.required, field.default, field.doc) == (PrimitiveType("int"), False, None, "d")


def test_a_required_nullable_property_outside_strict_mode_is_optional_with_a_warning() -> None:
    result = _props({"x": {"type": ["string", "null"]}, "y": {"anyOf": [{"$ref": "#/$defs/D"}, {"type": "null"}]}},
                    ["x", "y"])
    tool = result.grammar.tool("t")
    assert not tool.field("x").required and not tool.field("y").required
    assert tool.field("y").type == NamedType("D")
    assert [i.path for i in result.issues] == ["$[0].input_schema.properties.x.type",
                                               "$[0].input_schema.properties.y.anyOf"]
    assert all("may be null" in i.message and "made optional" in i.message for i in result.issues)


def test_null_below_an_argument_is_still_reported() -> None:
    result = _props({"xs": {"type": "array", "items": {"type": ["string", "null"]}},
                     "o": {"type": "object", "properties": {"a": {"type": ["integer", "null"]}}, "required": ["a"]}},
                    ["xs", "o"])
    tool = result.grammar.tool("t")
    assert tool.field("xs").required and tool.field("o").required
    assert [i.path for i in result.issues] == ["$[0].input_schema.properties.xs.items.type",
                                               "$[0].input_schema.properties.o.properties.a.type"]
    assert "null is not a value" in result.issues[0].message and "may be null" in result.issues[1].message


SINK = '''grammar sink 1

type Code = str [2..8] /[A-Z]+/ "A code."
type Point = {
    x: int
    y: int?
}

tool plan {
    "Plan a trip."
    code: Code
    alt: Code [..4]?
    unit: enum(c, f) = c
    stops: list[Point] [1..]?
    at: Point?
    when: datetime?
    mail: str /[^\\s@]+@[^\\s@]+/?
    meta: {
        note: str?
        level: int [0..3] = 1
    }?
}

tool ping {}
'''


def test_strict_export_has_the_strict_shape() -> None:
    data, issues = export_tools(parse(SINK), "openai", openai_strict=True)
    assert issues == ()
    plan, ping = (t["function"] for t in data)
    assert plan["strict"] is True and ping["strict"] is True
    params = plan["parameters"]
    assert params["required"] == list(params["properties"])
    props = params["properties"]
    assert props["code"] == {"$ref": "#/$defs/Code"}
    assert props["alt"] == {"anyOf": [{"$ref": "#/$defs/Code", "maxLength": 4}, {"type": "null"}]}
    assert props["unit"] == {"type": ["string", "null"], "enum": ["c", "f", None], "default": "c"}
    assert props["stops"]["type"] == ["array", "null"] and props["stops"]["minItems"] == 1
    assert props["mail"] == {"type": ["string", "null"], "format": "email"}
    assert props["meta"]["type"] == ["object", "null"] and props["meta"]["required"] == ["note", "level"]
    assert props["meta"]["properties"]["note"] == {"type": ["string", "null"]}
    point = params["$defs"]["Point"]
    assert point["required"] == ["x", "y"] and point["properties"]["y"] == {"type": ["integer", "null"]}
    assert ping["parameters"] == {"type": "object", "properties": {}, "required": [], "additionalProperties": False}


def test_strict_export_import_export_is_stable() -> None:
    grammar = parse(SINK)
    data, _ = export_tools(grammar, "openai", openai_strict=True)
    text = json.dumps(data, indent=2)
    result = import_tools(json.loads(text), "openai", name="sink", version=1)
    assert {i.path for i in result.issues} == {"$[0].function.strict", "$[1].function.strict"}
    assert result.grammar == grammar
    again, _ = export_tools(result.grammar, "openai", openai_strict=True)
    assert json.dumps(again, indent=2) == text


def test_an_optional_any_cannot_be_strict_and_says_so() -> None:
    data, issues = export_tools(parse("grammar g 1\ntool t {\n    x: any?\n    y: int\n}\n"), "openai",
                                openai_strict=True)
    params = data[0]["function"]["parameters"]
    assert params["required"] == ["y"] and params["properties"]["x"] == {}
    (issue,) = issues
    assert issue.path == "$[0].function.parameters.properties.x" and "already allows null" in issue.message
    assert import_tools(data, "openai").grammar.tool("t").field("x").required is False


def test_strict_mode_is_for_openai_only(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="openai only"):
        export_tools(parse(SINK), "anthropic", openai_strict=True)
    schema = tmp_path / "sink.ek"
    schema.write_text(SINK, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "ek", "export", "--to", "mcp", "--openai-strict", str(schema)],
                          capture_output=True, text=True)
    assert done.returncode == 2 and "--openai-strict applies to --to openai only" in done.stderr
    done = subprocess.run([sys.executable, "-m", "ek", "export", "--to", "openai", "--openai-strict", str(schema)],
                          capture_output=True, text=True, check=True)
    assert json.loads(done.stdout)[0]["function"]["strict"] is True
