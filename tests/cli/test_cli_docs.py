"""docs/cli.md against the parsers themselves: every option of every command is documented, and every option
the page names exists (a renamed or removed option leaves no stale line behind)."""

from __future__ import annotations

import argparse
import importlib
import re
from pathlib import Path

import pytest

from ek.cli import COMMANDS, _top_parser

CLI_MD = Path(__file__).resolve().parents[2] / "docs" / "cli.md"


def options_of(command: str) -> set[str]:
    """Every option string (``-o`` and ``--out`` alike) of ``ek COMMAND``, from the parser the command builds."""
    parser = argparse.ArgumentParser(prog=f"ek {command}")
    importlib.import_module(COMMANDS[command][0]).add_arguments(parser)
    return {name for action in parser._actions for name in action.option_strings if name not in ("-h", "--help")}


def top_options() -> set[str]:
    return {name for action in _top_parser()._actions for name in action.option_strings}


def documented_options() -> set[str]:
    """Options the page names in code spans and code blocks; link targets (``#order-any--strict``) are not text."""
    text = re.sub(r"\]\([^)]*\)", "]", CLI_MD.read_text(encoding="utf-8"))
    code = re.findall(r"`[^`\n]+`", text) + re.findall(r"^```.*?^```", text, flags=re.S | re.M)
    return {option for span in code for option in re.findall(r"(?<![\w-])(--?[a-z][a-z0-9-]*)", span)}


def row_of(command: str) -> str:
    """The row of ``ek COMMAND`` in the table of every command."""
    rows = [line for line in CLI_MD.read_text(encoding="utf-8").splitlines() if line.startswith(f"| `ek {command} ")]
    assert len(rows) == 1, f"docs/cli.md needs one row for ek {command} in 'Every command and its options'"
    return rows[0]


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_option_of_every_command_is_in_cli_md(command: str) -> None:
    row = row_of(command)
    named = set(re.findall(r"(?<![\w-])(--?[a-z][a-z0-9-]*)", row))
    if command == "score":  # its row points at the options table, which names each one
        named = documented_options()
    assert options_of(command) - named == set()


def test_every_option_cli_md_names_exists() -> None:
    known = top_options() | {option for command in COMMANDS for option in options_of(command)}
    known |= {"-h", "--help"}
    assert documented_options() - known == set()


def test_the_score_options_table_lists_exactly_the_options_of_ek_score() -> None:
    text = CLI_MD.read_text(encoding="utf-8").split("### Options", 1)[1].split("\n\n", 2)[1]
    table = {m for row in text.splitlines() if row.startswith("| `")
             for m in re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", row.split("|")[1])}
    assert table == {option for option in options_of("score") if option.startswith("--")}


def test_ek_compare_asks_whether_b_beats_a() -> None:
    """A is the baseline and B the candidate (ΔF1 = F1(B) - F1(A)); the one-line help said it the other way round."""
    assert "B really" in COMMANDS["compare"][1] and "beat model B" not in COMMANDS["compare"][1]
