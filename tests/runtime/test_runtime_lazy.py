"""GrammarValidator: the scorer's validator for a loaded grammar, interpreted, then compiled one tool at a time.

It must give the generated module's violations exactly in both tiers, compile
only what is used often, keep hostile tool names out of its cache, and survive
pickling and threads.
"""

from __future__ import annotations

import inspect
import pickle
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ek.grammar
from ek.grammar import fits
from ek.grammar.model import EnumType, FieldSpec, GraphGrammar, ToolSpec
from ek.limits import INTERPRETED_CALLS
from ek.runtime import GrammarValidator, Violation, compile_grammar, validator_for
from ek.runtime.lazy import SHARED_LIMIT, grammar_validator

TRAVEL = Path(__file__).resolve().parents[2] / "schemas" / "travel-v2.ek"
GRAMMAR = ek.grammar.load(TRAVEL)
KEYS = sorted({f.name for t in GRAMMAR.tools for f in t.fields} | {"zz", "priority", "notes"})
SCALARS = (
    st.none() | st.booleans() | st.integers(-3, 12) | st.floats(allow_nan=True)
    | st.sampled_from(["JFK", "jfk", "2025-03-14", "2025-02-30", "2025-03-14T09:30:00Z", "2025-03-14T25:00", "celsius",
                       "economy", "Oslo", "", "A" * 300])
    | st.text(max_size=4)
)
JSONISH = st.recursive(
    SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(KEYS), inner, max_size=4), max_leaves=12
)


def compiled(lazy: GrammarValidator, name: str) -> Any:
    """The tool's check, past its interpreted calls (so compiled)."""
    check = lazy.tool_validator(name)
    for _ in range(INTERPRETED_CALLS + 1):
        check({})
    return check


def shown(found: list[Violation]) -> list[tuple[Any, ...]]:
    return [(tuple(v), v.path, v.reason, str(v), repr(v), v._asdict(), pickle.loads(pickle.dumps(v))) for v in found]


MODULE = compile_grammar(GRAMMAR)
COMPILED = GrammarValidator(GRAMMAR)
for _tool in GRAMMAR.tools:
    compiled(COMPILED, _tool.name)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(name=st.sampled_from([t.name for t in GRAMMAR.tools] + ["missing", ""]), args=st.dictionaries(st.sampled_from(KEYS), JSONISH) | JSONISH)
def test_runtime_lazy_gives_the_generated_modules_violations_in_both_tiers(name: str, args: Any) -> None:
    interpreted = GrammarValidator(GRAMMAR)
    expected = shown(MODULE.validate(name, args))
    assert shown(interpreted(name, args)) == expected  # a tool's first call: its plan made and run
    assert shown(interpreted(name, args)) == expected  # its second: the plan run
    assert shown(COMPILED(name, args)) == expected
    check = COMPILED.tool_validator(name)
    assert check is None or shown(check(args)) == expected


