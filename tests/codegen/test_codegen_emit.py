"""The emitter: reproducible, parseable source; GRAMMAR equal to the model; typed classes; tables."""

from __future__ import annotations

import ast
import os
import types
from pathlib import Path

import attrs
import pytest
from handbuilt import import_source, travel_v2

import ek.grammar
from ek.codegen import (
    GENERATOR_VERSION,
    generate,
    generate_index,
    grammar_sha256,
    module_filename,
    write_modules,
)
from ek.grammar.model import (
    FieldSpec,
    GraphGrammar,
    ListType,
    NamedType,
    ObjectType,
    PrimitiveType,
    ToolSpec,
    TypeAlias,
)
from ek.runtime import ArgumentsError, Violation

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"


def test_codegen_generate_is_byte_identical_and_parses(travel_model: GraphGrammar) -> None:
    first, second = generate(travel_model), generate(travel_v2())
    assert first == second
    ast.parse(first)
    assert "\r" not in first and first.endswith("\n")


@pytest.mark.parametrize("schema", ["travel-v1.ek", "travel-v2.ek"])
def test_codegen_real_schema_round_trips_through_grammar(schema: str, tmp_path: Path) -> None:
    grammar = ek.grammar.load(SCHEMAS / schema)
    (path,) = write_modules([grammar], tmp_path)
    assert path.name == module_filename(grammar) == f"travel_v{grammar.version}.py"
    module = import_source(path.read_text(encoding="utf-8"), tmp_path, path.stem)
    assert module.GRAMMAR == grammar
    assert module.GRAMMAR_SHA256 == grammar_sha256(grammar) and not hasattr(module, "SOURCE_SHA256")
    assert (module.GRAMMAR_NAME, module.GRAMMAR_VERSION, module.GENERATOR_VERSION) == ("travel", grammar.version, GENERATOR_VERSION)
    assert module.SCHEMA_FILE == schema
    assert (tmp_path / module.SCHEMA_PATH).resolve() == (SCHEMAS / schema).resolve()
    assert generate(ek.grammar.load(SCHEMAS / schema), tmp_path) == path.read_text(encoding="utf-8")
    assert "SCHEMA_PATH = None" in generate(grammar)  # no folder given: nothing to be relative to


def test_codegen_hand_model_equals_parsed_schema(travel_model: GraphGrammar) -> None:
    assert ek.grammar.load(SCHEMAS / "travel-v2.ek") == travel_model


def test_codegen_cost_tables(travel_module: types.ModuleType) -> None:
    assert travel_module.TOOL_WEIGHTS["book_flight"] == 3
    assert travel_module.TOOL_WEIGHTS["cancel_booking"] == 10
    assert travel_module.ARG_IMPORTANCE["search_flights"]["origin"] == 2
    assert travel_module.ARG_IMPORTANCE["cancel_booking"] == {"booking_id": 5, "reason": 1}
    assert travel_module.COMPARE_POLICIES["math.hypot"] == {"x": None, "y": "tol(0.001)", "from": None}
    assert travel_module.COMPARE_POLICIES["book_flight"]["passenger_names"] == "unordered"
    assert list(travel_module.TOOL_WEIGHTS) == [t.name for t in travel_module.GRAMMAR.tools]


def test_codegen_classes_build_validate_and_round_trip(travel_module: types.ModuleType) -> None:
    m = travel_module
    call = m.SearchFlights.from_args({"origin": "JFK", "destination": "LAX", "date": "2025-03-14"})
    assert (call.passengers, call.cabin, call.flexible) == (1, "economy", None)
    assert call.to_args() == {"origin": "JFK", "destination": "LAX", "date": "2025-03-14", "passengers": 1, "cabin": "economy"}
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        call.origin = "SFO"  # type: ignore[misc]
    with pytest.raises(ArgumentsError) as info:
        m.SearchFlights.from_args({"origin": "jfk", "date": "2025-03-14", "x": 1})
    assert isinstance(info.value, ValueError)
    assert info.value.tool == "search_flights"
    assert info.value.violations == [
        Violation("$.origin", "must fully match /[A-Z]{3}/, got 'jfk'"),
        Violation("$.destination", "missing required argument"),
        Violation("$.x", "unknown argument"),
    ]
    assert "$.destination: missing required argument" in str(info.value)
    event = m.CreateEvent.from_args(
        {"title": "t", "attendees": ["a"], "start": "2025-03-14T09:30", "duration_minutes": 5, "metadata": {"priority": 2}}
    )
    assert event.attendees == ("a",) and event.metadata == m.CreateEventMetadata(priority=2)
    assert event.to_args()["metadata"] == {"priority": 2}
    hypot = m.MathHypot.from_args({"x": 3, "y": 4, "from": "here"})
    assert hypot.from_ == "here" and hypot.to_args() == {"x": 3, "y": 4, "from": "here"}
    assert m.TOOLS["math.hypot"] is m.MathHypot and m.MathHypot.TOOL_NAME == "math.hypot"
    assert m.CancelBooking.__doc__ == "Cancel a booking.\nThis cannot be undone."


