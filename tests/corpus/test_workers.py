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
