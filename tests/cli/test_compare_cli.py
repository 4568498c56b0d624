"""``ek compare`` as a subprocess: a real difference is found, a null one is not, ids must pair up."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ekcli import gold_file_for, run_ek, synthetic_corpus, write_lines

from ek.limits import BOOTSTRAP_MAX_REPLICATES
from ek.stats import bootstrap_f1, paired_bootstrap

N = 300


def _systems(tmp_path: Path) -> dict[str, Path]:
    return {
        "gold": gold_file_for(tmp_path / "gold.jsonl", N),
        "weak": synthetic_corpus(tmp_path / "weak.jsonl", N, seed=11, accuracy=0.55, with_gold=False),
        "strong": synthetic_corpus(tmp_path / "strong.jsonl", N, seed=12, accuracy=0.9, with_gold=False),
        "weak2": synthetic_corpus(tmp_path / "weak2.jsonl", N, seed=13, accuracy=0.55, with_gold=False),
    }


def test_compare_detects_a_real_difference(tmp_path: Path) -> None:
    s = _systems(tmp_path)
    out = tmp_path / "cmp.json"
    proc = run_ek("compare", s["weak"], s["strong"], "--gold", s["gold"], "--bootstrap", "500", "--json", out)
    assert proc.returncode == 0, proc.stderr
    assert "B is better than A: ΔF1 = +" in proc.stdout
    result = json.loads(out.read_text())
    assert result["significant"] and result["p_value"] < 0.01
    assert 0 < result["delta"]["low"] < result["delta"]["estimate"] < result["delta"]["high"]
    assert result["f1_b"] - result["f1_a"] == result["delta"]["estimate"]
    swapped = run_ek("compare", s["strong"], s["weak"], "--gold", s["gold"], "--bootstrap", "500")
    assert "A is better than B: ΔF1 = -" in swapped.stdout


def test_compare_finds_no_difference_between_equally_good_systems(tmp_path: Path) -> None:
    s = _systems(tmp_path)
    proc = run_ek("compare", s["weak"], s["weak2"], "--gold", s["gold"], "--bootstrap", "500")
    assert proc.returncode == 0, proc.stderr
    assert "no significant difference between A and B" in proc.stdout


def test_compare_same_seed_same_numbers(tmp_path: Path) -> None:
    s = _systems(tmp_path)
    outs = []
    for k in range(2):
        out = tmp_path / f"c{k}.json"
        run_ek("compare", s["weak"], s["strong"], "--gold", s["gold"], "--bootstrap", "200", "--seed", "5",
               "--json", out)
        outs.append(out.read_text())
    assert outs[0] == outs[1]


def test_compare_lists_mismatched_ids(tmp_path: Path) -> None:
    s = _systems(tmp_path)
    lines = s["strong"].read_text().splitlines()
    short = tmp_path / "short.jsonl"
    short.write_text("\n".join(lines[:-3] + [lines[0]]) + "\n")  # 3 ids missing, one duplicated
    out = tmp_path / "cmp.json"
    proc = run_ek("compare", s["weak"], short, "--gold", s["gold"], "--json", out)
    assert proc.returncode == 1
    assert "only in A (3): 'ep-297', 'ep-298', 'ep-299'" in proc.stderr
    written = json.loads(out.read_text())  # CI gets the mismatches even without a verdict
    assert written["verdict"] is None and written["only_in_a"] == ["ep-297", "ep-298", "ep-299"]
    assert written["duplicated"] == ["ep-0"]
    assert "duplicated (1): 'ep-0'" in proc.stderr
    assert "ΔF1" not in proc.stdout
    tolerant = run_ek("compare", s["weak"], short, "--gold", s["gold"], "--allow-errors", "--bootstrap", "100")
    assert tolerant.returncode == 0 and "296 paired episodes" in tolerant.stdout


def test_compare_pairs_by_id_not_by_line_order(tmp_path: Path) -> None:
    s = _systems(tmp_path)
    lines = s["strong"].read_text().splitlines()
    shuffled = tmp_path / "shuffled.jsonl"
    shuffled.write_text("\n".join(reversed(lines)) + "\n")
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    run_ek("compare", s["weak"], s["strong"], "--gold", s["gold"], "--bootstrap", "200", "--json", a)
    run_ek("compare", s["weak"], shuffled, "--gold", s["gold"], "--bootstrap", "200", "--json", b)
    ra, rb = json.loads(a.read_text()), json.loads(b.read_text())
    assert ra["delta"] == rb["delta"] and ra["p_value"] == rb["p_value"]


def test_compare_paired_bootstrap_null_is_exactly_zero() -> None:
    rows = ([1.0, 0.0, 2.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0])
    result = paired_bootstrap(rows, rows, replicates=50, seed=1)
    assert result.delta.low == result.delta.high == 0.0 and result.p_value == 1.0
    assert not result.significant()


def test_compare_refuses_when_nothing_is_in_common(tmp_path: Path) -> None:
    s = _systems(tmp_path)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    proc = run_ek("compare", empty, empty, "--gold", s["gold"])
    assert proc.returncode == 1 and "no episode in common" in proc.stderr


def test_compare_gives_no_verdict_on_a_single_paired_episode(tmp_path: Path) -> None:
    gold = tmp_path / "gold.jsonl"
    gold.write_text(json.dumps({"id": "e1", "gold": [{"name": "f", "arguments": {"x": 1}}]}) + "\n")
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text(json.dumps({"id": "e1", "pred": "f(x=2)"}) + "\n")
    b.write_text(json.dumps({"id": "e1", "pred": "f(x=1)"}) + "\n")
    proc = run_ek("compare", a, b, "--gold", gold)
    assert proc.returncode == 1
    assert "is better" not in proc.stdout
    assert "a paired bootstrap needs at least 2 paired episodes, got 1" in proc.stderr
    gold.write_text("".join(json.dumps({"id": f"e{i}", "gold": [{"name": "f", "arguments": {"x": 1}}]}) + "\n"
                            for i in range(3)))
    a.write_text("".join(json.dumps({"id": f"e{i}", "pred": "f(x=2)"}) + "\n" for i in range(3)))
    b.write_text("".join(json.dumps({"id": f"e{i}", "pred": "f(x=1)"}) + "\n" for i in range(3)))
    few = run_ek("compare", a, b, "--gold", gold)
    assert few.returncode == 0 and "note: only 3 paired episodes" in few.stdout


def test_compare_cannot_read_both_systems_from_stdin(tmp_path: Path) -> None:
    proc = run_ek("compare", "-", "-")
    assert proc.returncode == 2 and "only one of A and B can be '-'" in proc.stderr


def test_compare_lines_without_an_id_pair_with_nothing_and_are_listed_apart(tmp_path: Path) -> None:
    """An episode without an id is reported as such, never as a duplicated or one-sided id ``None``, and never
    paired with the other run's episode without an id."""
    call = [{"name": "f", "arguments": {"x": 1}}]
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    rows = [{"id": f"e{i}", "gold": call} for i in range(4)]
    a.write_text("".join(json.dumps({**r, "pred": "f(x=2)"}) + "\n" for r in rows)
                 + json.dumps({"gold": call, "pred": "f(x=2)"}) + "\n")
    b.write_text("".join(json.dumps({**r, "pred": "f(x=1)"}) + "\n" for r in rows)
                 + json.dumps({"gold": call, "pred": "f(x=1)"}) + "\n" * 2)
    out = tmp_path / "cmp.json"
    proc = run_ek("compare", a, b, "--json", out)
    assert proc.returncode == 1
    assert "1 episode(s) without an id" in proc.stderr and "lines without an id: 5" in proc.stderr
    assert "None" not in proc.stderr and "do not match" not in proc.stderr
    written = json.loads(out.read_text())
    assert written["only_in_a"] == written["only_in_b"] == written["duplicated"] == []
    tolerant = run_ek("compare", a, b, "--allow-errors", "--bootstrap", "100")
    assert tolerant.returncode == 0 and "4 paired episodes" in tolerant.stdout  # the two id-less lines are not


