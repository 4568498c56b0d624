"""``ek gen SCHEMA... -o DIR``: write one module per grammar version plus an ``__init__.py`` index.

``--check`` writes nothing: it names every stale or missing file and exits 1,
so CI catches a schema edited without regenerating.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ek.codegen import generate, generate_index, module_filename, write_atomic
from ek.grammar.model import GraphGrammar


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("schemas", nargs="+", metavar="SCHEMA", help=".ek schema files (one module per NAME@VERSION)")
    parser.add_argument("-o", "--out", required=True, metavar="DIR", help="package folder to write the modules into")
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 naming each stale or missing file (for CI)"
    )


def _load_all(paths: list[str]) -> list[GraphGrammar] | None:
    """Every schema, or None after printing every file's diagnostics and duplicate keys."""
    from ek.grammar import SchemaError, load

    grammars: list[GraphGrammar] = []
    failed = False
    for path in paths:
        try:
            grammars.append(load(path))
        except SchemaError as err:
            print(err, file=sys.stderr)
            failed = True
    seen: dict[str, str] = {}
    for g in grammars:
        if g.key in seen:
            print(f"{g.source_path}: error: grammar {g.key} is also defined in {seen[g.key]}", file=sys.stderr)
            failed = True
        seen.setdefault(g.key, str(g.source_path))
    return None if failed else grammars


def expected_files(grammars: list[GraphGrammar], out_dir: Path) -> dict[Path, str]:
    """Each file ``ek gen`` owns in ``out_dir`` and its exact contents."""
    files = {out_dir / module_filename(g): generate(g) for g in grammars}
    files[out_dir / "__init__.py"] = generate_index(grammars)
    return files


def run(args: argparse.Namespace) -> int:
    grammars = _load_all(args.schemas)
    if grammars is None:
        return 1
    out_dir = Path(args.out)
    files = expected_files(grammars, out_dir)
    if args.check:
        problems = 0
        for path, text in files.items():
            if not path.is_file():
                print(f"missing: {path}")
                problems += 1
            elif path.read_bytes() != text.encode("utf-8"):
                print(f"stale: {path}")
                problems += 1
        if problems:
            print(f"{problems} generated file(s) out of date; run: ek gen {' '.join(args.schemas)} -o {out_dir}")
            return 1
        print(f"{len(files)} generated file(s) up to date in {out_dir}")
        return 0
    for path, text in files.items():
        if path.is_file() and path.read_bytes() == text.encode("utf-8"):
            print(f"unchanged: {path}")
        else:
            write_atomic(path, text)
            print(f"wrote: {path}")
    return 0
