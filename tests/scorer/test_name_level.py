"""``level="name"``: tool selection. A unit per call, TP when it calls the tool of a gold call, whatever its
arguments (neither compared nor validated); tool weights and order constraints still hold."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from ekcli import EXAMPLE, gold, run_ek, write_lines
from hypothesis import given, settings
from hypothesis import strategies as st

from ek import GoldCall, Step, ToolCallMetric
from ek.scorer.metric import LEVELS

GOLD = [("search", {"q": "cats"}), ("book", {"id": 3})]


def _counts(output: object, gold: object = GOLD, **options: object) -> tuple[float, float, float]:
    score = ToolCallMetric("name", **options)(output, gold)  # type: ignore[arg-type]
    return score.tp, score.fp, score.fn


def test_name_is_a_level() -> None:
    assert "name" in LEVELS


def test_a_call_of_a_gold_tool_is_right_whatever_its_arguments() -> None:
    assert _counts('[search(q="dogs", page=9), book()]') == (2, 0, 0)
    assert _counts('search(q="cats")') == (1, 0, 1)                   # book missed
    assert _counts('[search(q=1), search(q=2), book(id=3)]') == (2, 1, 0)  # one search too many
    assert _counts("[wrong_tool(), book(id=3)]") == (1, 1, 1)           # a wrong tool is FP, its gold FN
    assert _counts("No call needed.") == (0, 0, 2)
    assert _counts("No call needed.", []) == (0, 0, 0)


def test_the_other_levels_count_wrong_arguments_where_name_does_not() -> None:
    output = '[search(q="dogs"), book(id=3)]'
    assert ToolCallMetric("name")(output, GOLD).f1 == 1.0
    assert ToolCallMetric("call")(output, GOLD).f1 == 0.5
    assert ToolCallMetric("arg")(output, GOLD).f1 < 1.0


def test_arguments_are_not_validated_but_tool_weights_hold() -> None:
    grammar = EXAMPLE / "travel-v2.ek"
    gold_calls = [("book_flight", {"flight_id": "X1", "passenger_names": ["A"]}), ("get_weather", {"location": "P"})]
    # an argument the schema does not know, a value of the wrong type, a required one left out: all ignored
    output = [("book_flight", {"flight_id": 7, "unknown": True}), ("search_flights", {"origin": "nowhere"})]
    score = ToolCallMetric("name", grammar=grammar)(output, gold_calls)
    assert (score.tp, score.fp, score.fn) == (3, 1, 1)  # book_flight weighs 3
    assert ToolCallMetric("call", grammar=grammar)(output, gold_calls).tp == 0  # the same calls, not right


def test_order_constraints_still_hold() -> None:
    ordered = [GoldCall("search", {"q": "cats"}), GoldCall("book", {"id": 3}, after=[0])]
    assert ToolCallMetric("name", order="gold")("[book(id=9), search(q=1)]", ordered).f1 == 0.5
    assert ToolCallMetric("name", order="gold")("[search(q=1), book(id=9)]", ordered).f1 == 1.0
    assert ToolCallMetric("name", order="strict")("[book(), search()]", GOLD).f1 == 0.5


def test_a_prepared_gold_scores_as_the_gold_and_keeps_its_arguments_for_other_metrics() -> None:
    metric = ToolCallMetric("name")
    prepared = metric.prepare(GOLD)
    for output in ('[search(q="dogs"), book()]', "search()", "nothing", "[a(), b(), book(id=3)]"):
        assert _counts(output) == (metric(output, prepared).tp, metric(output, prepared).fp,
                                   metric(output, prepared).fn)
    assert ToolCallMetric("arg")('search(q="cats")', prepared).f1 == ToolCallMetric("arg")('search(q="cats")', GOLD).f1


_TOOLS = st.sampled_from(["a", "b", "c"])
_CALLS = st.lists(st.tuples(_TOOLS, st.dictionaries(st.sampled_from(["x", "y"]), st.integers(0, 2), max_size=2)),
                  max_size=6)


@settings(max_examples=200, deadline=None)
@given(_CALLS, _CALLS)
def test_name_level_counts_are_the_multiset_of_tool_names(pred: list[tuple[str, dict]], gold_calls: list[tuple[str, dict]]
                                                          ) -> None:
    score = ToolCallMetric("name", order="any")([Step(n, a) for n, a in pred], [Step(n, a) for n, a in gold_calls])
    made, wanted = Counter(n for n, _ in pred), Counter(n for n, _ in gold_calls)
    common = sum((made & wanted).values())
    assert (score.tp, score.fp, score.fn) == (common, len(pred) - common, len(gold_calls) - common)


def test_ek_score_level_name(tmp_path: Path) -> None:
    corpus = write_lines(tmp_path / "c.jsonl", [
        {"id": 1, "pred": 'get_weather(location="Paris")', "gold": [gold("get_weather", location="Rome")]},
        {"id": 2, "pred": "cancel_booking(booking_id='B1')", "gold": [gold("get_weather", location="Rome")]},
    ])
    out = tmp_path / "r.json"
    done = run_ek("score", corpus, "--level", "name", "--json", out)
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["options"]["level"] == "name"
    assert (report["overall"]["tp"], report["overall"]["fp"], report["overall"]["fn"]) == (1, 1, 1)
    assert "level name" in done.stdout
