"""``ek.goldjson``: gold calls read from JSON, in each shape a user writes them."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ek.calls import Step
from ek.goldjson import gold_from_json


def test_name_and_arguments_pairs_read_as_the_api_takes_them() -> None:
    """``[(name, args)]`` given to the API, written to a JSON line, comes back as ``[[name, args]]``."""
    pairs = json.loads(json.dumps([("get_weather", {"city": "Paris"}), ("ls", {})]))
    assert gold_from_json(pairs) == [Step("get_weather", {"city": "Paris"}), Step("ls", {})]
    assert gold_from_json(pairs) == gold_from_json([{"name": "get_weather", "arguments": {"city": "Paris"}},
                                                    {"name": "ls", "arguments": {}}])


@pytest.mark.parametrize(("call", "message"), [
    (["f"], r"gold\[0\]: expected \{\"name\": TOOL, \"arguments\": \{...\}\} or \[TOOL, \{...\}\], got \['f'\]"),
    ([1, {}], r"gold\[0\]: expected .* or \[TOOL, \{...\}\], got \[1, \{\}\]"),
    (["f", {}, {}], r"gold\[0\]: expected .*, got \['f', \{\}, \{\}\]"),
    (["f", [1]], r"gold\[0\] 'f': arguments must be an object, got list"),
    (["", {}], r"gold\[0\]: a gold call names the tool it expects; got an empty name ''"),
    ({"name": " \t", "arguments": {}}, r"gold\[0\]: a gold call names the tool it expects; got an empty name ' \\t'"),
])
def test_a_pair_of_another_shape_is_refused_naming_the_call(call: Any, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        gold_from_json([call])


@pytest.mark.parametrize(("call", "message"), [
    ({"name": "f", "parameters": {"x": 1}},
     r"""gold\[0\] 'f': no "arguments" key, but 'parameters' given: a gold call's arguments go under "arguments\""""),
    ({"name": "f", "input": {"x": 1}}, r"""gold\[0\] 'f': no "arguments" key, but 'input' given"""),
    ({"name": "f", "argumnets": {"x": 1}}, r"""gold\[0\] 'f': no "arguments" key, but 'argumnets' given"""),
    ({"name": "f", "arguments": {"x": 1}, "args": {"x": 2}},
     r"gold\[0\] 'f': ambiguous call, both 'arguments' and 'args' given"),
])
def test_arguments_under_another_key_are_refused_not_read_as_none(call: Any, message: str) -> None:
    # read as a call without arguments, f() would score exact and f(x=1), the meant call, wrong
    with pytest.raises(TypeError, match=message):
        gold_from_json([call])


@pytest.mark.parametrize("call", [
    {"name": "f", "arguments": {"x": 1}, "id": "call_0", "type": "function"},  # beside "arguments": in the way of none
    {"name": "f", "arguments": {"x": 1}, "args": None, "after": None},  # Arrow's None for a field other rows have
    {"name": "f", "args": {"x": 1}},
])
def test_keys_that_lose_no_argument_are_still_taken(call: dict[str, Any]) -> None:
    assert gold_from_json([call]) == [Step("f", {"x": 1})]


@pytest.mark.parametrize("call", [
    {"name": "get_time", "id": "call_0", "type": "function"},  # a tool of no arguments, with ids beside it
    {"name": "get_time", "call_id": "c1", "parameters": None},
])
def test_a_call_of_no_arguments_may_carry_keys_that_hold_no_object(call: dict[str, Any]) -> None:
    assert gold_from_json([call]) == [Step("get_time", {})]
