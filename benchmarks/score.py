"""``ek score`` end to end: episodes per second and peak memory at 1k, 10k and 100k episodes, and how they grow.

Run: ``.venv/bin/python benchmarks/score.py [--sizes 1000 10000 100000] [--quick]``

Each measurement is a fresh subprocess (so peak RSS is that run's alone):

- ``stream``: the real runner behind ``ek score`` (one process, travel grammar,
  JSON + HTML reports built): memory should stay flat as the corpus grows.
- ``stream-jobs2``: the same with ``--jobs 2`` (identical results).
- ``naive``: the peer a user would write first: read every line into a list
  and call :func:`ek.scorer.evaluation.evaluate` with ``keep="explanations"``; its
  memory grows with the corpus.

Printed: episodes/s (wall clock, and per CPU-second, which other load on a
shared machine does not skew), peak RSS above the interpreter's baseline, and
the growth ratios 10k/1k and 100k/10k (1.0 = flat; 10.0 = linear).
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
GRAMMAR = REPO / "schemas" / "travel-v2.ek"
AIRPORTS = ["SFO", "JFK", "LHR", "CDG", "NRT", "BOS", "ORD", "MIA", "DEN", "SEA"]
CITIES = ["Paris", "Rome", "Oslo", "Lima", "Tokyo", "Cairo", "Quito", "Accra"]


def _episode(rng: random.Random, i: int) -> dict[str, object]:
    """One realistic line: 1-3 gold calls, output in Python, OpenAI or Anthropic shape, ~30% with a mistake."""
    gold = []
    origin, dest = rng.sample(AIRPORTS, 2)
    date = f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
    gold.append(("search_flights", {"origin": origin, "destination": dest, "date": date}))
    if rng.random() < 0.6:
        gold.append(("get_weather", {"location": rng.choice(CITIES)}))
    if rng.random() < 0.3:
        gold.append(("book_flight", {"flight_id": f"UA{rng.randint(1, 999)}", "passenger_names": ["Ann Lee"]}))
    pred = [(n, dict(a)) for n, a in gold]
    roll = rng.random()
    if roll < 0.1:
        pred[0][1]["date"] = "2025-13-40"
    elif roll < 0.2:
        pred.pop()
    elif roll < 0.3:
        pred.append(("get_weather", {"location": "Nowhere"}))
    shape = i % 3
    if shape == 0:
        out: object = "[" + ", ".join(f"{n}({', '.join(f'{k}={v!r}' for k, v in a.items())})" for n, a in pred) + "]"
    elif shape == 1:
        out = {"role": "assistant", "content": None, "tool_calls": [
            {"id": f"c{k}", "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
            for k, (n, a) in enumerate(pred)]}
    else:
        out = [{"type": "tool_use", "id": f"t{k}", "name": n, "input": a} for k, (n, a) in enumerate(pred)]
    return {"id": f"ep-{i}", "pred": out, "gold": [{"name": n, "arguments": a} for n, a in gold]}


def write_corpus(path: Path, n: int, seed: int = 0) -> None:
    rng = random.Random(seed)
    with open(path, "w", encoding="utf-8") as out:
        out.writelines(json.dumps(_episode(rng, i)) + "\n" for i in range(n))


def _cpu() -> float:
    """CPU seconds of this process and its finished children (worker processes of --jobs)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def _child(mode: str, corpus: str, workdir: str) -> None:
    """Runs inside the measured subprocess; prints one JSON line."""
    from ek.corpus.runner import RunOptions, run

    baseline = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    cpu0 = _cpu()
    started = time.perf_counter()
    if mode == "naive":
        from ek.agents.toolcalls import ToolCallMetric
        from ek.goldjson import gold_from_json
        from ek.scorer.evaluation import evaluate

        with open(corpus, encoding="utf-8") as lines:
            rows = [json.loads(line) for line in lines]
        metric = ToolCallMetric(grammar=str(GRAMMAR))
        report = evaluate(metric, [(r["id"], r["pred"] if not isinstance(r["pred"], list) else json.dumps(r["pred"]),
                                    gold_from_json(r["gold"])) for r in rows], keep="explanations")
        episodes, f1 = report.episodes, report.f1
    else:
        from ek.report.html import write_html
        from ek.report.jsonreport import build_report, write_json

        options = RunOptions(grammar=str(GRAMMAR), keep_details=200)
        result = run(corpus, options, jobs=2 if mode == "stream-jobs2" else 1)
        report = build_report(result, options)
        write_json(report, f"{workdir}/r.json")
        write_html(report, result.summary.worst(200), f"{workdir}/r.html")
        episodes, f1 = result.summary.episodes, report["overall"]["f1"]
    seconds = time.perf_counter() - started
    cpu = _cpu() - cpu0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # largest worker process (--jobs 2)
    print(json.dumps({"seconds": seconds, "cpu": cpu, "episodes": episodes, "f1": f1, "baseline_kb": baseline,
                      "peak_kb": peak, "worker_peak_kb": workers}))


def measure(mode: str, corpus: Path, workdir: Path) -> dict[str, float]:
    proc = subprocess.run([sys.executable, __file__, "--child", mode, str(corpus), str(workdir)],
                          capture_output=True, text=True, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument("--quick", action="store_true", help="sizes 1k, 5k, 25k")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(*args.child)
        return
    sizes = [1_000, 5_000, 25_000] if args.quick else args.sizes
    import os

    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at start "
          f"(--jobs 2 can only help when two cores are free)")
    modes = ["stream", "stream-jobs2", "naive"]
    results: dict[str, list[dict[str, float]]] = {m: [] for m in modes}
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            corpus = Path(tmp) / f"corpus-{n}.jsonl"
            write_corpus(corpus, n)
            for mode in modes:
                r = measure(mode, corpus, Path(tmp))
                results[mode].append(r)
                workers = f", largest worker {r['worker_peak_kb'] / 1024:.0f} MiB" if r["worker_peak_kb"] else ""
                print(f"{mode:>13} {n:>8,} episodes: {r['episodes'] / r['seconds']:>8,.0f} episodes/s "
                      f"({r['episodes'] / max(r['cpu'], 1e-9):>6,.0f} per CPU-second), "
                      f"peak RSS +{(r['peak_kb'] - r['baseline_kb']) / 1024:7.1f} MiB{workers} "
                      f"(F1 {r['f1']:.4f})", flush=True)
    print("\ngrowth between sizes (memory: peak RSS above baseline; 1.0 = flat, size ratio = linear)")
    for mode in modes:
        rows = results[mode]
        for (a, ra), (b, rb) in zip(zip(sizes, rows), zip(sizes[1:], rows[1:])):
            mem_a = max(ra["peak_kb"] - ra["baseline_kb"], 1)
            mem_b = max(rb["peak_kb"] - rb["baseline_kb"], 1)
            rate_a, rate_b = ra["episodes"] / ra["seconds"], rb["episodes"] / rb["seconds"]
            print(f"{mode:>13} {a:>7,} -> {b:>7,} (x{b / a:g}): memory x{mem_b / mem_a:5.2f}, "
                  f"throughput x{rate_b / rate_a:4.2f}")
    last = {m: results[m][-1] for m in modes}
    grown = {m: max(last[m]["peak_kb"] - last[m]["baseline_kb"], 1) for m in modes}
    speedup = last["stream"]["seconds"] / last["stream-jobs2"]["seconds"]
    print(f"\nat {sizes[-1]:,} episodes: naive uses x{grown['naive'] / grown['stream']:.1f} the memory of ek score; "
          f"--jobs 2 runs at x{speedup:.2f} the speed of one process")


if __name__ == "__main__":
    main()
