"""``ek import --from FORMAT FILE``: print tool definitions as an ``.ek`` grammar.

Everything the DSL cannot say is reported on stderr as ``FILE: JSON-PATH:
warning|error: message``. Exit status: 0 (warnings only), 1 (something was
skipped, or ``--strict`` and any warning), 2 (the file cannot be read).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from ek.boundedread import argument_name
from ek.interop.files import read_json_or_lines, read_text, write_output
from ek.interop.sources import SOURCES
from ek.terminaltext import escaped


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--from", dest="source", required=True, choices=SOURCES, help="format of FILE")
    parser.add_argument("file", metavar="FILE", help="JSON file of tool definitions ('-' for stdin); "
                                                     "BFCL question files (JSON lines) too")
    parser.add_argument("--name", help="grammar name (default: the file name without extension)")
    parser.add_argument("--version", type=int, default=1, help="grammar version, a positive integer (default 1)")
    parser.add_argument("-o", "--output", metavar="PATH", help="write the .ek text here instead of stdout")
    parser.add_argument("--strict", action="store_true", help="exit 1 if anything at all was dropped")


def _bad_name(name: str) -> bool:
    from ek.grammar.names import unfit_character

    return not name or "@" in name or any(ch.isspace() for ch in name) or unfit_character(name) is not None


def _default_name(path: str) -> str:
    """The file name without extension, spaces, ``@`` and control characters made ``_`` (grammar names allow
    none of them: a file name may hold any, and the grammar written must lint).

    >>> _default_name("tools/my tools@v2.json"), _default_name("-"), _default_name("we\x1b[1mird\u202e.json")
    ('my_tools_v2', 'imported', 'we_[1mird')
    """
    from ek.grammar.names import unfit_character

    stem = Path(path).stem if path != "-" else "imported"
    stem = "".join(" " if unfit_character(ch) is not None else ch for ch in stem)  # then made "_" as a space is
    name = re.sub(r"[\s@]+", "_", stem).strip("_")
    return name or "imported"


def run(args: argparse.Namespace) -> int:
    from ek.grammar import format_grammar
    from ek.interop import import_tools

    if args.version < 1:
        print(f"ek import: error: --version must be a positive integer, got {args.version}", file=sys.stderr)
        return 2
    if args.name is not None and _bad_name(args.name):
        print(f"ek import: error: --name {args.name!r}: a grammar name must be non-empty, without spaces, '@' "
              f"or control characters", file=sys.stderr)
        return 2
    where = argument_name(args.file)
    try:
        data = read_json_or_lines(read_text(args.file), where)
    except ValueError as exc:
        print(f"ek import: error: {exc}", file=sys.stderr)
        return 2
    result = import_tools(data, args.source, name=args.name or _default_name(args.file), version=args.version)
    for issue in result.issues:
        print(escaped(f"{where}: {issue}"), file=sys.stderr)  # a file name ek did not write
    if not write_output(format_grammar(result.grammar), args.output, "import", args.file):
        return 2
    if result.errors or (args.strict and result.issues):
        return 1
    return 0