def test_codegen_aliased_objects_get_one_class_and_list_items_are_built(tmp_path: Path) -> None:
    point = TypeAlias("Point", ObjectType((FieldSpec("x", PrimitiveType("int")), FieldSpec("y", PrimitiveType("int")))))
    grammar = GraphGrammar(
        "shapes",
        1,
        tools=(
            ToolSpec("polygon", (FieldSpec("points", ListType(NamedType("Point"))), FieldSpec("origin", NamedType("Point"), required=False))),
            ToolSpec("dot", (FieldSpec("at", NamedType("Point")),)),
        ),
        types=(point,),
    )
    m = import_source(generate(grammar), tmp_path, "shapes_v1")
    poly = m.Polygon.from_args({"points": [{"x": 1, "y": 2}, {"x": 3, "y": 4}]})
    assert poly.points == (m.Point(x=1, y=2), m.Point(x=3, y=4)) and poly.origin is None
    assert poly.to_args() == {"points": [{"x": 1, "y": 2}, {"x": 3, "y": 4}]}
    assert m.Dot.from_args({"at": {"x": 0, "y": 0}}).at == m.Point(x=0, y=0)
    assert m.validate("polygon", {"points": [{"x": 1}, {"x": 1, "y": "2", "z": 0}]}) == [
        Violation("$.points[0].y", "missing required argument"),
        Violation("$.points[1].y", "expected int, got str"),
        Violation("$.points[1].z", "unknown argument"),
    ]
    assert m.GRAMMAR == grammar


def test_codegen_list_defaults_are_fresh_and_immutable(tmp_path: Path) -> None:
    grammar = GraphGrammar(
        "d", 1, tools=(ToolSpec("t", (FieldSpec("tags", ListType(PrimitiveType("str")), required=False, default=["a", "b"]),)),)
    )
    m = import_source(generate(grammar), tmp_path, "d_v1")
    assert m.T.from_args({}).tags == ("a", "b") == m.T().tags
    assert m.T.from_args({}).to_args() == {"tags": ["a", "b"]}
    assert m.GRAMMAR.tools[0].fields[0].default == ["a", "b"]


def test_codegen_write_modules_is_atomic_and_reproducible(tmp_path: Path, travel_model: GraphGrammar) -> None:
    (path,) = write_modules([travel_model], tmp_path)
    first = path.read_bytes()
    before = os.stat(path).st_ino
    write_modules([travel_model], tmp_path)
    assert path.read_bytes() == first
    assert os.stat(path).st_ino != before  # replaced via a temp file, not rewritten in place
    assert sorted(p.name for p in tmp_path.iterdir()) == ["travel_v2.py"]  # no temp files left behind


def test_codegen_index_lists_versions_sorted(tmp_path: Path, travel_model: GraphGrammar) -> None:
    v1 = ek.grammar.load(SCHEMAS / "travel-v1.ek")
    text = generate_index([travel_model, v1])
    assert text == generate_index([v1, travel_model])
    namespace: dict[str, object] = {"__name__": "pkg"}
    exec(compile(text, "index", "exec"), namespace)  # noqa: S102 - generated index under test
    assert namespace["VERSIONS"] == {"travel@1": "travel_v1", "travel@2": "travel_v2"}
    assert list(namespace["VERSIONS"]) == ["travel@1", "travel@2"]  # type: ignore[call-overload]


def test_codegen_generated_class_names_never_shadow_module_names(tmp_path: Path) -> None:
    names = ["GRAMMAR", "validate", "key_error", "Violation", "any", "none", "a.b", "a_b", "TOOLS"]
    grammar = GraphGrammar("clash", 1, tools=tuple(ToolSpec(n, (FieldSpec("v", PrimitiveType("int")),)) for n in names))
    m = import_source(generate(grammar), tmp_path, "clash_v1")
    assert m.GRAMMAR == grammar and m.Violation is Violation
    assert isinstance(m.TOOLS, dict) and set(m.TOOLS) == set(names)
    assert len({c.__name__ for c in m.TOOLS.values()}) == len(names)
    for n in names:
        assert m.validate(n, {"v": 1}) == []
        assert m.validate(n, {}) == [Violation("$.v", "missing required argument")]  # KeyError not shadowed
        assert m.TOOLS[n].from_args({"v": 2}).to_args() == {"v": 2}


def test_codegen_recursive_types_are_refused_not_a_recursion_error() -> None:
    from ek.codegen import GenerationError

    node = TypeAlias("Node", ObjectType((FieldSpec("children", ListType(NamedType("Node"))),)))
    grammar = GraphGrammar("tree", 1, tools=(ToolSpec("walk", (FieldSpec("root", NamedType("Node")),)),), types=(node,))
    with pytest.raises(GenerationError, match="recursive type"):
        generate(grammar)


