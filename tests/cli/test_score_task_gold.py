"""``ek score`` on samples of one task scored against different gold: named on stderr, in the table, the JSON and
the HTML reports, the same with ``--jobs``; gold that differs only in how it is written is the same gold; with
``--task-gold error`` the run fails (exit 1)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from ekcli import EXAMPLE, gold, run_ek, write_lines


def _line(episode_id: str, task: Any, pred: str, gold_calls: Any = None) -> dict[str, Any]:
    line: dict[str, Any] = {"id": episode_id, "task": task, "pred": pred}
    if gold_calls is not None:
        line["gold"] = gold_calls
    return line


def _score(tmp_path: Path, corpus: Path, *args: str) -> tuple[Any, dict[str, Any], str]:
    out = tmp_path / "report.json"
    done = run_ek("score", corpus, "--json", out, "--html", tmp_path / "report.html", *args)
    report = json.loads(out.read_text(encoding="utf-8"))
    return done, report, (tmp_path / "report.html").read_text(encoding="utf-8")


def test_gold_written_with_other_key_order_and_spacing_is_the_same_gold(tmp_path: Path) -> None:
    corpus = tmp_path / "c.jsonl"
    # the same gold three ways: keys of the call, of its arguments and of a nested value in another order, other
    # spacing, and ``args`` for ``arguments`` (what the reader takes alike); and a $oneOf in both
    corpus.write_text(
        '{"id": "a1", "task": "A", "pred": "f(x=1)", "gold": [{"name": "f", "arguments": {"x": 1, '
        '"y": {"p": 1, "q": [2, 3]}, "u": {"$oneOf": ["c", {"$omit": true}]}}}]}\n'
        '{"id":"a2","task":"A","pred":"f(x=1)","gold":[{"arguments":{"u":{"$oneOf":["c",{"$omit":true}]},'
        '"y":{"q":[2,3],"p":1},"x":1},"name":"f"}]}\n'
        '{"task": "A",   "id": "a3", "pred": "f(x=2)", "gold": [ { "name" : "f" , "args" : { "y" : { "q" : [ 2 , 3 ] ,'
        ' "p" : 1 } , "x" : 1 , "u" : {"$oneOf": ["c", {"$omit": true}]} } } ] }\n',
        encoding="utf-8")
    done, report, html = _score(tmp_path, corpus)
    assert done.returncode == 0, done.stderr
    assert report["repeats"]["tasks"] == 1 and report["repeats"]["samples"] == 3
    assert report["repeats"]["tasks_with_different_gold"] == 0 and report["repeats"]["different_gold"] == []
    assert "different gold" not in done.stdout + done.stderr and 'id="different-gold"' not in html


def test_a_task_whose_samples_have_different_gold_is_named_everywhere(tmp_path: Path) -> None:
    corpus = write_lines(tmp_path / "c.jsonl", [
        _line("b1", "B", "f(x=1)", [gold("f", x=1)]),
        _line("c1", 7, "f(x=1)", [gold("f", x=1)]),
        _line("b2", "B", "f(x=1)", [gold("f", x=1)]),
        _line("b3", "B", "f(x=2)", [gold("f", x=2)]),  # another value: another question
        _line("c2", 7, "f(x=1)", [gold("f", x=1), gold("g")]),  # another call
        _line("b4", "B", "f(x=3)", [gold("f", x=3)]),  # a third gold: the task is listed once
        _line("d1", None, "f(x=1)", [gold("f", x=1)]),
        _line("d2", None, "f(x=1)", [gold("f", x=2)]),  # no task: nothing to compare
    ])
    done, report, html = _score(tmp_path, corpus)
    assert done.returncode == 0, done.stderr  # a warning: every line is scored, the run succeeds
    rep = report["repeats"]
    assert report["corpus"]["episodes_scored"] == 8 and report["options"]["task_gold"] == "warn"
    assert rep["tasks_with_different_gold"] == 2
    where = [(m["task"], [w["line"] for w in m["lines"]], [w["file_line"] for w in m["lines"]])
             for m in rep["different_gold"]]
    assert where == [("B", [1, 4], [1, 4]), (7, [2, 5], [2, 5])]  # in the order the other gold comes
    assert ("ek score: warning: 2 task(s) have samples scored against different gold, so pass@k, pass^k and a "
            "bootstrap over tasks mix questions: task 'B': line 1 and line 4 have different gold; task 7: line 2 "
            "and line 5 have different gold.") in done.stderr
    assert "  warning: 2 task(s) have samples scored against different gold" in done.stdout
    assert "    task 'B': line 1 and line 4 have different gold" in done.stdout
    assert 'id="different-gold"' in html and "<td>B</td>" in html


def test_gold_read_by_id_from_a_gold_file(tmp_path: Path) -> None:
    """Samples of a question read by its id share its gold file entry (the same gold); a task over two ids whose
    entries differ mixes questions, and over two ids whose entries are the same gold written otherwise does not."""
    gold_file = write_lines(tmp_path / "gold.jsonl", [
        {"id": "q1", "gold": [gold("f", x=1, y={"p": 1, "q": 2})]},
        {"id": "q1-again", "gold": [{"arguments": {"y": {"q": 2, "p": 1}, "x": 1}, "name": "f"}]},
        {"id": "q2", "gold": [gold("f", x=2)]},
    ])
    rows = []
    for sample in range(5):
        rows.append({"id": "q1", "task": "T1", "pred": f"f(x={sample % 2})"})
        rows.append({"id": "q1" if sample % 2 else "q1-again", "task": "T2", "pred": "f(x=1)"})
        rows.append({"id": "q2" if sample == 3 else "q1", "task": "T3", "pred": "f(x=2)"})
    corpus = write_lines(tmp_path / "c.jsonl", rows)
    done, report, _html = _score(tmp_path, corpus, "--gold", str(gold_file))
    assert done.returncode == 0, done.stderr
    assert report["repeats"]["tasks"] == 3 and report["repeats"]["tasks_with_different_gold"] == 1
    assert [(m["task"], [w["line"] for w in m["lines"]]) for m in report["repeats"]["different_gold"]] == [
        ("T3", [3, 12])]


def test_jobs_give_the_report_of_one_process(tmp_path: Path) -> None:
    """Tasks whose samples span the chunks of a ``--jobs 2`` run (512 lines first), some of other gold in a later
    chunk, some within one: the same tasks and lines as one process, byte for byte."""
    rows = []
    for k in range(2400):
        task = f"t{k % 300}"
        value = 1 if not (k % 300 in (7, 150) and k >= 1500) and not (k % 300 == 42 and k % 600 == 342) else 2
        rows.append(_line(f"e{k}", task, f"f(x={k % 3})", [gold("f", x=value, city="Oslo")]))
    corpus = write_lines(tmp_path / "c.jsonl", rows)
    one, one_report, _ = _score(tmp_path, corpus)
    jobs, jobs_report, _ = _score(tmp_path, corpus, "--jobs", "2")
    assert one.returncode == jobs.returncode == 0, one.stderr + jobs.stderr
    assert jobs_report == one_report
    assert [(m["task"], [w["line"] for w in m["lines"]]) for m in one_report["repeats"]["different_gold"]] == [
        ("t42", [43, 343]), ("t7", [8, 1508]), ("t150", [151, 1651])]
    assert jobs.stderr == one.stderr and "3 task(s) have samples scored against different gold" in one.stderr


def test_task_gold_error_fails_the_run_even_with_allow_errors(tmp_path: Path) -> None:
    corpus = write_lines(tmp_path / "c.jsonl", [_line("b1", "B", "f(x=1)", [gold("f", x=1)]),
                                                _line("b2", "B", "f(x=1)", [gold("f", x=2)])])
    done, report, _html = _score(tmp_path, corpus, "--task-gold", "error", "--allow-errors")
    assert done.returncode == 1
    assert report["corpus"]["episodes_scored"] == 2 and report["options"]["task_gold"] == "error"
    assert "ek score: error: 1 task(s) have samples scored against different gold" in done.stderr
    assert "exit status 1 (--task-gold error)" in done.stderr
    same = write_lines(tmp_path / "same.jsonl", [_line("b1", "B", "f(x=1)", [gold("f", x=1)]),
                                                 _line("b2", "B", "f(x=2)", [gold("f", x=1)])])
    assert run_ek("score", same, "--task-gold", "error").returncode == 0


def test_task_gold_ignore_compares_nothing_and_says_so(tmp_path: Path) -> None:
    corpus = write_lines(tmp_path / "c.jsonl", [_line("b1", "B", "f(x=1)", [gold("f", x=1)]),
                                                _line("b2", "B", "f(x=1)", [gold("f", x=2)])])
    done, report, html = _score(tmp_path, corpus, "--task-gold", "ignore")
    assert done.returncode == 0 and "different gold" not in done.stderr + done.stdout + html
    assert report["options"]["task_gold"] == "ignore"
    assert report["repeats"]["tasks_with_different_gold"] is None and report["repeats"]["different_gold"] == []
    assert report["repeats"]["tasks"] == 1 and report["corpus"]["episodes_scored"] == 2


def _travel(tmp_path: Path) -> Path:
    """travel@1 and travel@2 side by side; the second is the run's --grammar (travel@1 resolves beside it)."""
    for version in (1, 2):
        shutil.copy(EXAMPLE / f"travel-v{version}.ek", tmp_path / f"travel-v{version}.ek")
    return tmp_path / "travel-v2.ek"


