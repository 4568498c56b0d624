"""Micro-benchmark of the scorer: calls scored per second, and how cost grows with group size.

Run: ``python benchmarks/toolcalls.py [--quick]``

1. Realistic episodes (1-10 calls over a few tools, some wrong values, extra and
   missing calls), greedy vs optimal, call and arg level.
2. One large group of same-name calls (n = 10, 100, 1000): identical repeats,
   reordered distinct calls, and partially overlapping calls (every pair must be
   scored), greedy vs optimal; prints seconds per group and the growth ratio
   between consecutive sizes (x10 in n: ~x10 means linear, ~x100 quadratic, ~x1000 cubic).
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from ek.agents.toolcalls import ToolCallMetric

TOOLS = ["search_flights", "book_flight", "get_weather", "cancel_booking"]


def _call(rnd: random.Random) -> tuple[str, dict]:
    tool = rnd.choice(TOOLS)
    args = {
        "search_flights": lambda: {"origin": rnd.choice(["BER", "JFK", "SFO"]), "destination": rnd.choice(["LHR", "CDG"]),
                                   "date": f"2026-12-{rnd.randint(1, 28):02d}", "passengers": rnd.randint(1, 4)},
        "book_flight": lambda: {"flight_id": f"LH{rnd.randint(100, 999)}", "passenger_names": ["Ann", "Bo"][: rnd.randint(1, 2)]},
        "get_weather": lambda: {"location": rnd.choice(["Berlin", "Paris", "New York"]), "unit": "celsius"},
        "cancel_booking": lambda: {"booking_id": f"B{rnd.randint(1, 99)}"},
    }[tool]()
    return tool, args


def _perturb(rnd: random.Random, gold: list) -> list:
    pred = []
    for name, args in gold:
        r = rnd.random()
        if r < 0.1:
            continue  # missing call
        args = dict(args)
        if r < 0.3 and args:
            key = rnd.choice(sorted(args))
            args[key] = "WRONG"
        pred.append((name, args))
    if rnd.random() < 0.2:
        pred.append(_call(rnd))  # extra call
    rnd.shuffle(pred)
    return pred


def realistic_corpus(n_episodes: int, seed: int = 0) -> list[tuple[list, list]]:
    rnd = random.Random(seed)
    corpus = []
    for _ in range(n_episodes):
        gold = [_call(rnd) for _ in range(rnd.randint(1, 10))]
        corpus.append((_perturb(rnd, gold), gold))
    return corpus


def _time(fn: Callable[[], object], min_seconds: float = 0.3) -> float:
    """Seconds per run: best of repeated runs lasting at least ``min_seconds`` in total."""
    best = float("inf")
    spent = 0.0
    runs = 0
    while spent < min_seconds or runs < 3:
        t0 = time.perf_counter()
        fn()
        dt = time.perf_counter() - t0
        best = min(best, dt)
        spent += dt
        runs += 1
        if dt > 5:
            break
    return best


def bench_realistic(n_episodes: int) -> None:
    corpus = realistic_corpus(n_episodes)
    n_calls = sum(len(p) + len(g) for p, g in corpus)
    print(f"\n== realistic episodes: {n_episodes} episodes, {n_calls} calls (pred + gold), 1-10 gold calls each")
    print(f"{'level':<6} {'assignment':<10} {'episodes/s':>12} {'calls/s':>12}")
    for level in ("call", "arg"):
        for optimal in (False, True):
            metric = ToolCallMetric(level, optimal=optimal)
            secs = _time(lambda: [metric(p, g) for p, g in corpus])
            name = "optimal" if optimal else "greedy"
            print(f"{level:<6} {name:<10} {n_episodes / secs:>12,.0f} {n_calls / secs:>12,.0f}")


def group(kind: str, n: int, seed: int = 1) -> tuple[list, list]:
    rnd = random.Random(seed)
    if kind == "identical":
        gold = [("search", {"q": "cats", "page": 1})] * n
        return list(gold), gold
    if kind == "reordered":
        gold = [("search", {"q": f"query {i}", "page": i % 7}) for i in range(n)]
        pred = list(gold)
        rnd.shuffle(pred)
        return pred, gold
    # partial overlap: nothing is exact, every pair shares some arguments
    gold = [("search", {"q": f"q{rnd.randint(0, 9)}", "page": rnd.randint(0, 9), "lang": rnd.choice("ab")}) for _ in range(n)]
    pred = [("search", {"q": f"q{rnd.randint(0, 9)}", "page": rnd.randint(0, 9), "lang": "c"}) for _ in range(n)]
    return pred, gold


def bench_groups(sizes: list[int], optimal_limit: int) -> None:
    print("\n== one group of n same-name calls (seconds per group; growth = time(n) / time(previous n))")
    print(f"{'case':<10} {'assignment':<10} " + " ".join(f"{'n=' + str(n):>12}" for n in sizes) + "   growth")
    for kind in ("identical", "reordered", "partial"):
        for optimal in (False, True):
            metric = ToolCallMetric("arg", optimal=optimal)
            times = []
            for n in sizes:
                if optimal and kind == "partial" and n > optimal_limit:
                    times.append(None)
                    continue
                pred, gold = group(kind, n)
                times.append(_time(lambda: metric(pred, gold), min_seconds=0.2))
            cells = " ".join(f"{t:>12.5f}" if t is not None else f"{'(skipped)':>12}" for t in times)
            known = [t for t in times if t is not None]
            growth = " ".join(f"x{b / a:.0f}" for a, b in zip(known, known[1:]))
            print(f"{kind:<10} {'optimal' if optimal else 'greedy':<10} {cells}   {growth}")
    print(f"(optimal on 'partial' beyond n={optimal_limit} is skipped: the Hungarian method is O(n^3) in pure Python)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="smaller sizes, for a smoke run")
    args = parser.parse_args()
    bench_realistic(200 if args.quick else 2000)
    bench_groups([10, 100] if args.quick else [10, 100, 1000], optimal_limit=100 if args.quick else 300)


if __name__ == "__main__":
    main()
