"""ek's typed model -> JSON Schema, keeping everything the round trip needs.

Named types become ``$defs`` entries referenced with ``$ref``; ek-only
settings (tool ``weight``, argument ``importance`` and ``compare``) travel as
``x-ek-*`` keys, which other tools ignore and ``ek import`` reads back.
"""

from __future__ import annotations

from typing import Any

from ek.grammar.model import (
    NO_CONSTRAINTS,
    Constraints,
    EnumType,
    FieldSpec,
    GraphGrammar,
    ListType,
    NamedType,
    ObjectType,
    PrimitiveType,
    ToolSpec,
    TypeNode,
)
from ek.interop.formats import format_of

_PRIMITIVES: dict[str, dict[str, Any]] = {
    "str": {"type": "string"},
    "int": {"type": "integer"},
    "float": {"type": "number"},
    "bool": {"type": "boolean"},
    "date": {"type": "string", "format": "date"},
    "datetime": {"type": "string", "format": "date-time"},
    "any": {},
}


def export_pattern(pattern: str) -> str:
    """The DSL's full-match regex as a JSON Schema ``pattern`` (which matches anywhere).

    >>> export_pattern("[A-Z]{3}"), export_pattern("a|b")
    ('^[A-Z]{3}$', '^(?:a|b)$')
    """
    if "|" in pattern or pattern.endswith("\\"):
        return f"^(?:{pattern})$"
    return f"^{pattern}$"


class SchemaWriter:
    """Writes the schemas of one grammar's tools, collecting the named types each one uses."""

    def __init__(self, grammar: GraphGrammar) -> None:
        self.grammar = grammar

    def parameters(self, tool: ToolSpec) -> dict[str, Any]:
        """The ``parameters``/``input_schema`` object of one tool, with its own ``$defs``."""
        used: dict[str, None] = {}
        schema = self._object(tool.fields, used)
        defs: dict[str, Any] = {}
        pending = list(used)
        while pending:
            name = pending.pop(0)
            if name in defs:
                continue
            alias = self.grammar.type_alias(name)
            if alias is None:
                continue
            more: dict[str, None] = {}
            definition = self._type(alias.type, alias.constraints, more)
            if alias.doc:
                definition["description"] = alias.doc
            defs[name] = definition
            pending.extend(n for n in more if n not in defs)
        if defs:
            schema["$defs"] = dict(sorted(defs.items()))
        return schema

    def _object(self, fields: tuple[FieldSpec, ...], used: dict[str, None]) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "object", "properties": {f.name: self._field(f, used) for f in fields}}
        required = [f.name for f in fields if f.required]
        if required:
            schema["required"] = required
        schema["additionalProperties"] = False
        return schema

    def _field(self, spec: FieldSpec, used: dict[str, None]) -> dict[str, Any]:
        schema = self._type(spec.type, spec.constraints, used)
        if spec.doc:
            schema["description"] = spec.doc
        if spec.has_default:
            schema["default"] = spec.default
        if spec.importance != 1.0:
            schema["x-ek-importance"] = spec.importance
        if spec.compare is not None:
            schema["x-ek-compare"] = str(spec.compare)
        return schema

    def _type(self, node: TypeNode, constraints: Constraints, used: dict[str, None]) -> dict[str, Any]:
        if isinstance(node, NamedType):
            used[node.name] = None
            schema: dict[str, Any] = {"$ref": f"#/$defs/{node.name}"}
            if not constraints.is_empty:
                base, _ = self.grammar.resolve(node)
                schema.update(self._constraints(base, constraints))
            return schema
        if isinstance(node, EnumType):
            return {"type": "string", "enum": list(node.members)}
        if isinstance(node, ListType):
            schema = {"type": "array", "items": self._type(node.item, NO_CONSTRAINTS, used)}
        elif isinstance(node, ObjectType):
            schema = self._object(node.fields, used)
        else:
            schema = dict(_PRIMITIVES[node.name])
        schema.update(self._constraints(node, constraints))
        return schema

    def _constraints(self, base: TypeNode, c: Constraints) -> dict[str, Any]:
        if c.is_empty:
            return {}
        if isinstance(base, ListType):
            keys = ("minItems", "maxItems")
        elif isinstance(base, PrimitiveType) and base.name in ("int", "float"):
            keys = ("minimum", "maximum")
        else:
            keys = ("minLength", "maxLength")
        out: dict[str, Any] = {}
        if c.min is not None:
            out[keys[0]] = c.min
        if c.max is not None:
            out[keys[1]] = c.max
        if c.pattern is not None:
            fmt = format_of(c.pattern) if keys[0] == "minLength" else None
            if fmt is not None:
                out["format"] = fmt
            else:
                out["pattern"] = export_pattern(c.pattern)
        return out
