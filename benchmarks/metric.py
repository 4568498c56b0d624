"""``ToolCallMetric(level="arg", canonicalizer="bfcl")`` next to BFCL's own ``ast_checker``, item for item.

Run: ``.venv/bin/python benchmarks/metric.py [--rounds 7] [--quick] [--by-kind] [--data DIR]``

The items are BFCL's 1,000 Python entries (``simple_python``, ``multiple``,
``parallel``, ``parallel_multiple``; from bfcl-eval's data when installed,
else the sample in tests/data/bfcl). Two sets of outputs, both in BFCL's
decoded form ``[{"func": {"arg": value}}]``, fed the same to both sides:

- ``correct``: each entry's ground truth taken as the output (its first
  acceptable value per argument);
- ``wrong``: the mistakes :func:`ek.bfcl.variants.variants` derives from it
  (wrong name, extra/missing/wrong/stringified argument, case, a dropped or
  duplicated call, no call), one output each.

ek does more per item than BFCL's checker: it assigns calls globally, weighs
every unit, validates values against the schema, counts partial credit per
argument and keeps an explanation of every unit (on demand); BFCL's checker
stops at its first error. Each entry's grammar and gold are built once, before
timing (they are per-task, not per-output, work: ``to_grammar`` once per task
schema, however many outputs are scored); their cost is printed apart.

Printed twice: with each tool's validator interpreted (``ek.runtime.lazy``
answers a tool's first ``INTERPRETED_CALLS`` calls with ``ek.grammar.fits``, as
in one pass over BFCL), then after each entry's correct output was scored past
that limit, so every gold tool's validator is compiled (a task scored over and
over: RL, CI); ``--by-kind`` runs in the second state. Then a third time, on
the same outputs written as Python call text (a prompting model's output):
ek's metric reads the text itself (format ``bfcl``, as BFCL's decoder reads
it), BFCL's side decodes it with its decoder before its checker, as BFCL's
evaluation does. The decoded tables are the issue's measure; the text table
is what a user scoring a prompting model's replies meets.

Rounds are interleaved (ek, BFCL, ek, BFCL, ...), each timed in CPU seconds
of this process (``time.process_time``: other load on a shared machine does
not count), and the median round is kept. Without bfcl-eval the peer is
skipped, and said so.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _bfcl_data import PYTHON_CATEGORIES, data_dir, python_text

CORRECT_LABELS = ("first", "random", "reversed", "shuffled")
#: CPU seconds spent in ``ToolCallMetric.prepare`` while building the cases (printed apart, like the setup)
PREPARE_SECONDS = [0.0]


def _fresh(value: Any) -> Any:
    """A deep copy through JSON: neither side sees objects the other touched."""
    return json.loads(json.dumps(value))


def build_cases(data: Path, limit: int | None) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]], float]:
    """(correct cases, wrong cases, seconds spent building grammars and metrics).

    A case is ``(metric, gold, output_for_ek, functions, output_for_bfcl, truth, category, prepared_gold, kind)``,
    ``kind`` the mistake's label (``first`` for a correct output).
    """
    from ek.agents.toolcalls import ToolCallMetric
    from ek.bfcl import load_category
    from ek.bfcl.variants import variants

    correct: list[tuple[Any, ...]] = []
    wrong: list[tuple[Any, ...]] = []
    setup = 0.0
    for category in PYTHON_CATEGORIES:
        path = data / f"BFCL_v4_{category}.json"
        if not path.exists():
            continue
        rng = random.Random(category)
        for episode in load_category(path)[:limit]:
            started = time.process_time()
            metric = ToolCallMetric(level="arg", canonicalizer="bfcl", grammar=episode.grammar(), format="bfcl")
            gold = episode.gold()
            setup += time.process_time() - started
            started = time.process_time()
            prepared = metric.prepare(gold)
            PREPARE_SECONDS[0] += time.process_time() - started
            functions, truth = _fresh(list(episode.functions)), _fresh(list(episode.ground_truth))
            for label, output in variants(episode.functions, episode.ground_truth, category, rng):
                if label == "random" or label in ("reversed", "shuffled"):
                    continue  # correct too, but one correct output per entry keeps the two sets comparable
                case = (metric, gold, _fresh(output), functions, _fresh(output), truth, category, prepared, label)
                (correct if label == "first" else wrong).append(case)
    return correct, wrong, setup


def _run_ek(cases: list[tuple[Any, ...]]) -> None:
    for metric, gold, output, *_ in cases:
        metric(output, gold)


def _run_ek_prepared(cases: list[tuple[Any, ...]]) -> None:
    for metric, _gold, output, *_, prepared, _kind in cases:
        metric(output, prepared)


def _runner_bfcl(oracle: Callable[..., Any],
                 decoder: Callable[[str], Any] | None = None) -> Callable[[list[tuple[Any, ...]]], None]:
    """BFCL's checker over the cases; with ``decoder``, each output (text) decoded by it first, as BFCL's
    evaluation does for a prompting model (an output it cannot decode is invalid, and not checked)."""
    def run(cases: list[tuple[Any, ...]]) -> None:
        for _metric, _gold, _output, functions, output, truth, category, _prepared, _kind in cases:
            oracle(functions, output, truth, category)

    def run_decoded(cases: list[tuple[Any, ...]]) -> None:
        assert decoder is not None
        for _metric, _gold, _output, functions, text, truth, category, _prepared, _kind in cases:
            try:
                decoded = decoder(text)
            except Exception:  # noqa: BLE001, S112 - BFCL's decoder raises anything on text it cannot read
                continue
            oracle(functions, decoded, truth, category)

    return run if decoder is None else run_decoded


def as_text(cases: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """The cases with each output written as the Python call text a prompting model writes
    (``[f(x=1), g(y='a')]``), the same text on both sides; outputs Python cannot spell are left out. ek reads
    the text in the metric's format (``bfcl``: as BFCL's decoder reads it)."""
    out = []
    for metric, gold, _output, functions, decoded, truth, category, prepared, kind in cases:
        text = python_text(decoded)
        if text is None:
            continue
        out.append((metric, gold, text, functions, text, truth, category, prepared, kind))
    return out


def interleaved(runners: dict[str, Callable[[], object]], rounds: int) -> dict[str, float]:
    """Median CPU seconds of each runner over ``rounds`` rounds, the runners taking turns within each round."""
    times: dict[str, list[float]] = {name: [] for name in runners}
    for _ in range(rounds):
        for name, fn in runners.items():
            started = time.process_time()
            fn()
            times[name].append(time.process_time() - started)
    return {name: statistics.median(ts) for name, ts in times.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=7, help="interleaved rounds; the median is kept")
    parser.add_argument("--quick", action="store_true", help="100 entries per category, 3 rounds")
    parser.add_argument("--data", help="BFCL data folder (default: bfcl-eval's, else tests/data/bfcl)")
    parser.add_argument("--by-kind", action="store_true",
                        help="also the wrong outputs per kind of mistake (prepared gold): where the time goes")
    args = parser.parse_args(argv)
    rounds = 3 if args.quick else args.rounds
    data = data_dir(args.data)
    correct, wrong, setup = build_cases(data, 100 if args.quick else None)
    entries = len(correct)
    print(f"data: {data}: {entries} Python entries; {len(correct)} correct outputs, {len(wrong)} wrong outputs")
    print(f"setup (grammar + metric + gold per entry, once per task, not timed below): "
          f"{setup / max(entries, 1) * 1e6:,.0f} us per entry")
    from ek.bfcl.oracle import load_bfcl_checker

    oracle = load_bfcl_checker()
    if oracle is None:
        print("BFCL's ast_checker: skipped (bfcl-eval is not installed: pip install --no-deps bfcl-eval)")
    print(f"prepare (ToolCallMetric.prepare per entry, once per task, not timed below): "
          f"{PREPARE_SECONDS[0] / max(entries, 1) * 1e6:,.1f} us per entry")
    from ek.limits import INTERPRETED_CALLS

    print(f"\nvalidators interpreted (ek.grammar.fits: each tool called fewer than INTERPRETED_CALLS = "
          f"{INTERPRETED_CALLS} times, as in one pass over BFCL)")
    _table(correct, wrong, oracle, rounds)
    started = time.process_time()
    for metric, gold, output, *_ in correct:  # every gold tool past the limit: its validator compiled
        for _ in range(INTERPRETED_CALLS + 1):
            metric(output, gold)
    print(f"\nvalidators compiled (each entry's correct output scored {INTERPRETED_CALLS + 1} times first, "
          f"{time.process_time() - started:.1f} s: the steady state of a task scored over and over, as in RL or CI)")
    _table(correct, wrong, oracle, rounds)
    if args.by_kind and oracle is not None:
        _by_kind(wrong, oracle, rounds)
    from ek.bfcl.oracle import load_bfcl_decoder

    decoder = load_bfcl_decoder() if oracle is not None else None
    print("\nfrom the model's Python call text (a prompting model's output, as BFCL's result files hold it): ek reads "
          "it itself; BFCL's decoder decodes it for its checker (validators compiled, as above)")
    _table(as_text(correct), as_text(wrong), oracle, rounds, decoder)
    return 0


def _table(correct: list[tuple[Any, ...]], wrong: list[tuple[Any, ...]], oracle: Callable[..., Any] | None,
           rounds: int, decoder: Callable[[str], Any] | None = None) -> None:
    """The four rows: correct and wrong outputs, each one-shot and against a prepared gold. ``decoder``: the
    outputs are text, which BFCL's side decodes with it before its checker (:func:`as_text`)."""
    print(f"{'outputs':<23}{'n':>7}{'ek items/s':>13}{'BFCL items/s':>15}{'ek/BFCL':>9}   "
          f"(CPU time, median of {rounds} interleaved rounds)")
    for label, cases in (("correct", correct), ("wrong", wrong)):
        runners: dict[str, Callable[[], object]] = {"ek": lambda c=cases: _run_ek(c),
                                                    "ek-prepared": lambda c=cases: _run_ek_prepared(c)}
        if oracle is not None:
            runners["bfcl"] = lambda c=cases: _runner_bfcl(oracle, decoder)(c)
        medians = interleaved(runners, rounds)
        for runner, how in (("ek", "one-shot"), ("ek-prepared", "prepared gold")):
            ek_rate = len(cases) / medians[runner]
            row = f"{label + ', ' + how:<23}{len(cases):>7}{ek_rate:>13,.0f}"
            if oracle is None:
                print(f"{row}{'skipped':>15}{'':>9}")
                continue
            bfcl_rate = len(cases) / medians["bfcl"]
            print(f"{row}{bfcl_rate:>15,.0f}{ek_rate / bfcl_rate:>8.2f}x")


