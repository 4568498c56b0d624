"""``ek.bfcl.check`` and ``parse_calls`` next to BFCL's own checker and decoder, in one run.

Run: ``.venv/bin/python benchmarks/bfcl_check.py [--rounds 9] [--quick] [--data DIR]``

Items: BFCL's 1,000 Python items (``simple_python``, ``multiple``,
``parallel``, ``parallel_multiple``) from bfcl-eval's data when it is
installed, else the sample in tests/data/bfcl. Outputs are derived from each
ground truth (:mod:`ek.bfcl.variants`): the gold itself (first acceptable
value of every argument), and its mutations (wrong name, extra, missing or
wrong argument, a value stringified, a call dropped or duplicated).

1. ``check``: ek and BFCL's ``ast_checker`` on the same decoded
   ``[{"func": {...}}]`` outputs, gold-as-output and mutated. ek checks each
   output with its entry prepared once (:func:`ek.bfcl.prepare`, per task
   like building a grammar: timed apart and printed as the setup line, not
   in the items/s), then ``entry.check(output)``: the decoding, validation
   and checking of every output are timed. One more line each times the
   one-shot ``ek.bfcl.check(functions, output, answer, category)``, which
   prepares nothing.
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
import gc
import json
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from _bfcl_data import PYTHON_CATEGORIES, data_dir, load_items, python_text

#: Labels of :func:`ek.bfcl.variants.variants` that are mistakes (the others are right answers written otherwise).
MUTATIONS = frozenset({"wrong_name", "extra_param", "missing_param", "wrong_value", "stringified",
                       "dropped_call", "duplicated_call", "no_calls"})

Case = tuple[Any, Any, Any, str]  # functions, decoded output, ground truth, category


def build_cases(items: list[tuple[str, Any, Any]], kinds: list[str] | None = None) -> tuple[list[Case], list[Case]]:
    """Gold-as-output cases and mutated cases, as plain JSON-decoded data (what a user hands both checkers);
    ``kinds`` (when given) gets each mutated case's kind of mistake, in order."""
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
                if kinds is not None:
                    kinds.append(label)
    return gold, mutated


def prepare_entries(cases: list[Case], prepare: Callable[..., Any]) -> tuple[dict[int, Any], float]:
    """The cases' entries, each :func:`ek.bfcl.prepare` d once (by the id of its ground truth), and their CPU time.

    Per task, not per output: an entry is prepared once and then checks all of its outputs.
    """
    entries: dict[int, Any] = {}
    spent = 0.0
    for functions, _, truth, category in cases:
        if id(truth) not in entries:
            start = time.process_time()
            entries[id(truth)] = prepare(functions, truth, category)
            spent += time.process_time() - start
    return entries, spent


def python_texts(cases: list[Case]) -> list[str]:
    """Each output as the Python call text a prompted model writes (outputs Python cannot spell are left out)."""
    return [text for _, output, _, _ in cases if (text := python_text(output)) is not None]


#: Items per slice: ek and the peer alternate slice by slice, so a burst of load on the shared machine falls on both.
SLICE = 50


