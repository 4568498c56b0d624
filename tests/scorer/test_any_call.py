"""Gold ANY_CALL: some call, whichever, is right (BFCL's live_relevance), in the metric, rewards and corpus."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ek.calls import ANY_CALL
from ek.corpus.runner import RunOptions, run
from ek.goldjson import gold_to_json
from ek.report.jsonreport import build_report
from ek.rewards import gold_calls, score_calls
from ek.scorer.metric import ToolCallMetric
from ek.scorer.turns import abstention
from ek.testing import assert_calls


@pytest.mark.parametrize("level", ["call", "arg"])
@pytest.mark.parametrize(("output", "counts", "reason"), [
    ("f(x=1)", (1, 0, 0), "match"),
    ("[f(x=1), g(y=[1, 2]), f(x=1)]", (1, 0, 0), "match"),   # several calls are still one right answer
    ("Nothing fits this request.", (0, 0, 1), "missed_call"),
    ("", (0, 0, 1), "missed_call"),
    ("[f(x=", (0, 0, 1), "unparseable_output"),
])
def test_any_call_is_one_unit_never_a_false_positive(level: str, output: str, counts: tuple[int, int, int],
                                                     reason: str) -> None:
    score = ToolCallMetric(level=level)(output, ANY_CALL)
    assert (score.tp, score.fp, score.fn) == counts
    explanation = score.explanation
    assert explanation is not None and explanation.any_call and explanation.gold == ()
    assert [u.reason for u in explanation.units] == [reason]
    assert explanation.to_dict()["any_call"] is True
    assert abstention(score) == ("missed_call" if reason == "missed_call" else None)


def test_any_call_agrees_in_assert_calls_rewards_and_json() -> None:
    assert_calls("f(x=1)", ANY_CALL)
    with pytest.raises(AssertionError, match=r"gold: some call, whichever\n pred: none  \(missed_call\)"):
        assert_calls("Sorry, I cannot help.", ANY_CALL)
    assert gold_calls("any_call") is ANY_CALL and gold_to_json(ANY_CALL) == "any_call"
    assert score_calls("f(x=1)", ANY_CALL) == 1.0 and score_calls("Sorry.", ANY_CALL) == 0.0
    assert ToolCallMetric().gold_problems(ANY_CALL) == ()


def test_any_call_gold_in_corpus_lines_and_turns(tmp_path: Path) -> None:
    lines = [
        {"id": "a", "pred": "f(x=1)", "gold": "any_call"},
        {"id": "b", "pred": "I would rather not.", "gold": "any_call"},
        {"id": "c", "turns": [{"pred": "f(x=1)", "gold": "any_call"}, {"pred": "Done.", "gold": []}]},
        {"id": "d", "pred": "f(x=1)", "gold": "any call"},  # not the keyword, not JSON: an error line
    ]
    path = tmp_path / "c.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    options = RunOptions()
    result = run(str(path), options)
    report = build_report(result, options)
    assert report["accuracy"]["episodes"] == 3 and report["accuracy"]["exact"] == 2
    assert result.summary.error_count == 1 and result.accounted
    assert report["abstention"]["missed_call"] == 1 and report["abstention"]["abstained"] == 1
