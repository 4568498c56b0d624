"""Multi-turn lines, tasks and categories through the corpus engine, in-process on real files."""

from __future__ import annotations

import itertools
import json
import math
import random
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from cputime import growth
from hypothesis import given, settings
from hypothesis import strategies as st

from ek.corpus import runner
from ek.corpus.reading import Episode, LineError, parse_episode
from ek.corpus.runner import RunOptions, run
from ek.corpus.summary import Summary
from ek.report.jsonreport import _repeats, build_report
from ek.stats import mean_pass_rates, pass_at_k, pass_hat_k, pass_k_values


def call(name: str, **args: Any) -> dict[str, Any]:
    return {"name": name, "arguments": args}


@pytest.mark.parametrize(("line", "reason"), [
    ({"turns": [{"pred": "f()", "gold": []}], "pred": "f()"}, "also has top-level 'pred'"),
    ({"turns": [{"pred": "f()", "gold": []}], "gold": []}, "also has top-level 'gold'"),
    ({"turns": [{"pred": "f()", "gold": []}, {"pred": "g()"}]}, "turn 1: no 'gold' calls"),
    ({"turns": [{"gold": []}]}, "turn 0: no predicted output"),
    ({"turns": []}, "'turns' must be a non-empty list"),
    ({"turns": {"pred": "f()", "gold": []}}, "'turns' must be a non-empty list"),
    ({"turns": ["f()"]}, "turn 0: expected an object"),
    ({"turns": [{"pred": "f()", "gold": [{"arguments": {}}]}]}, "turn 0: "),
    ({"task": 1.5, "pred": "f()", "gold": []}, "'task' must be a string or an integer"),
    ({"category": 3, "pred": "f()", "gold": []}, "'category' must be a string"),
    ({"pred": "f()", "output": "g()", "gold": []}, "the output is under both 'pred' and 'output': which one"),
    ({"turns": [{"output": "g()", "pred": "f()", "gold": []}]}, "turn 0: the output is under both 'pred' and"),
    ({"turns": [{"pred": "f()", "gold": [], "format": "zzz"}]}, "turn 0: 'format' applies to the whole line"),
    ({"turns": [{"pred": "f()", "gold": [], "grammar": "x@1"}]}, "turn 0: 'grammar' applies to the whole line"),
])
def test_bad_multi_turn_lines_are_error_lines_with_their_reason(line: dict[str, Any], reason: str) -> None:
    item = parse_episode(json.dumps({"id": "x", **line}), 4)
    assert isinstance(item, LineError) and item.line == 4 and item.id == "x"
    assert reason in item.reason


_DUPLICATE = '[{"name": "f", "arguments": {"x": 1, "x": 2}}]'
_SURROGATE = '[{"name": "f\\ud800", "arguments": {"x": 2}}]'
_LONG_INT = '[{"name": "f", "arguments": {"x": %s}}]' % ("7" * 5000)


@pytest.mark.parametrize(("gold", "reason"), [
    (_DUPLICATE, "duplicate key 'x' in a JSON object"),
    (_SURROGATE, "a lone UTF-16 surrogate (\\ud800) is not Unicode text"),
    (_LONG_INT, "an integer of 5000 digits"),
])
@pytest.mark.parametrize("where", ["line", "turn"])
def test_gold_as_json_text_is_read_as_strictly_as_gold_as_json(gold: str, reason: str, where: str) -> None:
    """Gold stored as JSON text (a dataset column of strings) is refused for what the same gold written as JSON is
    refused for: a key given twice (json.loads would keep the last, and score a wrong output exact), a lone
    surrogate, an integer too long to read."""
    fields = {"pred": "f(x=2)", "gold": gold}
    as_text = parse_episode(json.dumps({"id": "t", **(fields if where == "line" else {"turns": [fields]})}), 2)
    as_json = parse_episode('{"id": "j", "pred": "f(x=2)", "gold": %s}' % gold, 3)
    assert isinstance(as_text, LineError) and reason in as_text.reason
    assert "'gold' is a string holding" in as_text.reason
    assert isinstance(as_json, LineError) and reason in as_json.reason


