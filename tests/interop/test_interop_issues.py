"""What JSON Schema says and .ek cannot: reported with its JSON path, never dropped silently."""

from __future__ import annotations

from typing import Any

import pytest

from ek.grammar import EnumType, ListType, NamedType, ObjectType, PrimitiveType, format_grammar, parse
from ek.interop import import_tools


def _one(props: dict[str, Any], required: list[str] | None = None, **extra: Any) -> Any:
    schema = {"type": "object", "properties": props, **extra}
    if required is not None:
        schema["required"] = required
    return import_tools([{"name": "t", "input_schema": schema}], "anthropic")


@pytest.mark.parametrize(
    ("prop", "path", "fragment"),
    [
        ({"oneOf": [{"type": "string"}, {"type": "integer"}]}, "$[0].input_schema.properties.x.oneOf", "oneOf"),
        ({"anyOf": [{"type": "string"}, {"type": "integer"}]}, "$[0].input_schema.properties.x.anyOf", "anyOf"),
        ({"allOf": [{"type": "string"}, {"minLength": 1}]}, "$[0].input_schema.properties.x.allOf", "allOf"),
        ({"type": "number", "exclusiveMinimum": 0}, "$[0].input_schema.properties.x.exclusiveMinimum", "inclusive"),
        ({"type": "object", "additionalProperties": {"type": "string"}}, "$[0].input_schema.properties.x",
         "free-form map"),
        ({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": True},
         "$[0].input_schema.properties.x.additionalProperties", "closed"),
        ({"type": "string", "format": "hostname"}, "$[0].input_schema.properties.x.format", "format 'hostname'"),
        ({"type": "array", "uniqueItems": True}, "$[0].input_schema.properties.x.uniqueItems", "uniqueItems"),
        ({"type": "array", "items": {"type": ["string", "null"]}}, "$[0].input_schema.properties.x.items.type",
         "null"),
        ({"type": ["string", "integer"]}, "$[0].input_schema.properties.x.type", "union"),
        ({"type": "number", "enum": [0.5, 2]}, "$[0].input_schema.properties.x.enum", "enum of float"),
        ({"type": "string", "pattern": "("}, "$[0].input_schema.properties.x.pattern", "not a regex"),
        ({"type": "integer", "minimum": 5, "maximum": 1}, "$[0].input_schema.properties.x", "inverted range"),
        ({"type": "integer", "default": "five"}, "$[0].input_schema.properties.x.default", "does not fit: expected int, got str"),
        ({"type": "string", "title": "X"}, "$[0].input_schema.properties.x.title", "'title'"),
        ({"$ref": "https://example.com/s.json"}, "$[0].input_schema.properties.x.$ref", "does not point"),
        ({"type": "weird"}, "$[0].input_schema.properties.x.type", "unknown type 'weird'"),
        ({"type": "object", "properties": {"a": {"type": "string", "x-ek-importance": 3}}},
         "$[0].input_schema.properties.x.properties.a['x-ek-importance']", "not to object field 'a'"),
    ],
)
def test_each_loss_is_reported_at_its_path(prop: dict[str, Any], path: str, fragment: str) -> None:
    result = _one({"x": prop})
    assert any(i.path == path and fragment in i.message for i in result.issues), result.issues
    parse(format_grammar(result.grammar))  # whatever was kept still lints clean


def test_recursive_refs_are_reported_with_the_cycle() -> None:
    schema = {
        "type": "object",
        "properties": {"root": {"$ref": "#/$defs/Node"}},
        "$defs": {"Node": {"type": "object", "properties": {
            "label": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}},
    }
    result = import_tools({"tools": [{"name": "tree", "inputSchema": schema}]}, "mcp")
    (issue,) = result.issues
    assert issue.path == "$.tools[0].inputSchema.$defs.Node.properties.children.items.$ref"
    assert "#/$defs/Node -> #/$defs/Node" in issue.message
    node = result.grammar.type_alias("Node")
    assert node is not None and isinstance(node.type, ObjectType)
    assert node.type.field("children").type == ListType(PrimitiveType("any"))
    assert parse(format_grammar(result.grammar)) == result.grammar


def test_exact_conversions_report_nothing() -> None:
    result = _one({
        "n": {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 10},
        "code": {"type": "string", "pattern": "^[a-z]+$"},
        "free": {"type": "string", "pattern": "cat"},
        "maybe": {"anyOf": [{"type": "string", "enum": ["a", "b"]}, {"type": "null"}]},
        "ref": {"$ref": "#/definitions/Size", "minimum": 2},
    }, ["n"], definitions={"Size": {"type": "integer", "maximum": 9}})
    fields = {f.name: f for f in result.grammar.tool("t").fields}
    assert (fields["n"].constraints.min, fields["n"].constraints.max) == (1, 9)
    assert fields["code"].constraints.pattern == "[a-z]+"
    assert fields["free"].constraints.pattern == "[\\s\\S]*(?:cat)[\\s\\S]*"
    assert fields["maybe"].type == EnumType(("a", "b"))
    assert fields["ref"].type == NamedType("Size") and fields["ref"].constraints.min == 2
    assert result.issues == ()  # "maybe" allows null and is not required: exactly an optional argument


def test_required_with_default_and_name_collisions() -> None:
    result = _one({"a": {"type": "integer", "default": 1}, "max-results": {"type": "integer"},
                   "max_results": {"type": "integer"}, "": {"type": "string"}}, ["a"])
    messages = {i.path: (i.severity, i.message) for i in result.issues}
    assert messages["$[0].input_schema.properties.a.default"][0] == "warning"
    assert messages["$[0].input_schema.properties.max_results"][0] == "error"
    assert "collides with 'max-results'" in messages["$[0].input_schema.properties.max_results"][1]
    assert messages["$[0].input_schema.properties['']"][0] == "error"
    assert [f.name for f in result.grammar.tool("t").fields] == ["a", "max-results"]
    assert result.grammar.tool("t").field("a").required


def test_tool_level_problems() -> None:
    tools = [
        {"type": "function", "function": {"name": "ok", "parameters": {"type": "object", "properties": {}}},
         "strict": True},
        {"type": "function", "function": {"name": "ok", "parameters": {"type": "object", "properties": {
            "x": {"type": "string"}}}}},
        {"type": "function", "function": {"parameters": {}}},
        {"type": "web_search"},
        {"type": "function", "function": {"name": "bad", "parameters": {"type": "array"}}},
    ]
    result = import_tools(tools, "openai")
    assert [t.name for t in result.grammar.tools] == ["ok"]
    by_path = {i.path: i for i in result.issues}
    assert by_path["$[0].strict"].severity == "warning"
    assert "defined again differently" in by_path["$[1].function.parameters"].message
    assert by_path["$[2].function.name"].severity == "error"
    assert by_path["$[3]"].severity == "error"
    assert "must be an object schema" in by_path["$[4].function.parameters"].message


def test_unknown_formats_are_value_errors() -> None:
    with pytest.raises(ValueError, match="choose one of: openai, anthropic, mcp, jsonschema, bfcl"):
        import_tools([], "yaml")


def test_deep_schemas_are_cut_off_with_an_error_not_a_recursion_error() -> None:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(2000):
        schema = {"type": "object", "properties": {"a": schema}}
    result = _one({"x": schema})
    (issue,) = result.errors
    assert "nests deeper than 32" in issue.message
    assert parse(format_grammar(result.grammar)) == result.grammar


@pytest.mark.parametrize(
    ("prop", "expected", "fragment"),
    [
        ({"enum": [1, 2, 3]}, EnumType((1, 2, 3)), None),
        ({"enum": [1, 2.0]}, EnumType((1, 2)), None),
        ({"enum": ["auto", 0]}, EnumType(("auto", 0)), None),
        ({"enum": [0.5, 2]}, PrimitiveType("float"), "enum of float"),
        ({"enum": [True, False]}, PrimitiveType("bool"), None),
        ({"enum": [True]}, PrimitiveType("bool"), "enum of bool"),
        ({"enum": ["a", True]}, PrimitiveType("any"), "mixes types"),
    ],
)
def test_an_untyped_enum_is_read_by_its_members(prop: dict[str, Any], expected: Any, fragment: str | None) -> None:
    result = _one({"x": prop})
    assert result.grammar.tool("t").field("x").type == expected
    if fragment is None:
        assert result.issues == ()
    else:
        assert [i.path for i in result.issues] == ["$[0].input_schema.properties.x.enum"]
        assert fragment in result.issues[0].message, result.issues


def test_a_nullable_enum_keeps_its_string_members() -> None:
    result = _one({"x": {"type": ["string", "null"], "enum": ["a", "b", None]}, "y": {"enum": ["c", None]}})
    tool = result.grammar.tool("t")
    assert tool.field("x").type == EnumType(("a", "b"))
    assert tool.field("y").type == EnumType(("c",))
    assert result.issues == ()  # optional arguments: null is "omitted"
    result = _one({"x": {"type": ["string", "null"], "enum": ["a", None]}}, ["x"])
    paths = [i.path for i in result.issues]
    assert paths == ["$[0].input_schema.properties.x.type"], result.issues
    assert not result.grammar.tool("t").field("x").required


@pytest.mark.parametrize(
    ("prop", "key"),
    [
        ({"type": "boolean", "enum": [True]}, "enum"),
        ({"type": "integer", "format": "int32"}, "format"),
        ({"type": "number", "format": "double"}, "format"),
        ({"type": "integer", "pattern": "[0-9]+"}, "pattern"),
        ({"type": "integer", "minLength": 1}, "minLength"),
        ({"type": "string", "minimum": 1}, "minimum"),
        ({"type": "string", "items": {"type": "string"}}, "items"),
        ({"type": "array", "items": {"type": "string"}, "maxLength": 3}, "maxLength"),
        ({"type": "array", "properties": {"a": {"type": "string"}}}, "properties"),
        ({"type": "object", "properties": {}, "minItems": 1}, "minItems"),
        ({"type": "boolean", "maximum": 1}, "maximum"),
    ],
)
def test_keywords_that_do_not_apply_to_the_type_are_reported_not_dropped_silently(prop: dict[str, Any],
                                                                                  key: str) -> None:
    result = _one({"x": prop})
    assert any(i.path == f"$[0].input_schema.properties.x.{key}" for i in result.issues), result.issues


def test_constraints_on_nested_list_items_get_names_after_their_property() -> None:
    result = _one({"m": {"type": "array", "minItems": 1, "items": {"type": "array", "minItems": 2, "maxItems": 2,
                                                                    "items": {"type": "number", "minimum": 0}}}})
    assert result.grammar.tool("t").field("m").type == ListType(NamedType("m_item"))
    assert [a.name for a in result.grammar.types] == ["m_item", "m_item_item"]
    assert parse(format_grammar(result.grammar)) == result.grammar


def test_a_description_on_the_arguments_object_is_reported_unless_it_repeats_the_tool_doc() -> None:
    tools = [{"name": "a", "description": "Same.", "input_schema": {"type": "object", "description": "Same."}},
             {"name": "b", "description": "Tool.", "input_schema": {"type": "object", "description": "Args."}}]
    result = import_tools(tools, "anthropic")
    assert [(i.path, i.severity) for i in result.issues] == [("$[1].input_schema.description", "warning")]
    assert "dropped" in result.issues[0].message


def test_an_empty_enum_member_is_dropped_with_a_warning() -> None:
    # OpenAPI-derived schemas write "" as a "no choice" member; .ek enums cannot hold it.
    result = _one({"order": {"type": "string", "enum": ["", "asc", "desc"]}, "only": {"enum": [""]}})
    tool = result.grammar.tool("t")
    assert tool.field("order").type == EnumType(("asc", "desc"))
    assert tool.field("only").type == PrimitiveType("str")
    assert [i.path for i in result.issues] == ["$[0].input_schema.properties.order.enum",
                                               "$[0].input_schema.properties.only.enum"]
    assert parse(format_grammar(result.grammar)) == result.grammar


@pytest.mark.parametrize(("pattern", "kept", "matches"), [
    ("^a\rb$", "a\\rb", "a\rb"),
    ("^a\nb$", "a\\nb", "a\nb"),
    ("^a\\\rb$", "a\\rb", "a\rb"),  # an escaped carriage return is a carriage return
    ("^a\\\\\nb$", "a\\\\\\nb", "a\\\nb"),  # an escaped backslash, then a newline
])
def test_line_breaks_in_patterns_become_escapes_the_dsl_can_hold(pattern: str, kept: str, matches: str) -> None:
    import re

    result = _one({"p": {"type": "string", "pattern": pattern}})
    assert result.issues == ()
    field = result.grammar.tool("t").field("p")
    assert field.constraints.pattern == kept
    assert re.fullmatch(kept, matches) and re.search(pattern, matches)
    assert parse(format_grammar(result.grammar)) == result.grammar


@pytest.mark.parametrize(
    ("data", "source", "hint"),
    [
        ([{"type": "function", "function": {"name": "f", "parameters": {}}}], "anthropic", "use --from openai"),
        ([{"name": "f", "input_schema": {}}], "openai", "use --from anthropic"),
        ([{"name": "f", "inputSchema": {}}], "anthropic", "use --from mcp"),
        ([{"id": "simple_0", "question": [], "function": [{"name": "f"}]}], "openai", "use --from bfcl"),
        ([{"id": "simple_0", "ground_truth": [{"f": {"x": [1]}}]}], "bfcl", "a BFCL possible_answer entry"),
    ],
)
def test_a_file_in_another_format_gets_a_hint(data: Any, source: str, hint: str) -> None:
    result = import_tools(data, source)
    assert result.errors and hint in result.errors[0].message, result.issues


@pytest.mark.parametrize(
    ("data", "source", "path", "fragment"),
    [
        ({"tools": 5}, "mcp", "$.tools", "'tools' must be a list"),
        ({"tools": "abc"}, "openai", "$.tools", "'tools' must be a list"),
        ({"result": {"tools": "abc"}}, "mcp", "$.result.tools", "'tools' must be a list"),
        (None, "openai", "$", "a tool must be an object, got NoneType"),
    ],
)
def test_a_tools_list_that_is_not_a_list_is_an_error_at_its_path(data: Any, source: str, path: str,
                                                                 fragment: str) -> None:
    result = import_tools(data, source)
    assert [(i.path, i.severity) for i in result.issues] == [(path, "error")], result.issues
    assert fragment in result.issues[0].message


def test_export_wants_a_grammar() -> None:
    from ek.interop import export_tools

    with pytest.raises(TypeError, match="export_tools needs a GraphGrammar .* got str"):
        export_tools("travel.ek", "openai")  # type: ignore[arg-type]


@pytest.mark.parametrize("entry", [["x"], {"x": 1}, 3])
def test_a_required_entry_that_is_no_name_is_reported_where_and_ignored(entry: Any) -> None:
    result = _one({"x": {"type": "string"}}, [entry, "x"])
    assert [(i.path, i.message) for i in result.issues] == [(
        "$[0].input_schema.required[0]",
        f"a required entry must be a property's name (a string), got {type(entry).__name__}; ignored")]
    assert "x: str\n" in format_grammar(result.grammar)  # the name after it is still required
