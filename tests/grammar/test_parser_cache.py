"""The DSL parser's tables cached on disk read schemas exactly as a freshly built parser does, and a
cache file that cannot be used is ignored (the parser is built instead)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from ek.grammar import SchemaError, parse
from ek.grammar import parser as ek_parser

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"
BROKEN = 'grammar g 1\ntool a {\n  "x"\n  n: int [1..\n}\ntool b {\n  "y"\n  m: str = \n}\ntool c { "z"\n  k: list[int]\n}\n'


@pytest.fixture()
def cache_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The parser's cache redirected to ``tmp_path``, written even under PYTHONDONTWRITEBYTECODE."""
    path = tmp_path / "__pycache__" / "ek.lark.test.pickle"
    monkeypatch.setattr(ek_parser, "_tables_path", lambda grammar: path)
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    ek_parser.lark_parser.cache_clear()
    yield path
    ek_parser.lark_parser.cache_clear()


def outcome(text: str) -> object:
    """What reading ``text`` gives: the grammar, or every diagnostic as printed."""
    try:
        return parse(text, "x.ek")
    except SchemaError as err:
        return str(err)


def test_cached_parser_reads_as_the_built_one(cache_in: Path) -> None:
    texts = [(SCHEMAS / n).read_text(encoding="utf-8") for n in ("travel-v1.ek", "travel-v2.ek")] + [BROKEN]
    built = ek_parser.lark_parser()
    assert cache_in.is_file()  # the first process writes the tables
    fresh = [outcome(t) for t in texts]
    ek_parser.lark_parser.cache_clear()
    loaded = ek_parser.lark_parser()
    assert loaded is not built and loaded.source_path == "<deserialized>"  # read from the file, not rebuilt
    assert [outcome(t) for t in texts] == fresh
    assert isinstance(fresh[-1], str) and fresh[-1].count("error:") >= 2  # error recovery works on it too


@pytest.mark.parametrize("content", [b"", b"not a pickle", b"\x80\x05N."])
def test_unusable_cache_is_rebuilt(cache_in: Path, content: bytes) -> None:
    cache_in.parent.mkdir()
    cache_in.write_bytes(content)
    assert ek_parser._cached_tables(cache_in) is None
    parser = ek_parser.lark_parser()
    assert parser.source_path != "<deserialized>"
    assert outcome((SCHEMAS / "travel-v1.ek").read_text(encoding="utf-8")) == parse(
        (SCHEMAS / "travel-v1.ek").read_text(encoding="utf-8"), "x.ek")


def test_cache_key_follows_what_the_tables_are_built_from() -> None:
    grammar = "start: X\nX: \"x\"\n"
    path = ek_parser._tables_path(grammar)
    assert path is not None and path.parent.name == "__pycache__"
    assert ek_parser._tables_path(grammar + " ") != path
    assert ek_parser._tables_path(grammar) == path
