"""``ek gen SCHEMA... -o DIR``: write one module per grammar version plus an ``__init__.py`` index.

The index lists every generated module the folder holds: the ones written now
and the ones an earlier run wrote from other schemas (left as they are), so
regenerating a subset never drops the others. ``--check`` writes nothing: it
names every stale or missing file among the given schemas' modules and the
index, and exits 1, so CI catches a schema edited without regenerating.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ek.atomicfile import write_texts_atomic
from ek.codegen import (
    GenerationError,
    compile_checked,
    generate_index,
    module_filename,
    module_stem,
    render,
)
from ek.grammar.model import GraphGrammar
from ek.runtime.stamps import Stamps, generated_modules


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = ("exit status: 0 on success (--check: every file up to date); 1 when a schema is invalid, a "
                     "file cannot be written or (--check) is stale or missing; 2 for '-' (stdin), which is no "
                     "schema file")
    parser.add_argument("schemas", nargs="+", metavar="SCHEMA",
                        help=".ek schema files (one module per NAME@VERSION); not '-': a module records its schema "
                             "file")
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
    for message in file_name_clashes(grammars):
        print(message, file=sys.stderr)
        failed = True
    return None if failed else grammars


def file_name_clashes(grammars: list[GraphGrammar]) -> list[str]:
    """An error for each grammar whose module file name an earlier one of another key already takes
    (``a-b@1`` and ``a_b@1`` are both ``a_b_v1.py``): one would overwrite the other."""
    taken: dict[str, GraphGrammar] = {}
    found = []
    for g in grammars:
        first = taken.setdefault(module_filename(g), g)
        if first.key != g.key:
            found.append(f"{g.source_path}: error: grammar {g.key} would be written to {module_filename(g)}, as "
                         f"{first.key} of {first.source_path} is: rename one of them")
    return found


def overwritten_modules(grammars: list[GraphGrammar], out_dir: Path) -> list[str]:
    """An error for each module in ``out_dir`` that a given grammar of another key would overwrite: ``ek gen``
    replaces the modules of the grammars it is given, never another grammar's."""
    files = {module_filename(g): g for g in grammars}
    found = []
    for stamps in generated_modules(out_dir):
        g = files.get(stamps.path.name)
        if g is not None and stamps.key != g.key:
            found.append(f"{g.source_path}: error: grammar {g.key} would overwrite {stamps.path}, the module of "
                         f"{stamps.key}: rename one of them, or delete {stamps.path} to drop {stamps.key}")
    return found


def expected_files(grammars: list[GraphGrammar], out_dir: Path) -> dict[Path, str]:
    """Each file this run owns in ``out_dir`` and its exact contents: the given grammars' modules, and
    the index of every module the folder will hold (these and :func:`kept_modules`).

    Modules are rendered, not yet compile-checked: :func:`to_write` checks the ones to be written.
    """
    files = {out_dir / module_filename(g): render(g, out_dir) for g in grammars}
    kept = [(s.name, s.version) for s in kept_modules(out_dir, files)]
    files[out_dir / "__init__.py"] = generate_index([*grammars, *kept])
    return files


def is_current(path: Path, text: str) -> bool:
    """Whether ``path`` already holds exactly ``text``."""
    return path.is_file() and path.read_bytes() == text.encode("utf-8")


def to_write(files: dict[Path, str], grammars: list[GraphGrammar]) -> dict[Path, str]:
    """The files whose bytes change, each compile-checked (:func:`ek.codegen.compile_checked`) before
    any is written. A file already holding its text is not checked again: nothing is written to it,
    and compiling a module of a thousand tools is most of what ``ek gen`` costs."""
    keys = {module_filename(g): g.key for g in grammars}
    return {path: compile_checked(text, keys.get(path.name, "the package index"))
            for path, text in files.items() if not is_current(path, text)}


def other_modules(out_dir: Path, expected: dict[Path, str]) -> list[Stamps]:
    """Modules ``ek gen`` wrote into ``out_dir`` earlier that this run does not write."""
    return [s for s in generated_modules(out_dir) if s.path not in expected]


