"""Score, FieldMetric, canonicalizers, gold JSON and evaluate()."""

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ek import OMITTABLE, FieldMetric, OneOf, Score, evaluate
from ek.agents.toolcalls import ToolCallMetric
from ek.canon import bfcl, exact, fold, get_canonicalizer
from ek.goldjson import gold_from_json, gold_to_json
from ek.scorer.accounting import micro_f1


def test_score_is_a_monoid_with_exact_sums():
    a, b, c = Score(tp=0.1), Score(tp=0.2), Score(tp=0.3, fp=1)
    assert (a + b) + c == a + (b + c)
    # a float count is the decimal it prints as: 0.1 + 0.2 + 0.3 is 3/5 exactly (and 0.6, where floats give
    # 0.6000000000000001)
    assert (a + b + c).exact_counts[0] == Fraction(3, 5) and (a + b + c).tp == 0.6
    assert Score(episodes=0) + a == a
    assert sum([a, b]) == a + b


def test_micro_average_is_not_a_mean_of_f1():
    scores = [Score(tp=9, fp=1), Score(fn=1)]
    assert micro_f1(scores) == pytest.approx(18 / 20)
    assert micro_f1(scores) != (scores[0].f1 + scores[1].f1) / 2
    assert ToolCallMetric().aggregate(scores) == micro_f1(scores)


def test_score_rejects_bad_counts():
    with pytest.raises(ValueError):
        Score(tp=-1)
    with pytest.raises(TypeError):
        Score(tp=True)
    with pytest.raises(ValueError):
        Score(fp=float("nan"))


def test_per_tool_and_per_reason_breakdowns_sum_to_the_whole():
    m = ToolCallMetric("arg")
    s = m([("a", {"x": 1}), ("b", {})], [("a", {"x": 2}), ("c", {"z": 1})]) + m([("a", {"x": 1})], [("a", {"x": 1})])
    per_tool = s.by_tool()
    assert set(per_tool) == {"a", "b", "c"}
    assert sum(per_tool.values(), Score(episodes=0)).exact_counts == s.exact_counts
    assert sum(w for w, _ in s.by_reason().values()) == s.fp + s.fn
    assert s.unit_counts() == {"tp": 3, "fp": 2, "fn": 3}


def test_field_metric_weights_and_errors():
    m = FieldMetric({"total": 3})
    s = m({"total": 10, "currency": "eur"}, {"total": 12, "currency": "EUR", "date": "x"})
    assert (s.tp, s.fp, s.fn) == (1, 3, 4)
    with pytest.raises(TypeError, match="pred must be a mapping"):
        m([1], {})
    with pytest.raises(ValueError, match="positive"):
        FieldMetric({"a": 0})


def test_canonicalizers():
    assert fold("\tA  b\n") == "a b"
    assert exact(" A") == " A"
    assert bfcl("Hello, World-2.0") == "helloworld20"
    assert get_canonicalizer(None) is fold
    with pytest.raises(TypeError):
        get_canonicalizer(3)


def test_gold_json_round_trip_and_errors():
    raw = [{"name": "t", "arguments": {"a": {"$oneOf": [1, {"$omit": True}]}, "b": [{"$oneOf": ["x", "y"]}]}}]
    calls = gold_from_json(raw)
    assert calls[0].args == {"a": OneOf(1, OMITTABLE), "b": [OneOf("x", "y")]}
    assert gold_to_json(calls) == raw
    with pytest.raises(ValueError, match=r"gold\[0\].arguments.a"):
        gold_from_json([{"name": "t", "arguments": {"a": {"$oneOf": []}}}])
    with pytest.raises(TypeError, match=r"gold\[1\]"):
        gold_from_json([{"name": "t"}, {"tool": "u"}])


