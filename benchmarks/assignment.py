"""The optimal assignment: ek's ``max_weight_assignment`` against SciPy's ``linear_sum_assignment``, same costs.

Run: ``.venv/bin/python benchmarks/assignment.py [--quick]``

Each case is one table of scores (a Python list of lists, as the scorer builds it). Rounds are
interleaved (ek, then SciPy, then ek, ...), each timed in CPU time (``time.process_time``: the machine
is shared), and the median is reported. Two SciPy times are printed: from the same list (``np.array``
plus the solve, what a caller holding the scorer's table pays) and the solve alone on a ready array.
ek's time includes what SciPy's does not: the exact proof of optimality and the canonical tie-break.

Runs without SciPy (``pip install 'ek[fast]'`` or ``.[test]`` for it): then only ek's own solver is
timed, and the lines say so. Then ek's own solver alone (``backend='python'``, what runs without SciPy) on the
same tables: O(n^3) at worst, far less on tables of a few distinct scores, as a scorer's are. The last three
tables have many distinct scores (random floats, random ints) or make every search long (``i * j``).

Last, the end to end case of issue 16: ``ToolCallMetric("arg", optimal=True)`` on one group of
1,000 predicted and 1,000 gold calls of one tool, and the share of it spent in the assignment.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ek.scorer import assign
from ek.scorer.assign import max_weight_assignment

sys.path.insert(0, str(Path(__file__).parent))
from toolcalls import group  # noqa: E402 - the scorer benchmark's call groups, shared

Table = list[list[Any]]


def partial_table(n: int) -> Table:
    """The scorer's table for the ``partial`` group of benchmarks/toolcalls.py: nothing exact, every pair scored
    1 + the number of equal arguments (values 1, 2, 3: ties everywhere)."""
    pred, gold = group("partial", n)
    return [[1.0 + sum(p[1][k] == g[1][k] for k in g[1]) for g in gold] for p in pred]


def cases(n: int) -> dict[str, Table]:
    rnd = random.Random(1)
    return {
        f"scorer 'partial' {n}x{n} (1/2/3)": partial_table(n),
        f"all equal {n}x{n}": [[1.0] * n for _ in range(n)],
        f"ints 0..9 {n}x{n}": [[float(rnd.randint(0, 9)) for _ in range(n)] for _ in range(n)],
        f"halves 0..5 {n}x{n}": [[rnd.randint(0, 10) / 2 for _ in range(n)] for _ in range(n)],
        f"weights 0.1/0.7/2.3 {n}x{n}": [[rnd.choice([0.1, 0.7, 2.3]) for _ in range(n)] for _ in range(n)],
        f"rectangular {n // 10}x{n}": [[float(rnd.randint(1, 3)) for _ in range(n)] for _ in range(n // 10)],
        f"random floats {n}x{n}": [[rnd.random() for _ in range(n)] for _ in range(n)],
        f"random ints 0..10^6 {n}x{n}": [[rnd.randint(0, 10 ** 6) for _ in range(n)] for _ in range(n)],
        f"i * j {n}x{n} (adversarial)": [[i * j for j in range(n)] for i in range(n)],
    }


def cpu(fn: Callable[[], object]) -> float:
    t0 = time.process_time()
    fn()
    return time.process_time() - t0


def interleaved(runners: dict[str, Callable[[], object]], rounds: int) -> dict[str, float]:
    """Median CPU seconds of each runner over ``rounds`` interleaved rounds (after one warm-up call each)."""
    for run in runners.values():
        run()
    times: dict[str, list[float]] = {name: [] for name in runners}
    for _ in range(rounds):
        for name, run in runners.items():
            times[name].append(cpu(run))
    return {name: statistics.median(ts) for name, ts in times.items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="300 x 300 tables and 3 rounds, for a smoke run")
    opts = ap.parse_args(argv)
    n, rounds = (300, 3) if opts.quick else (1000, 5)
    scipy = assign._scipy()
    print(f"Python {sys.version.split()[0]}; SciPy: "
          + ("installed" if scipy else "NOT installed (only ek's own solver is timed; pip install 'ek[fast]')"))
    print(f"median CPU seconds of {rounds} interleaved rounds; ratio = ek / SciPy (lower is better)\n")
    print(f"{'case':<34} {'ek auto':>9} {'SciPy+array':>12} {'SciPy solve':>12} {'ratio':>7} {'ratio/solve':>12}")
    for name, table in cases(n).items():
        runners: dict[str, Callable[[], object]] = {"ek": lambda t=table: max_weight_assignment(t)}
        if scipy:
            np, lsa = scipy
            ready = np.array(table)
            runners["scipy"] = lambda t=table: lsa(np.array(t), maximize=True)
            runners["solve"] = lambda a=ready: lsa(a, maximize=True)
        med = interleaved(runners, rounds)
        if scipy:
            ours = max_weight_assignment(table)
            rows, cols = scipy[1](np.array(table), maximize=True)
            assert sum(table[r][c] for r, c in ours) == sum(table[r][c] for r, c in zip(rows.tolist(), cols.tolist()))
            print(f"{name:<34} {med['ek']:>9.3f} {med['scipy']:>12.3f} {med['solve']:>12.3f} "
                  f"{med['ek'] / med['scipy']:>6.1f}x {med['ek'] / med['solve']:>11.1f}x")
        else:
            print(f"{name:<34} {med['ek']:>9.3f} {'-':>12} {'-':>12} {'-':>7} {'-':>12}")

    print(f"\nek's own pure-Python solver (backend='python', what runs without SciPy), {n}x{n}:")
    for name, table in cases(n).items():
        med = interleaved({"python": lambda t=table: max_weight_assignment(t, backend="python")}, max(1, rounds - 2))
        print(f"{name:<34} {med['python']:>9.3f}")

    import ek.scorer.metric as metric_module
    from ek.agents.toolcalls import ToolCallMetric

    size = 300 if opts.quick else 1000
    pred, gold = group("partial", size)
    metric = ToolCallMetric("arg", optimal=True)
    spent: list[float] = []
    solver = metric_module.max_weight_assignment

    def timed_solver(scores: Table) -> list[tuple[int, int]]:
        t0 = time.process_time()
        try:
            return solver(scores)
        finally:
            spent.append(time.process_time() - t0)

    metric_module.max_weight_assignment = timed_solver  # measure the share of the assignment, then put it back
    try:
        total = statistics.median(cpu(lambda: metric(pred, gold)) for _ in range(max(1, rounds - 2)))
    finally:
        metric_module.max_weight_assignment = solver
    print(f"\nToolCallMetric('arg', optimal=True), one tool, {size} predicted x {size} gold calls ('partial'): "
          f"{total:.2f} s CPU, of which the assignment {statistics.median(spent):.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
