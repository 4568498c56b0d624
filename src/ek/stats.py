"""Bootstrap confidence intervals for micro F1, and the paired bootstrap that compares two systems.

Units (episodes, or tasks with their samples summed) are resampled with
replacement; each replicate sums the resampled units' TP, FP and FN and takes
micro F1 of the sums (never a mean of per-episode F1s). A replicate draws how
many times each distinct row is taken (exact binomial draws), so its cost grows
with the distinct rows, not with the corpus. A seeded :class:`random.Random` makes every interval
reproducible: same rows, same seed, same numbers. Intervals always hold their
point estimate: when skewed cost weights put every central replicate on one
side of it (small corpora, low confidence levels), the interval is widened to
reach it rather than report a range that excludes the observed value.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Collection, Iterable, Sequence
from fractions import Fraction
from typing import Any

import attrs

from ek.limits import BOOTSTRAP_MAX_REPLICATES, PASS_K_EVERY


def micro_f1(tp: float, fp: float, fn: float) -> float:
    """F1 of summed counts; 1.0 when there is nothing to count (as :class:`ek.scorer.accounting.Score`).

    >>> micro_f1(2, 1, 1), micro_f1(0, 0, 0)
    (0.6666666666666666, 1.0)
    """
    den = 2 * tp + fp + fn
    return 2 * tp / den if den else 1.0


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) of already sorted values, linearly interpolated.

    >>> percentile([0.0, 1.0, 2.0, 3.0], 0.5)
    1.5
    """
    if not sorted_values:
        raise ValueError("percentile of no values")
    pos = q * (len(sorted_values) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


@attrs.frozen
class Interval:
    """A point estimate with its percentile bootstrap interval."""

    estimate: float
    low: float
    high: float
    confidence: float
    replicates: int
    seed: int

    def __str__(self) -> str:
        return f"{self.estimate:.4f} [{self.low:.4f}, {self.high:.4f}]"

    def to_dict(self) -> dict[str, float | int]:
        return {"estimate": self.estimate, "low": self.low, "high": self.high, "confidence": self.confidence,
                "replicates": self.replicates, "seed": self.seed}


def _interval(estimate: float, values: Sequence[float], confidence: float, replicates: int, seed: int) -> Interval:
    """Percentile interval of sorted replicate ``values``, widened to hold ``estimate``."""
    alpha = (1 - confidence) / 2
    low, high = percentile(values, alpha), percentile(values, 1 - alpha)
    return Interval(estimate, min(low, estimate), max(high, estimate), confidence, replicates, seed)


def _check(replicates: int, confidence: float, seed: int) -> None:
    # random.Random seeds with an int's absolute value: -7 would silently be 7, two "independent" runs one
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"seed must be a whole number of at least 0, got {seed!r}")
    if not 1 <= replicates <= BOOTSTRAP_MAX_REPLICATES:
        raise ValueError(f"replicates must be between 1 and {BOOTSTRAP_MAX_REPLICATES:,}, got {replicates}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")


def binomial(trials: int, p: float, rnd: Callable[[], float]) -> int:
    """One draw of a Binomial(``trials``, ``p``) variable, from ``rnd``'s uniform draws in [0, 1) (a seeded
    :class:`random.Random`'s ``random``: the same draws, the same result), in expected constant time.

    Below ten successes expected, the successes are counted by jumping over the runs of failures between
    them (each run's length is geometric: expected ``trials * p + 1`` draws). Above, Hormann's BTRS: the
    transformed rejection method with squeeze of "The generation of binomial random variates" (1993), which
    accepts a point of a dominating hat function against the exact log-probability (``math.lgamma``), so the
    draws follow the binomial law exactly, whatever ``trials`` (about 1.2 iterations, four ``rnd`` draws at
    most in most of them). ``p`` above one half draws the failures instead.

    >>> import random
    >>> rng = random.Random(0)
    >>> [binomial(10, 0.0, rng.random), binomial(10, 1.0, rng.random), binomial(0, 0.3, rng.random)]
    [0, 10, 0]
    >>> draws = [binomial(1_000_000, 0.25, rng.random) for _ in range(2000)]
    >>> abs(sum(draws) / len(draws) - 250_000) < 30  # the standard error of that mean is 9.7
    True
    """
    if trials < 0 or not 0.0 <= p <= 1.0:
        raise ValueError(f"a binomial draw needs trials >= 0 and 0 <= p <= 1, got {trials} and {p}")
    if p == 0.0 or trials == 0:
        return 0
    if p == 1.0:
        return trials
    if p > 0.5:
        return trials - binomial(trials, 1.0 - p, rnd)
    if trials * p < 10.0:
        log_q = math.log1p(-p)
        successes = position = 0
        while True:
            # the next success's position: a geometric gap from the last, by inversion (1 - rnd() is in (0, 1])
            position += math.floor(math.log(1.0 - rnd()) / log_q) + 1
            if position > trials:
                return successes
            successes += 1
    spread = math.sqrt(trials * p * (1.0 - p))
    b = 1.15 + 2.53 * spread
    a = -0.0873 + 0.0248 * b + 0.01 * p
    c = trials * p + 0.5
    v_r = 0.92 - 4.2 / b
    alpha = (2.83 + 5.1 / b) * spread
    log_odds = math.log(p / (1.0 - p))
    mode = math.floor((trials + 1) * p)
    h = math.lgamma(mode + 1) + math.lgamma(trials - mode + 1)
    while True:
        u = rnd() - 0.5
        v = rnd()
        us = 0.5 - abs(u)
        k = math.floor((2.0 * a / us + b) * u + c) if us > 0.0 else -1
        if k < 0 or k > trials:
            continue
        if us >= 0.07 and v <= v_r:  # the squeeze: surely under the density
            return k
        v = math.log(v * alpha / (a / (us * us) + b))
        if v <= h - math.lgamma(k + 1) - math.lgamma(trials - k + 1) + (k - mode) * log_odds:
            return k


