"""``ek score --bfcl-answers``: BFCL result files scored against BFCL's real possible_answer data."""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

import pytest
from ekcli import REPO, run_ek, write_lines

from ek.bfcl.signatures import find_source

ANSWERS = REPO / "tests" / "data" / "bfcl" / "possible_answer" / "BFCL_v4_multiple.json"


def _first_choice(options: list[Any]) -> Any:
    return next(o for o in options if o != "")


def _plain_entries(limit: int) -> list[dict[str, Any]]:
    """Answers whose values are plain (no nested alternatives), so a right call can be written directly."""
    out = []
    for raw in ANSWERS.read_text().splitlines():
        entry = json.loads(raw)
        ((_name, params),) = entry["ground_truth"][0].items()
        if len(entry["ground_truth"]) == 1 and not any(isinstance(_first_choice(v), dict) for v in params.values()
                                                       if any(o != "" for o in v)):
            out.append(entry)
        if len(out) == limit:
            break
    return out


def _call(name: str, args: dict[str, Any]) -> str:
    return f"[{name}({', '.join(f'{k}={v!r}' for k, v in args.items())})]"


def test_score_bfcl_result_file_against_possible_answers(tmp_path: Path) -> None:
    entries = _plain_entries(20)
    lines: list[Any] = []
    right = 0
    for k, entry in enumerate(entries):
        ((name, params),) = entry["ground_truth"][0].items()
        args = {p: _first_choice(v) for p, v in params.items() if "" not in v}  # omit the omittable ones
        if k % 3 == 2:
            name = name + "_typo"  # a wrong tool
        else:
            right += 1
        lines.append({"id": entry["id"], "result": _call(name, args)})
    lines.append({"id": "not_in_answers", "result": "[f()]"})
    corpus = write_lines(tmp_path / "result.json", lines)
    out = tmp_path / "r.json"
    proc = run_ek("score", corpus, "--bfcl-answers", ANSWERS, "--canonicalizer", "bfcl", "--json", out)
    assert proc.returncode == 1  # the unknown id is an error line
    report = json.loads(out.read_text())
    assert report["corpus"]["episodes_scored"] == len(entries)
    assert [(e["line"], e["id"]) for e in report["errors"]] == [(len(entries) + 1, "not_in_answers")]
    assert "not in the gold file" in report["errors"][0]["reason"]
    assert report["overall"]["tp"] == right
    assert report["overall"]["fn"] == len(entries) - right
    assert {r["reason"] for r in report["per_reason"]} == {"missing_call", "wrong_tool"}


def test_score_bfcl_answers_file_that_is_not_bfcl_is_a_usage_error(tmp_path: Path) -> None:
    corpus = write_lines(tmp_path / "result.json", [{"id": "a", "result": "[f()]"}])
    bogus = write_lines(tmp_path / "answers.json", [{"id": "a", "gold": []}])
    proc = run_ek("score", corpus, "--bfcl-answers", bogus)
    assert proc.returncode == 2 and "--bfcl-answers" in proc.stderr and "ground_truth" in proc.stderr


QUESTIONS = REPO / "tests" / "data" / "bfcl" / "BFCL_v4_multiple.json"


