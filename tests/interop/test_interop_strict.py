"""OpenAI strict mode and nullable properties: null is how JSON Schema says "optional" there, and ``?`` in .ek."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from test_interop_roundtrip import _sorted_types, _without_empty_docs, grammars

from ek.grammar import EnumType, GraphGrammar, NamedType, PrimitiveType, format_grammar, parse
from ek.grammar.strings import json_shown
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


def test_a_strict_mode_call_sending_null_for_what_it_leaves_out_scores_exact() -> None:
    """Strict mode makes the model send ``"units": null`` when it means no units: imported as ``units: ...?``,
    that null is the omission the grammar reads it as, so the call matches gold that leaves units out."""
    from ek import ToolCallMetric

    grammar = import_tools(WEATHER, "openai").grammar
    message = {"role": "assistant", "content": None, "tool_calls": [{"id": "call_0", "type": "function", "function": {
        "name": "get_weather", "arguments": json.dumps({"location": "Paris, France", "units": None})}}]}
    gold = [("get_weather", {"location": "Paris, France"})]
    for level in ("call", "arg"):
        assert ToolCallMetric(level, grammar=grammar)(message, gold).f1 == 1.0


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
    for function in (plan, ping):
        _assert_strict_shape(function["parameters"])


def test_strict_export_import_export_is_stable() -> None:
    grammar = parse(SINK)
    data, _ = export_tools(grammar, "openai", openai_strict=True)
    text = json.dumps(data, indent=2)
    result = import_tools(json.loads(text), "openai", name="sink", version=1)
    assert {i.path for i in result.issues} == {"$[0].function.strict", "$[1].function.strict"}
    assert result.grammar == grammar
    again, _ = export_tools(result.grammar, "openai", openai_strict=True)
    assert json.dumps(again, indent=2) == text


ANYTHING = """grammar g 1
type Blob = any
tool send {
    payload: any
    to: str
    note: str?
}
tool keep {
    x: int
    mode: enum(auto, 0)?
}
tool deep {
    meta: { tags: list[any] }
    b: Blob?
}
"""


def test_a_tool_with_an_any_value_is_written_without_strict_and_says_where() -> None:
    """A required `any` argument was written `{}` inside a `"strict": true` function, which OpenAI refuses
    ("schema must have a 'type' key"); an optional one was left out of `required`, which strict mode refuses
    too. No strict schema admits every JSON value (its objects admit only the keys they list), so such a tool
    is written as `--to openai` writes it, without `strict`, with a warning at each `any`; the others stay
    strict."""
    grammar = parse(ANYTHING)
    data, issues = export_tools(grammar, "openai", openai_strict=True)
    plain, _ = export_tools(grammar, "openai")
    send, keep, deep = (t["function"] for t in data)
    assert "strict" not in send and "strict" not in deep and keep["strict"] is True
    assert send == plain[0]["function"] and deep == plain[2]["function"]  # the tool as --to openai writes it
    assert send["parameters"]["properties"]["payload"] == {} and send["parameters"]["required"] == ["payload", "to"]
    assert keep["parameters"]["properties"]["mode"] == {"type": ["string", "integer", "null"],
                                                        "enum": ["auto", 0, None]}  # a type in every schema
    assert [(i.path, i.severity) for i in issues] == [
        ("$[0].function.parameters.properties.payload", "warning"),
        ("$[2].function.parameters.properties.meta.properties.tags.items", "warning"),
        ("$[2].function.parameters.$defs.Blob", "warning")]
    assert issues[0].message.startswith("tool 'send' is written without \"strict\": true: argument 'payload' may "
                                        "hold any value (type any), which OpenAI's strict mode cannot express")
    assert "'meta.tags.items' of argument 'meta'" in issues[1].message and "named type 'Blob'" in issues[2].message
    for function in (keep,):  # what strict mode asks of every schema in a strict function
        _assert_strict_shape(function["parameters"])
    result = import_tools(json.loads(json.dumps(data)), "openai", name="g", version=1)
    assert [i.path for i in result.issues] == ["$[1].function.strict"]
    assert result.grammar == grammar
    again, _ = export_tools(result.grammar, "openai", openai_strict=True)
    assert again == data


def _assert_strict_shape(schema: dict[str, Any]) -> None:
    """Every schema has a type (or is a $ref or anyOf), every object lists all its keys in `required` and
    admits no other."""
    stack = [schema]
    while stack:
        node = stack.pop()
        assert "type" in node or "$ref" in node or "anyOf" in node, node
        if node.get("type") == "object" or "object" in node.get("type", ()):
            assert node["additionalProperties"] is False and node["required"] == list(node["properties"]), node
            stack.extend(node["properties"].values())
        stack.extend(node.get("anyOf", ()))
        stack.extend(node.get("$defs", {}).values())
        if "items" in node:
            stack.append(node["items"])


def test_export_any_strict_cli_warns_and_strict_flag_fails(tmp_path: Path) -> None:
    schema = tmp_path / "any.ek"
    schema.write_text(ANYTHING, encoding="utf-8")
    command = [sys.executable, "-m", "ek", "export", "--to", "openai", "--openai-strict", str(schema)]
    done = subprocess.run(command, capture_output=True, text=True)
    assert done.returncode == 0 and [f["function"].get("strict") for f in json.loads(done.stdout)] == [None, True,
                                                                                                          None]
    assert done.stderr.count("is written without \"strict\": true") == 3, done.stderr
    assert subprocess.run([*command, "--strict"], capture_output=True, text=True).returncode == 1


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


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(grammars())
def test_any_grammar_survives_a_strict_export_then_import(g: GraphGrammar) -> None:
    """The strict round trip on generated grammars: each function is strict in shape, or written without
    `strict` with a warning at its `any` values; import gives the grammar back (docs and unused types as in the
    plain round trip), reporting only the strict flags it drops."""
    grammar = parse(format_grammar(g))
    data, issues = export_tools(grammar, "openai", openai_strict=True)
    loose = {int(i.path[2:].split("]", 1)[0]) for i in issues if "is written without" in i.message}
    for index, tool in enumerate(data):
        if index in loose:
            assert "strict" not in tool["function"]
        else:
            assert tool["function"]["strict"] is True
            _assert_strict_shape(tool["function"]["parameters"])
    unused = {i.path.removeprefix("types.") for i in issues if "used by no tool" in i.message}
    result = import_tools(json.loads(json_shown(json.dumps(data, ensure_ascii=False))), "openai",
                          name=grammar.name, version=grammar.version)
    assert {i.path for i in result.issues} == {f"$[{i}].function.strict" for i in range(len(data)) if i not in loose}
    expected = _sorted_types(grammar)
    expected = attrs.evolve(expected, types=tuple(t for t in expected.types if t.name not in unused))
    assert _without_empty_docs(result.grammar) == _without_empty_docs(expected)