def _weather_line(episode_id: str, task: Any, city: str, grammar: str | None = None) -> dict[str, Any]:
    line = _line(episode_id, task, f'get_weather(location="{city}")', [gold("get_weather", location="Paris")])
    if city != "Paris":
        line["gold"] = [gold("get_weather", location=city)]
    if grammar is not None:
        line["grammar"] = grammar
    return line


def test_a_task_whose_samples_have_different_grammars_is_named_apart_from_other_gold(tmp_path: Path) -> None:
    """`ek score` compared a task's gold only: samples of one task scored with travel@1 and with travel@2, the same
    gold, passed without a word, while `ek compare` refuses to pair such a task. Now such a task is found as a task
    of other gold is, and named in its own words, with the two grammars; under the same option."""
    schema = _travel(tmp_path)
    corpus = write_lines(tmp_path / "c.jsonl", [
        _weather_line("w1", "W", "Paris"),                    # travel@2: the default
        _weather_line("w2", "W", "Paris", "travel@2"),        # named: the same grammar
        _weather_line("w3", "W", "Paris", "travel@1"),        # the same gold, another grammar
        _weather_line("x1", "X", "Paris", "travel@1"),
        _weather_line("x2", "X", "Rome"),                     # another grammar and other gold: both found
        _weather_line("s1", "S", "Oslo", "travel@1"),
        _weather_line("s2", "S", "Oslo", "travel@1"),         # one grammar, one gold
    ])
    done, report, html = _score(tmp_path, corpus, "--grammar", schema)
    assert done.returncode == 0, done.stderr
    rep = report["repeats"]
    assert rep["tasks_with_different_gold"] == 1 and [m["task"] for m in rep["different_gold"]] == ["X"]
    assert rep["tasks_with_different_grammar"] == 2
    found = [(m["task"], [w["line"] for w in m["lines"]], [g.split(" ")[0] for g in m["grammars"]])
             for m in rep["different_grammar"]]
    assert found == [("W", [1, 3], ["travel@2", "travel@1"]), ("X", [4, 5], ["travel@1", "travel@2"])]
    assert all(" (sha256 " in g for m in rep["different_grammar"] for g in m["grammars"])  # versions of one file too
    assert ("ek score: warning: 2 task(s) have samples scored with different grammars, so pass@k, pass^k and a "
            "bootstrap over tasks mix one question held to different schemas: task 'W': line 1 is scored with "
            "travel@2 (sha256 ") in done.stderr
    assert "Score each task's samples with one grammar" in done.stderr
    assert "  warning: 2 task(s) have samples scored with different grammars" in done.stdout
    assert 'id="different-grammar"' in html and "<td>W</td>" in html
    failed = run_ek("score", corpus, "--grammar", schema, "--task-gold", "error", "--allow-errors")
    assert failed.returncode == 1 and ("1 task(s) have samples scored against different gold and 2 task(s) have "
                                       "samples scored with different grammars; exit status 1 (--task-gold error)"
                                       ) in failed.stderr
    ignored, report, html = _score(tmp_path, corpus, "--grammar", schema, "--task-gold", "ignore")
    assert ignored.returncode == 0 and "different grammars" not in ignored.stderr + ignored.stdout + html
    assert report["repeats"]["tasks_with_different_grammar"] is None and report["repeats"]["different_grammar"] == []


