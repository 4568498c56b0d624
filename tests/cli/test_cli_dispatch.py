"""The ``ek`` dispatcher, run as a real subprocess: every command is reachable and documents itself."""


import pytest
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
