"""Promise: gold is checked against the grammar it is scored with; a broken answer key is reported, never
silently held against the model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from ekcli import EXAMPLE, gold, run_ek, write_lines

from ek.calls import Step
from ek.runtime import validator_for
from ek.scorer.goldcheck import gold_problems
from ek.scorer.metric import ToolCallMetric
from ek.values import OMITTABLE, Omittable, OneOf

GRAMMAR = EXAMPLE / "travel-v2.ek"
OSLO = "get_weather(location='Oslo')"
EVENT = "create_event(title='t', attendees=['a'], start='2024-05-01T09:00', duration_minutes=5)"

#: (line, words of the gold problem, or None when the gold fits)
CASES: list[tuple[dict[str, Any], str | None]] = [
    ({"id": "ok", "pred": OSLO, "gold": [gold("get_weather", location="Oslo")]}, None),
    ({"id": "unknown-tool", "pred": OSLO, "gold": [gold("frobnicate", x=1)]},
     "gold[0] frobnicate: $: unknown tool 'frobnicate'"),
    ({"id": "missing-required", "pred": "book_flight(flight_id='UA1', passenger_names=['Al'])",
      "gold": [gold("book_flight", flight_id="UA1")]},
     "gold[0] book_flight: $.passenger_names: missing required argument"),
    ({"id": "bad-enum", "pred": OSLO, "gold": [gold("get_weather", location="Oslo", unit="kelvin")]},
     "gold[0] get_weather: $.unit: expected one of 'celsius', 'fahrenheit', got 'kelvin'"),
    ({"id": "one-alternative-bad", "pred": OSLO,
      "gold": [gold("get_weather", location="Oslo", unit={"$oneOf": ["celsius", "kelvin"]})]}, "got 'kelvin'"),
    ({"id": "nested-alternative-bad", "pred": EVENT,
      "gold": [gold("create_event", title="t", attendees=["a", {"$oneOf": ["b", 7]}], start="2024-05-01T09:00",
                    duration_minutes=5)]}, "gold[0] create_event: $.attendees[1]: expected str, got int"),
    ({"id": "unknown-argument", "pred": OSLO, "gold": [gold("get_weather", location="Oslo", when="now")]},
     "gold[0] get_weather: $.when: unknown argument"),
    ({"id": "omittable", "pred": OSLO,
      "gold": [gold("get_weather", location="Oslo", unit={"$oneOf": ["celsius", {"$omit": True}]})]}, None),
    ({"id": "omittable-required", "pred": OSLO, "gold": [gold("get_weather", location={"$omit": True})]},
     "gold[0] get_weather: $.location: missing required argument (the gold accepts only leaving it out)"),
    ({"id": "omittable-optional", "pred": OSLO, "gold": [gold("get_weather", location="Oslo", unit={"$omit": True})]},
     None),
    ({"id": "second-call", "pred": OSLO,
      "gold": [gold("get_weather", location="Oslo"), gold("search_flights", origin="oslo", destination="ROM",
                                                          date="2024-05-01")]},
     "gold[1] search_flights: $.origin:"),
]


@pytest.mark.slow
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_gold_the_grammar_rejects_is_an_error_line_with_its_reason(tmp_path: Path, jobs: str) -> None:
    corpus = write_lines(tmp_path / "corpus.jsonl", [line for line, _ in CASES])
    out = tmp_path / "r.json"
    proc = run_ek("score", corpus, "--grammar", GRAMMAR, "--json", out, "--jobs", jobs)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    report = json.loads(out.read_text(encoding="utf-8"))
    expected = {n: words for n, (_, words) in enumerate(CASES, 1) if words is not None}
    got = {e["line"]: e["reason"] for e in report["errors"]}
    assert set(got) == set(expected), got
    for line, words in expected.items():
        assert got[line].startswith("gold does not fit travel@2: ") and words in got[line], got[line]
    assert report["corpus"]["episodes_scored"] == len(CASES) - len(expected)
    assert report["corpus"]["gold_warnings"] == 0 and report["overall"]["f1"] == 1.0  # only sound gold scored


@pytest.mark.slow
def test_with_invalid_gold_warn_the_lines_are_scored_and_the_warnings_counted(tmp_path: Path) -> None:
    corpus = write_lines(tmp_path / "corpus.jsonl", [line for line, _ in CASES])
    out, html = tmp_path / "r.json", tmp_path / "r.html"
    proc = run_ek("score", corpus, "--grammar", GRAMMAR, "--json", out, "--html", html, "--invalid-gold", "warn")
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    report = json.loads(out.read_text(encoding="utf-8"))
    flagged = [n for n, (_, words) in enumerate(CASES, 1) if words is not None]
    assert report["corpus"]["episodes_scored"] == len(CASES) and report["errors"] == []
    assert report["corpus"]["gold_warnings"] == len(flagged) == len(report["gold_warnings"])
    assert [w["line"] for w in report["gold_warnings"]] == flagged
    assert report["options"]["invalid_gold"] == "warn"
    title = "Gold warnings (gold the grammar rejects, scored anyway: --invalid-gold warn)"
    assert f"{title}: {len(flagged)}" in proc.stdout
    assert 'id="gold-warnings"' in html.read_text(encoding="utf-8")


@pytest.mark.slow
def test_gold_from_a_gold_file_is_checked_against_the_line_s_grammar(tmp_path: Path) -> None:
    gold_file = write_lines(tmp_path / "gold.jsonl", [
        {"id": "a", "gold": [gold("get_weather", location="Oslo", unit="kelvin")]},
        {"id": "b", "gold": [gold("get_weather", location="Oslo")]},
    ])
    corpus = write_lines(tmp_path / "corpus.jsonl", [{"id": "a", "pred": OSLO}, {"id": "b", "pred": OSLO}])
    out = tmp_path / "r.json"
    proc = run_ek("score", corpus, "--gold", gold_file, "--grammar", GRAMMAR, "--json", out)
    assert proc.returncode == 1, proc.stderr
    [error] = json.loads(out.read_text(encoding="utf-8"))["errors"]
    assert error["line"] == 1 and error["id"] == "a" and "got 'kelvin'" in error["reason"]


@pytest.mark.slow
def test_without_a_grammar_gold_is_not_checked(tmp_path: Path) -> None:
    corpus = write_lines(tmp_path / "corpus.jsonl", [{"id": "x", "pred": "frobnicate(x=1)",
                                                      "gold": [gold("frobnicate", x=1)]}])
    proc = run_ek("score", corpus)
    assert proc.returncode == 0, proc.stderr


def test_every_alternative_must_fit_and_omittable_may_be_absent() -> None:
    validate = validator_for(ToolCallMetric(grammar=GRAMMAR).grammar)
    both = OneOf("celsius", "fahrenheit")
    assert gold_problems(validate, [Step("get_weather", {"location": "Oslo", "unit": both})]) == ()
    assert gold_problems(validate, [Step("get_weather", {"location": Omittable("Oslo"), "unit": OMITTABLE})]) == ()
    assert gold_problems(validate, [Step("get_weather", {"location": OneOf(OMITTABLE)})]) == (
        "gold[0] get_weather: $.location: missing required argument (the gold accepts only leaving it out)",)
    assert gold_problems(validate, [Step("get_weather", {"location": OneOf("Oslo", 3, "Rome", 4.5)})]) == (
        "gold[0] get_weather: $.location: expected str, got int",
        "gold[0] get_weather: $.location: expected str, got float")


def test_alternatives_are_checked_in_a_few_variants_not_their_product() -> None:
    """10 arguments of 50 alternatives each: 50 checks, not 50 ** 10; each alternative is seen once."""
    grammar = ToolCallMetric(grammar=GRAMMAR).grammar
    validate = validator_for(grammar)
    calls: list[dict[str, Any]] = []

    def counting(tool: str, args: Any) -> Any:
        calls.append(args)
        return validate(tool, args)

    tags = [OneOf(*(f"t{i}-{k}" for k in range(50))) for i in range(10)]
    step = Step("create_event", {"title": OneOf(*(f"title {k}" for k in range(50))), "attendees": ["a"],
                                 "start": "2024-05-01T09:00", "duration_minutes": 5, "tags": tags})
    assert gold_problems(counting, [step]) == ()
    assert len(calls) == 50
    seen = {tag for args in calls for tag in args.get("tags", [])}
    assert seen == {f"t{i}-{k}" for i in range(10) for k in range(50)}
    bad = Step("create_event", {**step.args, "tags": [*tags[:9], OneOf(*(f"t-{k}" for k in range(49)), 7)]})
    assert gold_problems(counting, [bad]) == ("gold[0] create_event: $.tags[9]: expected str, got int",)


def test_the_metric_exposes_the_check() -> None:
    metric = ToolCallMetric(grammar=GRAMMAR)
    assert metric.gold_problems([("cancel_booking", {})]) == (
        "gold[0] cancel_booking: $.booking_id: missing required argument",)
    assert ToolCallMetric(grammar=GRAMMAR, validate=False).gold_problems([("nope", {})]) == ()
    assert ToolCallMetric().gold_problems([("nope", {})]) == ()
