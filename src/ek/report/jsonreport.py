"""The machine-readable report of a run (``ek score --json``): one documented, stable dict.

The layout is described in ``docs/report-json.md``; ``schema_version`` is
bumped whenever a key changes meaning or disappears (adding keys does not bump
it). Nothing in it depends on timing or on ``--jobs``, so two runs over the
same corpus give byte-identical files. The terminal table and the HTML report
are both rendered from this dict.
"""

from __future__ import annotations

import os
import statistics
from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

import attrs

from ek._version import __version__
from ek.atomicfile import write_json_atomic
from ek.bfcl.variation import CATEGORY as VARIATION_CATEGORY
from ek.corpus.reading import LineError
from ek.corpus.runner import RunOptions, RunResult
from ek.corpus.sources import FileSpan, locate
from ek.corpus.summary import EpisodeDigest, reason_kinds, unit_counts_by_tool
from ek.limits import MIXED_GOLD_TASKS_LISTED
from ek.scorer.accounting import FN, FP, REASONS, TP, Score
from ek.scorer.turns import ABSTENTION_OUTCOMES
from ek.stats import Interval, mean_pass_rates, pass_k_values

#: Version of the JSON layout below.
SCHEMA_VERSION = 1


def _fraction(value: int | Fraction) -> str:
    return str(value)


def _counts(score: Score, units: dict[str, int]) -> dict[str, Any]:
    return {"tp": score.tp, "fp": score.fp, "fn": score.fn, "precision": score.precision, "recall": score.recall,
            "f1": score.f1, "units": {TP: units.get(TP, 0), FP: units.get(FP, 0), FN: units.get(FN, 0)}}


def _shown(path: str) -> str:
    return os.path.abspath(path) if path != "-" else "-"


def _shown_spans(files: tuple[FileSpan, ...]) -> tuple[FileSpan, ...]:
    """The run's files with each path as the report shows it (:func:`_shown`), worked out once for every line
    located in them (1,200 error lines: as many ``os.path.abspath`` calls of the same path)."""
    return tuple(attrs.evolve(f, path=_shown(f.path)) for f in files)


def _where(line: int, files: tuple[FileSpan, ...]) -> dict[str, Any]:
    """A line of the run, and the file holding it with its line there (``cat``-style numbering across files);
    ``files``: their paths shown already (:func:`_shown_spans`)."""
    found = locate(line, files)
    if found is None:  # a run built without file spans
        return {"line": line}
    return {"line": line, "file": found[0], "file_line": found[1]}


def _located(e: LineError, files: tuple[FileSpan, ...]) -> dict[str, Any]:
    return {**_where(e.line, files), "id": e.id, "reason": e.reason}


def _episode(d: EpisodeDigest, files: tuple[FileSpan, ...] = ()) -> dict[str, Any]:
    return {**_where(d.line, files), "id": d.id, "tp": d.tp, "fp": d.fp, "fn": d.fn, "f1": d.f1, "lost": d.lost,
            "reasons": [{"reason": r, "weight": w} for r, w in d.reasons], "parse_error": d.parse_error,
            "turns": d.turns, "first_failing_turn": d.first_failing_turn, "category": d.category}


def _accuracy(episodes: int, exact: int, interval: Interval | None = None,
              resampled: Mapping[str, Any] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"episodes": episodes, "exact": exact, "value": exact / episodes if episodes else None}
    if interval is not None:
        out["interval"] = {**interval.to_dict(), **(resampled or {})}
    return out


def _per_turn(summary: Any) -> list[dict[str, Any]]:
    rows = []
    for turn, (tp, fp, fn, exact, episodes) in sorted(summary.per_turn.items()):
        score = Score(tp=tp, fp=fp, fn=fn, episodes=episodes)
        rows.append({"turn": turn, "tp": score.tp, "fp": score.fp, "fn": score.fn, "f1": score.f1,
                     "exact": exact, "episodes": episodes})
    return rows


def _per_category(summary: Any) -> list[dict[str, Any]]:
    rows = []
    for category, (score, exact) in summary.category_scores().items():
        rows.append({"category": category or None, **_counts(score, score.unit_counts()),
                     "accuracy": _accuracy(score.episodes, exact)})
    return rows