def test_score_bfcl_questions_bring_each_entrys_function_schemas(tmp_path: Path) -> None:
    entries = _plain_entries(6)
    lines: list[Any] = []
    for entry in entries:
        ((name, params),) = entry["ground_truth"][0].items()
        args = {p: _first_choice(v) for p, v in params.items() if "" not in v}
        lines.append({"id": entry["id"], "result": _call(name, args).rstrip("]") + ", launch_rockets(n=3)]"})
    lines.append({"id": "simple_999", "result": "[f()]"})  # answered, but no such question
    corpus = write_lines(tmp_path / "result.json", lines)
    answers = write_lines(tmp_path / "answers.json",
                          [json.loads(raw) for raw in ANSWERS.read_text().splitlines()]
                          + [{"id": "simple_999", "ground_truth": [{"f": {}}]}])
    with_q, without_q = tmp_path / "with.json", tmp_path / "without.json"
    page = tmp_path / "with.html"
    proc = run_ek("score", corpus, "--bfcl-answers", answers, "--bfcl-questions", QUESTIONS, "--json", with_q,
                  "--html", page)
    assert proc.returncode == 1, proc.stderr
    # the header names what the episodes were scored against, not "grammar none"
    assert "grammar each question's functions (--bfcl-questions)" in proc.stdout
    assert "grammar <b>each question&#39;s functions (--bfcl-questions)</b>" in page.read_text()
    bare = run_ek("score", corpus, "--bfcl-answers", answers, "--json", without_q, "--allow-errors")
    assert "grammar none" in bare.stdout
    rq, rn = json.loads(with_q.read_text()), json.loads(without_q.read_text())
    # with the questions' schemas, the made-up tool is unknown; without, it is merely a tool gold never calls
    assert {r["reason"] for r in rq["per_reason"]} == {"unknown_tool"}
    assert {r["reason"] for r in rn["per_reason"]} == {"wrong_tool"}
    assert rq["overall"]["tp"] == len(entries)
    assert [(e["id"], "not in the BFCL questions file" in e["reason"]) for e in rq["errors"]] == [("simple_999", True)]
    assert rq["grammars"] == [{"grammar": "bfcl:question", "episodes": len(entries)}]
    clash = run_ek("score", corpus, "--bfcl-questions", QUESTIONS, "--grammar", "x.ek")
    assert clash.returncode == 2 and "give one of them" in clash.stderr


IRRELEVANCE = REPO / "tests" / "data" / "bfcl" / "BFCL_v4_irrelevance.json"


def test_abstention_is_one_verdict_everywhere(tmp_path: Path) -> None:
    """Gold [] (BFCL irrelevance): the reward function, assert_calls and `ek score` agree on every output,
    and `ek score` agrees with BFCL's rule (right iff no call decodes) where ek reads the output."""
    import pytest

    from ek.bfcl import check, read_questions
    from ek.rewards import make_tool_call_reward
    from ek.testing import assert_calls

    questions = read_questions(IRRELEVANCE)[:5]
    name = questions[2].functions[0]["name"]
    outputs = ["I cannot help with that.", "[]", f"[{name}()]", "", f"[{name}(x=1), {name}(x=2)]"]
    reward = make_tool_call_reward()(outputs, gold_calls=["[]"] * len(outputs))
    passes = []
    for out in outputs:
        try:
            assert_calls(out, [])
            passes.append(True)
        except AssertionError:
            passes.append(False)
    bfcl = [check(q.functions, out, [], "irrelevance").valid for q, out in zip(questions, outputs, strict=True)]
    lines = [{"id": q.id, "result": out} for q, out in zip(questions, outputs, strict=True)]
    report = tmp_path / "r.json"
    proc = run_ek("score", write_lines(tmp_path / "res.json", lines), "--bfcl-questions", IRRELEVANCE,
                  "--canonicalizer", "bfcl", "--json", report, "--episodes-out", tmp_path / "eps.jsonl")
    assert proc.returncode == 0, proc.stderr
    exact = [json.loads(r)["exact"] for r in (tmp_path / "eps.jsonl").read_text().splitlines()]
    expected = [True, True, False, True, False]
    assert [r == 1.0 for r in reward] == passes == exact == bfcl == expected
    data = json.loads(report.read_text())
    assert data["abstention"] == {"no_call_expected": 5, "abstained": 3, "spurious_call": 2, "unparseable": 0,
                                  "missed_call": 0}
    spurious = {r["reason"]: r["fp"]["count"] for r in data["per_reason"]}
    assert sum(spurious.values()) == 3 and set(spurious) <= {"spurious_call", "unknown_tool"}
    assert "Abstention" in proc.stdout and "spurious_call" in proc.stdout
    # an unreadable output is no abstention anywhere (BFCL counts a decoder failure as one: docs/bfcl.md)
    broken = "[" + name + "(x="
    assert make_tool_call_reward()([broken], gold_calls=["[]"]) == [0.0]
    with pytest.raises(AssertionError):
        assert_calls(broken, [])


