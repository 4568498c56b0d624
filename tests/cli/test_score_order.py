"""Order constraints end to end: ek score --order, the JSON report's out_of_order row, bad constraints as error
lines, and the same verdict from the reward function and the pytest helper."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ekcli import run_ek, write_lines

from ek.calls import GoldCall, Step
from ek.corpus.runner import RunOptions, run
from ek.goldjson import gold_from_json, gold_to_json
from ek.rewards import make_tool_call_reward
from ek.testing import assert_calls

SEARCH = {"name": "search_flights", "arguments": {"to": "NYC"}}
BOOK = {"name": "book_flight", "arguments": {"id": 7}, "after": [0]}
LINES = [
    {"id": "late", "pred": "[book_flight(id=7), search_flights(to='NYC')]", "gold": [SEARCH, BOOK]},
    {"id": "ok", "pred": "[search_flights(to='NYC'), book_flight(id=7)]", "gold": [SEARCH, BOOK]},
    {"id": "free", "pred": "[book_flight(id=7), search_flights(to='NYC')]", "gold": [SEARCH, {**BOOK, "after": []}]},
    {"id": "range", "pred": "[a()]", "gold": [{"name": "a", "arguments": {}, "after": [4]}]},
    {"id": "cycle", "pred": "[a()]", "gold": [{"name": "a", "arguments": {}, "after": [1]},
                                              {"name": "b", "arguments": {}, "after": [0]}]},
    {"id": "shape", "pred": "[a()]", "gold": [{"name": "a", "arguments": {}, "after": "0"}]},
]


def _corpus(tmp_path: Path) -> Path:
    return write_lines(tmp_path / "c.jsonl", LINES)


@pytest.mark.slow
@pytest.mark.parametrize(("order", "tp", "late"), [("any", 6, 0), ("gold", 5, 2), ("strict", 4, 4)])
def test_ek_score_order_flag_and_report(tmp_path: Path, order: str, tp: int, late: int) -> None:
    out = tmp_path / "r.json"
    proc = run_ek("score", _corpus(tmp_path), "--order", order, "--json", out, "--allow-errors")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(out.read_text())
    assert report["options"]["order"] == order
    assert report["overall"]["tp"] == tp
    reasons = {r["reason"]: r for r in report["per_reason"]}
    assert reasons.get("out_of_order", {"count": 0})["count"] == late
    assert f"order {order}" in proc.stdout
    errors = {e["id"]: e["reason"] for e in report["errors"]}
    assert set(errors) == {"range", "cycle", "shape"}
    assert "gold[0] a: after index 4 is out of range" in errors["range"]
    assert errors["cycle"] == "gold: the after constraints form a cycle: gold #0 a after #1 b after #0 a"
    assert "after must be a list of gold indices" in errors["shape"]
    assert "after index 4 is out of range" in proc.stdout


def _tools(n: int, chained: bool = False) -> list[dict]:
    return [{"name": f"t{i}", "arguments": {"x": i}, **({"after": [i - 1]} if chained and i else {})}
            for i in range(n)]


@pytest.mark.slow
def test_ek_score_scores_long_ordered_lines_and_refuses_an_entangled_one_as_an_error_line(tmp_path: Path) -> None:
    """Gold order: a right chain of 5,000 calls is scored (it took 15 s and 600 MB), a chain of 3,000 calls made
    in reverse is an error line with its reason once the search has read its limit of pairs and constraints."""
    chain = _tools(5000, chained=True)
    corpus = write_lines(tmp_path / "c.jsonl", [
        {"id": "right", "pred": [{"name": c["name"], "arguments": c["arguments"]} for c in chain], "gold": chain},
        {"id": "reversed", "pred": _tools(3000)[::-1], "gold": _tools(3000, chained=True)},
        {"id": "ok", "pred": "[search_flights(to='NYC'), book_flight(id=7)]", "gold": [SEARCH, BOOK]}])
    proc = run_ek("score", corpus, "--order", "gold", "--json", tmp_path / "r.json", "--allow-errors", timeout=60)
    assert proc.returncode == 0, proc.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    assert (report["corpus"]["episodes_scored"], report["overall"]["tp"]) == (2, 5002)
    (error,) = report["errors"]
    assert error["id"] == "reversed" and "too entangled to score exactly" in error["reason"]


@pytest.mark.slow
def test_ek_score_strict_scores_a_right_sequence_of_one_tool_and_a_long_output_that_matches_nothing(
        tmp_path: Path) -> None:
    """Strict order: 10,000 right calls of one tool are kept call for call (100 million pairs: refused), and
    200 gold calls against 200,000 calls of another tool (an 800 kB line) build no table of 40 million cells."""
    calls = [{"name": "read", "arguments": {"path": f"/f{i}"}} for i in range(10_000)]
    corpus = write_lines(tmp_path / "c.jsonl", [
        {"id": "right", "pred": calls, "gold": calls},
        {"id": "other", "pred": "[" + ",".join(["q()"] * 200_000) + "]", "gold": _tools(200)}])
    proc = run_ek("score", corpus, "--order", "strict", "--json", tmp_path / "r.json", timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["corpus"]["episodes_scored"] == 2 and report["errors"] == []
    assert (report["overall"]["tp"], report["overall"]["fp"], report["overall"]["fn"]) == (10_000, 200_000, 200)


@pytest.mark.slow
def test_ek_score_rejects_an_unknown_order(tmp_path: Path) -> None:
    proc = run_ek("score", _corpus(tmp_path), "--order", "sorted")
    assert proc.returncode == 2 and "--order" in proc.stderr


def test_corpus_run_counts_out_of_order_and_error_lines(tmp_path: Path) -> None:
    result = run(str(_corpus(tmp_path)), RunOptions(keep_details=5))
    summary = result.summary
    assert summary.episodes == 3 and summary.error_count == 3 and result.accounted
    assert summary.total().by_reason() == {"out_of_order": (2.0, 2)}
    assert run(str(_corpus(tmp_path)), RunOptions(order="any")).summary.total().f1 == 1.0


def test_after_round_trips_through_gold_json() -> None:
    calls = gold_from_json([SEARCH, BOOK])
    assert calls == [Step("search_flights", {"to": "NYC"}), GoldCall("book_flight", {"id": 7}, after=(0,))]
    assert gold_to_json(calls) == [SEARCH, BOOK]


def test_reward_and_pytest_helper_give_the_same_verdict() -> None:
    reward = make_tool_call_reward()
    wrong, right = "[book_flight(id=7), search_flights(to='NYC')]", "[search_flights(to='NYC'), book_flight(id=7)]"
    assert reward([wrong, right], gold_calls=[[SEARCH, BOOK]] * 2) == [0.5, 1.0]
    assert make_tool_call_reward(order="any")([wrong], gold_calls=[[SEARCH, BOOK]]) == [1.0]
    gold = gold_from_json([SEARCH, BOOK])
    assert_calls(right, gold)
    assert_calls(wrong, gold, order="any")
    with pytest.raises(AssertionError, match="OUT OF ORDER: gold #0 search_flights must come before gold #1"):
        assert_calls(wrong, gold)