def _format_sensitivity(categories: list[dict[str, Any]]) -> dict[str, Any] | None:
    """BFCL v4's format-sensitivity figures, from the per-category rows of its configurations
    (:attr:`ek.bfcl.variation.PromptVariation.category`), as BFCL works them out: the spread of the configurations'
    accuracies (highest less lowest) and their sample standard deviation and variance (BFCL prints them times 100,
    in points); null when no line is of that category."""
    rows = [c for c in categories if (c["category"] or "").startswith(VARIATION_CATEGORY + ":")
            and c["accuracy"]["episodes"]]
    if not rows:
        return None
    values = [c["accuracy"]["value"] for c in rows]
    lowest = min(rows, key=lambda c: c["accuracy"]["value"])
    highest = max(rows, key=lambda c: c["accuracy"]["value"])
    return {
        "configurations": len(rows),
        "episodes": sum(c["accuracy"]["episodes"] for c in rows),
        "lowest": {"category": lowest["category"], "accuracy": lowest["accuracy"]["value"]},
        "highest": {"category": highest["category"], "accuracy": highest["accuracy"]["value"]},
        "max_delta": max(values) - min(values),
        "stdev": statistics.stdev(values) if len(values) > 1 else 0.0,
        "variance": statistics.variance(values) if len(values) > 1 else 0.0,
    }


def _abstention(summary: Any) -> dict[str, int]:
    """Turns by abstention outcome: gold ``[]`` answered right (``abstained``), with calls or unreadably;
    gold with calls answered with no call at all (``missed_call``)."""
    counts = {outcome: summary.abstention.get(outcome, 0) for outcome in ABSTENTION_OUTCOMES}
    return {"no_call_expected": counts["abstained"] + counts["spurious_call"] + counts["unparseable"], **counts}


def _repeats(summary: Any, files: tuple[FileSpan, ...] = (), *, gold_checked: bool = True) -> dict[str, Any] | None:
    """pass@k, pass^k and the spread of per-sample accuracy over tasks, and the tasks whose samples have
    different gold (the first :data:`MIXED_GOLD_TASKS_LISTED`, each with its first line and its first line of
    other gold, located in ``files``; all counted), and apart from them those whose samples are scored with
    different grammars (the same, with the two lines' grammars), and the integer tasks also named as strings
    (:func:`tasks_split_by_type`); null when no line names a task."""
    counts = summary.task_counts()
    if not counts:
        return None
    mixed = summary.mixed_gold_tasks()
    grammars = summary.mixed_grammar_tasks()
    split = tasks_split_by_type(counts)
    samples_min = min(n for n, _c in counts.values())
    rates = mean_pass_rates(list(counts.values()), pass_k_values(samples_min))
    values = summary.sample_accuracy(samples_min)
    mean = sum(values) / len(values)
    return {
        "tasks": len(counts),
        "samples": sum(n for n, _c in counts.values()),
        "samples_min": samples_min,
        "samples_max": max(n for n, _c in counts.values()),
        "pass_at_k": {str(k): some for k, (some, _every) in rates.items()},
        "pass_hat_k": {str(k): every for k, (_some, every) in rates.items()},
        "sample_accuracy": {"values": values, "min": min(values), "max": max(values), "mean": mean,
                            "stdev": (sum((v - mean) ** 2 for v in values) / len(values)) ** 0.5},
        "tasks_with_different_gold": len(mixed) if gold_checked else None,  # None: --task-gold ignore
        "different_gold": [{"task": task, "lines": [_where(first, files), _where(other, files)]}
                           for task, first, other in mixed[:MIXED_GOLD_TASKS_LISTED]],
        "tasks_with_different_grammar": len(grammars) if gold_checked else None,
        "different_grammar": [{"task": task, "lines": [_where(first, files), _where(other, files)],
                               "grammars": [grammar, other_grammar]}
                              for task, first, other, grammar, other_grammar in grammars[:MIXED_GOLD_TASKS_LISTED]],
        "tasks_split_by_type": len(split),
        "split_by_type": split[:MIXED_GOLD_TASKS_LISTED],
    }


def tasks_split_by_type(tasks: Iterable[Any]) -> list[int]:
    """The integer tasks also named as their decimal string (``1`` and ``"1"``), in order: two tasks to ek, as
    two ids are (JSON keeps the type), but almost surely one task written by two scripts, whose samples pass@k
    then counts apart.

    >>> tasks_split_by_type([3, "3", "a", 1, "01", "1", 2])
    [1, 3]
    """
    named = set(tasks)
    return sorted(t for t in named if type(t) is int and str(t) in named)