def test_compare_shows_a_long_unmatched_id_shortened(tmp_path: Path) -> None:
    call = [{"name": "f", "arguments": {"x": 1}}]
    long_id = "x" * 5000
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text("".join(json.dumps({"id": i, "gold": call, "pred": "f(x=1)"}) + "\n" for i in ("e0", "e1", long_id)))
    b.write_text("".join(json.dumps({"id": i, "gold": call, "pred": "f(x=1)"}) + "\n" for i in ("e0", "e1")))
    out = tmp_path / "cmp.json"
    proc = run_ek("compare", a, b, "--json", out)
    assert proc.returncode == 1
    assert "only in A (1): 'xxxx" in proc.stderr and "... (5,002 characters)" in proc.stderr
    assert len(proc.stderr) < 1000
    assert json.loads(out.read_text())["only_in_a"] == [long_id]  # the report keeps it whole


def test_bootstrap_replicates_are_bounded(tmp_path: Path) -> None:
    """A mistyped replicate count is a usage error, not hours of resampling and gigabytes of deltas."""
    s = _systems(tmp_path)
    too_many = str(BOOTSTRAP_MAX_REPLICATES + 1)
    proc = run_ek("compare", s["weak"], s["strong"], "--gold", s["gold"], "--bootstrap", too_many)
    assert proc.returncode == 2 and f"expected a whole number from 1 to {BOOTSTRAP_MAX_REPLICATES}" in proc.stderr
    score = run_ek("score", s["weak"], "--gold", s["gold"], "--bootstrap", too_many)
    assert score.returncode == 2 and f"from 0 (off) to {BOOTSTRAP_MAX_REPLICATES}" in score.stderr
    rows = ([1.0, 0.0], [0.0, 1.0], [1.0, 0.0])
    with pytest.raises(ValueError, match="replicates must be between 1 and 100,000"):
        paired_bootstrap(rows, rows, replicates=BOOTSTRAP_MAX_REPLICATES + 1)
    with pytest.raises(ValueError, match="replicates must be between"):
        bootstrap_f1(*rows, replicates=BOOTSTRAP_MAX_REPLICATES + 1)