class _Resampler:
    """Draws bootstrap replicates of column sums, fast in pure Python.

    Units (episodes, or tasks) with identical rows are grouped: a replicate draws how many of its ``n`` draws
    fall in each group, a multinomial count made of one binomial draw per group (:func:`binomial`, each group
    given the draws the groups before it left), so the work per replicate grows with the groups, not with
    ``n``: a million episodes of fifty distinct rows cost fifty draws a replicate. When almost every row is
    distinct it draws ``n`` units and sums their rows directly.
    """

    def __init__(self, columns: Sequence[Sequence[float]]) -> None:
        self.n = len(columns[0])
        self.width = len(columns)
        groups: dict[tuple[Any, ...], int] = {}
        for row in zip(*columns):  # the columns as given (a run's compact arrays): no copy of a million floats
            groups[row] = groups.get(row, 0) + 1
        # equal numbers are one key whatever their type (1 == 1.0 == Fraction(1)), so the keys stay distinct as
        # floats
        floated = {tuple(map(float, row)): size for row, size in groups.items()}
        self.rows = sorted(floated)
        self.sizes = [floated[row] for row in self.rows]
        self.grouped = len(self.rows) * 8 <= self.n
        #: the rows as floats, for drawing units one by one (only when almost every row is distinct)
        self.columns = [] if self.grouped else [list(map(float, c)) for c in columns]

    def sums(self, rng: random.Random) -> list[float]:
        n, rnd = self.n, rng.random
        if not self.grouped:
            idx = [int(rnd() * n) for _ in range(n)]
            return [math.fsum(map(col.__getitem__, idx)) for col in self.columns]
        totals = [0.0] * self.width
        draws_left, units_left = n, n
        for row, size in zip(self.rows, self.sizes, strict=True):
            # given the draws that fell in the groups before, each of the rest falls in this group with
            # probability size / units_left: the conditional binomials of a multinomial draw
            count = draws_left if size == units_left else binomial(draws_left, size / units_left, rnd)
            draws_left -= count
            units_left -= size
            if count:
                for k, value in enumerate(row):
                    totals[k] += count * value
            if not draws_left:
                break
        return totals


def bootstrap_f1(tp: Sequence[float], fp: Sequence[float], fn: Sequence[float], *, replicates: int = 1000,
                 seed: int = 0, confidence: float = 0.95) -> Interval:
    """Percentile bootstrap CI of micro F1 over episodes (rows of per-episode TP, FP, FN).

    >>> ci = bootstrap_f1([1, 1, 0, 1], [0, 0, 1, 0], [0, 1, 1, 0], replicates=200, seed=7)
    >>> ci == bootstrap_f1([1, 1, 0, 1], [0, 0, 1, 0], [0, 1, 1, 0], replicates=200, seed=7)
    True
    >>> ci.low <= ci.estimate <= ci.high, round(ci.estimate, 4)
    (True, 0.6667)
    """
    _check(replicates, confidence, seed)
    n = len(tp)
    if not (n == len(fp) == len(fn)):
        raise ValueError("tp, fp and fn rows must have the same length")
    estimate = micro_f1(math.fsum(tp), math.fsum(fp), math.fsum(fn))
    if n == 0:
        return Interval(estimate, estimate, estimate, confidence, replicates, seed)
    rng = random.Random(seed)
    resampler = _Resampler((tp, fp, fn))
    values = sorted(micro_f1(*resampler.sums(rng)) for _ in range(replicates))
    return _interval(estimate, values, confidence, replicates, seed)


