"""The fast paths of BFCL ground truth -> gold calls (``_decoded_call``, JSON scalars in ``_value`` and a one-scalar
answer in ``alternatives``) give what the general path gives: the same steps (same types, same reprs) or the same
error, on JSON-shaped ground truth and on the Python-built near misses the fast paths must leave to the general path."""

from __future__ import annotations

from collections import UserDict
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ek.bfcl import gold


class _Text(str):
    """A str subclass: not a decoded value, so it takes the general path."""


def _outcome(ground_truth: Any) -> tuple[str, str]:
    try:
        steps = gold.gold_calls(ground_truth)
    except (TypeError, ValueError) as exc:
        return type(exc).__name__, str(exc)
    return "ok", repr([(type(s).__name__, type(s.name).__name__, type(s.args).__name__, s) for s in steps])


def _general(ground_truth: Any) -> tuple[str, str]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(gold, "_decoded_call", lambda call: None)
        patch.setattr(gold, "JSON_SCALAR_TYPES", frozenset())  # gold.py's global, not ek.values'
        patch.setattr(gold, "_CHECKED_SCALARS", frozenset())
        return _outcome(ground_truth)


scalars = st.none() | st.booleans() | st.integers(-3, 3) | st.floats() | st.sampled_from(
    ["", "a", "Paris"]) | st.sampled_from(["a", ""]).map(_Text)
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
    st.sampled_from(["x", "y"]), st.lists(inner, max_size=3) | inner, max_size=2), max_leaves=6)
options = st.lists(values, max_size=3) | values
keys = st.sampled_from(["city", "unit", "x"]) | st.sampled_from(["k"]).map(_Text) | st.sampled_from([1, None])
params = st.dictionaries(keys, options, max_size=3)
calls = st.builds(lambda name, args, wrap: wrap({name: args}), keys, params | params.map(UserDict) | values,
                  st.sampled_from([dict, UserDict])) | st.dictionaries(keys, params, max_size=2) | values


@settings(max_examples=500, deadline=None)
@given(st.lists(calls, max_size=3))
def test_gold_calls_fast_path_gives_what_the_general_path_gives(ground_truth: list[Any]) -> None:
    assert _outcome(ground_truth) == _general(ground_truth)


def test_a_decoded_answer_takes_the_fast_path() -> None:
    call = {"get_weather": {"city": ["Paris", "Paris, France"], "unit": ["", "celsius"], "days": [3]}}
    step = gold._decoded_call(call)
    assert step is not None and [step] == gold.gold_calls([call])
    assert repr(step) == ("Step(name='get_weather', args={'city': OneOf('Paris', 'Paris, France'), "
                          "'unit': OneOf(OMITTABLE, 'celsius'), 'days': 3})")


@pytest.mark.parametrize("options", [[""], [0], [False], [None], [0.0], ["x"], [""] * 2, ["", 0], [[""]], [{"k": [""]}],
                                     [], "", None])
def test_one_acceptable_value_read_inline_is_what_alternatives_makes_of_it(options: Any) -> None:
    """The decoded call's inline reading of a one-scalar answer (``""`` is OMITTABLE, ``0``/``False`` are values)."""
    for args in ({"a": options}, {"a": [1], "b": options}, {"b": options, 1: [1]}, {1: [1], "b": options}):
        assert _outcome([{"f": args}]) == _general([{"f": args}]), args
