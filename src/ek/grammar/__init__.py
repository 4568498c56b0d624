"""The tool-schema DSL: parse ``.ek`` text into the typed model, check it, print it back.

>>> from ek.grammar import parse, format_grammar
>>> g = parse('grammar demo 1\\ntool "math.hypot" {\\n    x: float\\n    y: float compare tol(0.001)\\n}\\n')
>>> g.key, [f.name for f in g.tool("math.hypot").fields]
('demo@1', ['x', 'y'])
>>> parse(format_grammar(g)) == g
True
"""

from ek.grammar.api import load, parse
from ek.grammar.diagnostics import Diagnostic, SchemaError
from ek.grammar.diff import Change, GrammarDiff, diff
from ek.grammar.formatter import format_source
from ek.grammar.model import (
    COMPARE_POLICIES,
    NO_CONSTRAINTS,
    NO_DEFAULT,
    PRIMITIVE_TYPES,
    ComparePolicy,
    Constraints,
    EnumType,
    FieldSpec,
    GraphGrammar,
    ListType,
    Location,
    NamedType,
    ObjectType,
    PrimitiveType,
    ToolSpec,
    TypeAlias,
    TypeNode,
)
from ek.grammar.printer import format_grammar

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
