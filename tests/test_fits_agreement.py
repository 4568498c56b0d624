"""One answer to "does this value fit this type": lint (a default), import (a JSON Schema default), the generated
validator and the scorer (``invalid_value``) all agree with ek.grammar.fits on random types and values."""

from __future__ import annotations

import json
import math
import pickle
from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from ek.agents.toolcalls import ToolCallMetric
from ek.grammar import SchemaError, format_grammar, parse
from ek.grammar.fits import arguments_plan, arguments_violations, planned_violations, violations
from ek.grammar.model import (
    NO_CONSTRAINTS,
    NO_DEFAULT,
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
    TypeNode,
)
from ek.interop import export_tools, import_tools
from ek.runtime import compile_grammar
from ek.runtime.violation import make_violation

PATTERNS = [None, "[A-Z]{3}", "[a-c]+x?", "\\d{2,4}"]


@st.composite
def constraints_for(draw: st.DrawFn, kind: str) -> Constraints:
    if kind in ("int", "float", "str", "list") and draw(st.booleans()):
        lo = draw(st.none() | st.integers(0, 3))
        hi = draw(st.none() | st.integers(3, 6))
        pattern = draw(st.sampled_from(PATTERNS)) if kind == "str" else None
        return Constraints(lo, hi, pattern)
    return NO_CONSTRAINTS


def types(depth: int = 2) -> st.SearchStrategy[tuple[TypeNode, Constraints]]:
    prim = st.sampled_from(["str", "int", "float", "bool", "date", "datetime", "any"]).flatmap(
        lambda kind: st.tuples(st.just(PrimitiveType(kind)), constraints_for(kind)))
    enum = st.lists(st.sampled_from(["a", "b", "c d", "Ä"]), min_size=1, max_size=3, unique=True).map(
        lambda members: (EnumType(tuple(members)), NO_CONSTRAINTS))
    if depth == 0:
        return prim | enum
    inner = types(depth - 1)
    lists = st.tuples(inner, constraints_for("list")).map(lambda t: (ListType(t[0][0]), t[1]))
    fields = st.lists(st.tuples(st.sampled_from(["x", "y", "max-n"]), inner, st.booleans()), min_size=1, max_size=2,
                      unique_by=lambda f: f[0])
    objects = fields.map(lambda fs: (ObjectType(tuple(FieldSpec(n, t, c, required=r) for n, (t, c), r in fs)),
                                     NO_CONSTRAINTS))
    return prim | enum | lists | objects


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 8) | st.floats(-10, 10) | st.sampled_from(
        ["", "JFK", "abx", "2024", "2024-01-01", "20240101", "2024-02-30", "2024-05-01T09:30", "a", "c d", "Ä"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(["x", "y", "max-n", "z"]), inner,
                                                                max_size=3),
    max_leaves=6,
)


def grammar_with(type_node: TypeNode, cons: Constraints, default: Any = NO_DEFAULT) -> GraphGrammar:
    field = FieldSpec("a", type_node, cons, required=default is NO_DEFAULT, default=default)
    return GraphGrammar("agree", 1, tools=(ToolSpec("t", (field,)),))


def fits(type_node: TypeNode, cons: Constraints, value: Any) -> bool:
    return violations(value, type_node, cons, grammar_with(type_node, cons).resolve) == []


SETTINGS = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.slow
@SETTINGS
@given(typed=types(), value=JSONISH)
def test_generated_validator_and_scorer_agree_with_fits(typed: tuple[TypeNode, Constraints], value: Any) -> None:
    type_node, cons = typed
    grammar = grammar_with(type_node, cons)
    expected = fits(type_node, cons, value)
    module = compile_grammar(grammar)
    assert (module.validate("t", {"a": value}) == []) == expected
    score = ToolCallMetric(level="arg", grammar=grammar)([("t", {"a": value})], [("t", {"a": value})])
    assert ("invalid_value" not in score.by_reason()) == expected


def _printable_default(value: Any) -> bool:
    """Values the DSL can write as a default literal (no NaN/inf, no null inside containers)."""
    if value is None:
        return False
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(_printable_default(v) for v in value)
    if isinstance(value, dict):
        return all(_printable_default(v) for v in value.values())
    return True


@pytest.mark.slow
@SETTINGS
@given(typed=types(), value=JSONISH)
def test_lint_of_a_default_agrees_with_fits(typed: tuple[TypeNode, Constraints], value: Any) -> None:
    type_node, cons = typed
    if not _printable_default(value):
        return
    expected = fits(type_node, cons, value)
    try:
        text = format_grammar(grammar_with(type_node, cons, default=value))
    except (ValueError, TypeError):
        assert not expected, "a fitting default must be printable"
        return
    try:
        parse(text, "agree.ek")
    except SchemaError as exc:
        assert not expected, f"lint refused a fitting default:\n{exc}"
    else:
        assert expected, f"lint accepted a default that does not fit:\n{text}"


