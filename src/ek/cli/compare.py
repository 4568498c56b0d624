"""``ek compare A.jsonl B.jsonl``: does system B really score better than system A on the same episodes?

Both corpora are scored with the same settings, paired by episode ``id``, and
a paired bootstrap over episodes gives ΔF1 = F1(B) - F1(A) with a confidence
interval and a two-sided p-value. When lines name a ``task`` and some task
repeats (several samples of one task), A and B are paired by task instead:
each task's samples are summed into one row, so the bootstrap resamples
tasks. Ids (or tasks) must match one to one: a mismatch is
listed and fails the run (exit 1) unless ``--allow-errors``, which compares
the common episodes only. ``--gold`` lets A and B hold only ``id`` + ``pred``;
it is then the gold and grammar of every line of both. Paired ids scored against
different gold or grammars are refused (exit 1, even with ``--allow-errors``).
"""

from __future__ import annotations

import argparse
import os
import sys
from array import array
from typing import Any

from ek.atomicfile import write_json_atomic
from ek.cli.score import (
    MIN_BOOTSTRAP_EPISODES,
    aborted,
    add_metric_arguments,
    check_inputs,
    fraction,
    non_negative,
    read_run_inputs,
    replicates,
    resolve_jobs,
    run_options,
    score_file,
    write_report,
)
from ek.limits import BOOTSTRAP_MAX_REPLICATES

#: Fewest paired episodes a verdict is given on.
MIN_PAIRED = MIN_BOOTSTRAP_EPISODES
#: Below this many paired episodes the verdict comes with a caution.
FEW_PAIRED = 30


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = ("exit status: 0 with a verdict (significant or not), 1 without one: lines not scored, ids "
                     "that do not pair up one to one (unless --allow-errors), paired ids scored against different "
                     "gold or grammars (pass one shared --gold), or fewer than 2 paired episodes; "
                     "2 for usage errors; 3 when scoring was cut short (a --jobs worker process died); 4 when "
                     "the verdict fails --fail-if")
    parser.add_argument("a", metavar="A.jsonl", help="corpus of system A (the baseline)")
    parser.add_argument("b", metavar="B.jsonl", help="corpus of system B (the candidate)")
    add_metric_arguments(parser)
    parser.add_argument("--bootstrap", type=replicates, default=2000, metavar="N",
                        help="paired bootstrap replicates (default 2000)")
    parser.add_argument("--seed", type=non_negative, default=0, help="seed of the bootstrap, 0 or more (default 0)")
    parser.add_argument("--confidence", type=fraction, default=0.95, help="CI level (default 0.95)")
    parser.add_argument("--alpha", type=fraction, default=0.05,
                        help="significance level of the verdict (default 0.05)")
    parser.add_argument("--fail-if", choices=("worse", "not-better"),
                        help="a regression gate for CI: exit status 4 when B is significantly worse than A (worse), "
                             "or unless B is significantly better (not-better), at --alpha")
    parser.add_argument("--json", metavar="OUT.json", help="write the comparison as JSON")


def _pair(ids_a: list[Any], ids_b: list[Any]) -> tuple[list[int], list[int], list[Any], list[Any], list[Any]]:
    """Indices of ids present once in each file (in A's order), ids only in A / only in B, duplicated ids.

    A duplicated id is ambiguous, so it is never paired. An episode without an id (None) pairs with nothing
    and is in no list: the caller reports those lines on their own.
    """
    count_a: dict[Any, int] = {}
    count_b: dict[Any, int] = {}
    pos_b: dict[Any, int] = {}
    for i in ids_a:
        if i is not None:
            count_a[i] = count_a.get(i, 0) + 1
    for k, i in enumerate(ids_b):
        if i is not None:
            count_b[i] = count_b.get(i, 0) + 1
            pos_b.setdefault(i, k)
    dup = [i for i in {**count_a, **count_b} if count_a.get(i, 0) > 1 or count_b.get(i, 0) > 1]
    idx_a, idx_b = [], []
    for k, i in enumerate(ids_a):
        if i is not None and count_a[i] == 1 and count_b.get(i) == 1:
            idx_a.append(k)
            idx_b.append(pos_b[i])
    only_a = [i for i in count_a if i not in count_b]
    only_b = [i for i in count_b if i not in count_a]
    return idx_a, idx_b, only_a, only_b, dup


