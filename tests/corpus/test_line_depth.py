"""A corpus or gold-file line nested past ``ek.limits.CORPUS_LINE_MAX_DEPTH`` is an error line on every Python
version (the JSON decoder's own recursion limit differs between versions: 3.13 reads 3,000 levels, 3.11 not 1,000)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ek.corpus.reading import Episode, LineError, load_gold_file, parse_episode
from ek.limits import CORPUS_LINE_MAX_DEPTH

GOLD = [{"name": "f", "arguments": {"x": 1}}]


def _line(depth: int, **extra: object) -> str:
    """A line whose ignored ``meta`` key nests ``depth`` levels in all (the line's own object is one)."""
    meta = "[" * (depth - 1) + "]" * (depth - 1)
    return json.dumps({"id": 1, "pred": "f(x=1)", "gold": GOLD, **extra})[:-1] + f', "meta": {meta}}}'


@pytest.mark.parametrize("depth", [CORPUS_LINE_MAX_DEPTH + 1, 1_500, 3_000])
def test_a_line_nested_past_the_limit_is_an_error_line_whatever_the_version(depth: int) -> None:
    got = parse_episode(_line(depth), 4)
    assert isinstance(got, LineError) and got.line == 4
    assert got.reason == (f"invalid JSON: nested too deeply (deeper than {CORPUS_LINE_MAX_DEPTH} levels, "
                          "ek.limits.CORPUS_LINE_MAX_DEPTH)")


def test_a_line_at_the_limit_is_read() -> None:
    assert isinstance(parse_episode(_line(CORPUS_LINE_MAX_DEPTH), 1), Episode)


def test_brackets_inside_strings_do_not_count() -> None:
    text = "[" * 5_000 + "{" * 5_000 + '\\"['
    got = parse_episode(_line(3, note=text), 1)
    assert isinstance(got, Episode), got


def test_a_gold_file_line_nested_past_the_limit_is_an_error_line(tmp_path: Path) -> None:
    path = tmp_path / "gold.jsonl"
    path.write_text(json.dumps({"id": "a", "gold": GOLD})[:-1] + ', "m": ' + "[" * 1_500 + "]" * 1_500 + "}\n"
                    + json.dumps({"id": "b", "gold": GOLD}) + "\n", encoding="utf-8")
    entries, errors, _ = load_gold_file(path)
    assert [(e.line, "nested too deeply" in e.reason) for e in errors] == [(1, True)]
    assert entries["b"].gold and not entries["b"].unreadable
