"""``ek.stats``: bootstrap intervals are reproducible, sane, and agree with a direct resampling."""

from __future__ import annotations

import math
import random

import pytest
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
