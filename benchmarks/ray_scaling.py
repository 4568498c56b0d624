"""The Ray engine on one machine: scaling from 1 to 2 workers, its overhead per episode against ``--jobs``,
and the memory of a worker as the corpus grows.

Run: ``.venv/bin/python benchmarks/ray_scaling.py [--sizes 10000 40000] [--quick]`` (needs ``ek[ray]``).

The corpus is :func:`benchmarks.score.write_corpus`'s (realistic travel episodes, OpenAI/Anthropic/Python
outputs, ~30% with a mistake), split over 4 files, scored against ``schemas/travel-v2.ek``. For each size:

- ``jobs1``, ``jobs2``: the local engine (:func:`ek.corpus.runner.run`) with ``--jobs 1`` / ``--jobs 2``.
- ``ray1``, ``ray2``: :func:`ek.corpus.distributed.score_files` with at most 1 / 2 scoring tasks at once, on
  one local Ray (2 CPUs, 256 MB object store) started once for the whole benchmark, so Ray's own start-up
  (several seconds) is not counted; each run does pay for its grammar actor and its workers' first block.

How each figure is measured:

- wall: ``time.perf_counter`` around the call (the report is built, not written).
- CPU: for the local engine, this process and its reaped ``--jobs`` children (``getrusage``); for Ray, the
  driver (this process) plus every process of the Ray session (raylet, GCS, workers, actors), read from
  ``/proc/PID/stat`` before and after, so Ray's own bookkeeping counts as the overhead it is.
- overhead per episode: ``(Ray - --jobs)`` at the same parallelism, for wall and for CPU, at the largest size;
  and the marginal cost (slope between the two sizes), which leaves out what every run pays once.
- Ray's idle CPU: the Ray session's processes measured over 5 s with nothing to do (raylet, GCS and
  helper actors poll); a run pays it for its whole wall time, so it is shown beside the overhead.
- worker memory: the largest resident set (``VmRSS``) of a process busy with a scoring task, sampled every
  100 ms during the run (the sampler's own CPU time is not counted); a flat figure across sizes means a worker holds one block, not the corpus.

Every run's report must equal the ``jobs1`` report (the engine option is added by the CLI, not here), or
the benchmark stops.

Last results (2 CPUs shared with other work, load average 2.6-3.8, so neither ``--jobs 2`` nor ``ray2``
could use a second free core; rerun on an idle machine for the scaling figure):

- 40k episodes: jobs1 14.8 s / 11.7 CPU-s, jobs2 16.0 s / 13.4, ray1 18.9 s / 14.5, ray2 20.9 s / 16.9;
  on a quieter run, ray2 was x1.25-x1.36 the speed of ray1, as jobs2 was x1.07-x1.41 of jobs1.
- Ray overhead against ``--jobs`` at the same parallelism: 40-80 µs of CPU per episode at the margin
  (scoring itself costs about 290 µs per episode here), of which Ray's idle bookkeeping is about 40 µs;
  plus a fixed 1-3 s per run (the grammar actor, the first block of each worker). Ray's own start-up,
  about 10 s here, is paid once per ``ek score --engine ray`` without ``--address``.
- Scoring worker RSS: 209 MiB at 10k, 231 MiB at 40k episodes (x1.10 for x4); most of it is Ray and
  pyarrow loaded in the worker. The scoring itself is flat: 156 blocks of 512 lines scored in one
  process hold 70 MiB from the first block to the last.
"""

from __future__ import annotations

import argparse
import logging
import os
import resource
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Self

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

from score import GRAMMAR, write_corpus

from ek.corpus.distributed import score_files
from ek.corpus.runner import RunOptions, run
from ek.report.jsonreport import build_report

TICKS = os.sysconf("SC_CLK_TCK")


