"""Decoded objects of any JSON-like shape: ``parse_calls`` returns steps or raises ParseError, nothing else."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ek.calls import Step
from ek.parsing import FORMATS, ParseError, parse_calls

_KEYS = st.sampled_from(["type", "name", "arguments", "input", "function", "tool_calls", "function_call",
                         "content", "role", "choices", "message", "output", "object", "id", "text", "x",
                         # LangChain's serialized forms, Responses items of client-run tools, Gemini parts
                         "lc", "kwargs", "data", "additional_kwargs", "action", "operation", "parts", "functionCall",
                         "toolCall", "candidates", "args", "jsonrpc", "method", "params", "payload"])
_SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=8) | \
    st.sampled_from(["function", "function_call", "tool_use", "text", "message", "response", "reasoning", "f",
                     "custom_tool_call", "computer_call", "local_shell_call", "apply_patch_call", "server_tool_use",
                     "function_call_output", "ai", "constructor", "AIMessage", "human", "2.0", "tools/call",
                     "response_item", "assistant", "user"])
_JSONISH = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
    | st.dictionaries(_KEYS | st.text(max_size=4), inner, max_size=5)
    | st.dictionaries(st.integers() | st.none(), inner, max_size=2),
    max_leaves=25,
)
_OBJECTS = st.dictionaries(_KEYS, _JSONISH, max_size=6) | st.lists(_JSONISH, max_size=4)


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(output=_OBJECTS, fmt=st.sampled_from([f for f in FORMATS if f != "python"]))
def test_decoded_objects_give_steps_or_a_parse_error(output: Any, fmt: str) -> None:
    try:
        steps = parse_calls(output, fmt)
    except ParseError:
        return
    assert all(isinstance(s, Step) and isinstance(s.name, str) and isinstance(s.args, dict) for s in steps)


@pytest.mark.parametrize("output", [
    {"type": [], "x": 1},
    [{"type": {}, "name": "f"}],
    {"type": "message", "output": [{"type": ["function_call"]}], "object": "response"},
    {"role": "assistant", "content": [{"type": [1]}]},
])
def test_unhashable_type_fields_are_parse_errors(output: Any) -> None:
    with pytest.raises(ParseError):
        parse_calls(output)


_BFCL_LISTS = st.lists(st.dictionaries(st.text(max_size=3) | st.integers(0, 2), _JSONISH | st.dictionaries(
    st.text(max_size=3), _JSONISH, max_size=3), max_size=2), max_size=3)


@settings(max_examples=300, deadline=None)
@given(output=_BFCL_LISTS, max_size=st.sampled_from([10**6, 40]), max_depth=st.sampled_from([64, 2]))
def test_bfcl_fast_reader_gives_what_the_general_reader_gives(output: Any, max_size: int, max_depth: int) -> None:
    """``shapes.bfcl_plain_calls`` answers only for plain lists, and then with the general reader's steps."""
    from ek.parsing import shapes
    from ek.parsing.limits import Limits

    limits = Limits(max_size=max_size, max_depth=max_depth)
    fast = shapes.bfcl_plain_calls(output, limits)
    try:
        general = [s for i, item in enumerate(output) for s in shapes.bfcl_call(item, f"$[{i}]", limits)]
    except (ParseError, AttributeError):  # AttributeError: a non-dict item, which from_object refuses first
        assert fast is None
        return
    if fast is not None:
        assert fast == general and [type(s.args) for s in fast] == [dict] * len(fast)
        assert all(f.args is not item for f in fast for d in output for item in d.values())
        assert parse_calls(output, "bfcl", max_size=max_size, max_depth=max_depth) == general


_ARGUMENT_TEXTS = (st.dictionaries(st.text(max_size=3), _JSONISH, max_size=3).map(
    lambda d: __import__("json").dumps(d)) | st.sampled_from(
    ['{"a": 1, "a": 2}', '{"x": NaN}', '{"x": 1e999}', "[1, 2]", '"text"', "  ", "", "{", '{"x": [[[[1]]]]}',
     '{"n": 1' + "0" * 5000 + "}"]) | st.text(max_size=6))
_FC_LISTS = st.lists(st.dictionaries(st.text(max_size=3), _ARGUMENT_TEXTS, min_size=1, max_size=2), max_size=3)


@settings(max_examples=300, deadline=None)
@given(output=_FC_LISTS, max_size=st.sampled_from([10**6, 40]), max_depth=st.sampled_from([64, 2]))
def test_bfcl_fast_reader_reads_function_calling_arguments_as_the_general_reader(output: Any, max_size: int,
                                                                                 max_depth: int) -> None:
    """A function-calling model's calls as BFCL saves them, ``{"f": "<JSON arguments>"}``: the fast reader
    answers only where the general reader gives steps, and then with the same steps."""
    from ek.parsing import shapes
    from ek.parsing.limits import Limits

    limits = Limits(max_size=max_size, max_depth=max_depth)
    fast = shapes.bfcl_plain_calls(output, limits)
    try:
        general = [s for i, item in enumerate(output) for s in shapes.bfcl_call(item, f"$[{i}]", limits)]
    except ParseError:
        assert fast is None
        return
    if fast is not None:
        assert fast == general and [type(s.args) for s in fast] == [dict] * len(fast)
        assert parse_calls(output, "bfcl", max_size=max_size, max_depth=max_depth) == general
    assert fast is not None or any(not name or not text.strip() for item in output for name, text in item.items())