def test_runtime_lazy_interprets_a_tools_first_calls_and_compiles_only_the_tools_checked_often(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from ek.runtime import lazy as module

    rendered: list[str] = []
    render = module.plan_tool_validator
    monkeypatch.setattr(module, "plan_tool_validator", lambda g, spec: rendered.append(spec.name) or render(g, spec))
    planned: list[tuple[str, ...]] = []
    plan = fits.arguments_plan
    monkeypatch.setattr(fits, "arguments_plan",
                        lambda fields, resolve: planned.append(tuple(f.name for f in fields)) or plan(fields, resolve))
    grammar = ek.grammar.load(TRAVEL)
    lazy = GrammarValidator(grammar)
    assert repr(lazy) == f"<GrammarValidator travel@2: 0 of {len(grammar.tools)} tools compiled>"
    kept = lazy.tool_validator("get_weather")  # as the metric keeps it
    assert kept is not None and lazy.tool_validator("search_flights") is not None
    assert lazy("get_weather", {"location": "Oslo"}) == []
    assert planned == [tuple(f.name for f in grammar.tool("get_weather").fields)]  # made at the first call
    assert kept({"location": 1}) == [Violation("$.location", "expected str, got int")]
    assert len(planned) == 1  # once
    for _ in range(INTERPRETED_CALLS - 3):
        assert kept({"location": 1}) == [Violation("$.location", "expected str, got int")]
    assert lazy("get_weather", {"location": 1, "x": 2}) == [Violation("$.location", "expected str, got int"),
                                                             Violation("$.x", "unknown argument")]
    assert rendered == [] and repr(lazy).endswith(f": 0 of {len(grammar.tools)} tools compiled>")
    assert kept({"location": 1}) == [Violation("$.location", "expected str, got int")]  # the call that compiles
    assert len(planned) == 1 and rendered == ["get_weather"] and repr(lazy).endswith(f": 1 of {len(grammar.tools)} tools compiled>")
    assert kept is lazy.tool_validator("get_weather")  # the same function, now the compiled code itself
    assert "location" in inspect.getsource(kept) and kept.__code__.co_filename.startswith("<ek-generated")
    for _ in range(3):
        assert lazy("get_weather", {}) == [Violation("$.location", "missing required argument")]
    assert rendered == ["get_weather"]


def test_runtime_lazy_keeps_interpreting_a_tool_the_generator_cannot_write() -> None:
    """A grammar built in code with half a character in an enum member: ek gen refuses it, fits answers."""
    lazy = GrammarValidator(GraphGrammar("g", 1, (ToolSpec("t", (FieldSpec("x", EnumType(("ok", "\udc00"))),)),)))
    check = lazy.tool_validator("t")
    assert check is not None
    for _ in range(INTERPRETED_CALLS + 3):
        assert check({"x": "ok"}) == [] == lazy("t", {"x": "\udc00"})
    assert lazy("t", {"x": 1}) == [Violation("$.x", "expected one of 'ok', '\\udc00', got 1")]
    assert repr(lazy).endswith(": 0 of 1 tools compiled>")


def test_runtime_lazy_unknown_and_hostile_names_are_violations_not_cache_entries() -> None:
    lazy = GrammarValidator(ek.grammar.load(TRAVEL))
    for name in ["get_time", "", "__import__('os')", "x" * 10_000]:
        (only,) = lazy(name, {})
        assert only.path == "$" and only.reason.startswith("unknown tool ")
        assert len(only.reason) < 80
    assert lazy(["not", "hashable"], {}) == [Violation("$", "unknown tool ['not', 'hashable']")]  # type: ignore[arg-type]
    assert lazy(None, {}) == [Violation("$", "unknown tool None")]  # type: ignore[arg-type]
    assert repr(lazy).endswith(f": 0 of {len(lazy.grammar.tools)} tools compiled>")


def test_runtime_lazy_source_is_readable_in_tracebacks() -> None:
    check = GrammarValidator(ek.grammar.load(TRAVEL)).tool_validator("search_flights")
    assert check is not None
    assert "__ek_fits__.planned_violations(plan, args)" in inspect.getsource(check)  # interpreting
    check = compiled(GrammarValidator(ek.grammar.load(TRAVEL)), "search_flights")
    source = inspect.getsource(check)
    assert source.startswith("def validate_args(args: Any) -> list[Violation]:")
    assert "'search_flights'" in source


def test_runtime_lazy_pickles_as_its_grammar() -> None:
    lazy = GrammarValidator(ek.grammar.load(TRAVEL))
    lazy("get_weather", {})
    copy = pickle.loads(pickle.dumps(lazy))
    assert copy.grammar == lazy.grammar
    assert copy("get_weather", {}) == lazy("get_weather", {}) == [Violation("$.location", "missing required argument")]


def test_runtime_lazy_calls_from_many_threads_get_one_function_compiled_once_and_right_answers(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from ek.runtime import lazy as module

    rendered: list[str] = []
    render = module.plan_tool_validator
    monkeypatch.setattr(module, "plan_tool_validator", lambda g, spec: rendered.append(spec.name) or render(g, spec))
    lazy = GrammarValidator(ek.grammar.load(TRAVEL))
    seen: list[Any] = []
    wrong: list[Any] = []
    start = threading.Barrier(8)
    expected = MODULE.validate("create_event", {"title": 3, "zz": 1})

    def work() -> None:
        start.wait()
        check = lazy.tool_validator("create_event")
        seen.append(check)
        for i in range(INTERPRETED_CALLS // 2):
            found = check({"title": 3, "zz": 1}) if i % 2 else lazy("create_event", {"title": 3, "zz": 1})
            if shown(found) != shown(expected):
                wrong.append(found)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(seen) == 8 and len({id(f) for f in seen}) == 1
    assert wrong == [] and rendered == ["create_event"]


def test_runtime_validator_for_shares_one_lazy_validator_per_grammar_and_forgets_old_ones() -> None:
    grammar = ek.grammar.load(TRAVEL)
    first = validator_for(grammar)
    assert isinstance(first, GrammarValidator)
    assert validator_for(ek.grammar.load(TRAVEL)) is first  # same schema, loaded again
    assert validator_for(TRAVEL) is first  # the path of that schema
    for i in range(SHARED_LIMIT + 1):
        grammar_validator(grammar.__class__(f"g{i}", 1, tools=grammar.tools))
    assert validator_for(grammar) is not first


def test_a_validator_source_is_compiled_once_across_grammars(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two grammars that render a tool's validator to the same source (same key, same tool) share one
    compiled function; past COMPILED_VALIDATORS the oldest is dropped with its linecache lines."""
    import linecache

    from ek.runtime import lazy

    monkeypatch.setattr(lazy, "_by_source", {})  # what other tests compiled must not answer here
    twin = ek.grammar.load(TRAVEL)  # equal content, a separate object: GrammarValidator compiles for it anew
    first, second = GrammarValidator(GRAMMAR), GrammarValidator(twin)
    name = GRAMMAR.tools[0].name
    assert compiled(first, name).__code__ is compiled(second, name).__code__
    code_file = first.tool_validator(name).__code__.co_filename
    assert code_file in linecache.cache and GRAMMAR.key in code_file

    monkeypatch.setattr(lazy, "COMPILED_VALIDATORS", 1)
    other = GRAMMAR.tools[1].name
    third = GrammarValidator(GRAMMAR)
    kept = compiled(third, other)  # compiling a second source drops the first (limit 1)
    assert code_file not in linecache.cache
    assert first.tool_validator(name)({}) == compiled(GrammarValidator(twin), name)({})  # still works, recompiled
    assert kept is third.tool_validator(other) and len(lazy._by_source) == 1


def test_grammars_built_in_code_share_by_names_and_only_with_an_equal_grammar() -> None:
    """grammar_validator keys a grammar built in code by its names (not its hash): an equal grammar built
    again gets the same validator; one with the same names and other fields gets its own, with its verdicts."""
    from ek.grammar.model import FieldSpec, GraphGrammar, PrimitiveType, ToolSpec

    def grammar(kind: str) -> GraphGrammar:
        return GraphGrammar("same", 1, tools=(ToolSpec("t", (FieldSpec("x", PrimitiveType(kind)),)),))

    first = grammar_validator(grammar("int"))
    assert grammar_validator(grammar("int")) is first
    other = grammar_validator(grammar("str"))
    assert other is not first and other.grammar == grammar("str")
    assert other("t", {"x": "a"}) == [] and [tuple(v) for v in first("t", {"x": "a"})] == [("$.x", "expected int, got str")]
    assert grammar_validator(grammar("str")) is other
