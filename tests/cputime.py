"""CPU time of calls, for the tests that hold a cost to its growth: a ratio of two sizes, never a time."""

from __future__ import annotations

import gc
import math
import time
from collections.abc import Callable


def cpu_per_call(fn: Callable[[], object], fill: float = 0.1) -> float:
    """CPU time of one call of ``fn``: the mean over as many calls as fill ``fill`` seconds."""
    calls, started = 0, time.process_time()
    while True:
        fn()
        calls += 1
        took = time.process_time() - started
        if took >= fill:
            return took / calls


def growth(small: Callable[[], object], large: Callable[[], object], rounds: int = 5) -> float:
    """How many times the CPU time of ``small`` one call of ``large`` takes: the least of each over ``rounds``
    rounds taken in turn (the least: a round the machine's other work slowed down says nothing about the code,
    and taking them in turn spreads such a stretch over both sizes)."""
    best_small = best_large = math.inf
    collecting = gc.isenabled()
    gc.collect()
    gc.disable()  # a full collection's cost is the whole test session's heap, not the code measured
    try:
        for _ in range(rounds):
            best_small = min(best_small, cpu_per_call(small))
            best_large = min(best_large, cpu_per_call(large))
    finally:
        if collecting:
            gc.enable()
    return best_large / best_small