def test_gold_as_json_text_reads_as_gold_as_json() -> None:
    gold = ' \n[{"name": "f", "arguments": {"x": [1, {"y": null}]}}] '
    text = parse_episode(json.dumps({"pred": "f()", "gold": gold}), 1)
    plain = parse_episode(json.dumps({"pred": "f()", "gold": [{"name": "f", "arguments": {"x": [1, {"y": None}]}}]}), 1)
    assert isinstance(text, Episode) and text.gold == plain.gold  # type: ignore[union-attr]


def test_a_turn_output_of_no_readable_type_is_an_error_naming_its_turn(tmp_path: Path) -> None:
    """An output that is neither text nor JSON object/array is found when the turn is scored: the line's error
    names the turn, as every other error inside a turn does."""
    path = tmp_path / "c.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in [
        {"id": "a", "turns": [{"pred": 5, "gold": [call("f")]}]},
        {"id": "b", "turns": [{"pred": "f()", "gold": [call("f")]}, {"pred": True, "gold": []}]},
        {"id": "c", "pred": 5.5, "gold": []},
    ]))
    result = run(str(path), RunOptions(), jobs=1)
    assert [(e.line, e.reason) for e in result.summary.errors] == [
        (1, "cannot score: turn 0: the predicted output must be text or a JSON object/array, got int: 5"),
        (2, "cannot score: turn 1: the predicted output must be text or a JSON object/array, got bool: true"),
        (3, "cannot score: the predicted output must be text or a JSON object/array, got float: 5.5"),
    ]


def test_a_multi_turn_line_reads_its_turns_task_and_category() -> None:
    item = parse_episode(json.dumps({"id": 1, "task": "t", "category": "travel", "turns": [
        {"pred": "f(x=1)", "gold": [call("f", x=1)]}, {"output": "", "gold": []}]}), 2)
    assert isinstance(item, Episode)
    assert [len(t.gold) for t in item.all_turns()] == [1, 0]
    assert (item.task, item.category) == ("t", "travel")


def _corpus(path: Path, n: int, seed: int = 3) -> Path:
    """Multi-turn and single-turn lines, 3 to 5 samples per task, some wrong, in several categories."""
    rng = random.Random(seed)
    with open(path, "w", encoding="utf-8") as out:
        for i in range(n):
            task = f"task-{i // 4}" if i % 9 else f"task-{i // 5}"
            turns = []
            for t in range(1 + i % 3):
                right = rng.random() < 0.7
                gold = [call("f", x=t)] if t % 2 == 0 else [call("g", q=str(i))]
                pred = (f"f(x={t})" if t % 2 == 0 else f"g(q='{i}')") if right else rng.choice(["", "f(x=9)", "h()"])
                turns.append({"pred": pred, "gold": gold})
            line: dict[str, Any] = {"id": i, "task": task, "category": ["a", "b", "c"][i % 3]}
            if len(turns) == 1:
                line.update(pred=turns[0]["pred"], gold=turns[0]["gold"])
            else:
                line["turns"] = turns
            out.write(json.dumps(line) + "\n")
    return path