@pytest.mark.slow
@SETTINGS
@given(typed=types(), value=JSONISH)
def test_import_of_a_json_schema_default_agrees_with_fits(typed: tuple[TypeNode, Constraints], value: Any) -> None:
    type_node, cons = typed
    if value is None:
        return
    expected = fits(type_node, cons, value)
    exported, _issues = export_tools(grammar_with(type_node, cons), "jsonschema")
    (schema,) = exported
    schema["properties"]["a"]["default"] = value
    schema["required"] = []
    imported = import_tools([schema], "jsonschema")
    field = imported.grammar.tool("t").field("a")
    kept = field.default is not NO_DEFAULT
    dropped = [i for i in imported.issues if "default" in i.message]
    assert kept == expected, (value, [i.message for i in imported.issues])
    assert bool(dropped) != expected


@pytest.mark.parametrize(("text", "ok"), [("2024-01-01", True), ("20240101", False), ("2024-02-30", False)])
def test_a_date_default_is_checked_like_the_generated_validator(text: str, ok: bool) -> None:
    source = f'grammar g 1\ntool t {{\n    d: date = "{text}"\n}}\n'
    if ok:
        parse(source)
    else:
        with pytest.raises(SchemaError, match="not an ISO date YYYY-MM-DD"):
            parse(source)
    module = compile_grammar(grammar_with(PrimitiveType("date"), NO_CONSTRAINTS))
    assert (module.validate("t", {"a": text}) == []) is ok


# --------------------------------------------------------------------------- the whole list, message for message
# ek.grammar.fits is the runtime's tier-0 validator (ek.runtime.lazy: planned_violations over the tool's plan, held
# here to arguments_violations, its walk): until a tool's check is compiled, it answers instead. So it must give what the compiled check gives: the same problems, in the same order,
# with the same text, for any value at all.

ALIASES = (
    TypeAlias("Code", PrimitiveType("str"), Constraints(pattern="[A-Z]{3}")),
    TypeAlias("Small", PrimitiveType("int"), Constraints(0, 5)),
    TypeAlias("Pt", ObjectType((FieldSpec("x", PrimitiveType("float"), NO_CONSTRAINTS),
                                FieldSpec("y", NamedType("Small"), Constraints(1, None), required=False)))),
)
LONG = "k" * 90  # keys and values past the 80 characters a message shows
HUGE = 10**5000  # past the int/str limit: repr() raises


def full_types(depth: int = 2) -> st.SearchStrategy[tuple[TypeNode, Constraints]]:
    """Every kind of type: primitives with ranges and patterns, enums of str, int and both, named types."""
    prim = st.sampled_from(["str", "int", "float", "bool", "date", "datetime", "any"]).flatmap(
        lambda kind: st.tuples(st.just(PrimitiveType(kind)), constraints_for(kind)))
    enum = st.lists(st.sampled_from(["a", "c d", "Ä", 1, 2, -7, 10**30]), min_size=1, max_size=3, unique=True).map(
        lambda members: (EnumType(tuple(members)), NO_CONSTRAINTS))
    named = st.tuples(st.sampled_from([NamedType(a.name) for a in ALIASES]), st.sampled_from(
        [NO_CONSTRAINTS, Constraints(2, None), Constraints(None, 4), Constraints(pattern="[a-c]+x?")]))
    named = named.filter(lambda t: t[1].pattern is None or t[0].name == "Code")
    if depth == 0:
        return prim | enum | named
    inner = full_types(depth - 1)
    lists = st.tuples(inner, constraints_for("list")).map(lambda t: (ListType(t[0][0]), t[1]))
    objects = field_lists(inner, 3).map(lambda fs: (ObjectType(fs), NO_CONSTRAINTS))
    return prim | enum | named | lists | objects


def field_lists(typed: st.SearchStrategy[tuple[TypeNode, Constraints]], most: int) -> st.SearchStrategy[Any]:
    fields = st.lists(st.tuples(st.sampled_from(["x", "y", "max-n", "Ä", LONG]), typed, st.booleans()),
                      min_size=0, max_size=most, unique_by=lambda f: f[0])
    return fields.map(lambda fs: tuple(FieldSpec(n, t, c, required=r) for n, (t, c), r in fs))


