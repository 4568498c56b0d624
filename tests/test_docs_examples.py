"""The examples in docs/scoring.md run as doctests, so the reference cannot drift from the code."""

import doctest
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1] / "docs"


def test_scoring_reference_examples():
    result = doctest.testfile(str(DOCS / "scoring.md"), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_readme_examples():
    readme = DOCS.parent / "README.md"
    result = doctest.testfile(str(readme), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