def test_a_report_over_the_file_redirected_to_stdin_is_refused(tmp_path: Path) -> None:
    """`ek compare - B.jsonl --json A.jsonl < A.jsonl` replaced run A's file with the report: '-' was never
    compared with the report paths. Now the file behind stdin counts as an input (ek score too)."""
    a = synthetic_corpus(tmp_path / "a.jsonl", 40, seed=1)
    b = synthetic_corpus(tmp_path / "b.jsonl", 40, seed=2)
    before = a.read_text()
    for command in (["compare", "-", b], ["score", "-"]):
        proc = run_ek(*command, "--json", a, stdin_file=a)
        assert proc.returncode == 2 and "is also an input of this run (-)" in proc.stderr, proc.stderr
        assert a.read_text() == before
    piped = run_ek("compare", "-", b, "--json", tmp_path / "r.json", stdin=before)  # a pipe is no file: no clash
    assert piped.returncode == 0, piped.stderr


@pytest.mark.parametrize("command", ["compare", "score"])
def test_a_negative_seed_is_refused_not_taken_as_its_absolute_value(tmp_path: Path, command: str) -> None:
    """random.Random(-7) is random.Random(7): `--seed -7` gave exactly the interval of `--seed 7`, so two runs
    meant to be independent were one. A seed is now 0 or more (as NumPy's), and huge ones still work."""
    a = synthetic_corpus(tmp_path / "a.jsonl", 40, seed=1)
    files = [a, synthetic_corpus(tmp_path / "b.jsonl", 40, seed=2)] if command == "compare" else [a]
    extra = [] if command == "compare" else ["--bootstrap", "200"]
    proc = run_ek(command, *files, *extra, "--seed", "-7")
    assert proc.returncode == 2 and "--seed: expected a whole number 0 or more, got -7" in proc.stderr
    assert run_ek(command, *files, *extra, "--seed", str(10**30)).returncode == 0