def test_jobs_find_the_tasks_of_different_grammars_of_one_process(tmp_path: Path) -> None:
    """Tasks whose samples span the chunks of a ``--jobs 2`` run (512 lines first), some scored with another
    grammar in a later chunk, some within one: the same tasks, lines and grammars as one process, byte for byte."""
    schema = _travel(tmp_path)
    rows = []
    for k in range(2400):
        other = (k % 300 in (7, 150) and k >= 1500) or (k % 300 == 42 and k % 600 == 342)
        rows.append(_weather_line(f"e{k}", f"t{k % 300}", "Paris", "travel@1" if other else None))
    corpus = write_lines(tmp_path / "c.jsonl", rows)
    one, one_report, _ = _score(tmp_path, corpus, "--grammar", schema)
    jobs, jobs_report, _ = _score(tmp_path, corpus, "--grammar", schema, "--jobs", "2")
    assert one.returncode == jobs.returncode == 0, one.stderr + jobs.stderr
    assert jobs_report == one_report
    assert [(m["task"], [w["line"] for w in m["lines"]]) for m in one_report["repeats"]["different_grammar"]] == [
        ("t42", [43, 343]), ("t7", [8, 1508]), ("t150", [151, 1651])]
    assert one_report["repeats"]["tasks_with_different_gold"] == 0
    assert jobs.stderr == one.stderr and "3 task(s) have samples scored with different grammars" in one.stderr


