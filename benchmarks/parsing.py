"""Parsing throughput per output format, and ek.bfcl.check next to BFCL's own checker.

Run: ``.venv/bin/python benchmarks/parsing.py [--repeat 3] [--data DIR]``

1. ``parse_calls`` on the calls of real BFCL ground truths rendered in every
   format (Python text, OpenAI/Anthropic/JSON/BFCL as text and as decoded
   objects), in calls per second, next to the bare parser with no safety
   checks (``ast.parse`` / ``json.loads``) on the same inputs: the ratio is
   the price of the limits, literal checks and shape reading.
2. ``ek.bfcl.check`` vs BFCL's ``ast_checker`` on the same decoded outputs
   (right answers and typical mistakes derived from the ground truths), when
   ``bfcl-eval`` is importable; skipped otherwise.
"""

from __future__ import annotations

import argparse
import ast
import json
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CATEGORIES = ("simple_python", "multiple", "parallel", "parallel_multiple", "live_simple", "live_multiple",
              "live_parallel", "live_parallel_multiple")


def _best(fn: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def _each(fn: Callable[[Any], object], items: list[Any]) -> None:
    """Call ``fn`` on every item, keeping no results (so no run pays for another's garbage)."""
    for item in items:
        fn(item)


def _data_dir(explicit: str | None) -> Path:
    if explicit:
        return Path(explicit)
    import importlib.util

    spec = importlib.util.find_spec("bfcl_eval")
    if spec is not None and spec.origin is not None:
        return Path(spec.origin).parent / "data"
    return ROOT / "tests" / "data" / "bfcl"


def _entries(data: Path) -> list[tuple[str, Any, Any]]:
    from ek.bfcl import pair_up, read_possible_answers, read_questions

    out = []
    for category in CATEGORIES:
        q = data / f"BFCL_v4_{category}.json"
        a = data / "possible_answer" / f"BFCL_v4_{category}.json"
        if q.exists() and a.exists():
            out += [(category, qe, ae) for qe, ae in pair_up(read_questions(q), read_possible_answers(a))]
    return out


def bench_parsing(entries: list[tuple[str, Any, Any]], repeat: int) -> None:
    from ek.agents.base import Step
    from ek.bfcl.variants import correct_output
    from ek.parsing import RENDERERS, parse_calls

    rng = random.Random(0)
    outputs: list[list[Step]] = []
    for _, _, answer in entries:
        decoded = correct_output(answer.ground_truth, rng, first=True)
        steps = [Step(name, args) for call in decoded for name, args in call.items()]
        try:
            RENDERERS["python"](steps)
        except ValueError:
            continue  # names Python syntax cannot write (e.g. "get-weather")
        outputs.append(steps)
    n_calls = sum(len(o) for o in outputs)
    print(f"parse_calls: {len(outputs)} outputs, {n_calls} calls (BFCL ground truths)")
    print(f"  {'format':<22}{'ek calls/s':>14}{'bare calls/s':>15}{'ek/bare':>9}   bare parser")
    for fmt, render in RENDERERS.items():
        rendered = [render(o) for o in outputs]
        texts = rendered if fmt == "python" else [json.dumps(r) for r in rendered]
        bare: Callable[[str], object] = ast.parse if fmt == "python" else json.loads
        ek_text = _best(lambda: _each(lambda t: parse_calls(t, fmt), texts), repeat)
        bare_text = _best(lambda: _each(bare, texts), repeat)
        print(f"  {fmt + ' (text)':<22}{n_calls / ek_text:>14,.0f}{n_calls / bare_text:>15,.0f}"
              f"{bare_text / ek_text:>9.2f}   {bare.__module__}.{bare.__name__}")
        if fmt != "python":
            ek_obj = _best(lambda: _each(lambda r: parse_calls(r, fmt), rendered), repeat)
            print(f"  {fmt + ' (decoded)':<22}{n_calls / ek_obj:>14,.0f}{'':>15}{'':>9}")
    auto_texts = [RENDERERS["python"](o) for o in outputs]
    auto = _best(lambda: _each(parse_calls, auto_texts), repeat)
    print(f"  {'auto (python text)':<22}{n_calls / auto:>14,.0f}")


def bench_check(entries: list[tuple[str, Any, Any]], repeat: int) -> None:
    from ek.bfcl import check
    from ek.bfcl.oracle import load_bfcl_checker
    from ek.bfcl.variants import variants

    rng = random.Random(1)
    cases = []
    for category, question, answer in entries:
        functions = json.loads(json.dumps(question.functions))
        truth = json.loads(json.dumps(answer.ground_truth))
        for _, output in variants(question.functions, answer.ground_truth, category, rng):
            cases.append((functions, json.loads(json.dumps(output)), truth, category))
    ek_time = _best(lambda: [check(f, o, t, c) for f, o, t, c in cases], repeat)
    print(f"\nek.bfcl.check: {len(cases)} decoded outputs: {len(cases) / ek_time:,.0f} checks/s")
    oracle = load_bfcl_checker()
    if oracle is None:
        print("  BFCL's ast_checker: skipped (pip install --no-deps bfcl-eval to compare)")
        return
    bfcl_time = _best(lambda: [oracle(f, o, t, c) for f, o, t, c in cases], repeat)
    print(f"  BFCL's ast_checker: {len(cases) / bfcl_time:,.0f} checks/s; ek/BFCL speed ratio {bfcl_time / ek_time:.2f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement; the best is kept")
    parser.add_argument("--data", help="BFCL data folder (default: bfcl-eval's, else tests/data/bfcl)")
    args = parser.parse_args(argv)
    data = _data_dir(args.data)
    entries = _entries(data)
    print(f"data: {data} ({len(entries)} entries)")
    bench_parsing(entries, args.repeat)
    bench_check(entries, args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