RELEVANCE = REPO / "tests" / "data" / "bfcl" / "BFCL_v4_live_relevance.json"


def test_live_relevance_scores_with_bfcls_rule(tmp_path: Path) -> None:
    """live_relevance has no possible answers: an entry is right iff some call decodes (BFCL's rule, applied by
    its runner, not its AST checker). ek scores it as gold ANY_CALL, and agrees with ek.bfcl.check entry by entry."""
    from ek.bfcl import check, read_questions
    from ek.rewards import make_tool_call_reward

    questions = read_questions(RELEVANCE)
    assert len(questions) == 16
    lines, outputs = [], []
    for i, q in enumerate(questions):
        name = q.functions[0]["name"]
        output = [f"[{name}(prompt='a cat')]", "I cannot do that.", f"[{name}(prompt=", f"[{name}(), {name}()]",
                  [{name: '{"prompt": "x"}'}], ""][i % 6]
        outputs.append(output)
        lines.append({"id": q.id, "result": output})
    report, episodes = tmp_path / "r.json", tmp_path / "eps.jsonl"
    proc = run_ek("score", write_lines(tmp_path / "res.json", lines), "--bfcl-questions", RELEVANCE,
                  "--json", report, "--episodes-out", episodes, "--allow-errors")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = [json.loads(r) for r in episodes.read_text(encoding="utf-8").splitlines()]
    ours = [r["exact"] for r in rows]
    bfcl = [check(q.functions, out, [], "live_relevance").valid for q, out in zip(questions, outputs, strict=True)]
    assert ours == bfcl == [i % 6 in (0, 3, 4) for i in range(16)]
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["per_category"][0]["category"] == "live_relevance"
    assert data["accuracy"]["exact"] == sum(bfcl)
    reasons = {r["reason"]: r["fn"]["count"] for r in data["per_reason"]}
    assert reasons == {"missed_call": 5, "unparseable_output": 3}
    assert data["abstention"]["missed_call"] == 5 and data["abstention"]["no_call_expected"] == 0
    # one verdict everywhere: the reward of each output agrees with ek score
    reward = make_tool_call_reward()([o if isinstance(o, str) else json.dumps(o) for o in outputs],
                                     gold_calls=["any_call"] * len(outputs))
    assert [r == 1.0 for r in reward][:4] == ours[:4]


def test_score_bfcl_questions_file_that_is_not_bfcl_is_a_usage_error(tmp_path: Path) -> None:
    corpus = write_lines(tmp_path / "result.json", [{"id": "a", "result": "[f()]"}])
    bogus = write_lines(tmp_path / "questions.json", [{"id": "a", "function": "not a list"}])
    proc = run_ek("score", corpus, "--bfcl-answers", ANSWERS, "--bfcl-questions", bogus)
    assert proc.returncode == 2 and "--bfcl-questions" in proc.stderr and "'function'" in proc.stderr
    assert "Traceback" not in proc.stderr
    compared = run_ek("compare", corpus, corpus, "--bfcl-answers", ANSWERS, "--bfcl-questions", bogus)
    assert compared.returncode == 2 and "ek compare" in compared.stderr and "--bfcl-questions" in compared.stderr


def test_compare_with_bfcl_answers_that_are_not_bfcl_is_a_usage_error(tmp_path: Path) -> None:
    corpus = write_lines(tmp_path / "result.json", [{"id": "a", "result": "[f()]"}])
    bogus = write_lines(tmp_path / "answers.json", [{"id": "a", "gold": []}])
    proc = run_ek("compare", corpus, corpus, "--bfcl-answers", bogus)
    assert proc.returncode == 2 and "--bfcl-answers" in proc.stderr and "ground_truth" in proc.stderr


