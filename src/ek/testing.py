"""A pytest helper for your own agent tests: ``assert_calls`` fails with a readable alignment diff.

>>> assert_calls('[search(q="Cats")]', [("search", {"q": "cats"})]).f1   # folded strings agree
1.0
>>> assert_calls('[search(q="dogs")]', [("search", {"q": "cats"})])
Traceback (most recent call last):
...
AssertionError: tool calls differ from gold (TP 0, FP 1, FN 1; F1 0.000, level call)
gold #0 search(q="cats")
 pred #0 search(q="dogs")  INEXACT
    q: wrong_value  expected "cats", got "dogs"
"""

from __future__ import annotations

from typing import Any

from ek.calls import ANY_CALL
from ek.scorer.accounting import Score
from ek.scorer.alignment import alignment_dict, format_alignment
from ek.scorer.goldcheck import invalid_gold_reason
from ek.scorer.metric import ToolCallMetric


def _num(x: float) -> str:
    return f"{x:g}"


def assert_calls(pred: Any, gold: Any, grammar: Any = None, level: str = "call", *,
                 canonicalizer: str | None = None, optimal: bool = False, order: str = "gold",
                 format: str = "auto") -> Score:
    """Assert that predicted calls match gold calls exactly (no FP, no FN, output parsed); return the score.

    ``pred`` is raw model output, anything :func:`ek.parse_calls` reads (Python
    call text, OpenAI/Anthropic JSON, chat text with ``<tool_call>`` blocks and a
    leading ``<think>``; text or decoded) or a list of calls; ``gold`` is a list of calls (``Step``,
    ``(name, args)`` or call dicts, :class:`~ek.values.OneOf` values allowed).
    ``grammar`` (schema path, generated module or GraphGrammar) brings weights,
    compare policies, defaults and validation. ``order`` (``any``, ``strict`` or ``gold``: the ``after``
    constraints of :class:`~ek.calls.GoldCall` entries) fails calls made in the wrong order (``out_of_order``).
    ``format`` names how ``pred`` is written (any :func:`ek.parsing.format_names` entry, including formats
    added with :func:`ek.parsing.register_format`), read exactly as :class:`~ek.ToolCallMetric` reads it.
    """
    __tracebackhide__ = True  # pytest shows the caller's line, not this helper's
    metric = ToolCallMetric(level, grammar=grammar, canonicalizer=canonicalizer, optimal=optimal,
                            order=order, format=format)
    score = metric(pred, gold)
    explanation = score.explanation
    assert explanation is not None
    if score.fp or score.fn or explanation.parse_error:
        head = (f"tool calls differ from gold (TP {_num(score.tp)}, FP {_num(score.fp)}, FN {_num(score.fn)}; "
                f"F1 {score.f1:.3f}, level {level})")
        raise AssertionError(_gold_unfit(metric, gold) + head + "\n" + format_alignment(alignment_dict(explanation)))
    return score


def _gold_unfit(metric: ToolCallMetric, gold: Any) -> str:
    """The line that says the gold itself breaks the grammar, when it does ('' otherwise).

    No call the grammar accepts can match such a gold, so the diff alone blames the prediction (``origin:
    invalid_value expected "sfo", got "sfo"``) for a mistake in the test; ``ek score`` makes such a line an
    error and the rewards refuse such a label. Asked only once the assertion fails: a passing test pays nothing.
    """
    if metric.grammar is None or gold is ANY_CALL:
        return ""
    problems = metric.gold_problems(gold)
    return f"{invalid_gold_reason(metric.grammar, problems)} (fix the test's gold)\n" if problems else ""


__all__ = ["assert_calls"]
