"""The ``ek`` dispatcher, run as a real subprocess: every command is reachable and documents itself."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from ekcli import EXAMPLE, SCHEMAS
from ekcli import run_ek as ek

from ek import __version__
from ek.cli import COMMANDS


def test_version_and_help_list_every_command():
    assert ek("--version").stdout.strip() == f"ek {__version__}"
    out = ek("--help")
    assert out.returncode == 0
    for name in COMMANDS:
        assert f"  {name} " in out.stdout


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_has_help(command):
    out = ek(command, "--help")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith(f"usage: ek {command}")


def test_unknown_or_missing_command_is_a_usage_error():
    out = ek("scroe")
    assert out.returncode == 2 and "unknown command 'scroe'; did you mean 'score'?" in out.stderr
    assert ek().returncode == 2


def _run_with_stdout(args: list[str], stdout: str) -> subprocess.CompletedProcess[str]:
    """The real CLI with its stdout on ``/dev/full`` (every write fails: a full disk) or ``closed`` (``>&-``)."""
    if stdout == "closed":
        return subprocess.run([sys.executable, "-m", "ek", *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              stdin=subprocess.DEVNULL, text=True, timeout=120, check=False,
                              preexec_fn=lambda: os.close(1))
    with open(stdout, "w") as sink:
        return subprocess.run([sys.executable, "-m", "ek", *args], stdout=sink, stderr=subprocess.PIPE,
                              stdin=subprocess.DEVNULL, text=True, timeout=120, check=False)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("stdout", ["/dev/full", "closed"])
@pytest.mark.parametrize("command", ["diff", "fmt", "export", "compare"])
def test_a_console_that_cannot_be_written_is_an_error_not_a_traceback(tmp_path: Path, command: str,
                                                                      stdout: str) -> None:
    """`ek export ... > tools.json` on a full disk was a traceback with status 1 (which `ek diff` gives for a
    breaking change, `ek fmt --check` for an unformatted file), and a closed stdout (`>&-`) an AttributeError
    with status 120: now the command says so and exits 2, and the reports it writes are still written."""
    corpus = EXAMPLE / "corpus.jsonl"
    args = {"diff": ["diff", SCHEMAS / "travel-v2.ek", SCHEMAS / "travel-v2.ek"],
            "fmt": ["fmt", SCHEMAS / "travel-v2.ek"],
            "export": ["export", "--to", "openai", SCHEMAS / "travel-v1.ek"],
            "compare": ["compare", corpus, corpus, "--grammar", EXAMPLE / "travel-v2.ek", "--json", tmp_path / "r.json"],
            }[command]
    proc = _run_with_stdout(list(map(str, args)), stdout)
    assert "Traceback" not in proc.stderr and "Exception ignored" not in proc.stderr, proc.stderr
    assert proc.returncode == 2, proc.stderr
    assert f"ek {command}: error: cannot write to standard output: " in proc.stderr
    if command == "compare":
        assert json.loads((tmp_path / "r.json").read_text())["verdict"]
