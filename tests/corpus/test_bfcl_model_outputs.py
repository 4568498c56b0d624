"""BFCL result files as models write them: Java and JavaScript source values, and the names a model sees.

Outputs and BFCL's own verdicts come from ``tests/data/bfcl/verdicts.jsonl`` (BFCL's ``ast_checker`` on
outputs derived from every sample ground truth; see its README), scored end to end by the corpus runner.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from ek.bfcl import check, read_possible_answers, read_questions, underscored_name
from ek.bfcl.signatures import find_source
from ek.corpus.runner import RunOptions, run
from ek.corpus.summary import underscored_names, unit_counts_by_tool

#: Where ek score differs from BFCL's verdict on the sample, on purpose (docs/bfcl.md): a Java String
#: array's items read without their quotes (difference 4: simple_java_35 and _78 cannot be passed in BFCL).
#: An answer that is a "variable" is compared as written, as in BFCL (the metric's BFCL mode asks BFCL's rules:
#: ``simple_java_35``, ``simple_javascript_15`` and ``_19`` in another case are not exact).
DOCUMENTED = {("simple_java_35", "first"), ("simple_java_35", "random"), ("simple_java_78", "first"),
              ("simple_java_78", "random"), ("simple_java_78", "case_and_punctuation")}


def _verdicts(bfcl_data: Path, categories: Iterable[str]) -> list[dict[str, Any]]:
    wanted = set(categories)
    with open(bfcl_data / "verdicts.jsonl", encoding="utf-8") as lines:
        return [row for row in map(json.loads, lines) if row["category"] in wanted]


def _run(tmp_path: Path, bfcl_data: Path, category: str, results: list[dict[str, Any]],
         **options: Any) -> tuple[list[dict[str, Any]], list[tuple[int, str]]]:
    """One run of the corpus runner: the scored lines' episode rows (``exact``, ``f1``, ...) and the error
    lines (line, reason), both in line order."""
    corpus = tmp_path / f"{category}.jsonl"
    corpus.write_text("".join(json.dumps(r) + "\n" for r in results), encoding="utf-8")
    rows: list[dict[str, Any]] = []
    result = run(str(corpus), RunOptions(level="call", canonicalizer="bfcl", format="bfcl", keep_export=True,
                                         bfcl_questions=str(bfcl_data / f"BFCL_v4_{category}.json"),
                                         bfcl_answers=str(bfcl_data / "possible_answer" / f"BFCL_v4_{category}.json"),
                                         **options), export=rows.extend)
    errors = [(e.line, e.reason) for e in result.summary.errors]
    assert len(rows) + len(errors) == len(results)
    return rows, errors


def _score(tmp_path: Path, bfcl_data: Path, category: str, results: list[dict[str, Any]],
           **options: Any) -> list[dict[str, Any]]:
    """Each line's episode row, in line order, from a run where every line is scored."""
    rows, errors = _run(tmp_path, bfcl_data, category, results, **options)
    assert errors == []
    return rows


def _source_text(output: list[dict[str, dict[str, str]]]) -> str:
    """A decoded Java/JavaScript output written back as a prompting model's text: ``[Name(arg=<source>)]``."""
    calls = [f"{name}({', '.join(f'{arg}={value}' for arg, value in args.items())})"
             for call in output for name, args in call.items()]
    return f"[{', '.join(calls)}]"


@pytest.mark.parametrize("category", ["simple_java", "simple_javascript"])
def test_java_and_javascript_outputs_are_exact_where_bfcl_finds_them_valid(tmp_path: Path, bfcl_data: Path,
                                                                          category: str) -> None:
    verdicts = _verdicts(bfcl_data, [category])
    rows = _score(tmp_path, bfcl_data, category, [{"id": v["id"], "result": v["output"]} for v in verdicts])
    differ = {(v["id"], v["label"]) for v, row in zip(verdicts, rows, strict=True) if row["exact"] != v["bfcl_valid"]}
    assert differ == {key for key in DOCUMENTED if key[0].startswith(category + "_")}


