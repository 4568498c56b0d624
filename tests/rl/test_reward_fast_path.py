"""The rewards' call-level fast path gives exactly the metric's F1 and exactness, or steps aside."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from ek.calls import GoldCall, Step
from ek.goldjson import gold_from_json
from ek.rewards import (
    PARTIAL_WEIGHTS,
    _counts_f1,
    _decided_by_calls,
    _partial_credit,
    _plain_call_counts,
    make_tool_call_reward,
)
from ek.scorer.metric import ToolCallMetric
from ek.scorer.turns import is_exact
from ek.values import OneOf

# values that agree across types and spellings (1 == 1.0, "Paris" ~ " paris"), and ones that never do (True != 1)
scalars = st.sampled_from([1, 1.0, 2, True, False, None, "Paris", " paris", "PARIS", "Rome", "", 0, 0.0])
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
    st.sampled_from(["a", "b"]), inner, max_size=2), max_leaves=6)
calls = st.lists(st.builds(Step, st.sampled_from(["f", "g"]),
                           st.dictionaries(st.sampled_from(["x", "y", "z"]), values, max_size=3)), max_size=5)


@settings(max_examples=400, deadline=None)
@given(pred=calls, gold=calls, canonicalizer=st.sampled_from([None, "exact"]), optimal=st.booleans())
def test_fast_path_equals_the_metric(pred: list[Step], gold: list[Step], canonicalizer: str | None,
                                     optimal: bool) -> None:
    metric = ToolCallMetric("call", canonicalizer=canonicalizer, optimal=optimal)
    counts = _plain_call_counts(metric, pred, gold)
    assert counts is not None  # plain values, no grammar: the fast path applies
    score = metric(pred, gold)
    assert _counts_f1(counts) == score.f1  # identical floats, not approximately
    assert (counts[0] == counts[1] == counts[2]) == is_exact(score)


def test_fast_path_steps_aside_where_it_would_be_wrong(travel_model) -> None:
    plain = [Step("f", {"x": 1})]
    assert _plain_call_counts(ToolCallMetric(), [Step("f", {"x": OneOf(1, 2)})], plain) is None
    assert _plain_call_counts(ToolCallMetric(), plain, [Step("f", {"x": float("nan")})]) is None
    assert _plain_call_counts(ToolCallMetric(grammar=travel_model), plain, plain) is None
    assert _plain_call_counts(ToolCallMetric(canonicalizer="bfcl"), plain, plain) is None
    assert _plain_call_counts(ToolCallMetric(order="strict"), plain, plain) is None
    assert _plain_call_counts(ToolCallMetric(), plain, [Step("g"), GoldCall("f", {"x": 1}, after=[0])]) is None


def test_reward_with_and_without_the_fast_path_agree() -> None:
    gold = json.dumps([{"name": "f", "arguments": {"x": 1}}, {"name": "f", "arguments": {"x": {"$oneOf": [2, 3]}}},
                       {"name": "g", "arguments": {}}])
    completions = ["[f(x=1), f(x=3), g()]", "[f(x=1.0), g()]", "[g(), g()]", "[]", "[f(x=2), f(x=1)]"]
    metric = ToolCallMetric("call")
    expected = [metric(c, gold_from_json(json.loads(gold))).f1 for c in completions]  # OneOf in gold: the metric's own path
    assert make_tool_call_reward()(completions, gold_calls=[gold] * len(completions)) == expected
    plain = json.dumps([{"name": "f", "arguments": {"x": 1}}, {"name": "g", "arguments": {}}])
    expected = [metric(c, gold_from_json(json.loads(plain))).f1 for c in completions]
    assert make_tool_call_reward()(completions, gold_calls=[plain] * len(completions)) == expected


@settings(max_examples=300, deadline=None)
@given(pred=calls, gold=calls)
def test_arg_level_shortcut_equals_the_metric(pred: list[Step], gold: list[Step]) -> None:
    metric = ToolCallMetric("call")
    decided = _decided_by_calls(_plain_call_counts(metric, pred, gold), pred, gold)
    arg_score = ToolCallMetric("arg")(pred, gold)
    if decided is not None:
        assert decided == arg_score.f1 == _partial_credit(arg_score, PARTIAL_WEIGHTS)
