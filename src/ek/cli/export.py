"""``ek export --to FORMAT SCHEMA.ek``: print an ``.ek`` grammar's tools as JSON tool definitions.

What the target cannot hold (tool names an API refuses, types no tool uses)
is reported on stderr. Exit status: 0, 1 with ``--strict`` and any warning,
2 if the schema does not load.
"""

from __future__ import annotations

import argparse
import json
import sys

from ek.cli import whole_number
from ek.grammar.strings import json_shown
from ek.interop.files import write_output
from ek.interop.targets import TARGETS
from ek.limits import EXPORT_MAX_INDENT
from ek.terminaltext import escaped


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--to", dest="target", required=True, choices=TARGETS, help="format to write")
    parser.add_argument("schema", metavar="SCHEMA", help=".ek schema file ('-' reads stdin)")
    parser.add_argument("-o", "--output", metavar="PATH", help="write the JSON here instead of stdout")
    parser.add_argument("--indent", type=_indent, default=2,
                        help=f"JSON indentation, 0 to {EXPORT_MAX_INDENT} (default 2; 0 for one line)")
    parser.add_argument("--strict", action="store_true", help="exit 1 if anything at all was dropped")
    parser.add_argument("--openai-strict", action="store_true",
                        help='with --to openai: OpenAI strict mode ("strict": true, every property required, '
                             'optional ones typed ["T", "null"])')


def _indent(text: str) -> int:
    """argparse type of ``--indent``: a whole number from 0 to :data:`ek.limits.EXPORT_MAX_INDENT`."""
    return whole_number(text, 0, f"from 0 to {EXPORT_MAX_INDENT}", EXPORT_MAX_INDENT)


def run(args: argparse.Namespace) -> int:
    from ek.grammar import SchemaError
    from ek.grammar.api import load_argument
    from ek.interop import export_tools

    try:
        grammar = load_argument(args.schema)
    except SchemaError as err:
        print(err, file=sys.stderr)
        return 2
    if args.openai_strict and args.target != "openai":
        print(f"ek export: error: --openai-strict applies to --to openai only, not {args.target}", file=sys.stderr)
        return 2
    data, issues = export_tools(grammar, args.target, openai_strict=args.openai_strict)
    for issue in issues:
        print(escaped(f"{grammar.source_path}: {issue}"), file=sys.stderr)  # a file name ek did not write
    text = json_shown(json.dumps(data, indent=args.indent or None, ensure_ascii=False)) + "\n"
    if not write_output(text, args.output, "export", args.schema):
        return 2
    return 1 if args.strict and issues else 0