@pytest.mark.parametrize("category", ["simple_java", "simple_javascript"])
def test_a_prompting_models_source_text_is_exact_where_bfcl_check_finds_it_valid(tmp_path: Path, bfcl_data: Path,
                                                                                category: str) -> None:
    questions = {q.id: q for q in read_questions(bfcl_data / f"BFCL_v4_{category}.json")}
    answers = {a.id: a for a in read_possible_answers(bfcl_data / "possible_answer" / f"BFCL_v4_{category}.json")}
    verdicts = _verdicts(bfcl_data, [category])
    texts = [_source_text(v["output"]) for v in verdicts]
    rows = _score(tmp_path, bfcl_data, category, [{"id": v["id"], "result": t} for v, t in zip(verdicts, texts)])
    valid = [check(questions[v["id"]].functions, text, answers[v["id"]].ground_truth, category).valid
             for v, text in zip(verdicts, texts, strict=True)]
    differ = {(v["id"], v["label"]) for v, row, ok in zip(verdicts, rows, valid, strict=True) if row["exact"] != ok}
    assert differ == set()  # a variable compared as written by both
    assert sum(valid) > 0


def test_unreadable_java_text_is_an_unparseable_output_not_an_error(tmp_path: Path, bfcl_data: Path) -> None:
    (first, *_) = _verdicts(bfcl_data, ["simple_java"])
    (row,) = _score(tmp_path, bfcl_data, "simple_java", [{"id": first["id"], "result": "[Geo.create(controller"}])
    assert not row["exact"] and row["parse_error"]


PYTHON_CATEGORIES = ("simple_python", "multiple", "parallel", "parallel_multiple", "live_simple", "live_multiple")


def _function_calling(output: list[dict[str, Any]]) -> list[dict[str, str]]:
    """An output as BFCL saves a function-calling model's: names with ``.`` as ``_``, arguments as JSON text."""
    return [{underscored_name(name): json.dumps(args)} for call in output for name, args in call.items()]


@pytest.mark.parametrize("category", PYTHON_CATEGORIES)
def test_underscore_to_dot_scores_the_names_a_model_was_shown(tmp_path: Path, bfcl_data: Path, category: str) -> None:
    verdicts = _verdicts(bfcl_data, [category])
    as_is, as_is_errors = _run(tmp_path, bfcl_data, category, [{"id": v["id"], "result": v["output"]} for v in verdicts])
    shown = [{"id": v["id"], "result": _function_calling(v["output"])} for v in verdicts]
    renamed, renamed_errors = _run(tmp_path, bfcl_data, category, shown, underscore_to_dot=True)
    same = ("line", "exact", "f1", "tp", "fp", "fn", "reasons")
    assert [[r[k] for k in same] for r in renamed] == [[r[k] for k in same] for r in as_is]
    # the same lines' gold is invalid (BFCL's own data errors in the sample), whatever the names
    assert [line for line, _ in renamed_errors] == [line for line, _ in as_is_errors]
    dotted = sum("." in name for v in verdicts for call in v["output"] for name in call)
    if dotted:  # without the option, those calls name no function of the question
        not_renamed, _ = _run(tmp_path, bfcl_data, category, shown)
        assert sum(r["exact"] for r in not_renamed) < sum(r["exact"] for r in as_is)


def test_names_written_with_underscores_are_found_in_a_runs_total(tmp_path: Path, bfcl_data: Path) -> None:
    verdicts = [v for v in _verdicts(bfcl_data, ["simple_python"]) if v["label"] == "first"]
    corpus = tmp_path / "fc.jsonl"
    corpus.write_text("".join(json.dumps({"id": v["id"], "result": _function_calling(v["output"])}) + "\n"
                              for v in verdicts), encoding="utf-8")
    options = {"level": "call", "canonicalizer": "bfcl", "format": "bfcl",
               "bfcl_questions": str(bfcl_data / "BFCL_v4_simple_python.json"),
               "bfcl_answers": str(bfcl_data / "possible_answer" / "BFCL_v4_simple_python.json")}
    found = underscored_names(unit_counts_by_tool(run(str(corpus), RunOptions(**options)).summary.total()))
    dotted = {name for v in verdicts for call in v["output"] for name in call if "." in name}
    assert dotted and found == {underscored_name(name): name for name in dotted}
    renamed = run(str(corpus), RunOptions(**options, underscore_to_dot=True))
    assert underscored_names(unit_counts_by_tool(renamed.summary.total())) == {}


