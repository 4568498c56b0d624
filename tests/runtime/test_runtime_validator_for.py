"""validator_for / grammar_of: the entry points the scorer uses, on every kind of input."""

from __future__ import annotations

from ek.codegen import grammar_sha256, write_modules
from ek.grammar.model import EnumType, FieldSpec, GraphGrammar, PrimitiveType, ToolSpec
from ek.runtime import (
    Violation,
    compile_grammar,
    grammar_of,
    load_module,
    validator_for,
)

WEATHER = GraphGrammar(
    "weather",
    1,
    tools=(
        ToolSpec(
            "get_weather",
            (
                FieldSpec("location", PrimitiveType("str")),
                FieldSpec("unit", EnumType(("celsius", "fahrenheit")), required=False),
            ),
        ),
    ),
    source_sha256="1" * 64,
)


def test_runtime_validator_for_grammar_reports_violations() -> None:
    check = validator_for(WEATHER)
    assert check("get_weather", {"location": "Paris"}) == []
    assert check("get_weather", {"location": "Paris", "unit": "kelvin"}) == [
        Violation("$.unit", "expected one of 'celsius', 'fahrenheit', got 'kelvin'")
    ]
    assert check("get_time", {}) == [Violation("$", "unknown tool 'get_time'")]


def test_runtime_validator_for_module_and_path_agree(tmp_path) -> None:
    (path,) = write_modules([WEATHER], tmp_path)
    module = load_module(path)
    calls = [
        ("get_weather", {"location": 3}),
        ("get_weather", {"unit": "celsius", "extra": 1}),
        ("get_weather", {"location": "Oslo"}),
    ]
    for obj in (WEATHER, module, path, str(path)):
        check = validator_for(obj)
        assert [check(name, args) for name, args in calls] == [
            [Violation("$.location", "expected str, got int")],
            [Violation("$.location", "missing required argument"), Violation("$.extra", "unknown argument")],
            [],
        ]


def test_runtime_grammar_of_accepts_grammar_module_and_path(tmp_path) -> None:
    (path,) = write_modules([WEATHER], tmp_path)
    assert grammar_of(WEATHER) is WEATHER
    assert grammar_of(load_module(path)) == WEATHER
    assert grammar_of(path) == WEATHER
    assert grammar_of(compile_grammar(WEATHER)) == WEATHER
    assert compile_grammar(WEATHER).GRAMMAR_SHA256 == grammar_sha256(WEATHER)  # the content, not the file hash


def test_runtime_compile_grammar_is_cached() -> None:
    assert compile_grammar(WEATHER) is compile_grammar(WEATHER)


def test_runtime_schema_path_gives_the_same_validator_as_its_generated_module(tmp_path) -> None:
    from pathlib import Path

    import ek.grammar

    schema = Path(__file__).resolve().parents[2] / "schemas" / "travel-v2.ek"
    (path,) = write_modules([ek.grammar.load(schema)], tmp_path)
    calls = [
        ("search_flights", {"origin": "JFK", "destination": "lax", "date": "2025-02-30", "passengers": 0}),
        ("math.hypot", {"x": 1, "y": True, "from": "a", "to": "b"}),
        ("create_event", {"title": "t", "attendees": ["a", 1], "start": "2025-01-01T10:00", "duration_minutes": 1}),
    ]
    from_schema, from_module = validator_for(schema), validator_for(path)
    for name, args in calls:
        assert from_schema(name, args) == from_module(name, args) != []
    assert grammar_of(str(schema)) == grammar_of(path) == ek.grammar.load(schema)


def test_runtime_equal_grammars_built_in_code_share_one_compiled_module() -> None:
    a = GraphGrammar("same", 1, tools=(ToolSpec("t", (FieldSpec("x", PrimitiveType("int")),)),))
    b = GraphGrammar("same", 1, tools=(ToolSpec("t", (FieldSpec("x", PrimitiveType("int")),)),))
    listy = GraphGrammar("listy", 1, tools=(ToolSpec("t", (FieldSpec("x", PrimitiveType("any"), required=False, default=[1]),)),))
    assert compile_grammar(a) is compile_grammar(b)
    assert compile_grammar(listy) is compile_grammar(listy)  # unhashable default: keyed by source hash
    assert validator_for(listy)("t", {"x": {"any": "thing"}}) == []
