"""``ek.bfcl.check`` and ``parse_calls`` next to BFCL's own checker and decoder, in one run.

Run: ``.venv/bin/python benchmarks/bfcl_check.py [--rounds 9] [--quick] [--data DIR]``

Items: BFCL's 1,000 Python items (``simple_python``, ``multiple``,
``parallel``, ``parallel_multiple``) from bfcl-eval's data when it is
installed, else the sample in tests/data/bfcl. Outputs are derived from each
ground truth (:mod:`ek.bfcl.variants`): the gold itself (first acceptable
value of every argument), and its mutations (wrong name, extra, missing or
wrong argument, a value stringified, a call dropped or duplicated).

1. ``check``: ek's :func:`ek.bfcl.check` and BFCL's ``ast_checker`` on the same
   decoded ``[{"func": {...}}]`` outputs, gold-as-output and mutated.
2. ``parse``: :func:`ek.parsing.parse_calls` (formats ``python`` and ``auto``)
   and BFCL's ``default_decode_ast_prompting`` on the same Python call text
   (each output written as ``[f(a=1), g(b='x')]``).

Timing: CPU time (``time.process_time``), so other load on a shared machine
skews it little; ek and the peer alternate within every round (which goes
first alternates too), and the median round of each is compared. The string
standardisation cache is cleared before every ek round, so each round pays
for its strings as a first sight would. Each ratio is ek items/s over the
peer's (> 1: ek is faster). Without bfcl-eval, the peer is reported skipped.
"""

from __future__ import annotations

import argparse
import copy
import gc
import importlib.util
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CATEGORIES = ("simple_python", "multiple", "parallel", "parallel_multiple")
#: Labels of :func:`ek.bfcl.variants.variants` that are mistakes (the others are right answers written otherwise).
MUTATIONS = frozenset({"wrong_name", "extra_param", "missing_param", "wrong_value", "stringified",
                       "dropped_call", "duplicated_call", "no_calls"})

Case = tuple[Any, Any, Any, str]  # functions, decoded output, ground truth, category


def data_dir(explicit: str | None) -> Path:
    """``--data``, else bfcl-eval's bundled data, else the sample in tests/data/bfcl."""
    if explicit:
        return Path(explicit)
    spec = importlib.util.find_spec("bfcl_eval")
    if spec is not None and spec.origin is not None:
        return Path(spec.origin).parent / "data"
    return ROOT / "tests" / "data" / "bfcl"


def load_items(data: Path) -> list[tuple[str, Any, Any]]:
    """``(category, question, answer)`` for every Python item of the four AST categories."""
    from ek.bfcl import pair_up, read_possible_answers, read_questions

    out = []
    for category in CATEGORIES:
        q = data / f"BFCL_v4_{category}.json"
        a = data / "possible_answer" / f"BFCL_v4_{category}.json"
        if q.exists() and a.exists():
            out += [(category, qe, ae) for qe, ae in pair_up(read_questions(q), read_possible_answers(a))]
    return out


def build_cases(items: list[tuple[str, Any, Any]]) -> tuple[list[Case], list[Case]]:
    """Gold-as-output cases and mutated cases, as plain JSON-decoded data (what a user hands both checkers)."""
    import random

    from ek.bfcl.variants import variants

    rng = random.Random(0)
    gold: list[Case] = []
    mutated: list[Case] = []
    for category, question, answer in items:
        functions = json.loads(json.dumps(question.functions))
        truth = json.loads(json.dumps(answer.ground_truth))
        for label, output in variants(question.functions, answer.ground_truth, category, rng):
            case = (functions, json.loads(json.dumps(output)), truth, category)
            if label == "first":
                gold.append(case)
            elif label in MUTATIONS:
                mutated.append(case)
    return gold, mutated


