"""``ek score`` on multi-turn corpora, BFCL multi_turn results and repeated runs, through the real CLI."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from ekcli import run_ek, write_lines

from ek.bfcl.signatures import SOURCE_SUBDIR, find_source

ANSWERS = Path(__file__).resolve().parents[1] / "data" / "bfcl" / "possible_answer" / "BFCL_v4_multi_turn_base.json"


def call(name: str, **args: Any) -> dict[str, Any]:
    return {"name": name, "arguments": args}


LINES = [
    {"id": "a", "task": "t1", "category": "files", "turns": [
        {"pred": "cd(folder='x')", "gold": [call("cd", folder="x")]},
        {"pred": "ls()", "gold": [call("ls")]}]},
    {"id": "b", "task": "t1", "category": "files", "turns": [
        {"pred": "ls()", "gold": [call("cd", folder="x")]},          # the right calls, one turn off
        {"pred": "cd(folder='x')", "gold": [call("ls")]}]},
    {"id": "c", "task": "t2", "pred": "f(x=1)", "gold": [call("f", x=1)]},
    {"id": "d", "task": "t2", "pred": "f(x=2)", "gold": [call("f", x=1)]},
]


def test_episodes_out_csv_and_jsonl_hold_one_row_per_episode(tmp_path: Path) -> None:
    corpus = write_lines(tmp_path / "c.jsonl", LINES)
    done = run_ek("score", corpus, "--episodes-out", tmp_path / "out" / "ep.csv", "--json", tmp_path / "r.json",
                  "--bootstrap", "200")
    assert done.returncode == 0, done.stderr
    with open(tmp_path / "out" / "ep.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert [(r["id"], r["exact"], r["first_failing_turn"]) for r in rows] == [
        ("a", "true", ""), ("b", "false", "0"), ("c", "true", ""), ("d", "false", "0")]
    assert rows[1]["reasons"] == "missing_call;wrong_tool" and rows[1]["units_fp"] == "2"
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert {k: report["accuracy"][k] for k in ("episodes", "exact", "value")} == {
        "episodes": 4, "exact": 2, "value": 0.5}
    assert report["accuracy"]["interval"]["replicates"] == 200
    assert report["repeats"]["pass_at_k"] == {"1": 0.5, "2": 1.0}
    assert report["repeats"]["pass_hat_k"] == {"1": 0.5, "2": 0.0}
    assert "episode accuracy 0.5000 (2/4" in done.stdout and "pass^k" in done.stdout
    jsonl = run_ek("score", corpus, "--episodes-out", tmp_path / "ep.jsonl")
    rows_j = [json.loads(line) for line in (tmp_path / "ep.jsonl").read_text(encoding="utf-8").splitlines()]
    assert jsonl.returncode == 0 and [r["exact"] for r in rows_j] == [True, False, True, False]
    assert rows_j[1]["reasons"] == ["missing_call", "wrong_tool"] and rows_j[1]["turns"] == 2


def test_bad_turn_lines_are_errors_never_a_crash(tmp_path: Path) -> None:
    corpus = write_lines(tmp_path / "c.jsonl", [*LINES, {"id": "m", "pred": "f()", "turns": [
        {"pred": "f()", "gold": []}]}, {"id": "n", "turns": [{"pred": "f()"}]}])
    done = run_ek("score", corpus, "--jobs", "2")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "line 5 (id 'm'): 'turns' holds the output and gold of every turn" in done.stdout
    assert "line 6 (id 'n'): turn 0: no 'gold' calls" in done.stdout


def test_bfcl_multi_turn_results_are_scored_turn_by_turn(tmp_path: Path) -> None:
    answers = [json.loads(line) for line in ANSWERS.read_text(encoding="utf-8").splitlines()]
    lines = []
    for i, entry in enumerate(answers):
        turns = entry["ground_truth"]
        if i % 2:   # BFCL prompting result: one step per call, then the model's text reply
            result = [[f"[{c}]" for c in turn] + ["Done."] for turn in turns]
        else:       # every call one turn late
            result = [[], *[[f"[{c}]" for c in turn] for turn in turns[:-1]]]
        lines.append({"id": entry["id"], "result": result})
    corpus = write_lines(tmp_path / "result.json", lines)
    done = run_ek("score", corpus, "--bfcl-answers", ANSWERS, "--json", tmp_path / "r.json",
                  "--episodes-out", tmp_path / "ep.jsonl", "--allow-errors")
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    rows = [json.loads(line) for line in (tmp_path / "ep.jsonl").read_text(encoding="utf-8").splitlines()]
    refused = {e["id"] for e in report["gold_file_errors"]}  # positional ground truth, with no BFCL source
    assert all("install bfcl-eval, or pass --bfcl-source" in e["reason"] for e in report["gold_file_errors"])
    assert not refused or find_source() is None  # with bfcl-eval installed every entry is read
    assert done.returncode == 0, done.stderr
    for row in rows:
        index = int(row["id"].rsplit("_", 1)[1])
        assert row["category"] == "multi_turn_base"
        assert row["exact"] == bool(index % 2), row  # late calls never match across turns
    assert len(rows) == len(answers) - len(refused)
    assert report["per_category"][0]["category"] == "multi_turn_base"
    assert report["per_turn"][0]["episodes"] == len(rows)


def test_bfcl_source_binds_positional_ground_truth(tmp_path: Path) -> None:
    source = tmp_path / "bfcl_eval" / SOURCE_SUBDIR
    source.mkdir(parents=True)
    (source / "fs.py").write_text("class FS:\n    def sort(self, file_name: str): ...\n", encoding="utf-8")
    answers = write_lines(tmp_path / "answers.json", [{"id": "multi_turn_base_0",
                                                      "ground_truth": [["sort('a.pdf')"], []]}])
    result = write_lines(tmp_path / "result.json", [{"id": "multi_turn_base_0",
                                                     "result": [["[sort(file_name='a.pdf')]"], ["Nothing to do."]]}])
    done = run_ek("score", result, "--bfcl-answers", answers, "--bfcl-source", source, "--json", tmp_path / "r.json")
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert report["accuracy"]["exact"] == 1 and report["gold_file_errors"] == []
    bad = run_ek("score", result, "--bfcl-answers", answers, "--bfcl-source", tmp_path / "nowhere")
    assert bad.returncode == 2 and "--bfcl-source" in bad.stderr and "not a folder" in bad.stderr


def _samples(path: Path, tasks: int, per_task: int, right: set[tuple[int, int]]) -> Path:
    return write_lines(path, [{"task": f"t{t}", "pred": "f(x=1)" if (t, s) in right else "f(x=2)",
                               "gold": [call("f", x=1)]} for t in range(tasks) for s in range(per_task)])


def test_compare_pairs_by_task_when_tasks_repeat(tmp_path: Path) -> None:
    a = _samples(tmp_path / "a.jsonl", 12, 3, {(t, 0) for t in range(12)})              # 1 of 3 right
    b = _samples(tmp_path / "b.jsonl", 12, 2, {(t, s) for t in range(12) for s in range(2)})  # all right
    done = run_ek("compare", a, b, "--json", tmp_path / "cmp.json", "--bootstrap", "300")
    assert done.returncode == 0, done.stderr  # no ids at all: tasks pair the runs
    payload = json.loads((tmp_path / "cmp.json").read_text(encoding="utf-8"))
    assert payload["paired_by"] == "task" and payload["episodes"] == 12
    assert payload["f1_a"] == 1 / 3 and payload["f1_b"] == 1.0
    assert "12 paired tasks" in done.stdout
    c = _samples(tmp_path / "c.jsonl", 13, 2, set())
    mismatch = run_ek("compare", a, c)
    assert mismatch.returncode == 1 and "only in B (1): 't12'" in mismatch.stderr


def test_html_shows_accuracy_turns_categories_and_repeats(tmp_path: Path) -> None:
    corpus = write_lines(tmp_path / "c.jsonl", LINES)
    for extra in ((), ("--bootstrap", "50")):
        done = run_ek("score", corpus, "--html", tmp_path / "r.html", *extra)
        assert done.returncode == 0, done.stderr
        page = (tmp_path / "r.html").read_text(encoding="utf-8")
        for section in ('id="accuracy"', 'id="per-turn"', 'id="per-category"', 'id="repeats"'):
            assert section in page
        assert ("% CI [" in page.split('id="accuracy"')[1].split("</div></div>")[0]) == bool(extra)
