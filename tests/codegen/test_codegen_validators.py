"""Generated validators, one rule at a time: exact paths and reasons on the travel@2 model."""

from __future__ import annotations

import types
from collections import OrderedDict

from ek.runtime import Violation

VALID_SEARCH = {"origin": "JFK", "destination": "LAX", "date": "2025-03-14"}
VALID_EVENT = {"title": "Review", "attendees": ["ana"], "start": "2025-03-14T09:30:00Z", "duration_minutes": 30}


def paths(violations: list[Violation]) -> list[str]:
    return [v.path for v in violations]


def test_codegen_valid_calls_have_no_violations(travel_module: types.ModuleType) -> None:
    v = travel_module.validate
    assert v("search_flights", VALID_SEARCH) == []
    assert v("search_flights", VALID_SEARCH | {"passengers": 9, "cabin": "first", "flexible": False}) == []
    assert v("book_flight", {"flight_id": "F1", "passenger_names": ["A", "B"], "seat": "12A"}) == []
    assert v("get_weather", {"location": "Oslo", "unit": None}) == []  # null is "not given" for optionals
    assert v("create_event", VALID_EVENT | {"tags": [], "metadata": {"priority": 5, "notes": "x"}}) == []
    assert v("math.hypot", {"x": 3, "y": 4.5, "from": "here"}) == []  # int accepted as float


def test_codegen_explicit_nulls_are_not_unknown_arguments(travel_module: types.ModuleType) -> None:
    """An optional argument given as null is known: only the real stranger is reported, at every level."""
    v = travel_module.validate
    assert v("get_weather", {"location": "Oslo", "unit": None, "zz": 1}) == [Violation("$.zz", "unknown argument")]
    event = VALID_EVENT | {"tags": None, "metadata": {"priority": 1, "notes": None, "zz": 2}}
    assert v("create_event", event) == [Violation("$.metadata.zz", "unknown argument")]
    assert v("create_event", VALID_EVENT | {"tags": None, "metadata": {"priority": 1, "notes": None}}) == []


def test_codegen_required_and_unknown_arguments(travel_module: types.ModuleType) -> None:
    got = travel_module.validate("search_flights", {"origin": "JFK", "dest": "LAX", "max-results": 3})
    assert got == [
        Violation("$.destination", "missing required argument"),
        Violation("$.date", "missing required argument"),
        Violation("$.dest", "unknown argument"),
        Violation('$["max-results"]', "unknown argument"),
    ]


def test_codegen_bool_is_never_int_and_int_is_a_float(travel_module: types.ModuleType) -> None:
    v = travel_module.validate
    assert v("search_flights", VALID_SEARCH | {"passengers": True}) == [
        Violation("$.passengers", "expected int, got bool")
    ]
    assert v("search_flights", VALID_SEARCH | {"passengers": 2.0}) == [
        Violation("$.passengers", "expected int, got float")
    ]
    assert v("math.hypot", {"x": False, "y": 1}) == [Violation("$.x", "expected float, got bool")]
    assert v("math.hypot", {"x": "3", "y": 1}) == [Violation("$.x", "expected float, got str")]
    assert v("search_flights", VALID_SEARCH | {"flexible": 1}) == [Violation("$.flexible", "expected bool, got int")]


def test_codegen_ranges_and_lengths(travel_module: types.ModuleType) -> None:
    v = travel_module.validate
    assert v("search_flights", VALID_SEARCH | {"passengers": 0}) == [
        Violation("$.passengers", "must be in [1..9], got 0")
    ]
    assert paths(v("search_flights", VALID_SEARCH | {"passengers": 10})) == ["$.passengers"]
    assert v("book_flight", {"flight_id": "F", "passenger_names": []}) == [
        Violation("$.passenger_names", "length must be in [1..9], got 0")
    ]
    assert paths(v("book_flight", {"flight_id": "F", "passenger_names": ["p"] * 10})) == ["$.passenger_names"]
    assert v("create_event", VALID_EVENT | {"duration_minutes": 0}) == [
        Violation("$.duration_minutes", "must be in [1..], got 0")
    ]


def test_codegen_pattern_is_a_full_match_without_newline_hole(travel_module: types.ModuleType) -> None:
    v = travel_module.validate
    for bad in ("JFK\n", "jfk", "JFKX", "JF", "ÀBC", "J1K", ""):
        assert v("search_flights", VALID_SEARCH | {"origin": bad}) == [
            Violation("$.origin", f"must fully match /[A-Z]{{3}}/, got {bad!r}")
        ], bad


def test_codegen_enums(travel_module: types.ModuleType) -> None:
    v = travel_module.validate
    assert v("get_weather", {"location": "x", "unit": "kelvin"}) == [
        Violation("$.unit", "expected one of 'celsius', 'fahrenheit', got 'kelvin'")
    ]
    assert paths(v("get_weather", {"location": "x", "unit": ["celsius"]})) == ["$.unit"]  # unhashable, no crash
    assert paths(v("get_weather", {"location": "x", "unit": "Celsius"})) == ["$.unit"]


