"""Benchmark of order-constrained scoring: strict (weighted LCS) growth, and gold ``after`` constraints on
realistic and adversarial episodes (how long, and how often the exact search refuses).

Run: ``python benchmarks/order.py [--quick]``

1. ``order="strict"``, one tool, n predicted vs n gold calls with distinct arguments, the prediction reversed
   (n = 10, 100, 1000 or 300 with --quick): seconds, and the growth per x10 (~x100 means O(n²)).
2. ``order="gold"``: random episodes of 4-12 calls over 4 tools, each gold call after an earlier one with
   probability 0.3, the prediction shuffled and partly wrong: episodes per second and refusals.
3. ``order="gold"``, adversarial: one tool, a chain of n identical-name calls with distinct arguments, the
   prediction reversed (every unordered optimum breaks every constraint).
4. Long trajectories of n calls to distinct tools (n = 1,000 and 10,000, or 1,000 with --quick): strict order
   right and with its halves swapped, gold order on a chain of ``after`` right and reversed (growth per x10:
   ~x10 means linear; the reversed chain is refused by ``ek.limits.ORDER_MAX_WORK`` past a thousand or so).
5. ``order="gold"`` on one large tool group: n predicted vs n gold calls of one tool that all partly agree
   (``benchmarks/toolcalls.py``'s ``partial`` group), gold call 1 after gold call 0 (n = 1,000, or 300 with
   --quick): CPU seconds with SciPy's solver and with ek's own (what runs without SciPy), same answer (at 1,000
   the group's unordered optimum keeps the constraint: one assignment; at 300 it breaks it, and the search is
   refused past ``ek.limits.ORDER_MAX_WORK`` after that one assignment).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

from ek.calls import GoldCall, Step
from ek.scorer import assign
from ek.scorer.metric import ToolCallMetric

sys.path.insert(0, str(Path(__file__).parent))
from toolcalls import group  # noqa: E402 - the scorer benchmark's call groups, shared

TOOLS = ["search", "book", "weather", "cancel"]


def _strict(sizes: list[int]) -> None:
    metric = ToolCallMetric(order="strict")
    last = None
    for n in sizes:
        gold = [Step("s", {"i": i}) for i in range(n)]
        pred = gold[::-1]
        start = time.perf_counter()
        metric(pred, gold)
        took = time.perf_counter() - start
        growth = f"  x{took / last:.0f}" if last else ""
        print(f"  strict n={n:5d}: {took:8.3f} s{growth}")
        last = took


def _random_gold(rnd: random.Random) -> list[Step]:
    gold: list[Step] = []
    for j in range(rnd.randint(4, 12)):
        name, args = rnd.choice(TOOLS), {"x": rnd.randint(0, 3)}
        after = [k for k in range(j) if rnd.random() < 0.3]
        gold.append(GoldCall(name, args, after=after) if after else Step(name, args))
    return gold


def _gold_random(episodes: int) -> None:
    rnd = random.Random(7)
    metric = ToolCallMetric(level="arg", order="gold")
    refused = 0
    start = time.perf_counter()
    for _ in range(episodes):
        gold = _random_gold(rnd)
        pred = [Step(g.name, dict(g.args) if rnd.random() < 0.7 else {"x": 9}) for g in gold if rnd.random() < 0.9]
        rnd.shuffle(pred)
        try:
            metric(pred, gold)
        except ValueError:
            refused += 1
    took = time.perf_counter() - start
    print(f"  gold, {episodes} random episodes: {episodes / took:8.0f} episodes/s, {refused} refused")


def _gold_chain(sizes: list[int]) -> None:
    metric = ToolCallMetric(order="gold")
    for n in sizes:
        gold = [GoldCall("s", {"i": i}, after=[i - 1]) if i else Step("s", {"i": 0}) for i in range(n)]
        pred = [Step("s", {"i": i}) for i in reversed(range(n))]
        start = time.perf_counter()
        try:
            metric(pred, gold)
            verdict = "solved"
        except ValueError as exc:
            verdict = f"refused ({exc})"
        print(f"  gold chain n={n:3d}: {time.perf_counter() - start:8.3f} s  {verdict}")


def _distinct(sizes: list[int]) -> None:
    def calls(n: int) -> list[Step]:
        return [Step(f"t{i}", {"x": i}) for i in range(n)]

    def chain(n: int) -> list[Step]:
        return [GoldCall(f"t{i}", {"x": i}, after=[i - 1]) if i else Step("t0", {"x": 0}) for i in range(n)]

    shapes = [("strict, right", "strict", calls, calls),
              ("strict, halves swapped", "strict", calls, lambda n: calls(n)[n // 2:] + calls(n)[:n // 2]),
              ("gold chain, right", "gold", chain, calls),
              ("gold chain, reversed", "gold", chain, lambda n: calls(n)[::-1])]
    for label, order, gold_of, pred_of in shapes:
        metric = ToolCallMetric(order=order)
        last = None
        for n in sizes:
            gold, pred = gold_of(n), pred_of(n)
            start = time.perf_counter()
            try:
                metric(pred, gold)
                verdict = "scored"
            except ValueError as exc:
                verdict = f"refused ({str(exc)[:60]}...)"
            took = time.perf_counter() - start
            growth = f"  x{took / last:.0f}" if last else ""
            print(f"  {label:24s} n={n:6d}: {took:8.3f} s{growth}  {verdict}")
            last = took


def _gold_one_tool(n: int) -> None:
    pred_calls, gold_calls = group("partial", n)
    gold = [GoldCall(name, args, after=[0]) if j == 1 else Step(name, args) for j, (name, args) in enumerate(gold_calls)]
    pred = [Step(name, args) for name, args in pred_calls]
    metric = ToolCallMetric(level="arg", order="gold")
    found = assign._scipy()
    answers = []
    for label, solver in [("SciPy", found), ("ek's own", None)]:
        if label == "SciPy" and found is None:
            print(f"  gold, one tool {n}x{n}, SciPy: not installed (pip install 'ek[fast]')")
            continue
        assign._SCIPY = solver  # None: as if SciPy were not installed
        start = time.process_time()
        try:
            score = metric(pred, gold)
            answer = f"TP/FP/FN {(score.tp, score.fp, score.fn)}"
        except ValueError as exc:  # the first assignment breaks the constraint, and a second is past the limit
            answer = f"refused ({str(exc)[:60]}...)"
        finally:
            assign._SCIPY = found
        took = time.process_time() - start
        answers.append(answer)
        print(f"  gold, one tool {n}x{n}, {label + ' solver:':16s} {took:8.3f} s CPU  {answer}")
    assert len(set(answers)) == 1, answers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    quick = parser.parse_args().quick
    print("1. strict order (weighted LCS)")
    _strict([10, 100] if quick else [10, 100, 1000])
    print("2. gold order, realistic episodes")
    _gold_random(300 if quick else 3000)
    print("3. gold order, adversarial chains")
    _gold_chain([5, 10, 20] if quick else [5, 10, 20, 40, 80])
    print("4. long trajectories of distinct tools")
    _distinct([1000] if quick else [1000, 10_000])
    print("5. gold order, one large tool group, with SciPy and without")
    _gold_one_tool(300 if quick else 1000)


if __name__ == "__main__":
    main()
