"""Real BFCL result files (tests/data/bfcl/real/, each run's source and license in the README there): ek.bfcl.check
and `ek score`, run as docs/bfcl.md tells a user, give BFCL's verdict on every line but a documented difference.

BFCL's verdicts are recorded beside the lines (each run's expected.jsonl) and, when bfcl-eval is installed,
computed again with BFCL's own checker on the calls as BFCL's handler for the model decodes them.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import attrs
import pytest
from ekcli import bfcl_entry

from ek import ParseError, parse_calls
from ek.bfcl import check
from ek.bfcl.multiturn import category_of_id

DATA = Path(__file__).parent.parent / "data" / "bfcl"
REAL = DATA / "real"


@attrs.frozen
class Run:
    """A model's result files: how BFCL's handler for it decodes a result, and the `ek score --format` to read it."""

    folder: str
    handler: str  # "fc": OpenAI's and Claude's FC handlers; "xlam": Salesforce's; "qwen_fc": Qwen's FC handler
    format: str | None = None  # None: ek score's default (bfcl)


RUNS = (Run("glyphh-ada-opus-4.5", "fc"), Run("xlam-2-8b-fc-r", "xlam"), Run("qwen3-8b-fc", "qwen_fc", "hermes"))
ROWS = [(run, json.loads(line)) for run in RUNS
        for line in (REAL / run.folder / "expected.jsonl").read_text(encoding="utf-8").splitlines()]

#: The differences of docs/bfcl.md ("Where ek differs from BFCL, on purpose") these real lines show.
DOCUMENTED = {"int_for_float_in_a_list": 2, "quoted_string_array_items": 4}
_RELEVANCE = ("irrelevance", "live_irrelevance", "live_relevance")


def _line(run: Run, row: dict[str, Any]) -> dict[str, Any]:
    text = (REAL / run.folder / row["file"]).read_text(encoding="utf-8").splitlines()[row["line"] - 1]
    line: dict[str, Any] = json.loads(text)
    assert line["id"] == row["id"]
    return line


def test_the_real_runs_hold_every_single_turn_category_and_their_differences_are_documented() -> None:
    for run in RUNS:
        rows = [row for r, row in ROWS if r == run]
        assert {category_of_id(row["id"]) for row in rows} >= {
            "simple_python", "multiple", "parallel", "parallel_multiple", "live_simple", "live_multiple",
            "live_parallel", "live_parallel_multiple", "simple_java", "simple_javascript", "irrelevance"}
        assert len(rows) >= 200 and {row["file"] for row in rows} <= {p.name for p in (REAL / run.folder).iterdir()}
    assert {row["difference"] for _, row in ROWS} - {None} <= set(DOCUMENTED)
    assert sum(row["difference"] is not None for _, row in ROWS) == 6  # 3 + 2 + 1


@pytest.mark.parametrize(("run", "row"), ROWS, ids=[f"{run.folder}-{row['id']}" for run, row in ROWS])
def test_check_gives_bfcls_verdict_on_real_lines_but_for_a_documented_difference(run: Run, row: dict[str, Any]) -> None:
    question, answer, category = bfcl_entry(row["id"])
    output = _line(run, row)["result"]
    if run.format is not None:  # the calls in the model's own template; text that does not read, as it is
        try:
            output = parse_calls(output, run.format)
        except ParseError:
            pass
    verdict = check(question.functions, output, answer.ground_truth if answer else [], category)
    assert {"valid": verdict.valid, "error_type": verdict.error_type} == row["ek"]
    same = row["ek"]["valid"] == row["bfcl"]["valid"] and (row["ek"]["valid"] or row["ek"] == row["bfcl"])
    assert same == (row["difference"] is None), row["id"]


def _handler_decode(handler: str, result: Any) -> list[Any]:
    """The model handler's ``decode_ast`` in bfcl-eval 2026.3.23 (its modules import their SDKs: restated here)."""
    if handler == "fc":  # api_inference/openai_completion.py, claude.py
        return [{name: json.loads(args)} for call in result for name, args in call.items()]
    if handler == "xlam":  # local_inference/salesforce_llama.py
        try:
            calls = json.loads(result)
            calls = calls if isinstance(calls, list) else [calls]
        except json.JSONDecodeError:
            calls = [json.loads(call.strip()) for call in result.split(";")]
        return [{call["name"]: call["arguments"]} for call in calls]
    calls = []  # local_inference/qwen_fc.py: each <tool_call> block that is JSON, the others dropped
    for block in re.findall(r"<tool_call>\n(.*?)\n</tool_call>", result, re.DOTALL):
        try:
            calls.append(json.loads(block))
        except json.JSONDecodeError:
            continue
    return [{call["name"]: dict(call["arguments"])} for call in calls]