def bootstrap_mean(values: Sequence[float], *, replicates: int = 1000, seed: int = 0,
                   confidence: float = 0.95) -> Interval:
    """Percentile bootstrap CI of a mean over episodes (episode accuracy: one 0/1 exact flag per episode).

    >>> ci = bootstrap_mean([1, 1, 0, 1], replicates=200, seed=7)
    >>> ci.estimate, ci.low <= 0.75 <= ci.high, ci == bootstrap_mean([1, 1, 0, 1], replicates=200, seed=7)
    (0.75, True, True)
    """
    _check(replicates, confidence, seed)
    n = len(values)
    estimate = math.fsum(values) / n if n else 0.0
    if n == 0:
        return Interval(estimate, estimate, estimate, confidence, replicates, seed)
    rng = random.Random(seed)
    resampler = _Resampler((values,))
    replicate_means = sorted(resampler.sums(rng)[0] / n for _ in range(replicates))
    return _interval(estimate, replicate_means, confidence, replicates, seed)


def bootstrap_ratio(numerators: Sequence[float], denominators: Sequence[float], *, replicates: int = 1000,
                    seed: int = 0, confidence: float = 0.95) -> Interval:
    """Percentile bootstrap CI of a ratio of sums over units drawn whole (a cluster bootstrap): each replicate
    draws the units with replacement and divides the sum of their numerators by the sum of their denominators.
    Episode accuracy over tasks: per task its exact samples and its samples. Every denominator must be positive.

    >>> ci = bootstrap_ratio([2, 0, 3, 1], [3, 2, 3, 1], replicates=200, seed=7)
    >>> ci.estimate, ci.low <= ci.estimate <= ci.high
    (0.6666666666666666, True)
    """
    _check(replicates, confidence, seed)
    n = len(numerators)
    if n != len(denominators):
        raise ValueError("numerators and denominators must have the same length")
    if not all(d > 0 for d in denominators):
        raise ValueError("every denominator must be positive")
    if n == 0:
        return Interval(0.0, 0.0, 0.0, confidence, replicates, seed)
    estimate = math.fsum(numerators) / math.fsum(denominators)
    rng = random.Random(seed)
    resampler = _Resampler((numerators, denominators))
    ratios = sorted(num / den for num, den in (resampler.sums(rng) for _ in range(replicates)))
    return _interval(estimate, ratios, confidence, replicates, seed)


def pass_at_k(n: int, c: int, k: int) -> Fraction:
    """Unbiased pass@k of one task with ``c`` exact samples out of ``n``: the chance that ``k`` samples drawn
    without replacement hold at least one exact one, ``1 - C(n-c, k) / C(n, k)`` (Chen et al. 2021).

    >>> pass_at_k(4, 1, 1), pass_at_k(4, 1, 2), pass_at_k(4, 0, 4), pass_at_k(3, 3, 2)
    (Fraction(1, 4), Fraction(1, 2), Fraction(0, 1), Fraction(1, 1))
    """
    _check_k(n, c, k)
    return 1 - Fraction(math.comb(n - c, k), math.comb(n, k))


def pass_hat_k(n: int, c: int, k: int) -> Fraction:
    """Unbiased pass^k of one task (tau-bench): the chance that ``k`` samples drawn without replacement are all
    exact, ``C(c, k) / C(n, k)``; tau-bench averages it over tasks (``display_metrics`` in its ``run.py``).

    >>> pass_hat_k(4, 1, 1), pass_hat_k(4, 2, 2), pass_hat_k(4, 4, 4), pass_hat_k(4, 3, 4)
    (Fraction(1, 4), Fraction(1, 6), Fraction(1, 1), Fraction(0, 1))
    """
    _check_k(n, c, k)
    return Fraction(math.comb(c, k), math.comb(n, k))


def _check_k(n: int, c: int, k: int) -> None:
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")


def mean_over_tasks(estimator: Callable[[int, int, int], Fraction], counts: Iterable[tuple[int, int]], k: int) -> float:
    """``estimator(n, c, k)`` averaged over tasks' ``(n, c)``, summed exactly, then one division.

    >>> mean_over_tasks(pass_hat_k, [(2, 2), (2, 1)], 1)
    0.75
    """
    values = [estimator(n, c, k) for n, c in counts]
    return float(sum(values, Fraction(0)) / len(values)) if values else 0.0


