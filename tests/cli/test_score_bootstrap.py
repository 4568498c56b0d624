"""``ek.stats``: bootstrap intervals are reproducible, sane, and agree with a direct resampling."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest
from ekcli import run_ek, write_lines
from hypothesis import given, settings
from hypothesis import strategies as st

from ek.stats import bootstrap_f1, micro_f1, paired_bootstrap, percentile


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