def compare(label: str, cases: list[Any], ours: Callable[..., object], peer: Callable[..., object] | None,
            rounds: int, before_round: Callable[[], object] = lambda: None) -> float | None:
    """Time ``ours`` and ``peer`` on the same ``cases`` (neither changes them); print items/s, return the ratio.

    Every round runs both over all cases, alternating slice by slice (and who
    goes first alternates too); each side's CPU time is summed over its slices.
    ``before_round`` runs before each round (outside the timing).
    """
    slices = [cases[i:i + SLICE] for i in range(0, len(cases), SLICE)]
    sides = [("ours", ours)] + ([("peer", peer)] if peer is not None else [])
    totals: dict[str, list[float]] = {"ours": [], "peer": []}
    clock = time.process_time
    for r in range(rounds):
        before_round()
        gc.collect()
        spent = dict.fromkeys(totals, 0.0)
        for k, chunk in enumerate(slices):
            for who, fn in sides if (r + k) % 2 == 0 else sides[::-1]:
                start = clock()
                for case in chunk:
                    fn(*case)
                spent[who] += clock() - start
        for who, _ in sides:
            totals[who].append(spent[who])
    n = len(cases)
    ours_median = statistics.median(totals["ours"])
    line = f"  {label:<44}{n:>7,}{n / ours_median:>12,.0f}"
    if peer is None:
        print(line + f"{'skipped':>12}")
        return None
    peer_median = statistics.median(totals["peer"])
    ratio = peer_median / ours_median
    print(line + f"{n / peer_median:>12,.0f}{ratio:>8.2f}x")
    return ratio


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=9, help="interleaved rounds per measurement (median kept)")
    parser.add_argument("--quick", action="store_true", help="3 rounds on every 5th item: a smoke run")
    parser.add_argument("--data", help="BFCL data folder (default: bfcl-eval's, else tests/data/bfcl)")
    parser.add_argument("--by-kind", action="store_true",
                        help="also the mutated outputs by kind of mistake (prepared entries), each group timed apart")
    args = parser.parse_args(argv)

    from ek.bfcl import check, prepare
    from ek.bfcl.oracle import load_bfcl_checker, load_bfcl_decoder
    from ek.canon import bfcl as standardize
    from ek.parsing import parse_calls

    data = data_dir(args.data)
    items = load_items(data)
    rounds = 3 if args.quick else args.rounds
    if args.quick:
        items = items[::5]
    kinds: list[str] = []
    gold, mutated = build_cases(items, kinds)
    oracle, decoder = load_bfcl_checker(), load_bfcl_decoder()
    print(f"data: {data} ({len(items)} items: {', '.join(PYTHON_CATEGORIES)})")
    print(f"python {sys.version.split()[0]}; {rounds} interleaved rounds, CPU time, median round")
    if oracle is None or decoder is None:
        print("BFCL's checker/decoder: skipped (pip install --no-deps bfcl-eval to compare)")

    header = f"  {'':<44}{'items':>7}{'ek/s':>12}{'BFCL/s':>12}{'ek/BFCL':>9}"
    standardize.cache_clear()  # the entries' strings standardised at first sight, as a new task's would be
    gc.collect()
    entries, setup = prepare_entries(gold + mutated, prepare)
    print(f"\nsetup (ek.bfcl.prepare per entry, once per task, not timed below): {len(entries):,} entries, "
          f"{setup / max(len(entries), 1) * 1e6:,.1f} us per entry")
    print("ek.bfcl.check vs BFCL's ast_checker (same decoded outputs)")
    print(header)
    peer = None if oracle is None else lambda functions, output, truth, category, entry: oracle(
        functions, output, truth, category)
    for label, cases in (("gold as output", gold), ("mutated outputs", mutated)):
        with_entries = [(*case, entries[id(case[2])]) for case in cases]
        compare(f"{label}, prepared entry", with_entries, lambda functions, output, truth, category, entry:
                entry.check(output), peer, rounds, standardize.cache_clear)
    for label, cases in (("gold as output", gold), ("mutated outputs", mutated)):
        compare(f"{label}, one-shot check()", cases, check, oracle, rounds, standardize.cache_clear)
    if args.by_kind:
        print("\nmutated outputs by kind of mistake, prepared entries (each group timed apart: less cache "
              "locality than the whole set)")
        print(header)
        groups: dict[str, list[Any]] = {}
        for kind, case in zip(kinds, mutated, strict=True):
            groups.setdefault(kind, []).append((*case, entries[id(case[2])]))
        groups["all but a wrong call count"] = [case for kind, cases in groups.items()
                                                if kind not in ("dropped_call", "duplicated_call") for case in cases]
        for kind, cases in groups.items():
            compare(kind, cases, lambda functions, output, truth, category, entry: entry.check(output), peer,
                    rounds, standardize.cache_clear)

    print("\nparse_calls vs BFCL's default_decode_ast_prompting (same Python call text)")
    print(header)
    for label, cases in (("gold as output", gold), ("mutated outputs", mutated)):
        texts = [(text,) for text in python_texts(cases)]
        for fmt in ("python", "auto"):
            compare(f"{label}, format={fmt!r}", texts, lambda t, f=fmt: parse_calls(t, f), decoder, rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