def pass_k_values(samples: int) -> list[int]:
    """The k at which a report gives pass@k and pass^k when every task has at least ``samples`` samples: each k
    up to :data:`ek.limits.PASS_K_EVERY` (16), then the powers of two and of ten, and ``samples`` itself.

    >>> pass_k_values(4), pass_k_values(100)[14:]
    ([1, 2, 3, 4], [15, 16, 32, 64, 100])
    >>> pass_k_values(10_000)[16:]
    [32, 64, 100, 128, 256, 512, 1000, 1024, 2048, 4096, 8192, 10000]
    """
    ks = set(range(1, min(samples, PASS_K_EVERY) + 1))
    for base in (2, 10):
        k = base
        while k <= samples:
            ks.add(k)
            k *= base
    if samples >= 1:
        ks.add(samples)
    return sorted(ks)


def mean_pass_rates(counts: Collection[tuple[int, int]], ks: Iterable[int]) -> dict[int, tuple[float, float]]:
    """Per k: pass@k and pass^k (:func:`pass_at_k`, :func:`pass_hat_k`) averaged over tasks' ``(n, c)``.

    Up to :data:`ek.limits.PASS_K_EVERY` each is :func:`mean_over_tasks` of the exact fractions. Past it, where
    binomials of thousands of digits made a k cost O(k²) and more, each task's value is a running product over
    ``i < k`` (one pass up to the largest k for all of them, O(k) a task), summed with :func:`math.fsum`:
    pass^k = ``prod (c-i)/(n-i)``, within about ``2k`` roundings of the exact value; pass@k =
    ``1 - prod (n-c-i)/(n-i)``, taken as ``-expm1`` of a sum of logarithms so that a small pass@k keeps its
    relative precision too (``1 -`` a product near 1 would lose it).

    >>> mean_pass_rates([(40, 30), (60, 2)], [1, 20])
    {1: (0.39166666666666666, 0.39166666666666666), 20: (0.7796610169491526, 0.0001089799476896251)}
    """
    ks = sorted(set(ks))
    rates = {k: (mean_over_tasks(pass_at_k, counts, k), mean_over_tasks(pass_hat_k, counts, k))
             for k in ks if k <= PASS_K_EVERY}
    large = [k for k in ks if k > PASS_K_EVERY]
    if large:
        columns = [_pass_products(n, c, large) for n, c in counts]
        for at, k in enumerate(large):
            some = [column[at][0] for column in columns]
            every = [column[at][1] for column in columns]
            rates[k] = (math.fsum(some) / len(some), math.fsum(every) / len(every)) if columns else (0.0, 0.0)
    return rates


def _pass_products(n: int, c: int, ks: Sequence[int]) -> list[tuple[float, float]]:
    """pass@k and pass^k of one task at each of the increasing ``ks``, in floating point (:func:`mean_pass_rates`)."""
    out = []
    # over the i so far: the logarithm of prod (n-c-i)/(n-i), and prod (c-i)/(n-i) as a mantissa and a power of two
    # (so that a product past the smallest float is rounded once, at the end, not stuck at it: 5e-324 * 0.6 is 5e-324)
    log_miss, hit, scale, i = 0.0, 1.0, 0, 0
    for k in ks:
        _check_k(n, c, k)
        while i < k and (hit or log_miss > -math.inf):
            left = n - i
            if c >= left:  # no more than i samples are not exact: i + 1 drawn hold an exact one for sure
                log_miss = -math.inf
            elif 2 * c < left:  # c/(n-i) < 1/2: log1p keeps its precision
                log_miss += math.log1p(-c / left)
            else:  # (n-c-i)/(n-i) <= 1/2: its logarithm is far from 0, log keeps it
                log_miss += math.log((left - c) / left)
            hit, shift = math.frexp(hit * (c - i) / left) if c > i else (0.0, 0)
            scale += shift
            i += 1
        out.append((0.0 - math.expm1(log_miss), math.ldexp(hit, scale)))
    return out