def test_each_bfcl_file_is_read_once_per_command(tmp_path: Path, monkeypatch: Any) -> None:
    """The command checks the BFCL files by reading them, and scores with what it read (``ek compare``: both
    runs): reading them again was 5% of a one-run result file's instructions."""
    import ek.bfcl.data as data
    from ek.cli import main

    reads: list[str] = []
    real = data._lines  # every reader of a BFCL file goes through it

    def counted(path: Any) -> Any:
        reads.append(str(path))
        return real(path)

    monkeypatch.setattr(data, "_lines", counted)
    entries = _plain_entries(3)
    corpus = write_lines(tmp_path / "result.json", [{"id": e["id"], "result": "[f()]"} for e in entries])
    for argv in (["score", str(corpus), "--json", str(tmp_path / "r.json")],
                 ["compare", str(corpus), str(corpus), "--json", str(tmp_path / "c.json")]):
        reads.clear()
        code = main([*argv, "--bfcl-answers", str(ANSWERS), "--bfcl-questions", str(QUESTIONS)])
        assert code in (0, 1)
        assert sorted(reads) == sorted([str(ANSWERS), str(QUESTIONS)]), argv


def test_bfcl_source_is_read_once_and_scores_the_run(tmp_path: Path, monkeypatch: Any) -> None:
    """``--bfcl-source`` is checked by reading it, and the run binds positional ground truth with what was
    read (it was read a second time on the first multi-turn answer)."""
    import ek.bfcl.signatures as signatures
    from ek.cli import main

    source = tmp_path / "bfcl_eval" / signatures.SOURCE_SUBDIR
    source.mkdir(parents=True)
    (source / "fs.py").write_text("class FS:\n    def cd(self, folder: str): ...\n", encoding="utf-8")
    answers = write_lines(tmp_path / "answers.json", [{"id": "multi_turn_base_0", "ground_truth": [["cd('tmp')"]]}])
    result = write_lines(tmp_path / "result.json", [{"id": "multi_turn_base_0", "result": [["[cd(folder='tmp')]"]]}])
    reads: list[str] = []
    real = signatures._methods  # read_signatures reads each file through it

    def counted(path: Any) -> Any:
        reads.append(str(path))
        return real(path)

    monkeypatch.setattr(signatures, "_methods", counted)
    out = tmp_path / "r.json"
    code = main(["score", str(result), "--bfcl-answers", str(answers), "--bfcl-source", str(source), "--json", str(out)])
    assert code == 0
    assert reads == [str(source / "fs.py")]
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["accuracy"]["exact"] == 1 and report["gold_file_errors"] == []


def test_underscore_to_dot_scores_a_function_calling_models_result_file(tmp_path: Path) -> None:
    """BFCL saves a function-calling model's calls as ``{name: "<JSON arguments>"}``, under the names the model
    was shown; for the models BFCL marks underscore_to_dot those have ``_`` for ``.``."""
    questions = REPO / "tests" / "data" / "bfcl" / "BFCL_v4_multiple.json"
    entries = [e for e in _plain_entries(20) if "." in next(iter(e["ground_truth"][0]))]
    assert entries
    lines = []
    for entry in entries:
        ((name, params),) = entry["ground_truth"][0].items()
        args = {p: _first_choice(v) for p, v in params.items() if "" not in v}
        lines.append({"id": entry["id"], "result": [{name.replace(".", "_"): json.dumps(args)}]})
    corpus = write_lines(tmp_path / "BFCL_v4_multiple_result.json", lines)
    base = ("score", corpus, "--bfcl-answers", ANSWERS, "--bfcl-questions", questions, "--canonicalizer", "bfcl")
    as_saved = run_ek(*base, "--json", tmp_path / "a.json")
    renamed = run_ek(*base, "--underscore-to-dot", "--json", tmp_path / "b.json")
    assert (as_saved.returncode, renamed.returncode) == (0, 0), as_saved.stderr + renamed.stderr
    assert "--underscore-to-dot" in as_saved.stderr and "--underscore-to-dot" not in renamed.stderr
    assert f"{len(entries)} predicted tool name(s) are BFCL function names with '.' written '_'" in as_saved.stderr
    in_workers = run_ek(*base, "--underscore-to-dot", "--jobs", "2", "--json", tmp_path / "c.json")
    assert in_workers.returncode == 0, in_workers.stderr
    a, b, c = (json.loads((tmp_path / f"{x}.json").read_text()) for x in "abc")
    assert a["accuracy"]["exact"] == 0
    assert b["accuracy"]["exact"] == b["corpus"]["episodes_scored"] == len(entries)
    assert b["options"]["underscore_to_dot"] is True and a["options"]["underscore_to_dot"] is False
    for report in (b, c):  # the workers read the questions and answers under the same names
        report["corpus"].pop("seconds", None)
    assert c == b