class Frozen(Mapping[Any, Any]):
    """A mapping that is not a dict (read-only, its own iteration order)."""

    def __init__(self, items: dict[Any, Any]) -> None:
        self._items = items

    def __getitem__(self, key: Any) -> Any:
        return self._items[key]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)


class Sub(dict):  # type: ignore[type-arg]
    """A dict subclass: the generated code reads a nested one as it is, and copies a top-level one."""


class Flag(int):
    """An int that is not exactly int (its repr differs)."""

    def __repr__(self) -> str:
        return f"Flag({int(self)})"


HOSTILE_SCALARS = (
    st.none() | st.booleans() | st.integers(-3, 12)
    | st.integers(0, 3).map(lambda i: [HUGE, -(10**400), 2**63, Flag(3)][i])
    | st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from([0.0, -0.0, 1.0, 3.5])
    | st.sampled_from(["", "JFK", "jfk", "abx", "ccx", "2024", "2024-01-01", "20240101", "2024-02-30",
                       "2024-05-01T09:30", "2024-05-01t09:30:00+02:00", "2024-05-01 25:00", "a", "c d", "Ä", LONG,
                       "x" * 200, "\x00\u202e", "1"])
    | st.text(max_size=5) | st.sampled_from([b"2024-01-01", object, 1j])
)
HOSTILE_KEYS = st.sampled_from(["x", "y", "max-n", "Ä", LONG, LONG + "a", LONG + "b", "z", "", 1, True, None, (1, 2),
                                1.5, float("nan")]) | st.just(0).map(lambda _: HUGE)


