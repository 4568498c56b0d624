"""``ek import --from FORMAT FILE``: print tool definitions as an ``.ek`` grammar.

Everything the DSL cannot say is reported on stderr as ``FILE: JSON-PATH:
warning|error: message``. Exit status: 0 (warnings only), 1 (something was
skipped, or ``--strict`` and any warning), 2 (the file cannot be read).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ek.interop.sources import SOURCES


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--from", dest="source", required=True, choices=SOURCES, help="format of FILE")
    parser.add_argument("file", metavar="FILE", help="JSON file of tool definitions ('-' for stdin); "
                                                     "BFCL question files (JSON lines) too")
    parser.add_argument("--name", help="grammar name (default: the file name without extension)")
    parser.add_argument("--version", type=int, default=1, help="grammar version, a positive integer (default 1)")
    parser.add_argument("-o", "--output", metavar="PATH", help="write the .ek text here instead of stdout")
    parser.add_argument("--strict", action="store_true", help="exit 1 if anything at all was dropped")


def read_json_or_lines(text: str, where: str) -> Any:
    """A JSON document, or JSON lines (as BFCL writes its ``.json`` files) as a list."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError(f"{where}: JSON nests too deeply to read") from None
    except json.JSONDecodeError as first:
        lines = [line for line in text.splitlines() if line.strip()]
        if len(lines) > 1:
            out = []
            for number, line in enumerate(text.splitlines(), 1):
                if not line.strip():
                    continue
                try:
                    out.append(json.loads(line))
                except RecursionError:
                    raise ValueError(f"{where}:{number}: JSON nests too deeply to read") from None
                except json.JSONDecodeError as exc:
                    raise ValueError(f"{where}:{number}:{exc.colno}: not JSON or JSON lines: {exc.msg}") from None
            return out
        raise ValueError(f"{where}:{first.lineno}:{first.colno}: not JSON: {first.msg}") from None


def _default_name(path: str) -> str:
    stem = Path(path).stem if path != "-" else "imported"
    return stem or "imported"


def run(args: argparse.Namespace) -> int:
    from ek.grammar import format_grammar
    from ek.interop import import_tools

    if args.version < 1:
        print(f"ek import: error: --version must be a positive integer, got {args.version}", file=sys.stderr)
        return 2
    where = "<stdin>" if args.file == "-" else args.file
    try:
        text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text(encoding="utf-8")
        data = read_json_or_lines(text, where)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        print(f"ek import: error: {exc}", file=sys.stderr)
        return 2
    result = import_tools(data, args.source, name=args.name or _default_name(args.file), version=args.version)
    for issue in result.issues:
        print(f"{where}: {issue}", file=sys.stderr)
    output = format_grammar(result.grammar)
    if args.output:
        Path(args.output).write_text(output, encoding="utf-8")
    else:
        sys.stdout.write(output)
    if result.errors or (args.strict and result.issues):
        return 1
    return 0
