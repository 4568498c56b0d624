"""BFCL function schemas -> an ek grammar (through :mod:`ek.interop`, which reports what does not fit)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ek.interop import ImportResult, import_tools


def to_grammar(functions: Sequence[Mapping[str, Any]] | Mapping[str, Any], name: str = "bfcl",
               version: int = 1) -> ImportResult:
    """A question entry's (or a list of entries') function schemas as ``name@version``, with issues.

    BFCL's types map to the DSL's: ``string``/``String``/``char`` -> ``str``, ``integer``/``long``/... ->
    ``int``, ``float``/``number``/``double`` -> ``float``, ``boolean`` -> ``bool``,
    ``array``/``tuple``/``ArrayList``/... -> ``list``, ``dict`` with properties -> an inline object,
    ``any`` -> ``any``; ``enum`` becomes ``enum(...)``.

    >>> funcs = [{"name": "math.hypot", "description": "Norm.", "parameters": {"type": "dict",
    ...     "properties": {"x": {"type": "integer"}, "z": {"type": "integer", "default": 0}}, "required": ["x"]}}]
    >>> from ek.grammar import format_grammar
    >>> print(format_grammar(to_grammar(funcs).grammar), end="")
    grammar bfcl 1
    <BLANKLINE>
    tool "math.hypot" {
        "Norm."
        x: int
        z: int = 0
    }
    """
    return import_tools(functions, "bfcl", name=name, version=version)
