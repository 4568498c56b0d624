"""String formats: ``date``/``date-time`` are types, ``email``/``uuid``/``uri`` a regex that exports as the format."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from ek.grammar import PrimitiveType, parse
from ek.grammar.regexes import pattern_problem
from ek.interop import export_tools, import_tools
from ek.interop.formats import FORMAT_PATTERNS, format_of
from ek.runtime import compile_grammar


def _import(props: dict[str, Any]) -> Any:
    schema = {"type": "object", "properties": props, "required": sorted(props), "additionalProperties": False}
    return import_tools({"tools": [{"name": "t", "inputSchema": schema}]}, "mcp")


@pytest.mark.parametrize("fmt", sorted(FORMAT_PATTERNS))
def test_format_regexes_compile_and_cannot_backtrack(fmt: str) -> None:
    pattern = FORMAT_PATTERNS[fmt]
    re.compile(pattern)
    assert pattern_problem(pattern) is None
    assert format_of(pattern) == fmt
    assert parse(f"grammar g 1\ntype T = str /{pattern}/\n").type_alias("T").constraints.pattern == pattern


@pytest.mark.parametrize(
    ("fmt", "good", "bad"),
    [
        ("email", ["a@b.co", "first.last+tag@sub.example.org", "user@localhost"],
         ["", "a", "a@", "@b", "a b@c.d", "a@b@c"]),
        ("uuid", ["123e4567-e89b-12d3-a456-426614174000", "123E4567-E89B-12D3-A456-426614174000"],
         ["123e4567e89b12d3a456426614174000", "123e4567-e89b-12d3-a456-42661417400", "g23e4567-e89b-12d3-a456-4266"]),
        ("uri", ["https://example.com/a?b=c#d", "mailto:a@b.c", "urn:isbn:0451450523", "file:///tmp/x"],
         ["example.com", "/relative/path", "1http://x", "http://a b", ""]),
    ],
)
def test_format_regexes_accept_what_the_format_allows(fmt: str, good: list[str], bad: list[str]) -> None:
    pattern = FORMAT_PATTERNS[fmt]
    assert [v for v in good if not re.fullmatch(pattern, v)] == []
    assert [v for v in bad if re.fullmatch(pattern, v)] == []


@pytest.mark.parametrize("target", ["openai", "anthropic", "mcp", "jsonschema"])
def test_formats_import_exactly_and_export_as_the_format(target: str) -> None:
    props = {
        "day": {"type": "string", "format": "date"},
        "at": {"type": "string", "format": "date-time"},
        "mail": {"type": "string", "maxLength": 254, "format": "email"},
        "id": {"type": "string", "format": "uuid"},
        "link": {"type": "string", "format": "uri"},
    }
    result = _import(props)
    assert result.issues == ()
    tool = result.grammar.tool("t")
    assert tool.field("day").type == PrimitiveType("date") and tool.field("at").type == PrimitiveType("datetime")
    assert tool.field("mail").constraints.pattern == FORMAT_PATTERNS["email"]
    assert tool.field("mail").constraints.max == 254
    data, issues = export_tools(result.grammar, target)
    assert issues == ()
    text = json.dumps(data)
    for prop in props.values():
        assert json.dumps(prop)[1:-1] in text  # each property exported exactly as it was written
    assert "pattern" not in text
    again = import_tools(json.loads(text), target)
    assert again.issues == () and again.grammar.tools == result.grammar.tools
    assert export_tools(again.grammar, target)[0] == data


def test_a_format_beside_a_pattern_keeps_the_pattern_and_says_so() -> None:
    result = _import({"m": {"type": "string", "format": "email", "pattern": "^[a-z]+@corp\\.com$"}})
    assert result.grammar.tool("t").field("m").constraints.pattern == "[a-z]+@corp\\.com"
    (issue,) = result.issues
    assert issue.path == "$.tools[0].inputSchema.properties.m.format"
    assert "format 'email' beside a pattern" in issue.message and "pattern is kept" in issue.message


@pytest.mark.parametrize("fmt", ["hostname", "ipv4", "int32"])
def test_other_formats_are_reported_as_dropped(fmt: str) -> None:
    result = _import({"x": {"type": "string", "format": fmt}})
    assert result.grammar.tool("t").field("x").constraints.pattern is None
    (issue,) = result.issues
    assert issue.path == "$.tools[0].inputSchema.properties.x.format" and f"format {fmt!r}" in issue.message


def test_the_generated_validator_checks_an_imported_format() -> None:
    result = _import({"mail": {"type": "string", "format": "email"}, "id": {"type": "string", "format": "uuid"},
                      "link": {"type": "string", "format": "uri"}})
    validate = compile_grammar(result.grammar).validate
    good = {"mail": "a@b.co", "id": "123e4567-e89b-12d3-a456-426614174000", "link": "https://example.com"}
    assert validate("t", good) == []
    bad = validate("t", {"mail": "not an email", "id": "123", "link": "example.com"})
    assert [v.path for v in bad] == ["$.mail", "$.id", "$.link"], bad


def test_a_format_beside_an_enum_is_reported_not_dropped_silently() -> None:
    result = _import({"x": {"type": "string", "enum": ["a@b.co"], "format": "email"}})
    (issue,) = result.issues
    assert issue.path == "$.tools[0].inputSchema.properties.x.format" and "beside an enum" in issue.message


def test_a_format_that_is_not_text_is_reported_not_a_crash() -> None:
    tools = [{"name": "f", "parameters": {"type": "object", "properties": {
        "a": {"type": "string", "format": {"type": "string"}}}}}]
    result = import_tools(tools, "bfcl")
    assert result.grammar.tool("f").field("a").type == PrimitiveType("str")
    assert [(i.path, i.message) for i in result.issues] == [
        ("$[0].parameters.properties.a.format", "format {'type': 'string'} cannot be expressed; read as str")]


def test_a_pattern_holding_characters_a_terminal_acts_on_is_imported_with_their_escapes() -> None:
    """A JSON Schema pattern holding a raw ESC, BEL or bidi override is imported as the same regex with those
    characters as escapes (a .ek regex may not hold them raw: ek fmt and ek diff print regexes as they are)."""
    from ek.grammar import format_grammar

    result = _import({"m": {"type": "string", "pattern": "^a\x1b]0;x\x07b\u202ec$"}})
    pattern = result.grammar.tool("t").field("m").constraints.pattern
    assert pattern == "a\\x1b]0;x\\x07b\\u202ec" and re.fullmatch(pattern, "a\x1b]0;x\x07b\u202ec")
    text = format_grammar(result.grammar)
    assert not any(c in text for c in "\x1b\x07\u202e")
    assert parse(text).tool("t").field("m").constraints.pattern == pattern
