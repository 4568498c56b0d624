"""A corpus of many distinct tools (a BFCL run's thousand functions, a model making up a name an episode): the
console lists the worst ``TOOL_ROWS_PRINTED``, the HTML page the worst ``TOOL_ROWS_SHOWN``, each saying how many
more there are; the JSON report keeps every tool."""

from __future__ import annotations

import json
import re
from pathlib import Path

from ekcli import gold, run_ek, write_lines

from ek.limits import TOOL_ROWS_PRINTED, TOOL_ROWS_SHOWN


def test_the_reports_show_the_worst_tools_and_say_how_many_more(tmp_path: Path) -> None:
    tools = TOOL_ROWS_SHOWN + 25
    corpus = write_lines(tmp_path / "c.jsonl", [
        {"id": i, "pred": f"made_up_{i}(x=1)", "gold": [gold("real", x=1)]} for i in range(tools - 1)])
    done = run_ek("score", corpus, "--json", tmp_path / "r.json", "--html", tmp_path / "r.html")
    assert done.returncode == 0, done.stderr
    assert len(json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["per_tool"]) == tools
    table = done.stdout.split("Per tool (worst F1 first)")[1].split("\n\n")[0]
    assert len(re.findall(r"^  (?:made_up_\d+|real) ", table, re.M)) == TOOL_ROWS_PRINTED
    assert f"... and {tools - TOOL_ROWS_PRINTED:,} more tools (all of them are in --json)" in table
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    per_tool = page.split('id="per-tool"')[1].split("</table>")[0]
    assert per_tool.count("<tr>") == 1 + TOOL_ROWS_SHOWN + 1  # the header, the tools, the "more" row
    assert f"and {tools - TOOL_ROWS_SHOWN:,} more tools" in per_tool
    assert f"F1 of the {TOOL_ROWS_SHOWN:,} worst of {tools:,} tools" in page


def test_a_few_tools_are_all_shown_with_no_more_row(tmp_path: Path) -> None:
    corpus = write_lines(tmp_path / "c.jsonl", [{"id": 1, "pred": "a(x=1)", "gold": [gold("b", x=1)]}])
    done = run_ek("score", corpus, "--html", tmp_path / "r.html")
    assert "more tools" not in done.stdout and "more tools" not in (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "F1 per tool (worst first)" in (tmp_path / "r.html").read_text(encoding="utf-8")
