"""Accounting laws of the corpus runner, in-process on real files: nothing lost, chunking and jobs invisible."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest
from ekcli import run_ek
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ek.corpus import runner
from ek.corpus.reading import parse_episode
from ek.corpus.runner import RunOptions, run

WEATHER = "get_weather"
GOOD = [
    {"id": "a", "pred": "get_weather(location='Paris')",
     "gold": [{"name": WEATHER, "arguments": {"location": "Paris"}}]},
    {"id": "b", "pred": "[get_weather(location='Rome'), f()]",
     "gold": [{"name": WEATHER, "arguments": {"location": "Oslo"}}]},
    {"pred": "get_weather(", "gold": [{"name": "get_weather", "arguments": {}}]},
    {"id": 7, "completion": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}], "gold": []},
]
BAD = ['{"id": "x", "pred": "f()"', "[]", '{"id": "y", "gold": []}', '{"id": {"no": 1}, "pred": "", "gold": []}',
       '{"id": "z", "pred": "f()", "gold": "not json"}', '{"id": "w", "pred": true, "gold": []}', "\u00ff\u00fe"]
BLANK = ["", "   ", "\t"]

line_kind = st.sampled_from(["good", "bad", "blank"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kinds=st.lists(line_kind, max_size=60), picks=st.lists(st.integers(0, 100), min_size=60, max_size=60),
       chunk=st.integers(1, 7))
def test_score_accounting_nothing_lost_and_chunking_invisible(tmp_path: Path, kinds: list[str], picks: list[int],
                                                              chunk: int) -> None:
    lines = []
    for kind, pick in zip(kinds, picks):
        pool = {"good": [json.dumps(g) for g in GOOD], "bad": BAD, "blank": BLANK}[kind]
        lines.append(pool[pick % len(pool)])
    path = tmp_path / "c.jsonl"
    path.write_text("\n".join(lines) + ("\n" if lines else ""), encoding="utf-8")
    options = RunOptions(keep_worst=3, keep_details=2)
    old = runner.CHUNK_LINES, runner.SCORE_WINDOW_LINES
    try:
        whole = run(str(path), options)
        runner.CHUNK_LINES = runner.SCORE_WINDOW_LINES = chunk
        chunked = run(str(path), options)
    finally:
        runner.CHUNK_LINES, runner.SCORE_WINDOW_LINES = old
    s = whole.summary
    assert whole.counts.read == len(lines)
    assert whole.accounted and s.episodes == kinds.count("good") and whole.counts.blank == kinds.count("blank")
    assert [e.line for e in s.errors] == [i + 1 for i, k in enumerate(kinds) if k == "bad"]
    assert list(s.lines) == [i + 1 for i, k in enumerate(kinds) if k == "good"]
    c = chunked.summary
    assert (c.total(), list(c.rows_tp), list(c.rows_fp), list(c.rows_fn), c.errors, c.worst()) == (
        s.total(), list(s.rows_tp), list(s.rows_fp), list(s.rows_fn), s.errors, s.worst())


def test_score_accounting_episode_fields() -> None:
    ep = parse_episode(json.dumps({"id": "q", "prediction": {"name": "f", "arguments": {}}, "gold": "[]",
                                   "grammar": "travel@2"}), 9)
    assert not (ep is None) and ep.label == "q" and ep.grammar == "travel@2" and ep.gold == ()
    unnamed = parse_episode('{"pred": "", "gold": []}', 4)
    assert unnamed.label == "line 4"


def test_score_reads_stdin(tmp_path: Path) -> None:
    data = "\n".join(json.dumps(g) for g in GOOD) + "\n"
    proc = run_ek("score", "-", "--json", tmp_path / "r.json", stdin=data, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads((tmp_path / "r.json").read_text())["corpus"]["episodes_scored"] == len(GOOD)


def test_a_closed_stdin_as_the_corpus_is_a_usage_error_not_a_traceback() -> None:
    """`ek score - <&-` (and `ek compare - B`) died of an AttributeError traceback, exit 1: Python's sys.stdin is
    None when the process starts with it closed. It is refused before the run, as a missing file is (exit 2)."""
    corpus = Path(__file__).resolve().parents[2] / "examples" / "travel" / "corpus.jsonl"
    for command, args in (("score", "-"), ("compare", f"- {corpus}")):
        proc = subprocess.run(["bash", "-c", f'"$1" -m ek {command} {args} <&-', "-", sys.executable],
                              capture_output=True, text=True, check=False, timeout=60, stdin=subprocess.DEVNULL)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
        assert proc.stderr == f"ek {command}: error: -: standard input is closed\n"


def test_a_closed_stdin_read_by_the_corpus_engine_is_a_source_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """The library's run("-") with no stdin: the input's error (SourceError, which the CLI reports), not an
    AttributeError."""
    from ek.corpus.sources import SourceError

    monkeypatch.setattr(sys, "stdin", None)
    with pytest.raises(SourceError, match="^-: standard input is closed$"):
        run("-", RunOptions())


def test_score_progress_bar_only_on_a_terminal(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text("\n".join(json.dumps(GOOD[i % 4]) for i in range(600)) + "\n")
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "ek", "score", str(path)], stdout=subprocess.PIPE,  # a pty: not run_ek
                            stderr=slave, text=True)
    os.close(slave)
    chunks = []
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            break
        try:
            data = os.read(master, 4096)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    stdout = proc.communicate(timeout=60)[0]
    os.close(master)
    tty_text = b"".join(chunks).decode()
    assert "lines/s" in tty_text and "600 lines" in tty_text  # the bar, on the terminal
    assert "lines/s" not in stdout and "Overall" in stdout   # the report, clean on stdout
    piped = run_ek("score", path, timeout=60)
    assert "lines/s" not in piped.stderr


def test_a_scorer_bug_costs_one_line_not_the_run() -> None:
    from ek.corpus.grammars import MetricCache

    class BrokenMetric:
        format = "auto"  # what the runner asks a metric besides these methods: the format it reads outputs in

        def gold_problems(self, gold: object) -> tuple[str, ...]:
            return ()

        def __call__(self, pred: object, gold: object) -> object:
            return 1 / 0

    class Faulty(MetricCache):  # fault injection: the metric of line 2 hits an unexpected bug
        def for_episode(self, ref, episode_id):  # type: ignore[no-untyped-def]
            return BrokenMetric() if episode_id == "b" else super().for_episode(ref, episode_id)

    options = RunOptions()
    cache = Faulty(level="call", canonicalizer="fold", optimal=False, default_grammar=None, search_path=())
    lines = [(n, json.dumps(g).encode()) for n, g in enumerate(GOOD[:3], 1)]
    summary = runner.score_lines(options, cache, lines, None)
    assert summary.episodes == 2 and [e.line for e in summary.errors] == [2]
    assert "internal error" in summary.errors[0].reason and "ZeroDivisionError" in summary.errors[0].reason


def test_error_lines_are_all_counted_but_only_the_first_ones_kept(tmp_path: Path) -> None:
    from ek.report.jsonreport import build_report
    from ek.report.table import render_report

    path = tmp_path / "c.jsonl"
    lines = [BAD[0]] * 4 + [json.dumps(GOOD[0])] + [BAD[1]] * 6 + [json.dumps(GOOD[1])]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    options = RunOptions(keep_errors=3)
    old = runner.CHUNK_LINES, runner.SCORE_WINDOW_LINES
    try:
        results = []
        for chunk in (1, 4, 512):
            runner.CHUNK_LINES = runner.SCORE_WINDOW_LINES = chunk
            results.append(run(str(path), options))
    finally:
        runner.CHUNK_LINES, runner.SCORE_WINDOW_LINES = old
    for result in results:  # a wrong 10 GB file must not keep 10 GB of error reasons
        s = result.summary
        assert result.accounted and s.error_count == 10 and [e.line for e in s.errors] == [1, 2, 3]
    report = build_report(results[0], options)
    assert report["corpus"]["error_lines"] == 10 and len(report["errors"]) == 3 and report["errors_omitted"] == 7
    assert "Error lines (not scored): 10" in render_report(report, max_errors=2)
    assert "... and 8 more (the first 3 are in --json)" in render_report(report, max_errors=2)
