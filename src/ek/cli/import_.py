"""``ek import --from FORMAT FILE``: print tool definitions as an ``.ek`` grammar.

Everything the DSL cannot say is reported on stderr as ``FILE: JSON-PATH:
warning|error: message``. Exit status: 0 (warnings only), 1 (something was
skipped, or ``--strict`` and any warning), 2 (the file cannot be read).
"""

from __future__ import annotations

import argparse
import json
import re
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


class _DuplicateKey(Exception):
    """Raised by the decoder hook; the caller finds the key's line and column."""


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


_DECODER = json.JSONDecoder(object_pairs_hook=_no_duplicates)


def _loads(text: str, where: str, line: int | None = None) -> Any:
    """One JSON document; duplicate keys are an error (parsers disagree on which value wins)."""
    at = f"{where}:{line}" if line is not None else where
    try:
        return _DECODER.decode(text)
    except RecursionError:
        raise ValueError(f"{at}: JSON nests too deeply to read") from None
    except _DuplicateKey as exc:
        from ek.parsing.json_text import duplicate_position

        row, col = duplicate_position(text) or (1, 1)
        place = f"{where}:{line}:{col}" if line is not None else f"{where}:{row}:{col}"
        raise ValueError(f"{place}: duplicate key {exc.args[0]!r:.80} in a JSON object (one of its values "
                         f"would be dropped silently)") from None


def read_json_or_lines(text: str, where: str) -> Any:
    """A JSON document, or JSON lines (as BFCL writes its ``.json`` files) as a list.

    >>> read_json_or_lines('{"a": 1}\\n{"a": 2}\\n', "f.json")
    [{'a': 1}, {'a': 2}]
    """
    try:
        return _loads(text, where)
    except json.JSONDecodeError as first:
        lines = [line for line in text.splitlines() if line.strip()]
        if len(lines) > 1:
            out = []
            for number, line in enumerate(text.splitlines(), 1):
                if not line.strip():
                    continue
                try:
                    out.append(_loads(line, where, number))
                except json.JSONDecodeError as exc:
                    raise ValueError(f"{where}:{number}:{exc.colno}: not JSON or JSON lines: {exc.msg}") from None
            return out
        raise ValueError(f"{where}:{first.lineno}:{first.colno}: not JSON: {first.msg}") from None


def read_text(path: str) -> str:
    """The UTF-8 text of ``path`` (``-``: stdin); unreadable files are a ``ValueError`` naming them."""
    if path == "-":
        return sys.stdin.read()
    try:
        return Path(path).read_bytes().decode("utf-8")
    except OSError as exc:
        raise ValueError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not UTF-8: {exc.reason} at byte {exc.start}") from None


def write_output(text: str, path: str | None, command: str) -> bool:
    """Write ``text`` to ``path`` (stdout if None); False, with the reason on stderr, if it cannot be written."""
    if path is None:
        sys.stdout.write(text)
        return True
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        print(f"ek {command}: error: cannot write {path}: {exc.strerror or exc}", file=sys.stderr)
        return False
    return True


def _bad_name(name: str) -> bool:
    return not name or "@" in name or any(ch.isspace() for ch in name)


def _default_name(path: str) -> str:
    """The file name without extension, spaces and ``@`` made ``_`` (grammar names allow neither).

    >>> _default_name("tools/my tools@v2.json"), _default_name("-")
    ('my_tools_v2', 'imported')
    """
    stem = Path(path).stem if path != "-" else "imported"
    name = re.sub(r"[\s@]+", "_", stem).strip("_")
    return name or "imported"


def run(args: argparse.Namespace) -> int:
    from ek.grammar import format_grammar
    from ek.interop import import_tools

    if args.version < 1:
        print(f"ek import: error: --version must be a positive integer, got {args.version}", file=sys.stderr)
        return 2
    if args.name is not None and _bad_name(args.name):
        print(f"ek import: error: --name {args.name!r}: a grammar name must be non-empty, without spaces or '@'",
              file=sys.stderr)
        return 2
    where = "<stdin>" if args.file == "-" else args.file
    try:
        data = read_json_or_lines(read_text(args.file), where)
    except ValueError as exc:
        print(f"ek import: error: {exc}", file=sys.stderr)
        return 2
    result = import_tools(data, args.source, name=args.name or _default_name(args.file), version=args.version)
    for issue in result.issues:
        print(f"{where}: {issue}", file=sys.stderr)
    if not write_output(format_grammar(result.grammar), args.output, "import"):
        return 2
    if result.errors or (args.strict and result.issues):
        return 1
    return 0
