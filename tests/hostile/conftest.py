"""The hostile-input suite runs the real ``ek`` CLI with the helpers of ``tests/cli`` (run_ek, corpus writers)."""

import sys
from pathlib import Path

CLI_TESTS = str(Path(__file__).resolve().parents[1] / "cli")
if CLI_TESTS not in sys.path:
    sys.path.insert(0, CLI_TESTS)
