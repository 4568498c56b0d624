"""A grammar as plain data (tuples, dicts, strings, numbers) and back.

Generated modules embed :func:`grammar_to_table` output as a literal and
rebuild ``GRAMMAR`` with :func:`grammar_from_table` at import, so no pickles
and no schema text ever becomes code.

>>> from ek.grammar.model import GraphGrammar, ToolSpec, FieldSpec, PrimitiveType
>>> g = GraphGrammar("demo", 1, tools=(ToolSpec("ping", (FieldSpec("host", PrimitiveType("str")),)),))
>>> grammar_from_table(grammar_to_table(g)) == g
True
"""

from __future__ import annotations

from typing import Any

from ek.grammar.model import (
    NO_DEFAULT,
    ComparePolicy,
    Constraints,
    EnumType,
    FieldSpec,
    GraphGrammar,
    ListType,
    NamedType,
    ObjectType,
    PrimitiveType,
    ToolSpec,
    TypeAlias,
    TypeNode,
)

#: Bumped when the table layout changes; generated modules carry the one they were written with.
TABLE_FORMAT = 1


def type_to_table(node: TypeNode) -> tuple[Any, ...]:
    """``("prim", "str")``, ``("enum", members)``, ``("list", item)``, ``("object", fields)``, ``("named", name)``."""
    if isinstance(node, PrimitiveType):
        return ("prim", node.name)
    if isinstance(node, EnumType):
        return ("enum", tuple(node.members))
    if isinstance(node, ListType):
        return ("list", type_to_table(node.item))
    if isinstance(node, ObjectType):
        return ("object", tuple(field_to_table(f) for f in node.fields))
    if isinstance(node, NamedType):
        return ("named", node.name)
    raise TypeError(f"not a type node: {node!r}")


def type_from_table(row: tuple[Any, ...]) -> TypeNode:
    kind, arg = row
    if kind == "prim":
        return PrimitiveType(arg)
    if kind == "enum":
        return EnumType(tuple(arg))
    if kind == "list":
        return ListType(type_from_table(arg))
    if kind == "object":
        return ObjectType(tuple(field_from_table(f) for f in arg))
    if kind == "named":
        return NamedType(arg)
    raise ValueError(f"unknown type kind in grammar table: {kind!r}")


def _constraints_to_table(c: Constraints) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if c.min is not None:
        out["min"] = c.min
    if c.max is not None:
        out["max"] = c.max
    if c.pattern is not None:
        out["pattern"] = c.pattern
    return out


def _constraints_from_table(row: dict[str, Any]) -> Constraints:
    return Constraints(min=row.get("min"), max=row.get("max"), pattern=row.get("pattern"))


def field_to_table(f: FieldSpec) -> dict[str, Any]:
    row: dict[str, Any] = {"name": f.name, "type": type_to_table(f.type)}
    row.update(_constraints_to_table(f.constraints))
    row["required"] = f.required
    if f.has_default:
        row["default"] = f.default
    row["importance"] = f.importance
    if f.compare is not None:
        row["compare"] = (f.compare.kind, f.compare.tolerance)
    if f.doc is not None:
        row["doc"] = f.doc
    return row


def field_from_table(row: dict[str, Any]) -> FieldSpec:
    compare = row.get("compare")
    return FieldSpec(
        name=row["name"],
        type=type_from_table(row["type"]),
        constraints=_constraints_from_table(row),
        required=row["required"],
        default=row.get("default", NO_DEFAULT),
        importance=row["importance"],
        compare=None if compare is None else ComparePolicy(compare[0], compare[1]),
        doc=row.get("doc"),
    )


def grammar_to_table(g: GraphGrammar) -> dict[str, Any]:
    """The grammar as nested plain literals, in declaration order (order is part of equality)."""
    tools = []
    for t in g.tools:
        row: dict[str, Any] = {"name": t.name, "weight": t.weight}
        if t.doc is not None:
            row["doc"] = t.doc
        row["fields"] = tuple(field_to_table(f) for f in t.fields)
        tools.append(row)
    types = []
    for a in g.types:
        arow: dict[str, Any] = {"name": a.name, "type": type_to_table(a.type)}
        arow.update(_constraints_to_table(a.constraints))
        if a.doc is not None:
            arow["doc"] = a.doc
        types.append(arow)
    return {"format": TABLE_FORMAT, "name": g.name, "version": g.version, "tools": tuple(tools), "types": tuple(types)}


def grammar_from_table(
    table: dict[str, Any], *, source_path: str | None = None, source_sha256: str | None = None
) -> GraphGrammar:
    """Rebuild the :class:`GraphGrammar` a generated module was written from."""
    if table.get("format") != TABLE_FORMAT:
        raise ValueError(f"grammar table format {table.get('format')!r} is not {TABLE_FORMAT}")
    tools = tuple(
        ToolSpec(
            name=row["name"],
            fields=tuple(field_from_table(f) for f in row["fields"]),
            weight=row["weight"],
            doc=row.get("doc"),
        )
        for row in table["tools"]
    )
    types = tuple(
        TypeAlias(
            name=row["name"],
            type=type_from_table(row["type"]),
            constraints=_constraints_from_table(row),
            doc=row.get("doc"),
        )
        for row in table["types"]
    )
    return GraphGrammar(
        table["name"], table["version"], tools=tools, types=types, source_path=source_path, source_sha256=source_sha256
    )
