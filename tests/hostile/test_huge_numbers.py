"""Promise: a number past Python's int/str conversion limit costs its own line, never the run.

Python refuses to turn text of more than 4300 decimal digits into an int (and an
int that long back into text), so such a number is refused where it is read: a
line error for the corpus line or gold file line holding it, a parse error
(scored as unparseable output) for model output holding it, a hex literal included.
Handed in as a Python int, the scorer compares it and shows it as ``<int of N bits>``.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from ekcli import EXAMPLE, gold, run_ek, write_lines

from ek.calls import Step
from ek.rewards import make_tool_call_reward
from ek.scorer.alignment import alignment_dict, format_alignment
from ek.scorer.metric import ToolCallMetric
from ek.testing import assert_calls

DIGITS = "7" * 5_000  # past the 4300-digit limit
HEX = "0x" + "f" * 5_000  # hex is not limited on the way in, but no decimal text can show it
HUGE = int(HEX, 16)
G = [gold("get_weather", location="Paris")]
OK = "get_weather(location='Paris')"
LIMIT = "more than Python's int/str conversion limit"


@pytest.mark.slow
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_huge_numbers_cost_one_line_each_and_every_report_is_written(tmp_path: Path, jobs: str) -> None:
    # (line: a dict, or raw JSON text where json.dumps could not write the number; words of its error or None;
    #  whether its output is unparseable)
    lines: list[tuple[object, str | None, bool]] = [
        ({"id": "ok", "pred": OK, "gold": G}, None, False),
        ({"id": "call-text", "pred": f"get_weather(location={DIGITS})", "gold": G}, None, True),
        ({"id": "hex-literal", "pred": f"get_weather(location={HEX})", "gold": G}, None, True),
        ({"id": "neg-hex-in-list", "pred": f"[get_weather(location=[-{HEX}])]", "gold": G}, None, True),
        ({"id": "json-args-text", "pred": '[{"name": "get_weather", "arguments": "{\\"location\\": %s}"}]' % DIGITS,
          "gold": G}, None, True),
        (('{"id": "json-args", "pred": [{"name": "get_weather", "arguments": {"location": %s}}], "gold": %s}'
              % (DIGITS, json.dumps(G))), LIMIT, False),
        (('{"id": "gold", "pred": "%s", "gold": [{"name": "get_weather", "arguments": {"location": %s}}]}'
              % (OK, DIGITS)), LIMIT, False),
        ({"id": "gold-text", "pred": OK, "gold": '[{"name": "get_weather", "arguments": {"location": %s}}]' % DIGITS},
         "'gold' is a string holding an integer of 5000 digits", False),
        (('{"id": %s, "pred": "%s", "gold": []}' % (DIGITS, OK)), LIMIT, False),
        ({"id": "last", "pred": OK, "gold": G}, None, False),
    ]
    corpus = write_lines(tmp_path / "corpus.jsonl", [line for line, _, _ in lines])
    out, html = tmp_path / "r.json", tmp_path / "r.html"
    proc = run_ek("score", corpus, "--json", out, "--html", html, "--jobs", jobs, "--level", "arg", timeout=120)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == 1, proc.stderr
    report = json.loads(out.read_text(encoding="utf-8"))
    expected = {n: words for n, (_, words, _) in enumerate(lines, 1) if words is not None}
    got = {e["line"]: e["reason"] for e in report["errors"]}
    assert set(got) == set(expected), got
    for line, words in expected.items():
        assert words in got[line], (line, got[line])
    c = report["corpus"]
    assert c["episodes_scored"] == len(lines) - len(expected) and c["accounted"]
    assert c["unparseable_outputs"] == sum(bad for _, _, bad in lines)
    assert html.read_text(encoding="utf-8").count("<html") == 1
    assert "Error lines (not scored): 4" in proc.stdout and LIMIT in proc.stdout  # the table


@pytest.mark.slow
def test_a_huge_number_in_a_gold_file_is_that_gold_line_s_error(tmp_path: Path) -> None:
    """The gold line is a gold file error, with its id; the corpus lines needing that id say why they have no
    gold, as for gold JSON that ek refuses otherwise (a key given twice, a lone surrogate), while the line of an
    id given twice names none."""
    gold_file = write_lines(tmp_path / "gold.jsonl", [
        '{"id": "a", "gold": [{"name": "get_weather", "arguments": {"location": %s}}]}' % DIGITS,
        {"id": "b", "gold": G},
        '{"id": "c", "gold": [{"name": "get_weather", "arguments": {"location": "x", "location": "y"}}]}',
        '{"id": "d", "gold": [{"name": "get_weather\\ud800", "arguments": {}}]}',
        '{"id": "e", "id": "f", "gold": [{"name": "get_weather", "arguments": {"location": "x", "location": "y"}}]}',
    ])
    corpus = write_lines(tmp_path / "corpus.jsonl", [{"id": k, "pred": OK} for k in "abcdef"])
    out = tmp_path / "r.json"
    proc = run_ek("score", corpus, "--gold", gold_file, "--json", out, "--allow-errors")
    assert "Traceback" not in proc.stderr and proc.returncode == 0, proc.stderr
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["corpus"]["episodes_scored"] == 1 and report["overall"]["f1"] == 1.0
    gold_errors = report["gold_file_errors"]
    assert [(e["line"], e["id"]) for e in gold_errors] == [(1, "a"), (3, "c"), (4, "d"), (5, None)]
    assert "an integer of 5000 digits" in gold_errors[0]["reason"]
    reasons = {e["id"]: e["reason"] for e in report["errors"]}
    assert "entry for id 'a' could not be read: line 1: an integer of 5000 digits" in reasons["a"]
    assert "entry for id 'c' could not be read: line 3: duplicate key 'location'" in reasons["c"]
    assert "entry for id 'd' could not be read: line 4: a lone UTF-16 surrogate" in reasons["d"]
    assert "id 'e' is not in the gold file" in reasons["e"] and "id 'f' is not in the gold file" in reasons["f"]


@pytest.mark.slow
def test_a_huge_number_in_bfcl_answers_is_a_usage_error_not_a_traceback(tmp_path: Path) -> None:
    answers = write_lines(tmp_path / "answers.json", [
        '{"id": "simple_0", "ground_truth": [{"f": {"x": [%s]}}]}' % DIGITS])
    corpus = write_lines(tmp_path / "result.jsonl", [{"id": "simple_0", "result": "f(x=1)"}])
    proc = run_ek("score", corpus, "--bfcl-answers", answers)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert "answers.json:1: an integer of 5000 digits" in proc.stderr


GRAMMARS = [None, EXAMPLE / "travel-v2.ek"]


@pytest.mark.parametrize("grammar", GRAMMARS, ids=["no-grammar", "travel-v2"])
@pytest.mark.parametrize("level", ["call", "arg"])
@pytest.mark.parametrize("optimal", [False, True], ids=["greedy", "optimal"])
@pytest.mark.parametrize(("pred", "gold_calls"), [
    ([Step("f", {"x": HUGE})], [Step("f", {"x": 1})]),
    ([Step("f", {"x": 1})], [Step("f", {"x": -HUGE})]),
    ([Step("f", {"x": HUGE}), Step("f", {"x": HUGE + 1})], [Step("f", {"x": HUGE + 1}), Step("f", {"x": 2})]),
    ([Step("f", {"x": [HUGE, {"k": HUGE}]})], [Step("f", {"x": [1]})]),
    ([Step("book_flight", {"passengers": HUGE, "passenger_names": [HUGE, "Al"]})],
     [Step("book_flight", {"passengers": HUGE, "passenger_names": ["Al", HUGE]})]),  # range check, unordered list
    ([Step("plot", {"x": HUGE, "y": HUGE})], [Step("plot", {"x": 1.5, "y": 2.5})]),  # float and tol(0.001)
    (f"f(x={HEX})", [Step("f", {"x": 1})]),
], ids=["pred", "gold", "pairs", "nested", "validated", "tolerance", "hex-text"])
def test_the_scorer_and_assert_calls_never_raise_on_huge_ints(pred: object, gold_calls: object, grammar: object,
                                                               level: str, optimal: bool) -> None:
    score = ToolCallMetric(level, grammar=grammar, optimal=optimal)(pred, gold_calls)
    assert score.explanation is not None
    view = alignment_dict(score.explanation, limit=300)
    json.dumps(view)  # what the HTML report keeps
    text = format_alignment(alignment_dict(score.explanation))
    assert [u.describe() for u in score.explanation.units]
    if score.fp or score.fn:
        with pytest.raises(AssertionError):
            assert_calls(pred, gold_calls, grammar=grammar, level=level, optimal=optimal)
    if not isinstance(pred, str) and (score.fp or score.fn):
        assert "<int of 20000 bits>" in text, text


def test_a_huge_int_compares_by_value() -> None:
    assert ToolCallMetric()([Step("f", {"x": HUGE})], [Step("f", {"x": HUGE})]).f1 == 1.0
    assert ToolCallMetric()([Step("f", {"x": HUGE})], [Step("f", {"x": HUGE - 1})]).f1 == 0.0
    assert_calls([Step("f", {"x": [HUGE, -HUGE]})], [Step("f", {"x": [HUGE, -HUGE]})])


def test_rewards_never_raise_on_huge_numbers() -> None:
    reward = make_tool_call_reward(level="arg")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = reward([f"f(x={HEX})", "f(x=1)", "f(x=1)",
                      [{"role": "assistant", "tool_calls": [{"function": {"name": "f",
                                                                          "arguments": '{"x": %s}' % DIGITS}}]}]],
                     gold_calls=['[{"name": "f", "arguments": {"x": 1}}]',
                                 '[{"name": "f", "arguments": {"x": %s}}]' % DIGITS,
                                 [{"name": "f", "arguments": {"x": HUGE}}],
                                 [{"name": "f", "arguments": {"x": 1}}]])
    assert got == [0.0, None, 0.5, 0.0]  # unparseable, unreadable gold, a wrong value, unparseable
    assert [str(w.message) for w in caught] == [
        "gold[1]: an integer of 5000 digits, more than Python's int/str conversion limit "
        "(4300 digits); its reward is None"]
