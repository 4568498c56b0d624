"""``ek.stats``: bootstrap intervals are reproducible, sane, and agree with a direct resampling."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

import pytest
from ekcli import run_ek, write_lines
from hypothesis import given, settings
from hypothesis import strategies as st

from ek.stats import bootstrap_f1, bootstrap_mean, bootstrap_ratio, micro_f1, paired_bootstrap, percentile


def _rows(n: int, seed: int) -> tuple[list[float], list[float], list[float]]:
    rng = random.Random(seed)
    return ([float(rng.randint(0, 3)) for _ in range(n)], [float(rng.randint(0, 1)) for _ in range(n)],
            [float(rng.randint(0, 1)) for _ in range(n)])


def test_score_bootstrap_same_seed_same_interval() -> None:
    rows = _rows(500, 1)
    assert bootstrap_f1(*rows, replicates=200, seed=4) == bootstrap_f1(*rows, replicates=200, seed=4)
    assert bootstrap_f1(*rows, replicates=200, seed=4) != bootstrap_f1(*rows, replicates=200, seed=5)


def test_score_bootstrap_grouped_and_direct_paths_agree_in_distribution() -> None:
    # few distinct rows -> grouped counting; weighted floats -> direct sums. Same data, same kind of interval.
    tp, fp, fn = _rows(2000, 2)
    grouped = bootstrap_f1(tp, fp, fn, replicates=400, seed=1)
    jitter = [v + i * 1e-9 for i, v in enumerate(tp)]  # make every row distinct
    direct = bootstrap_f1(jitter, fp, fn, replicates=400, seed=1)
    assert grouped.estimate == pytest.approx(direct.estimate, abs=1e-5)
    assert grouped.low == pytest.approx(direct.low, abs=0.01) and grouped.high == pytest.approx(direct.high, abs=0.01)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 2), st.integers(0, 2)), min_size=1, max_size=40),
       st.integers(0, 10_000))
def test_score_bootstrap_interval_holds_the_estimate_range(rows: list[tuple[int, int, int]], seed: int) -> None:
    tp, fp, fn = (list(map(float, c)) for c in zip(*rows))
    ci = bootstrap_f1(tp, fp, fn, replicates=50, seed=seed)
    assert 0.0 <= ci.low <= ci.high <= 1.0
    assert ci.estimate == micro_f1(math.fsum(tp), math.fsum(fp), math.fsum(fn))


def test_score_bootstrap_paired_detects_shift() -> None:
    n = 400
    a = ([1.0] * (n // 2) + [0.0] * (n // 2), [0.0] * (n // 2) + [1.0] * (n // 2), [0.0] * (n // 2) + [1.0] * (n // 2))
    b = ([1.0] * (3 * n // 4) + [0.0] * (n // 4), [0.0] * (3 * n // 4) + [1.0] * (n // 4),
         [0.0] * (3 * n // 4) + [1.0] * (n // 4))
    result = paired_bootstrap(a, b, replicates=300, seed=0)
    assert result.significant() and result.delta.low > 0
    assert result.verdict().startswith("B is better than A: ΔF1 = +0.250")


def test_score_bootstrap_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError):
        bootstrap_f1([1.0], [0.0], [0.0], replicates=0)
    with pytest.raises(ValueError):
        bootstrap_f1([1.0], [0.0], [], replicates=10)
    with pytest.raises(ValueError):
        percentile([], 0.5)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0, 0, 0, 1, 100]), st.sampled_from([0, 0, 1]), st.sampled_from([0, 1, 80])),
                min_size=2, max_size=30),
       st.integers(0, 10_000), st.sampled_from([0.1, 0.3, 0.5, 0.9, 0.95, 0.99]))
def test_score_bootstrap_interval_contains_the_point_estimate(rows: list[tuple[int, int, int]], seed: int,
                                                              confidence: float) -> None:
    # skewed cost weights can put all central replicates on one side of the estimate; the interval still holds it
    tp, fp, fn = (list(map(float, c)) for c in zip(*rows))
    ci = bootstrap_f1(tp, fp, fn, replicates=40, seed=seed, confidence=confidence)
    assert ci.low <= ci.estimate <= ci.high
    shifted = (fp, tp, fn)
    paired = paired_bootstrap((tp, fp, fn), shifted, replicates=40, seed=seed, confidence=confidence)
    assert paired.delta.low <= paired.delta.estimate <= paired.delta.high


@pytest.mark.parametrize("lines", [0, 1])
def test_score_bootstrap_needs_two_episodes_and_says_so(tmp_path: Path, lines: int) -> None:
    corpus = write_lines(tmp_path / "c.jsonl", [{"pred": "f()", "gold": [{"name": "f", "arguments": {}}]}] * lines)
    out = tmp_path / "r.json"
    proc = run_ek("score", corpus, "--bootstrap", "100", "--json", out)
    assert proc.returncode == (1 if lines == 0 else 0), proc.stderr  # nothing scored is an error
    assert f"no confidence interval: a bootstrap needs at least 2 scored episodes, got {lines}" in proc.stderr
    assert "CI [" not in proc.stdout
    assert json.loads(out.read_text())["confidence_interval"] is None


def _task_lines(tasks: int, samples: int, *, named: bool, seed: int = 5) -> list[dict[str, Any]]:
    """``samples`` identical samples of each of ``tasks`` tasks (a model that answers a task the same way every
    time), with the task named on each line or not at all."""
    rng = random.Random(seed)
    lines = []
    for t in range(tasks):
        said = rng.choice(["Paris", "Paris", "Rome"])
        extra = ", get_weather(city='Oslo')" if rng.random() < 0.3 else ""
        for s in range(samples):
            line = {"id": f"{t}-{s}", "pred": f"[get_weather(city={said!r}){extra}]",
                    "gold": [{"name": "get_weather", "arguments": {"city": "Paris"}}]}
            if named:
                line["task"] = f"task-{t}"
            lines.append(line)
    return lines


def _intervals(tmp_path: Path, name: str, lines: list[dict[str, Any]], *extra: str) -> dict[str, Any]:
    corpus = write_lines(tmp_path / f"{name}.jsonl", lines)
    out = tmp_path / f"{name}.json"
    proc = run_ek("score", corpus, "--bootstrap", "500", "--seed", "3", "--json", out, *extra)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(out.read_text())
    return {"f1": report["confidence_interval"], "accuracy": report["accuracy"]["interval"], "stdout": proc.stdout}


@pytest.mark.slow
def test_samples_of_a_task_are_drawn_together(tmp_path: Path) -> None:
    """Five identical samples of each task carry the information of one: drawn together (a cluster bootstrap),
    they give exactly the interval of one sample per task; drawn one by one they would give a narrower one."""
    five = _intervals(tmp_path, "five", _task_lines(40, 5, named=True))
    one = _intervals(tmp_path, "one", _task_lines(40, 1, named=False))
    for figure in ("f1", "accuracy"):
        assert five[figure]["unit"] == "task" and five[figure]["units"] == 40
        assert one[figure]["unit"] == "episode" and one[figure]["units"] == 40
        assert (five[figure]["low"], five[figure]["high"]) == (one[figure]["low"], one[figure]["high"])
        assert five[figure]["low"] < five[figure]["high"]
    assert "percentile bootstrap over 40 tasks, each task's samples drawn together" in five["stdout"]
    assert "percentile bootstrap over episodes" in one["stdout"]


@pytest.mark.slow
def test_episodes_naming_no_task_are_units_of_their_own(tmp_path: Path) -> None:
    lines = _task_lines(10, 3, named=True) + _task_lines(7, 1, named=False, seed=8)
    both = _intervals(tmp_path, "mixed", lines)
    assert both["f1"]["unit"] == "task" and both["f1"]["units"] == 17
    # tasks named once each are plain episodes: the episodes are the units, as before
    alone = _intervals(tmp_path, "alone", _task_lines(12, 1, named=True))
    assert alone["f1"]["unit"] == "episode" and alone["f1"]["units"] == 12


@pytest.mark.slow
def test_one_task_sampled_many_times_has_no_interval(tmp_path: Path) -> None:
    corpus = write_lines(tmp_path / "c.jsonl", _task_lines(1, 6, named=True))
    out = tmp_path / "r.json"
    proc = run_ek("score", corpus, "--bootstrap", "100", "--json", out)
    assert proc.returncode == 0, proc.stderr
    assert "no confidence interval: a bootstrap needs at least 2 tasks (or episodes naming none), got 1" in proc.stderr
    report = json.loads(out.read_text())
    assert report["confidence_interval"] is None and "interval" not in report["accuracy"]


def test_a_ratio_over_units_of_one_episode_is_the_mean() -> None:
    values = [float(random.Random(k).random() < 0.6) for k in range(300)]
    mean = bootstrap_mean(values, replicates=300, seed=2)
    assert bootstrap_ratio(values, [1.0] * len(values), replicates=300, seed=2) == mean


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(1, 5)), min_size=1, max_size=30), st.integers(0, 10_000))
def test_a_ratio_interval_holds_its_estimate(units: list[tuple[int, int]], seed: int) -> None:
    exact, samples = ([float(min(c, n)) for c, n in units], [float(n) for _c, n in units])
    ci = bootstrap_ratio(exact, samples, replicates=40, seed=seed)
    assert 0.0 <= ci.low <= ci.estimate <= ci.high <= 1.0
    assert ci.estimate == math.fsum(exact) / math.fsum(samples)


def test_a_ratio_needs_positive_denominators() -> None:
    with pytest.raises(ValueError, match="positive"):
        bootstrap_ratio([1.0, 0.0], [1.0, 0.0], replicates=10)
    with pytest.raises(ValueError, match="same length"):
        bootstrap_ratio([1.0], [1.0, 1.0], replicates=10)


def test_a_ratio_refuses_a_negative_seed_as_the_other_intervals_do() -> None:
    with pytest.raises(ValueError, match="seed must be a whole number of at least 0"):
        bootstrap_ratio([1.0, 0.0], [1.0, 1.0], replicates=10, seed=-7)