def test_evaluate_streams_and_loses_no_input():
    def pairs():
        yield [("a", {})], [("a", {})]
        yield ("ep-2", [("a", {})], [("b", {})])
        yield "not a pair"
        yield [42], [("a", {})]

    report = evaluate(ToolCallMetric(), pairs())
    assert report.inputs == 4 and report.episodes == 2 and len(report.errors) == 2
    assert [e.index for e in report.errors] == [2, 3]
    assert "pred call #0" in report.errors[1].reason
    assert report.ids == (0, "ep-2")
    assert (report.tp, report.fp, report.fn) == (1, 1, 1)
    assert all(s.explanation is None for s in report.scores)
    assert evaluate(ToolCallMetric(), [([], [])], keep="explanations").scores[0].explanation is not None
    assert evaluate(ToolCallMetric(), [([], [])] * 3, keep="none").scores == ()
    with pytest.raises(TypeError):
        evaluate(ToolCallMetric(), [[42]], on_error="raise")


def test_explanation_to_dict_is_json_ready():
    import json

    score = ToolCallMetric("arg")([("w", {"unit": "kelvin", "x": 1})], [("w", {"unit": OneOf("c", OMITTABLE)})])
    data = json.loads(json.dumps(score.explanation.to_dict()))
    assert data["gold"][0]["arguments"]["unit"] == {"$oneOf": ["c", {"$omit": True}]}
    checks = data["pairs"][0]["checks"]
    assert {"arg": "unit", "status": "wrong_value", "weight": 1.0, "expected": {"$oneOf": ["c", {"$omit": True}]},
            "got": "kelvin"} in checks
    assert any(u["reason"] == "hallucinated_arg" and u["got"] == 1 for u in data["units"])


def test_scores_pickle_for_other_processes_and_machines():
    import pickle

    score = ToolCallMetric("arg")([("a", {"x": 1, "y": 0.1})], [("a", {"x": 2, "y": OneOf(0.1, OMITTABLE)})])
    copy = pickle.loads(pickle.dumps(score))
    assert copy == score and copy.explanation == score.explanation
    assert pickle.loads(pickle.dumps(score.explanation.units[0])) == score.explanation.units[0]


def test_gold_json_nesting_is_bounded():
    deep: list = [1]
    for _ in range(5000):
        deep = [deep]
    with pytest.raises(ValueError, match=r"gold\[0\].arguments.x.*nested too deeply \(more than 64 levels\)"):
        gold_from_json([{"name": "t", "arguments": {"x": deep}}])
    ok: list = [1]
    for _ in range(60):
        ok = [ok]
    assert gold_from_json([{"name": "t", "arguments": {"x": ok}}])[0].args["x"] == ok


@settings(max_examples=600, deadline=None)
@given(st.text(alphabet='$.[]"\'ab\\ 1é', max_size=12))
def test_a_violation_path_names_its_argument_as_the_path_pattern_reads_it(path):
    """_top_arg's shortcut for a plain ``$.name`` gives what its pattern gives, on any path text."""
    from ek.scorer.metric import _PATH_HEAD, _top_arg

    for text in (path, "$." + path, "$" + path):
        m = _PATH_HEAD.match(text)
        if m is None or m.group(1) is None:
            continue  # no argument, or a quoted one: the pattern's own branch, not the shortcut
        assert _top_arg(text) == m.group(1)
    assert _top_arg("$.a") == "a" and _top_arg("$.a[2].b") == "a" and _top_arg('$["x.y"]') == "x.y"
    assert _top_arg("$.") is None and _top_arg("a") is None


@pytest.mark.parametrize("cut_short", [False, True])
def test_a_parse_error_given_as_the_output_scores_as_that_unreadable_output(cut_short: bool) -> None:
    from ek.parsing import ParseError, parse_calls

    metric = ToolCallMetric("arg")
    gold = [("f", {"x": 1, "y": "a"})]
    text = "f(x=" if cut_short else "f(x=1, y=2+2)"
    with pytest.raises(ParseError) as caught:
        parse_calls(text, "python")
    assert caught.value.cut_short == cut_short
    given, read = metric(caught.value, gold, explain_now=True), metric(text, gold, format="python", explain_now=True)
    assert (given.tally, given.tp, given.fp, given.fn) == (read.tally, read.tp, read.fp, read.fn)
    assert given.tally == {("fn", "f", "unparseable_output"): (3, 3)}
    assert (given.explanation.parse_error, given.explanation.cut_short) == (str(caught.value), cut_short)
