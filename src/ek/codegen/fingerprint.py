"""What a generated module records about its schema, so freshness follows the module's meaning.

A module is stale when regenerating it would change it. Its source follows from
the grammar's content (tools, fields, types, docs, weights: everything in the
plain-data table the module embeds), not from the schema file's bytes: a
comment, blank lines or reformatting leave the module as it is. So the module
records :func:`grammar_sha256`, the SHA-256 of that table written as the same
deterministic literal the module holds, and the runtime compares it with the
digest of the schema parsed now. ``SCHEMA_PATH`` records where that schema is,
relative to the module's folder, so a module named by its path finds it.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path, PurePath
from typing import Any

from ek.codegen.literals import py_literal
from ek.grammar.model import GraphGrammar
from ek.grammar.tables import grammar_to_table


def grammar_sha256(grammar: GraphGrammar, table: dict[str, Any] | None = None) -> str:
    """SHA-256 of the grammar's content: equal for two schemas that differ only in comments or layout.

    >>> from ek.grammar import parse
    >>> a = parse("grammar demo 1\\ntool ping {\\n    host: str\\n}\\n")
    >>> b = parse("# the demo tools\\ngrammar demo 1\\n\\ntool ping {   # one tool\\n  host: str\\n}\\n")
    >>> grammar_sha256(a) == grammar_sha256(b), a.source_sha256 == b.source_sha256
    (True, False)
    """
    if table is None:  # ``table``: ``grammar_to_table(grammar)``, when the caller has it already
        table = grammar_to_table(grammar)
    return hashlib.sha256(py_literal(table).encode("utf-8")).hexdigest()


def schema_path(grammar: GraphGrammar, out_dir: str | os.PathLike[str] | None) -> str | None:
    """Where ``grammar``'s schema file is, relative to ``out_dir`` (the module's folder), with ``/``.

    Relative, so output does not depend on where the checkout lives; None for a grammar
    without a file, a module compiled in memory (no folder), or a schema on another drive.

    >>> schema_path(GraphGrammar("t", 1, source_path="schemas/t.ek"), "gen")
    '../schemas/t.ek'
    """
    if grammar.source_path is None or out_dir is None:
        return None
    try:
        rel = os.path.relpath(Path(grammar.source_path).resolve(), Path(out_dir).resolve())
    except ValueError:  # Windows: another drive has no relative path
        return None
    return PurePath(rel).as_posix()
