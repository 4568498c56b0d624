"""The tool-schema DSL: parse ``.ek`` text into the typed model, check it, print it back.

>>> from ek.grammar import parse, format_grammar
>>> g = parse('grammar demo 1\\ntool "math.hypot" {\\n    x: float\\n    y: float compare tol(0.001)\\n}\\n')
>>> g.key, [f.name for f in g.tool("math.hypot").fields]
('demo@1', ['x', 'y'])
>>> parse(format_grammar(g)) == g
True
"""

from __future__ import annotations

from ek._lazy import lazy_exports

# Loaded on first use, for start-up speed: generated modules import ek.grammar.fits, ek.grammar.names and
# ek.grammar.tables (through ek.runtime), and must not pay for the Lark parser and the checker they never call.
_EXPORTS: dict[str, str] = {
    "load": "ek.grammar.api",
    "parse": "ek.grammar.api",
    "Diagnostic": "ek.grammar.diagnostics",
    "SchemaError": "ek.grammar.diagnostics",
    "Change": "ek.grammar.diff",
    "GrammarDiff": "ek.grammar.diff",
    "diff": "ek.grammar.diff",
    "format_source": "ek.grammar.formatter",
    "COMPARE_POLICIES": "ek.grammar.model",
    "ComparePolicy": "ek.grammar.model",
    "Constraints": "ek.grammar.model",
    "EnumType": "ek.grammar.model",
    "FieldSpec": "ek.grammar.model",
    "GraphGrammar": "ek.grammar.model",
    "ListType": "ek.grammar.model",
    "Location": "ek.grammar.model",
    "NO_CONSTRAINTS": "ek.grammar.model",
    "NO_DEFAULT": "ek.grammar.model",
    "NamedType": "ek.grammar.model",
    "ObjectType": "ek.grammar.model",
    "PRIMITIVE_TYPES": "ek.grammar.model",
    "PrimitiveType": "ek.grammar.model",
    "ToolSpec": "ek.grammar.model",
    "TypeAlias": "ek.grammar.model",
    "TypeNode": "ek.grammar.model",
    "format_grammar": "ek.grammar.printer",
}

__all__ = [
    "COMPARE_POLICIES",
    "NO_CONSTRAINTS",
    "NO_DEFAULT",
    "PRIMITIVE_TYPES",
    "Change",
    "ComparePolicy",
    "Constraints",
    "Diagnostic",
    "EnumType",
    "FieldSpec",
    "GrammarDiff",
    "GraphGrammar",
    "ListType",
    "Location",
    "NamedType",
    "ObjectType",
    "PrimitiveType",
    "SchemaError",
    "ToolSpec",
    "TypeAlias",
    "TypeNode",
    "diff",
    "format_grammar",
    "format_source",
    "load",
    "parse",
]

__getattr__, __dir__ = lazy_exports(__name__, globals(), _EXPORTS)
