"""ek.grammar.diff: each change class, and whether it breaks gold data written for the old version."""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest
from ek_grammar_strategies import grammars
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ek.grammar import diff, format_grammar, load, parse

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"


def g(body: str, version: int = 1, types: str = "") -> object:
    return parse(f"grammar t {version}\n{types}tool f weight 1 {{\n{body}}}\ntool keep {{\n}}\n")


def kinds(old_body: str, new_body: str, old_types: str = "", new_types: str = "") -> list[tuple[str, str, bool]]:
    report = diff(g(old_body, 1, old_types), g(new_body, 2, new_types))
    return [(c.kind, c.path, c.breaking) for c in report.changes]


CASES = [
    ("argument removed", "    x: int\n", "", [("argument-removed", "f.x", True)]),
    ("required argument added", "", "    x: int\n", [("argument-added", "f.x", True)]),
    ("optional argument added", "", "    x: int?\n", [("argument-added", "f.x", False)]),
    ("made required", "    x: int?\n", "    x: int\n", [("argument-required", "f.x", True)]),
    ("made optional", "    x: int\n", "    x: int?\n", [("argument-optional", "f.x", False)]),
    ("narrowed", "    x: float\n", "    x: int\n", [("type-narrowed", "f.x", True)]),
    ("widened", "    x: int\n", "    x: float\n", [("type-widened", "f.x", False)]),
    ("to any", "    x: int\n", "    x: any\n", [("type-widened", "f.x", False)]),
    ("changed", "    x: int\n", "    x: bool\n", [("type-changed", "f.x", True)]),
    ("enum to str", "    x: enum(a, b)\n", "    x: str\n", [("type-widened", "f.x", False)]),
    ("member removed", "    x: enum(a, b)\n", "    x: enum(a)\n", [("enum-member-removed", "f.x", True)]),
    ("member added", "    x: enum(a)\n", "    x: enum(a, b)\n", [("enum-member-added", "f.x", False)]),
    ("range tightened", "    x: int [1..9]\n", "    x: int [1..5]\n", [("range-tightened", "f.x", True)]),
    ("range widened", "    x: int [1..9]\n", "    x: int [0..]\n", [("range-widened", "f.x", False)]),
    ("length tightened", "    x: str\n", "    x: str [..10]\n", [("length-range-tightened", "f.x", True)]),
    ("pattern added", "    x: str\n", "    x: str /[a-z]+/\n", [("pattern-added", "f.x", True)]),
    ("pattern removed", "    x: str /[a-z]+/\n", "    x: str\n", [("pattern-removed", "f.x", False)]),
    ("importance", "    x: int\n", "    x: int importance 3\n", [("importance-changed", "f.x", False)]),
    ("compare", "    x: str\n", "    x: str compare exact\n", [("compare-changed", "f.x", False)]),
    ("default changed", "    x: int = 1\n", "    x: int = 2\n", [("default-changed", "f.x", True)]),
    ("default added", "    x: int?\n", "    x: int = 2\n", [("default-added", "f.x", False)]),
    ("doc", '    x: int "old"\n', '    x: int "new"\n', [("doc-changed", "f.x", False)]),
    ("nested object field removed", "    o: {\n        a: int\n        b: int\n    }\n", "    o: {\n        a: int\n    }\n",
     [("argument-removed", "f.o.b", True)]),
    ("list item narrowed", "    x: list[float]\n", "    x: list[int]\n", [("type-narrowed", "f.x[]", True)]),
    ("no change", "    x: int\n", "    x: int\n", []),
]


