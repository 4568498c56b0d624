"""The Ray engine, run for real on the session's local Ray: same report as one process, nothing lost.

Every test here is ``slow`` (a Ray cluster, worker processes). The 100k-episode run is the issue's size
(about 90 s on 2 busy cores, half of it the local run it is compared with); the 6k-episode runs cover
the same paths in a few seconds each.
"""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from ekcli import EXAMPLE, SCHEMAS, synthetic_corpus

from ek.corpus.distributed import RayStallError, score_dataset, score_files
from ek.corpus.runner import RunOptions, WorkerDiedError, run
from ek.report.jsonreport import build_report

pytestmark = pytest.mark.slow


def split_corpus(tmp_path: Path, n: int, parts: int = 4) -> list[str]:
    """``n`` synthetic episodes with broken lines, split over ``parts`` files: plain JSON lines with blank lines,
    gzip JSON lines, Parquet (gold as JSON text), plain again; the result is one corpus in that order."""
    whole = synthetic_corpus(tmp_path / "whole.jsonl", n, corrupt_every=97)
    lines = whole.read_text(encoding="utf-8").splitlines()
    size = -(-len(lines) // parts)
    paths = []
    for k in range(parts):
        chunk = lines[k * size:(k + 1) * size]
        kind = ("jsonl", "jsonl.gz", "parquet", "jsonl")[k % 4]
        path = tmp_path / f"part-{k}.{kind}"
        if kind == "parquet":
            rows = [json.loads(line) for line in chunk if not line.startswith('{"id": "broken')]
            for row in rows:
                row["gold"] = json.dumps(row["gold"])
            pq.write_table(pa.Table.from_pylist(rows), path, row_group_size=1000)
        elif kind == "jsonl.gz":
            path.write_bytes(gzip.compress("".join(line + "\n" for line in chunk).encode()))
        else:
            chunk = [line if i % 500 != 3 else "\n" + line for i, line in enumerate(chunk)]  # blank lines too
            path.write_text("".join(line + "\n" for line in chunk), encoding="utf-8")
        paths.append(str(path))
    return paths


def both_reports(paths: list[str], options: RunOptions, jobs: int = 1,
                 **ray_args: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    local = run(paths, options, jobs=jobs)
    distributed = score_files(paths, options, **ray_args)
    assert distributed.accounted and local.accounted
    return build_report(local, options), build_report(distributed, options)


def test_the_example_corpus_gives_the_local_report(ray_address: str) -> None:
    options = RunOptions(grammar=str(EXAMPLE / "travel-v2.ek"), keep_details=5)
    local, distributed = both_reports([str(EXAMPLE / "corpus.jsonl")], options, block_lines=4)
    assert distributed == local


def test_split_files_with_errors_blank_lines_gzip_and_parquet(tmp_path: Path, ray_address: str) -> None:
    paths = split_corpus(tmp_path, 6000)
    options = RunOptions(grammar=str(SCHEMAS / "travel-v2.ek"), keep_details=20, keep_errors=30)
    local, distributed = both_reports(paths, options, block_lines=256)
    assert distributed == local
    c = distributed["corpus"]
    assert c["lines_read"] == c["episodes_scored"] + c["error_lines"] + c["blank_lines"] and c["blank_lines"] > 0
    assert {Path(e["file"]).name for e in distributed["errors"]} >= {"part-0.jsonl", "part-1.jsonl.gz"}


def test_the_worst_episodes_alignments_are_those_of_one_process(tmp_path: Path, ray_address: str) -> None:
    """Blocks send their worst episodes ranked but not explained, with their raw lines; the driver explains the
    run's worst by scoring those lines again. The alignments the HTML report shows are one process's, from
    files and from a dataset of rows alike (its gold calls Arrow structs)."""
    import ray

    paths = split_corpus(tmp_path, 3000)
    options = RunOptions(grammar=str(SCHEMAS / "travel-v2.ek"), keep_worst=30, keep_details=12)
    local = run(paths, options).summary.worst()
    assert all(d.detail is not None for d in local[:12]) and all(d.detail is None for d in local[12:])
    assert score_files(paths, options, block_lines=64).summary.worst() == local
    corpus = synthetic_corpus(tmp_path / "rows.jsonl", 2000)
    # gold as lists of calls: Arrow structs, each call given every argument any call has (null: read as absent)
    rows = [json.loads(line) for line in corpus.read_text(encoding="utf-8").splitlines()]
    local = run(str(corpus), options).summary.worst()
    got = score_dataset(ray.data.from_items(rows, override_num_blocks=5), options, block_lines=100).summary.worst()
    assert got == local and got[0].detail is not None


def test_lines_naming_their_grammar_are_resolved_by_the_driver(tmp_path: Path, ray_address: str,
                                                               layout: tuple[Path, Path]) -> None:
    """``NAME@VERSION`` on the lines, found on a relative search path only the driver's folder makes sense of."""
    _schemas, gen = layout
    lines = [{"id": i, "pred": "get_weather(location='Oslo')", "gold": [{"name": "get_weather",
              "arguments": {"location": "Oslo"}}], "grammar": f"travel@{1 + i % 2}"} for i in range(50)]
    lines.append({"id": "nope", "pred": "f()", "gold": [], "grammar": "travel@9"})
    corpus = tmp_path / "named.jsonl"
    corpus.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    before = os.getcwd()
    os.chdir(tmp_path)
    try:
        options = RunOptions(search_path=(os.path.relpath(gen, tmp_path),), keep_ids=True)
        local, distributed = both_reports(["named.jsonl"], options, block_lines=16)
    finally:
        os.chdir(before)
    assert distributed == local
    assert {g["grammar"] for g in distributed["grammars"]} == {"travel@1", "travel@2"}
    assert "travel@9" in distributed["errors"][0]["reason"]


def test_a_dataset_of_episodes_scores_like_its_json_lines(tmp_path: Path, ray_address: str) -> None:
    import ray

    corpus = synthetic_corpus(tmp_path / "c.jsonl", 3000)
    rows = [json.loads(line) for line in corpus.read_text(encoding="utf-8").splitlines()]
    for row in rows[::5]:
        row["gold"] = json.dumps(row["gold"])  # gold as JSON text, as Parquet datasets hold it
    rows[10]["gold"] = "[{"
    corpus.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    options = RunOptions(grammar=str(SCHEMAS / "travel-v2.ek"))
    want = build_report(run(str(corpus), options), options)
    dataset = ray.data.from_items([{**row, "unused": 1} for row in rows], override_num_blocks=7)
    got = build_report(score_dataset(dataset, options, block_lines=200), options)
    for report in (want, got):
        del report["corpus"]["path"], report["corpus"]["files"]
        for key in ("errors", "worst_episodes"):
            for entry in report[key]:
                entry.pop("file"), entry.pop("file_line")
    assert got == want and got["corpus"]["error_lines"] == 1


def test_tasks_split_over_blocks_give_the_bootstrap_units_and_other_gold_of_one_process(tmp_path: Path,
                                                                                     ray_address: str) -> None:
    corpus = synthetic_corpus(tmp_path / "c.jsonl", 3000, corrupt_every=97)
    rows = corpus.read_text(encoding="utf-8").splitlines()
    for k, row in enumerate(rows):  # samples of a task far apart (other blocks), and every seventh line no task
        if k % 7 and not row.startswith('{"id": "broken'):
            rows[k] = json.dumps({**json.loads(row), "task": f"t{k % 400}"})
        if k % 13 == 0 and not row.startswith('{"id": "broken'):  # a sample of other gold
            rows[k] = json.dumps({**json.loads(rows[k]), "gold": [{"name": "get_weather", "arguments": {
                "location": "Atlantis"}}]})
    corpus.write_text("".join(row + "\n" for row in rows), encoding="utf-8")
    options = RunOptions(grammar=str(SCHEMAS / "travel-v2.ek"))
    local = run(str(corpus), options).summary
    distributed = score_files([str(corpus)], options, block_lines=256).summary
    units = local.bootstrap_units()
    assert units is not None and distributed.bootstrap_units() == units and len(units[0]) > 400
    # tasks with a sample of other gold, found in other blocks (each numbering its lines from 1, shifted to its
    # place) at the lines one process finds
    mixed = local.mixed_gold_tasks()
    assert distributed.mixed_gold_tasks() == mixed and len(mixed) > 150 and max(m[2] for m in mixed) > 2000


def test_100k_episodes_over_several_files(tmp_path: Path, ray_address: str) -> None:
    paths = split_corpus(tmp_path, 100_000, parts=6)
    options = RunOptions(grammar=str(SCHEMAS / "travel-v2.ek"))
    local, distributed = both_reports(paths, options, jobs=2)  # --jobs 2 is the one-process report, sooner
    assert distributed == local and distributed["corpus"]["episodes_scored"] > 98_000


def _ray_process(name: str) -> int:
    """The pid of a process of this session's own Ray (``raylet``, ``gcs_server``)."""
    from ray._private import (
        worker,  # the test needs the processes of its own Ray, to stop or kill only those
    )

    return int(worker._global_node.all_processes[name][0].process.pid)


def _raylet_pid() -> int:
    return _ray_process("raylet")


@contextmanager
def stopped(pid: int) -> Iterator[None]:
    """The process ``pid`` stopped (SIGSTOP) for the block: alive, holding its connections, answering
    nothing, as a Ray process that hangs; it goes on (SIGCONT) after the block."""
    os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(pid, signal.SIGCONT)


def scoring_workers() -> list[int]:
    """The worker processes of this session's Ray busy with a scoring task (Ray titles them by task)."""
    raylet, found = _raylet_pid(), []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            title = Path(f"/proc/{entry}/cmdline").read_bytes()
            parent = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if parent == raylet and title.startswith(b"ray::") and b"MapBatches" in title:
            found.append(int(entry))
    return found


@contextmanager
def killing_workers(*, once: bool, armed: threading.Event | None = None) -> Iterator[list[int]]:
    """Kill this Ray's busy scoring workers from a thread while the block runs: the first one seen (``once``) or
    every one, polled every 10 ms from when ``armed`` is set (at once without it). Yields the pids killed.

    Polled, not tried once from a progress callback: a worker is titled busy only while it scores, and on a
    loaded machine the callbacks may all fall between tasks."""
    stop, killed = threading.Event(), []

    def keep_killing() -> None:
        while not stop.is_set() and not (once and killed):
            if armed is None or armed.is_set():
                for pid in scoring_workers()[:1] if once else scoring_workers():
                    try:
                        os.kill(pid, signal.SIGKILL)
                        killed.append(pid)
                    except ProcessLookupError:  # it ended between the listing and the kill
                        pass
            time.sleep(0.01)

    killer = threading.Thread(target=keep_killing, daemon=True)
    killer.start()
    try:
        yield killed
    finally:
        stop.set()
        killer.join()


def test_a_worker_killed_mid_run_is_retried_and_nothing_is_lost(tmp_path: Path, ray_address: str) -> None:
    paths = split_corpus(tmp_path, 6000, parts=2)
    options = RunOptions(grammar=str(SCHEMAS / "travel-v2.ek"))
    mid_run = threading.Event()

    def arm_after_three_blocks(_size: int, _lines: int, blocks: int) -> None:
        if blocks >= 3:  # some blocks already merged: the retried one must join them in its place
            mid_run.set()

    local = build_report(run(paths, options), options)
    with killing_workers(once=True, armed=mid_run) as killed:
        distributed = build_report(score_files(paths, options, block_lines=100, progress=arm_after_three_blocks),
                                   options)
    assert killed, "no scoring worker was busy to be killed"
    assert distributed == local


def test_a_block_whose_worker_always_dies_stops_the_run_with_a_clear_error(tmp_path: Path,
                                                                          ray_address: str) -> None:
    paths = split_corpus(tmp_path, 400, parts=1)
    with killing_workers(once=False) as killed, pytest.raises(WorkerDiedError, match="no report was written"):
        score_files(paths, RunOptions(), block_lines=10_000)
    assert len(killed) >= 2


def test_the_ray_guide_example_runs(ray_address: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import doctest

    monkeypatch.chdir(EXAMPLE.parents[1])  # the guide's paths are relative to the repository
    result = doctest.testfile(str(EXAMPLE.parents[1] / "docs" / "ray.md"), module_relative=False)
    assert result.attempted > 0 and result.failed == 0


def test_a_gcs_that_stops_answering_stops_the_run_naming_the_step(tmp_path: Path, ray_address: str) -> None:
    """The CI hang: the driver waited for ever in Ray's ``internal_kv_put`` while creating the grammar desk
    actor. A stopped GCS is that stall for real; the run now stops with the step, and Ray goes on after."""
    paths = split_corpus(tmp_path, 300, parts=1)
    options = RunOptions(grammar=str(SCHEMAS / "travel-v2.ek"))
    started = time.monotonic()
    with stopped(_ray_process("gcs_server")), pytest.raises(RayStallError) as stall:
        score_files(paths, options, step_seconds=2)
    assert stall.value.step.startswith("creating the grammar desk actor") and stall.value.seconds == 2
    assert "did not finish creating the grammar desk actor" in str(stall.value)
    assert "RAY_STEP_SECONDS" in str(stall.value) and "no report" in str(stall.value)
    assert time.monotonic() - started < 60
    local, distributed = both_reports(paths, options)  # the GCS answers again: the same Ray scores as before
    assert distributed == local


def test_tasks_that_never_run_stop_the_run_naming_the_block(tmp_path: Path, ray_address: str) -> None:
    """A stopped raylet leases no worker: no block can come back, and the run stops after ``block_seconds``
    with the block it waited for, instead of waiting in Ray Data for ever (the hang the repro loop found)."""
    paths = split_corpus(tmp_path, 300, parts=1)
    options = RunOptions(grammar=str(SCHEMAS / "travel-v2.ek"))
    with stopped(_raylet_pid()), pytest.raises(RayStallError) as stall:
        score_files(paths, options, step_seconds=30, block_seconds=3)
    assert stall.value.step == "scoring block 1 (after line 0)"
    assert "RAY_BLOCK_SECONDS" in str(stall.value)
    local, distributed = both_reports(paths, options)
    assert distributed == local


STALLED_LOCAL_RAY = """
import os, signal, sys
from ray._private import worker
from ek.corpus.distributed import RayStallError, ray_session, score_files
from ek.corpus.runner import RunOptions

try:
    with ray_session(num_cpus=1, step_seconds=3):
        os.kill(worker._global_node.all_processes["gcs_server"][0].process.pid, signal.SIGSTOP)
        score_files(sys.argv[1], RunOptions(), step_seconds=3)
except RayStallError as stall:
    print(stall, *getattr(stall, "__notes__", ()), sep="\\n", flush=True)
    os._exit(3)  # as ek score does: Ray's own threads would hold a normal exit a minute, then end it with 1
"""

STALLED_CLI = """
import os, signal, sys
from ray._private import worker
import ek.corpus.distributed
from ek.cli import main

ek.corpus.distributed.RAY_STEP_SECONDS = 3  # what ek.limits says, shortened for the test
score_files = ek.corpus.distributed.score_files

def stalled_score_files(*args, **kwargs):  # ek score's local Ray is up: its control service stops answering
    os.kill(worker._global_node.all_processes["gcs_server"][0].process.pid, signal.SIGSTOP)
    return score_files(*args, **kwargs)

ek.corpus.distributed.score_files = stalled_score_files
sys.exit(main(["score", sys.argv[1], "--engine", "ray", "--json", "out.json"]))
"""


def test_a_local_ray_whose_gcs_stalls_is_stopped_and_the_process_ends(tmp_path: Path) -> None:
    """``ray.shutdown`` waits on the GCS too: a local Ray whose GCS stalled is killed, so the process that
    started it ends with the error instead of hanging in the shutdown (or in Ray's exit hook after it)."""
    corpus = synthetic_corpus(tmp_path / "c.jsonl", 50)
    done = subprocess.run([sys.executable, "-c", STALLED_LOCAL_RAY, str(corpus)], capture_output=True, text=True,
                          timeout=300, cwd=tmp_path)
    assert done.returncode == 3, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[0].startswith("Ray did not finish creating the grammar desk actor (") and "within 3 s" in lines[0]
    assert lines[1].startswith("Ray did not finish stopping the local Ray within 3 s; the run was stopped")
    assert "its processes were killed" in lines[1]


@pytest.mark.slow
def test_ek_score_on_a_local_ray_that_stalls_exits_3_at_once(tmp_path: Path) -> None:
    """``ek score --engine ray``: its local Ray's GCS stops answering once the run has begun; the run stops
    with exit status 3, says which steps stalled, writes no report, and the process ends at once (a normal
    exit would wait on Ray's threads, then end with Ray's status 1)."""
    corpus = synthetic_corpus(tmp_path / "c.jsonl", 50)
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", STALLED_CLI, str(corpus)], capture_output=True, text=True,
                          timeout=300, cwd=tmp_path)
    assert done.returncode == 3, done.stderr[-2000:]
    assert "ek score: error: Ray did not finish creating the grammar desk actor" in done.stderr
    assert "Ray did not finish stopping the local Ray within 3 s" in done.stderr
    assert not (tmp_path / "out.json").exists()
    assert time.monotonic() - started < 55  # well before Ray's own minute


def test_a_jobs_run_beside_ray_spawns_its_workers_and_ray_works_on(tmp_path: Path, ray_address: str) -> None:
    """The cause of the CI hang: ``--jobs`` workers forked from this process, connected to Ray, inherited
    its gRPC connections and wrote on them (a FreeObjects call to the raylet, for ObjectRefs their garbage
    collection freed), which corrupted them: the third Ray run after such forks waited for ever, every
    time, in a loop of this test's steps. With Ray's threads running, the local engine spawns instead."""
    from ek.corpus.runner import _start_method

    assert _start_method() == "spawn"
    paths = split_corpus(tmp_path, 3000, parts=6)
    options = RunOptions(grammar=str(SCHEMAS / "travel-v2.ek"))
    for _ in range(3):
        local = build_report(run(paths, options, jobs=2), options)
        distributed = build_report(score_files(paths, options, block_seconds=120), options)
        assert distributed == local


def test_a_process_with_one_thread_forks_its_workers() -> None:
    """Without other threads (the CLI) the local engine still forks: its workers start in milliseconds."""
    code = "from ek.corpus.runner import _start_method; print(_start_method())"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "fork", done.stderr
