"""ek.terminaltext: the one owner of which characters of text ek did not write reach a terminal as themselves."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ek.grammar.diagnostics import Diagnostic, shown
from ek.report.svg import visible
from ek.report.table import printable
from ek.terminaltext import escaped, replaced

#: C0 and C1 controls, DEL, and the bidi embeddings, overrides and isolates (and their pops): what a terminal
#: acts on (ESC, BEL, CSI) or what reorders a line's display.
_DRIVING = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")

#: every way ek prints foreign text, and the layout characters each keeps on purpose
WAYS: list[tuple[str, Callable[[str], str], str]] = [
    ("escaped", escaped, ""),
    ("printable (report table)", printable, ""),
    ("shown (schema messages, file names)", shown, ""),
    ("visible (HTML report)", visible, "\n\t"),
    ("replaced (diagnostic source line)", lambda text: replaced(text, keep="\t"), "\t"),
]

_hostile = st.text(alphabet=st.characters(codec="utf-8") | st.characters(categories=["Cc", "Cf", "Cs", "Zl", "Zp"])
                   | st.sampled_from("\x1b\x07\x9b\x85\x7f\t\n\r\u202e\u2066\u2069\u200b\u200d\xa0\ufeff"),
                   max_size=24)


@settings(max_examples=400, deadline=None)
@given(_hostile)
def test_no_way_of_printing_lets_a_control_or_bidi_character_through(text: str) -> None:
    for name, way, kept in WAYS:
        out = way(text)
        assert _DRIVING.search(out.translate({ord(ch): None for ch in kept})) is None, (name, text, out)
        assert out.translate({ord(ch): None for ch in kept}).isprintable(), (name, text, out)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8")).filter(str.isprintable))
def test_printable_text_passes_unchanged(text: str) -> None:
    for _name, way, _kept in WAYS:
        assert way(text) == text


@settings(max_examples=300, deadline=None)
@given(_hostile)
def test_an_escape_says_which_character_it_was_and_a_replacement_keeps_positions(text: str) -> None:
    """Each character is kept or written as Python writes it in a string literal (what the report's table
    always printed, pinned in tests/cli/test_report_table.py); a replacement is one character for one (carets
    under a source line stay put)."""
    assert escaped(text) == "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)
    assert len(replaced(text)) == len(text) and len(replaced(text, keep="\t")) == len(text)


def test_the_schema_commands_escape_what_the_report_escapes() -> None:
    """`shown` (schema messages and file names) escaped only its own set and kept the rest: a zero-width
    space, a no-break space or a tab in a file name reached the terminal as itself, where the report escaped
    them. One rule now."""
    for ch, escape in [("\u200b", "\\u200b"), ("\xa0", "\\xa0"), ("\t", "\\t"), ("\ufeff", "\\ufeff"),
                       ("\x1b", "\\x1b"), ("\u202e", "\\u202e"), ("\udcff", "\\udcff")]:
        assert shown(f"a{ch}b") == printable(f"a{ch}b") == f"a{escape}b"


def test_a_diagnostic_points_at_an_invisible_character_it_shows() -> None:
    """A zero-width space after a type name: the source line showed it as itself (nothing), and the caret
    pointed at empty space; now it is a replacement character, one cell, under the caret."""
    d = Diagnostic("zw.ek", 3, 11, "unexpected character '\\u200b'")
    assert d.render("grammar g 1\ntool t {\n    x: Sku\u200b\n}\n").split("\n")[1:] == [
        "        x: Sku\ufffd", "              ^"]


@pytest.mark.skipif(sys.platform != "linux", reason="a file name of any bytes but / and NUL")
def test_lint_names_a_file_with_an_invisible_character_visibly(tmp_path: Path) -> None:
    schema = tmp_path / "zw\u200b.ek"
    schema.write_text("grammar g 1\ntool t {\n    x: strng\n}\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "ek", "lint", str(schema)], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 1 and "zw\\u200b.ek:3:8: error" in done.stderr and "\u200b" not in done.stderr
