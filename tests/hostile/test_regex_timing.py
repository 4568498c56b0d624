"""The linear-time claim, measured: every accepted pattern of the corpus against long adversarial values.

Run in a child process with a CPU-time limit (so nothing here can hang the suite). A pattern the analysis
accepts must match each value of :data:`regex_timing.LONG` characters well under :data:`LIMIT` CPU seconds
(linear ones take milliseconds); the controls, refused patterns, show the adversarial values are the kind
that expose a quadratic or exponential pattern (they hit the limit).
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from regex_corpus import ACCEPTED, SLOW_CONTROLS
from regex_timing import CAP_LONG

HERE = Path(__file__).resolve().parent

#: CPU seconds one match of an accepted pattern may take at 200,000 characters: generous (linear
#: matches take a few milliseconds there), far below what a quadratic pattern needs (minutes).
LIMIT = 1.0


def _timed(patterns: dict[str, list[str]]) -> dict[str, float]:
    def limit_cpu() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (600, 600))

    done = subprocess.run([sys.executable, str(HERE / "regex_timing.py")], input=json.dumps(patterns),
                          capture_output=True, text=True, timeout=1200, preexec_fn=limit_cpu, check=True)
    return json.loads(done.stdout)  # type: ignore[no-any-return]


@pytest.mark.slow
def test_accepted_patterns_match_long_adversarial_values_in_linear_time() -> None:
    timed = _timed({**ACCEPTED, **SLOW_CONTROLS})
    assert {p: t for p, t in timed.items() if p in ACCEPTED and t > LIMIT} == {}
    assert all(timed[p] >= CAP_LONG for p in SLOW_CONTROLS), {p: timed[p] for p in SLOW_CONTROLS}