@pytest.mark.parametrize("seed", [-7, True, 1.5])
def test_the_bootstrap_functions_refuse_a_seed_random_would_misread(seed: object) -> None:
    """The library's own check (ek.stats owns the seed): -7 was 7 to random.Random."""
    rows = ([1, 0, 1], [0, 1, 0], [0, 1, 0])
    for call in (lambda: bootstrap_f1(*rows, replicates=10, seed=seed),
                 lambda: paired_bootstrap(rows, rows, replicates=10, seed=seed)):
        with pytest.raises(ValueError, match="seed must be a whole number of at least 0"):
            call()


def test_runs_paired_by_task_are_counted_in_tasks(tmp_path: Path) -> None:
    """Paired by task, the caution and the refusal said 'paired episodes' of what were tasks (3 samples each)."""
    def run(path: Path, tasks: int, samples: int) -> Path:
        gold = [{"name": "f", "arguments": {"x": 1}}]
        return write_lines(path, [{"id": f"{t}-{s}", "task": t, "pred": "f(x=1)", "gold": gold}
                                  for t in range(tasks) for s in range(samples)])

    few = run_ek("compare", run(tmp_path / "a.jsonl", 5, 3), run(tmp_path / "b.jsonl", 5, 1))
    assert few.returncode == 0 and "note: only 5 paired tasks;" in few.stdout, few.stdout
    one = run_ek("compare", run(tmp_path / "a1.jsonl", 1, 3), run(tmp_path / "b1.jsonl", 1, 1))
    assert one.returncode == 1 and "needs at least 2 paired tasks, got 1" in one.stderr, one.stderr


def test_unscored_lines_counts_lines_not_unmatched_ids(tmp_path: Path) -> None:
    """`--json`'s unscored_lines added the ids only in A or B and the duplicated ids to the lines that could not
    be scored: 30 ids only in B (every line scored) read as 30 unscored lines. Ids have their own lists."""
    a = synthetic_corpus(tmp_path / "a.jsonl", 40, seed=1, corrupt_every=10)  # 4 broken lines
    b = synthetic_corpus(tmp_path / "b.jsonl", 70, seed=2)
    for extra in ([], ["--allow-errors"]):
        run_ek("compare", a, b, "--json", tmp_path / "r.json", *extra)
        report = json.loads((tmp_path / "r.json").read_text())
        assert report["unscored_lines"] == 4 and len(report["only_in_b"]) == 30 + 4, report


def test_too_few_replicates_to_reach_alpha_are_named(tmp_path: Path) -> None:
    """With 19 replicates the smallest p is 2/20 = 0.1: at --alpha 0.1 the run printed `p < 0.1000` beside `no
    significant difference`, a contradiction no one could resolve from the output. A note now says why."""
    a = synthetic_corpus(tmp_path / "a.jsonl", 60, seed=1, accuracy=0.3)
    b = synthetic_corpus(tmp_path / "b.jsonl", 60, seed=2, accuracy=0.95)
    few = run_ek("compare", a, b, "--bootstrap", "19", "--alpha", "0.1")
    assert few.returncode == 0 and "no significant difference" in few.stdout, few.stdout
    assert ("note: 19 replicates give no p below 0.1000, so nothing can be significant at --alpha 0.1; use "
            "--bootstrap 20 or more") in few.stdout
    enough = run_ek("compare", a, b, "--bootstrap", "20", "--alpha", "0.1")
    assert "B is better than A" in enough.stdout and "note:" not in enough.stdout, enough.stdout
    unreachable = run_ek("compare", a, b, "--alpha", "1e-300", timeout=60)
    assert unreachable.returncode == 0 and "no --bootstrap can reach it (at most 100,000" in unreachable.stdout
