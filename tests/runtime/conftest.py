"""Real schema folders and real generated packages shared by the runtime tests."""

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


def edit(path: Path, old: str, new: str) -> None:
    """Replace ``old`` (which must be there) by ``new`` in the file at ``path``."""
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
