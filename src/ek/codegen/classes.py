"""Plans for the frozen attrs classes of a generated module: one per tool, one per object type.

A plan holds ready-to-paste snippets (annotations, defaults, method bodies)
built only from safe identifiers and ``repr`` literals; the template lays
them out.
"""

from __future__ import annotations

import attrs

from ek.codegen.literals import py_literal
from ek.codegen.naming import camel, field_names, unique
from ek.codegen.source import Lines
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

_SCALARS = (type(None), bool, int, float, str)


@attrs.frozen
class FieldPlan:
    attr: str
    annotation: str
    default: str  # "" or " = ..." (source text after the annotation)


@attrs.frozen
class ClassPlan:
    name: str
    doc: str  # a repr literal
    fields: tuple[FieldPlan, ...]
    build: tuple[str, ...]  # body lines of ``_build``
    to_args: tuple[str, ...]  # body lines of ``to_args``
    tool: str | None = None  # repr literal of the real tool name
    validator: str | None = None
    needs: tuple[str, ...] = ()  # the other classes its methods build (built with it, on first use)


class ClassPlanner:
    """Allocates class names and writes plans; object types get classes on first sight."""

    def __init__(self, grammar: GraphGrammar, taken: set[str]) -> None:
        self.grammar = grammar
        self.taken = taken
        self.plans: list[ClassPlan] = []
        self._alias_classes: dict[str, str] = {}
        self._inline_classes: dict[str, str] = {}
        self._needs: list[set[str]] = []  # per class being planned (nested plans interleave), what it uses

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
        attrs_ = field_names([f.name for f in fields])
        self._needs.append(set())
        plans: list[FieldPlan] = []
        build, out = Lines(), Lines()
        out.line("out: dict[str, Any] = {}")
        for attr, f in zip(attrs_, fields):
            owner = f"{name}{camel(attr)}"
            node = f.type
            annotation = self.annotation(node, owner)
            key = py_literal(f.name)
            local = build.fresh("a")
            if f.required:
                build.line(f"{local} = args[{key}]")
                if (expr := self.build_expr(node, local, owner, build)) != local:
                    build.line(f"{local} = {expr}")
                plans.append(FieldPlan(attr, annotation, ""))
                out.line(f"out[{key}] = {self.unbuild_expr(node, 'self.' + attr, out)}")
                continue
            build.line(f"{local} = args.get({key})")
            value = self.build_expr(node, local, owner, build)
            if f.has_default and f.default is not None:
                default_src = self.build_expr(node, py_literal(f.default), owner, build)
                build.line(f"{local} = {default_src} if {local} is None else {value}")
                if isinstance(f.default, _SCALARS) and default_src == py_literal(f.default):
                    plans.append(FieldPlan(attr, annotation, f" = {default_src}"))
                else:
                    plans.append(FieldPlan(attr, annotation, f" = _attrs.field(factory=lambda: {default_src})"))
            else:
                if value != local:
                    build.line(f"{local} = None if {local} is None else {value}")
                plans.append(FieldPlan(attr, f"{annotation} | None", " = None"))
            item = out.fresh("o")
            out.line(f"{item} = self.{attr}")
            with out.block(f"if {item} is not None:"):
                out.line(f"out[{key}] = {self.unbuild_expr(node, item, out)}")
        call = ", ".join(f"{attr}=a{i}" for i, attr in enumerate(attrs_))
        build.line(f"return cls({call})")
        out.line("return out")
        needs = self._needs.pop() - {name}
        self.plans.append(
            ClassPlan(
                name=name,
                doc=py_literal(doc),
                fields=tuple(plans),
                build=tuple(build.lines),
                to_args=tuple(out.lines),
                tool=None if tool is None else py_literal(tool),
                validator=validator,
                needs=tuple(sorted(needs)),
            )
        )

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
        self._needs[-1].add(cls)
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

    def build_expr(self, node: TypeNode, expr: str, owner: str, code: Lines) -> str:
        """Source turning a validated JSON value ``expr`` into the attribute value."""
        node, alias_cls = self._resolve(node)
        if isinstance(node, ListType):
            elem = code.fresh("e")
            inner = self.build_expr(node.item, elem, owner + "Item", code)
            return f"tuple({expr})" if inner == elem else f"tuple({inner} for {elem} in {expr})"
        if isinstance(node, ObjectType):
            return f"{self._class_for(node, alias_cls, owner)}._build({expr})"
        return expr

    def unbuild_expr(self, node: TypeNode, expr: str, code: Lines) -> str:
        """Source turning an attribute value back into plain JSON data."""
        while isinstance(node, NamedType):
            alias = self.grammar.type_alias(node.name)
            assert alias is not None
            node = alias.type
        if isinstance(node, ListType):
            elem = code.fresh("e")
            inner = self.unbuild_expr(node.item, elem, code)
            return f"list({expr})" if inner == elem else f"[{inner} for {elem} in {expr}]"
        if isinstance(node, ObjectType):
            return f"{expr}.to_args()"
        return expr

