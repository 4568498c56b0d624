"""GrammarValidator: the scorer's validator for a loaded grammar, compiled one tool at a time.

It must give the generated module's verdicts exactly, compile only what is
used, keep hostile tool names out of its cache, and survive pickling and
threads.
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


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(name=st.sampled_from([t.name for t in GRAMMAR.tools] + ["missing", ""]), args=st.dictionaries(st.sampled_from(KEYS), JSONISH) | JSONISH)
def test_runtime_lazy_gives_the_generated_modules_verdicts(name: str, args: Any) -> None:
    module = compile_grammar(GRAMMAR)
    lazy = GrammarValidator(GRAMMAR)
    assert lazy(name, args) == module.validate(name, args)
    assert [(v.path, v.reason) for v in lazy(name, args)] == [(v.path, v.reason) for v in module.validate(name, args)]


def test_runtime_lazy_compiles_only_the_tools_it_is_asked_about() -> None:
    grammar = ek.grammar.load(TRAVEL)
    lazy = GrammarValidator(grammar)
    assert repr(lazy) == f"<GrammarValidator travel@2: 0 of {len(grammar.tools)} tools compiled>"
    assert lazy("get_weather", {"location": "Oslo"}) == []
    assert lazy("get_weather", {"location": 1}) == [Violation("$.location", "expected str, got int")]
    assert repr(lazy).endswith(f": 1 of {len(grammar.tools)} tools compiled>")


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
    source = inspect.getsource(check)
    assert source.startswith("def validate_args(args: Any) -> list[Violation]:")
    assert "'search_flights'" in source


def test_runtime_lazy_pickles_as_its_grammar() -> None:
    lazy = GrammarValidator(ek.grammar.load(TRAVEL))
    lazy("get_weather", {})
    copy = pickle.loads(pickle.dumps(lazy))
    assert copy.grammar == lazy.grammar
    assert copy("get_weather", {}) == lazy("get_weather", {}) == [Violation("$.location", "missing required argument")]


def test_runtime_lazy_first_calls_from_many_threads_compile_once() -> None:
    lazy = GrammarValidator(ek.grammar.load(TRAVEL))
    seen: list[Any] = []
    start = threading.Barrier(8)

    def work() -> None:
        start.wait()
        seen.append(lazy.tool_validator("create_event"))

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(seen) == 8 and len({id(f) for f in seen}) == 1


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
    assert first.tool_validator(name) is second.tool_validator(name)
    code_file = first.tool_validator(name).__code__.co_filename
    assert code_file in linecache.cache and GRAMMAR.key in code_file

    monkeypatch.setattr(lazy, "COMPILED_VALIDATORS", 1)
    other = GRAMMAR.tools[1].name
    third = GrammarValidator(GRAMMAR)
    kept = third.tool_validator(other)  # compiling a second source drops the first (limit 1)
    assert code_file not in linecache.cache
    assert first.tool_validator(name)({}) == GrammarValidator(twin).tool_validator(name)({})  # still works, recompiled
    assert kept is third.tool_validator(other) and len(lazy._by_source) == 1
