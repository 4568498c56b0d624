"""Promise: a gold number JSON cannot hold (``NaN``, ``Infinity``, ``-Infinity``, or one past a float's range such
as ``1e400``, which Python's ``json`` reads as infinity) is that gold's error, naming where it is; never a gold
that silently equals nothing, so that its line could never be right. A model output holding one is the model's
mistake: scored, as an output that could not be parsed (docs/parsing.md, "JSON strictness").
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from ekcli import run_ek, write_lines

from ek.bfcl import gold_calls
from ek.goldjson import gold_from_json

NOT_JSON = ["NaN", "Infinity", "-Infinity", "1e400", "-1e400"]


@pytest.mark.parametrize("token", NOT_JSON)
@pytest.mark.parametrize(("arguments", "where"), [
    ('{"x": %s}', "gold[0].arguments.x"),
    ('{"x": [1.5, %s]}', "gold[0].arguments.x[1]"),
    ('{"x": {"k": %s}}', "gold[0].arguments.x.k"),
    ('{"x": {"$oneOf": [2.5, %s]}}', "gold[0].arguments.x.$oneOf[1]"),
])
def test_corpus_gold_refuses_it_where_it_is(token: str, arguments: str, where: str) -> None:
    value = json.loads(arguments % token)
    with pytest.raises(ValueError, match=rf"^{re.escape(where)}: -?(nan|inf) is not a JSON number"):
        gold_from_json([{"name": "f", "arguments": value}])


def test_finite_floats_stay_as_they_are() -> None:
    (step,) = gold_from_json([{"name": "f", "arguments": {"x": 1.5, "y": [2.5e300, -0.0], "z": {"k": 1e-300}}}])
    assert step.args == {"x": 1.5, "y": [2.5e300, -0.0], "z": {"k": 1e-300}}


@pytest.mark.parametrize("token", NOT_JSON)
@pytest.mark.parametrize(("options", "where"), [
    ("[%s]", "ground_truth[0]['f']['x']"),
    ("[1.5, %s]", "ground_truth[0]['f']['x']"),
    ('[[1.5, %s]]', "ground_truth[0]['f']['x']"),
    ('[{"k": [%s]}]', "ground_truth[0]['f']['x']"),
    ('[{"k": %s}]', "ground_truth[0]['f']['x']"),  # a dict's value given as it is, not as alternatives
])
def test_bfcl_answers_refuse_it_where_it_is(token: str, options: str, where: str) -> None:
    truth = json.loads('[{"f": {"y": [1], "x": %s}}]' % (options % token))
    with pytest.raises(ValueError, match=rf"^{re.escape(where)}: .*is not a JSON number"):
        gold_calls(truth)


@pytest.mark.slow
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_ek_score_makes_each_such_gold_line_an_error_line_and_scores_the_rest(tmp_path: Path, jobs: str) -> None:
    gold = '[{"name": "f", "arguments": {"x": %s}}]'
    lines = ['{"id": "ok", "pred": "f(x=1.5)", "gold": %s}' % (gold % "1.5")]
    lines += ['{"id": "%s", "pred": "f(x=1.5)", "gold": %s}' % (token, gold % token) for token in NOT_JSON]
    # a model's output holding one: scored (unparseable), not an error line
    lines.append('{"id": "pred", "pred": [{"name": "f", "arguments": {"x": NaN}}], "gold": %s}' % (gold % "1.5"))
    corpus = write_lines(tmp_path / "c.jsonl", lines)
    done = run_ek("score", corpus, "--json", tmp_path / "r.json", "--jobs", jobs, "--allow-errors")
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert (report["corpus"]["episodes_scored"], report["corpus"]["error_lines"]) == (2, 5)
    assert report["corpus"]["unparseable_outputs"] == 1
    for number, token in enumerate(NOT_JSON, 2):
        assert re.search(rf"line {number} \(id '{re.escape(token)}'\): gold\[0\]\.arguments\.x: -?(nan|inf) is not "
                         "a JSON number", done.stdout), done.stdout


def test_a_bfcl_answer_file_with_nan_makes_its_question_s_lines_error_lines(tmp_path: Path) -> None:
    questions = tmp_path / "q.json"
    answers = tmp_path / "a.json"
    function = {"name": "f", "parameters": {"type": "dict", "properties": {"x": {"type": "float"}}, "required": ["x"]}}
    write_lines(questions, [{"id": "simple_python_0", "function": [function]},
                            {"id": "simple_python_1", "function": [function]}])
    write_lines(answers, ['{"id": "simple_python_0", "ground_truth": [{"f": {"x": [NaN]}}]}',
                          {"id": "simple_python_1", "ground_truth": [{"f": {"x": [1.5]}}]}])
    corpus = write_lines(tmp_path / "r.jsonl", [{"id": "simple_python_0", "result": "[f(x=1.5)]"},
                                                 {"id": "simple_python_1", "result": "[f(x=1.5)]"}])
    done = run_ek("score", corpus, "--format", "bfcl", "--bfcl-questions", questions, "--bfcl-answers", answers,
                  "--allow-errors", "--json", tmp_path / "r.json")
    assert "Traceback" not in done.stderr, done.stderr
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert (report["corpus"]["episodes_scored"], report["corpus"]["error_lines"]) == (1, 1), done.stdout
    assert "ground_truth[0]['f']['x']: an acceptable value: nan is not a JSON number" in done.stdout + done.stderr
