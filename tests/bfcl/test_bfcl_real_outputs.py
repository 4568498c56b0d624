"""Real model outputs from BFCL result files (tests/data/bfcl/real_outputs.jsonl, each line's source named):
ek.bfcl.check and `ek score` against BFCL's verdicts, recorded in the file and, when bfcl-eval is installed,
computed again with BFCL's own decoder and checker.

Every line where ek and BFCL part names its difference, one docs/bfcl.md documents.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest
from ekcli import bfcl_entry

from ek.bfcl import check, underscored_answer, underscored_question
from ek.corpus.runner import RunOptions, run

DATA = Path(__file__).parent.parent / "data" / "bfcl"
LINES = [json.loads(line) for line in (DATA / "real_outputs.jsonl").read_text(encoding="utf-8").splitlines()]

#: The differences of docs/bfcl.md a real line shows (its "Where ek differs from BFCL" list).
DOCUMENTED = {
    "int_for_float_in_a_list",      # 2
    "no_evaluation",                # 3 (and 6: positional arguments)
    "fence_with_a_language",        # 6
    "one_list_per_line",            # 6
    "quoted_function_name",         # 6
    "json_text",                    # 6 (a JSON list of {"name", "parameters"} objects, read as calls)
    "javascript_object_text",       # 6 (Java and JavaScript partings)
    "javascript_object_over_lines",  # 6
}


def _same(ours: dict[str, Any], bfcl: dict[str, Any]) -> bool:
    theirs = bfcl["error_type"].replace("decoder_wrong_output_format", "decoder_failed")
    return ours["valid"] == bfcl["valid"] and (ours["valid"] or ours["error_type"] == theirs)


def test_the_file_holds_real_lines_each_with_its_source() -> None:
    assert len(LINES) >= 40
    assert all(line["source"].startswith("HuanzhiMao/BFCL-Result:") and "#L" in line["source"] for line in LINES)
    assert {line["difference"] for line in LINES} - {None} <= DOCUMENTED


@pytest.mark.parametrize("line", LINES, ids=[f"{n}-{line['id']}" for n, line in enumerate(LINES)])
def test_check_gives_bfcls_verdict_but_for_a_documented_difference(line: dict[str, Any]) -> None:
    question, answer, category = bfcl_entry(line["id"])
    verdict = check(question.functions, line["result"], answer.ground_truth if answer else [], category,
                    underscore_to_dot=line["underscore_to_dot"])
    assert {"valid": verdict.valid, "error_type": verdict.error_type} == line["ek"]
    assert _same(line["ek"], line["bfcl"]) == (line["difference"] is None)


def _bfcl_decoded(result: Any, decode: Any) -> list[Any]:
    if isinstance(result, list):  # an FC model's calls: BFCL's FC handlers json.loads each call's arguments
        return [{name: json.loads(args)} for call in result for name, args in call.items()]
    try:
        tree = ast.parse(result.strip("`\n ").removeprefix("python\n"))
    except SyntaxError:
        tree = None
    if tree is not None and any(isinstance(node, ast.BinOp | ast.Lambda) for node in ast.walk(tree)):
        pytest.fail("BFCL's decoder evaluates arithmetic: such a line must not be in the file")
    return decode(result)


def test_the_recorded_bfcl_verdicts_are_bfcls_own() -> None:
    from ek.bfcl.oracle import load_bfcl_checker, load_bfcl_decoder

    checker, decode = load_bfcl_checker(), load_bfcl_decoder()
    if checker is None or decode is None:
        pytest.skip("bfcl-eval is not installed (pip install --no-deps bfcl-eval)")
    for line in LINES:
        question, answer, category = bfcl_entry(line["id"])
        if line["underscore_to_dot"]:  # BFCL's checker renames for such models; here the entry is renamed
            question, answer = underscored_question(question), answer and underscored_answer(answer)
        try:
            decoded = _bfcl_decoded(line["result"], decode)
        except Exception:  # noqa: BLE001 - BFCL's decoder raises anything on text it cannot read
            decoded = None
        if "irrelevance" in category:
            valid = decoded is None or not any(call and any(call.values()) or call for call in decoded)
            assert valid == line["bfcl"]["valid"], line["source"]
            continue
        if decoded is None:
            bfcl = {"valid": False, "error_type": "ast_decoder:decoder_failed"}
        else:
            bfcl = checker(json.loads(json.dumps(list(question.functions))), decoded,
                           json.loads(json.dumps(list(answer.ground_truth))), category)
        assert bfcl["valid"] == line["bfcl"]["valid"], line["source"]
        assert bfcl["valid"] or bfcl["error_type"] == line["bfcl"]["error_type"], line["source"]


@pytest.mark.parametrize("underscore_to_dot", [False, True])
def test_ek_score_scores_every_line_as_check_does(tmp_path: Path, underscore_to_dot: bool) -> None:
    lines = [line for line in LINES if line["underscore_to_dot"] == underscore_to_dot]
    rows: list[dict[str, Any]] = []
    errors = []
    for n, line in enumerate(lines):  # one file a line: a result file holds each id once
        corpus = tmp_path / f"result_{n}.json"
        corpus.write_text(json.dumps({"id": line["id"], "result": line["result"]}) + "\n", encoding="utf-8")
        result = run(str(corpus), RunOptions(level="call", canonicalizer="bfcl", format="bfcl", keep_export=True,
                                             bfcl_questions=str(DATA), bfcl_answers=str(DATA / "possible_answer"),
                                             underscore_to_dot=underscore_to_dot, invalid_gold="warn"),
                     export=rows.extend)
        errors += [(line["id"], e.reason) for e in result.summary.errors]
    assert errors == [] and len(rows) == len(lines)
    differ = [(line["source"], line["result"]) for line, row in zip(lines, rows, strict=True)
              if row["exact"] != line.get("score_exact", line["ek"]["valid"])]
    assert differ == [], differ
    # Where they part, by docs/bfcl.md's rules ("ek score and check on a prompting model's text"): format bfcl
    # reads text as written first (a trailing ";"), and an unreadable output is never an abstention.
    assert all(line["score_exact"] != line["ek"]["valid"] for line in lines if "score_exact" in line)