@pytest.mark.parametrize(("old", "new", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_change_classes(old, new, expected):
    assert kinds(old, new) == expected


def test_alias_rename_is_no_change_but_alias_tightening_breaks():
    assert [k for k in kinds("    x: A\n", "    x: B\n", "type A = str\n", "type B = str\n") if k[0].startswith("pattern")] == []
    tightened = kinds("    x: A\n", "    x: A\n", "type A = str\n", "type A = str /[A-Z]+/\n")
    assert tightened == [("pattern-added", "f.x", True)]


@pytest.mark.parametrize(
    ("old_types", "new_types", "arg", "expected"),
    [
        ("", "type C = str /[A-Z]{3}/\n", "list[C]", ("pattern-added", "f.x[]", True)),
        ("type N = int [1..10]\n", "type N = int [1..5]\n", "list[N]", ("range-tightened", "f.x[]", True)),
        ("type N = int [1..10]\n", "type N = int [2..10]\n", "list[list[N]]", ("range-tightened", "f.x[][]", True)),
        ("type E = str\n", "type E = str [1..]\n", "list[E]", ("length-range-tightened", "f.x[]", True)),
        ("type N = int [1..5]\n", "type N = int [0..]\n", "list[N]", ("range-widened", "f.x[]", False)),
    ],
)
def test_constraints_of_list_items_are_compared(old_types, new_types, arg, expected):
    """A list item's type may carry constraints through a declared type: tightening them breaks gold lists."""
    old_arg = arg.replace("C", "str") if "C" not in old_types else arg
    assert expected in kinds(f"    x: {old_arg}\n", f"    x: {arg}\n", old_types, new_types)


def test_defaults_of_different_json_types_differ():
    """1 == True in Python, but a default of true is not a default of 1 (nor [1] of [true])."""
    assert ("default-changed", "f.x", True) in kinds("    x: any = [1]\n", "    x: any = [true]\n")
    assert ("default-changed", "f.x", True) in kinds("    x: any = {a: 0}\n", "    x: any = {a: false}\n")
    assert kinds("    x: float = 1\n", "    x: float = 1.0\n") == []


def test_a_range_moved_both_ways_is_a_breaking_change_not_a_tightening():
    assert kinds("    x: int [1..9]\n", "    x: int [2..20]\n") == [("range-changed", "f.x", True)]


def test_tools_added_removed_reweighted():
    old = parse("grammar t 1\ntool a {\n}\ntool b weight 2 {\n}\n")
    new = parse("grammar t 2\ntool b weight 5 {\n}\ntool c {\n}\n")
    report = diff(old, new)
    assert [(c.kind, c.path, c.breaking) for c in report.changes] == [
        ("tool-removed", "a", True),
        ("tool-reweighted", "b", False),
        ("tool-added", "c", False),
    ]
    assert report.is_breaking and len(report.breaking) == 1
    assert report.to_json()["changes"][1] == {
        "kind": "tool-reweighted", "path": "b", "message": "weight 2 -> 5", "breaking": False, "old": "2", "new": "5",
    }


def test_travel_v1_to_v2():
    report = diff(load(SCHEMAS / "travel-v1.ek"), load(SCHEMAS / "travel-v2.ek"))
    assert (report.old, report.new) == ("travel@1", "travel@2")
    assert {(c.kind, c.path) for c in report.breaking} == {
        ("pattern-added", "search_flights.origin"),
        ("pattern-added", "search_flights.destination"),
    }
    added = {c.path for c in report.changes if c.kind == "tool-added"}
    assert added == {"cancel_booking", "create_event", "math.hypot"}
    text = report.render()
    assert text.startswith("travel@1 -> travel@2: 2 breaking, ")
    assert "  ! search_flights.origin: pattern /[A-Z]{3}/ added" in text


PROPERTY = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.slow
@PROPERTY
@given(grammars())
def test_a_grammar_has_no_changes_against_itself_or_its_printed_form(g):
    assert diff(g, g).changes == ()
    assert diff(g, parse(format_grammar(g))).changes == ()


@pytest.mark.slow
@PROPERTY
@given(grammars(), st.data())
def test_removing_a_tool_or_argument_always_breaks(g, data):
    index = data.draw(st.integers(0, len(g.tools) - 1))
    tool = g.tools[index]
    without_tool = attrs.evolve(g, tools=g.tools[:index] + g.tools[index + 1 :])
    report = diff(g, without_tool)
    assert report.is_breaking and [(c.kind, c.path) for c in report.breaking] == [("tool-removed", tool.name)]
    # the reverse direction only adds a tool
    assert not diff(without_tool, g).is_breaking
    if tool.fields:
        smaller = attrs.evolve(tool, fields=tool.fields[1:])
        tools = g.tools[:index] + (smaller,) + g.tools[index + 1 :]
        report = diff(g, attrs.evolve(g, tools=tools))
        assert ("argument-removed", f"{tool.name}.{tool.fields[0].name}") in [(c.kind, c.path) for c in report.breaking]


def test_the_report_shows_enum_members_escaped_and_tells_numbers_from_text() -> None:
    """Members are data and may hold an ESC sequence (set the terminal's title, clear the screen) or a bidi
    override; the report goes to a terminal, so it shows them as a schema writes them."""
    old = parse('grammar g 1\ntool f {\n    x: enum("\\u001b]0;owned\\u0007", 1, a)\n    y: enum("\\u202eb", c)\n}\n')
    new = parse('grammar g 2\ntool f {\n    x: enum("\\u001b[2J", "1", a)\n    y: str\n}\n')
    text = diff(old, new).render()
    assert not any(ch in text for ch in "\x1b\x07\u202e"), text
    assert 'f.x: enum member "\\u001b]0;owned\\u0007" removed' in text
    assert 'f.x: enum member "\\u001b[2J" added' in text
    assert "f.x: enum member 1 removed" in text and 'f.x: enum member "1" added' in text
    assert 'f.y: type widened from enum("\\u202eb", c) to str' in text


def test_defaults_are_shown_as_a_schema_writes_them() -> None:
    """The report (and `ek diff --json`'s old/new) showed defaults by Python's repr: `True`, `None`, `'x'`,
    `{'k': [1]}`, none of which a schema can hold. They are shown as the DSL writes them now, as patterns are."""
    report = diff(g('    x: bool = true\n    y: str = "a"\n    z: any = {k: [1, null]}\n    w: enum(a, b) = a\n'),
                  g('    x: bool = false\n    y: str = "b"\n    z: any\n    w: enum(a, b) = b\n', 2))
    shown = {(c.path, c.kind): (c.old, c.new) for c in report.changes if c.kind.startswith("default")}
    assert shown == {("f.x", "default-changed"): ("true", "false"), ("f.y", "default-changed"): ('"a"', '"b"'),
                     ("f.z", "default-removed"): ("{k: [1, null]}", None), ("f.w", "default-changed"): ("a", "b")}
    assert "f.x: default changed from true to false" in report.render()
    assert "default {k: [1, null]} removed" in report.render()


@pytest.mark.parametrize("type_", ["str", "list[int]", "Name", "list[Name]"])
def test_a_length_range_from_0_bounds_nothing(type_: str) -> None:
    """No length is below 0, so `str` -> `str [0..]` (what an imported `minLength: 0` reads as) excludes
    nothing; it was reported as a tightened range, breaking, and `ek diff` exited 1 in CI."""
    types = "type Name = str\n"
    assert kinds(f"    x: {type_}\n", f"    x: {type_} [0..]\n", types, types) == []
    assert kinds(f"    x: {type_} [0..]\n", f"    x: {type_}\n", types, types) == []
    assert kinds(f"    x: {type_} [0..]\n", f"    x: {type_} [1..]\n", types, types)[0][2] is True
    assert kinds("    x: int\n", "    x: int [0..]\n") == [("range-tightened", "f.x", True)]  # a value can be < 0