def test_the_recorded_verdicts_are_bfcls_own() -> None:
    from ek.bfcl.oracle import load_bfcl_checker

    checker = load_bfcl_checker()
    if checker is None:
        pytest.skip("bfcl-eval is not installed (pip install --no-deps bfcl-eval)")
    from bfcl_eval.utils import is_empty_output, is_function_calling_format_output

    for run, row in ROWS:
        question, answer, category = bfcl_entry(row["id"])
        try:  # bfcl_eval/eval_checker/eval_runner.py: a handler that raises is a decoder failure
            decoded = _handler_decode(run.handler, _line(run, row)["result"])
        except Exception:  # noqa: BLE001 - the handlers raise anything on output they cannot read
            decoded = None
        if category in _RELEVANCE:
            called = decoded is not None and not is_empty_output(decoded)
            valid = called == (category == "live_relevance")
            error = "" if valid else "relevance_error:decoder_failed" if category == "live_relevance" \
                else "irrelevance_error:decoder_success"
            bfcl = {"valid": valid, "error_type": error}
        elif decoded is None:
            bfcl = {"valid": False, "error_type": "ast_decoder:decoder_failed"}
        elif not is_function_calling_format_output(decoded):
            bfcl = {"valid": False, "error_type": "ast_decoder:decoder_wrong_output_format"}
        else:
            result = checker(json.loads(json.dumps(list(question.functions))), decoded,
                             json.loads(json.dumps(list(answer.ground_truth))), category)
            bfcl = {"valid": result["valid"], "error_type": result.get("error_type", "")}
        assert bfcl == row["bfcl"], (run.folder, row["id"])


def _ek_score(tmp_path: Path, run: Run, name: str) -> tuple[subprocess.CompletedProcess[str], dict[str, Any], list[Any]]:
    episodes, report = tmp_path / "episodes.jsonl", tmp_path / "report.json"
    # as docs/bfcl.md tells a user: the result file, BFCL's questions and answers, BFCL's canonicalizer
    command = [sys.executable, "-m", "ek", "score", str(REAL / run.folder / name), "--bfcl-questions", str(DATA),
               "--bfcl-answers", str(DATA / "possible_answer"), "--canonicalizer", "bfcl",
               "--episodes-out", str(episodes), "--json", str(report)]
    done = subprocess.run(command + (["--format", run.format] if run.format else []),
                          capture_output=True, text=True, timeout=300)
    rows = {row["id"]: row for row in map(json.loads, episodes.read_text(encoding="utf-8").splitlines())}
    return done, rows, json.loads(report.read_text(encoding="utf-8"))["errors"]


_SCORED = [(RUNS[0], "parallel"), (RUNS[0], "live_simple"), (RUNS[0], "java"), (RUNS[0], "irrelevance"),
           (RUNS[1], "simple_java"), (RUNS[1], "simple_python"), (RUNS[1], "live_relevance"),
           (RUNS[2], "parallel_multiple"), (RUNS[2], "simple_javascript"), (RUNS[2], "irrelevance")]


@pytest.mark.slow
@pytest.mark.parametrize(("run", "name"), _SCORED, ids=[f"{run.folder}-{name}" for run, name in _SCORED])
def test_ek_score_on_a_real_result_file_gives_bfcls_verdicts(tmp_path: Path, run: Run, name: str) -> None:
    file_name = f"BFCL_v4_{name}_result.json"
    done, rows, errors = _ek_score(tmp_path, run, file_name)
    assert done.returncode == (1 if errors else 0), done.stderr  # 1: error lines (docs/cli.md)
    # an answer BFCL's own data gets wrong (a value outside the parameter's enum) is an error line that says so
    assert all(error["reason"].startswith("gold does not fit") for error in errors), errors
    expected = [row for r, row in ROWS if r == run and row["file"] == file_name]
    assert len(rows) + len(errors) == len(expected) > 0
    parted = {row["id"] for row in expected if row["id"] in rows and rows[row["id"]]["exact"] != row["bfcl"]["valid"]}
    assert parted == {row["id"] for row in expected if row["difference"] is not None and row["id"] in rows}


@pytest.mark.slow
def test_ek_score_scores_every_line_of_a_real_multi_turn_file(tmp_path: Path) -> None:
    done, rows, errors = _ek_score(tmp_path, RUNS[0], "BFCL_v4_multi_turn_base_result.json")
    assert done.returncode == 0, done.stderr
    assert errors == [] and len(rows) == 20
    assert all(row["turns"] >= 1 and row["parse_error"] is None for row in rows.values())
