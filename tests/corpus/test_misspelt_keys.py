"""A corpus or gold-file line whose key is a misspelling of one ek reads is refused, not read without it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from ekcli import gold, run_ek

from ek.corpus.reading import LINE_READ_KEYS, Episode, GoldEntry, LineError, load_gold_file, parse_episode

G = [gold("f", x=1)]


def _line(**fields: Any) -> str:
    return json.dumps({"id": 7, "pred": "f(x=1)", "gold": G, **fields})


@pytest.mark.parametrize(("key", "meant"), [
    ("taks", "task"), ("Task", "task"), ("categroy", "category"), ("fromat", "format"),
    ("grammer", "grammar"), ("gramar", "grammar"), ("tunrs", "turns"),
])
def test_a_misspelt_optional_key_is_an_error_naming_the_key_it_looks_like(key: str, meant: str) -> None:
    got = parse_episode(_line(**{key: "x"}), 3)
    assert isinstance(got, LineError)
    assert (got.line, got.id) == (3, 7)
    assert f"key {key!r} is not one ek reads: did you mean {meant!r}?" in got.reason


def test_a_misspelt_id_is_refused_too() -> None:
    got = parse_episode(json.dumps({"ID": 7, "pred": "f(x=1)", "gold": G}), 1)
    assert isinstance(got, LineError) and "did you mean 'id'?" in got.reason


def test_a_gold_key_misspelt_beside_a_gold_file_is_refused_not_replaced_by_the_files_gold() -> None:
    gold_by_id = {7: GoldEntry(())}
    got = parse_episode(json.dumps({"id": 7, "pred": "f(x=1)", "glod": G}), 1, gold_by_id)
    assert isinstance(got, LineError) and "did you mean 'gold'?" in got.reason


@pytest.mark.parametrize("fields", [
    {"tasks": ["a"], "categories": "b", "formats": 1, "grammars": None},  # plurals name other things
    {"latency": 1.2, "input_token_count": 30, "inference_log": []},      # a BFCL result file's own keys
    {"ouptut": "g()"},                    # a second output key, misspelt, beside the one read
    {"ip": "10.0.0.1", "Golden": 1},       # short keys one edit from 'id', and a longer word
    {"task": "t", "Task": "other"},       # the key it looks like is there: read, and this one is the line's own
])
def test_keys_that_are_not_misspellings_of_a_missing_key_are_left_alone(fields: dict[str, Any]) -> None:
    got = parse_episode(_line(**fields), 1)
    assert isinstance(got, Episode), got


def test_every_key_ek_reads_is_read_without_complaint() -> None:
    fields = {"task": "t", "category": "c", "format": "python", "grammar": "travel@2"}
    got = parse_episode(_line(**fields), 1)
    assert isinstance(got, Episode) and (got.task, got.category, got.format, got.grammar) == ("t", "c", "python",
                                                                                               "travel@2")
    assert set(LINE_READ_KEYS) >= {"id", "pred", "gold", "turns", *fields}


@pytest.mark.parametrize(("key", "meant"), [("results", "result"), ("model_output", "output"),
                                            ("predictions", "prediction")])
def test_a_line_without_an_output_names_the_key_that_looks_like_one(key: str, meant: str) -> None:
    got = parse_episode(json.dumps({"id": 1, key: "f(x=1)", "gold": G}), 1)
    assert isinstance(got, LineError)
    assert "no predicted output" in got.reason and f"the line has {key!r}: did you mean {meant!r}?" in got.reason


def test_a_misspelt_key_in_a_turn_names_the_turn() -> None:
    got = parse_episode(json.dumps({"turns": [{"pred": "f()", "gold": []}, {"pred": "f()", "glod": []}]}), 2)
    assert isinstance(got, LineError) and got.reason.startswith("turn 1: key 'glod' is not one ek reads: did "
                                                                "you mean 'gold'?")
    got = parse_episode(json.dumps({"turns": [{"outputs": "f()", "gold": []}]}), 2)
    assert isinstance(got, LineError) and "the line has 'outputs': did you mean 'output'?" in got.reason


def test_a_gold_file_line_with_a_misspelt_grammar_is_an_error_line(tmp_path: Path) -> None:
    path = tmp_path / "gold.jsonl"
    path.write_text(json.dumps({"id": "a", "gold": G, "grammer": "travel@2"}) + "\n"
                    + json.dumps({"Id": "b", "gold": G}) + "\n"
                    + json.dumps({"id": "c", "gold": G, "note": "kept"}) + "\n", encoding="utf-8")
    entries, errors, _ = load_gold_file(path)
    assert [(e.line, e.id) for e in errors] == [(1, "a"), (2, None)]
    assert "did you mean 'grammar'?" in errors[0].reason and "did you mean 'id'?" in errors[1].reason
    assert entries["c"].gold and entries["a"].unreadable


@pytest.mark.slow
def test_ek_score_counts_a_line_with_a_misspelt_task_as_an_error_and_scores_the_others(tmp_path: Path) -> None:
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("\n".join([
        json.dumps({"id": 1, "task": "a", "pred": "f(x=1)", "gold": G}),
        json.dumps({"id": 2, "taks": "a", "pred": "f(x=1)", "gold": G}),
        json.dumps({"id": 3, "task": "a", "pred": "f(x=2)", "gold": G}),
    ]) + "\n", encoding="utf-8")
    out = tmp_path / "r.json"
    proc = run_ek("score", corpus, "--json", out)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    report = json.loads(out.read_text(encoding="utf-8"))
    assert (report["corpus"]["episodes_scored"], report["corpus"]["error_lines"]) == (2, 1)
    assert report["errors"][0]["line"] == 2 and "did you mean 'task'?" in report["errors"][0]["reason"]