def test_underscore_to_dot_without_bfcl_files_is_a_usage_error(tmp_path: Path) -> None:
    corpus = write_lines(tmp_path / "c.jsonl", [{"id": "1", "pred": "f()", "gold": []}])
    done = run_ek("score", corpus, "--underscore-to-dot")
    assert done.returncode == 2 and "--underscore-to-dot renames BFCL's functions" in done.stderr


#: Two entries of BFCL v4's agentic categories, as bfcl-eval 2026.3.23 ships them
#: (bfcl_eval/data/possible_answer/BFCL_v4_memory.json and BFCL_v4_web_search.json, ``source`` cut short):
#: their ground truth is the final answer's accepted texts, not calls.
AGENTIC_ANSWERS = [
    {"id": "memory_1-customer-1", "ground_truth": ["35", "thirty five"], "source": "I'm 35 years old, ..."},
    {"id": "web_search_1", "ground_truth": ["7", "seven"], "source": []},
]


def test_answers_of_the_agentic_categories_are_error_lines_saying_why_and_the_rest_is_scored(tmp_path: Path) -> None:
    """A possible_answer file that holds web_search or memory entries (all categories' files put together) was
    refused whole ("ground_truth[0] must be {func_name: ...}"): the result lines of those entries are error lines
    that say the ground truth is answer text (the file itself is as BFCL writes it: no gold file error), and every
    other line is scored."""
    (good,) = _plain_entries(1)
    answers = write_lines(tmp_path / "answers.json", [AGENTIC_ANSWERS[0], good, AGENTIC_ANSWERS[1]])
    ((name, params),) = good["ground_truth"][0].items()
    args = {p: _first_choice(v) for p, v in params.items() if "" not in v}
    corpus = write_lines(tmp_path / "result.json", [
        {"id": good["id"], "result": _call(name, args)},
        {"id": "memory_1-customer-1", "result": "You are 35."},
        {"id": "web_search_1", "result": [[["search_engine_query(keywords='Super Bowl 2024')"]], "7"]},
    ])
    out = tmp_path / "r.json"
    proc = run_ek("score", corpus, "--bfcl-answers", answers, "--canonicalizer", "bfcl", "--json", out)
    assert proc.returncode == 1, proc.stderr
    report = json.loads(out.read_text())
    assert report["corpus"]["episodes_scored"] == 1 and report["overall"]["f1"] == 1.0
    errors = {e["id"]: e["reason"] for e in report["errors"]}
    assert set(errors) == {"memory_1-customer-1", "web_search_1"}
    for entry_id, reason in errors.items():
        assert f"the gold file's entry for id {entry_id!r} could not be read" in reason, reason
        assert "agentic categories (web_search, memory)" in reason and "final answer's text" in reason, reason
    assert "['35', 'thirty five']" in errors["memory_1-customer-1"]
    assert "not in the gold file" not in proc.stdout and report["gold_file_errors"] == []


def test_a_gold_file_entry_that_could_not_be_read_is_named_by_its_lines(tmp_path: Path) -> None:
    """A --gold line whose calls are unreadable is a gold file error; each result line of its id says why,
    rather than that the id is missing. A later line giving the id's gold still counts."""
    gold = write_lines(tmp_path / "gold.jsonl", [
        {"id": "a", "gold": [{"name": "f", "arguments": 3}]},
        {"id": "b", "gold": "nope"},
        {"id": "b", "gold": [{"name": "f", "arguments": {}}]},
    ])
    corpus = write_lines(tmp_path / "out.jsonl", [{"id": "a", "pred": []}, {"id": "b", "pred": []}])
    out = tmp_path / "r.json"
    run_ek("score", corpus, "--gold", gold, "--json", out)
    report = json.loads(out.read_text())
    (error,) = report["errors"]
    assert error["id"] == "a" and "the gold file's entry for id 'a' could not be read: line 1: " in error["reason"]
    assert report["corpus"]["episodes_scored"] == 1


