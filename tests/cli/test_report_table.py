"""The terminal table renderer: aligned columns, clipped and escaped cells."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from ek.report.table import format_table, printable


def test_report_table_aligns_columns() -> None:
    text = format_table(["tool", "F1"], [["a", "1.0000"], ["long_tool_name", "0.5"]], align="lr")
    lines = text.splitlines()
    assert len({len(line) for line in lines}) == 1
    assert lines[1].endswith("1.0000") and lines[2].endswith("   0.5")


def test_report_table_escapes_control_characters_and_clips() -> None:
    text = format_table(["id"], [["evil\x1b[2Jid\nnext"], ["x" * 100]], max_width=20)
    assert "\x1b" not in text and "\n" not in text.split("\n", 1)[1].replace("\n", "", 1)
    assert "\\x1b[2Jid\\nnext" in text
    assert "x" * 19 + "…" in text


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8") | st.sampled_from("\x1b\n\t\u202e\u200b\x7f\xa0 "),
               max_size=12))
def test_a_printable_cell_is_kept_whole_and_any_other_escaped_as_before(text: str) -> None:
    """printable's fast path (a text whose every character is printable, returned as it is) gives what
    escaping character by character gave."""
    assert printable(text) == "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


def test_report_header_names_every_grammar_used() -> None:
    from ekcli import EXAMPLE, run_ek

    proc = run_ek("score", EXAMPLE / "corpus.jsonl", "--grammar", EXAMPLE / "travel-v2.ek")
    header = proc.stdout.split("\n\n", 1)[0]
    assert "grammars used: " in header and "travel-v2.ek (28 episodes), travel@1 (2 episodes)" in header


def test_a_worst_episode_that_lost_no_weight_says_its_output_was_unreadable(tmp_path) -> None:
    """Gold ``[]`` and an unreadable output: no unit is lost (nothing was expected), but the episode is not
    exact (an unreadable output is never an abstention), so the worst list shows it; its row says why, in
    the table and in the HTML report, instead of F1 1.0, lost 0 and nothing more."""
    from ekcli import run_ek, write_lines

    corpus = write_lines(tmp_path / "c.jsonl", [{"id": "broken", "pred": "<tool_call>\n</tool_call>", "gold": []}])
    html = tmp_path / "r.html"
    proc = run_ek("score", corpus, "--html", html)
    (row,) = [line for line in proc.stdout.splitlines() if " broken " in line]
    assert row.split()[2:4] == ["1.0000", "0"]
    assert "unreadable output: hermes: line 1, column 1: an empty" in row  # the reason, clipped to the column
    assert re.search(r"<code>broken</code>.*?</td></tr>", html.read_text(encoding="utf-8"), re.S).group(0) \
        .endswith("<td>unreadable output</td></tr>")