def _unlike(sa: Any, sb: Any, idx_a: list[int], idx_b: list[int], unit: str = "id") -> dict[str, Any] | None:
    """Paired ids (``unit="task"``: tasks) scored against different gold or a different grammar in A and B: how
    many, and the first one (in A's order) with its lines and grammars; None when the runs compare like with
    like."""
    first: tuple[int, int, str] | None = None
    counts = {"gold": 0, "grammar": 0}
    for i, j in zip(idx_a, idx_b, strict=True):
        what = _differs_in(sa.sources[i], sb.sources[j])
        if what is not None:
            counts[what] += 1
            first = first or (i, j, what)
    if first is None:
        return None
    i, j, what = first
    return {"unit": unit, "first_id": (sa.task_ids if unit == "task" else sa.ids)[i], "differs_in": what,
            "a_line": sa.lines[i], "b_line": sb.lines[j],
            "a_grammar": sa.sources[i][0], "b_grammar": sb.sources[j][0],
            "ids_with_different_gold": counts["gold"], "ids_with_different_grammar": counts["grammar"],
            "paired_ids": len(idx_a)}


def _differs_in(source_a: tuple[Any, Any], source_b: tuple[Any, Any]) -> str | None:
    """What two episodes' answer keys differ in: ``grammar``, ``gold`` (gold JSON, key order ignored) or None."""
    (grammar_a, gold_a), (grammar_b, gold_b) = source_a, source_b
    return "grammar" if grammar_a != grammar_b else "gold" if gold_a != gold_b else None


def _mixed_key(name: str, summary: Any, groups: list[list[int]]) -> dict[str, Any] | None:
    """The first task whose samples in one run are scored against different answer keys (its pass rates would
    mix two questions), with the two lines; None when each task's samples share one."""
    for group in groups:
        first = summary.sources[group[0]]
        for k in group[1:]:
            what = _differs_in(first, summary.sources[k])
            if what is not None:
                return {"run": name, "task": summary.task_ids[k], "differs_in": what,
                        "first_line": summary.lines[group[0]], "line": summary.lines[k]}
    return None


def _mixed_message(mixed: dict[str, Any]) -> str:
    return (f"not comparing: {mixed['run']} scores the samples of task {_shown_id(mixed['task'])} against "
            f"different {mixed['differs_in']} (lines {mixed['first_line']} and {mixed['line']}); a task's samples "
            "must share one answer key: pass one shared --gold")


def _unlike_message(unlike: dict[str, Any]) -> str:
    u = unlike
    what = (f"different grammars ({u['a_grammar']} vs {u['b_grammar']})" if u["differs_in"] == "grammar"
            else "different gold")
    return (f"not comparing: A and B score {u['unit']} {_shown_id(u['first_id'])} (A line {u['a_line']}, B line "
            f"{u['b_line']}) against {what}; of {u['paired_ids']} paired {u['unit']}s, "
            f"{u['ids_with_different_gold']} have different gold and {u['ids_with_different_grammar']} a "
            "different grammar. Scores against different answer keys are not comparable: pass one shared "
            "--gold (it is then the gold and grammar of both runs)")


def _columns(rows: tuple[array[float], array[float], array[float]], idx: list[Any]) -> tuple[list[float], ...]:
    """Per paired unit, its (tp, fp, fn) row: one episode (an index), or the sum of a task's samples (a list)."""
    if idx and isinstance(idx[0], list):
        return tuple([sum(col[k] for k in group) for group in idx] for col in rows)
    return tuple([col[k] for k in idx] for col in rows)


def _pair_tasks(sa: Any, sb: Any) -> tuple[list[list[int]], list[list[int]], list[Any], list[Any], int]:
    """Episode indices of each task present in both runs (in A's order of first appearance), tasks only in A /
    only in B, and how many episodes name no task (they cannot be paired)."""
    groups: list[dict[Any, list[int]]] = [{}, {}]
    untasked = 0
    for side, summary in zip(groups, (sa, sb), strict=True):
        for k, task in enumerate(summary.task_ids):
            if task is None:
                untasked += 1
            else:
                side.setdefault(task, []).append(k)
    a, b = groups
    common = [t for t in a if t in b]
    return [a[t] for t in common], [b[t] for t in common], [t for t in a if t not in b], \
        [t for t in b if t not in a], untasked


def _per_tool(a: Any, b: Any) -> list[dict[str, Any]]:
    """F1 of each tool in A and in B (micro, over each file's scored episodes), largest change first."""
    ta, tb = a.total().by_tool(), b.total().by_tool()
    rows = []
    for tool in sorted(set(ta) | set(tb)):
        f1_a = ta[tool].f1 if tool in ta else 1.0
        f1_b = tb[tool].f1 if tool in tb else 1.0
        rows.append({"tool": tool, "f1_a": f1_a, "f1_b": f1_b, "delta": f1_b - f1_a})
    return sorted(rows, key=lambda r: (-abs(r["delta"]), r["tool"]))


