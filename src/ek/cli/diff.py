"""``ek diff OLD.ek NEW.ek``: what changed between two grammar versions; exit 1 when it breaks gold data."""

from __future__ import annotations

import argparse
import json
import sys

from ek.grammar import SchemaError
from ek.grammar.api import load_argument
from ek.grammar.diff import diff
from ek.grammar.strings import json_shown


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = ("exit status: 0 when nothing breaks gold data written for OLD, 1 when a change does, 2 when a "
                     "schema is invalid or cannot be read")
    parser.add_argument("old", metavar="OLD.ek", help="the version gold data was written against ('-' reads stdin)")
    parser.add_argument("new", metavar="NEW.ek", help="the new version ('-' reads stdin)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")


def run(args: argparse.Namespace) -> int:
    """Exit 0: nothing breaks; 1: a change breaks gold data written for OLD; 2: a schema is invalid or cannot be
    read (or both are ``-``)."""
    if args.old == args.new == "-":  # the second read would find stdin empty: an empty schema, a confusing error
        print("ek diff: error: only one of OLD.ek and NEW.ek can be '-' (stdin can be read once)", file=sys.stderr)
        return 2
    grammars = []
    failed = False
    for path in (args.old, args.new):
        try:
            grammars.append(load_argument(path))
        except SchemaError as err:
            print(err, file=sys.stderr)
            failed = True
    if failed:
        return 2
    report = diff(grammars[0], grammars[1])
    if args.json:
        print(json_shown(json.dumps(report.to_json(), indent=2, ensure_ascii=False)))
    else:
        print(report.render())
    return 1 if report.is_breaking else 0
