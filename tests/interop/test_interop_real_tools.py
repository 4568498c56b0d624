"""Real tool sets (OpenAI, Anthropic, MCP) import keeping their meaning, and export -> import -> export is stable.

The files in tests/data/interop are written as the vendors' guides and
reference servers write them; the only losses each import may report are
listed here, so any new loss fails the test.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import attrs
import pytest

from ek.grammar import EnumType, GraphGrammar, NamedType, ObjectType, PrimitiveType, format_grammar, parse
from ek.grammar.model import NO_CONSTRAINTS
from ek.interop import TARGETS, export_tools, import_tools
from ek.interop.formats import FORMAT_PATTERNS

DATA = Path(__file__).resolve().parents[1] / "data" / "interop"

#: file -> (format, the JSON paths of every issue the first import reports)
SETS = {
    "openai_tools.json": ("openai", [
        "$[0].function.strict", "$[1].function.strict", "$[2].function.strict",
        "$[2].function.parameters.properties.attendees.items",  # a list item's format becomes a named type
        "$[3].function.parameters.properties.include.uniqueItems",
    ]),
    "anthropic_tools.json": ("anthropic", []),
    "mcp_tools.json": ("mcp", ["$.result.tools[0].annotations"]),
}

#: every way to write a grammar out: each target, and OpenAI's strict mode
WRITERS = [(t, False) for t in TARGETS] + [("openai", True)]


def _read(name: str) -> tuple[str, Any]:
    source, _ = SETS[name]
    return source, json.loads((DATA / name).read_text(encoding="utf-8"))


def _sorted(g: GraphGrammar) -> GraphGrammar:
    return attrs.evolve(g, types=tuple(sorted(g.types, key=lambda t: t.name)))


@pytest.mark.parametrize("name", sorted(SETS))
def test_real_tool_sets_import_reporting_only_the_known_losses(name: str) -> None:
    source, data = _read(name)
    result = import_tools(data, source, name="real", version=1)
    assert [i.path for i in result.issues] == SETS[name][1], result.issues
    assert parse(format_grammar(result.grammar)) == result.grammar


@pytest.mark.parametrize("name", sorted(SETS))
@pytest.mark.parametrize(("target", "strict"), WRITERS, ids=[t + ("-strict" if s else "") for t, s in WRITERS])
def test_export_import_export_is_byte_identical(name: str, target: str, strict: bool) -> None:
    source, data = _read(name)
    grammar = import_tools(data, source, name="real", version=1).grammar
    first, issues = export_tools(grammar, target, openai_strict=strict)
    assert issues == ()
    text = json.dumps(first, indent=2, ensure_ascii=False)
    again = import_tools(json.loads(text), target, name="real", version=1)
    expected = [i for i in again.issues if not i.path.endswith(".function.strict")]
    assert expected == [] and again.grammar == _sorted(grammar)
    second, _ = export_tools(again.grammar, target, openai_strict=strict)
    assert json.dumps(second, indent=2, ensure_ascii=False) == text


def test_what_the_real_sets_mean_after_import() -> None:
    openai = import_tools(_read("openai_tools.json")[1], "openai").grammar
    weather = openai.tool("get_weather")
    assert weather.field("location").required and not weather.field("units").required  # strict: null = optional
    options = openai.tool("search_knowledge_base").field("options").type
    assert [f.required for f in options.fields] == [True, False, False]
    event = openai.tool("create_calendar_event")
    assert event.field("duration_minutes").type == EnumType((15, 30, 45, 60, 90))
    assert event.field("reminder").type == NamedType("reminder") and not event.field("reminder").required
    assert event.field("visibility").type == EnumType(("default", "public", "private"))
    assert openai.type_alias("attendees_item").constraints.pattern == FORMAT_PATTERNS["email"]
    assert openai.tool("lookup_order").field("order_id").constraints.pattern == FORMAT_PATTERNS["uuid"]

    invoice = import_tools(_read("anthropic_tools.json")[1], "anthropic").grammar.tool("send_invoice")
    assert invoice.field("currency").type == EnumType(("USD", "EUR", "GBP"))
    assert invoice.field("due_date").type == PrimitiveType("date")
    assert invoice.field("net_days").type == EnumType((0, 15, 30, 60)) and invoice.field("net_days").default == 30
    assert invoice.field("amount_cents").constraints.min == 1

    mcp = import_tools(_read("mcp_tools.json")[1], "mcp").grammar
    issue = mcp.tool("create_issue")
    assert [f.name for f in issue.fields if f.required] == ["owner", "repo", "title"]
    assert issue.field("priority").type == NamedType("Priority") and issue.field("body").default is None
    assert mcp.type_alias("Priority").type == EnumType((1, 2, 3, 4))
    url = mcp.tool("fetch").field("url").constraints
    assert (url.min, url.pattern) == (1, FORMAT_PATTERNS["uri"])


def _ek(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ek", *args], capture_output=True, text=True, check=False)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SETS))
def test_the_cli_round_trip_is_byte_identical(name: str, tmp_path: Path) -> None:
    source, _ = SETS[name]
    first_ek, again_ek = tmp_path / "first.ek", tmp_path / "again.ek"
    first_json, again_json = tmp_path / "first.json", tmp_path / "again.json"
    assert _ek("import", "--from", source, str(DATA / name), "--name", "real", "-o", str(first_ek)).returncode == 0
    extra = ["--openai-strict"] if source == "openai" else []
    assert _ek("export", "--to", source, *extra, str(first_ek), "-o", str(first_json), "--strict").returncode == 0
    done = _ek("import", "--from", source, str(first_json), "--name", "real", "-o", str(again_ek))
    assert done.returncode == 0
    assert _ek("export", "--to", source, *extra, str(again_ek), "-o", str(again_json)).returncode == 0
    assert again_json.read_bytes() == first_json.read_bytes()
    assert again_ek.read_text(encoding="utf-8") == first_ek.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", sorted(SETS))
def test_exported_schemas_are_valid_json_schema_and_strict_accepts_null_for_optional(name: str) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    from ek.runtime import compile_grammar

    source, data = _read(name)
    grammar = import_tools(data, source).grammar
    validate = compile_grammar(grammar).validate
    plain, _ = export_tools(grammar, "openai")
    strict, _ = export_tools(grammar, "openai", openai_strict=True)
    for tool, loose, tight in zip(grammar.tools, plain, strict):
        for schema in (loose["function"]["parameters"], tight["function"]["parameters"]):
            jsonschema.Draft202012Validator.check_schema(schema)
        call = _example(ObjectType(tool.fields), NO_CONSTRAINTS, grammar, nulls=False)
        assert call is not _NO_EXAMPLE, tool.name  # every tool of the real sets is checked
        assert validate(tool.name, call) == []
        jsonschema.validate(call, loose["function"]["parameters"])
        nulls = _example(ObjectType(tool.fields), NO_CONSTRAINTS, grammar, nulls=True)
        assert validate(tool.name, nulls) == []  # ek reads null for an optional argument as omitted
        jsonschema.validate(nulls, tight["function"]["parameters"])  # and strict mode says exactly that


_NO_EXAMPLE = object()


def _example(node: Any, constraints: Any, grammar: GraphGrammar, nulls: bool) -> Any:
    """The smallest value of a type (optional fields left out, or null with ``nulls``), or _NO_EXAMPLE
    when this helper cannot make one (a custom regex)."""
    node, constraints = grammar.resolve(node, constraints)
    if isinstance(node, EnumType):
        return node.members[0]
    if isinstance(node, PrimitiveType):
        if constraints.pattern is not None:
            return {FORMAT_PATTERNS["email"]: "a@b.co", FORMAT_PATTERNS["uri"]: "https://x.org",
                    FORMAT_PATTERNS["uuid"]: "123e4567-e89b-12d3-a456-426614174000"}.get(constraints.pattern, _NO_EXAMPLE)
        low = constraints.min if constraints.min is not None else 0
        return {"str": "x" * max(low, 1), "int": low, "float": float(low), "bool": True, "date": "2025-01-31",
                "datetime": "2025-01-31T10:00:00", "any": 1}[node.name]
    if hasattr(node, "item"):
        return []
    fields = {f.name: _example(f.type, f.constraints, grammar, nulls) if f.required else None
              for f in node.fields if f.required or nulls}
    return _NO_EXAMPLE if any(v is _NO_EXAMPLE for v in fields.values()) else fields