def test_a_task_named_both_as_an_integer_and_as_a_string_is_warned_of_everywhere(tmp_path: Path) -> None:
    g = [gold("f", x=1)]
    corpus = write_lines(tmp_path / "c.jsonl", [
        _line("a", 1, "f(x=1)", g), _line("b", "1", "f(x=2)", g),      # task 1, written two ways
        _line("c", 7, "f(x=1)", g), _line("d", "7", "f(x=1)", g),
        _line("e", 2, "f(x=1)", g), _line("f", "02", "f(x=1)", g),     # "02" is not 2's string: not warned of
        _line("g", "x", "f(x=1)", g),
    ])
    done, report, html = _score(tmp_path, corpus, "--task-gold", "ignore")
    assert done.returncode == 0, done.stderr
    rep = report["repeats"]
    assert rep["tasks"] == 7  # still two tasks each: the warning changes no figure
    assert (rep["tasks_split_by_type"], rep["split_by_type"]) == (2, [1, 7])
    words = "2 task(s) are named both as an integer and as a string"
    assert f"ek score: warning: {words}" in done.stderr and "1 and '1', 7 and '7'" in done.stderr
    assert words in done.stdout and 'id="split-tasks-warning"' in html


def test_tasks_of_one_type_are_not_warned_of(tmp_path: Path) -> None:
    g = [gold("f", x=1)]
    corpus = write_lines(tmp_path / "c.jsonl", [_line("a", 1, "f(x=1)", g), _line("b", 1, "f(x=2)", g),
                                               _line("c", "2", "f(x=1)", g)])
    done, report, html = _score(tmp_path, corpus)
    assert (report["repeats"]["tasks_split_by_type"], report["repeats"]["split_by_type"]) == (0, [])
    assert "named both as an integer" not in done.stderr + done.stdout and "split-tasks-warning" not in html
