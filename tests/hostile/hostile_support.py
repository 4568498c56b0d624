"""The hostile-input suite runs the real ``ek`` CLI with the helpers of ``tests/cli`` (no conftest here: pytest
imports every ``conftest.py`` of a folder without ``__init__`` under the one name, so a third one would clash
when folders are run together)."""

import sys
from pathlib import Path

_CLI_TESTS = str(Path(__file__).resolve().parents[1] / "cli")
if _CLI_TESTS not in sys.path:
    sys.path.insert(0, _CLI_TESTS)

from ekcli import EXAMPLE, gold, gold_file_for, run_ek, synthetic_corpus, write_lines  # noqa: E402

__all__ = ["EXAMPLE", "gold", "gold_file_for", "run_ek", "synthetic_corpus", "write_lines"]
