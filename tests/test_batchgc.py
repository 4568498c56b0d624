"""ek.batchgc: the collector settings of a process ek owns, applied by the `ek` command and its --jobs workers,
never by a library call."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import textwrap
from pathlib import Path

from ekcli import REPO, SCHEMAS, synthetic_corpus

from ek.batchgc import BATCH_THRESHOLDS
from ek.cli import main
from ek.corpus.runner import RunOptions, run


def _python(code: str) -> dict[str, object]:
    """Run ``code`` in a fresh interpreter (the collector's settings are per process); its last line is JSON."""
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          check=True, cwd=REPO, timeout=120)
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


REPORT = "print(json.dumps({'threshold': gc.get_threshold(), 'frozen': gc.get_freeze_count()}))"
#: A fresh interpreter's collector, which each one below starts with: its thresholds ((700, 10, 10) up to 3.12,
#: (2000, 10, 10) from 3.13) and how many objects it holds frozen (none, but 375 in 3.12: its start-up freezes)
FRESH = _python(f"import gc, json\n{REPORT}")
DEFAULTS, FROZEN = tuple(FRESH["threshold"]), FRESH["frozen"]  # type: ignore[call-overload]


def test_collect_less_freezes_what_is_alive_and_raises_the_threshold() -> None:
    seen = _python(f"""
        import gc, json
        before = gc.get_threshold(), gc.get_freeze_count()
        from ek.batchgc import collect_less
        collect_less()
        assert before == ({DEFAULTS}, {FROZEN}), before
        {REPORT}
    """)
    assert tuple(seen["threshold"]) == BATCH_THRESHOLDS  # type: ignore[arg-type]
    assert seen["frozen"] > 1000  # the interpreter's and ek's modules, classes and functions  # type: ignore[operator]


def test_the_ek_command_runs_its_process_with_batch_settings() -> None:
    # main() as the console script calls it: no argv, the command line in sys.argv
    seen = _python(f"""
        import gc, json, sys
        from ek.cli import main
        sys.argv = ["ek", "lint", {str(SCHEMAS / "travel-v2.ek")!r}]
        assert main() == 0
        {REPORT}
    """)
    assert tuple(seen["threshold"]) == BATCH_THRESHOLDS  # type: ignore[arg-type]
    assert seen["frozen"] > FROZEN  # type: ignore[operator]


def test_a_caller_that_passes_argv_keeps_its_collector(capsys) -> None:  # type: ignore[no-untyped-def]
    before = gc.get_threshold(), gc.get_freeze_count()
    assert main(["lint", str(SCHEMAS / "travel-v2.ek")]) == 0
    assert (gc.get_threshold(), gc.get_freeze_count()) == before
    capsys.readouterr()


def test_a_library_run_with_workers_keeps_the_callers_collector(tmp_path: Path) -> None:
    # the workers are ek's (the next test); the process that called run() is its caller's
    corpus = synthetic_corpus(tmp_path / "c.jsonl", 300)
    seen = _python(f"""
        import gc, json
        from ek.corpus.runner import RunOptions, run
        result = run({str(corpus)!r}, RunOptions(grammar={str(SCHEMAS / "travel-v2.ek")!r}), jobs=2)
        assert result.summary.episodes == 300, result.summary.episodes
        {REPORT}
    """)
    assert tuple(seen["threshold"]) == DEFAULTS  # type: ignore[arg-type]
    assert seen["frozen"] == FROZEN


def test_the_worker_initializer_applies_the_batch_settings() -> None:
    # a --jobs worker is a process ek started for its run: spawned ones (macOS, a Ray-connected driver) get
    # the settings from the initializer, as forked ones do (whatever their parent's settings)
    seen = _python(f"""
        import gc, json
        from ek.corpus.runner import RunOptions, _init_worker
        _init_worker(RunOptions(), None, None)
        {REPORT}
    """)
    assert tuple(seen["threshold"]) == BATCH_THRESHOLDS  # type: ignore[arg-type]
    assert seen["frozen"] > FROZEN  # type: ignore[operator]


def test_a_library_run_in_this_process_leaves_the_collector_alone(tmp_path: Path) -> None:
    corpus = synthetic_corpus(tmp_path / "c.jsonl", 50)
    before = gc.get_threshold(), gc.get_freeze_count()
    result = run(str(corpus), RunOptions(grammar=str(SCHEMAS / "travel-v2.ek")))
    assert result.summary.episodes == 50
    assert (gc.get_threshold(), gc.get_freeze_count()) == before
