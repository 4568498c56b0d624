"""Real schema folders and real generated packages shared by the runtime tests.

Not a ``conftest.py``: with ``--doctest-modules`` a second file of that name (beside
tests/codegen's) collides on import; test modules import the fixture by name instead.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import ek.grammar
from ek.codegen import write_modules

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"


@pytest.fixture()
def layout(tmp_path: Path) -> tuple[Path, Path]:
    """schemas/ with both travel versions, gen/ generated from them (as `ek gen schemas/*.ek -o gen` would)."""
    schemas, gen = tmp_path / "schemas", tmp_path / "gen"
    schemas.mkdir()
    for name in ("travel-v1.ek", "travel-v2.ek"):
        shutil.copy(SCHEMAS / name, schemas / name)
    write_modules([ek.grammar.load(p) for p in sorted(schemas.glob("*.ek"))], gen)
    return schemas, gen
