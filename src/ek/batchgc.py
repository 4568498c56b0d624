"""How a process that ek owns runs CPython's cyclic garbage collector: less often, over fewer objects.

A process is ek's own when it is the ``ek`` command (the console script, ``python -m ek``) or a worker
process ek's corpus runner started for ``--jobs``. Library calls (``ek.corpus.run``, the rewards inside an
RL trainer, a Ray task) leave the collector of their caller's process as they found it: its settings are
process-wide.

Why: with CPython's default thresholds (700, 10, 10; 2,000, 10, 10 from Python 3.13) the collector runs
every 700 net allocations, and a full collection walks every object alive, the modules ek and its
dependencies imported included. Scoring a BFCL result file with one line per question keeps each question's
grammar and metric alive, so the heap grows all along the run and each full collection walks it again: about
a quarter of such a run's CPU time went to the collector (docs/performance.md, "The collector"). Two settings fix it:

- :func:`gc.freeze` once the command's modules are imported moves every object alive then (modules,
  classes, functions: they live until exit anyway) out of the collector's sight, so no collection walks
  them again; in a worker started by fork they are not touched either, so their memory pages stay shared;
- a youngest-generation threshold of 100,000 net allocations instead of 700 (2,000): the per-line work of a
  corpus run frees almost everything it allocates by reference counting, so collecting young objects less often
  finds as much garbage and walks the survivors (each new question's grammar and metric, kept for the run)
  fewer times. Unreachable cycles still go at the next collection: memory stays flat over a run (the memory
  figures of benchmarks/score.py: peak RSS x1.24 from 10k to 1M episodes, as with 10,000).

mypy tunes its collector the same way, for the same reason (``gc.set_threshold(200 * 1000, 30, 30)`` in
its build). 100,000 against the 10,000 of before: a BFCL run file of 1,000 questions -7% CPU (15 interleaved
rounds), 100,000-line files the same (docs/performance.md, "summed as they are scored").
"""

from __future__ import annotations

import gc
import sys

#: ``gc.set_threshold`` of a process ek owns (CPython's default: 700, 10, 10; 2,000 from 3.13); see the module's
#: docstring.
BATCH_THRESHOLDS = (100_000, 10, 10)


def collect_less() -> None:
    """Freeze the objects alive now and collect young objects less often, in a process ek owns (never call
    it from library code: the collector's settings are the whole process's). Only on CPython, whose
    collector these settings describe; elsewhere nothing changes.

    Calling it again freezes what became alive since, and leaves the thresholds as they are.
    """
    if sys.implementation.name != "cpython":  # (what platform.python_implementation() reads, without its import)
        return
    gc.freeze()
    gc.set_threshold(*BATCH_THRESHOLDS)


__all__ = ["BATCH_THRESHOLDS", "collect_less"]
