"""``ek score --tau-bench`` on tau-bench and tau2-bench results files, run as a user runs it: trimmed real runs
(``tests/data/tau/README.md`` names their sources), a small hand-built run whose figures are worked out by hand
beside tau-bench's own, malformed entries (each one error line), and the same report with ``--jobs`` and Ray."""

from __future__ import annotations

import csv
import gzip
import json
from fractions import Fraction
from math import comb
from pathlib import Path
from typing import Any

from ekcli import REPO, run_ek

DATA = REPO / "tests" / "data" / "tau"
TAU_BENCH = DATA / "tau-bench-gpt-4o-airline.json"
TAU2_BENCH = DATA / "tau2-bench-whissle-airline.json"


def _score(tmp_path: Path, *args: Any, name: str = "r") -> tuple[Any, dict[str, Any], list[dict[str, str]]]:
    out, rows = tmp_path / f"{name}.json", tmp_path / f"{name}.csv"
    done = run_ek("score", *args, "--tau-bench", "--json", out, "--episodes-out", rows, timeout=300)
    report = json.loads(out.read_text(encoding="utf-8")) if out.exists() else {}
    episodes = list(csv.DictReader(rows.open(encoding="utf-8"))) if rows.exists() else []
    return done, report, episodes


def _tau_bench_pass_hat_k(entries: list[dict[str, Any]]) -> dict[int, Fraction]:
    """``display_metrics`` of tau-bench's ``run.py``, from the rewards (exact fractions instead of floats)."""
    trials = len({e["trial"] for e in entries})
    c: dict[Any, int] = {}
    for e in entries:
        c[e["task_id"]] = c.get(e["task_id"], 0) + (1 if abs(e["reward"] - 1) <= 1e-6 else 0)
    return {k: sum(Fraction(comb(n, k), comb(trials, k)) for n in c.values()) / len(c) for k in range(1, trials + 1)}


def test_a_real_tau_bench_run_is_one_episode_per_task_and_trial(tmp_path: Path) -> None:
    done, report, episodes = _score(tmp_path, TAU_BENCH, "--bootstrap", "200")
    assert done.returncode == 0, done.stderr
    assert "format tau-bench results" in done.stdout
    interval = report["confidence_interval"]  # a task's trials are drawn together
    assert (interval["unit"], interval["units"]) == ("task", 5)
    corpus = report["corpus"]
    assert (corpus["lines_read"], corpus["episodes_scored"], corpus["error_lines"]) == (20, 20, 0)
    assert report["options"]["tau_bench"] is True
    exact = {row["id"]: row["exact"] == "true" for row in episodes}
    assert [row["task"] for row in episodes[:4]] == ["13", "20", "29", "30"]  # the file's order: trial 0 first
    # which trials are exact (README.md says why each differs from tau-bench's reward)
    assert {task: [exact[f"{task}#{trial}"] for trial in range(4)] for task in (13, 20, 29, 30, 44)} == {
        13: [False] * 4, 20: [True, False, False, False], 29: [False] * 4, 30: [False, True, False, True],
        44: [True, False, True, False]}
    no_call = next(row for row in episodes if row["id"] == "29#0")  # reward 1: eight reads, none made
    assert (no_call["tp"], no_call["fp"], no_call["fn"]) == ("0.0", "0.0", "8.0")
    # pass^k by hand from ek's exact trials: c = 0, 1, 0, 2, 2 of n = 4 for tasks 13, 20, 29, 30, 44
    repeats = report["repeats"]
    assert (repeats["tasks"], repeats["samples"], repeats["samples_min"]) == (5, 20, 4)
    hand = {1: Fraction(5, 20), 2: Fraction(1 + 1, 6) / 5, 3: Fraction(0), 4: Fraction(0)}
    assert {int(k): v for k, v in repeats["pass_hat_k"].items()} == {k: float(v) for k, v in hand.items()}
    assert repeats["pass_at_k"]["2"] == float((Fraction(5, 6) * 2 + Fraction(1, 2)) / 5)  # 1 - C(4-c,2)/C(4,2)
    # tau-bench's own pass^k from the same entries' rewards (c = 2, 4, 1, 2, 2): ek's exact match is stricter
    rewards = _tau_bench_pass_hat_k(json.loads(TAU_BENCH.read_text(encoding="utf-8")))
    assert rewards == {1: Fraction(11, 20), 2: Fraction(9, 30), 3: Fraction(1, 5), 4: Fraction(1, 5)}
    assert all(float(rewards[k]) >= repeats["pass_hat_k"][str(k)] for k in rewards)