def test_load_category_refuses_an_answer_text_category_saying_why(tmp_path: Path) -> None:
    from ek.bfcl import BfclDataError, load_category

    (tmp_path / "possible_answer").mkdir()
    write_lines(tmp_path / "BFCL_v4_memory.json", [{"id": "memory_1-customer-1", "question": [[]], "function": []}])
    write_lines(tmp_path / "possible_answer" / "BFCL_v4_memory.json", [AGENTIC_ANSWERS[0]])
    try:
        load_category(tmp_path / "BFCL_v4_memory.json")
    except BfclDataError as exc:
        assert "memory_1-customer-1 is of BFCL's agentic categories" in str(exc)
    else:
        raise AssertionError("no error")


PARALLEL_QUESTIONS = REPO / "tests" / "data" / "bfcl" / "BFCL_v4_parallel.json"
PARALLEL_ANSWERS = REPO / "tests" / "data" / "bfcl" / "possible_answer" / "BFCL_v4_parallel.json"
_CONFIG = "ret_fmt={}&tool_call_tag={}&func_doc_fmt=json&prompt_fmt=plaintext&style=classic"


def test_format_sensitivity_entries_are_scored_per_configuration_against_their_original_question(
        tmp_path: Path) -> None:
    """BFCL v4's format-sensitivity result file: ids ``format_sensitivity_N:CONFIG:ORIGINAL``, each output in the
    return format its prompt asked for. Each line is scored against its original question's functions and gold,
    read in that format, and reported under its configuration's category."""
    play = '{{"function": "spotify.play", "parameters": {{"artist": "{}", "duration": {}}}}}'
    xml = ('<functions><function name="spotify.play"><param name="artist" type="string">Taylor Swift</param>'
           '<param name="duration" type="integer">20</param></function><function name="spotify.play">'
           '<param name="artist" type="string">Maroon 5</param><param name="duration" type="integer">{}</param>'
           "</function></functions>")
    lines = [
        ("json", False, f"```json\n[{play.format('Taylor Swift', 20)}, {play.format('Maroon 5', 15)}]\n```"),
        ("json", False, f"[{play.format('Taylor Swift', 20)}]"),  # one call missing
        ("concise_xml", True, f"<TOOLCALL>{xml.format(15)}</TOOLCALL>"),
        ("concise_xml", True, xml.format(15)),  # no <TOOLCALL>: unreadable
        ("python", False, "[spotify.play(artist='Taylor Swift', duration=20), spotify.play(artist='Maroon 5', "
                          "duration=15)]"),
    ]
    corpus = write_lines(tmp_path / "BFCL_v4_format_sensitivity_result.json", [
        {"id": f"format_sensitivity_{k}:{_CONFIG.format(fmt, tag)}:parallel_0", "result": text}
        for k, (fmt, tag, text) in enumerate(lines)])
    out = tmp_path / "r.json"
    html = tmp_path / "r.html"
    proc = run_ek("score", corpus, "--bfcl-answers", PARALLEL_ANSWERS, "--bfcl-questions", PARALLEL_QUESTIONS,
                  "--canonicalizer", "bfcl", "--json", out, "--html", html)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(out.read_text())
    assert report["corpus"]["episodes_scored"] == 5 and report["corpus"]["unparseable_outputs"] == 1
    categories = {c["category"]: (c["accuracy"]["exact"], c["accuracy"]["episodes"]) for c in report["per_category"]}
    assert categories == {"format_sensitivity:json,no-tag,json,plaintext,classic": (1, 2),
                          "format_sensitivity:concise_xml,tag,json,plaintext,classic": (1, 2),
                          "format_sensitivity:python,no-tag,json,plaintext,classic": (1, 1)}
    assert "format_sensitivity:concise_xml,tag,json,plaintext,classic" in proc.stdout  # the table shows it whole
    # BFCL's figures of the category: the spread of the configurations' accuracies (0.5, 0.5 and 1.0)
    spread = report["format_sensitivity"]
    assert (spread["configurations"], spread["episodes"], spread["max_delta"]) == (3, 5, 0.5)
    assert spread["stdev"] == statistics.stdev([0.5, 0.5, 1.0]) and spread["variance"] == statistics.variance(
        [0.5, 0.5, 1.0])
    assert spread["lowest"] == {"category": "format_sensitivity:concise_xml,tag,json,plaintext,classic",
                                "accuracy": 0.5}
    assert spread["highest"] == {"category": "format_sensitivity:python,no-tag,json,plaintext,classic",
                                 "accuracy": 1.0}
    assert "format sensitivity (BFCL v4): 3 configurations, accuracy 0.5000 to 1.0000; max delta 0.5000" in proc.stdout
    assert "Format sensitivity (BFCL v4): 3 configurations, accuracy 0.5000" in html.read_text(encoding="utf-8")