@attrs.frozen
class PairedResult:
    """B minus A: the F1 of each, the difference with its interval, and a two-sided bootstrap p-value."""

    f1_a: float
    f1_b: float
    delta: Interval
    p_value: float
    episodes: int

    def significant(self, alpha: float = 0.05) -> bool:
        return self.p_value < alpha

    def verdict(self, alpha: float = 0.05, names: tuple[str, str] = ("A", "B")) -> str:
        """``B is better than A: ΔF1 = +0.042 [0.013, 0.071], p = 0.004``, or no significant difference."""
        a, b = names
        d = self.delta
        numbers = f"ΔF1 = {d.estimate:+.3f} [{d.low:+.3f}, {d.high:+.3f}], p {_p(self.p_value, d.replicates)}"
        if not self.significant(alpha):
            return f"no significant difference between {a} and {b}: {numbers}"
        better, worse = (b, a) if d.estimate > 0 else (a, b)
        return f"{better} is better than {worse}: {numbers}"

    def to_dict(self, alpha: float = 0.05) -> dict[str, object]:
        return {"f1_a": self.f1_a, "f1_b": self.f1_b, "delta": self.delta.to_dict(), "p_value": self.p_value,
                "episodes": self.episodes, "alpha": alpha, "significant": self.significant(alpha)}


def p_floor(replicates: int) -> float:
    """The smallest two-sided p a paired bootstrap of ``replicates`` can give, ``2 / (replicates + 1)`` (at most 1).

    >>> p_floor(2000) < 0.001, p_floor(39) == 0.05, p_floor(1)
    (True, True, 1.0)
    """
    return min(1.0, 2 / (replicates + 1))


def replicates_to_reach(alpha: float) -> int | None:
    """The fewest replicates whose :func:`p_floor` is below ``alpha``: with fewer, nothing can be significant.
    None when it takes more than :data:`ek.limits.BOOTSTRAP_MAX_REPLICATES` (``alpha`` 1e-300).

    >>> replicates_to_reach(0.05), replicates_to_reach(0.1), p_floor(replicates_to_reach(0.05)) < 0.05
    (40, 20, True)
    >>> replicates_to_reach(1e-300) is None
    True
    """
    if p_floor(BOOTSTRAP_MAX_REPLICATES) >= alpha:
        return None
    low, high = 1, BOOTSTRAP_MAX_REPLICATES  # p_floor falls as replicates grow: the first one below alpha
    while low < high:
        middle = (low + high) // 2
        if p_floor(middle) < alpha:
            high = middle
        else:
            low = middle + 1
    return low


def _p(p: float, replicates: int) -> str:
    floor = p_floor(replicates)
    return f"< {floor:.4f}" if p <= floor else f"= {p:.3f}"


def paired_bootstrap(a: Sequence[Sequence[float]], b: Sequence[Sequence[float]], *, replicates: int = 1000,
                     seed: int = 0, confidence: float = 0.95) -> PairedResult:
    """Paired bootstrap of ΔF1 = F1(B) - F1(A) over the same episodes (``a``, ``b``: (tp, fp, fn) row columns).

    Each replicate draws one set of episode indices and uses it for both systems.
    The p-value is the two-sided fraction of replicates on the far side of zero,
    ``2 (count + 1) / (replicates + 1)`` (capped at 1), so it is never exactly 0.

    >>> same = ([1, 0, 1, 1], [0, 1, 0, 0], [0, 1, 0, 0])
    >>> r = paired_bootstrap(same, same, replicates=100, seed=1)
    >>> r.delta.estimate, r.p_value
    (0.0, 1.0)
    """
    _check(replicates, confidence, seed)
    n = len(a[0])
    if any(len(col) != n for col in (*a, *b)):
        raise ValueError("both systems need one row per episode, in the same order")
    f1_a = micro_f1(*(math.fsum(c) for c in a))
    f1_b = micro_f1(*(math.fsum(c) for c in b))
    estimate = f1_b - f1_a
    if n == 0:
        return PairedResult(f1_a, f1_b, Interval(estimate, estimate, estimate, confidence, replicates, seed), 1.0, 0)
    rng = random.Random(seed)
    resampler = _Resampler((*a, *b))
    deltas = []
    for _ in range(replicates):
        sums = resampler.sums(rng)
        deltas.append(micro_f1(*sums[3:]) - micro_f1(*sums[:3]))
    deltas.sort()
    below = sum(1 for d in deltas if d <= 0)
    above = sum(1 for d in deltas if d >= 0)
    p_value = min(1.0, 2 * (min(below, above) + 1) / (replicates + 1))
    return PairedResult(f1_a, f1_b, _interval(estimate, deltas, confidence, replicates, seed), p_value, n)


__all__ = ["Interval", "PairedResult", "binomial", "bootstrap_f1", "bootstrap_mean", "bootstrap_ratio",
           "mean_over_tasks", "mean_pass_rates", "micro_f1", "paired_bootstrap", "pass_at_k", "pass_hat_k",
           "pass_k_values", "percentile"]
