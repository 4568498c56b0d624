"""Plans for the frozen attrs classes of a generated module: one per tool, one per object type.

A plan is plain data (names, the schema's keys, annotation strings, defaults): the module stores it
as a table, and :mod:`ek.runtime.classes` builds the class from it the first time it is used. Nothing
in a plan is source code but the annotations, which are built only from safe identifiers and ``repr``
literals, as annotations always were.
"""

from __future__ import annotations

from typing import Any

import attrs

from ek.codegen.literals import py_literal
from ek.codegen.naming import camel, field_names, unique
from ek.grammar.model import (
    EnumType,
    FieldSpec,
    GraphGrammar,
    ListType,
    NamedType,
    ObjectType,
    PrimitiveType,
    TypeNode,
)
from ek.grammar.names import safe_identifier


@attrs.frozen
class ClassPlan:
    """One class as plain data: the row :func:`ek.runtime.classes.build_class` makes the class from."""

    name: str
    doc: str
    tool: str | None  # the real tool name
    validator: str | None
    fields: tuple[tuple[Any, ...], ...]  # (attribute, key, annotation, conversion, required[, default])

    def row(self) -> list[Any]:
        return [self.doc, self.tool, self.validator, [list(f) for f in self.fields]]


class ClassPlanner:
    """Allocates class names and writes plans; object types get classes on first sight."""

    def __init__(self, grammar: GraphGrammar, taken: set[str]) -> None:
        self.grammar = grammar
        self.taken = taken
        self.plans: list[ClassPlan] = []
        self._alias_classes: dict[str, str] = {}
        self._inline_classes: dict[str, str] = {}

    def tool_class(self, name: str, tool_name: str, validator: str, doc: str | None, fields: tuple[FieldSpec, ...]) -> None:
        default_doc = f"Arguments of the tool {tool_name!r}."
        self._object_class(name, fields, doc if doc is not None else default_doc, tool=tool_name, validator=validator)

    def _object_class(
        self,
        name: str,
        fields: tuple[FieldSpec, ...],
        doc: str,
        tool: str | None = None,
        validator: str | None = None,
    ) -> None:
        rows: list[tuple[Any, ...]] = []
        for attr, f in zip(field_names([f.name for f in fields]), fields):
            owner = f"{name}{camel(attr)}"
            annotation = self.annotation(f.type, owner)
            conversion = self.conversion(f.type, owner)
            if f.required:
                rows.append((attr, f.name, annotation, conversion, True))
            elif f.has_default and f.default is not None:
                rows.append((attr, f.name, annotation, conversion, False, f.default))
            else:
                rows.append((attr, f.name, f"{annotation} | None", conversion, False))
        self.plans.append(ClassPlan(name=name, doc=doc, tool=tool, validator=validator, fields=tuple(rows)))

    def _resolve(self, node: TypeNode) -> tuple[TypeNode, str | None]:
        """Follow aliases to a structural type; an object reached through an alias gets the alias's class."""
        alias_name: str | None = None
        while isinstance(node, NamedType):
            alias = self.grammar.type_alias(node.name)
            if alias is None:
                raise KeyError(f"undeclared type {node.name!r}")
            alias_name, node = alias.name, alias.type
        if not isinstance(node, ObjectType) or alias_name is None:
            return node, None
        cls = self._alias_classes.get(alias_name)
        if cls is None:
            cls = unique(camel(safe_identifier(alias_name)), self.taken)
            self._alias_classes[alias_name] = cls
            alias = self.grammar.type_alias(alias_name)
            doc = alias.doc if alias is not None and alias.doc is not None else f"The type {alias_name!r}."
            self._object_class(cls, node.fields, doc)
        return node, cls

    def _class_for(self, node: ObjectType, alias_cls: str | None, owner: str) -> str:
        """The class of an object type: its alias's, or one named after where it sits inline."""
        cls = alias_cls if alias_cls is not None else self._inline_classes.get(owner)
        if cls is None:
            cls = unique(owner, self.taken)
            self._inline_classes[owner] = cls
            self._object_class(cls, node.fields, f"A nested object ({owner}).")
        return cls

    def annotation(self, node: TypeNode, owner: str) -> str:
        node, alias_cls = self._resolve(node)
        if isinstance(node, PrimitiveType):
            return {"date": "str", "datetime": "str", "any": "Any"}.get(node.name, node.name)
        if isinstance(node, EnumType):
            return "Literal[" + ", ".join(py_literal(m) for m in node.members) + "]"
        if isinstance(node, ListType):
            return f"tuple[{self.annotation(node.item, owner + 'Item')}, ...]"
        if isinstance(node, ObjectType):
            return self._class_for(node, alias_cls, owner)
        raise TypeError(f"unknown type node {node!r}")

    def conversion(self, node: TypeNode, owner: str) -> Any:
        """How a validated JSON value becomes the attribute and back (:mod:`ek.runtime.classes`):
        None (as it is), a class name (an object), ``["L", item conversion]`` (a list, held as a tuple)."""
        node, alias_cls = self._resolve(node)
        if isinstance(node, ListType):
            return ["L", self.conversion(node.item, owner + "Item")]
        if isinstance(node, ObjectType):
            return self._class_for(node, alias_cls, owner)
        return None