def kept_modules(out_dir: Path, expected: dict[Path, str]) -> list[Stamps]:
    """The :func:`other_modules` the index lists: those still under the file name ``ek gen`` gives them."""
    return [s for s in other_modules(out_dir, expected) if s.path.stem == module_stem(s.name, s.version)]


def notes(out_dir: Path, expected: dict[Path, str]) -> list[str]:
    """What the user may want to act on among the modules this run leaves alone."""
    found = []
    for s in other_modules(out_dir, expected):
        if s.path.stem != module_stem(s.name, s.version):
            found.append(f"note: {s.path} holds {s.key} under another name than {module_stem(s.name, s.version)}.py; "
                         "it is left alone and not indexed")
            continue
        recorded = s.schema_path or s.schema_file
        if recorded is not None and not (out_dir / recorded).is_file():
            gone = os.path.normpath(out_dir / recorded)
            found.append(f"note: {s.path} ({s.key}) is kept and indexed, but its schema {gone} is gone; "
                         f"delete the module to drop {s.key}")
    return found


#: Why ``ek gen`` takes no schema from stdin. The module's place and name are known (``-o DIR``, its
#: ``NAME@VERSION``), but not its schema's: a module records the path of the schema it was generated from, and
#: loading it (``resolve``, ``load_module``, the index's ``load``) finds it stale when that schema has changed
#: since. A module from stdin would record none, and be trusted as it is however its schema changed.
STDIN_REFUSED = ("ek gen: error: '-' (stdin) is no schema file: a generated module records the path of its schema, "
                 "so that loading it finds it stale once the schema changes, and stdin has none. Save the schema "
                 "to a file (ek import ... -o tools.ek, ek fmt - > tools.ek) and generate from it")


def run(args: argparse.Namespace) -> int:
    """The command, with the garbage collector paused: what ``ek gen`` allocates nearly all lives until it
    ends (the grammars' models, the modules' plans and text), so each collection, one every 10,000
    allocations (:mod:`ek.batchgc`), walked them again for the few cycles it found (4,000 objects in all for
    1,000 tools, against 5% of the command's time). The collector's state is restored after."""
    from ek.grammar.parser import gc_paused  # deferred like _load_all's: the DSL parser is loaded there

    if "-" in args.schemas:  # read as a file named "-" it was "-:1:1: error: cannot read schema: No such file"
        print(STDIN_REFUSED, file=sys.stderr)
        return 2
    with gc_paused():
        return _generate(args)


def _generate(args: argparse.Namespace) -> int:
    grammars = _load_all(args.schemas)
    if grammars is None:
        return 1
    out_dir = Path(args.out)
    if out_dir.exists() and not out_dir.is_dir():
        print(f"ek gen: {out_dir} exists and is not a folder", file=sys.stderr)
        return 1
    clashes = overwritten_modules(grammars, out_dir) if out_dir.is_dir() else []
    for message in clashes:
        print(message, file=sys.stderr)
    if clashes:
        return 1
    try:
        files = expected_files(grammars, out_dir)
    except GenerationError as err:  # a generator bug; say so instead of writing anything
        print(f"ek gen: {err}", file=sys.stderr)
        return 1
    for note in notes(out_dir, files):
        print(note, file=sys.stderr)
    if args.check:
        problems = 0
        for path, text in files.items():
            if not path.is_file():
                print(f"missing: {path}")
                problems += 1
            elif not is_current(path, text):
                print(f"stale: {path}")
                problems += 1
        if problems:
            print(f"{problems} generated file(s) out of date; run: ek gen {' '.join(args.schemas)} -o {out_dir}")
            return 1
        print(f"{len(files)} generated file(s) up to date in {out_dir}")
        return 0
    try:
        changed = to_write(files, grammars)
    except GenerationError as err:  # a generator bug; say so instead of writing anything
        print(f"ek gen: {err}", file=sys.stderr)
        return 1
    try:  # every changed file, or none of them (an unwritable one leaves the folder as it was)
        write_texts_atomic({path: text for path, text in files.items() if path in changed})
    except OSError as err:
        print(f"ek gen: cannot write {err.filename or args.out}: {err.strerror or err}; nothing was written",
              file=sys.stderr)
        return 1
    for path in files:
        print(f"wrote: {path}" if path in changed else f"unchanged: {path}")
    return 0