def test_codegen_dates_and_datetimes(travel_module: types.ModuleType) -> None:
    v = travel_module.validate
    for ok in ("2024-02-29", "1999-12-31"):
        assert v("search_flights", VALID_SEARCH | {"date": ok}) == []
    for bad in ("2023-02-29", "20250314", "2025-3-14", "2025-03-14T10:00", "2025-W11-5", "２０２５-03-14", 20250314):
        assert paths(v("search_flights", VALID_SEARCH | {"date": bad})) == ["$.date"], bad
    for ok in ("2025-03-14T09:30", "2025-03-14 09:30:00.123+02:00", "2025-03-14t09:30:00Z"):
        assert v("create_event", VALID_EVENT | {"start": ok}) == [], ok
    for wrong in ("2025-03-14", "2025-03-14T25:00", "2025-03-14T09", "2025-03-14X09:30", "2025-03-14T0930", None):
        assert paths(v("create_event", VALID_EVENT | {"start": wrong})) == ["$.start"], wrong


def test_codegen_nested_objects_and_lists(travel_module: types.ModuleType) -> None:
    got = travel_module.validate(
        "create_event",
        VALID_EVENT | {"attendees": ["a", 2, "c", None], "tags": "x", "metadata": {"priority": 9, "extra": 1}},
    )
    assert got == [
        Violation("$.attendees[1]", "expected str, got int"),
        Violation("$.attendees[3]", "expected str, got NoneType"),
        Violation("$.tags", "expected list, got str"),
        Violation("$.metadata.priority", "must be in [1..5], got 9"),
        Violation("$.metadata.extra", "unknown argument"),
    ]
    assert travel_module.validate("create_event", VALID_EVENT | {"metadata": []}) == [
        Violation("$.metadata", "expected an object, got list")
    ]
    assert paths(travel_module.validate("create_event", VALID_EVENT | {"metadata": {}})) == ["$.metadata.priority"]
    assert travel_module.validate("create_event", VALID_EVENT | {"metadata": OrderedDict(priority=1)}) == []
    assert paths(travel_module.validate("create_event", VALID_EVENT | {"metadata": OrderedDict(p=1)})) == [
        "$.metadata.priority",
        "$.metadata.p",
    ]


def test_codegen_non_dict_arguments_and_unknown_tools(travel_module: types.ModuleType) -> None:
    v = travel_module.validate
    assert v("get_weather", OrderedDict(location="x")) == []  # any Mapping
    assert v("get_weather", ["x"]) == [Violation("$", "expected an object, got list")]
    assert v("get_weather", None) == [Violation("$", "expected an object, got NoneType")]
    assert v("os.system", {}) == [Violation("$", "unknown tool 'os.system'")]
    assert v("get_weather", {"location": "x", 3: 1}) == [Violation("$[3]", "unknown argument")]


def test_codegen_required_null_is_a_type_error(travel_module: types.ModuleType) -> None:
    assert travel_module.validate("get_weather", {"location": None}) == [
        Violation("$.location", "expected str, got NoneType")
    ]


def test_codegen_per_tool_validators_are_exposed(travel_module: types.ModuleType) -> None:
    assert travel_module.validate_math_hypot({"x": 1, "y": 2}) == []
    assert set(travel_module.VALIDATORS) == {t.name for t in travel_module.GRAMMAR.tools}


def test_codegen_integer_and_mixed_enums(tmp_path) -> None:
    from conftest import import_source

    from ek.codegen import generate
    from ek.grammar import parse

    grammar = parse("grammar ints 1\ntool t {\n    n: enum(1, 2, 4)\n    m: enum(auto, 0)?\n"
                    "    ns: list[enum(1, 2)]?\n}\n")
    v = import_source(generate(grammar), tmp_path, "ints_v1").validate
    assert v("t", {"n": 4, "m": "auto", "ns": [1, 2, 1]}) == []
    assert v("t", {"n": 1, "m": 0}) == []
    assert v("t", {"n": 3}) == [Violation("$.n", "expected one of 1, 2, 4, got 3")]
    for bad in (True, 1.0, "1", [1], None):  # True == 1 and 1.0 == 1 in Python: the type is checked first
        assert paths(v("t", {"n": bad})) == ["$.n"], bad
    for bad in (False, "0", 0.0, "Auto", {"a": 1}):
        assert paths(v("t", {"n": 1, "m": bad})) == ["$.m"], bad
    assert paths(v("t", {"n": 1, "ns": [1, True, 2.0]})) == ["$.ns[1]", "$.ns[2]"]
