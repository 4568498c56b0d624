"""``ek fmt FILE...``: print schemas in canonical layout; ``--write`` in place, ``--check`` for CI, ``--diff`` to review."""

from __future__ import annotations

import argparse
import difflib
import sys

from ek.atomicfile import write_text_atomic
from ek.grammar import SchemaError
from ek.grammar.api import decode_utf8, read_bytes, read_schema_stream
from ek.grammar.formatter import format_source


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = "exit status: 0 on success; 1 when a file cannot be read or parsed, or (--check) is not formatted"
    parser.add_argument("files", nargs="+", metavar="FILE", help=".ek schema files ('-' reads stdin)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--write", "-w", action="store_true", help="rewrite files in place when they change")
    mode.add_argument("--check", action="store_true", help="exit 1 and name the files that are not formatted")
    mode.add_argument("--diff", action="store_true", help="print a unified diff of what formatting would change")


def run(args: argparse.Namespace) -> int:
    status = 0
    for path in args.files:
        try:
            text = _read_stdin() if path == "-" else decode_utf8(read_bytes(path), path)
            formatted = format_source(text, "<stdin>" if path == "-" else path)
        except SchemaError as err:
            print(err, file=sys.stderr)
            status = 1
            continue
        changed = formatted != text
        if args.check:
            if changed:
                print(f"would reformat {path}", file=sys.stderr)
                status = 1
        elif args.diff:
            if changed:
                sys.stdout.writelines(
                    difflib.unified_diff(
                        text.splitlines(keepends=True), formatted.splitlines(keepends=True), path, path + " (formatted)"
                    )
                )
        elif args.write and path != "-":
            if changed:
                write_text_atomic(path, formatted)  # an interrupted run never leaves half a schema
                print(f"reformatted {path}", file=sys.stderr)
        else:
            sys.stdout.write(formatted)
    return status


def _read_stdin() -> str:
    return decode_utf8(read_schema_stream(sys.stdin.buffer, "<stdin>"), "<stdin>")