def build_report(result: RunResult, options: RunOptions, *, interval: Interval | None = None,
                 worst: int = 10, accuracy_interval: Interval | None = None,
                 resampled: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The report dict of a finished run (see ``docs/report-json.md``); ``resampled``: what the bootstrap of the
    intervals resampled (``{"unit": "task", "units": 40}``), written into each interval."""
    summary = result.summary
    files = result.files
    shown_files = _shown_spans(files)  # where the worst episodes and the lines not scored are located
    total = summary.total()
    by_tool_units = unit_counts_by_tool(total)
    per_reason = []
    split = reason_kinds(total)
    for reason, (weight, count) in total.by_reason().items():
        kinds = split.get(reason, {})
        per_reason.append({
            "reason": reason, "description": REASONS.get(reason, ""), "weight": weight, "count": count,
            "fp": {"weight": kinds.get(FP, (0.0, 0))[0], "count": kinds.get(FP, (0.0, 0))[1]},
            "fn": {"weight": kinds.get(FN, (0.0, 0))[0], "count": kinds.get(FN, (0.0, 0))[1]},
        })
    tp, fp, fn = total.exact_counts
    overall = _counts(total, total.unit_counts())
    categories = _per_category(summary)
    if summary.episodes == 0:  # no episode, no figures: a ratio of nothing is not a perfect 1.0
        overall.update(precision=None, recall=None, f1=None)
    return {
        "schema_version": SCHEMA_VERSION,
        "generator": f"ek {__version__}",
        "corpus": {
            "path": ", ".join(f.path for f in shown_files) if files else _shown(result.path),
            "files": [{"path": f.path, "lines": f.lines} for f in shown_files],
            "lines_read": result.counts.read,
            "blank_lines": result.counts.blank,
            "episodes_scored": summary.episodes,
            "error_lines": summary.error_count,
            "accounted": result.accounted,
            "unparseable_outputs": summary.parse_failures,
            "gold_warnings": summary.gold_warning_count,
        },
        "options": {
            "level": options.level,
            "canonicalizer": options.canonicalizer,
            "optimal": options.optimal,
            "order": options.order,
            "format": options.format,
            "grammar": options.grammar,
            "search_path": list(options.search_path),
            "gold_file": options.gold_file,
            "bfcl_answers": options.bfcl_answers,
            "bfcl_questions": options.bfcl_questions,
            "underscore_to_dot": options.underscore_to_dot,
            "tau_bench": options.tau_bench,
            "invalid_gold": options.invalid_gold,
            "validate": options.validate,
            "task_gold": options.task_gold,
        },
        "overall": {**overall,
                    "exact": {"tp": _fraction(tp), "fp": _fraction(fp), "fn": _fraction(fn)}},
        "confidence_interval": (None if interval is None
                                else {"metric": "micro_f1", **interval.to_dict(), **(resampled or {})}),
        "accuracy": _accuracy(summary.episodes, summary.exact_count, accuracy_interval, resampled),
        "per_turn": _per_turn(summary),
        "first_failing_turn": [{"turn": t, "episodes": n} for t, n in sorted(summary.first_failing.items())],
        "per_category": categories,
        "format_sensitivity": _format_sensitivity(categories),
        "abstention": _abstention(summary),
        "repeats": _repeats(summary, shown_files, gold_checked=options.task_gold != "ignore"),
        "per_tool": [{"tool": tool, **_counts(score, by_tool_units.get(tool, {}))}
                     for tool, score in total.by_tool().items()],
        "per_reason": per_reason,
        "per_argument": [{"tool": tool, "arg": arg, "status": status, "count": n}
                         for (tool, arg, status), n in sorted(summary.arg_failures.items(),
                                                              key=lambda kv: (-kv[1], kv[0]))],
        "grammars": [{"grammar": g or None, "episodes": n} for g, n in sorted(summary.grammars.items())],
        "worst_episodes": [_episode(d, shown_files) for d in summary.worst(worst)],
        "errors": [_located(e, shown_files) for e in summary.errors],
        "errors_omitted": summary.error_count - len(summary.errors),
        "gold_file_errors": [{"line": e.line, "id": e.id, "reason": e.reason} for e in result.gold_errors],
        "gold_warnings": [_located(e, shown_files) for e in summary.gold_warnings],
    }


def write_json(report: dict[str, Any], path: str) -> None:
    """Write the report as indented UTF-8 JSON (keys in a fixed order, so files diff cleanly), atomically."""
    write_json_atomic(path, report)


__all__ = ["SCHEMA_VERSION", "build_report", "write_json"]
