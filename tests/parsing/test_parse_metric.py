"""ek.ToolCallMetric takes raw model outputs of every format end to end, and scores an unreadable one as no calls."""

from __future__ import annotations

import json

import pytest

import ek
from ek.calls import Step
from ek.parsing import RENDERERS

GOLD = [Step("get_weather", {"city": "Paris", "days": 3}), Step("math.hypot", {"x": 3, "y": -4.5})]


@pytest.mark.parametrize("fmt", sorted(RENDERERS))
def test_rendered_outputs_of_every_format_score_perfectly_as_text_bytes_and_decoded(fmt: str) -> None:
    metric = ek.ToolCallMetric(format="bfcl" if fmt == "bfcl" else "auto")  # auto never guesses BFCL's shape
    rendered = RENDERERS[fmt](GOLD)
    text = rendered if isinstance(rendered, str) else json.dumps(rendered)
    outputs: list[object] = [text, text.encode("utf-8"), f"```\n{text}\n```"]
    if isinstance(rendered, dict):
        outputs.append(rendered)  # a whole decoded message
    for output in outputs:
        score = metric(output, GOLD)
        assert score.explanation is not None and score.explanation.parse_error is None, (fmt, output)
        assert score.explanation.pred == tuple(GOLD), (fmt, output)
        assert not score.explanation.errors(), (fmt, output)


@pytest.mark.parametrize(
    ("output", "reason"),
    [
        ("get_weather(city=__import__('os').getcwd())", "a call is not a value"),
        ('{"tool_calls": [{"type": "function", "function": {"name": "f", "arguments": "{\\"x\\": NaN}"}}]}',
         "NaN is not accepted"),
        (b"get_weather(city='\xff')", "invalid UTF-8"),
        ("[" * 100_000, "nesting deeper than 64"),
        ({"role": "assistant", "content": [{"type": "tool_use", "name": "f"}]}, "needs an 'input' object"),
    ],
)
def test_an_unreadable_output_is_zero_calls_with_the_reason_explained(output: object, reason: str) -> None:
    score = ek.ToolCallMetric()(output, GOLD)
    explanation = score.explanation
    assert explanation is not None and explanation.pred == ()
    assert explanation.parse_error is not None and reason in explanation.parse_error
    assert f"output not parsed: {explanation.parse_error}" in str(explanation)
    assert {u.reason for u in explanation.errors()} == {"unparseable_output"}
