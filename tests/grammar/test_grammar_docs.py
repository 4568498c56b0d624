"""Every schema example in docs/dsl.md parses: the reference cannot drift from the parser."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ek.grammar import parse
from ek.grammar.formatter import format_source

DOC = Path(__file__).resolve().parents[2] / "docs" / "dsl.md"
BLOCKS = re.findall(r"```\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)


def schema_examples() -> list[str]:
    """Code blocks that are schema text (whole files, declarations, or argument lines)."""
    out = []
    for block in BLOCKS:
        if "NAME" in block or "FILE:" in block or "$ ek" in block or block.startswith("ek "):
            continue  # the grammar summary, diagnostics and shell sessions
        if block.startswith(("# ", "grammar ")):
            out.append(block)
        elif block.startswith(("tool ", "type ")):
            out.append("grammar doc 1\n" + block)
        elif re.match(r"    \w+: ", block):
            out.append("grammar doc 1\ntool example {\n" + block + "}\n")
    return out


EXAMPLES = schema_examples()


def test_the_reference_has_examples():
    assert len(EXAMPLES) >= 8


@pytest.mark.parametrize("text", EXAMPLES, ids=[f"block{i}" for i in range(len(EXAMPLES))])
def test_reference_examples_parse_and_format(text):
    g = parse(text, "dsl.md")
    assert parse(format_source(text)) == g