def _own_cpu() -> float:
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def _stat(pid: int) -> tuple[int, float] | None:
    """``(parent pid, CPU seconds)`` of a process, or None when it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return int(fields[1]), (int(fields[11]) + int(fields[12])) / TICKS


def _session_pids(roots: set[int]) -> dict[int, float]:
    """CPU seconds of every living process descended from ``roots`` (the Ray session's own processes)."""
    stats = {int(p): s for p in os.listdir("/proc") if p.isdigit() and (s := _stat(int(p))) is not None}
    members, grew = set(roots) & set(stats), True
    while grew:
        more = {pid for pid, (parent, _cpu) in stats.items() if parent in members} - members
        members |= more
        grew = bool(more)
    return {pid: stats[pid][1] for pid in members}


def _ray_roots() -> set[int]:
    from ray._private import (
        worker,  # the benchmark needs its own Ray's processes to measure their CPU
    )

    node = worker._global_node
    return {info.process.pid for infos in node.all_processes.values() for info in infos if info.process}


class _WorkerMemory:
    """Samples the resident set of processes titled as Ray scoring tasks, keeping the largest."""

    def __init__(self) -> None:
        self.peak_kb = 0
        self.cpu = 0.0  # the sampler's own CPU time, taken out of the run's
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def _watch(self) -> None:
        while not self._stop.is_set():
            started = time.thread_time()
            for pid in os.listdir("/proc"):
                if not pid.isdigit():
                    continue
                try:
                    if b"MapBatches" not in Path(f"/proc/{pid}/cmdline").read_bytes():
                        continue
                    status = Path(f"/proc/{pid}/status").read_text()
                except OSError:
                    continue
                rss = next((int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")), 0)
                self.peak_kb = max(self.peak_kb, rss)
            self.cpu += time.thread_time() - started
            time.sleep(0.1)

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def measure(mode: str, paths: list[str], options: RunOptions) -> dict[str, Any]:
    memory = None
    if mode.startswith("jobs"):
        cpu0, started = _own_cpu(), time.perf_counter()
        result = run(paths, options, jobs=int(mode[-1]))
        seconds, cpu = time.perf_counter() - started, _own_cpu() - cpu0
    else:
        roots = _ray_roots()
        before, cpu0 = _session_pids(roots), _own_cpu()
        started = time.perf_counter()
        with _WorkerMemory() as watch:
            result = score_files(paths, options, workers=int(mode[-1]))
        seconds = time.perf_counter() - started
        after = _session_pids(roots)
        # processes that ended during the run are missed (their CPU is lost); none should: workers are reused
        cpu = _own_cpu() - cpu0 - watch.cpu + sum(c - before.get(pid, 0.0) for pid, c in after.items())
        memory = watch.peak_kb
    return {"seconds": seconds, "cpu": cpu, "episodes": result.summary.episodes,
            "report": build_report(result, options), "worker_kb": memory}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs=2, default=[10_000, 40_000])
    parser.add_argument("--quick", action="store_true", help="sizes 2k and 8k")
    args = parser.parse_args()
    sizes = [2_000, 8_000] if args.quick else args.sizes
    import ray

    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at start (the machine is shared: "
          "per-CPU-second figures are the steadier ones)", flush=True)
    ray.init(num_cpus=2, object_store_memory=256 * 1024 * 1024, include_dashboard=False,
             logging_level=logging.WARNING, log_to_driver=False)
    modes = ["jobs1", "jobs2", "ray1", "ray2"]
    results: dict[str, list[dict[str, Any]]] = {m: [] for m in modes}
    options = RunOptions(grammar=str(GRAMMAR))
    try:
        with tempfile.TemporaryDirectory() as tmp:
            score_files(_split(Path(tmp), 4000), options, workers=2)  # both workers started once, uncounted
            roots = _ray_roots()
            before = _session_pids(roots)
            time.sleep(5)
            after = _session_pids(roots)
            idle = sum(c - before.get(pid, 0.0) for pid, c in after.items()) / 5
            print(f"Ray idle: {idle:.3f} CPU-s per second of wall time", flush=True)
            for n in sizes:
                paths = _split(Path(tmp), n)
                for mode in modes:
                    r = measure(mode, paths, options)
                    results[mode].append(r)
                    if r["report"] != results["jobs1"][-1]["report"]:  # jobs1 runs first at each size
                        sys.exit(f"{mode} at {n:,} episodes: the report differs from --jobs 1")
                    memory = f", scoring worker RSS {r['worker_kb'] / 1024:6.1f} MiB" if r["worker_kb"] else ""
                    print(f"{mode:>6} {n:>7,} episodes: {r['seconds']:6.2f} s wall, {r['cpu']:6.2f} CPU-s, "
                          f"{r['episodes'] / r['seconds']:>7,.0f} episodes/s "
                          f"({r['episodes'] / max(r['cpu'], 1e-9):>6,.0f} per CPU-second){memory}", flush=True)
    finally:
        ray.shutdown()
    small, large = sizes
    last = {m: results[m][-1] for m in modes}
    print(f"\nat {large:,} episodes")
    print(f"  scaling: ray2 runs at x{last['ray1']['seconds'] / last['ray2']['seconds']:.2f} the speed of ray1 "
          f"(ideal x2.00); jobs2 at x{last['jobs1']['seconds'] / last['jobs2']['seconds']:.2f} of jobs1")
    for ray_mode, jobs_mode in (("ray1", "jobs1"), ("ray2", "jobs2")):
        r, j = last[ray_mode], last[jobs_mode]
        marginal = [(results[m][1][k] - results[m][0][k]) / (large - small) for m in (ray_mode, jobs_mode)
                    for k in ("seconds", "cpu")]
        print(f"  {ray_mode} vs {jobs_mode}: overhead {1e6 * (r['seconds'] - j['seconds']) / large:7.1f} µs wall, "
              f"{1e6 * (r['cpu'] - j['cpu']) / large:7.1f} µs CPU per episode; marginal (slope {small:,}->"
              f"{large:,}): {1e6 * (marginal[0] - marginal[2]):7.1f} µs wall, "
              f"{1e6 * (marginal[1] - marginal[3]):7.1f} µs CPU per episode; Ray idle CPU over the run "
              f"{1e6 * idle * r['seconds'] / large:5.1f} µs per episode")
    mem = [results["ray2"][k]["worker_kb"] for k in (0, 1)]
    print(f"  scoring worker memory: {mem[0] / 1024:.1f} MiB at {small:,}, {mem[1] / 1024:.1f} MiB at {large:,} "
          f"(x{mem[1] / max(mem[0], 1):.2f} for x{large / small:g} the episodes; 1.00 = flat)")


def _split(folder: Path, n: int, parts: int = 4) -> list[str]:
    """``n`` episodes of the benchmark corpus in ``parts`` files (made once per size)."""
    whole = folder / f"corpus-{n}.jsonl"
    if not whole.exists():
        write_corpus(whole, n)
    lines = whole.read_text(encoding="utf-8").splitlines(keepends=True)
    size = -(-len(lines) // parts)
    paths = []
    for k in range(parts):
        path = folder / f"corpus-{n}-{k}.jsonl"
        if not path.exists():
            path.write_text("".join(lines[k * size:(k + 1) * size]), encoding="utf-8")
        paths.append(str(path))
    return paths


if __name__ == "__main__":
    main()
