"""Finding ``NAME@VERSION`` on a search path of generated packages and schema folders.

A generated module is preferred; it is refused when its ``SOURCE_SHA256`` no
longer matches the schema for the same key found beside it or on the path
(the error names the ``ek gen`` command that fixes it). Without a module the
schema is compiled in memory.
"""

from __future__ import annotations

import hashlib
import os
import re
import types
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from ek.grammar.names import safe_identifier
from ek.runtime.errors import GrammarNotFoundError, StaleModuleError
from ek.runtime.loader import (
    compile_grammar,
    load_module,
    load_schema,
    module_dir,
    regenerate_hint,
)

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
    """``(NAME, VERSION)`` from a schema's ``grammar`` header, read without a full parse."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
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


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def check_fresh(module: types.ModuleType, schema: Path) -> None:
    """Raise :class:`StaleModuleError` unless ``module`` was generated from ``schema``'s current bytes."""
    if module.SOURCE_SHA256 != file_sha256(schema):
        out_dir = module_dir(module)
        raise StaleModuleError(
            f"{getattr(module, '__file__', module.__name__)} is stale: {schema} changed since it was generated "
            f"(module SOURCE_SHA256 {str(module.SOURCE_SHA256)[:12]}..., schema {file_sha256(schema)[:12]}...). "
            f"Regenerate it: {regenerate_hint(schema, out_dir)}"
        )


def resolve(
    key: str,
    search_path: Iterable[str | os.PathLike[str]] = (".",),
    *,
    on_stale: Literal["error", "compile"] = "error",
) -> types.ModuleType:
    """The generated module for ``key`` (``"travel@2"``), found on ``search_path``.

    Folders are searched in order for ``<name>_v<version>.py`` and for ``.ek``
    files whose header names the key. A module is checked against the
    schema beside it (else the first on the path); a stale one raises
    :class:`StaleModuleError`, or with ``on_stale="compile"`` the schema is
    compiled in memory instead.
    """
    name, version = parse_key(key)
    dirs = [Path(d) for d in search_path]
    stem = f"{safe_identifier(name)}_v{version}"
    modules = [d / f"{stem}.py" for d in dirs if (d / f"{stem}.py").is_file()]
    schemas = find_schemas(name, version, dirs)
    if modules:
        module = load_module(modules[0])
        if (module.GRAMMAR_NAME, module.GRAMMAR_VERSION) != (name, version):
            raise StaleModuleError(f"{modules[0]} holds {module.GRAMMAR_NAME}@{module.GRAMMAR_VERSION}, not {key}")
        beside = [s for s in schemas if s.parent.resolve() == modules[0].parent.resolve()]
        named = [s for s in schemas if module.SCHEMA_FILE is not None and s.name == module.SCHEMA_FILE]
        candidates = beside or named or schemas
        if not candidates:
            return module
        schema = candidates[0]
        try:
            check_fresh(module, schema)
            return module
        except StaleModuleError:
            if on_stale != "compile":
                raise
        return compile_grammar(load_schema(schema))
    if schemas:
        return compile_grammar(load_schema(schemas[0]))
    where = ", ".join(str(d) for d in dirs) or "(empty search path)"
    raise GrammarNotFoundError(f"no generated module {stem}.py and no .ek schema for {key} in: {where}")
