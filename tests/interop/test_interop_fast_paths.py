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
from ek.interop import ImportResult, api, import_tools, schema_in


def _general(monkeypatch: pytest.MonkeyPatch, functions: Any) -> ImportResult:
    """``functions`` imported with every fast path of schema_in and api switched off."""
    with monkeypatch.context() as patch:
        patch.setattr(api, "_plain_bfcl_tools", lambda data: None)
        patch.setattr(schema_in, "_plain_type", lambda schema: None)
        patch.setattr(schema_in, "_plain_field", lambda name, schema, required, lists: None)
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
    fields = [f for _, functions in sets[:3000] for t in to_grammar(functions).grammar.tools for f in t.fields]
    with monkeypatch.context() as patch:
        fast = []
        real_field = schema_in._plain_field
        patch.setattr(schema_in, "_plain_field", lambda *args: fast.append(real_field(*args)) or fast[-1])
        for _, functions in sets[:3000]:
            to_grammar(functions)
    fast_fields = [f for f in fast if f is not None]
    assert any(f.has_default for f in fast_fields) and any(f.type.__class__.__name__ == "ListType" for f in fast_fields)
    assert len(fast_fields) > 0.85 * len(fields)  # defaults and lists of plain items too
    plain_sets = [functions for _, functions in sets if api._plain_bfcl_tools(functions) is not None]
    assert len(plain_sets) > 0.6 * len(sets)  # most questions' functions take the whole-tool fast path (71%)


def tool_like() -> st.SearchStrategy[Any]:
    """BFCL functions of the shape :func:`ek.interop.api._plain_bfcl_tools` takes and their near misses (one
    change at times): other or odd keys on the function or its arguments object, names that are empty,
    repeated, collide as identifiers or hold a control character, descriptions that are not text,
    ``required`` names not defined or not text, properties the fields fast path does not take."""
    properties = st.sampled_from([{}, {"x": {"type": "integer"}}, {"x": {"type": "string", "description": "X."},
                                  "y": {"type": "float", "default": 1.5}}, {"x": {"type": "array", "items": {
                                      "type": "string"}}}])
    arguments = st.fixed_dictionaries({"properties": properties}, optional={
        "type": st.sampled_from(["dict", "object"]), "required": st.sampled_from([[], ["x"]])})
    plain = st.fixed_dictionaries({"name": st.sampled_from(["f", "g", "a.b", "from"]), "parameters": arguments},
                                  optional={"description": st.sampled_from(["Does f.", ""])})
    changes = st.sampled_from([
        ("name", ""), ("name", "a_b"), ("name", "f\x1b"), ("name", "café"), ("name", 1), ("description", None),
        ("description", 3), ("x-ek-weight", 2), ("type", "function"), ("function", {"name": "h"}),
        ("parameters", []), ("parameters", None), ("parameters.type", "array"), ("parameters.type", 3),
        ("parameters.required", ["y"]), ("parameters.required", ["x", "x"]), ("parameters.required", [1]),
        ("parameters.required", [["x"], "x"]), ("parameters.required", [{"x": 1}]),
        ("parameters.required", "x"), ("parameters.required", None), ("parameters.properties", None),
        ("parameters.properties", []), ("parameters.properties", {"x": {"type": "string", "minLength": 1}}),
        ("parameters.properties", {"max-n": {"type": "integer"}}), ("parameters.description", "Args."),
        ("parameters.additionalProperties", False), ("parameters.x-ek-weight", 2), ("parameters.optional", True)])

    def changed(function: dict[str, Any], change: tuple[str, Any] | None) -> dict[str, Any]:
        if change is None:
            return function
        key, value = change
        if key.startswith("parameters."):
            return {**function, "parameters": {**function["parameters"], key.split(".", 1)[1]: value}}
        return {**function, key: value}

    function = st.builds(changed, plain, st.none() | st.none() | changes)
    return st.lists(function, max_size=3) | st.tuples(function) | function


@settings(max_examples=1500, deadline=None)
@given(tool_like())
@example([{"name": "a.b", "parameters": {"type": "dict", "properties": {}}},
          {"name": "a_b", "parameters": {"type": "dict", "properties": {}}}])  # one safe form for two names
@example([{"name": "f", "parameters": {"properties": {"x": {"type": "integer"}}, "required": ["x"]}}])  # no type
def test_plain_tools_and_their_near_misses_import_as_the_general_path_imports_them(functions: Any) -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        _same(to_grammar(functions), _general(monkeypatch, functions))


spellings = st.sampled_from(["string", "String", "char", "integer", "long", "float", "number", "double", "boolean",
                             "Boolean", "any", "array", "dict", "null", "weird", ""]) | st.none() | st.integers()
members = st.sampled_from(["a", "b", "a b", "", None, 1, 2.5, True])


