"""The importer's fast paths give what its general path gives: the same grammar, the same issues.

Each fast path is switched off (monkeypatched to "not this shape") for the reference import, so what is
compared is the general path itself, on every function schema of BFCL's data (skipped without bfcl-eval)
and on generated schemas around the shapes the fast paths take.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ek.bfcl import read_questions, to_grammar
from ek.grammar import format_grammar
from ek.interop import ImportResult, import_tools, schema_in


def _general(monkeypatch: pytest.MonkeyPatch, functions: Any) -> ImportResult:
    """``functions`` imported with every fast path of schema_in switched off."""
    with monkeypatch.context() as patch:
        patch.setattr(schema_in, "_plain_type", lambda schema: None)
        patch.setattr(schema_in, "_plain_field", lambda name, schema, required: None)
        return import_tools(functions, "bfcl", name="bfcl", version=1)


def _same(fast: ImportResult, general: ImportResult) -> None:
    assert fast.issues == general.issues
    assert fast.grammar == general.grammar
    assert format_grammar(fast.grammar) == format_grammar(general.grammar)


def _bfcl_function_sets() -> list[tuple[str, list[Any]]]:
    """Every question's functions in bfcl-eval's data, all categories, and the multi-turn APIs' function docs."""
    spec = importlib.util.find_spec("bfcl_eval")
    if spec is None or spec.origin is None:
        return []
    data = Path(spec.origin).parent / "data"
    out = []
    for path in sorted(data.glob("BFCL_v4_*.json")):
        if "format_sensitivity" in path.name:  # not questions: lists of question ids per category
            continue
        out += [(q.id, list(q.functions)) for q in read_questions(path) if q.functions]
    for path in sorted((data / "multi_turn_func_doc").glob("*.json")):
        with open(path, encoding="utf-8") as lines:
            out.append((path.name, [json.loads(line) for line in lines if line.strip()]))
    return out


@pytest.mark.skipif(importlib.util.find_spec("bfcl_eval") is None,
                    reason="bfcl-eval is not installed (pip install --no-deps bfcl-eval)")
def test_every_bfcl_function_imports_as_the_general_path_imports_it(monkeypatch: pytest.MonkeyPatch) -> None:
    taken = []
    real = schema_in._plain_type
    monkeypatch.setattr(schema_in, "_plain_type", lambda schema: taken.append(real(schema)) or taken[-1])
    sets = _bfcl_function_sets()
    for entry_id, functions in sets:
        fast = to_grammar(functions)
        try:
            _same(fast, _general(monkeypatch, functions))
        except AssertionError:
            pytest.fail(f"{entry_id}: the fast path imports it otherwise")
    assert len(sets) > 3000  # every category was read
    plain = [node for node in taken if node is not None]
    assert len(plain) > 0.7 * len(taken)  # the common shapes do take the fast path


spellings = st.sampled_from(["string", "String", "char", "integer", "long", "float", "number", "double", "boolean",
                             "Boolean", "any", "array", "dict", "null", "weird", ""]) | st.none() | st.integers()
members = st.sampled_from(["a", "b", "a b", "", None, 1, 2.5, True])


def plain_like() -> st.SearchStrategy[dict[str, Any]]:
    """The shapes of :func:`ek.interop.schema_in._plain_type` and their near misses: a ``type`` with or
    without ``description``/``default``/``enum``, and at times one or two keywords more."""
    core = st.fixed_dictionaries({"type": spellings}, optional={
        "description": st.sampled_from(["d", ""]) | st.integers(),
        "default": st.sampled_from(["a", "", 1, 2.5, True, None, [], {}]),
        "enum": st.lists(members, max_size=4) | st.sampled_from(["a", None]),
    })
    extra = st.dictionaries(st.sampled_from(["optional", "format", "minimum", "maxLength", "pattern", "title",
                                             "items", "properties", "x-ek-importance", "const"]),
                            st.sampled_from([True, "date", "email", 2, "^[a-z]+$", {"type": "string"},
                                             {"x": {"type": "integer"}}]), max_size=2)
    return st.builds(lambda schema, more: {**schema, **more}, core, st.just({}) | extra)


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(st.sampled_from(["a", "b", "from", "max-n", "max_n", "self", "_a", "2a", "", "a\x1b", "café",
                                       "A9_"]), plain_like(), max_size=4),
       st.lists(st.sampled_from(["a", "b", "from", "nope"]), max_size=3))
@example({"max-n": {"type": "string"}, "max_n": {"type": "string"}}, [])  # a plain name taken by an earlier one
def test_plain_shapes_and_their_near_misses_import_as_the_general_path_imports_them(
        properties: dict[str, Any], required: list[str]) -> None:
    functions = [{"name": "f", "description": "F.",
                  "parameters": {"type": "dict", "properties": properties, "required": required}}]
    with pytest.MonkeyPatch.context() as monkeypatch:
        _same(to_grammar(functions), _general(monkeypatch, functions))
