"""Finding ``NAME@VERSION`` on a search path of generated packages and schema folders.

A generated module is preferred; it is refused when it is stale against its
schema (:func:`ek.runtime.freshness.check_fresh`, the one check every way of
naming a module goes through; the error names the ``ek gen`` command that
fixes it). Its schema is the one it records, else the schema for the same key
beside it or on the path. Without a module the schema is compiled in memory.
"""

from __future__ import annotations

import os
import re
import types
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from ek.boundedread import TooLargeError, open_input, read_at_most
from ek.grammar.model import GraphGrammar
from ek.grammar.names import safe_identifier
from ek.limits import SCHEMA_FILE_MAX_BYTES
from ek.runtime.errors import GrammarNotFoundError, StaleModuleError
from ek.runtime.freshness import check_fresh, recorded_schema
from ek.runtime.loader import compile_grammar, import_generated, load_schema

_KEY = re.compile(r"\s*([^@\s]+)@([0-9]+)\s*")
_HEADER = re.compile(r'^[ \t]*grammar[ \t]+(?:"((?:[^"\\]|\\.)*)"|([^\s#"]+))[ \t]+([0-9]+)', re.MULTILINE)


def parse_key(key: str) -> tuple[str, int]:
    """``"travel@2"`` -> ``("travel", 2)``; a clear ValueError for anything else.

    >>> parse_key("travel@2")
    ('travel', 2)
    """
    m = _KEY.fullmatch(key)
    if m is None:
        raise ValueError(f"expected NAME@VERSION (like 'travel@2'), got {key!r}")
    return m.group(1), int(m.group(2))


def schema_key(path: Path) -> tuple[str, int] | None:
    """``(NAME, VERSION)`` from a schema's ``grammar`` header, read without a full parse; None for a file that
    is not a schema, or not a file (a named pipe in a search folder is passed over, never waited on)."""
    try:
        with open_input(path) as handle:
            text = read_at_most(handle, SCHEMA_FILE_MAX_BYTES, "the schema").decode("utf-8")
    except (OSError, UnicodeDecodeError, TooLargeError):
        return None
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        m = _HEADER.match(line)
        if m is None:
            return None
        return (m.group(1) if m.group(1) is not None else m.group(2)), int(m.group(3))
    return None


def find_schemas(name: str, version: int, dirs: Iterable[Path]) -> list[Path]:
    """Every ``.ek`` file in ``dirs`` (in order, files sorted) whose header is ``NAME VERSION``."""
    found = []
    for d in dirs:
        if d.is_dir():
            found += [p for p in sorted(d.glob("*.ek")) if schema_key(p) == (name, version)]
    return found


def resolve(
    key: str,
    search_path: Iterable[str | os.PathLike[str]] = (".",),
    *,
    on_stale: Literal["error", "compile"] = "error",
) -> types.ModuleType:
    """The generated module for ``key`` (``"travel@2"``), found on ``search_path``.

    Folders are searched in order for ``<name>_v<version>.py`` and for ``.ek``
    files whose header names the key. A module is checked against the
    schema it records (else the one beside it, else the first on the path); a stale one raises
    :class:`StaleModuleError`, or with ``on_stale="compile"`` the schema is
    compiled in memory instead.
    """
    found = _find(key, search_path, on_stale)
    return found if isinstance(found, types.ModuleType) else compile_grammar(load_schema(found))


def resolve_grammar(
    key: str,
    search_path: Iterable[str | os.PathLike[str]] = (".",),
    *,
    on_stale: Literal["error", "compile"] = "error",
) -> GraphGrammar:
    """The grammar of the module :func:`resolve` gives for ``key``: a fresh generated module's ``GRAMMAR``, or the
    schema it would compile, read without generating a module (what scoring needs: its validators are compiled
    per tool, as they are used). The same search, checks and errors as :func:`resolve`."""
    found = _find(key, search_path, on_stale)
    return found.GRAMMAR if isinstance(found, types.ModuleType) else load_schema(found)  # type: ignore[no-any-return]


def _find(key: str, search_path: Iterable[str | os.PathLike[str]],
          on_stale: Literal["error", "compile"]) -> types.ModuleType | Path:
    """:func:`resolve`'s search: the fresh generated module for ``key``, or the schema to compile in its place."""
    name, version = parse_key(key)
    dirs = [Path(d) for d in search_path]
    stem = f"{safe_identifier(name)}_v{version}"
    modules = [d / f"{stem}.py" for d in dirs if (d / f"{stem}.py").is_file()]
    schemas = find_schemas(name, version, dirs)
    if modules:
        module = import_generated(modules[0])
        if (module.GRAMMAR_NAME, module.GRAMMAR_VERSION) != (name, version):
            raise StaleModuleError(f"{modules[0]} holds {module.GRAMMAR_NAME}@{module.GRAMMAR_VERSION}, not {key}")
        recorded = recorded_schema(module)
        own = [recorded] if recorded is not None and recorded.is_file() else []
        beside = [s for s in schemas if s.parent.resolve() == modules[0].parent.resolve()]
        named = [s for s in schemas if module.SCHEMA_FILE is not None and s.name == module.SCHEMA_FILE]
        candidates = own or beside or named or schemas
        if not candidates:
            return module
        try:
            check_fresh(module, candidates[0])
            return module
        except StaleModuleError:
            fallback = [s for s in candidates[:1] + schemas if schema_key(s) == (name, version)]
            if on_stale != "compile" or not fallback:
                raise
        return fallback[0]
    if schemas:
        return schemas[0]
    where = ", ".join(str(d) for d in dirs) or "(empty search path)"
    raise GrammarNotFoundError(f"no generated module {stem}.py and no .ek schema for {key} in: {where}")
