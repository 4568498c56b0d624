"""Quality gates for CI: ``ek score --fail-under [METRIC=]VALUE`` checked against a finished run's report.

A gate names a figure of the ``--json`` report (:mod:`ek.report.jsonreport`) and the least value it may have:
``f1`` (the default metric), ``precision``, ``recall``, ``accuracy`` (episodes with no FP and no FN), and with
repeated samples of a task ``pass@K`` and ``pass^K``. Micro figures and accuracy are compared exactly: from the
report's exact TP/FP/FN sums and its counts, against the threshold read as the decimal it is written as, so an F1
of exactly 9/10 meets ``0.9`` and one a hair below it does not, whatever floating point would round either to.
pass@k and pass^k are compared as the report gives them (floats). A figure the run does not have (no episode
scored; ``pass^3`` in a run with no task of 3 samples) fails its gate: a gate that cannot be checked must not
let a build through.

Only reads a report; the command decides the exit status (:mod:`ek.cli.score`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

import attrs

#: Figures a gate may name besides ``pass@K`` and ``pass^K``, and the metric a bare ``VALUE`` gates.
METRICS = ("f1", "precision", "recall", "accuracy")
DEFAULT_METRIC = "f1"

_REPEAT_METRIC = re.compile(r"pass([@^])([1-9][0-9]{0,8})")
# A threshold: a plain decimal (no sign, exponent, ``inf`` or ``nan``, which float() would take), checked to be
# within [0, 1] after it is read exactly.
_DECIMAL = re.compile(r"[0-9]{1,20}(?:\.[0-9]{0,30})?|\.[0-9]{1,30}")


@attrs.frozen
class Gate:
    """``metric`` must be at least ``threshold`` (``text``: the threshold as written, for messages)."""

    metric: str
    threshold: Fraction
    text: str


@attrs.frozen
class GateResult:
    """A gate checked: the figure (None when the run does not have it, with ``reason`` saying why) and whether
    it passed."""

    gate: Gate
    value: float | None
    passed: bool
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"metric": self.gate.metric, "threshold": float(self.gate.threshold), "value": self.value,
                "passed": self.passed, "reason": self.reason}


def parse_gate(text: str) -> Gate:
    """A ``--fail-under`` argument read: ``0.9`` (F1), ``f1=0.9``, ``accuracy=0.75``, ``pass^3=0.5``.

    >>> parse_gate("0.9")
    Gate(metric='f1', threshold=Fraction(9, 10), text='0.9')
    >>> parse_gate("pass^3=.5").metric
    'pass^3'
    >>> parse_gate("f2=0.9")
    Traceback (most recent call last):
    ...
    ValueError: unknown metric 'f2': use f1, precision, recall, accuracy, pass@K or pass^K (K a whole number from 1)
    """
    metric, sep, value = text.strip().rpartition("=")
    metric = metric.strip().lower() if sep else DEFAULT_METRIC
    value = value.strip()
    if metric not in METRICS and _REPEAT_METRIC.fullmatch(metric) is None:
        raise ValueError(f"unknown metric {metric[:40]!r}: use {', '.join(METRICS)}, pass@K or pass^K (K a whole "
                         "number from 1)")
    if _DECIMAL.fullmatch(value) is None:
        raise ValueError(f"{metric}: the threshold must be a number from 0 to 1, like 0.9, not {value[:40]!r}")
    threshold = Fraction(value)
    if threshold > 1:
        raise ValueError(f"{metric}: the threshold must be a number from 0 to 1, like 0.9, not {value}")
    return Gate(metric, threshold, value)


def check_gates(report: Mapping[str, Any], gates: Sequence[Gate]) -> list[GateResult]:
    """Each gate checked against ``report`` (an ``ek score --json`` report), in the order given."""
    return [_check(report, gate) for gate in gates]


def _check(report: Mapping[str, Any], gate: Gate) -> GateResult:
    value, reason = _figure(report, gate.metric)
    if value is None:
        return GateResult(gate, None, False, reason)
    return GateResult(gate, float(value), value >= gate.threshold)


def _figure(report: Mapping[str, Any], metric: str) -> tuple[Fraction | None, str | None]:
    """``metric``'s exact value in ``report``, or None and why the run does not have it."""
    accuracy = report["accuracy"]
    if not accuracy["episodes"]:
        return None, "not measured: no episode was scored"
    if metric == "accuracy":
        return Fraction(accuracy["exact"], accuracy["episodes"]), None
    repeat = _REPEAT_METRIC.fullmatch(metric)
    if repeat is None:
        exact = report["overall"]["exact"]
        tp, fp, fn = (Fraction(exact[key]) for key in ("tp", "fp", "fn"))
        num, den = {"f1": (2 * tp, 2 * tp + fp + fn), "precision": (tp, tp + fp), "recall": (tp, tp + fn)}[metric]
        return (num / den if den else Fraction(1)), None  # 0/0 is 1.0, as ek.scorer.accounting reports it
    repeats = report.get("repeats")
    if not repeats:
        return None, "not measured: no line names a task, so there are no repeated samples"
    values = repeats["pass_at_k" if repeat[1] == "@" else "pass_hat_k"]
    found = values.get(repeat[2])
    if found is None:
        return None, (f"not measured: pass@k and pass^k are given for k = {', '.join(values)} in this run "
                      f"(each task has at least {repeats['samples_min']} samples)")
    return Fraction(found), None


def shown_value(result: GateResult) -> str:
    """The figure to four places, or in full where four places would hide which side of the threshold it is
    on (0.89996 against 0.9 is not ``0.9000``)."""
    if result.value is None:
        return "-"
    text = f"{result.value:.4f}"
    if (Fraction(text) >= result.gate.threshold) != result.passed:
        text = repr(result.value)
    return text


#: The columns of :func:`gate_row`.
GATE_COLUMNS = ("metric", "value", "threshold", "result")


def gate_row(result: GateResult) -> list[str]:
    """A gate as the table and the HTML report show it: metric, value, ``>= threshold``, and passed or FAILED."""
    return [result.gate.metric, shown_value(result), f">= {result.gate.text}",
            "passed" if result.passed else "FAILED" + (f" ({result.reason})" if result.reason else "")]


def from_report(report: Mapping[str, Any]) -> list[GateResult]:
    """The gates a report holds (its ``gates`` list; none without ``--fail-under``), as checked."""
    results = []
    for g in report.get("gates") or ():
        text = repr(g["threshold"])
        results.append(GateResult(Gate(g["metric"], Fraction(text), text), g["value"], g["passed"], g["reason"]))
    return results


def render_gates(results: Sequence[GateResult]) -> str:
    """The gates as a table for the terminal."""
    from ek.report.table import format_table

    return "Gates (--fail-under)\n" + format_table(GATE_COLUMNS, [gate_row(r) for r in results], align="lrll",
                                                    max_width=160)


def failed_summary(results: Sequence[GateResult]) -> str:
    """One line naming the failed gates: ``f1 0.4697 < 0.5, pass^3 not measured``."""
    return ", ".join(f"{r.gate.metric} not measured" if r.value is None
                     else f"{r.gate.metric} {shown_value(r)} < {r.gate.text}" for r in results if not r.passed)