def python_texts(cases: list[Case]) -> list[str]:
    """Each output as the Python call text a prompted model writes (outputs Python cannot spell are left out)."""
    from ek.calls import Step
    from ek.parsing import to_python

    texts = []
    for _, output, _, _ in cases:
        try:
            texts.append(to_python([Step(name, args) for call in output for name, args in call.items()]))
        except ValueError:
            continue
    return texts


def _timed(run: Callable[[], object]) -> float:
    gc.collect()
    start = time.process_time()
    run()
    return time.process_time() - start


def compare(label: str, n: int, ours: Callable[[], object], peer: Callable[[], object] | None, rounds: int,
            before_ours: Callable[[], object] = lambda: None) -> float | None:
    """Alternate ``ours`` and ``peer`` for ``rounds`` rounds; print the medians and return the speed ratio."""
    ours_times: list[float] = []
    peer_times: list[float] = []
    for r in range(rounds):
        order = ("ours", "peer") if r % 2 == 0 else ("peer", "ours")
        for who in order:
            if who == "ours":
                before_ours()
                ours_times.append(_timed(ours))
            elif peer is not None:
                peer_times.append(_timed(peer))
    ours_median = statistics.median(ours_times)
    line = f"  {label:<44}{n:>7,}{n / ours_median:>12,.0f}"
    if peer is None:
        print(line + f"{'skipped':>12}")
        return None
    peer_median = statistics.median(peer_times)
    ratio = peer_median / ours_median
    print(line + f"{n / peer_median:>12,.0f}{ratio:>8.2f}x")
    return ratio


def _each(fn: Callable[..., object], cases: list[Any]) -> Callable[[], None]:
    def run() -> None:
        for case in cases:
            fn(*case)

    return run


def _each_text(fn: Callable[[str], object], texts: list[str]) -> Callable[[], None]:
    def run() -> None:
        for text in texts:
            fn(text)

    return run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=9, help="interleaved rounds per measurement (median kept)")
    parser.add_argument("--quick", action="store_true", help="3 rounds on every 5th item: a smoke run")
    parser.add_argument("--data", help="BFCL data folder (default: bfcl-eval's, else tests/data/bfcl)")
    args = parser.parse_args(argv)

    from ek.bfcl import check
    from ek.bfcl.oracle import load_bfcl_checker, load_bfcl_decoder
    from ek.canon import bfcl as standardize
    from ek.parsing import parse_calls

    data = data_dir(args.data)
    items = load_items(data)
    rounds = 3 if args.quick else args.rounds
    if args.quick:
        items = items[::5]
    gold, mutated = build_cases(items)
    oracle, decoder = load_bfcl_checker(), load_bfcl_decoder()
    print(f"data: {data} ({len(items)} items: {', '.join(CATEGORIES)})")
    print(f"python {sys.version.split()[0]}; {rounds} interleaved rounds, CPU time, median round")
    if oracle is None or decoder is None:
        print("BFCL's checker/decoder: skipped (pip install --no-deps bfcl-eval to compare)")

    header = f"  {'':<44}{'items':>7}{'ek/s':>12}{'BFCL/s':>12}{'ek/BFCL':>9}"
    print("\nek.bfcl.check vs BFCL's ast_checker (same decoded outputs)")
    print(header)
    for label, cases in (("gold as output", gold), ("mutated outputs", mutated)):
        ours_cases = copy.deepcopy(cases)  # each side its own copy: neither sees the other's objects
        peer_cases = copy.deepcopy(cases)
        compare(label, len(cases), _each(check, ours_cases), _each(oracle, peer_cases) if oracle else None,
                rounds, standardize.cache_clear)

    print("\nparse_calls vs BFCL's default_decode_ast_prompting (same Python call text)")
    print(header)
    for label, cases in (("gold as output", gold), ("mutated outputs", mutated)):
        texts = python_texts(cases)
        for fmt in ("python", "auto"):
            compare(f"{label}, format={fmt!r}", len(texts), _each_text(lambda t, f=fmt: parse_calls(t, f), texts),
                    _each_text(decoder, texts) if decoder else None, rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