def _report(path: Path, jobs: int, rows: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    options = RunOptions(keep_export=rows is not None)
    result = run(str(path), options, jobs=jobs, export=rows.extend if rows is not None else None)
    report = build_report(result, options)
    report["corpus"].pop("path")
    return report


@pytest.mark.slow
def test_jobs_and_chunking_change_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    corpus = _corpus(tmp_path / "c.jsonl", 1400)  # past CHUNK_LINES, so chunks merge
    rows_1: list[dict[str, Any]] = []
    rows_2: list[dict[str, Any]] = []
    one = _report(corpus, 1, rows_1)
    two = _report(corpus, 2, rows_2)
    monkeypatch.setattr(runner, "CHUNK_LINES", 7)  # many small chunks: task samples split across them
    monkeypatch.setattr(runner, "SCORE_WINDOW_LINES", 7)
    small = _report(corpus, 1)
    assert json.dumps(one) == json.dumps(two) == json.dumps(small)
    assert rows_1 == rows_2 and [r["line"] for r in rows_1] == list(range(1, 1401))


def test_figures_follow_from_the_episodes(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path / "c.jsonl", 300)
    rows: list[dict[str, Any]] = []
    report = _report(corpus, 1, rows)
    exact = [r["exact"] for r in rows]
    assert report["accuracy"] == {"episodes": 300, "exact": sum(exact), "value": sum(exact) / 300}
    # per turn: turn t counts the episodes that have it
    turns = [r["turns"] for r in rows]
    assert [t["episodes"] for t in report["per_turn"]] == [sum(1 for n in turns if n > t) for t in range(3)]
    failing = {f["turn"]: f["episodes"] for f in report["first_failing_turn"]}
    assert sum(failing.values()) == 300 - sum(exact)
    assert failing == {t: sum(1 for r in rows if r["first_failing_turn"] == t) for t in failing}
    # per category: episodes and exact split by the line's category
    for cat in report["per_category"]:
        mine = [r for r in rows if r["category"] == cat["category"]]
        assert cat["accuracy"]["episodes"] == len(mine)
        assert cat["accuracy"]["exact"] == sum(r["exact"] for r in mine)
        assert cat["tp"] == pytest.approx(sum(r["tp"] for r in mine))


def _brute(samples: list[bool], k: int, every: bool) -> Fraction:
    """Share of all k-subsets of the samples in which all (pass^k) or some (pass@k) sample is exact."""
    subsets = list(itertools.combinations(samples, k))
    good = sum(1 for s in subsets if (all(s) if every else any(s)))
    return Fraction(good, len(subsets))


def test_pass_at_k_and_pass_hat_k_are_averages_over_tasks_of_all_k_subsets(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path / "c.jsonl", 200)
    rows: list[dict[str, Any]] = []
    report = _report(corpus, 1, rows)
    by_task: dict[str, list[bool]] = {}
    for r in rows:
        by_task.setdefault(r["task"], []).append(r["exact"])
    rep = report["repeats"]
    assert rep["tasks"] == len(by_task) and rep["samples_min"] == min(map(len, by_task.values()))
    for k in range(1, rep["samples_min"] + 1):
        hat = sum((_brute(s, k, True) for s in by_task.values()), Fraction(0)) / len(by_task)
        at = sum((_brute(s, k, False) for s in by_task.values()), Fraction(0)) / len(by_task)
        assert rep["pass_hat_k"][str(k)] == float(hat)
        assert rep["pass_at_k"][str(k)] == float(at)
    first = [samples[0] for samples in by_task.values()]
    assert rep["sample_accuracy"]["values"][0] == sum(first) / len(first)


def _repeats_of_one_task(samples: int) -> dict[str, Any]:
    """The report's ``repeats`` of one task whose samples are exact two times in three."""
    summary = Summary()
    summary.tasks = {"t": [samples, sum(1 << r for r in range(samples) if r % 3)]}
    return _repeats(summary)  # type: ignore[return-value]


def test_one_task_of_many_samples_gives_pass_at_k_at_a_bounded_set_of_k() -> None:
    """Every k up to 16, then powers of two and of ten and the sample count: a task of 2,000 samples gave 2,000
    rows (and 10,000 samples 20 s of big binomials)."""
    rep = _repeats_of_one_task(2000)
    ks = [*range(1, 17), 32, 64, 100, 128, 256, 512, 1000, 1024, 2000]
    assert list(rep["pass_at_k"]) == list(rep["pass_hat_k"]) == [str(k) for k in ks]
    assert pass_k_values(2000) == ks
    for k in range(1, 17):  # exact fractions, as before
        assert rep["pass_at_k"][str(k)] == float(pass_at_k(2000, 1333, k))
        assert rep["pass_hat_k"][str(k)] == float(pass_hat_k(2000, 1333, k))
    assert rep["pass_hat_k"]["1000"] == pytest.approx(float(pass_hat_k(2000, 1333, 1000)), rel=1e-12)
    assert list(_repeats_of_one_task(16)["pass_at_k"]) == [str(k) for k in range(1, 17)]


@pytest.mark.slow
def test_the_repeats_of_one_task_grow_linearly_with_its_samples() -> None:
    """Four times the samples of one task, about four times the CPU time (a bar of nine): every k worked out
    with exact binomials made it 35 times (1,000 samples: 0.04 s; 4,000: 1.5 s)."""
    assert growth(lambda: _repeats_of_one_task(1000), lambda: _repeats_of_one_task(4000)) < 9


@pytest.mark.slow
def test_the_sample_accuracy_of_one_task_grows_linearly_with_its_samples() -> None:
    """Eight times the samples of one task, about eight times the CPU time (a bar of twenty): a shift of the
    task's flags per sample copied the rest of them each time, 50 times (100,000 samples: 0.12 s; 800,000: 6 s)."""
    def accuracy(samples: int) -> Callable[[], object]:
        summary = Summary()
        summary.tasks = {"t": [samples, int("110" * (samples // 3), 2)]}
        return lambda: summary.sample_accuracy(samples)

    assert growth(accuracy(99_999), accuracy(799_998)) < 20


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(17, 3000), st.floats(0, 1)), min_size=1, max_size=3), st.data())
def test_pass_rates_past_every_k_are_the_exact_fractions_within_rounding(tasks: list[tuple[int, float]],
                                                                       data: st.DataObject) -> None:
    """Past k = 16 pass@k and pass^k are running products in floating point: within about 2k roundings of the
    exact fractions, relatively (a small pass@k too: it is not 1 less a product near 1)."""
    counts = [(n, round(n * share)) for n, share in tasks]
    k = data.draw(st.integers(17, min(n for n, _c in counts)))
    some, every = mean_pass_rates(counts, [k])[k]
    exact_some = sum((pass_at_k(n, c, k) for n, c in counts), Fraction(0)) / len(counts)
    exact_every = sum((pass_hat_k(n, c, k) for n, c in counts), Fraction(0)) / len(counts)
    assert math.isclose(some, exact_some, rel_tol=(2 * k + 8) * 2 ** -53, abs_tol=1e-300)
    assert math.isclose(every, exact_every, rel_tol=(2 * k + 8) * 2 ** -53, abs_tol=1e-300)


def test_estimators_match_tau_bench_and_codex_formulas() -> None:
    assert pass_hat_k(5, 3, 2) == Fraction(3, 10)   # C(3,2)/C(5,2)
    assert pass_at_k(5, 3, 2) == Fraction(9, 10)    # 1 - C(2,2)/C(5,2)
    with pytest.raises(ValueError):
        pass_hat_k(2, 3, 1)


def test_no_task_no_repeats(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps({"pred": "f()", "gold": [call("f")]}) + "\n", encoding="utf-8")
    report = _report(path, 1)
    assert report["repeats"] is None
    assert report["per_turn"] == [{"turn": 0, "tp": 1.0, "fp": 0.0, "fn": 0.0, "f1": 1.0, "exact": 1,
                                   "episodes": 1}]
    assert report["per_category"][0]["category"] is None


@pytest.mark.slow
def test_the_bootstrap_units_are_the_same_in_chunks_and_jobs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bootstrap over tasks draws the same units (tasks summed, lines naming no task alone) however the run
    was split: one process, two workers, many small chunks that cut tasks apart."""
    corpus = _corpus(tmp_path / "c.jsonl", 1400)
    lines = [json.loads(line) for line in corpus.read_text(encoding="utf-8").splitlines()]
    for k, line in enumerate(lines):
        if k % 5 == 2:
            del line["task"]
    corpus.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")

    def units(jobs: int) -> tuple[list[float], ...] | None:
        return run(str(corpus), RunOptions(), jobs=jobs).summary.bootstrap_units()

    one, two = units(1), units(2)
    monkeypatch.setattr(runner, "CHUNK_LINES", 7)
    monkeypatch.setattr(runner, "SCORE_WINDOW_LINES", 7)
    small = units(1)
    assert one is not None and one == two == small
    tasks = {line["task"] for line in lines if "task" in line}
    assert len(one[0]) == len(tasks) + sum(1 for line in lines if "task" not in line)
    assert sum(one[4]) == 1400
