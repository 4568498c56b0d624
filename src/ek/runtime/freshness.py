"""Is a generated module still what its schema generates? One check, however the module was named.

``resolve("NAME@VERSION")``, ``load_module(path or dotted name or folder)``,
``module_of``/``validator_for``/``grammar_of`` of a module or its path, and the
package index's ``load()`` all end in :func:`ensure_fresh` or :func:`check_fresh`.

A module's schema is the file it records: ``SCHEMA_PATH``, relative to the
module's own folder (generator 3), else ``SCHEMA_FILE`` in that folder. A
generator 3 module is fresh when its ``GRAMMAR_SHA256`` equals the digest of
that schema parsed now (:func:`ek.codegen.grammar_sha256`), so an edit to
comments or layout is not a change; older modules record ``SOURCE_SHA256``,
the file's bytes. A module whose schema is not where it says is trusted as it
is (a deployed package without its schemas).
"""

from __future__ import annotations

import hashlib
import os
import stat
import threading
import types
from pathlib import Path

from ek.boundedread import open_input
from ek.codegen import grammar_sha256
from ek.grammar import SchemaError, load
from ek.runtime.errors import GeneratedModuleError, StaleModuleError

#: (kind, schema path, size, mtime_ns, inode) -> (digest, NAME@VERSION or None); a schema is parsed
#: again only when it changed.
_digests: dict[tuple[str, str, int, int, int], tuple[str, str | None]] = {}
_DIGESTS_KEPT = 256
#: (module file, recorded relative path) -> the schema's resolved path; modules are checked often.
_schemas: dict[tuple[str, str], Path] = {}
_lock = threading.Lock()


def shown(path: str | os.PathLike[str]) -> str:
    """A path for messages: relative to the current folder when inside it, else absolute."""
    full = os.path.abspath(path)
    try:
        rel = os.path.relpath(full)
    except ValueError:  # another drive
        return full
    return full if rel == ".." or rel.startswith(".." + os.sep) else rel


def regenerate_hint(schema: str | os.PathLike[str] | None, out_dir: str | os.PathLike[str] | None) -> str:
    """The command that rebuilds a module, for error messages."""
    return f"ek gen {schema if schema is not None else 'SCHEMA.ek'} -o {out_dir if out_dir is not None else 'DIR'}"


def module_dir(module: types.ModuleType) -> Path | None:
    """The folder a generated module was imported from (None when it was compiled in memory)."""
    file = getattr(module, "__file__", None)
    return Path(file).parent if file and Path(file).is_file() else None


def recorded_schema(module: types.ModuleType) -> Path | None:
    """The schema file ``module`` says it was generated from (it may no longer exist); None when
    the module records none or was compiled in memory."""
    file = getattr(module, "__file__", None)
    relative = getattr(module, "SCHEMA_PATH", None) or getattr(module, "SCHEMA_FILE", None)
    if not isinstance(file, str) or not isinstance(relative, str) or not relative:
        return None
    key = (file, relative)
    with _lock:
        hit = _schemas.get(key)
    if hit is not None:
        return hit
    folder = module_dir(module)
    if folder is None:
        return None
    found = (folder.resolve() / relative).resolve()
    with _lock:
        _schemas[key] = found
        while len(_schemas) > _DIGESTS_KEPT:
            del _schemas[next(iter(_schemas))]
    return found


def _where(module: types.ModuleType) -> str:
    file = getattr(module, "__file__", None)
    return shown(file) if file and Path(file).is_file() else str(file or module.__name__)


def _digest(kind: str, schema: Path, st: os.stat_result | None = None) -> tuple[str, str | None]:
    """``"grammar"``: the digest of the parsed schema's content, and its key; ``"bytes"``: of its bytes."""
    st = st or schema.stat()
    key = (kind, os.path.abspath(schema), st.st_size, st.st_mtime_ns, st.st_ino)
    with _lock:
        hit = _digests.get(key)
    if hit is not None:
        return hit
    if kind == "bytes":
        with open_input(schema) as handle:  # a schema path: never left waiting on a named pipe
            digest: tuple[str, str | None] = (hashlib.sha256(handle.read()).hexdigest(), None)
    else:
        grammar = load(schema)
        digest = (grammar_sha256(grammar), grammar.key)
    with _lock:
        _digests[key] = digest
        while len(_digests) > _DIGESTS_KEPT:
            del _digests[next(iter(_digests))]
    return digest


def check_fresh(module: types.ModuleType, schema: str | os.PathLike[str], st: os.stat_result | None = None) -> None:
    """Raise :class:`StaleModuleError` unless regenerating ``module`` from ``schema`` would give the same
    grammar; the message names the module, the schema and the ``ek gen`` command that fixes it.
    ``st``: the schema's ``os.stat`` result when the caller has it."""
    path = Path(schema)
    grammar_stamp = getattr(module, "GRAMMAR_SHA256", None)
    stamp, kind = (grammar_stamp, "grammar") if grammar_stamp is not None else (module.SOURCE_SHA256, "bytes")
    try:
        current, key = _digest(kind, path, st)
    except SchemaError as err:
        first = err.diagnostics[0].header if err.diagnostics else str(err)
        raise StaleModuleError(
            f"{_where(module)} is stale: its schema {shown(path)} no longer loads ({first}). "
            f"Fix the schema, then regenerate: {_hint(module, path)}"
        ) from None
    except OSError as err:
        raise GeneratedModuleError(
            f"cannot check {_where(module)} against its schema {shown(path)}: {err.strerror or err}"
        ) from None
    if current != stamp:
        raise StaleModuleError(_stale_reason(module, path, kind, str(stamp), current, key))


def _hint(module: types.ModuleType, schema: Path) -> str:
    return regenerate_hint(shown(schema), shown(module_dir(module) or "DIR"))


def _stale_reason(module: types.ModuleType, schema: Path, kind: str, stamp: str, current: str, key: str | None) -> str:
    where, held = _where(module), f"{module.GRAMMAR_NAME}@{module.GRAMMAR_VERSION}"
    if key is not None and key != held:
        return (
            f"{where} is stale: it holds {held}, but its schema {shown(schema)} now declares {key}. "
            f"Regenerate ({_hint(module, schema)}) and delete {where} if {held} is gone"
        )
    what = "GRAMMAR_SHA256" if kind == "grammar" else "SOURCE_SHA256"
    return (
        f"{where} is stale: {shown(schema)} changed since it was generated "
        f"(module {what} {stamp[:12]}..., schema now {current[:12]}...). Regenerate it: {_hint(module, schema)}"
    )


def ensure_fresh(module: types.ModuleType) -> types.ModuleType:
    """``module`` if it is fresh against the schema it records (or records none that exists), else raise
    :class:`StaleModuleError`."""
    schema = recorded_schema(module)
    if schema is None:
        return module
    try:
        st = schema.stat()
    except OSError:  # not there: nothing to compare with
        return module
    if stat.S_ISREG(st.st_mode):
        check_fresh(module, schema, st)
    return module