def _by_kind(wrong: list[tuple[Any, ...]], oracle: Callable[..., Any], rounds: int) -> None:
    """The wrong outputs per kind of mistake, prepared gold against BFCL's checker (interleaved rounds, CPU
    time): microseconds per item on each side, the ratio, and the kind's share of ek's time."""
    kinds: dict[str, list[tuple[Any, ...]]] = {}
    for case in wrong:
        kinds.setdefault(case[-1], []).append(case)
    rows = []
    for kind, cases in sorted(kinds.items()):
        medians = interleaved({"ek": lambda c=cases: _run_ek_prepared(c),
                               "bfcl": lambda c=cases: _runner_bfcl(oracle)(c)}, rounds)
        rows.append((kind, len(cases), medians["ek"], medians["bfcl"]))
    total = sum(ek for _kind, _n, ek, _bfcl in rows) or 1.0
    print(f"\nwrong outputs by kind (prepared gold){'n':>7}{'ek us':>9}{'BFCL us':>9}{'ek/BFCL':>9}{'ek time':>9}")
    for kind, n, ek, bfcl in rows:
        print(f"  {kind:<37}{n:>5}{ek / n * 1e6:>9.1f}{bfcl / n * 1e6:>9.1f}{bfcl / ek:>8.2f}x{ek / total:>8.0%}")


if __name__ == "__main__":
    sys.exit(main())
