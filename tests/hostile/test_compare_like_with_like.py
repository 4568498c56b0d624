"""Promise: ``ek compare`` compares like with like; two runs scored against different answer keys are refused.

A paired id whose gold (or grammar) differs between A and B would make ΔF1
measure the answer keys, not the systems; the refusal names the first such id,
and one shared ``--gold`` (the gold and grammar of both runs) is the way out.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from ekcli import EXAMPLE, gold, run_ek, write_lines

pytestmark = pytest.mark.slow

N = 40


def _episodes(n: int = N, **changes: dict[str, Any]) -> list[dict[str, Any]]:
    """Right weather calls for ids e0..e{n-1}; ``changes`` maps an id to keys replaced on its line."""
    lines = [{"id": f"e{i}", "pred": "get_weather(location='Paris')", "gold": [gold("get_weather", location="Paris")]}
             for i in range(n)]
    for line in lines:
        line.update(changes.get(line["id"], {}))
    return lines


def _compare(tmp_path: Path, a: list[Any], b: list[Any], *args: str) -> tuple[Any, dict[str, Any] | None]:
    pa, pb, out = write_lines(tmp_path / "a.jsonl", a), write_lines(tmp_path / "b.jsonl", b), tmp_path / "cmp.json"
    proc = run_ek("compare", pa, pb, "--json", out, "--bootstrap", "200", *args)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc, json.loads(out.read_text(encoding="utf-8")) if out.exists() else None


def test_different_gold_for_a_paired_id_is_refused_naming_it(tmp_path: Path) -> None:
    rome = {"gold": [gold("get_weather", location="Rome")]}
    proc, report = _compare(tmp_path, _episodes(), _episodes(e7=rome, e9=rome), "--allow-errors")
    assert proc.returncode == 1, proc.stderr
    assert ("not comparing: A and B score id 'e7' (A line 8, B line 8) against different gold; "
            "of 40 paired ids, 2 have different gold and 0 a different grammar") in proc.stderr
    assert "pass one shared --gold" in proc.stderr and "F1" not in proc.stdout
    assert report is not None and report["verdict"] is None
    assert report["unlike"] == {"unit": "id", "first_id": "e7", "differs_in": "gold", "a_line": 8, "b_line": 8, "a_grammar": "none",
                                "b_grammar": "none", "ids_with_different_gold": 2, "ids_with_different_grammar": 0,
                                "paired_ids": 40}


def test_different_grammars_for_a_paired_id_are_refused(tmp_path: Path) -> None:
    proc, report = _compare(tmp_path, _episodes(), _episodes(e3={"grammar": "travel@1"}),
                            "--grammar", EXAMPLE / "travel-v2.ek")
    assert proc.returncode == 1, proc.stderr
    assert "score id 'e3' (A line 4, B line 4) against different grammars (travel@2 (sha256 " in proc.stderr
    assert report is not None and report["unlike"]["differs_in"] == "grammar"
    assert report["unlike"]["a_grammar"].startswith("travel@2") and report["unlike"]["b_grammar"].startswith("travel@1")


def test_the_same_grammar_named_two_ways_is_like_with_like(tmp_path: Path) -> None:
    """``--grammar travel-v2.ek`` and a line's ``"grammar": "travel@2"`` resolve to one schema."""
    proc, report = _compare(tmp_path, _episodes(), _episodes(e3={"grammar": "travel@2"}),
                            "--grammar", EXAMPLE / "travel-v2.ek")
    assert proc.returncode == 0, proc.stderr
    assert report is not None and report["verdict"].startswith("no significant difference")


def test_gold_that_differs_only_in_key_order_is_the_same_gold(tmp_path: Path) -> None:
    flight = gold("search_flights", origin="SFO", destination="JFK")
    swapped = {"name": "search_flights", "arguments": {"destination": "JFK", "origin": "SFO"}}
    proc, _ = _compare(tmp_path, _episodes(e1={"gold": [flight]}), _episodes(e1={"gold": [swapped]}))
    assert proc.returncode == 0, proc.stderr


def test_one_shared_gold_file_is_the_gold_and_grammar_of_both_runs(tmp_path: Path) -> None:
    a = _episodes()
    b = _episodes(e7={"gold": [gold("get_weather", location="Rome")], "grammar": "travel@1"})
    shared = write_lines(tmp_path / "gold.jsonl", [{"id": line["id"], "gold": line["gold"]} for line in a])
    proc, report = _compare(tmp_path, a, b, "--gold", shared)
    assert proc.returncode == 0, proc.stderr
    assert report is not None and report["f1_a"] == report["f1_b"] == 1.0  # e7 is scored against Paris in B too


def _samples(tasks: int = 20, runs: int = 2, **gold_of: str) -> list[dict[str, Any]]:
    """``runs`` samples of tasks t0..t{tasks-1}, each asking for Paris' weather; ``gold_of`` maps
    ``t{k}_{run}`` to the city that sample's gold names instead."""
    return [{"task": f"t{t}", "pred": "get_weather(location='Paris')",
             "gold": [gold("get_weather", location=gold_of.get(f"t{t}_{r}", "Paris"))]}
            for t in range(tasks) for r in range(runs)]


def test_a_tasks_samples_scored_against_different_gold_are_refused(tmp_path: Path) -> None:
    """Only each task's first sample was compared: B's second sample of t3, against other gold, went unseen."""
    proc, report = _compare(tmp_path, _samples(), _samples(t3_1="Rome"), "--allow-errors")
    assert proc.returncode == 1, proc.stderr
    assert ("not comparing: B scores the samples of task 't3' against different gold (lines 7 and 8); "
            "a task's samples must share one answer key") in proc.stderr
    assert "F1" not in proc.stdout
    assert report is not None and report["verdict"] is None
    assert report["mixed_samples"] == {"run": "B", "task": "t3", "differs_in": "gold", "first_line": 7, "line": 8}
    proc, _ = _compare(tmp_path, _samples(t0_1="Rome"), _samples())
    assert proc.returncode == 1 and "A scores the samples of task 't0'" in proc.stderr


def test_tasks_scored_against_different_gold_in_a_and_b_are_named_by_task(tmp_path: Path) -> None:
    proc, report = _compare(tmp_path, _samples(), _samples(t5_0="Rome", t5_1="Rome"))
    assert proc.returncode == 1, proc.stderr
    assert "A and B score task 't5' (A line 11, B line 11) against different gold; of 20 paired tasks" in proc.stderr
    assert report is not None and report["unlike"]["unit"] == "task" and report["unlike"]["first_id"] == "t5"
