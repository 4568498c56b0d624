"""Promise: a ``--jobs`` worker killed by the OS stops ``ek score`` promptly with an error, never a hang.

The worker is killed for real: the test finds the ``ek`` process's forked
children in ``/proc`` and sends one SIGKILL mid-run, as the OOM killer would.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from ekcli import synthetic_corpus

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads worker pids from /proc")]

#: Lines enough that two workers need a few seconds, so the kill lands mid-run.
LINES = 40_000


def _children(pid: int) -> list[int]:
    """Pids of ``pid``'s children that are forks of it (same command line), from ``/proc``."""
    try:
        parent_cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return []
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:  # gone meanwhile
            continue
        ppid = int(stat[stat.rindex(")") + 2:].split()[1])  # after "(comm)": state, then ppid
        if ppid == pid and cmdline == parent_cmdline:
            found.append(int(entry.name))
    return sorted(found)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return state[state.rindex(")") + 2] != "Z"


def _wait_for_workers(proc: subprocess.Popen[str], count: int, timeout: float) -> list[int]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        workers = _children(proc.pid)
        if len(workers) >= count:
            return workers
        if proc.poll() is not None:
            break
        time.sleep(0.02)
    raise AssertionError(f"ek did not start {count} workers (exit status {proc.poll()})")


def test_a_worker_killed_mid_run_stops_the_run_with_a_clear_error(tmp_path: Path) -> None:
    corpus = synthetic_corpus(tmp_path / "corpus.jsonl", LINES)
    report = tmp_path / "report.json"
    proc = subprocess.Popen([sys.executable, "-m", "ek", "score", str(corpus), "--jobs", "2", "--json", str(report)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        workers = _wait_for_workers(proc, 2, timeout=30)
        time.sleep(0.5)  # let them score some chunks first
        assert proc.poll() is None, f"the run ended before the kill; raise LINES ({LINES})"
        os.kill(workers[0], signal.SIGKILL)
        killed_at = time.monotonic()
        out, err = proc.communicate(timeout=60)  # the old multiprocessing.Pool waited here forever
        took = time.monotonic() - killed_at
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 3, (proc.returncode, err)
    assert "Traceback" not in err, err
    assert "a worker process was killed by SIGKILL" in err and "not scored" in err, err
    assert "no report was written" in err and not report.exists()
    assert "F1" not in out, out  # no figures from a partial run
    assert took < 20, f"took {took:.1f}s to notice the dead worker"
    assert not any(_alive(pid) for pid in workers), "a worker outlived the run"


def test_compare_also_stops_when_a_worker_dies(tmp_path: Path) -> None:
    a = synthetic_corpus(tmp_path / "a.jsonl", LINES)
    b = synthetic_corpus(tmp_path / "b.jsonl", 10, seed=2)
    proc = subprocess.Popen([sys.executable, "-m", "ek", "compare", str(a), str(b), "--jobs", "2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        workers = _wait_for_workers(proc, 2, timeout=30)
        time.sleep(0.3)
        assert proc.poll() is None, f"the run ended before the kill; raise LINES ({LINES})"
        os.kill(workers[-1], signal.SIGKILL)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 3, (proc.returncode, err)
    assert "ek compare: error: a worker process was killed by SIGKILL" in err and "Traceback" not in err, err
    assert "verdict" not in out.lower() and "F1" not in out, out
