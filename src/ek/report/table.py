"""Plain-text, aligned tables for the terminal (no dependency), and the ``ek score`` summary built from them."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from ek.limits import TOOL_ROWS_PRINTED
from ek.terminaltext import escaped as printable  # what the table prints of text ek did not write (a tab too)


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(width - 1, 0)] + "…"


def format_table(headers: Sequence[str], rows: Sequence[Sequence[Any]], *, align: str = "",
                 max_width: int = 48, indent: str = "  ") -> str:
    """Columns padded to their widest cell; ``align`` has one ``l``/``r`` per column (default: left).

    Cells are shown with ``str`` and cut at ``max_width`` characters; control
    characters are escaped so a hostile cell cannot move the cursor.

    >>> print(format_table(["tool", "F1"], [["search", "1.000"], ["book_flight", "0.5"]], align="lr"))
      tool            F1
      search       1.000
      book_flight    0.5
    """
    cells = [[_clip(printable(str(c)), max_width) for c in row] for row in rows]
    head = [printable(h) for h in headers]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(head)]
    align = align.ljust(len(widths), "l")

    def line(row: Sequence[str]) -> str:
        parts = [c.rjust(w) if a == "r" else c.ljust(w) for c, w, a in zip(row, widths, align)]
        return (indent + "  ".join(parts)).rstrip()

    return "\n".join([line(head), *(line(r) for r in cells)])


def _num(x: float) -> str:
    return f"{x:g}" if x == int(x) else f"{x:.3f}"


def _ratio(x: float) -> str:
    return f"{x:.4f}"


def _accuracy_text(acc: dict[str, Any]) -> str:
    text = f"{_ratio(acc['value'])} ({acc['exact']}/{acc['episodes']} episodes with no FP and no FN)"
    ci = acc.get("interval")
    if ci:
        text += f", {ci['confidence']:.0%} CI [{ci['low']:.4f}, {ci['high']:.4f}]"
    return text


def _resampled(ci: dict[str, Any]) -> str:
    """What a bootstrap interval resampled, in words."""
    if ci.get("unit") == "task":
        return f"{ci['units']} tasks, each task's samples drawn together"
    return "episodes"


def _abstention_rows(ab: dict[str, int] | None) -> list[str]:
    """Abstention as its own rows, when some turn expected no call or some output made none wrongly."""
    if not ab or not (ab["no_call_expected"] or ab["missed_call"]):
        return []
    return ["", "Abstention (turns; gold [] means calling nothing is right)", format_table(
        ["outcome", "turns", "meaning"],
        [["abstained", ab["abstained"], "gold [], no call: right"],
         ["spurious_call", ab["spurious_call"], "gold [], but the model called"],
         ["unparseable", ab["unparseable"], "gold [], output unreadable: not an abstention"],
         ["missed_call", ab["missed_call"], "gold has calls, the model made none"]],
        align="lrl")]


def _main_reasons(episode: dict[str, Any]) -> str:
    """A worst episode's costliest reasons; for one that lost no weight, why it is not exact.

    An unreadable output where gold is ``[]`` costs no unit (nothing was expected) yet is never an
    abstention: without this the row would read F1 1.0, lost 0 and no reason at all.
    """
    if not episode["reasons"] and episode.get("parse_error"):
        return f"unreadable output: {episode['parse_error']}"
    return ", ".join(f"{r['reason']} {_num(r['weight'])}" for r in episode["reasons"][:3])


def _episode_sections(report: dict[str, Any]) -> list[str]:
    """Episode accuracy, per turn (when some episode has more than one), per category, and repeated runs."""
    out: list[str] = []
    acc = report.get("accuracy")
    if acc and acc["value"] is not None:
        out.append(f"  episode accuracy {_accuracy_text(acc)}")
    out.extend(_abstention_rows(report.get("abstention")))
    turns = report.get("per_turn") or []
    if len(turns) > 1:
        failing = {f["turn"]: f["episodes"] for f in report.get("first_failing_turn") or []}
        out.append("")
        out.append("Per turn (turn 0 is the first; each turn matched on its own)")
        out.append(format_table(
            ["turn", "episodes", "F1", "TP", "FP", "FN", "exact", "first failing here"],
            [[t["turn"], t["episodes"], _ratio(t["f1"]), _num(t["tp"]), _num(t["fp"]), _num(t["fn"]), t["exact"],
              failing.get(t["turn"], 0)] for t in turns],
            align="rrrrrrrr"))
    categories = report.get("per_category") or []
    if len(categories) > 1 or (categories and categories[0]["category"] is not None):
        out.append("")
        out.append("Per category")
        out.append(format_table(
            ["category", "episodes", "accuracy", "F1", "TP", "FP", "FN"],
            [["(none)" if c["category"] is None else c["category"], c["accuracy"]["episodes"],
              _ratio(c["accuracy"]["value"]), _ratio(c["f1"]), _num(c["tp"]), _num(c["fp"]), _num(c["fn"])]
             for c in categories],
            align="lrrrrrr", max_width=64))  # (BFCL's format-sensitivity labels name five settings)
    spread = report.get("format_sensitivity")
    if spread:
        out.append(f"  format sensitivity (BFCL v4): {spread['configurations']} configurations, accuracy "
                   f"{_ratio(spread['lowest']['accuracy'])} to {_ratio(spread['highest']['accuracy'])}; max delta "
                   f"{_ratio(spread['max_delta'])}, stdev {_ratio(spread['stdev'])} (BFCL prints both times 100)")
    rep = report.get("repeats")
    if rep:
        out.append("")
        out.append(f"Repeated runs: {rep['tasks']} tasks, {rep['samples']} samples "
                   f"({rep['samples_min']} to {rep['samples_max']} per task)")
        out.append(format_table(
            ["k", "pass@k (some sample exact)", "pass^k (all k exact)"],
            [[k, _ratio(rep["pass_at_k"][k]), _ratio(rep["pass_hat_k"][k])] for k in rep["pass_at_k"]],
            align="rrr"))
        spread = rep["sample_accuracy"]
        out.append(f"  per-sample accuracy over {len(spread['values'])} samples: mean {_ratio(spread['mean'])}, "
                   f"min {_ratio(spread['min'])}, max {_ratio(spread['max'])}, stdev {_ratio(spread['stdev'])}")
        files = len(report["corpus"].get("files") or ())
        mixed = rep.get("tasks_with_different_gold", 0)
        if mixed:
            out.append(f"  warning: {MIXED_GOLD_WARNING.format(mixed)}:")
            out.extend(f"    {entry}" for entry in different_gold(rep, files))
        mixed = rep.get("tasks_with_different_grammar", 0)
        if mixed:
            out.append(f"  warning: {MIXED_GRAMMAR_WARNING.format(mixed)}:")
            out.extend(f"    {entry}" for entry in different_grammar(rep, files))
        if rep.get("tasks_split_by_type"):
            out.append(f"  warning: {SPLIT_TASKS_WARNING.format(rep['tasks_split_by_type'])}: {split_tasks(rep)}")
    return out


#: What a run's integer tasks also named as strings mean (``{}``: how many), on stderr and in the table.
SPLIT_TASKS_WARNING = ("{} task(s) are named both as an integer and as a string (1 and \"1\"): each is counted as two "
                       "tasks, so pass@k and pass^k see its samples apart; write every task one way")


def split_tasks(rep: dict[str, Any], limit: int | None = None) -> str:
    """The tasks of a report's ``repeats`` named both ways, as text: the first ``limit`` (default: all the
    report lists), then how many more."""
    listed = rep["split_by_type"][:limit]
    text = ", ".join(f"{t} and {shown_task(str(t))}" for t in listed)
    more = rep["tasks_split_by_type"] - len(listed)
    return text + (f", ... and {more:,} more" if more else "")


#: What a run's tasks of different gold mean (``{}``: how many), on stderr and in the table.
MIXED_GOLD_WARNING = ("{} task(s) have samples scored against different gold, so pass@k, pass^k and a bootstrap "
                      "over tasks mix questions")


def different_gold(rep: dict[str, Any], files: int, limit: int | None = None) -> list[str]:
    """The tasks of a report's ``repeats`` whose samples have different gold, as lines of text: each task with a
    line of either gold (``files``: how many input files the run read, see :func:`_place`), the first ``limit``
    (default: all the report lists), then how many more."""
    listed = rep["different_gold"][:limit]
    out = [f"task {shown_task(m['task'])}: {_place(m['lines'][0], files)} and {_place(m['lines'][1], files)} "
           "have different gold" for m in listed]
    more = rep["tasks_with_different_gold"] - len(listed)
    if more:
        out.append(f"... and {more:,} more task(s)")
    return out


#: What a run's tasks scored with different grammars mean (``{}``: how many), on stderr and in the table.
MIXED_GRAMMAR_WARNING = ("{} task(s) have samples scored with different grammars, so pass@k, pass^k and a bootstrap "
                         "over tasks mix one question held to different schemas")


def different_grammar(rep: dict[str, Any], files: int, limit: int | None = None) -> list[str]:
    """The tasks of a report's ``repeats`` whose samples are scored with different grammars, as lines of text: each
    task with a line of either grammar and the two grammars, the first ``limit`` (default: all the report lists),
    then how many more."""
    listed = rep["different_grammar"][:limit]
    out = [f"task {shown_task(m['task'])}: {_place(m['lines'][0], files)} is scored with "
           f"{printable(m['grammars'][0])} and {_place(m['lines'][1], files)} with {printable(m['grammars'][1])}"
           for m in listed]
    more = rep["tasks_with_different_grammar"] - len(listed)
    if more:
        out.append(f"... and {more:,} more task(s)")
    return out


def shown_task(task: Any) -> str:
    """A task (a line's ``task``: a string or an integer) as a report prints it: its repr, printable, long
    ones cut short."""
    text = printable(repr(task))
    return text if len(text) <= TASK_CHARS_SHOWN else f"{text[:TASK_CHARS_SHOWN - 3]}... ({len(text):,} characters)"


#: Characters of a task name printed (the JSON report holds it whole).
TASK_CHARS_SHOWN = 80


def _place(entry: dict[str, Any], files: int) -> str:
    """``line N``, or, in a run over several files, ``FILE line M`` (the line within that file)."""
    if files > 1 and "file" in entry:
        return f"{os.path.relpath(entry['file'])} line {entry['file_line']}"
    return f"line {entry['line']}"


#: How the report's header names a grammar label that is not a schema (``Summary.grammars``' own labels)
_GRAMMAR_LABELS = {"bfcl:question": "each question's functions (--bfcl-questions)"}


def grammar_text(report: dict[str, Any]) -> str:
    """What the header of a report (the table's, the HTML page's) says the episodes were scored against: the
    ``--grammar`` given; else the grammars the episodes used (each BFCL question's own functions, or the
    grammars lines name), so that a run scored against schemas never says ``none``; else ``none``.

    >>> grammar_text({"options": {"grammar": None}, "grammars": [{"grammar": "bfcl:question", "episodes": 3}]})
    "each question's functions (--bfcl-questions)"
    >>> grammar_text({"options": {"grammar": None}, "grammars": [{"grammar": None, "episodes": 3}]})
    'none'
    >>> grammar_text({"options": {"grammar": None},
    ...               "grammars": [{"grammar": None, "episodes": 3}, {"grammar": "travel@1", "episodes": 2}]})
    'travel@1 (2 of 5 episodes; none for the rest)'
    """
    given = report["options"]["grammar"]
    if given:
        return printable(str(given))
    entries = report.get("grammars", ())
    used = [entry for entry in entries if entry["grammar"]]
    if not used:
        return "none"
    if len(used) > 1:
        return f"{len(used)} grammars, named per line or question"
    label = printable(_GRAMMAR_LABELS.get(used[0]["grammar"], str(used[0]["grammar"])))
    if len(entries) == 1:
        return label
    return f"{label} ({used[0]['episodes']} of {sum(entry['episodes'] for entry in entries)} episodes; none for the rest)"


def render_report(report: dict[str, Any], *, max_errors: int = 20) -> str:
    """The terminal summary of an ``ek score`` report dict (see :mod:`ek.report.jsonreport`)."""
    c, o, opts = report["corpus"], report["overall"], report["options"]
    out: list[str] = []
    grammar = grammar_text(report)
    out.append(f"ek score {printable(c['path'])}")
    out.append(f"  level {opts['level']}, canonicalizer {opts['canonicalizer']}, "
               f"{'optimal' if opts['optimal'] else 'greedy'} matching, order {opts.get('order', 'gold')}, "
               f"format {'tau-bench results' if opts.get('tau_bench') else opts.get('format', 'auto')}, "
               f"grammar {grammar}")
    out.append(f"  {c['lines_read']} lines read: {c['episodes_scored']} episodes scored, "
               f"{c['error_lines']} error lines, {c['blank_lines']} blank lines skipped"
               + ("" if c["accounted"] else "  (ACCOUNTING MISMATCH: please report this)"))
    used = report.get("grammars") or []
    if len(used) > 1:  # some lines name their own NAME@VERSION
        out.append("  grammars used: " + ", ".join(f"{printable(g['grammar'] or 'none')} ({g['episodes']} episodes)"
                                                   for g in used))
    if c["unparseable_outputs"]:
        out.append(f"  {c['unparseable_outputs']} output(s) could not be parsed (scored as zero predicted calls)")
    out.append("")
    if o["f1"] is None:
        out.append("Nothing was scored: no line holds an episode that could be scored, so there are no figures "
                   "(precision, recall and F1 are null in --json)")
    else:
        out.append("Overall (micro-averaged: TP, FP, FN summed over episodes, cost-weighted)")
        units = o["units"]
        rows = [[_ratio(o["precision"]), _ratio(o["recall"]), _ratio(o["f1"]), _num(o["tp"]), _num(o["fp"]),
                 _num(o["fn"]), f"{units['tp']}/{units['fp']}/{units['fn']}"]]
        out.append(format_table(["precision", "recall", "F1", "TP", "FP", "FN", "units TP/FP/FN"], rows,
                                align="rrrrrrr"))
    ci = report.get("confidence_interval")
    if ci:
        out.append(f"  F1 {ci['confidence']:.0%} CI [{ci['low']:.4f}, {ci['high']:.4f}] "
                   f"(percentile bootstrap over {_resampled(ci)}, {ci['replicates']} replicates, seed {ci['seed']})")
    out.extend(_episode_sections(report))
    if report["per_tool"]:
        out.append("")
        out.append("Per tool (worst F1 first)")
        tools = sorted(report["per_tool"], key=lambda t: (t["f1"], t["tool"]))
        out.append(format_table(
            ["tool", "precision", "recall", "F1", "TP", "FP", "FN", "units TP/FP/FN"],
            [[t["tool"], _ratio(t["precision"]), _ratio(t["recall"]), _ratio(t["f1"]), _num(t["tp"]),
              _num(t["fp"]), _num(t["fn"]), f"{t['units']['tp']}/{t['units']['fp']}/{t['units']['fn']}"]
             for t in tools[:TOOL_ROWS_PRINTED]],
            align="lrrrrrrr"))
        if len(tools) > TOOL_ROWS_PRINTED:
            out.append(f"  ... and {len(tools) - TOOL_ROWS_PRINTED:,} more tools (all of them are in --json)")
    if report["per_reason"]:
        out.append("")
        out.append("Per error type (most costly first)")
        out.append(format_table(
            ["reason", "weight", "units", "FP", "FN", "meaning"],
            [[r["reason"], _num(r["weight"]), r["count"], _num(r["fp"]["weight"]), _num(r["fn"]["weight"]),
              r["description"]] for r in report["per_reason"]],
            align="lrrrrl", max_width=72))
    if report.get("per_argument"):
        out.append("")
        out.append("Argument failures inside matched calls (most frequent first)")
        top = report["per_argument"][:15]
        out.append(format_table(["tool", "argument", "status", "times"],
                                [[a["tool"], a["arg"], a["status"], a["count"]] for a in top], align="lllr"))
        if len(report["per_argument"]) > len(top):
            out.append(f"  ... and {len(report['per_argument']) - len(top)} more (all of them are in --json)")
    if report["worst_episodes"]:
        out.append("")
        out.append("Worst episodes (most weight lost first)")
        multi = any(e.get("turns", 1) > 1 for e in report["worst_episodes"])
        out.append(format_table(
            ["line", "id", "F1", "lost", *(["first failing turn"] if multi else []), "main reasons"],
            [[e["line"], "" if e["id"] is None else e["id"], _ratio(e["f1"]), _num(e["lost"]),
              *([f"{e['first_failing_turn']} of {e['turns']}"] if multi else []),
              _main_reasons(e)]
             for e in report["worst_episodes"]],
            align="rlrrrl" if multi else "rlrrl", max_width=60))
    for title, key in (("Error lines (not scored)", "errors"), ("Gold file errors", "gold_file_errors"),
                       ("Gold warnings (gold the grammar rejects, scored anyway: --invalid-gold warn)",
                        "gold_warnings")):
        errors = report.get(key) or []
        if not errors:
            continue
        total = (c["error_lines"] if key == "errors" else c.get("gold_warnings", 0) if key == "gold_warnings"
                 else len(errors))
        out.append("")
        out.append(f"{title}: {total}")
        for e in errors[:max_errors]:
            who = f" (id {e['id']!r})" if e["id"] is not None else ""
            out.append(f"  {_place(e, len(c.get('files') or ()))}{who}: {printable(e['reason'])}")
        if total > max_errors:
            where = "all of them" if total == len(errors) else f"the first {len(errors):,}"
            out.append(f"  ... and {total - max_errors:,} more ({where} are in --json)")
    return "\n".join(out)


__all__ = ["MIXED_GOLD_WARNING", "MIXED_GRAMMAR_WARNING", "different_gold", "different_grammar", "format_table",
           "grammar_text", "render_report", "shown_task"]
