"""``ek.stats.binomial``: exact binomial draws (the bootstrap's multinomial counts are made of them), checked
against the binomial law by a chi-square test on seeded draws, so a result is the same on every run."""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable

import pytest

from ek.stats import _Resampler, binomial, bootstrap_f1, bootstrap_mean

stats = pytest.importorskip("scipy.stats", reason="the chi-square test of the draws reads SciPy's binomial law")
np = pytest.importorskip("numpy")

DRAWS = 30_000


def _chi_square_p(draw: Callable[[], int], trials: int, p: float) -> float:
    """p-value of a chi-square test of ``DRAWS`` draws against Binomial(trials, p): a cell per value between the
    least and the greatest drawn, the tails beyond them pooled into the end cells, and neighbouring cells pooled
    to hold at least 5 expected draws."""
    seen = Counter(draw() for _ in range(DRAWS))
    assert all(0 <= k <= trials for k in seen)
    low, high = min(seen), max(seen)
    ks = np.arange(low, high + 1)
    expected_of = stats.binom.pmf(ks, trials, p) * DRAWS
    expected_of[0] = stats.binom.cdf(low, trials, p) * DRAWS
    expected_of[-1] += stats.binom.sf(high, trials, p) * DRAWS
    cells: list[tuple[float, float]] = []
    observed = expected = 0.0
    for k, expected_k in zip(ks.tolist(), expected_of.tolist(), strict=True):
        observed += seen.get(k, 0)
        expected += expected_k
        if expected >= 5:
            cells.append((observed, expected))
            observed = expected = 0.0
    last_observed, last_expected = cells.pop()
    cells.append((last_observed + observed, last_expected + expected))
    statistic = sum((o - e) ** 2 / e for o, e in cells)
    return float(stats.chi2.sf(statistic, len(cells) - 1))


# both methods (fewer than ten successes expected: geometric gaps; more: BTRS), p on both sides of 1/2,
# and trials from a handful to a million
CASES = [(1, 0.5), (7, 0.2), (20, 0.3), (40, 0.24), (41, 0.25), (100, 0.5), (1000, 0.02), (1000, 0.3),
         (37, 0.9), (10, 0.7), (100_000, 0.0001), (100_000, 0.4), (1_000_000, 0.73)]


@pytest.mark.parametrize(("trials", "p"), CASES)
def test_draws_follow_the_binomial_law(trials: int, p: float) -> None:
    rng = random.Random(trials * 7919 + round(p * 1e6))
    assert _chi_square_p(lambda: binomial(trials, p, rng.random), trials, p) > 1e-4


@pytest.mark.parametrize(("trials", "p", "wrong"), [(1000, 0.3, 0.306), (30, 0.2, 0.215), (200, 0.02, 0.023)])
def test_the_law_test_tells_a_slightly_wrong_law(trials: int, p: float, wrong: float) -> None:
    """The test above has the power to fail: draws of a law a few percent off are refused."""
    rng = random.Random(5)
    assert _chi_square_p(lambda: binomial(trials, wrong, rng.random), trials, p) < 1e-4


def test_edges_and_bad_arguments() -> None:
    rnd = random.Random(0).random
    assert [binomial(0, 0.5, rnd), binomial(9, 0.0, rnd), binomial(9, 1.0, rnd)] == [0, 0, 9]
    for trials, p in ((-1, 0.5), (3, -0.1), (3, 1.5), (3, float("nan"))):
        with pytest.raises(ValueError, match="trials >= 0 and 0 <= p <= 1"):
            binomial(trials, p, rnd)


def test_a_uniform_draw_of_zero_is_taken() -> None:
    """``random()`` may return 0.0: neither method divides by zero or takes the log of zero."""
    zeros = iter([0.0] * 50 + [0.5] * 10_000)
    assert 0 <= binomial(5, 0.1, lambda: next(zeros)) <= 5
    zeros = iter([0.0] * 50 + [0.3, 0.9] * 10_000)
    assert 0 <= binomial(10_000, 0.4, lambda: next(zeros)) <= 10_000


class _CountingRandom(random.Random):
    """A seeded generator that counts its uniform draws."""

    draws = 0

    def random(self) -> float:
        self.draws += 1
        return super().random()


def test_a_replicate_costs_draws_per_distinct_row_not_per_episode() -> None:
    """A million episodes of eight distinct rows: a replicate draws a few numbers per row, not one per episode
    (drawing each episode took six minutes for a thousand replicates; now about a third of a second)."""
    rng = random.Random(0)
    n = 1_000_000
    tp = [float(rng.randint(0, 3)) for _ in range(n)]
    fp = [float(rng.randint(0, 1)) for _ in range(n)]
    resampler = _Resampler((tp, fp, fp[::-1]))
    counting = _CountingRandom(1)
    replicates = [resampler.sums(counting) for _ in range(200)]
    assert len(resampler.rows) <= 16 and counting.draws <= 200 * len(resampler.rows) * 8
    mean_tp = sum(r[0] for r in replicates) / len(replicates)
    assert abs(mean_tp - math.fsum(tp)) < 5 * math.sqrt(n * 1.25)  # a replicate's sum is centred on the data's
    interval = bootstrap_f1(tp, fp, fp[::-1], replicates=300, seed=0)
    accuracy = bootstrap_mean(fp, replicates=300, seed=0)
    assert interval.low < interval.estimate < interval.high and interval.high - interval.low < 0.01
    assert accuracy.low < 0.5 < accuracy.high