#: Characters of one id shown in the terminal's list of ids that do not pair up (the JSON report has them whole).
ID_CHARS_SHOWN = 80


def _shown_id(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= ID_CHARS_SHOWN else f"{text[:ID_CHARS_SHOWN - 3]}... ({len(text):,} characters)"


def _listing(label: str, ids: list[Any], limit: int = 20) -> str:
    shown = ", ".join(_shown_id(i) for i in ids[:limit])
    more = f" ... and {len(ids) - limit} more" if len(ids) > limit else ""
    return f"  {label} ({len(ids)}): {shown}{more}"


def _replicates_note(replicates: int, alpha: float) -> str | None:
    """The note for a ``--bootstrap`` too small for any p below ``alpha`` ("p < 0.1000" beside "no significant
    difference" at ``--alpha 0.1``): what to use instead, or that no allowed count reaches it; else None."""
    from ek.stats import p_floor, replicates_to_reach

    floor = p_floor(replicates)
    if floor < alpha:
        return None
    needed = replicates_to_reach(alpha)
    if needed is None:
        advice = (f"no --bootstrap can reach it (at most {BOOTSTRAP_MAX_REPLICATES:,}: p >= "
                  f"{p_floor(BOOTSTRAP_MAX_REPLICATES):.1e})")
    else:
        advice = f"use --bootstrap {needed}" + (" or more" if needed < BOOTSTRAP_MAX_REPLICATES else "")
    return (f"note: {replicates} replicates give no p below {floor:.4f}, so nothing can be significant at "
            f"--alpha {alpha:g}; {advice}")


def run(args: argparse.Namespace) -> int:
    if args.a == args.b == "-":
        print("ek compare: error: only one of A and B can be '-' (stdin can be read once)", file=sys.stderr)
        return 2
    failed = check_inputs("compare", args, [args.a, args.b])
    if failed is not None:
        return failed
    from ek.report.table import printable
    from ek.stats import paired_bootstrap

    # with --gold, that one file is the gold (and grammar) of both runs, whatever their lines hold
    options = run_options(args, keep_worst=0, keep_details=0, keep_ids=True, shared_gold=bool(args.gold))
    inputs = read_run_inputs("compare", options)  # one gold for both runs
    if isinstance(inputs, int):
        return inputs
    from ek.corpus.runner import WorkerDiedError

    try:
        results = {name: score_file(path, options, resolve_jobs(args.jobs), inputs=inputs)
                   for name, path in (("A", args.a), ("B", args.b))}
    except WorkerDiedError as exc:
        return aborted("compare", exc)
    unscored = 0  # lines of A and B that count in no pair: not scored, or without an id (a task)
    sa, sb = results["A"].summary, results["B"].summary
    by_task = sa.tasks_repeat() or sb.tasks_repeat()
    for name, result in results.items():
        errors = list(result.summary.errors) + list(result.gold_errors)
        failed = result.summary.error_count + len(result.gold_errors)
        missing_id = [] if by_task else [line for line, i in zip(result.summary.lines, result.summary.ids)
                                         if i is None]
        if failed or missing_id:
            print(f"{name} ({printable(result.path)}): {failed} line(s) not scored" +
                  (f", {len(missing_id)} episode(s) without an id" if missing_id else ""), file=sys.stderr)
            for e in errors[:20]:
                print(f"  {e}", file=sys.stderr)
            if missing_id:
                print(f"  lines without an id: {', '.join(map(str, missing_id[:20]))}", file=sys.stderr)
        unscored += failed + len(missing_id)
        if result.summary.episodes == 0:
            print(f"{name} ({printable(result.path)}): nothing was scored", file=sys.stderr)
    if by_task:  # samples of one task: pair tasks, each the sum of its samples
        groups_a, groups_b, only_a, only_b, untasked = _pair_tasks(sa, sb)
        dup = []
        idx_a: list[Any] = groups_a
        idx_b: list[Any] = groups_b
        if untasked:
            print(f"{untasked} episode(s) name no task, so they cannot be paired by task", file=sys.stderr)
            unscored += untasked
        mixed = _mixed_key("A", sa, groups_a) or _mixed_key("B", sb, groups_b)
        if mixed is not None:  # as different answer keys in A and B: not even --allow-errors compares them
            print(_mixed_message(mixed), file=sys.stderr)
            if args.json:
                payload = {**_header(args), "verdict": None, "significant": None, "mixed_samples": mixed}
                write_report("compare", "--json", args.json, lambda: write_json_atomic(args.json, payload))
            return 1
        first_a, first_b = [g[0] for g in groups_a], [g[0] for g in groups_b]  # each task's samples share a key
        unit = "task"
    else:
        idx_a, idx_b, only_a, only_b, dup = _pair(sa.ids, sb.ids)
        first_a, first_b = idx_a, idx_b
        unit = "episode"
    if only_a or only_b or dup:
        print(f"{unit} {'tasks' if by_task else 'ids'} do not match between A and B:", file=sys.stderr)
        for label, ids in (("only in A", only_a), ("only in B", only_b), ("duplicated", dup)):
            if ids:
                print(_listing(label, ids), file=sys.stderr)
    unlike = _unlike(sa, sb, first_a, first_b, "task" if by_task else "id")
    if unlike:  # not even --allow-errors compares different answer keys
        print(_unlike_message(unlike), file=sys.stderr)
        if args.json:
            payload = {**_header(args), "verdict": None, "significant": None, "unlike": unlike}
            write_report("compare", "--json", args.json, lambda: write_json_atomic(args.json, payload))
        return 1
    if (unscored or only_a or only_b or dup) and not args.allow_errors:
        print("not comparing: fix the lines above, or pass --allow-errors to compare the common episodes only",
              file=sys.stderr)
        if args.json:  # CI still gets the mismatches, with no verdict
            payload = {**_header(args), "verdict": None, "significant": None, "only_in_a": only_a,
                       "only_in_b": only_b, "duplicated": dup, "unscored_lines": unscored}
            write_report("compare", "--json", args.json, lambda: write_json_atomic(args.json, payload))
        return 1
    if not idx_a:
        print(f"not comparing: A and B have no {unit} in common", file=sys.stderr)
        return 1
    if len(idx_a) < MIN_PAIRED:
        print(f"not comparing: a paired bootstrap needs at least {MIN_PAIRED} paired {unit}s, got {len(idx_a)} "
              f"(one {unit} resampled is the same {unit} every time, so any difference would look certain)",
              file=sys.stderr)
        return 1
    result = paired_bootstrap(_columns(sa.rows(), idx_a), _columns(sb.rows(), idx_b), replicates=args.bootstrap,
                              seed=args.seed, confidence=args.confidence)
    d = result.delta
    print(f"A {printable(args.a)}: F1 {result.f1_a:.4f}")
    print(f"B {printable(args.b)}: F1 {result.f1_b:.4f}")
    print(f"{result.episodes} paired {'tasks (samples summed per task)' if by_task else 'episodes'}; paired bootstrap, {d.replicates} replicates, seed {d.seed}, "
          f"{d.confidence:.0%} CI")
    print(result.verdict(args.alpha))
    note = _replicates_note(args.bootstrap, args.alpha)
    if note is not None:
        print(note)
    if result.episodes < FEW_PAIRED:
        print(f"note: only {result.episodes} paired {unit}s; on so few the bootstrap understates the spread, "
              "so treat the p-value as optimistic")
    tools = _per_tool(sa, sb)
    if tools:
        from ek.report.table import format_table

        print("\nPer tool (all scored episodes of each file; largest change first)")
        print(format_table(["tool", "F1 A", "F1 B", "ΔF1"],
                           [[t["tool"], f"{t['f1_a']:.4f}", f"{t['f1_b']:.4f}", f"{t['delta']:+.4f}"] for t in tools],
                           align="lrrr"))
    gate_failed = None if args.fail_if is None else _fails(args.fail_if, result, args.alpha)
    if args.json:
        payload = {**_header(args), **result.to_dict(args.alpha), "paired_by": unit,
                   "verdict": result.verdict(args.alpha),
                   **({} if gate_failed is None else {"fail_if": args.fail_if, "gate_failed": gate_failed}),
                   "per_tool": tools, "only_in_a": only_a, "only_in_b": only_b, "duplicated": dup,
                   "unscored_lines": unscored}
        failed = write_report("compare", "--json", args.json, lambda: write_json_atomic(args.json, payload))
        if failed is not None:
            return failed
    if gate_failed:
        what = "significantly worse than A" if args.fail_if == "worse" else "not significantly better than A"
        print(f"ek compare: --fail-if {args.fail_if}: B is {what}; exit status 4", file=sys.stderr)
        return 4
    return 0


def _fails(condition: str, result: Any, alpha: float) -> bool:
    """Whether a verdict fails ``--fail-if``: ``worse``, B significantly below A; ``not-better``, B not
    significantly above A (a difference that is not significant fails it)."""
    significant = result.significant(alpha)
    if condition == "worse":
        return significant and result.delta.estimate < 0
    return not (significant and result.delta.estimate > 0)


def _header(args: argparse.Namespace) -> dict[str, Any]:
    return {"schema_version": 1, "a": os.path.abspath(args.a), "b": os.path.abspath(args.b), "level": args.level,
            "canonicalizer": args.canonicalizer, "grammar": args.grammar}
