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
from ek.interop.issues import Issues, child

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
    """Writes the schemas of one grammar's tools, collecting the named types each one uses.

    ``strict`` writes OpenAI's strict-mode shape: every property of every object is in ``required``, and an
    optional argument says so by allowing ``null`` (``["T", "null"]``, or ``anyOf`` with null around a
    ``$ref``), which ``ek import`` reads back as ``?``. A value of type ``any`` has no strict shape (strict mode
    wants a ``type`` in every schema, and no object with keys it does not list): :attr:`not_strict` holds the
    JSON paths where the last :meth:`parameters` wrote one, for the caller to write that tool another way.
    """

    def __init__(self, grammar: GraphGrammar, *, strict: bool = False, issues: Issues | None = None) -> None:
        self.grammar = grammar
        self.strict = strict
        self.issues = issues if issues is not None else Issues()
        #: with ``strict``: where the last :meth:`parameters` wrote a schema strict mode refuses (an ``any``)
        self.not_strict: list[str] = []

    def parameters(self, tool: ToolSpec, path: str = "$") -> dict[str, Any]:
        """The ``parameters``/``input_schema`` object of one tool (at JSON ``path``), with its own ``$defs``."""
        self.not_strict = []
        used: dict[str, None] = {}
        schema = self._object(tool.fields, used, path)
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
            definition = self._type(alias.type, alias.constraints, more, child(child(path, "$defs"), name))
            if alias.doc:
                definition["description"] = alias.doc
            defs[name] = definition
            pending.extend(n for n in more if n not in defs)
        if defs:
            schema["$defs"] = dict(sorted(defs.items()))
        return schema

    def _object(self, fields: tuple[FieldSpec, ...], used: dict[str, None], path: str) -> dict[str, Any]:
        props = {f.name: self._field(f, used, child(child(path, "properties"), f.name)) for f in fields}
        schema: dict[str, Any] = {"type": "object", "properties": props}
        if self.strict:
            required = [f.name for f in fields if f.required or _null_allowed(props[f.name])]
        else:
            required = [f.name for f in fields if f.required]
        if required or self.strict:
            schema["required"] = required
        schema["additionalProperties"] = False
        return schema

    def _field(self, spec: FieldSpec, used: dict[str, None], path: str) -> dict[str, Any]:
        schema = self._type(spec.type, spec.constraints, used, path)
        if self.strict and not spec.required:
            schema = self._nullable(schema, path)
        if spec.doc:
            schema["description"] = spec.doc
        if spec.has_default:
            schema["default"] = spec.default
        if spec.importance != 1.0:
            schema["x-ek-importance"] = spec.importance
        if spec.compare is not None:
            schema["x-ek-compare"] = str(spec.compare)
        return schema

    def _nullable(self, schema: dict[str, Any], path: str) -> dict[str, Any]:
        """``schema`` also allowing null: how strict mode marks an optional argument."""
        kind = schema.get("type")
        if isinstance(kind, (str, list)):
            schema["type"] = [kind, "null"] if isinstance(kind, str) else [*kind, "null"]
            if "enum" in schema:
                schema["enum"] = [*schema["enum"], None]
            return schema
        if "enum" in schema:
            schema["enum"] = [*schema["enum"], None]
            return schema
        if "$ref" in schema:
            return {"anyOf": [schema, {"type": "null"}]}
        return schema  # ``any`` (``{}``): already in :attr:`not_strict`, its tool is not written in strict shape

    def _type(self, node: TypeNode, constraints: Constraints, used: dict[str, None], path: str) -> dict[str, Any]:
        if isinstance(node, NamedType):
            used[node.name] = None
            schema: dict[str, Any] = {"$ref": f"#/$defs/{node.name}"}
            if not constraints.is_empty:
                base, _ = self.grammar.resolve(node)
                schema.update(self._constraints(base, constraints))
            return schema
        if isinstance(node, EnumType):
            kinds = {type(m) for m in node.members}
            if kinds == {str}:
                return {"type": "string", "enum": list(node.members)}
            if kinds == {int}:
                return {"type": "integer", "enum": list(node.members)}
            if self.strict:  # strict mode wants a type in every schema ("schema must have a 'type' key")
                return {"type": ["string", "integer"], "enum": list(node.members)}
            return {"enum": list(node.members)}  # text and integers: the members say it all
        if isinstance(node, ListType):
            schema = {"type": "array", "items": self._type(node.item, NO_CONSTRAINTS, used, child(path, "items"))}
        elif isinstance(node, ObjectType):
            schema = self._object(node.fields, used, path)
        else:
            schema = dict(_PRIMITIVES[node.name])
            if self.strict and node.name == "any":
                self.not_strict.append(path)
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


def _null_allowed(schema: dict[str, Any]) -> bool:
    """Whether a written property schema accepts null (strict mode lists only those among the optional ones)."""
    kind = schema.get("type")
    return (isinstance(kind, list) and "null" in kind) or None in schema.get("enum", ()) or (
        isinstance(schema.get("anyOf"), list) and {"type": "null"} in schema["anyOf"])
