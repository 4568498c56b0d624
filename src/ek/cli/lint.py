"""``ek lint FILE...``: check schema files and report every error (exit 1 when there is one)."""

from __future__ import annotations

import argparse
import json
import sys

from ek.grammar import SchemaError
from ek.grammar.api import load_argument
from ek.grammar.strings import json_shown


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = "exit status: 0 when every file is clean, 1 when any has an error (reported on stderr)"
    parser.add_argument("files", nargs="+", metavar="FILE", help=".ek schema files to check ('-' reads stdin)")
    parser.add_argument("--json", action="store_true", help="print diagnostics as JSON lines on stdout")


def run(args: argparse.Namespace) -> int:
    problems = 0
    bad_files = 0
    for path in args.files:
        try:
            load_argument(path)
        except SchemaError as err:
            bad_files += 1
            problems += len(err.diagnostics)
            if args.json:
                for d in err.diagnostics:
                    print(json_shown(json.dumps(d.to_json(), ensure_ascii=False)))
            else:
                print(err, file=sys.stderr)
    if problems and not args.json:
        errors = "error" if problems == 1 else "errors"
        files = "file" if bad_files == 1 else "files"
        print(f"{problems} {errors} in {bad_files} {files}", file=sys.stderr)
    return 1 if problems else 0