def hostile_values() -> st.SearchStrategy[Any]:
    def containers(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        maps = st.dictionaries(HOSTILE_KEYS, inner, max_size=4)
        return (st.lists(inner, max_size=4) | st.lists(inner, max_size=3).map(tuple) | maps
                | maps.map(Frozen) | maps.map(Sub) | maps.map(MappingProxyType))

    return st.recursive(HOSTILE_SCALARS, containers, max_leaves=10)


def full_grammar(fields: tuple[FieldSpec, ...]) -> GraphGrammar:
    return GraphGrammar("whole", 1, tools=(ToolSpec("t", fields),), types=ALIASES)


def compiled_check(grammar: GraphGrammar) -> Any:
    from ek.codegen.emitter import plan_tool_validator
    from ek.runtime.lazy import _compiled

    return _compiled(plan_tool_validator(grammar, grammar.tools[0]), grammar.key, "t")


def shown(found: list[Any]) -> list[tuple[Any, ...]]:
    """Everything a violation shows: its pair, str, repr, dict, pickled copy, JSON."""
    return [(tuple(v), v.path, v.reason, str(v), repr(v), v._asdict(), pickle.loads(pickle.dumps(v)), json.dumps(v),
             hash(v)) for v in found]


def arguments_for(fields: tuple[FieldSpec, ...]) -> st.SearchStrategy[Any]:
    """Arguments that mostly use the declared names (so values get checked), with stray keys and non-mappings."""
    names = st.sampled_from([f.name for f in fields] or ["x"]) | HOSTILE_KEYS
    maps = st.dictionaries(names, hostile_values(), max_size=5)
    return maps | maps.map(Frozen) | maps.map(Sub) | maps.map(MappingProxyType) | hostile_values()


@pytest.mark.slow
@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(fields=field_lists(full_types(), 4), data=st.data())
def test_fits_reports_what_the_compiled_validator_reports(fields: tuple[FieldSpec, ...], data: st.DataObject) -> None:
    grammar = full_grammar(fields)
    compiled_validator = compiled_check(grammar)
    kept = arguments_plan(fields, grammar.resolve)  # one plan, many calls (the runtime's interpreted tier)
    for args in data.draw(st.lists(arguments_for(fields), min_size=1, max_size=3)):
        compiled = compiled_validator(args)
        problems = arguments_violations(args, fields, grammar.resolve)
        assert problems == [tuple(v) for v in compiled]
        assert planned_violations(kept, args) == problems
        # the plan only skips work: the plain walk over the tool's object type says the same
        assert violations(args, ObjectType(fields), NO_CONSTRAINTS, grammar.resolve) == problems
        interpreted = [make_violation(p) for p in problems]
        assert shown(interpreted) == shown(compiled)
        event(f"problems: {min(len(problems), 3)}")
        event(f"args: {type(args).__name__}")


EVERY_KIND = (
    FieldSpec("name", PrimitiveType("str"), Constraints(1, 3)),
    FieldSpec("code", NamedType("Code"), NO_CONSTRAINTS, required=False),
    FieldSpec("n", PrimitiveType("int"), Constraints(0, 9)),
    FieldSpec("x", PrimitiveType("float"), Constraints(None, 1)),
    FieldSpec("flag", PrimitiveType("bool"), NO_CONSTRAINTS, required=False),
    FieldSpec("mode", EnumType(("fast", 2)), NO_CONSTRAINTS),
    FieldSpec("day", PrimitiveType("date"), NO_CONSTRAINTS, required=False),
    FieldSpec("at", PrimitiveType("datetime"), NO_CONSTRAINTS, required=False),
    FieldSpec("pts", ListType(NamedType("Pt")), Constraints(1, 2), required=False),
    FieldSpec("max-n", ListType(ListType(PrimitiveType("int"))), NO_CONSTRAINTS, required=False),
)


FITTING = {"name": "ab", "n": 3, "x": 0.5, "mode": "fast"}


@pytest.mark.parametrize("args", [
    FITTING,
    {"name": "", "n": True, "x": float("nan"), "mode": 2.0, "zz": 1, 3: 4, HUGE: 5, "a" * 100: 1, "a" * 100 + "b": 2},
    {"name": "abcd", "code": "jfk", "n": 10**5000, "x": -HUGE, "mode": [1], "flag": 1, "day": "2024-02-30",
     "at": "2024-05-01", "pts": [{"x": 1, "y": 9, "q": None}, MappingProxyType({"x": "1"}), 7, {}],
     "max-n": [[1, "2"], (3, True), "no"]},
    Frozen({"name": None, "code": None, "flag": None, "mode": True, "n": -1, "x": 2}),
    Sub({"pts": [], "max-n": None}),
    [("name", "ab")], "args", None, 7,
], ids=["fits", "scalars", "nested", "mapping", "dict-subclass", "list", "str", "none", "int"])
def test_fits_reports_what_the_compiled_validator_reports_on_every_kind_of_value(args: Any) -> None:
    grammar = full_grammar(EVERY_KIND)
    compiled = compiled_check(grammar)(args)
    problems = arguments_violations(args, EVERY_KIND, grammar.resolve)
    assert shown([make_violation(p) for p in problems]) == shown(compiled)
    assert (problems == []) is (args is FITTING)


# --------------------------------------------------------------------------- the plan's quick tests only skip work
# planned_violations accepts a value of exactly the declared type (or a str/int enum member, or a list or tuple of
# such scalars) without more; anything else goes to the rules. Values right at that edge: subclasses, bool for int,
# int for float, tuples, a list with one odd item.

class Text(str):
    pass


class Items(list):  # type: ignore[type-arg]
    pass


PLAIN = (
    FieldSpec("s", PrimitiveType("str"), NO_CONSTRAINTS),
    FieldSpec("i", PrimitiveType("int"), NO_CONSTRAINTS),
    FieldSpec("f", PrimitiveType("float"), NO_CONSTRAINTS, required=False),
    FieldSpec("b", PrimitiveType("bool"), NO_CONSTRAINTS, required=False),
    FieldSpec("a", PrimitiveType("any"), NO_CONSTRAINTS, required=False),
    FieldSpec("e", EnumType(("fast", 2, 10**30)), NO_CONSTRAINTS, required=False),
    FieldSpec("li", ListType(PrimitiveType("int")), NO_CONSTRAINTS, required=False),
    FieldSpec("lf", ListType(NamedType("Small")), NO_CONSTRAINTS, required=False),
    FieldSpec("ls", ListType(PrimitiveType("str")), NO_CONSTRAINTS, required=False),
    FieldSpec("c", NamedType("Code"), NO_CONSTRAINTS, required=False),
)


@pytest.mark.parametrize("args", [
    {"s": "x", "i": 1, "f": 1, "b": False, "a": [object], "e": 10**30, "li": (1, 2), "lf": [0, 5], "ls": ["a"],
     "c": "ABC"},
    {"s": Text("x"), "i": Flag(3), "f": 2.5, "e": "fast", "li": Items([1]), "lf": ()},
    {"s": b"x", "i": True, "f": True, "b": 0, "e": 2.0, "li": [1, True, "2", 3.0], "lf": [6, -1, True], "c": "ab"},
    {"s": None, "i": 1.0, "f": "1", "b": None, "e": True, "li": "12", "lf": 5, "ls": "ab", "zz": 1},
    {"i": HUGE, "f": float("nan"), "e": [2], "li": [[1]], "lf": [Flag(2)]},
], ids=["fits", "subclasses", "near-misses", "wrong-kinds", "odd"])
def test_the_plan_answers_what_the_compiled_validator_and_the_walk_answer_at_the_quick_tests_edge(args: Any) -> None:
    grammar = full_grammar(PLAIN)
    problems = planned_violations(arguments_plan(PLAIN, grammar.resolve), args)
    assert shown([make_violation(p) for p in problems]) == shown(compiled_check(grammar)(args))
    assert problems == violations(args, ObjectType(PLAIN), NO_CONSTRAINTS, grammar.resolve)
    assert (problems == []) is (args.get("s") == "x")  # the first two fit


def test_the_plan_of_a_grammar_built_in_code_defers_what_the_walk_would_meet_at_a_call() -> None:
    """Types the DSL never builds: an enum with a float and a bool member (no quick test: the rule decides, as the
    walk does), and an undeclared named type, which is an error only at a call that reaches it (it resolves then)."""
    fields = (FieldSpec("e", EnumType((1.5, True, "a")), NO_CONSTRAINTS),
              FieldSpec("ghost", NamedType("Nowhere"), NO_CONSTRAINTS, required=False),
              FieldSpec("ghosts", ListType(NamedType("Nowhere")), NO_CONSTRAINTS, required=False))
    grammar = GraphGrammar("odd", 1, tools=(ToolSpec("t", fields),))
    plan = arguments_plan(fields, grammar.resolve)  # made without resolving "Nowhere" for good

    def check(args: Any) -> list[tuple[str, str]]:
        return planned_violations(plan, args)

    for value in (1.5, True, 1, "a", "b", 1.0, None):
        assert check({"e": value}) == violations({"e": value}, ObjectType(fields), NO_CONSTRAINTS, grammar.resolve)
    assert check({"e": "a"}) == [] and check({"e": 1}) == []  # 1 == True, as the members tuple says
    with pytest.raises(KeyError, match="Nowhere"):
        check({"e": "a", "ghost": 1})
    assert check({"e": "a", "ghosts": []}) == []  # an empty list never resolves its item type
    with pytest.raises(KeyError, match="Nowhere"):
        check({"e": "a", "ghosts": [1]})


class _EqStr(str):
    """A str subclass that defines ``__eq__``: Python then gives it no ``__hash__``, so no set lookup can take it."""

    def __eq__(self, other: object) -> bool:
        return str.__eq__(self, other)


class _EqInt(int):
    def __eq__(self, other: object) -> bool:
        return int.__eq__(self, other)


_ENUMS = "grammar u 1\ntool w {\n    unit: enum(celsius, fahrenheit)?\n    mixed: enum(auto, 0)?\n" \
         "    level: enum(1, 2)?\n    tags: list[enum(a, b)]?\n}\n"


@pytest.mark.parametrize("args", [
    {"unit": _EqStr("celsius")}, {"unit": _EqStr("kelvin")}, {"mixed": _EqStr("auto")}, {"mixed": _EqInt(0)},
    {"mixed": _EqStr("0")}, {"level": _EqInt(2)}, {"level": _EqInt(3)}, {"level": True}, {"tags": [_EqStr("a")]},
    {"tags": [_EqStr("a"), _EqStr("z")]}, {"unit": ["celsius"]}, {"mixed": {"auto": 1}}, {"tags": [["a"]]},
], ids=repr)
def test_enum_values_no_set_can_hold_get_the_verdict_of_fits_everywhere(args: dict[str, Any]) -> None:
    """A value that cannot be hashed (a list, a str or int subclass defining ``__eq__``) is checked against an enum
    as fits checks it, by every validator: the generated module's raised TypeError (mixed and list enums) or called
    an equal member a miss, and a lazy validator changed its verdict once compiled."""
    from ek.limits import INTERPRETED_CALLS
    from ek.runtime import validator_for

    grammar = parse(_ENUMS, filename="u.ek")
    tool = grammar.tool("w")
    assert tool is not None
    want = arguments_violations(args, tool.fields, grammar.resolve)
    module = compile_grammar(grammar)
    check = validator_for(grammar)
    interpreted = check("w", args)
    for _ in range(INTERPRETED_CALLS):
        check("w", {})
    compiled = check("w", args)
    assert [(v.path, v.reason) for v in module.validate("w", args)] == want
    assert [(v.path, v.reason) for v in interpreted] == want == [(v.path, v.reason) for v in compiled]



@pytest.mark.parametrize("name", [["w"], {"w": 1}, {"w"}])
def test_a_tool_name_that_cannot_be_hashed_is_an_unknown_tool_not_an_exception(name: Any) -> None:
    grammar = parse(_ENUMS, filename="u.ek")
    [violation] = compile_grammar(grammar).validate(name, {})
    assert violation.path == "$" and violation.reason.startswith("unknown tool")