def test_a_real_tau2_bench_run_joins_each_simulation_to_its_tasks_gold(tmp_path: Path) -> None:
    done, report, episodes = _score(tmp_path, TAU2_BENCH)
    assert done.returncode == 0, done.stderr
    assert (report["corpus"]["episodes_scored"], report["corpus"]["error_lines"]) == (5, 0)
    assert [(row["id"], row["task"], row["category"], row["exact"]) for row in episodes] == [
        ("0#0", "0", "airline", "false"), ("4#0", "4", "airline", "false"), ("13#0", "13", "airline", "false"),
        ("36#0", "36", "airline", "true"), ("41#0", "41", "airline", "false")]
    refuse = episodes[0]  # gold actions []: the agent should change nothing; its 4 reads are FP
    assert (refuse["tp"], refuse["fp"], refuse["fn"]) == ("0.0", "4.0", "0.0")
    all_gold_made = episodes[4]  # reward 0 in tau2-bench (its database check), every gold call made, one more
    assert (all_gold_made["tp"], all_gold_made["fp"], all_gold_made["fn"]) == ("8.0", "1.0", "0.0")
    assert report["per_category"][0]["category"] == "airline"


def _entry(task_id: Any, trial: int, reward: float, calls: list[tuple[str, dict[str, Any]]],
           actions: list[dict[str, Any]], outputs: tuple[str, ...] = ()) -> dict[str, Any]:
    """A tau-bench entry as ``tau_bench/run.py`` writes it, with a tool-calling agent's trajectory."""
    traj: list[dict[str, Any]] = [{"role": "system", "content": "policy"}, {"role": "user", "content": "hi"}]
    for i, (name, args) in enumerate(calls):
        traj.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": f"call_{i}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}]})
        traj.append({"role": "tool", "tool_call_id": f"call_{i}", "name": name, "content": "{}"})
    traj.append({"role": "assistant", "content": "Done: 42 dollars."})
    task = {"user_id": "u1", "actions": actions, "instruction": "...", "outputs": list(outputs)}
    return {"task_id": task_id, "reward": reward, "info": {"task": task, "source": "user"}, "traj": traj,
            "trial": trial}


CANCEL = {"name": "cancel_reservation", "kwargs": {"reservation_id": "ABC"}}
RESPOND = {"name": "respond", "kwargs": {"content": "Your refund is 42 dollars."}}
LOOKUP = ("get_reservation_details", {"reservation_id": "ABC"})


