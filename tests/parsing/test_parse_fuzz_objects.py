"""Decoded objects of any JSON-like shape: ``parse_calls`` returns steps or raises ParseError, nothing else."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ek.calls import Step
from ek.parsing import FORMATS, ParseError, parse_calls

_KEYS = st.sampled_from(["type", "name", "arguments", "input", "function", "tool_calls", "function_call",
                         "content", "role", "choices", "message", "output", "object", "id", "text", "x"])
_SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=8) | \
    st.sampled_from(["function", "function_call", "tool_use", "text", "message", "response", "reasoning", "f"])
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
