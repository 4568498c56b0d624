"""``ek score --format`` and a line's own ``format``: every registered model-output format reaches the corpus engine."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ekcli import REPO, run_ek, write_lines

ANSWERS = REPO / "tests" / "data" / "bfcl" / "possible_answer" / "BFCL_v4_simple_python.json"


def _report(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


def _gold(name: str, **args: Any) -> dict[str, Any]:
    return {"name": name, "arguments": args}


def test_bfcl_result_files_are_read_in_the_bfcl_format_by_default(tmp_path: Path) -> None:
    """BFCL writes JSON results as one-key objects; auto refuses those, so BFCL runs default to the bfcl format."""
    result = write_lines(tmp_path / "result.json", [
        {"id": "simple_python_1", "result": '[{"math.factorial": {"number": 5}}]'},
        {"id": "simple_python_3", "result": "[algebra.quadratic_roots(a=1, b=-3, c=2)]"},
    ])
    proc = run_ek("score", result, "--bfcl-answers", ANSWERS, "--json", tmp_path / "r.json")
    assert proc.returncode == 0, proc.stderr
    report = _report(tmp_path / "r.json")
    assert report["options"]["format"] == "bfcl"
    assert report["overall"]["tp"] == 2 and report["overall"]["fn"] == 0
    auto = run_ek("score", result, "--bfcl-answers", ANSWERS, "--format", "auto", "--json", tmp_path / "a.json",
                  "--allow-errors")
    assert _report(tmp_path / "a.json")["corpus"]["unparseable_outputs"] == 1, auto.stdout


def test_format_applies_to_every_line_and_a_line_may_name_its_own(tmp_path: Path) -> None:
    gold = [_gold("get_weather", city="Paris")]
    corpus = write_lines(tmp_path / "c.jsonl", [
        {"id": "a", "pred": '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}', "gold": gold},
        {"id": "b", "pred": '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}', "gold": gold,
         "format": "llama3"},
        {"id": "c", "pred": "get_weather(city='Paris')", "gold": gold, "format": "python"},
    ])
    proc = run_ek("score", corpus, "--format", "mistral", "--json", tmp_path / "r.json")
    assert proc.returncode == 0, proc.stderr
    report = _report(tmp_path / "r.json")
    assert report["options"]["format"] == "mistral"
    assert (report["overall"]["tp"], report["overall"]["fp"], report["overall"]["fn"]) == (3, 0, 0)
    assert "format mistral" in proc.stdout


def test_an_unknown_format_is_a_usage_error_or_that_lines_error(tmp_path: Path) -> None:
    gold = [_gold("f")]
    corpus = write_lines(tmp_path / "c.jsonl", [
        {"id": "ok", "pred": "f()", "gold": gold},
        {"id": "bad", "pred": "f()", "gold": gold, "format": "klingon"},
        {"id": "worse", "pred": "f()", "gold": gold, "format": 3},
    ])
    usage = run_ek("score", corpus, "--format", "klingon")
    assert usage.returncode == 2 and "unknown format 'klingon'" in usage.stderr and "llama3" in usage.stderr
    proc = run_ek("score", corpus, "--json", tmp_path / "r.json")
    assert proc.returncode == 1
    report = _report(tmp_path / "r.json")
    assert report["corpus"]["episodes_scored"] == 1
    reasons = {e["id"]: e["reason"] for e in report["errors"]}
    assert "unknown format 'klingon'" in reasons["bad"] and "llama3" in reasons["bad"]
    assert "'format' must be a string" in reasons["worse"]


def test_a_null_or_empty_output_is_an_abstention_in_every_format(tmp_path: Path) -> None:
    """cli.md: `null` or `""` means no call; with gold `[]` that is the right answer, in JSON formats too."""
    corpus = write_lines(tmp_path / "c.jsonl", [
        {"id": "1", "format": "openai", "pred": None, "gold": []},
        {"id": "2", "pred": "", "gold": []},
        {"id": "3", "format": "anthropic", "pred": "", "gold": [_gold("f")]},
    ])
    for fmt in ("auto", "openai", "anthropic", "json", "gemini", "mcp"):
        proc = run_ek("score", corpus, "--format", fmt, "--json", tmp_path / "r.json")
        assert proc.returncode == 0, proc.stderr
        corpus_figures = _report(tmp_path / "r.json")["corpus"]
        assert corpus_figures["unparseable_outputs"] == 0, (fmt, corpus_figures)
        assert _report(tmp_path / "r.json")["accuracy"]["exact"] == 2, fmt
