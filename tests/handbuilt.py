"""Hand-built grammars (the DSL's meaning, without the parser) and importing generated source, for the tests."""

from __future__ import annotations

import importlib.util
import sys
import types
from pathlib import Path

from ek.grammar.model import (
    NO_CONSTRAINTS,
    ComparePolicy,
    Constraints,
    EnumType,
    FieldSpec,
    GraphGrammar,
    ListType,
    NamedType,
    ObjectType,
    PrimitiveType,
    ToolSpec,
    TypeAlias,
)


def P(name: str) -> PrimitiveType:
    return PrimitiveType(name)


def F(name: str, type_, cons: Constraints = NO_CONSTRAINTS, **kw) -> FieldSpec:
    return FieldSpec(name, type_, cons, **kw)


def travel_v2() -> GraphGrammar:
    """The meaning of schemas/travel-v2.ek, built by hand."""
    return GraphGrammar(
        "travel",
        2,
        tools=(
            ToolSpec(
                "search_flights",
                (
                    F("origin", NamedType("Airport"), importance=2),
                    F("destination", NamedType("Airport"), importance=2),
                    F("date", P("date")),
                    F("passengers", P("int"), Constraints(1, 9), required=False, default=1),
                    F("cabin", EnumType(("economy", "premium", "business", "first")), required=False, default="economy"),
                    F("flexible", P("bool"), required=False),
                ),
                doc="Search one-way flights between two airports.",
            ),
            ToolSpec(
                "book_flight",
                (
                    F("flight_id", P("str"), compare=ComparePolicy("exact"), importance=3),
                    F("passenger_names", ListType(P("str")), Constraints(1, 9), compare=ComparePolicy("unordered")),
                    F("seat", P("str"), required=False),
                ),
                weight=3,
                doc="Book a flight returned by search_flights.",
            ),
            ToolSpec("get_weather", (F("location", P("str")), F("unit", EnumType(("celsius", "fahrenheit")), required=False))),
            ToolSpec(
                "cancel_booking",
                (
                    F("booking_id", P("str"), compare=ComparePolicy("exact"), importance=5),
                    F("reason", P("str"), required=False, compare=ComparePolicy("ignore")),
                ),
                weight=10,
                doc="Cancel a booking.\nThis cannot be undone.",
            ),
            ToolSpec(
                "create_event",
                (
                    F("title", P("str")),
                    F("attendees", ListType(P("str")), Constraints(1, None)),
                    F("start", P("datetime")),
                    F("duration_minutes", P("int"), Constraints(1, None)),
                    F("tags", ListType(P("str")), required=False),
                    F(
                        "metadata",
                        ObjectType((F("priority", P("int"), Constraints(1, 5)), F("notes", P("str"), required=False))),
                        required=False,
                    ),
                ),
            ),
            ToolSpec(
                "math.hypot",
                (F("x", P("float")), F("y", P("float"), compare=ComparePolicy("tol", 0.001)), F("from", P("str"), required=False)),
                doc="Tool names that are not Python identifiers are quoted.",
            ),
        ),
        types=(TypeAlias("Airport", P("str"), Constraints(pattern="[A-Z]{3}")),),
        source_sha256="0" * 64,
    )


def import_source(source: str, directory: Path, stem: str) -> types.ModuleType:
    """Write ``source`` to ``directory/stem.py`` and import it for real under a unique name."""
    path = directory / f"{stem}.py"
    path.write_text(source, encoding="utf-8")
    name = f"_test_gen_{stem}_{abs(hash(str(path)))}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
