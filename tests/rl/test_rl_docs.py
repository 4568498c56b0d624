"""The examples in docs/rl.md run as doctests (TRL, verl and OpenRLHF calls), so the guide cannot drift."""

import doctest
from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_rl_guide_examples() -> None:
    result = doctest.testfile(str(DOCS / "rl.md"), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 6 and result.failed == 0
