"""The runtime's public functions: validators and grammars for whatever names a grammar.

>>> from ek.grammar.model import GraphGrammar, ToolSpec, FieldSpec, PrimitiveType
>>> g = GraphGrammar("demo", 1, tools=(ToolSpec("ping", (FieldSpec("host", PrimitiveType("str")),)),))
>>> check = validator_for(g)
>>> check("ping", {"host": "example.org"})
[]
>>> check("ping", {"host": 7, "port": 80})
[Violation(path='$.host', reason='expected str, got int'), Violation(path='$.port', reason='unknown argument')]
>>> grammar_of(g) is g
True
"""


from __future__ import annotations

import os
import types
from collections.abc import Callable
from typing import Any

from ek.grammar.model import GraphGrammar
from ek.runtime.lazy import grammar_validator
from ek.runtime.violation import Violation

#: validator(tool_name, args) -> violations ([] when the call fits the schema)
Validator = Callable[[str, Any], list[Violation]]


def validator_for(obj: Any) -> Validator:
    """``validate(tool_name, args)`` for a GraphGrammar, a generated module, or a path to ``.ek``/``.py``.

    Unknown tools are a violation at ``$``, never an exception. For a grammar or
    a schema file, each tool's validator is compiled the first time it is used
    (the code ``ek gen`` would write), so a large grammar costs nothing up front.
    """
    if isinstance(obj, GraphGrammar):
        return grammar_validator(obj)
    loader = _loader()
    if loader.is_schema_path(obj):
        return grammar_validator(loader.load_schema(obj))
    return loader.module_of(obj).validate  # type: ignore[no-any-return]


def grammar_of(obj: Any) -> GraphGrammar:
    """The GraphGrammar behind a GraphGrammar, a generated module (its ``GRAMMAR``) or a schema/module path."""
    if isinstance(obj, GraphGrammar):
        return obj
    if not isinstance(obj, (types.ModuleType, str, os.PathLike)):
        raise TypeError(f"expected a GraphGrammar, a generated module or a path, got {type(obj).__name__}")
    loader = _loader()
    if loader.is_schema_path(obj):
        return loader.load_schema(obj)
    return loader.module_of(obj).GRAMMAR  # type: ignore[no-any-return]


def _loader() -> types.ModuleType:
    """:mod:`ek.runtime.loader`, imported when a path or a module names the grammar: it brings Lark and the code
    generator (30-40 ms of imports), which a GraphGrammar (built in code, or from BFCL's functions) never needs."""
    import ek.runtime.loader

    return ek.runtime.loader
