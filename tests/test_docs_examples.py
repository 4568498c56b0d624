"""The examples in docs/scoring.md run as doctests, so the reference cannot drift from the code."""

import doctest
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1] / "docs"


def test_scoring_reference_examples():
    result = doctest.testfile(str(DOCS / "scoring.md"), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_peers_examples():
    """docs/peers.md's ek calls for agentevals', DeepEval's and Ragas' modes (tests/test_peers_agreement.py runs
    them against the peers' recorded answers)."""
    result = doctest.testfile(str(DOCS / "peers.md"), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_readme_examples():
    readme = DOCS.parent / "README.md"
    result = doctest.testfile(str(readme), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_codegen_reference_examples(tmp_path, monkeypatch, capsys):
    """docs/codegen.md's classes example runs against the package its own `ek gen` command writes."""
    import sys

    from ek.cli import main

    schemas = DOCS.parent / "schemas"
    out = tmp_path / "travel_tools"
    assert main(["gen", str(schemas / "travel-v1.ek"), str(schemas / "travel-v2.ek"), "-o", str(out)]) == 0
    capsys.readouterr()
    for name in [m for m in sys.modules if m == "travel_tools" or m.startswith("travel_tools.")]:
        monkeypatch.delitem(sys.modules, name)  # another test's package of that name must not answer
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        result = doctest.testfile(str(DOCS / "codegen.md"), module_relative=False, optionflags=doctest.ELLIPSIS)
    finally:
        for name in [m for m in sys.modules if m == "travel_tools" or m.startswith("travel_tools.")]:
            del sys.modules[name]  # this test's package goes with its folder
    assert result.attempted > 0 and result.failed == 0
