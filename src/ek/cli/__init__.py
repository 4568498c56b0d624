"""The ``ek`` command line.

Each subcommand lives in its own module ``ek.cli.<name>`` exposing
``add_arguments(parser: argparse.ArgumentParser) -> None`` and
``run(args: argparse.Namespace) -> int``. Modules are imported only when their
command runs, so ``ek lint`` never pays for the scorer or the HTML report.
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import io
import os
import signal
import sys
from collections.abc import Iterable, Sequence
from typing import Any, TextIO

from ek.batchgc import collect_less
from ek.termination import Terminated, install, stop_if_asked

#: command -> (module, one-line help). The order is the order of ``ek --help``.
COMMANDS: dict[str, tuple[str, str]] = {
    "score": ("ek.cli.score", "score predicted tool calls against gold calls (JSON lines or BFCL files)"),
    "compare": ("ek.cli.compare", "paired bootstrap: is model B really better than model A on the same gold?"),
    "lint": ("ek.cli.lint", "check .ek schema files and report every error"),
    "fmt": ("ek.cli.fmt", "print .ek schema files in canonical layout (--write, --check)"),
    "diff": ("ek.cli.diff", "what changed between two grammar versions, and what breaks gold data"),
    "gen": ("ek.cli.gen", "generate importable Python modules from .ek schemas (--check for CI)"),
    "import": ("ek.cli.import_", "convert OpenAI/Anthropic/MCP/JSON Schema/BFCL tool definitions to .ek"),
    "export": ("ek.cli.export", "convert an .ek schema to OpenAI/Anthropic/MCP/JSON Schema tool definitions"),
}


def whole_number(text: str, least: int, words: str, most: int | None = None) -> int:
    """argparse type of a whole number from ``least`` to ``most`` (no bound when None), ``words`` saying which
    in the message (``"0 or more"``): the one reader of every such option of every command."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number {words}, got {text!r}") from None
    if value < least or (most is not None and value > most):
        raise argparse.ArgumentTypeError(f"expected a whole number {words}, got {value}")
    return value


class _Nowhere(io.TextIOBase):
    """The stream behind a closed stdout: takes text and keeps none (not a terminal, no file descriptor)."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        return len(text)


class ReaderGoneSafe:
    """The process's stdout, for a command run as its own process: once the reader of a pipe has gone
    (``ek score ... | head -1``), what is still printed goes to ``/dev/null``, so the command carries on, writes
    the reports it was asked for and exits as it would have (a BrokenPipeError out of ``print`` skipped them and
    exited 0; one at exit made it 120). Everything else is the stream's own.

    A console that cannot be written for another reason (a full disk behind ``> out.json``, an I/O error, a
    stdout closed with ``>&-``) is a failure, not a reader's choice: the command carries on the same way, and
    :attr:`failure` says why, for :func:`main` to report and exit with :data:`CONSOLE_FAILED` (it was a
    traceback and status 1, which ``ek diff`` and ``ek fmt --check`` give for a finding; a closed stdout was an
    ``AttributeError`` and status 120)."""

    def __init__(self, stream: TextIO | None) -> None:
        self._closed = stream is None
        # a closed stdout (``>&-``) is None in Python; what is printed then goes nowhere, and is a failure
        self._stream = stream if stream is not None else _Nowhere()
        self.failure: str | None = None

    def write(self, text: str) -> int:
        if self._closed and text:
            self.failure = self.failure or "it is closed"
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            self._to_devnull()
            return len(text)
        except OSError as exc:
            self._failed(exc)
            return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._to_devnull()
        except OSError as exc:
            self._failed(exc)

    def _failed(self, exc: OSError) -> None:
        self.failure = self.failure or (exc.strerror or str(exc))
        self._to_devnull()

    def _to_devnull(self) -> None:
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, self._stream.fileno())  # what the stream still holds goes there too
        finally:
            os.close(devnull)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


#: Exit status of a command whose standard output could not be written (a full disk, a closed stdout): what it
#: printed is lost, whatever it found.
CONSOLE_FAILED = 2


def _top_parser() -> argparse.ArgumentParser:
    epilog = "commands:\n" + "\n".join(f"  {name:<9} {help_}" for name, (_, help_) in COMMANDS.items())
    parser = argparse.ArgumentParser(
        prog="ek",
        description="Score how correctly an LLM agent called its tools.",
        epilog=epilog + "\n\nRun 'ek COMMAND --help' for a command's options.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="store_true", help="print ek's version and exit")
    parser.add_argument("command", nargs="?", help="one of: " + ", ".join(COMMANDS))
    return parser


def main(argv: Sequence[str] | None = None, *, own_process: bool | None = None) -> int:
    """Entry point of the ``ek`` console script and ``python -m ek``.

    ``own_process``: whether this call is its process's whole program, so ek may tune the process for a
    batch run (its garbage collector: :mod:`ek.batchgc`) once the command's modules are imported. Default:
    when ``argv`` is None (the console script and ``python -m ek``); a caller that passes ``argv`` from a
    process of its own (a test, a notebook) keeps its collector's settings unless it says otherwise.
    """
    if own_process is None:
        own_process = argv is None
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in COMMANDS:
        parser = _top_parser()
        ns, rest = parser.parse_known_args(argv)
        if ns.version:
            from ek import __version__

            print(f"ek {__version__}")
            return 0
        if ns.command is None:
            parser.print_help()
            return 2 if not argv else 0
        close = difflib.get_close_matches(ns.command, COMMANDS, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        parser.error(f"unknown command {ns.command!r}; {hint}choose from: {', '.join(COMMANDS)}")
    name, rest = argv[0], argv[1:]
    module_name, help_ = COMMANDS[name]
    module = importlib.import_module(module_name)
    parser = argparse.ArgumentParser(prog=f"ek {name}", description=help_)
    module.add_arguments(parser)
    args = parser.parse_args(rest)
    if own_process:
        collect_less()
        if not isinstance(sys.stdout, ReaderGoneSafe):
            sys.stdout = ReaderGoneSafe(sys.stdout)
        install()  # SIGTERM and Ctrl-C: recorded, deferred while workers start, raised where the run can stop
    try:
        status = int(module.run(args) or 0)
        if own_process:
            stop_if_asked()  # a SIGTERM or SIGINT swallowed where it landed, after the last place the run asks
    except BrokenPipeError:  # `ek ... | head` is not an error
        return 0
    except Terminated:
        print("ek: terminated", file=sys.stderr)
        return 128 + signal.SIGTERM
    except KeyboardInterrupt:
        print("ek: interrupted", file=sys.stderr)
        return 130
    console = sys.stdout
    if own_process and isinstance(console, ReaderGoneSafe):
        console.flush()  # what is still buffered fails now, not at exit where it would be a traceback
        if console.failure is not None:
            print(f"ek {name}: error: cannot write to standard output: {console.failure}", file=sys.stderr)
            return max(status, CONSOLE_FAILED)
    return status
