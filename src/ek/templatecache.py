"""Compiled jinja2 templates kept next to a package's bytecode, so a process does not compile them again.

jinja2 turns a template into Python and compiles it in every process: 10 ms for
``ek gen``'s four templates, 100 ms for the HTML report's one, which every ``ek
score --html`` paid before scoring a line. :class:`CompiledTemplates` keeps that
code in the package's ``__pycache__`` (``sys.pycache_prefix`` respected), as
Python keeps a module's, and as ``ek.grammar.parser`` keeps the DSL's parser
tables; loading it takes a fraction of the compile.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jinja2

from ek.atomicfile import write_bytes_atomic


def cache_folder(module_file: str) -> Path:
    """The ``__pycache__`` folder of the module at ``module_file`` (``sys.pycache_prefix`` respected)."""
    return Path(importlib.util.cache_from_source(module_file)).parent


class CompiledTemplates(jinja2.BytecodeCache):
    """The compiled code of one jinja2 environment's templates, one file each in ``folder``.

    A file is named by a digest of the template's name, jinja2's version and ``options`` (what the code
    is made from besides the text: the environment's settings; a callable by its qualified name), and
    holds jinja2's checksum of the text: a change of any makes jinja2 compile the template again. Not
    written under ``PYTHONDONTWRITEBYTECODE``, nor where the package cannot be written. Trusts no one
    new: whoever can write ``__pycache__`` can replace the package's bytecode.
    """

    def __init__(self, folder: Path, options: Mapping[str, Any]) -> None:
        self.folder = folder
        self._options = repr(sorted((name, _described(value)) for name, value in options.items()))

    def get_cache_key(self, name: str, filename: str | None = None) -> str:
        key = "\0".join([name, jinja2.__version__, self._options])
        return hashlib.sha256(key.encode("utf-8")).hexdigest()[:20]

    def _path(self, bucket: jinja2.bccache.Bucket) -> Path:
        return self.folder / f"ek.jinja2.{bucket.key}.cache"

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        """Fill ``bucket`` from its file; a missing, unreadable or stale file leaves it empty (compiled then)."""
        try:
            data = self._path(bucket).read_bytes()
        except OSError:
            return
        bucket.bytecode_from_string(data)  # checks jinja2's and Python's magic and the text's checksum

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        if sys.dont_write_bytecode:
            return
        try:
            write_bytes_atomic(self._path(bucket), bucket.bytecode_to_string())
        except OSError:
            pass


def _described(value: Any) -> str:
    """An option as text that is the same in every process: a callable (a finalize function, an undefined
    class) by its module and qualified name, anything else by ``repr``."""
    if callable(value):
        return f"{getattr(value, '__module__', '?')}.{getattr(value, '__qualname__', type(value).__qualname__)}"
    return repr(value)


__all__ = ["CompiledTemplates", "cache_folder"]
