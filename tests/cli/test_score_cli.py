"""``ek score`` run as a real subprocess on real files: accounting line by line, exit codes, reports."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from ekcli import (
    EXAMPLE,
    SCHEMAS,
    gold,
    gold_file_for,
    run_ek,
    synthetic_corpus,
    write_lines,
)

from ek.agents.toolcalls import ToolCallMetric
from ek.goldjson import gold_from_json

GOOD_GOLD = [gold("get_weather", location="Paris")]


def _corrupted(path: Path) -> Path:
    """One line of every kind of breakage, at known line numbers; the last line is cut short (no newline)."""
    write_lines(path, [
        {"id": "ok-1", "pred": "get_weather(location='Paris')", "gold": GOOD_GOLD},         # 1 scored
        "",                                                                                     # 2 blank
        '{"id": "bad-json", "pred": "x()", "gold": []',                                        # 3 invalid JSON
        {"id": "no-gold", "pred": "get_weather(location='Paris')"},                             # 4 missing gold
        {"id": "no-pred", "gold": GOOD_GOLD},                                                   # 5 missing pred
        {"id": ["list"], "pred": "f()", "gold": []},                                            # 6 id wrong type
        {"id": "gold-not-list", "pred": "f()", "gold": {"name": "f"}},                          # 7 gold wrong type
        {"id": "pred-number", "pred": 42, "gold": []},                                          # 8 pred wrong type
        {"id": "v9", "pred": "get_weather(location='Paris')", "gold": GOOD_GOLD, "grammar": "travel@9"},  # 9
        {"id": "bad-ref", "pred": "f()", "gold": [], "grammar": "travel-2"},                    # 10 bad grammar
        "   \t ",                                                                               # 11 blank
        "[1, 2, 3]",                                                                            # 12 not an object
        {"id": "unparseable", "pred": "get_weather(location=", "gold": GOOD_GOLD},              # 13 scored, FN
        {"output": "[get_weather(location='Rome')]", "gold": GOOD_GOLD},                        # 14 scored, no id
    ])
    with open(path, "a", encoding="utf-8") as out:
        out.write('{"id": "truncated", "pred": "get_weather(loc')                                 # 15 cut short
    return path


EXPECTED_ERRORS = {
    3: ("bad-json", "invalid JSON"),
    4: ("no-gold", "no 'gold' calls"),
    5: ("no-pred", "no predicted output"),
    6: (None, "'id' must be a string or an integer"),
    7: ("gold-not-list", "expected a list of calls"),
    8: ("pred-number", "must be text or a JSON object/array"),
    9: ("v9", "unknown grammar"),
    10: ("bad-ref", "'grammar' must be NAME@VERSION"),
    12: (None, "expected a JSON object per line"),
    15: ("truncated", "line cut short"),
}


def test_score_corrupted_corpus_accounts_for_every_line(tmp_path: Path) -> None:
    corpus = _corrupted(tmp_path / "broken.jsonl")
    out = tmp_path / "r.json"
    proc = run_ek("score", corpus, "--json", out, "--search-path", SCHEMAS)
    assert proc.returncode == 1, proc.stderr
    report = json.loads(out.read_text())
    c = report["corpus"]
    assert (c["lines_read"], c["blank_lines"], c["episodes_scored"], c["error_lines"]) == (15, 2, 3, 10)
    assert c["lines_read"] == c["episodes_scored"] + c["error_lines"] + c["blank_lines"] and c["accounted"]
    errors = {e["line"]: e for e in report["errors"]}
    assert set(errors) == set(EXPECTED_ERRORS)
    for line, (episode_id, words) in EXPECTED_ERRORS.items():
        if episode_id is not None and line not in (3, 15):  # ids are unknown when the JSON itself is broken
            assert errors[line]["id"] == episode_id, errors[line]
        assert words in errors[line]["reason"], (line, errors[line]["reason"])
    for line in EXPECTED_ERRORS:  # every error line is on the terminal too, with its line number
        assert f"line {line}" in proc.stdout
    assert "10 line(s) could not be scored" in proc.stderr
    assert c["unparseable_outputs"] == 1
    # the three scored lines: one exact, one unparseable (gold missed), one wrong city
    assert (report["overall"]["tp"], report["overall"]["fp"], report["overall"]["fn"]) == (1.0, 1.0, 2.0)


def test_score_allow_errors_exits_zero_but_still_reports(tmp_path: Path) -> None:
    corpus = _corrupted(tmp_path / "broken.jsonl")
    proc = run_ek("score", corpus, "--allow-errors")
    assert proc.returncode == 0, proc.stderr
    assert "Error lines (not scored): 10" in proc.stdout


def test_score_usage_errors_exit_2(tmp_path: Path) -> None:
    corpus = write_lines(tmp_path / "c.jsonl", [{"id": 1, "pred": "f()", "gold": [gold("f")]}])
    missing = run_ek("score", tmp_path / "nope.jsonl")
    assert missing.returncode == 2 and "no such file" in missing.stderr
    bad_level = run_ek("score", corpus, "--level", "tool")
    assert bad_level.returncode == 2 and "--level" in bad_level.stderr
    bad_grammar = run_ek("score", corpus, "--grammar", "travel@9", "--search-path", SCHEMAS)
    assert bad_grammar.returncode == 2 and "travel@9" in bad_grammar.stderr
    bad_jobs = run_ek("score", corpus, "--jobs", "0")
    assert bad_jobs.returncode == 2
    not_a_count = run_ek("score", corpus, "--jobs", "all")
    assert not_a_count.returncode == 2 and "--jobs: expected a whole number 1 or more, or 'auto', got 'all'" \
        in not_a_count.stderr


def test_score_totals_equal_the_library_per_line(tmp_path: Path) -> None:
    corpus = synthetic_corpus(tmp_path / "c.jsonl", 120, seed=5)
    out = tmp_path / "r.json"
    assert run_ek("score", corpus, "--json", out, "--level", "arg").returncode == 0
    report = json.loads(out.read_text())
    metric = ToolCallMetric("arg")
    total = None
    for raw in corpus.read_text().splitlines():
        line = json.loads(raw)
        s = metric(line["pred"], gold_from_json(line["gold"]))
        total = s if total is None else total + s
    assert total is not None
    assert report["overall"]["exact"] == {k: str(v) for k, v in zip(("tp", "fp", "fn"), total.exact_counts)}
    assert report["overall"]["f1"] == total.f1
    assert {t["tool"]: t["f1"] for t in report["per_tool"]} == {k: v.f1 for k, v in total.by_tool().items()}


def test_score_jobs_2_and_auto_give_identical_reports(tmp_path: Path) -> None:
    corpus = synthetic_corpus(tmp_path / "c.jsonl", 2600, seed=2, corrupt_every=97)  # several chunks, some errors
    outs = []
    for jobs in ("1", "2", "auto"):
        out = tmp_path / f"r{jobs}.json"
        html = tmp_path / f"r{jobs}.html"
        proc = run_ek("score", corpus, "--jobs", jobs, "--json", out, "--html", html, "--bootstrap", "50",
                      "--seed", "3", "--allow-errors")
        assert proc.returncode == 0, proc.stderr
        outs.append((out.read_bytes(), html.read_bytes(), proc.stdout.split("JSON report:")[0]))
    assert outs[0] == outs[1] == outs[2]
    report = json.loads(outs[0][0])
    assert report["corpus"]["error_lines"] == 2600 // 97
    assert report["corpus"]["episodes_scored"] == 2600 - 2600 // 97


def test_score_bootstrap_is_reproducible_with_a_seed(tmp_path: Path) -> None:
    corpus = synthetic_corpus(tmp_path / "c.jsonl", 200, seed=9)
    cis = []
    for seed in ("7", "7", "8"):
        out = tmp_path / f"r{seed}.json"
        assert run_ek("score", corpus, "--json", out, "--bootstrap", "300", "--seed", seed).returncode == 0
        cis.append(json.loads(out.read_text())["confidence_interval"])
    assert cis[0] == cis[1]
    assert cis[0] != cis[2]
    assert cis[0]["low"] < cis[0]["estimate"] < cis[0]["high"] and cis[0]["replicates"] == 300


def test_score_line_grammar_overrides_the_default(tmp_path: Path) -> None:
    # "Boston" is fine in travel@1 (origin: str) but breaks travel@2's Airport pattern
    call = "search_flights(origin='Boston', destination='Chicago', date='2024-02-29')"
    gold_calls = [gold("search_flights", origin="Boston", destination="Chicago", date="2024-02-29")]
    corpus = write_lines(tmp_path / "c.jsonl", [
        {"id": "v1", "pred": call, "gold": gold_calls, "grammar": "travel@1"},
        {"id": "v2", "pred": call, "gold": gold_calls, "grammar": "travel@2"},
        {"id": "default", "pred": call, "gold": gold_calls},
    ])
    out = tmp_path / "r.json"
    # the gold breaks travel@2 too: scored anyway with --invalid-gold warn, and counted
    proc = run_ek("score", corpus, "--grammar", SCHEMAS / "travel-v2.ek", "--json", out, "--worst", "5",
                  "--invalid-gold", "warn")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(out.read_text())
    assert report["corpus"]["gold_warnings"] == 2 and [w["id"] for w in report["gold_warnings"]] == ["v2", "default"]
    assert report["overall"]["tp"] == 1.0  # only the travel@1 line is exact
    assert sorted(e["id"] for e in report["worst_episodes"]) == ["default", "v2"]
    assert {g["grammar"]: g["episodes"] for g in report["grammars"]} == {
        "travel@1": 1, "travel@2": 1, str(SCHEMAS / "travel-v2.ek"): 1}


def test_score_gold_file_supplies_gold_by_id(tmp_path: Path) -> None:
    n = 50
    with_gold = synthetic_corpus(tmp_path / "full.jsonl", n, seed=4)
    preds_only = synthetic_corpus(tmp_path / "preds.jsonl", n, seed=4, with_gold=False)
    gold_path = gold_file_for(tmp_path / "gold.jsonl", n)
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    assert run_ek("score", with_gold, "--json", a).returncode == 0
    assert run_ek("score", preds_only, "--gold", gold_path, "--json", b).returncode == 0
    ra, rb = json.loads(a.read_text()), json.loads(b.read_text())
    assert ra["overall"] == rb["overall"] and ra["per_tool"] == rb["per_tool"]


def test_score_bundled_example(tmp_path: Path) -> None:
    out, html = tmp_path / "report.json", tmp_path / "report.html"
    proc = run_ek("score", EXAMPLE / "corpus.jsonl", "--grammar", EXAMPLE / "travel-v2.ek", "--json", out,
                  "--html", html)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(out.read_text())
    assert report["schema_version"] == 1
    assert report["corpus"]["episodes_scored"] == report["corpus"]["lines_read"] >= 30
    assert report["corpus"]["unparseable_outputs"] == 1
    reasons = {r["reason"] for r in report["per_reason"]}
    assert {"inexact_call", "missing_call", "extra_call", "wrong_tool", "unparseable_output"} <= reasons
    assert {g["grammar"] for g in report["grammars"]} >= {"travel@1"}
    for section in ("Overall", "Per tool", "Per error type", "Worst episodes"):
        assert section in proc.stdout
    assert html.stat().st_size > 5000


def test_score_gold_file_problems_are_reported_and_fail_the_run(tmp_path: Path) -> None:
    gold_path = write_lines(tmp_path / "gold.jsonl", [
        {"id": "a", "gold": GOOD_GOLD},
        {"id": "a", "gold": GOOD_GOLD},          # duplicate id
        {"gold": GOOD_GOLD},                      # no id
        '{"id": "c", "gold": [',                  # broken
    ])
    corpus = write_lines(tmp_path / "preds.jsonl", [{"id": "a", "pred": "get_weather(location='Paris')"},
                                                    {"id": "c", "pred": "f()"}])
    out = tmp_path / "r.json"
    proc = run_ek("score", corpus, "--gold", gold_path, "--json", out)
    assert proc.returncode == 1
    report = json.loads(out.read_text())
    assert [e["line"] for e in report["gold_file_errors"]] == [2, 3, 4]
    assert "duplicate id 'a' (first on line 1)" in report["gold_file_errors"][0]["reason"]
    assert [(e["line"], e["id"]) for e in report["errors"]] == [(2, "c")]
    assert report["overall"]["tp"] == 1.0
    assert "Gold file errors: 3" in proc.stdout
    both = run_ek("score", corpus, "--gold", gold_path, "--bfcl-answers", gold_path)
    assert both.returncode == 2 and "give one of them" in both.stderr


def test_score_grammar_as_schema_module_or_name_at_version_agree(tmp_path: Path) -> None:
    gen = tmp_path / "gen"
    assert run_ek("gen", SCHEMAS / "travel-v2.ek", "-o", gen).returncode == 0
    corpus = EXAMPLE / "corpus.jsonl"
    forms = {
        "schema": ["--grammar", SCHEMAS / "travel-v2.ek"],
        "module": ["--grammar", gen / "travel_v2.py", "--search-path", SCHEMAS],
        "name@version": ["--grammar", "travel@2", "--search-path", gen, "--search-path", SCHEMAS],
    }
    reports = {}
    for name, args in forms.items():
        out = tmp_path / f"{name}.json"
        proc = run_ek("score", corpus, *args, "--json", out)
        assert proc.returncode == 0, (name, proc.stderr)
        reports[name] = json.loads(out.read_text())
    overall = {name: (r["overall"], r["per_tool"], r["per_reason"]) for name, r in reports.items()}
    assert overall["schema"] == overall["module"] == overall["name@version"]
    # a grammar makes a difference: the lower-case airport breaks travel@2's pattern, weights apply
    plain = tmp_path / "plain.json"
    run_ek("score", corpus, "--json", plain)
    assert json.loads(plain.read_text())["overall"] != reports["schema"]["overall"]


def test_score_empty_corpus_is_an_error(tmp_path: Path) -> None:  # more in tests/hostile/test_nothing_scored.py
    corpus = tmp_path / "empty.jsonl"
    corpus.write_text("\n\n")
    out = tmp_path / "r.json"
    proc = run_ek("score", corpus, "--json", out, "--html", tmp_path / "r.html")
    assert proc.returncode == 1 and "nothing was scored (2 lines read: 0 error lines, 2 blank)" in proc.stderr
    assert json.loads(out.read_text())["corpus"]["blank_lines"] == 2


def test_score_lists_the_arguments_that_fail_inside_matched_calls(tmp_path: Path) -> None:
    corpus = write_lines(tmp_path / "args.jsonl", [
        {"id": "a", "pred": "get_weather(location='Rome')", "gold": GOOD_GOLD},
        {"id": "b", "pred": "get_weather(location='Oslo', unit='kelvin')", "gold": GOOD_GOLD},
        {"id": "c", "pred": "get_weather(location='Paris')", "gold": GOOD_GOLD},
    ])
    out = tmp_path / "r.json"
    proc = run_ek("score", corpus, "--json", out)
    assert proc.returncode == 0, proc.stderr
    per_argument = json.loads(out.read_text())["per_argument"]
    assert per_argument == [
        {"tool": "get_weather", "arg": "location", "status": "wrong_value", "count": 2},
        {"tool": "get_weather", "arg": "unit", "status": "hallucinated_arg", "count": 1},
    ]
    assert "Argument failures inside matched calls" in proc.stdout


def test_a_local_run_catches_no_ray_error_and_does_not_load_the_ray_engine(tmp_path: Path) -> None:
    import subprocess
    import sys

    from ek.cli.score import ray_errors
    from ek.corpus.distributed import RayEngineError, RayStallError

    assert ray_errors("local") == ((), ())
    assert ray_errors("ray") == ((RayStallError,), (RayEngineError,))
    code = ("import sys; from ek.cli import main; "
            f"code = main(['score', {str(EXAMPLE / 'corpus.jsonl')!r}, '--grammar', {str(EXAMPLE / 'travel-v2.ek')!r}, "
            f"'--json', {str(tmp_path / 'r.json')!r}]); "
            "print(code, 'ek.corpus.distributed' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert done.stdout.splitlines()[-1] == "0 False", done.stderr
    assert json.loads((tmp_path / "r.json").read_text())["corpus"]["episodes_scored"] == 30


@pytest.mark.parametrize(("bad_gold", "reason"), [
    ([{"name": "", "arguments": {}}], "gold call names the tool it expects; got an empty name ''"),
    # read as get_weather() with no arguments, a bare call would score exact and the meant call wrong
    ([{"name": "get_weather", "parameters": {"location": "Paris"}}],
     """gold[0] 'get_weather': no "arguments" key, but 'parameters' given"""),
], ids=["empty tool name", "arguments under another key"])
def test_a_gold_call_that_cannot_be_scored_as_meant_is_an_error_line(tmp_path: Path, bad_gold: Any,
                                                                    reason: str) -> None:
    corpus = write_lines(tmp_path / "c.jsonl", [
        {"id": "ok", "pred": "get_weather(location='Paris')", "gold": GOOD_GOLD},
        {"id": "bad", "pred": "get_weather()", "gold": bad_gold},
    ])
    out = tmp_path / "r.json"
    proc = run_ek("score", corpus, "--json", out)
    assert proc.returncode == 1, proc.stderr
    report = json.loads(out.read_text())
    assert (report["corpus"]["episodes_scored"], report["corpus"]["error_lines"]) == (1, 1)
    (error,) = report["errors"]
    assert error["line"] == 2 and error["id"] == "bad" and reason in error["reason"]


def test_no_validate_compares_values_only_and_checks_no_gold(tmp_path: Path) -> None:
    """travel@2's Airport is /[A-Z]{3}/: 'sfo' breaks it. Validated (the default), a predicted 'sfo' is an
    invalid value and gold 'sfo' an error line; with --no-validate both are values, folded to one case."""
    flight = {"name": "search_flights", "arguments": {"origin": "SFO", "destination": "JFK", "date": "2025-03-14"}}
    bad_gold = {"name": "search_flights", "arguments": {"origin": "sfo", "destination": "JFK", "date": "2025-03-14"}}
    corpus = write_lines(tmp_path / "c.jsonl", [
        {"id": "p", "pred": "search_flights(origin='sfo', destination='JFK', date='2025-03-14')", "gold": [flight]},
        {"id": "g", "pred": "search_flights(origin='SFO', destination='JFK', date='2025-03-14')", "gold": [bad_gold]},
    ])
    grammar = ["--grammar", EXAMPLE / "travel-v2.ek"]
    validated = run_ek("score", corpus, *grammar, "--json", tmp_path / "v.json")
    report = json.loads((tmp_path / "v.json").read_text())
    assert validated.returncode == 1 and [e["id"] for e in report["errors"]] == ["g"]
    assert report["accuracy"]["exact"] == 0 and report["per_argument"][0]["status"] == "invalid_value"
    values = run_ek("score", corpus, *grammar, "--no-validate", "--json", tmp_path / "n.json")
    report = json.loads((tmp_path / "n.json").read_text())
    assert values.returncode == 0 and report["errors"] == [] and report["accuracy"]["exact"] == 2
