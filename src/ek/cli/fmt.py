"""``ek fmt FILE...``: print schemas in canonical layout; ``--write`` in place, ``--check`` for CI, ``--diff`` to review."""

from __future__ import annotations

import argparse
import difflib
import os
import stat
import sys
from collections.abc import Iterator

from ek.atomicfile import write_text_atomic
from ek.grammar import SchemaError
from ek.grammar.api import decode_utf8, read_argument
from ek.grammar.diagnostics import shown
from ek.grammar.formatter import format_source


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = ("exit status: 0 on success; 1 when a file cannot be read or parsed, (--check) is not formatted, "
                     "or (--write) cannot be replaced as it is (not a regular file, read-only, hard-linked); "
                     "2 for --write with '-', or when standard output cannot be written")
    parser.add_argument("files", nargs="+", metavar="FILE", help=".ek schema files ('-' reads stdin)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--write", "-w", action="store_true", help="rewrite files in place when they change")
    mode.add_argument("--check", action="store_true", help="exit 1 and name the files that are not formatted")
    mode.add_argument("--diff", action="store_true", help="print a unified diff of what formatting would change")


def run(args: argparse.Namespace) -> int:
    if args.write and "-" in args.files:  # it printed the text instead, as if --write had not been given (gofmt too)
        print("ek fmt: error: --write rewrites files, and '-' (stdin) is none: drop --write to print the formatted "
              "text", file=sys.stderr)
        return 2
    status = 0
    for path in args.files:
        rewrite = args.write
        problem = _not_a_file(path) if rewrite else None
        if problem is not None:  # refused before it is read: reading a pipe would take its text from its reader
            print(f"ek fmt: error: cannot rewrite {shown(path)}: {problem}", file=sys.stderr)
            status = 1
            continue
        try:
            data, name = read_argument(path)
            text = decode_utf8(data, name)
            formatted = format_source(text, name)
        except SchemaError as err:
            print(err, file=sys.stderr)
            status = 1
            continue
        changed = formatted != text
        if args.check:
            if changed:
                print(f"would reformat {shown(path)}", file=sys.stderr)
                status = 1
        elif args.diff:
            if changed:
                sys.stdout.writelines(unified_diff(text, formatted, shown(path)))
        elif rewrite:
            if changed and not _rewrite(path, formatted):
                status = 1
        else:
            sys.stdout.write(formatted)
    return status


def unified_diff(old: str, new: str, name: str) -> Iterator[str]:
    r"""The unified diff of ``old`` to ``new`` as ``patch`` and ``git apply`` read it: lines split at ``\n`` only
    (``str.splitlines`` also splits at a form feed, which the DSL reads as a space, and at other separators),
    and a last line without its newline followed by ``\ No newline at end of file`` (it was glued to the next
    line of the diff).

    >>> print("".join(unified_diff("a\fb", "a b\n", "s.ek")).replace("\f", "<FF>"), end="")
    --- s.ek
    +++ s.ek (formatted)
    @@ -1 +1 @@
    -a<FF>b
    \ No newline at end of file
    +a b
    """
    for line in difflib.unified_diff(_lines(old), _lines(new), name, name + " (formatted)"):
        yield line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"


def _lines(text: str) -> list[str]:
    """``text`` in lines, each with its ``\\n`` (the last without one when the text does not end with one)."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _not_a_file(path: str) -> str | None:
    """Why ``--write`` cannot replace ``path`` whatever it holds (a pipe, a device, a folder), or None."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None  # reading it says why
    if stat.S_ISREG(mode):
        return None
    what = "a folder" if stat.S_ISDIR(mode) else "not a regular file"
    return f"{what}; --write replaces regular files only (print the formatted text instead: ek fmt FILE)"


def _kept_problem(path: str) -> str | None:
    """What replacing the file ``path`` by a renamed one would not keep, or None: its hard links (the other names
    would go on holding the old text) and its being read-only (a rename replaces a file its mode protects)."""
    status = os.stat(path)
    if status.st_nlink > 1:
        return (f"it has {status.st_nlink} hard links, which a replaced file would not keep (the other names would "
                "keep the old text)")
    if not status.st_mode & 0o222 or not os.access(path, os.W_OK):
        return "it is read-only"
    return None


def _rewrite(path: str, text: str) -> bool:
    """Replace ``path`` with ``text`` in one step (an interrupted run never leaves half a schema), keeping what it
    can keep (:mod:`ek.atomicfile`: its mode, a symlink); False, said on stderr, when it cannot keep the rest."""
    try:
        problem = _kept_problem(path)
        if problem is None:
            write_text_atomic(path, text)
    except OSError as exc:
        problem = exc.strerror or str(exc)
    if problem is not None:
        print(f"ek fmt: error: cannot rewrite {shown(path)}: {problem}", file=sys.stderr)
        return False
    print(f"reformatted {shown(path)}", file=sys.stderr)
    return True
