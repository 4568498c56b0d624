"""The spec's example schemas parse exactly as written, into the model they describe."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from ek.grammar import (
    NO_DEFAULT,
    ComparePolicy,
    Constraints,
    EnumType,
    ListType,
    NamedType,
    ObjectType,
    PrimitiveType,
    format_grammar,
    load,
    parse,
)

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"


@pytest.fixture(scope="module")
def v1():
    return load(SCHEMAS / "travel-v1.ek")


@pytest.fixture(scope="module")
def v2():
    return load(SCHEMAS / "travel-v2.ek")


def test_v1_header_tools_and_source(v1):
    path = SCHEMAS / "travel-v1.ek"
    assert v1.key == "travel@1"
    assert [t.name for t in v1.tools] == ["search_flights", "book_flight", "get_weather"]
    assert v1.source_path == str(path)
    assert v1.source_sha256 == hashlib.sha256(path.read_bytes()).hexdigest()


def test_v1_fields(v1):
    search = v1.tool("search_flights")
    assert search.doc == "Search one-way flights between two airports."
    assert search.weight == 1.0
    passengers = search.field("passengers")
    assert passengers.type == PrimitiveType("int")
    assert passengers.constraints == Constraints(1, 9)
    assert (passengers.required, passengers.default) == (False, 1)
    assert search.field("origin").required and search.field("origin").default is NO_DEFAULT
    book = v1.tool("book_flight")
    assert book.weight == 3.0
    assert book.field("flight_id").compare == ComparePolicy("exact")
    assert book.field("passenger_names").type == ListType(PrimitiveType("str"))
    assert book.field("passenger_names").constraints == Constraints(1, 9)
    unit = v1.tool("get_weather").field("unit")
    assert unit.type == EnumType(("celsius", "fahrenheit"))
    assert (unit.required, unit.has_default) == (False, False)
    assert unit.compare is None


def test_v2_named_type_importance_and_compare(v2):
    assert v2.type_alias("Airport").constraints.pattern == "[A-Z]{3}"
    origin = v2.tool("search_flights").field("origin")
    assert origin.type == NamedType("Airport") and origin.importance == 2.0
    assert v2.resolve(origin.type) == (PrimitiveType("str"), Constraints(pattern="[A-Z]{3}"))
    cabin = v2.tool("search_flights").field("cabin")
    assert cabin.default == "economy" and not cabin.required
    flight_id = v2.tool("book_flight").field("flight_id")
    assert (flight_id.compare, flight_id.importance) == (ComparePolicy("exact"), 3.0)
    assert v2.tool("book_flight").field("passenger_names").compare == ComparePolicy("unordered")
    cancel = v2.tool("cancel_booking")
    assert cancel.doc == "Cancel a booking.\nThis cannot be undone."
    assert cancel.weight == 10.0
    assert cancel.field("reason").compare == ComparePolicy("ignore")
    assert not cancel.field("reason").required


def test_v2_inline_object_and_quoted_names(v2):
    meta = v2.tool("create_event").field("metadata")
    assert isinstance(meta.type, ObjectType) and not meta.required
    assert [f.name for f in meta.type.fields] == ["priority", "notes"]
    assert meta.type.field("priority").constraints == Constraints(1, 5)
    assert v2.tool("create_event").field("attendees").constraints == Constraints(1, None)
    hypot = v2.tool("math.hypot")
    assert hypot is not None
    assert hypot.field("y").compare == ComparePolicy("tol", 0.001)
    assert hypot.field("from").required is False


def test_locations_point_at_the_source(v2):
    tool = v2.tool("cancel_booking")
    assert (tool.loc.line, tool.loc.column) == (28, 1)
    field = tool.field("booking_id")
    assert (field.loc.file, field.loc.line, field.loc.column) == (str(SCHEMAS / "travel-v2.ek"), 31, 5)
    assert field.type.loc.line == 31 and field.type.loc.column == 17


def test_parse_hashes_the_text_and_ignores_location_in_equality():
    text = (SCHEMAS / "travel-v2.ek").read_text(encoding="utf-8")
    g = parse(text, "other-name.ek")
    assert g.source_sha256 == hashlib.sha256(text.encode()).hexdigest()
    assert g == load(SCHEMAS / "travel-v2.ek")


@pytest.mark.parametrize("name", ["travel-v1.ek", "travel-v2.ek"])
def test_printed_examples_parse_back_equal(name):
    g = load(SCHEMAS / name)
    text = format_grammar(g)
    assert parse(text) == g
    assert format_grammar(parse(text)) == text


def test_keywords_stay_usable_as_argument_names():
    g = parse('grammar k 1\ntool ship {\n    weight: float\n    compare: str compare exact\n    type: str\n    importance: int\n}\n')
    assert [f.name for f in g.tool("ship").fields] == ["weight", "compare", "type", "importance"]


def test_crlf_and_missing_final_newline_are_fine():
    g = parse("grammar g 1\r\ntool t {\r\n    x: int\r\n}")
    assert g.tool("t").field("x").type == PrimitiveType("int")


def test_parsing_in_threads_keeps_each_files_locations():
    from concurrent.futures import ThreadPoolExecutor

    text = (SCHEMAS / "travel-v2.ek").read_text(encoding="utf-8")

    def one(i: int) -> set[str]:
        g = parse(text, f"file{i}.ek")
        return {f.loc.file for t in g.tools for f in t.fields} | {t.loc.file for t in g.tools}

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(one, range(16)))
    assert results == [{f"file{i}.ek"} for i in range(16)]
