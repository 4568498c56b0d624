"""Parsing throughput per output format, and ek.bfcl.check next to BFCL's own checker.

Run: ``.venv/bin/python benchmarks/parsing.py [--repeat 3] [--data DIR]``

1. ``parse_calls`` on the calls of real BFCL ground truths rendered in every
   format (Python text, OpenAI/Anthropic/JSON/BFCL as text and as decoded
   objects), in calls per second, next to the bare parser with no safety
   checks (``ast.parse`` / ``json.loads``) on the same inputs: the ratio is
   the price of the limits, literal checks and shape reading.
2. ``ek.bfcl.check`` vs BFCL's ``ast_checker`` on the same decoded outputs
   (right answers and typical mistakes derived from the ground truths), when
   ``bfcl-eval`` is importable; skipped otherwise. Then the same on Python
   text, ek's check against BFCL's prompting decoder plus its checker.
3. Hostile outputs at the 1 MB size limit (huge strings, unterminated
   literals, 100k-deep nesting, operator chains, 140k calls): milliseconds
   each next to the bare parser, to show the work stays linear and bounded.
"""

from __future__ import annotations

import argparse
import ast
import json
import random
import sys
import time
from collections.abc import Callable
from typing import Any

from _bfcl_data import data_dir, load_items, python_text

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


def bench_parsing(entries: list[tuple[str, Any, Any]], repeat: int) -> None:
    from ek.bfcl.variants import correct_output
    from ek.calls import Step
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
    for fmt in ("python", "openai", "anthropic", "json", "bfcl"):  # the JSON-or-Python formats timed against bare
        render = RENDERERS[fmt]
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


def _hostile_outputs() -> dict[str, tuple[str, str]]:
    """Outputs just under the 1,000,000-character limit, each built to make a parser work hard: (text, format)."""
    nested = "[" * 30 + "1" + "]" * 30
    return {
        "one 1 MB string": ("f(x='" + "a" * 999_000 + "')", "python"),
        "unterminated 1 MB string": ("f(x='" + "\\'" * 499_000, "python"),
        "1 MB of brackets in a string": ("f(x='" + "[" * 999_000 + "')", "python"),
        "100k-deep brackets": ("f(x=" + "[" * 100_000 + "]" * 100_000 + ")", "python"),
        "1 MB operator chain -----1": ("f(x=" + "-" * 999_000 + "1)", "python"),
        "15k lists 30 deep": ("f(x=[" + ",".join([nested] * 15_000) + "])", "python"),
        "140k calls": ("[" + ",".join(["f(x=1)"] * 140_000) + "]", "python"),
        "1 MB JSON string of quotes": ('[{"f": {"x": "' + '\\"' * 499_000 + '"}}]', "bfcl"),
        "100k-deep JSON": ('[{"f": {"x": ' + "[" * 100_000 + "]" * 100_000 + "}}]", "bfcl"),
        "JSON object of 60k keys": ('[{"f": {' + ",".join(f'"k{i}": {i}' for i in range(60_000)) + "}}]", "bfcl"),
    }


def bench_hostile(repeat: int) -> None:
    from ek.parsing import ParseError, parse_calls

    print("\nworst cases at the size limit (ms each; the bare parser checks nothing, and may crash)")
    print(f"  {'output':<32}{'chars':>10}{'ek ms':>9}{'bare ms':>9}   ek's outcome")
    for label, (text, fmt) in _hostile_outputs().items():
        bare: Callable[[str], object] = ast.parse if fmt == "python" else json.loads
        outcome = ""

        def ours() -> None:
            nonlocal outcome
            try:
                outcome = f"{len(parse_calls(text, fmt))} call(s)"
            except ParseError as exc:
                outcome = "ParseError: " + exc.reason[:40]

        def theirs() -> None:
            try:
                bare(text)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                pass

        ek_time, bare_time = _best(ours, repeat), _best(theirs, repeat)
        print(f"  {label:<32}{len(text):>10,}{ek_time * 1000:>9.0f}{bare_time * 1000:>9.0f}   {outcome}")


def bench_check_text(entries: list[tuple[str, Any, Any]], repeat: int) -> None:
    from ek.bfcl import check
    from ek.bfcl.oracle import load_bfcl_checker, load_bfcl_decoder
    from ek.bfcl.variants import variants
    rng = random.Random(2)
    cases = []
    for category, question, answer in entries:
        if "java" in category:
            continue
        functions = json.loads(json.dumps(question.functions))
        truth = json.loads(json.dumps(answer.ground_truth))
        for _, output in variants(question.functions, answer.ground_truth, category, rng):
            text = python_text(output)
            if text is not None:
                cases.append((functions, text, truth, category))
    ek_time = _best(lambda: [check(f, o, t, c) for f, o, t, c in cases], repeat)
    print(f"\nek.bfcl.check on Python text: {len(cases)} outputs: {len(cases) / ek_time:,.0f} checks/s")
    oracle, decode = load_bfcl_checker(), load_bfcl_decoder()
    if oracle is None or decode is None:
        print("  BFCL's decoder + ast_checker: skipped (pip install --no-deps bfcl-eval to compare)")
        return

    def bfcl_run(functions: Any, text: str, truth: Any, category: str) -> object:
        try:
            return oracle(functions, decode(text), truth, category)
        except Exception:  # noqa: BLE001 - BFCL's decoder raises anything on text it cannot read
            return None

    bfcl_time = _best(lambda: [bfcl_run(f, o, t, c) for f, o, t, c in cases], repeat)
    print(f"  BFCL's decoder + ast_checker: {len(cases) / bfcl_time:,.0f} checks/s; "
          f"ek/BFCL speed ratio {bfcl_time / ek_time:.2f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement; the best is kept")
    parser.add_argument("--data", help="BFCL data folder (default: bfcl-eval's, else tests/data/bfcl)")
    parser.add_argument("--quick", action="store_true", help="one run per measurement: a smoke run")
    args = parser.parse_args(argv)
    if args.quick:
        args.repeat = 1
    data = data_dir(args.data)
    entries = load_items(data, CATEGORIES)
    print(f"data: {data} ({len(entries)} entries)")
    bench_parsing(entries, args.repeat)
    bench_check(entries, args.repeat)
    bench_check_text(entries, args.repeat)
    bench_hostile(args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
