"""``ek.report.gates``: a ``--fail-under`` argument read, and checked exactly against a report's figures."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ek.report.gates import (
    Gate,
    GateResult,
    check_gates,
    failed_summary,
    from_report,
    gate_row,
    parse_gate,
    render_gates,
    shown_value,
)


def _report(tp: int | str, fp: int | str, fn: int | str, *, episodes: int = 10, exact: int = 5,
            repeats: dict[str, Any] | None = None) -> dict[str, Any]:
    """The parts of an ``ek score --json`` report a gate reads (docs/report-json.md)."""
    return {"overall": {"exact": {"tp": str(tp), "fp": str(fp), "fn": str(fn)}},
            "accuracy": {"episodes": episodes, "exact": exact, "value": exact / episodes if episodes else None},
            "repeats": repeats}


@pytest.mark.parametrize(("text", "metric", "threshold"), [
    ("0.9", "f1", Fraction(9, 10)), ("f1=0.9", "f1", Fraction(9, 10)), (" F1 = .25 ", "f1", Fraction(1, 4)),
    ("precision=1", "precision", Fraction(1)), ("recall=0", "recall", Fraction(0)),
    ("accuracy=0.75", "accuracy", Fraction(3, 4)), ("pass@4=0.5", "pass@4", Fraction(1, 2)),
    ("pass^16=0.125", "pass^16", Fraction(1, 8)), ("1.", "f1", Fraction(1)),
])
def test_a_gate_is_read_with_its_exact_threshold(text: str, metric: str, threshold: Fraction) -> None:
    gate = parse_gate(text)
    assert (gate.metric, gate.threshold) == (metric, threshold)


@pytest.mark.parametrize(("text", "words"), [
    ("f2=0.9", "unknown metric 'f2'"), ("pass^0=0.5", "unknown metric 'pass^0'"), ("pass=0.5", "unknown metric"),
    ("pass@k=0.5", "unknown metric"), ("1.5", "from 0 to 1"), ("-0.1", "from 0 to 1"), ("nan", "from 0 to 1"),
    ("inf", "from 0 to 1"), ("1e-3", "from 0 to 1"), ("", "from 0 to 1"), ("f1=", "from 0 to 1"),
    ("=0.5", "unknown metric ''"), ("0x1", "from 0 to 1"), ("1" * 30, "from 0 to 1"),
])
def test_a_bad_gate_says_what_is_wrong(text: str, words: str) -> None:
    with pytest.raises(ValueError, match=words.replace("^", r"\^")):
        parse_gate(text)


def test_micro_figures_are_compared_exactly_not_as_floats() -> None:
    """F1 = 9/10 meets 0.9; an F1 a hair below 9/10, which a float rounds to 0.9 all the same, does not."""
    assert check_gates(_report(9, 1, 1), [parse_gate("0.9")])[0].passed
    tp, errors = 9 * 10**17 - 1, 10**17
    below = Fraction(2 * tp, 2 * tp + 2 * errors)
    assert below < Fraction(9, 10) and float(below) == 0.9
    result = check_gates(_report(tp, errors, errors), [parse_gate("f1=0.9")])[0]
    assert not result.passed and result.value == 0.9
    assert shown_value(result) == "0.9" and failed_summary([result]) == "f1 0.9 < 0.9"  # what it is, not 0.9000


def test_weighted_sums_may_be_fractions() -> None:
    report = _report("7/2", "1/2", "0")  # tp 3.5, fp 0.5: precision 7/8, recall 1, F1 14/15
    results = check_gates(report, [parse_gate(f"{m}={v}") for m, v in
                                   [("precision", "0.875"), ("recall", "1"), ("f1", "0.9333334"), ("f1", "0.9333")]])
    assert [r.passed for r in results] == [True, True, False, True]


@given(tp=st.integers(0, 50), fp=st.integers(0, 50), fn=st.integers(0, 50), threshold=st.fractions(0, 1))
def test_a_gate_passes_exactly_when_its_figure_is_at_least_the_threshold(tp: int, fp: int, fn: int,
                                                                       threshold: Fraction) -> None:
    text = f"{float(threshold):.6f}"
    exact = {"f1": Fraction(2 * tp, 2 * tp + fp + fn) if tp + fp + fn else Fraction(1),
             "precision": Fraction(tp, tp + fp) if tp + fp else Fraction(1),
             "recall": Fraction(tp, tp + fn) if tp + fn else Fraction(1)}
    for metric, value in exact.items():
        result = check_gates(_report(tp, fp, fn), [parse_gate(f"{metric}={text}")])[0]
        assert result.passed == (value >= Fraction(text)) and result.value == float(value)


def test_accuracy_and_repeated_samples() -> None:
    repeats = {"samples_min": 3, "pass_at_k": {"1": 0.5, "2": 0.75, "3": 0.875}, "pass_hat_k": {"1": 0.5, "2": 0.25,
                                                                                              "3": 0.125}}
    report = _report(1, 1, 1, episodes=8, exact=6, repeats=repeats)
    results = check_gates(report, [parse_gate(t) for t in ("accuracy=0.75", "accuracy=0.76", "pass@3=0.875",
                                                           "pass^2=0.3", "pass^4=0.1")])
    assert [r.passed for r in results] == [True, False, True, False, False]
    assert results[4].value is None and "k = 1, 2, 3" in str(results[4].reason)
    assert failed_summary(results) == "accuracy 0.7500 < 0.76, pass^2 0.2500 < 0.3, pass^4 not measured"


def test_a_figure_the_run_does_not_have_fails_its_gate() -> None:
    no_tasks = check_gates(_report(5, 0, 0), [parse_gate("pass@1=0")])[0]
    assert not no_tasks.passed and "no line names a task" in str(no_tasks.reason)
    nothing = check_gates(_report(0, 0, 0, episodes=0, exact=0), [parse_gate("f1=0"), parse_gate("accuracy=0")])
    assert [r.passed for r in nothing] == [False, False] and all("no episode" in str(r.reason) for r in nothing)
    assert nothing[0].to_dict() == {"metric": "f1", "threshold": 0.0, "value": None, "passed": False,
                                    "reason": "not measured: no episode was scored"}


def test_the_table_says_which_gates_failed() -> None:
    results = [GateResult(Gate("f1", Fraction(1, 2), "0.5"), 0.46969, False),
               GateResult(Gate("accuracy", Fraction(1, 2), "0.5"), 0.53333, True)]
    table = render_gates(results)
    assert table.splitlines()[0] == "Gates (--fail-under)"
    assert "f1        0.4697  >= 0.5     FAILED" in table and "accuracy  0.5333  >= 0.5     passed" in table


def test_a_reports_gates_read_back_give_the_rows_they_were_shown_with() -> None:
    results = check_gates(_report(9, 1, 1), [parse_gate("0.95"), parse_gate("accuracy=0.5"), parse_gate("pass^2=0")])
    report = {"gates": [r.to_dict() for r in results]}
    back = from_report(report)
    assert [gate_row(r) for r in back][:2] == [gate_row(r) for r in results][:2]
    assert gate_row(back[2])[2] == ">= 0.0" and gate_row(results[2])[2] == ">= 0"  # the JSON holds a float
    assert [r.passed for r in back] == [False, True, False]
    assert from_report({}) == [] and from_report({"gates": None}) == []
