"""Promise: a run that scored nothing says so and fails; it never reports the F1 1.0 of "nothing to count"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ekcli import gold, run_ek, write_lines

pytestmark = pytest.mark.slow

CORPORA = {
    "empty": [],
    "blank": ["", "   "],
    "all-errors": ['{"id": "a", "pred": "f()"', {"id": "b", "pred": "f()"}, "[]"],
}


@pytest.mark.parametrize("allow", [[], ["--allow-errors"]], ids=["strict", "allow-errors"])
@pytest.mark.parametrize("name", list(CORPORA))
def test_a_run_that_scored_nothing_fails_and_reports_no_figures(tmp_path: Path, name: str, allow: list[str]) -> None:
    corpus = write_lines(tmp_path / "corpus.jsonl", CORPORA[name])
    out, html = tmp_path / "r.json", tmp_path / "r.html"
    proc = run_ek("score", corpus, "--json", out, "--html", html, "--bootstrap", "100", *allow)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == 1, (proc.returncode, proc.stderr)
    assert "ek score: error: nothing was scored" in proc.stderr
    assert "Nothing was scored" in proc.stdout and "1.0000" not in proc.stdout, proc.stdout
    report = json.loads(out.read_text(encoding="utf-8"))
    o = report["overall"]
    assert (o["precision"], o["recall"], o["f1"]) == (None, None, None)
    assert report["corpus"]["episodes_scored"] == 0 and report["confidence_interval"] is None
    page = html.read_text(encoding="utf-8")
    assert 'id="nothing-scored"' in page and "1.0000" not in page


def test_one_scored_episode_is_a_result(tmp_path: Path) -> None:
    """The other side of the line: one episode with nothing expected and nothing predicted is a real 1.0."""
    corpus = write_lines(tmp_path / "corpus.jsonl", [{"id": "a", "pred": "[]", "gold": []}])
    out = tmp_path / "r.json"
    proc = run_ek("score", corpus, "--json", out)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(out.read_text(encoding="utf-8"))["overall"]["f1"] == 1.0


def test_compare_says_which_side_scored_nothing(tmp_path: Path) -> None:
    a = write_lines(tmp_path / "a.jsonl", [{"id": "a", "pred": "f()", "gold": [gold("f")]}, {"id": "b", "pred": "f()"}])
    b = write_lines(tmp_path / "b.jsonl", [{"id": "a", "pred": "f()"}, {"id": "b", "pred": "f()"}])
    proc = run_ek("compare", a, b, "--allow-errors")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert f"B ({b}): nothing was scored" in proc.stderr, proc.stderr
