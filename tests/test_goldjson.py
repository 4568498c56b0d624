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