@pytest.mark.parametrize("depth, ok", [(9, True), (10, False)])
def test_codegen_deep_lists_compile_or_are_refused_clearly(depth: int, ok: bool) -> None:
    from ek.codegen import GenerationError
    from ek.runtime import compile_grammar

    node: object = PrimitiveType("int")
    for _ in range(depth):
        node = ListType(ObjectType((FieldSpec("x", node),)))  # type: ignore[arg-type]
    grammar = GraphGrammar("deep", depth, tools=(ToolSpec("t", (FieldSpec("a", node),)),))  # type: ignore[arg-type]
    if not ok:
        with pytest.raises(GenerationError, match=r"lists nest more than 9 deep at \$\.a\[\*\]\.x"):
            generate(grammar)
        return
    module = compile_grammar(grammar)
    value: object = 1
    for _ in range(depth):
        value = [{"x": value}]
    assert module.validate("t", {"a": value}) == []
    bad: list[dict[str, object]] = [{"x": "no"}]
    for _ in range(depth - 1):
        bad = [{"x": bad}]
    assert [v.path for v in module.validate("t", {"a": bad})] == ["$.a" + "[0].x" * depth]


def _edited(tmp_path: Path, name: str, edit) -> GraphGrammar:
    """schemas/travel-v2.ek after ``edit(text)``, saved as ``tmp_path/name/travel-v2.ek`` and loaded."""
    folder = tmp_path / name
    folder.mkdir()
    path = folder / "travel-v2.ek"
    path.write_text(edit((SCHEMAS / "travel-v2.ek").read_text(encoding="utf-8")), encoding="utf-8")
    return ek.grammar.load(path)


def test_codegen_comment_and_layout_edits_leave_the_module_byte_identical(tmp_path: Path) -> None:
    """Comments, blank lines and indentation are not the grammar: the module (and what it records) stays."""
    original = _edited(tmp_path, "a", lambda t: t)
    commented = _edited(
        tmp_path,
        "b",
        lambda t: "# a new first line shifts every tool down\n\n"
        + t.replace("tool get_weather {", "# the weather tool\ntool get_weather {   # trailing\n").replace("    location: str", "      location: str"),
    )
    assert commented.source_sha256 != original.source_sha256  # the file's bytes did change
    assert grammar_sha256(commented) == grammar_sha256(original)
    assert generate(commented, tmp_path / "b" / "gen") == generate(original, tmp_path / "a" / "gen")


def test_codegen_doc_and_meaning_edits_change_what_the_module_records(tmp_path: Path) -> None:
    """A doc becomes a docstring, a weight a table entry: either one changes the module and its GRAMMAR_SHA256."""
    original = _edited(tmp_path, "a", lambda t: t)
    for n, edit in enumerate(
        [
            lambda t: t.replace('"Search one-way flights between two airports."', '"Search one-way flights."'),
            lambda t: t.replace("tool get_weather {", "tool get_weather weight 2 {"),
            lambda t: t.replace("passengers: int [1..9] = 1", "passengers: int [1..8] = 1"),
        ]
    ):
        changed = _edited(tmp_path, f"e{n}", edit)
        assert grammar_sha256(changed) != grammar_sha256(original)
        assert generate(changed, tmp_path / f"e{n}" / "gen") != generate(original, tmp_path / "a" / "gen")


def test_codegen_schema_path_is_relative_to_the_output_folder(tmp_path: Path) -> None:
    grammar = ek.grammar.load(SCHEMAS / "travel-v2.ek")
    inside = generate(grammar, SCHEMAS)
    assert "SCHEMA_PATH = 'travel-v2.ek'" in inside
    deep = tmp_path / "a" / "b"
    assert f"SCHEMA_PATH = {os.path.relpath(SCHEMAS / 'travel-v2.ek', deep)!r}" in generate(grammar, deep)
    assert str(tmp_path) not in generate(grammar, deep)  # never an absolute path


@pytest.mark.parametrize("default, as_json", [
    (["a", {"b": [1, 2.5, None, True]}], True),
    (("a", "b"), False),  # JSON would give a list back
    ({1: "x"}, False),  # and a str key
])
def test_codegen_tables_are_json_text_when_json_holds_the_defaults_exactly(default: object, as_json: bool,
                                                                         tmp_path: Path) -> None:
    grammar = GraphGrammar("d", 1, tools=(ToolSpec("t", (FieldSpec("v", PrimitiveType("any"), required=False,
                                                                    default=default),)),))
    source = generate(grammar)
    assert ("_GRAMMAR_TABLE = (\n    '{" in source) is as_json and ("_CLASSES = (\n    '{'" in source) is as_json
    m = import_source(source, tmp_path, "d_v1")
    assert m.GRAMMAR == grammar and m.T().v == default
    assert m.T().v is not m.T().v or isinstance(default, tuple)  # a fresh copy of a mutable default
    assert type(m.GRAMMAR.tools[0].fields[0].default) is type(default)
