"""How many worker processes a ``--jobs`` run starts: no more than its corpus has chunks to start with, none for
an empty corpus, and ``--jobs auto`` as many as the CPUs this process may use."""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest
from ekcli import SCHEMAS, synthetic_corpus

from ek.corpus import runner
from ek.corpus.runner import RunOptions, run, usable_cpus
from ek.limits import CHUNK_LINES


@pytest.fixture
def pools(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The worker count of every pool the runner starts (real pools, real processes)."""
    started: list[int] = []
    real = runner._process_pool

    def counted_pool(workers: int, initargs: tuple[object, ...]) -> ProcessPoolExecutor:
        started.append(workers)
        return real(workers, initargs)

    monkeypatch.setattr(runner, "_process_pool", counted_pool)
    return started


OPTIONS = RunOptions(grammar=str(SCHEMAS / "travel-v2.ek"), keep_details=5)


@pytest.mark.parametrize(("lines", "jobs", "workers"), [
    (CHUNK_LINES // 2, 4, 1),        # one chunk: one worker, not four
    (3 * CHUNK_LINES + 10, 8, 4),    # four chunks to start with: four workers, not eight
    (3 * CHUNK_LINES + 10, 2, 2),    # more chunks than jobs: the jobs asked for
])
def test_no_more_workers_than_the_corpus_has_chunks(tmp_path: Path, pools: list[int], lines: int, jobs: int,
                                                    workers: int) -> None:
    corpus = synthetic_corpus(tmp_path / "c.jsonl", lines, seed=3, accuracy=0.5)
    alone, spread = run(str(corpus), OPTIONS), run(str(corpus), OPTIONS, jobs=jobs)
    assert pools == [workers]
    assert spread.summary.episodes == lines
    assert spread.summary.total().exact_counts == alone.summary.total().exact_counts
    assert spread.summary.worst() == alone.summary.worst()  # the alignments too, attached in the parent


def test_an_empty_corpus_starts_no_worker(tmp_path: Path, pools: list[int]) -> None:
    corpus = tmp_path / "empty.jsonl"
    corpus.write_text("\n\n", encoding="utf-8")
    result = run(str(corpus), OPTIONS, jobs=4)
    assert pools == [] and result.summary.episodes == 0 and result.counts.blank == 2


def test_usable_cpus_are_this_process_cpus() -> None:
    expected = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert usable_cpus() == expected


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no CPU affinity on this system")
def test_usable_cpus_follow_an_affinity_narrower_than_the_machine() -> None:
    # what a container's cpuset or taskset does: os.cpu_count() still says every CPU of the machine
    code = ("import os; os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}); "
            "from ek.corpus.runner import usable_cpus; from ek.cli.score import resolve_jobs; "
            "print(usable_cpus(), resolve_jobs('auto'), resolve_jobs('auto', 'ray'), resolve_jobs(3))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.split() == ["1", "1", "None", "3"]


def _children(pid: int) -> set[int]:
    """The processes ``pid`` started that are alive (Linux: /proc)."""
    found: set[int] = set()
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as listing:
            found.update(int(child) for child in listing.read().split())
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has ended
    except FileNotFoundError:
        return False


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc; the parent-death signal is Linux's")
@pytest.mark.parametrize("sig", ["SIGTERM", "SIGKILL"])
def test_workers_end_with_a_parent_stopped_alone(tmp_path: Path, sig: str) -> None:
    """`kill PID` of ek alone (a supervisor), or SIGKILL: no worker is left waiting for ever. SIGTERM ends the run
    as Ctrl-C does (status 143, no report, no temporary file)."""
    import signal
    import time

    corpus = synthetic_corpus(tmp_path / "c.jsonl", 60_000)
    out = tmp_path / "out"
    out.mkdir()
    proc = subprocess.Popen([sys.executable, "-m", "ek", "score", str(corpus), "--jobs", "2", "--grammar",
                             str(SCHEMAS / "travel-v2.ek"), "--episodes-out", str(out / "ep.jsonl"),
                             "--json", str(out / "r.json")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while len(workers := _children(proc.pid)) < 2 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        assert len(workers) == 2, "the run's two workers did not start"
        os.kill(proc.pid, getattr(signal, sig))  # the parent alone, not its process group
        status = proc.wait(timeout=60)
        deadline = time.monotonic() + 30
        while any(_alive(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(_alive(w) for w in workers), "a worker outlived its parent"
        if sig == "SIGTERM":
            err = proc.stderr.read().decode()
            assert status == 143 and "ek: terminated" in err, (status, err[-3000:])
            assert sorted(p.name for p in out.iterdir()) == []
        else:
            assert status == -signal.SIGKILL
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, 9)
            proc.wait()
        for worker in workers if "workers" in locals() else ():
            if _alive(worker):
                os.kill(worker, 9)


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="the file-descriptor limit stops a fork of the pool on Linux")
def test_a_worker_the_system_refuses_to_start_ends_the_run_with_its_reason(tmp_path: Path) -> None:
    """With too few file descriptors for 20 workers the pool's start failed with a traceback, and the exit then
    waited for ever on the workers already started: now exit 3, one line saying why, nothing left running."""
    import resource

    corpus = synthetic_corpus(tmp_path / "c.jsonl", 20 * CHUNK_LINES + 1)

    def few_descriptors() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (30, 30))

    proc = subprocess.run([sys.executable, "-m", "ek", "score", str(corpus), "--jobs", "20", "--grammar",
                           str(SCHEMAS / "travel-v2.ek")], capture_output=True, text=True, timeout=120,
                          preexec_fn=few_descriptors, check=False)
    assert proc.returncode == 3, proc.stderr
    assert "a worker process could not be started (Too many open files)" in proc.stderr
    assert "Traceback" not in proc.stderr and "Exception ignored" not in proc.stderr, proc.stderr


#: A command run as its own process whose SIGTERM or SIGINT (Ctrl-C) comes while its workers are being started:
#: from the callback a fork runs in the parent after each worker is forked, where Python would swallow the
#: handler's exception.
_SIGNAL_IN_A_FORK_CALLBACK = """
import os, signal, sys
sig = getattr(signal, sys.argv.pop(1))
os.register_at_fork(after_in_parent=lambda: os.kill(os.getpid(), sig))
from ek.cli import main
sys.exit(main(sys.argv[1:], own_process=True))
"""


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="workers are forked on Linux only")
@pytest.mark.parametrize(("sig", "status", "said"), [("SIGTERM", 143, "ek: terminated"),
                                                      ("SIGINT", 130, "ek: interrupted")])
def test_a_stop_while_workers_start_ends_the_run(tmp_path: Path, sig: str, status: int, said: str) -> None:
    """Starting the workers defers SIGTERM and SIGINT to its end (``ek.termination.deferred``), then the run stops
    as the signal stops it (status 143 or 130, no report). Raised in the fork's callback, it was swallowed there
    and the run finished and wrote its reports; raised amid the executor's start, the pool's shutdown failed with
    a traceback (exit 1). The SIGTERM test above met both, 4 times in 48 runs under load; SIGINT, with Python's
    own handler, met the same until the CLI deferred it too."""
    corpus = synthetic_corpus(tmp_path / "c.jsonl", 20_000)
    out = tmp_path / "out"
    out.mkdir()
    proc = subprocess.run([sys.executable, "-c", _SIGNAL_IN_A_FORK_CALLBACK, sig, "score", str(corpus), "--jobs",
                           "2", "--grammar", str(SCHEMAS / "travel-v2.ek"), "--json", str(out / "r.json")],
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == status and said in proc.stderr, (proc.returncode, proc.stderr[-2000:])
    assert "Exception ignored" not in proc.stderr and "Traceback" not in proc.stderr  # recorded, not printed
    assert list(out.iterdir()) == []


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="workers are forked on Linux only")
def test_a_command_started_with_sigint_ignored_keeps_ignoring_it(tmp_path: Path) -> None:
    """``nohup`` or a shell's background job start ``ek`` with SIGINT ignored: the command's handler takes over
    Python's own handler only, so the Ctrl-C meant for the terminal's foreground job does not stop this run."""
    import signal

    corpus = synthetic_corpus(tmp_path / "c.jsonl", 20_000)
    report = tmp_path / "r.json"
    proc = subprocess.run([sys.executable, "-c", _SIGNAL_IN_A_FORK_CALLBACK, "SIGINT", "score", str(corpus),
                           "--jobs", "2", "--grammar", str(SCHEMAS / "travel-v2.ek"), "--json", str(report)],
                          capture_output=True, text=True, timeout=120, check=False,
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    assert proc.returncode == 0 and report.exists(), (proc.returncode, proc.stderr[-2000:])