# the folder holds multi-turn answers, whose positional calls are read in the parameter order of BFCL's API source
@pytest.mark.skipif(find_source() is None, reason="bfcl-eval is not installed (the test command installs it)")
def test_bfcl_folders_read_every_category_at_once(tmp_path: Path) -> None:
    """--bfcl-questions and --bfcl-answers take BFCL's data folders: a result file of several categories is
    scored in one run, its lines finding their questions and answers in whichever file holds them."""
    data = REPO / "tests" / "data" / "bfcl"
    first = {}
    for category in ("simple_python", "parallel", "multiple"):
        entry = json.loads((data / "possible_answer" / f"BFCL_v4_{category}.json").read_text().splitlines()[0])
        first[category] = entry
    lines = []
    for entry in first.values():
        calls = []
        for call in entry["ground_truth"]:
            ((name, params),) = call.items()
            calls.append(_call(name, {p: _first_choice(v) for p, v in params.items() if "" not in v})[1:-1])
        lines.append({"id": entry["id"], "result": "[" + ", ".join(calls) + "]"})
    corpus = write_lines(tmp_path / "result.json", lines)
    out = tmp_path / "r.json"
    proc = run_ek("score", corpus, "--bfcl-answers", data / "possible_answer", "--bfcl-questions", data,
                  "--canonicalizer", "bfcl", "--json", out)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(out.read_text())
    assert report["corpus"]["episodes_scored"] == 3 and report["overall"]["f1"] == 1.0
    assert {c["category"] for c in report["per_category"]} == set(first)
    assert report["format_sensitivity"] is None


def test_a_bfcl_folder_error_names_the_file_and_line(tmp_path: Path) -> None:
    folder = tmp_path / "possible_answer"
    folder.mkdir()
    (folder / "BFCL_v4_a.json").write_text('{"id": "a_0", "ground_truth": []}\n', encoding="utf-8")
    (folder / "BFCL_v4_b.json").write_text('{"id": "b_0", "ground_truth": []}\n{"id": 5, "ground_truth": []}\n',
                                           encoding="utf-8")
    (folder / "BFCL_v4_format_sensitivity.json").write_text('{\n  "simple_python": ["simple_python_0"]\n}\n')
    (folder / "notes.md").write_text("not data")
    corpus = write_lines(tmp_path / "result.json", [{"id": "a_0", "result": "[]"}])
    proc = run_ek("score", corpus, "--bfcl-answers", folder)
    assert proc.returncode == 2 and f"{folder / 'BFCL_v4_b.json'}:2: 'id' must be a str" in proc.stderr, proc.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = run_ek("score", corpus, "--bfcl-answers", empty)
    assert proc.returncode == 2 and "a folder without BFCL data files" in proc.stderr, proc.stderr
    proc = run_ek("score", corpus, "--gold", empty)
    assert proc.returncode == 2 and "is a folder, not a file" in proc.stderr, proc.stderr