def plain_like() -> st.SearchStrategy[dict[str, Any]]:
    """The shapes of :func:`ek.interop.schema_in._plain_type` and their near misses: a ``type`` with or
    without ``description``/``default``/``enum``, and at times one or two keywords more."""
    core = st.fixed_dictionaries({"type": spellings}, optional={
        "description": st.sampled_from(["d", ""]) | st.integers(),
        "default": st.sampled_from(["a", "", "b", 1, 0, 2.5, 3.0, True, False, None, [], {}, ["a"],
                                    float("inf"), float("nan"), 10 ** 400]),
        "enum": st.lists(members, max_size=4) | st.sampled_from(["a", None]),
    })
    extra = st.dictionaries(st.sampled_from(["optional", "format", "minimum", "maxLength", "pattern", "title",
                                             "items", "properties", "x-ek-importance", "const"]),
                            st.sampled_from([True, "date", "email", 2, "^[a-z]+$", {"type": "string"},
                                             {"x": {"type": "integer"}}]), max_size=2)
    optional = st.fixed_dictionaries({"optional": st.sampled_from([True, False, "true", 1, None])})
    return st.builds(lambda schema, more: {**schema, **more}, core, st.just({}) | extra | optional) | list_like()


def list_like() -> st.SearchStrategy[dict[str, Any]]:
    """The shapes of :func:`ek.interop.schema_in._plain_list` and their near misses: items of a plain
    shape or not (described, with a default, a list of schemas, a nested list), a default, a bound."""
    items = st.sampled_from([{"type": "string"}, {"type": "integer", "enum": [1, 2]}, {"type": "string", "enum": ["a"]},
                             {"type": "integer", "description": "d"}, {"type": "float", "default": 1.5},
                             {"type": "array", "items": {"type": "string"}}, {"type": "weird"}, {},
                             [{"type": "string"}], "string", {"type": "string", "minLength": 1},
                             {"type": "string", "optional": True}])
    return st.fixed_dictionaries({"type": st.sampled_from(["array", "list", "tuple", "Set", "string", "dict"])},
                                  optional={"items": items, "description": st.sampled_from(["d", "", 3]),
                                            "default": st.sampled_from([[], ["a"], None, "a"]),
                                            "maxItems": st.just(2), "optional": st.sampled_from([True, False, "no"])})


@settings(max_examples=1000, deadline=None)
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


def _child_by_regex(path: str, key: str | int) -> str:
    """``issues.child`` as its general path writes every key: the dottable regex, else the quoted key."""
    from ek.interop import issues

    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if issues._DOTTABLE.fullmatch(key) else f"{path}[{key!r}]"


@given(st.sampled_from(["$", "$[0].parameters"]),
       st.integers(0, 3) | st.sampled_from(["parameters", "max-n", "$ref", "_a", "a1", "1a", "", "café", "a b", "ä_",
                                            "x\u0660", "A_9"]) | st.text(max_size=6))
def test_child_paths_are_what_the_regex_says(path: str, key: str | int) -> None:
    from ek.interop.issues import child

    assert child(path, key) == _child_by_regex(path, key)


@pytest.mark.parametrize("levels", range(schema_in.MAX_DEPTH - 3, schema_in.MAX_DEPTH + 2))
def test_plain_lists_at_the_depth_limit_import_as_the_general_path_imports_them(levels: int) -> None:
    """A list of plain items one level above the limit: its items are past it (reported, read as any)."""
    schema: dict[str, Any] = {"type": "dict", "properties": {
        "xs": {"type": "array", "items": {"type": "string"}}, "n": {"type": "integer", "default": 3}}}
    for _ in range(levels):
        schema = {"type": "dict", "properties": {"inner": schema}}
    functions = [{"name": "f", "parameters": schema}]
    with pytest.MonkeyPatch.context() as monkeypatch:
        _same(to_grammar(functions), _general(monkeypatch, functions))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a.b", "a_b", "a-b", "c", "from", "from_", "x1"]), st.booleans()),
                max_size=6))
def test_tool_names_are_checked_for_collisions_as_one_safe_form_each(tools: list[tuple[str, bool]]) -> None:
    """import_tools works out a tool's safe form only once a second tool comes: the tools kept and the
    issues are those of checking every tool's safe form against every earlier kept tool's."""
    from ek.grammar.names import safe_identifier

    functions = [{"name": name, "parameters": {"type": "dict", "properties": {
        "x": {"type": "integer" if flag else "string"}}}} for name, flag in tools]
    kept: dict[str, bool] = {}
    by_safe: dict[str, str] = {}
    expected = []
    for i, (name, flag) in enumerate(tools):
        if name in kept:
            if kept[name] != flag:
                expected.append(f"$[{i}].parameters: warning: tool {name!r} is defined again differently; "
                                f"the first definition kept")
            continue
        safe = safe_identifier(name)
        if safe in by_safe:
            expected.append(f"$[{i}].parameters: error: tool name {name!r} collides with {by_safe[safe]!r} once "
                            f"made a Python identifier ({safe!r}); tool skipped")
            continue
        kept[name], by_safe[safe] = flag, name
    result = to_grammar(functions)
    assert [t.name for t in result.grammar.tools] == list(kept)
    assert [str(issue) for issue in result.issues] == expected