# multi-turn answers write positional calls, read in the parameter order of BFCL's API source (bfcl-eval)
@pytest.mark.skipif(find_source() is None, reason="bfcl-eval is not installed (the test command installs it)")
def test_multi_turn_questions_list_no_schemas_and_score_as_without_the_questions(tmp_path: Path,
                                                                                 bfcl_data: Path) -> None:
    """BFCL's multi-turn question entries have no ``function`` list: with ``bfcl_questions`` given (one file for
    a run over every category), their lines are scored without a grammar, as with the answers alone."""
    answers = read_possible_answers(bfcl_data / "possible_answer" / "BFCL_v4_multi_turn_base.json")
    # each turn's ground truth as the text of the model's one step of that turn: right answers
    results = [{"id": a.id, "result": [[f"[{', '.join(turn)}]"] for turn in a.ground_truth]} for a in answers]
    corpus = tmp_path / "multi_turn.jsonl"
    corpus.write_text("".join(json.dumps(r) + "\n" for r in results), encoding="utf-8")
    options = {"level": "call", "canonicalizer": "bfcl", "format": "bfcl", "keep_export": True,
               "bfcl_answers": str(bfcl_data / "possible_answer" / "BFCL_v4_multi_turn_base.json")}
    with_questions: list[dict[str, Any]] = []
    alone: list[dict[str, Any]] = []
    questions = str(bfcl_data / "BFCL_v4_multi_turn_base.json")
    first = run(str(corpus), RunOptions(**options, bfcl_questions=questions), export=with_questions.extend)
    second = run(str(corpus), RunOptions(**options), export=alone.extend)
    assert first.summary.error_count == second.summary.error_count == 0
    assert len(with_questions) == len(results) and with_questions == alone
    assert sum(row["exact"] for row in alone) > len(results) // 2


def test_a_multi_turn_result_cut_short_is_never_exact(tmp_path: Path, bfcl_data: Path) -> None:
    """BFCL fails a result with fewer turns than the answer (``multi_turn:force_terminated``): the turns it lacks
    are unreadable outputs, even where their gold is ``[]``, so the entry is not exact; its calls still count."""
    answers = read_possible_answers(bfcl_data / "possible_answer" / "BFCL_v4_multi_turn_base.json")
    answer = next(a for a in answers if "('" not in repr(a.ground_truth))  # no positional value: a model's reads
    right = [[f"[{', '.join(turn)}]"] for turn in answer.ground_truth]
    answer_path = tmp_path / "possible_answer.json"  # the answer with a last turn of gold []: nothing to miss
    answer_path.write_text(json.dumps({"id": answer.id, "ground_truth": [*answer.ground_truth, []]}) + "\n")
    corpus = tmp_path / "multi_turn.jsonl"
    corpus.write_text(json.dumps({"id": answer.id, "result": right}) + "\n", encoding="utf-8")
    rows: list[dict[str, Any]] = []
    result = run(str(corpus), RunOptions(level="call", canonicalizer="bfcl", format="bfcl", keep_export=True,
                                         bfcl_answers=str(answer_path)), export=rows.extend)
    assert result.summary.error_count == 0
    (row,) = rows
    assert row["fp"] == row["fn"] == 0 and row["tp"] == sum(len(turn) for turn in answer.ground_truth)
    assert row["exact"] is False and row["first_failing_turn"] == len(right)
    assert f"ends after {len(right)} of the answer's {len(right) + 1} turns" in row["parse_error"]
    assert "force_terminated" in row["parse_error"]