def test_no_validate_scores_values_as_bfcls_checker_does(tmp_path: Path) -> None:
    """BFCL's checker compares values with its possible answers and never checks a question's enums: 'COMFORT'
    for an enum of 'comfort' is right there (its strings are compared lowercased). ek validates by default, so
    the value is invalid_value; --no-validate compares values only and agrees with BFCL."""
    from ek.bfcl import check

    function = {"name": "book_seat", "description": "Book a seat.", "parameters": {"type": "dict", "properties": {
        "seat_class": {"type": "string", "enum": ["comfort", "economy"], "description": "The class."},
        "row": {"type": "integer", "description": "The row."}}, "required": ["seat_class", "row"]}}
    question = {"id": "simple_python_9000", "question": [[{"role": "user", "content": "A comfort seat, row 3."}]],
                "function": [function]}
    answer = {"id": "simple_python_9000", "ground_truth": [{"book_seat": {"seat_class": ["comfort"], "row": [3]}}]}
    output = "[book_seat(seat_class='COMFORT', row=3)]"
    decoded = [{"book_seat": {"seat_class": "COMFORT", "row": 3}}]
    assert check([function], decoded, answer["ground_truth"], "simple").valid
    questions = write_lines(tmp_path / "q.json", [question])
    answers = write_lines(tmp_path / "a.json", [answer])
    corpus = write_lines(tmp_path / "result.json", [{"id": "simple_python_9000", "result": output}])
    common = ["score", corpus, "--bfcl-questions", questions, "--bfcl-answers", answers, "--canonicalizer", "bfcl"]
    checked, values = tmp_path / "checked.json", tmp_path / "values.json"
    assert run_ek(*common, "--json", checked).returncode == 0
    assert run_ek(*common, "--no-validate", "--json", values).returncode == 0
    checked_report, values_report = json.loads(checked.read_text()), json.loads(values.read_text())
    assert checked_report["accuracy"]["exact"] == 0 and checked_report["options"]["validate"] is True
    assert [a["status"] for a in checked_report["per_argument"]] == ["invalid_value"]
    assert values_report["accuracy"]["exact"] == 1 and values_report["options"]["validate"] is False


def test_a_multi_turn_step_bfcl_reads_as_calls_but_ek_cannot_is_the_turns_parse_error(tmp_path: Path) -> None:
    """``[sort('a.pdf')]``: BFCL's decoder reads it as calls (it drops the positional argument and calls
    ``sort()``, so the turn fails there); ek's reader refuses the positional argument. The step was passed over
    as a text reply, so turn 2 read 'the model made no call at all' and turn 3, whose gold is no call, was an
    abstention and exact. Now each is its step's parse error (unparseable_output), with the reader's reason. A
    step BFCL's decoder reads no call in ('Done.', a garbled '[f(') is still the model's reply to the user."""
    answers = write_lines(tmp_path / "answers.json", [{"id": "multi_turn_base_0", "ground_truth": [
        ["cd(folder='tmp')"], ["sort(file_name='a.pdf')"], [], ["ls(a=True)"]]}])
    result = write_lines(tmp_path / "result.json", [{"id": "multi_turn_base_0", "result": [
        ["[cd(folder='tmp')]", "Done."], ["[sort('a.pdf')]", "Done."], ["[sort('b.pdf')]"], ["[ls(a=True)]", "[f("]]}])
    out = tmp_path / "r.json"
    done = run_ek("score", result, "--bfcl-answers", answers, "--json", out, "--episodes-out", tmp_path / "e.jsonl")
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text())
    assert [(t["turn"], t["exact"]) for t in report["per_turn"]] == [(0, 1), (1, 0), (2, 0), (3, 1)]
    assert report["abstention"]["unparseable"] == 1 and report["abstention"]["abstained"] == 0
    reasons = {r["reason"] for r in report["per_reason"]}
    assert "unparseable_output" in reasons and "missing_call" not in reasons
    row = json.loads((tmp_path / "e.jsonl").read_text().splitlines()[0])
    assert "positional argument" in row["parse_error"] and row["first_failing_turn"] == 1