def _react(task_id: int, trial: int, reward: float, calls: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """A tau-bench entry of a ReAct agent: each action is text, ``Action:`` then its JSON."""
    traj: list[dict[str, Any]] = [{"role": "user", "content": "cancel ABC"}]
    for name, args in [*calls, ("respond", {"content": "done"})]:
        action = json.dumps({"name": name, "arguments": args})
        # model_dump() of litellm's message, as tau-bench's ChatReActAgent keeps it: tool_calls null
        traj += [{"role": "assistant", "content": f"Thought:\nNext.\nAction:\n{action}", "tool_calls": None,
                  "function_call": None},
                 {"role": "user", "content": "API output: ok"}]
    return {"task_id": task_id, "reward": reward, "trial": trial, "traj": traj,
            "info": {"task": {"user_id": "u2", "actions": [CANCEL], "instruction": "...", "outputs": []}}}


def test_two_tasks_of_three_trials_by_hand_beside_tau_benchs_rewards(tmp_path: Path) -> None:
    """Task 1 (tool-calling agent): exact; exact but reward 0 (its ``outputs`` were not said: ek does not read the
    agent's text); one extra read (reward 1: a read leaves the database as it was; ek counts an FP). Task 2 (a
    ReAct agent's action text): exact; the cancel and an extra read (reward 1, not exact); no call (reward 0).
    ``respond`` in the gold is a message, not a call: left out."""
    cancel = ("cancel_reservation", {"reservation_id": "ABC"})
    entries = [
        _entry(1, 0, 1.0, [cancel], [CANCEL, RESPOND], ("42",)),
        _entry(1, 1, 0.0, [cancel], [CANCEL, RESPOND], ("42",)),
        _entry(1, 2, 1.0, [LOOKUP, cancel], [CANCEL, RESPOND], ("42",)),
        _react(2, 0, 1.0, [cancel]),
        _react(2, 1, 1.0, [cancel, LOOKUP]),
        _react(2, 2, 0.0, []),
    ]
    path = tmp_path / "run.json"
    path.write_text(json.dumps(entries, indent=2), encoding="utf-8")
    done, report, episodes = _score(tmp_path, path)
    assert done.returncode == 0, done.stderr
    assert [(row["id"], row["tp"], row["fp"], row["fn"], row["exact"]) for row in episodes] == [
        ("1#0", "1.0", "0.0", "0.0", "true"), ("1#1", "1.0", "0.0", "0.0", "true"),
        ("1#2", "1.0", "1.0", "0.0", "false"), ("2#0", "1.0", "0.0", "0.0", "true"),
        ("2#1", "1.0", "1.0", "0.0", "false"), ("2#2", "0.0", "0.0", "1.0", "false")]
    # ek: c = 2 and 1 exact trials of n = 3; pass^k = mean of C(c, k)/C(3, k), pass@k = mean of 1 - C(3-c, k)/C(3, k)
    hand_hat = {1: (Fraction(2, 3) + Fraction(1, 3)) / 2, 2: (Fraction(1, 3) + 0) / 2, 3: Fraction(0)}
    hand_at = {1: Fraction(1, 2), 2: (1 + Fraction(2, 3)) / 2, 3: Fraction(1)}
    assert report["repeats"]["pass_hat_k"] == {str(k): float(v) for k, v in hand_hat.items()}
    assert report["repeats"]["pass_at_k"] == {str(k): float(v) for k, v in hand_at.items()}
    # tau-bench from the rewards: c = 2 and 2 (other trials of task 1; a trial more of task 2)
    assert _tau_bench_pass_hat_k(entries) == {1: Fraction(2, 3), 2: Fraction(1, 3), 3: Fraction(0)}


def test_every_malformed_entry_is_one_error_line_and_the_others_are_scored(tmp_path: Path) -> None:
    good = _entry(1, 0, 1.0, [("cancel_reservation", {"reservation_id": "ABC"})], [CANCEL])
    crashed = {"task_id": 2, "reward": 0.0, "info": {"error": "RateLimitError", "traceback": "..."}, "traj": [],
               "trial": 0}
    no_traj = {k: v for k, v in _entry(3, 0, 0.0, [], [CANCEL]).items() if k != "traj"}
    bad_calls = _entry(4, 0, 0.0, [], [CANCEL])
    bad_calls["traj"].append({"role": "assistant", "tool_calls": {"name": "x"}})
    bad_action = _entry(5, 0, 0.0, [], [{"name": "cancel_reservation"}])
    bad_trial = _entry(6, -1, 0.0, [], [CANCEL])
    bad_args = _entry(7, 0, 0.0, [], [CANCEL])  # arguments the model wrote that are not JSON: scored, unparseable
    bad_args["traj"].append({"role": "assistant", "tool_calls": [
        {"id": "c", "type": "function", "function": {"name": "cancel_reservation", "arguments": '{"reservation'}}]})
    entries = [good, crashed, no_traj, "not an entry", bad_calls, bad_action, bad_trial, bad_args]
    path = tmp_path / "run.json"
    path.write_text(json.dumps(entries), encoding="utf-8")
    done, report, episodes = _score(tmp_path, path)
    assert done.returncode == 1, done.stderr  # error lines: exit 1, the report written
    assert (report["corpus"]["lines_read"], report["corpus"]["episodes_scored"], report["corpus"]["error_lines"]) \
        == (8, 2, 6)
    assert [row["id"] for row in episodes] == ["1#0", "7#0"]
    assert report["corpus"]["unparseable_outputs"] == 1
    reasons = {e["line"]: e["reason"] for e in report["errors"]}
    assert "the run of this task failed before it could be scored (info.error: 'RateLimitError')" in reasons[2]
    assert reasons[3].startswith("'traj' must be a list of messages")
    assert reasons[4].startswith("a tau-bench entry must be an object")
    assert reasons[5].startswith("traj[3].tool_calls must be a list")
    assert reasons[6].startswith("info.task.actions[0] must be")
    assert reasons[7].startswith("'trial' must be a whole number")
    assert {e["line"]: e["id"] for e in report["errors"]}[5] == "4#0"


def test_a_file_that_is_not_a_results_file_stops_the_run_naming_it(tmp_path: Path) -> None:
    jsonl = tmp_path / "corpus.jsonl"
    jsonl.write_text('{"id": 1, "pred": "f()", "gold": []}\n{"id": 2, "pred": "f()", "gold": []}\n', encoding="utf-8")
    done, report, _ = _score(tmp_path, jsonl)
    assert done.returncode == 3 and report == {}
    assert f"{jsonl}: not JSON: Extra data at line 2 column 1" in done.stderr
    obj = tmp_path / "obj.json"
    obj.write_text('{"results": []}', encoding="utf-8")
    done, _, _ = _score(tmp_path, obj)
    assert done.returncode == 3 and "expected a tau-bench results file" in done.stderr
    done = run_ek("score", TAU_BENCH, "--tau-bench", "--gold", jsonl)
    assert done.returncode == 2 and "--gold cannot apply" in done.stderr


def test_jobs_and_ray_give_the_same_report(tmp_path: Path, ray_address: str) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps([{"task_id": 9, "trial": 0, "reward": 0.0, "info": {}, "traj": []}]),
                      encoding="utf-8")
    tau2_gz = tmp_path / "tau2.json.gz"  # a results file gzip-compressed is read as it is
    tau2_gz.write_bytes(gzip.compress(TAU2_BENCH.read_bytes()))
    files = (TAU_BENCH, tau2_gz, broken)
    one, want, rows = _score(tmp_path, *files, name="one")
    jobs, by_jobs, rows_jobs = _score(tmp_path, *files, "--jobs", "2", name="jobs")
    ray, by_ray, rows_ray = _score(tmp_path, *files, "--engine", "ray", "--address", ray_address, name="ray")
    assert (one.returncode, jobs.returncode, ray.returncode) == (1, 1, 1), ray.stderr
    assert (want["corpus"]["episodes_scored"], want["corpus"]["error_lines"]) == (25, 1)
    assert [(Path(e["file"]).name, e["file_line"], e["line"]) for e in want["errors"]] == [("broken.json", 1, 26)]
    assert by_ray["options"].pop("engine") == "ray"
    for report in (want, by_jobs):
        assert report["options"].pop("engine") == "local"
    assert by_jobs == want and by_ray == want
    assert rows_jobs == rows and rows_ray == rows


def test_ek_compare_pairs_two_runs_by_task(tmp_path: Path) -> None:
    entries = json.loads(TAU_BENCH.read_text(encoding="utf-8"))
    for entry in entries:  # run B: every trial of task 29 made no call (its gold: eight reads)
        if entry["task_id"] == 29:
            entry["traj"] = [m for m in entry["traj"] if not m.get("tool_calls") and m["role"] != "tool"]
    b = tmp_path / "b.json"
    b.write_text(json.dumps(entries), encoding="utf-8")
    out = tmp_path / "compare.json"
    done = run_ek("compare", TAU_BENCH, b, "--tau-bench", "--json", out)
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text(encoding="utf-8"))
    assert (report["paired_by"], report["episodes"], report["unscored_lines"]) == ("task", 5, 0)
    assert report["f1_b"] < report["f1_a"]
