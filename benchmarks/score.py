"""``ek score`` end to end: next to BFCL's own loop, and episodes per second and peak memory as the corpus grows.

Run: ``.venv/bin/python benchmarks/score.py [--sizes 1000 10000 100000] [--peer-size 100000] [--rounds 3]
[--layouts rows passes one-run] [--result-forms text fc] [--quick]``

1. Against BFCL (when bfcl-eval is installed; skipped, and said so, otherwise): a
   BFCL result file (``{"id", "result"}`` lines, from BFCL's
   1,000 Python entries, ``n / 1,000`` samples of each: the right answer, or one
   of the typical mistakes of :func:`ek.bfcl.variants.variants`), in three
   layouts (``--layouts``): ``rows``, each entry's samples in a row; ``passes``,
   the same lines pass after pass (result files of several runs, concatenated);
   ``one-run``, one line per entry (one BFCL run's result file, where every line
   is a new question and the setup per question counts most); each result written
   (``--result-forms``) as a prompting model's Python call text (``text``, the default) or
   as BFCL saves a function-calling model's calls, ``[{"f": "<JSON arguments>"}]`` (``fc``:
   BFCL's loop then decodes each call's arguments with ``json.loads``, as its FC handlers
   do, instead of its Python decoder); scored by

   - ``ek``: the ``ek score`` command, ``ek score --format bfcl --bfcl-answers A
     --bfcl-questions Q --canonicalizer bfcl --level arg --json --html`` run by
     ``ek.cli.main`` as the console script runs it (its settings for a process
     of its own, :mod:`ek.batchgc`, included; one process; the table it prints
     and both reports written). The modules the command uses are imported
     before the clock starts (start-up is not what is compared), as BFCL's
     checker and decoder are for its loop (``COMMAND_MODULES``, ``ORACLES``);
   - ``ek-jobs2``: the same with ``--jobs 2``;
   - ``bfcl-loop``: the plain loop a BFCL user runs: per line ``json.loads``,
     BFCL's decoder (``default_decode_ast_prompting``) and its ``ast_checker``,
     counting the valid ones.
   - ``bfcl-loop-jobs2``: that loop in two processes, each over every other
     line: not a target, the measure of what two processes of plain Python get
     from the machine in the same rounds (the ceiling ``--jobs 2`` meets: a
     shared guest's two vCPUs may give less than twice one).

   Rounds are interleaved (ek, ek-jobs2, bfcl-loop, bfcl-loop-jobs2, ek, ...), each a fresh
   subprocess; the median of each is kept. Printed: lines of the file per
   CPU-second (the process and its workers: other load on the shared machine
   does not count), lines per wall-clock second (what ``--jobs 2`` buys, only
   when two cores are free), and the ratios to the BFCL loop. Lines, not
   episodes: both sides read every line of the same file, and a line ek cannot
   score (a gold that does not fit its question's functions, 1.2% of these
   lines) is read, checked and reported as an error line, as BFCL's loop counts
   a line it cannot decode.

2. Growth, on a travel-grammar corpus (Python, OpenAI and Anthropic outputs).
   Each measurement is a fresh subprocess (so peak RSS is that run's alone):

- ``stream``: the ``ek score`` command, as ``ek.cli.main`` runs it for the console
  script (one process, travel grammar, JSON + HTML reports written): memory should
  stay flat as the corpus grows.
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
from typing import Any

from _bfcl_data import PYTHON_CATEGORIES, installed_data, python_text

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




#: How a BFCL result file of many lines meets its questions: ``rows``, each entry's lines in a row (samples of
#: one question written together); ``passes``, one line per entry and pass, the passes one after the other
#: (result files of several models or samples, concatenated). With as many lines as entries, ``passes`` is
#: one BFCL run's result file: every line a new question, which ``one-run`` writes whatever ``n`` is.
LAYOUTS = ("rows", "passes", "one-run")


#: How each result holds its calls: ``text``, a prompting model's Python call text (``"[f(x=1)]"``), or
#: ``fc``, a function-calling model's calls as BFCL saves them (``[{"f": "{\"x\": 1}"}]``: arguments as JSON text).
RESULT_FORMS = ("text", "fc")


def write_bfcl_corpus(folder: Path, n: int, data: Path, layout: str = "rows",
                      form: str = "text") -> tuple[Path, Path, Path]:
    """A BFCL result file of ``n`` lines over the Python entries, and the question and answer files it needs.

    Each entry gets ``n / 1,000`` lines (samples of one question, as when several samples or models are
    scored), laid out as ``layout`` says (:data:`LAYOUTS`): its right answer (7 lines in 10) or one of its
    typical mistakes, written in ``form`` (:data:`RESULT_FORMS`).
    """
    from ek.bfcl import load_category
    from ek.bfcl.variants import variants
    questions, answers, corpus = folder / "questions.json", folder / "answers.json", folder / "result.jsonl"
    rng = random.Random(0)
    outputs: list[tuple[str, list[Any]]] = []
    with open(questions, "w", encoding="utf-8") as q, open(answers, "w", encoding="utf-8") as a:
        for category in PYTHON_CATEGORIES:
            q.write((data / f"BFCL_v4_{category}.json").read_text(encoding="utf-8").rstrip("\n") + "\n")
            a.write((data / "possible_answer" / f"BFCL_v4_{category}.json").read_text(encoding="utf-8")
                    .rstrip("\n") + "\n")
            for episode in load_category(data / f"BFCL_v4_{category}.json"):
                texts = []
                for _label, decoded in variants(episode.functions, episode.ground_truth, category, rng):
                    text = python_text(decoded)
                    if text is None:
                        continue
                    texts.append(text if form == "text" else
                                 [{name: json.dumps(args)} for call in decoded for name, args in call.items()])
                if texts:
                    outputs.append((episode.id, texts))
    if layout == "one-run":
        n = len(outputs)
    samples = max(1, n // len(outputs))
    with open(corpus, "w", encoding="utf-8") as out:
        for k in range(n):
            entry_id, texts = outputs[(k // samples if layout == "rows" else k) % len(outputs)]
            text = texts[0] if rng.random() < 0.7 else rng.choice(texts[1:] or texts)
            out.write(json.dumps({"id": entry_id, "result": text}) + "\n")
    return corpus, questions, answers


def _bfcl_loop(corpus: str, questions: str, answers: str, part: int = 0, parts: int = 1) -> tuple[int, int]:
    """BFCL's own way: json.loads each line, decode its text, run ast_checker. (episodes, valid).

    ``part`` of ``parts``: only the lines whose index is ``part`` modulo ``parts`` (one process's share)."""
    from ek.bfcl.oracle import load_bfcl_checker, load_bfcl_decoder

    checker, decode = ORACLES if ORACLES else (load_bfcl_checker(), load_bfcl_decoder())  # (loaded by _child)
    assert checker is not None and decode is not None
    with open(questions, encoding="utf-8") as lines:
        functions = {q["id"]: q["function"] for q in map(json.loads, lines)}
    with open(answers, encoding="utf-8") as lines:
        truths = {a["id"]: a["ground_truth"] for a in map(json.loads, lines)}
    episodes = valid = 0
    with open(corpus, encoding="utf-8") as lines:
        for k, line in enumerate(lines):
            if parts > 1 and k % parts != part:
                continue
            row = json.loads(line)
            entry_id = row["id"]
            episodes += 1
            result = row["result"]
            try:  # a function-calling model's saved calls (a list) are decoded as BFCL's FC handlers do
                decoded = _bfcl_fc_decode(result) if type(result) is list else decode(result)
            except Exception:  # noqa: BLE001, S112 - BFCL's decoder raises anything on text it cannot read: invalid
                continue
            result = checker(functions[entry_id], decoded, truths[entry_id], entry_id.rsplit("_", 1)[0])
            valid += bool(result["valid"])
    return episodes, valid


def _bfcl_fc_decode(result: list[Any]) -> list[dict[str, Any]]:
    """BFCL's decoding of a function-calling model's saved calls (its FC handlers' ``decode_ast``): each
    call's JSON arguments decoded."""
    return [{name: json.loads(arguments)} for call in result for name, arguments in call.items()]


def _cpu() -> float:
    """CPU seconds of this process and its finished children (worker processes of --jobs)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def _ek_score(args: list[str], jobs: int, workdir: str) -> tuple[int, float, int]:
    """``ek score ARGS --jobs JOBS`` with both reports written into ``workdir``, run by ``ek.cli.main`` as the
    console script runs it (its output swallowed): (episodes scored, F1, lines read) from its JSON report."""
    import contextlib
    import io

    from ek.cli import main as ek_main

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        ek_main(["score", *args, "--jobs", str(jobs), "--allow-errors", "--json", f"{workdir}/r.json",
                 "--html", f"{workdir}/r.html", "--html-episodes", "200"], own_process=True)
    with open(f"{workdir}/r.json", encoding="utf-8") as written:
        report = json.load(written)
    return report["corpus"]["episodes_scored"], report["overall"]["f1"], report["corpus"]["lines_read"]


#: What ``ek score`` imports as it runs (its modules load on first use, so that a run imports only what it needs):
#: start-up, imported before the clock as BFCL's checker and decoder are for its loop (:data:`ORACLES`).
COMMAND_MODULES = ("ek.cli", "ek.cli.score", "ek.corpus.runner", "ek.report.html", "ek.report.jsonreport",
                   "ek.report.progress", "ek.report.table", "ek.interop", "ek.bfcl.grammar", "shutil", "locale")
#: BFCL's checker and decoder, loaded in the measured process before the clock (:func:`_child`).
ORACLES: list[Any] = []


def _child(mode: str, corpus: str, workdir: str) -> None:
    """Runs inside the measured subprocess; prints one JSON line.

    Start-up is not measured, on either side: ``ek score``'s modules (:data:`COMMAND_MODULES`), and BFCL's checker
    and decoder for its loop, are imported before the clock starts. (Until December 5, stop 36, the command's
    module imported the rest itself; since it loads them on first use, its run would count them.)"""
    import importlib

    for name in COMMAND_MODULES:
        importlib.import_module(name)
    if mode.startswith("bfcl-loop"):
        from ek.bfcl.oracle import load_bfcl_checker, load_bfcl_decoder

        ORACLES[:] = [load_bfcl_checker(), load_bfcl_decoder()]

    baseline = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    cpu0 = _cpu()
    started = time.perf_counter()
    if mode == "bfcl-loop":
        corpus, questions, answers = corpus.split("|")
        episodes, valid = _bfcl_loop(corpus, questions, answers)
        f1 = valid / max(episodes, 1)  # BFCL's accuracy, in the F1 column
        lines = episodes
    elif mode == "bfcl-loop-jobs2":  # the same loop in two processes, each over every other line
        import multiprocessing

        corpus, questions, answers = corpus.split("|")
        with multiprocessing.get_context("fork").Pool(2) as pool:
            shares = pool.starmap(_bfcl_loop, [(corpus, questions, answers, k, 2) for k in (0, 1)])
            pool.close()
            pool.join()  # reaped, so their CPU time is counted
        episodes, valid = sum(e for e, _v in shares), sum(v for _e, v in shares)
        f1 = valid / max(episodes, 1)
        lines = episodes
    elif mode in ("ek", "ek-jobs2"):  # the `ek score` command itself, as its console script runs it
        corpus, questions, answers = corpus.split("|")
        episodes, f1, lines = _ek_score([corpus, "--format", "bfcl", "--level", "arg", "--canonicalizer", "bfcl",
                                         "--bfcl-answers", answers, "--bfcl-questions", questions],
                                        2 if mode == "ek-jobs2" else 1, workdir)
    elif mode == "naive":
        from ek.agents.toolcalls import ToolCallMetric
        from ek.goldjson import gold_from_json
        from ek.scorer.evaluation import evaluate

        with open(corpus, encoding="utf-8") as lines:
            rows = [json.loads(line) for line in lines]
        metric = ToolCallMetric(grammar=str(GRAMMAR))
        report = evaluate(metric, [(r["id"], r["pred"] if not isinstance(r["pred"], list) else json.dumps(r["pred"]),
                                    gold_from_json(r["gold"])) for r in rows], keep="explanations")
        episodes, f1 = report.episodes, report.f1
        lines = len(rows)
    else:
        episodes, f1, lines = _ek_score([corpus, "--grammar", str(GRAMMAR)], 2 if mode == "stream-jobs2" else 1,
                                        workdir)
    seconds = time.perf_counter() - started
    cpu = _cpu() - cpu0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # largest worker process (--jobs 2)
    print(json.dumps({"seconds": seconds, "cpu": cpu, "episodes": episodes, "lines": lines, "f1": f1, "baseline_kb": baseline,
                      "peak_kb": peak, "worker_peak_kb": workers}))


#: Where the measured subprocesses keep their modules' bytecode (set by :func:`main`): every package a user
#: installs has its bytecode, so each side gets its own, made by a warm-up run and read from then on. Without
#: it, under ``PYTHONDONTWRITEBYTECODE`` (set on some machines) an editable install of ek compiles every
#: module it imports in every run, while bfcl-eval, installed with its bytecode, does not.
PYCACHE: str | None = None


def _child_env() -> dict[str, str]:
    import os

    env = dict(os.environ)
    if PYCACHE is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = PYCACHE
    return env


def measure(mode: str, corpus: Path | str, workdir: Path) -> dict[str, float]:
    """One fresh subprocess's figures, with the machine's load average when it ended (1 minute)."""
    import os

    proc = subprocess.run([sys.executable, __file__, "--child", mode, str(corpus), str(workdir)],
                          capture_output=True, text=True, check=True, env=_child_env())
    return {**json.loads(proc.stdout.strip().splitlines()[-1]), "load": os.getloadavg()[0]}


def warm_up(modes: list[str], files: str, workdir: Path) -> None:
    """One unmeasured run of each mode on the first lines of the corpus: each imports what it measures, so the
    bytecode under :data:`PYCACHE` is written before the first measured round."""
    corpus, rest = files.split("|", 1)
    head = workdir / "warm-up.jsonl"
    with open(corpus, "rb") as full, open(head, "wb") as out:
        out.writelines(line for _, line in zip(range(20), full))
    for mode in modes:
        measure(mode, f"{head}|{rest}", workdir)


def against_bfcl(size: int, rounds: int, layout: str = "rows", form: str = "text") -> None:
    """Section 1: ek score next to BFCL's decode-and-check loop on one BFCL result file, interleaved rounds."""
    import statistics

    data = installed_data()
    if data is None:
        print("against BFCL: skipped (bfcl-eval is not installed: pip install --no-deps bfcl-eval)")
        return
    modes = ["ek", "ek-jobs2", "bfcl-loop", "bfcl-loop-jobs2"]
    runs: dict[str, list[dict[str, float]]] = {m: [] for m in modes}
    with tempfile.TemporaryDirectory() as tmp:
        corpus, questions, answers = write_bfcl_corpus(Path(tmp), size, data, layout, form)
        files = f"{corpus}|{questions}|{answers}"
        with open(corpus, "rb") as written:
            lines = sum(1 for _ in written)
        warm_up(modes, files, Path(tmp))
        for _ in range(rounds):
            for mode in modes:
                runs[mode].append(measure(mode, files, Path(tmp)))
    how = {"rows": "each entry's lines in a row", "passes": "one line per entry and pass, pass after pass",
           "one-run": "one line per entry: one BFCL run's result file"}[layout]
    written = {"text": "Python call text", "fc": "function-calling calls, arguments as JSON text"}[form]
    print(f"against BFCL: {lines:,} lines of a BFCL result file (Python entries, 7 in 10 right; {how}; {written}), "
          f"median of {rounds} interleaved rounds")
    print(f"{'':>15}{'lines/CPU-s':>11}{'x BFCL':>8}{'lines/s wall':>17}{'x BFCL':>8}   score")
    peer = runs["bfcl-loop"]
    peer_cpu = statistics.median(r["lines"] / r["cpu"] for r in peer)
    peer_wall = statistics.median(r["lines"] / r["seconds"] for r in peer)
    for mode in modes:
        cpu = statistics.median(r["lines"] / r["cpu"] for r in runs[mode])
        wall = statistics.median(r["lines"] / r["seconds"] for r in runs[mode])
        what = "accuracy" if mode.startswith("bfcl") else "F1 (arg level)"
        print(f"{mode:>15}{cpu:>11,.0f}{cpu / peer_cpu:>7.2f}x{wall:>17,.0f}{wall / peer_wall:>7.2f}x   "
              f"{what} {runs[mode][0]['f1']:.4f}")
    # --jobs 2 against one process, round by round (each pair ran back to back): the wall-clock ratio is what
    # two processes buy, and only when two cores are free; the CPU ratio is their overhead, whatever the load
    pairs = list(zip(runs["ek"], runs["ek-jobs2"]))
    walls = [a["seconds"] / b["seconds"] for a, b in pairs]  # the same file: speed ratio = time ratio
    cpus = [a["cpu"] / b["cpu"] for a, b in pairs]
    loads = [r["load"] for mode in modes for r in runs[mode]]
    # what two processes of BFCL's loop buy on this machine in the same rounds: the ceiling --jobs 2 meets
    peer_walls = [a["seconds"] / b["seconds"] for a, b in zip(runs["bfcl-loop"], runs["bfcl-loop-jobs2"])]
    print(f"BFCL's loop in two processes vs one: x{statistics.median(peer_walls):.2f} wall-clock speed (what two "
          "processes of plain Python get from this machine)")
    print(f"--jobs 2 vs one process, median of the rounds: x{statistics.median(walls):.2f} wall-clock speed, "
          f"x{statistics.median(cpus):.2f} lines per CPU-second (load average {min(loads):.1f} to "
          f"{max(loads):.1f} during the rounds)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument("--peer-size", type=int, default=100_000, help="lines of the BFCL result file")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds against BFCL")
    parser.add_argument("--layouts", nargs="+", default=["rows", "passes", "one-run"],
                        choices=["rows", "passes", "one-run"],
                        help="BFCL result files to run against BFCL (see LAYOUTS): --peer-size lines in rows "
                             "and in passes; one-run has one line per entry")
    parser.add_argument("--result-forms", nargs="+", default=["text"], choices=list(RESULT_FORMS),
                        help="how the BFCL result files hold their calls (see RESULT_FORMS): text, as prompting "
                             "models write them; fc, as BFCL saves a function-calling model's")
    parser.add_argument("--quick", action="store_true", help="sizes 1k, 5k, 25k; 5k lines against BFCL")
    parser.add_argument("--modes", nargs="+", default=["stream", "stream-jobs2", "naive"],
                        choices=["stream", "stream-jobs2", "naive"],
                        help="growth runs to make (e.g. --sizes 10000 1000000 --modes stream: naive keeps "
                             "every explanation, gigabytes at 1M)")
    parser.add_argument("--no-peer", action="store_true", help="skip the run against BFCL")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(*args.child)
        return
    sizes = [1_000, 5_000, 25_000] if args.quick else args.sizes
    import shutil

    global PYCACHE
    PYCACHE = tempfile.mkdtemp(prefix="ek-bench-pycache-")
    try:
        _sections(args, sizes)
    finally:
        shutil.rmtree(PYCACHE, ignore_errors=True)


def _sections(args: argparse.Namespace, sizes: list[int]) -> None:
    """The two sections of :func:`main`, in order."""
    import os

    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at start "
          f"(--jobs 2 can only help when two cores are free)")
    if not args.no_peer:
        for form in args.result_forms:
            for layout in args.layouts:
                # one-run is short (a second): more rounds steady its median
                rounds = args.rounds + 4 if layout == "one-run" else args.rounds
                against_bfcl(5_000 if args.quick else args.peer_size, rounds, layout, form)
                print()
    modes = args.modes
    results: dict[str, list[dict[str, float]]] = {m: [] for m in modes}
    with tempfile.TemporaryDirectory() as tmp:
        warm = Path(tmp) / "warm-up.jsonl"
        write_corpus(warm, 20)
        for mode in modes:  # bytecode written before the first measured run (see PYCACHE)
            measure(mode, warm, Path(tmp))
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
            print(f"{mode:>13} {a:>7,} -> {b:>7,} (x{b / a:g}): memory x{mem_b / mem_a:5.2f} above baseline, "
                  f"peak RSS x{rb['peak_kb'] / ra['peak_kb']:4.2f}, throughput x{rate_b / rate_a:4.2f}")
    last = {m: results[m][-1] for m in modes}
    grown = {m: max(last[m]["peak_kb"] - last[m]["baseline_kb"], 1) for m in modes}
    if "naive" in modes and "stream" in modes:
        print(f"\nat {sizes[-1]:,} episodes: naive uses x{grown['naive'] / grown['stream']:.1f} the memory of "
              "ek score")
    if "stream-jobs2" in modes and "stream" in modes:
        speedup = last["stream"]["seconds"] / last["stream-jobs2"]["seconds"]
        print(f"at {sizes[-1]:,} episodes: --jobs 2 runs at x{speedup:.2f} the wall-clock speed of one process")


if __name__ == "__main__":
    main()
