"""Quality gates for CI, as a user runs them: ``ek score --fail-under`` and ``ek compare --fail-if`` exit 4."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from ekcli import EXAMPLE, gold, gold_file_for, run_ek, synthetic_corpus, write_lines

pytestmark = pytest.mark.slow

TRAVEL = [EXAMPLE / "corpus.jsonl", "--grammar", EXAMPLE / "travel-v2.ek"]  # F1 0.4697, accuracy 16/30


def test_a_gate_below_the_runs_f1_fails_with_exit_status_4_and_says_so(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    done = run_ek("score", *TRAVEL, "--fail-under", "0.5", "--json", out)
    assert done.returncode == 4, done.stderr
    assert "ek score: below --fail-under: f1 0.4697 < 0.5; exit status 4" in done.stderr
    assert "Gates (--fail-under)" in done.stdout and "FAILED" in done.stdout
    report = json.loads(out.read_text())
    assert report["gates"] == [{"metric": "f1", "threshold": 0.5, "value": report["overall"]["f1"], "passed": False,
                                "reason": None}]


def test_gates_the_run_meets_exit_0_and_a_run_without_gates_has_none(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    done = run_ek("score", *TRAVEL, "--fail-under", "0.4", "--fail-under", "accuracy=0.5333", "--json", out)
    assert done.returncode == 0, done.stderr
    assert [g["passed"] for g in json.loads(out.read_text())["gates"]] == [True, True]
    exactly = run_ek("score", *TRAVEL, "--fail-under", "accuracy=0.53334")  # 16/30 = 0.53333...
    assert exactly.returncode == 4 and "accuracy 0.5333 < 0.53334" in exactly.stderr
    plain = run_ek("score", *TRAVEL, "--json", out)
    assert plain.returncode == 0 and "gates" not in json.loads(out.read_text()) and "Gates" not in plain.stdout


def test_error_lines_come_before_the_gate_and_allow_errors_lets_the_gate_decide(tmp_path: Path) -> None:
    corpus = synthetic_corpus(tmp_path / "c.jsonl", 40, corrupt_every=10, accuracy=0.5)
    strict = run_ek("score", corpus, "--fail-under", "0.99")
    assert strict.returncode == 1 and "could not be scored" in strict.stderr
    allowed = run_ek("score", corpus, "--fail-under", "0.99", "--allow-errors")
    assert allowed.returncode == 4 and "below --fail-under: f1" in allowed.stderr
    met = run_ek("score", corpus, "--fail-under", "0.01", "--allow-errors")
    assert met.returncode == 0, met.stderr


def test_nothing_scored_is_exit_1_not_a_gate(tmp_path: Path) -> None:
    corpus = write_lines(tmp_path / "bad.jsonl", ["{not json", '{"id": 1}'])
    done = run_ek("score", corpus, "--fail-under", "0", "--allow-errors")
    assert done.returncode == 1 and "nothing was scored" in done.stderr


def _tasks(path: Path) -> Path:
    """4 tasks of 3 samples: task t0 all right, t1 two of three, t2 one, t3 none (pass^3 = 1/4, pass@3 = 3/4)."""
    lines: list[dict[str, Any]] = []
    for task, right in enumerate([3, 2, 1, 0]):
        for sample in range(3):
            city = "Paris" if sample < right else "Rome"
            lines.append({"id": f"t{task}-{sample}", "task": f"t{task}", "pred": f"get_weather(location='{city}')",
                          "gold": [gold("get_weather", location="Paris")]})
    return write_lines(path, lines)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_pass_hat_k_gates_on_repeated_samples(tmp_path: Path, jobs: str) -> None:
    corpus, out = _tasks(tmp_path / "tasks.jsonl"), tmp_path / "r.json"
    done = run_ek("score", corpus, "--jobs", jobs, "--json", out, "--fail-under", "pass^3=0.25",
                  "--fail-under", "pass@3=0.75", "--fail-under", "pass^2=0.5", "--fail-under", "pass^4=0")
    assert done.returncode == 4, done.stderr
    gates = json.loads(out.read_text())["gates"]
    assert [(g["metric"], g["passed"]) for g in gates] == [("pass^3", True), ("pass@3", True), ("pass^2", False),
                                                           ("pass^4", False)]
    assert gates[3]["value"] is None and gates[3]["reason"].startswith("not measured: pass@k and pass^k are given")
    assert "pass^2 0.3333 < 0.5, pass^4 not measured" in done.stderr


def test_a_bad_gate_is_a_usage_error(tmp_path: Path) -> None:
    done = run_ek("score", *TRAVEL, "--fail-under", "recal=0.5")
    assert done.returncode == 2
    assert "argument --fail-under: unknown metric 'recal': use f1, precision, recall, accuracy" in done.stderr


def test_compare_fails_a_regression_or_a_candidate_that_is_not_better(tmp_path: Path) -> None:
    key = gold_file_for(tmp_path / "gold.jsonl", 300)
    weak = synthetic_corpus(tmp_path / "weak.jsonl", 300, seed=11, accuracy=0.55, with_gold=False)
    strong = synthetic_corpus(tmp_path / "strong.jsonl", 300, seed=12, accuracy=0.9, with_gold=False)
    out = tmp_path / "cmp.json"

    def compare(a: Path, b: Path, condition: str) -> int:
        done = run_ek("compare", a, b, "--gold", key, "--bootstrap", "400", "--fail-if", condition, "--json", out)
        assert done.returncode in (0, 4), done.stderr
        payload = json.loads(out.read_text())
        assert payload["fail_if"] == condition and payload["gate_failed"] == (done.returncode == 4)
        if done.returncode == 4:
            assert f"ek compare: --fail-if {condition}: B is " in done.stderr
        return done.returncode

    assert compare(strong, weak, "worse") == 4  # B (weak) significantly worse than A
    assert compare(weak, strong, "worse") == 0
    assert compare(weak, strong, "not-better") == 0
    assert compare(strong, weak, "not-better") == 4
    assert compare(weak, weak, "worse") == 0 and compare(weak, weak, "not-better") == 4  # no difference at all
    plain = run_ek("compare", strong, weak, "--gold", key, "--bootstrap", "400", "--json", out)
    assert plain.returncode == 0 and "fail_if" not in json.loads(out.read_text())


def test_the_html_report_shows_the_gates_and_which_failed(tmp_path: Path) -> None:
    page = tmp_path / "r.html"
    done = run_ek("score", *TRAVEL, "--fail-under", "0.45", "--fail-under", "accuracy=0.6", "--html", page)
    assert done.returncode == 4, done.stderr
    html = page.read_text(encoding="utf-8")
    assert 'id="gates"' in html and "Quality gates (<code>--fail-under</code>): <strong>failed</strong>" in html
    assert '<tr><td>f1</td><td class="num">0.4697</td><td>&gt;= 0.45</td><td>passed</td></tr>' in html
    assert ('<tr class="gate-failed"><td>accuracy</td><td class="num">0.5333</td><td>&gt;= 0.6</td>'
            '<td>FAILED</td></tr>') in html
    plain = run_ek("score", *TRAVEL, "--html", page)
    assert plain.returncode == 0 and 'id="gates"' not in page.read_text(encoding="utf-8")


def test_a_gate_on_ray_is_checked_on_the_same_report(tmp_path: Path, ray_address: str) -> None:
    corpus, out, local = _tasks(tmp_path / "tasks.jsonl"), tmp_path / "ray.json", tmp_path / "local.json"
    gates = ["--fail-under", "pass^3=0.25", "--fail-under", "f1=0.75"]
    on_ray = run_ek("score", corpus, "--engine", "ray", "--address", ray_address, "--json", out, *gates, timeout=300)
    here = run_ek("score", corpus, "--json", local, *gates)
    assert (on_ray.returncode, here.returncode) == (4, 4), on_ray.stderr
    assert json.loads(out.read_text())["gates"] == json.loads(local.read_text())["gates"]
    assert [g["passed"] for g in json.loads(out.read_text())["gates"]] == [True, False]
