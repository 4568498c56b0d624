"""What :mod:`ek.boundedread` owns about standard input: its one name in messages, and reading it when closed."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

import ek
from ek import boundedread
from ek.grammar import api

SRC = Path(ek.__file__).parent


def test_stdin_has_one_name_spelt_in_one_module() -> None:
    """`ek import` spelt "<stdin>" itself while ek.grammar.api owned STDIN_NAME: two spellings of one name. Now
    ek.boundedread (the base layer every reader of stdin uses: grammar, interop, corpus) owns it, and no other
    module of ek writes the string."""
    assert api.STDIN_NAME is boundedread.STDIN_NAME == "<stdin>"
    spelt = sorted(str(path.relative_to(SRC)) for path in SRC.rglob("*.py")
                   if any(isinstance(node, ast.Constant) and node.value == "<stdin>"
                          for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))))
    assert spelt == ["boundedread.py"]


def test_a_closed_stdin_is_an_os_error_not_an_attribute_error(monkeypatch: pytest.MonkeyPatch) -> None:
    assert boundedread.stdin_stream() is sys.stdin.buffer
    monkeypatch.setattr(sys, "stdin", None)  # what Python sets when the process starts with fd 0 closed
    with pytest.raises(OSError, match="standard input is closed"):
        boundedread.stdin_stream()
