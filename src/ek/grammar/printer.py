"""Model -> canonical ``.ek`` text: one layout for every grammar, so diffs stay small.

``parse(format_grammar(g)) == g`` for every grammar the DSL can express. The
formatter (:mod:`ek.grammar.formatter`) reuses this printer and adds comments
through the three hook methods (``leading``, ``trailing``, ``closing``).
"""

from __future__ import annotations

from typing import Any

from ek.grammar.model import (
    EnumType,
    FieldSpec,
    GraphGrammar,
    ListType,
    Location,
    NamedType,
    ObjectType,
    ToolSpec,
    TypeAlias,
    TypeNode,
)
from ek.grammar.strings import (
    BARE_NAME,
    encode_doc,
    encode_pattern,
    encode_string,
    format_member,
    format_name,
    format_number,
    format_weight,
)

INDENT = "    "
#: Lines longer than this wrap their enum members one per line.
MAX_WIDTH = 100


def format_grammar(grammar: GraphGrammar) -> str:
    """The canonical text of ``grammar`` (header, then types and tools, one blank line apart).

    >>> from ek.grammar import parse
    >>> print(format_grammar(parse('grammar g 1\\ntool t weight 2 { x: int [1..9]? compare exact }')), end="")
    grammar g 1
    <BLANKLINE>
    tool t weight 2 {
        x: int [1..9]? compare exact
    }
    """
    return Printer(grammar).render()


class Printer:
    """Writes a grammar line by line; subclasses hook comments in by source line."""

    def __init__(self, grammar: GraphGrammar) -> None:
        self.grammar = grammar
        self.out: list[str] = []

    # hooks (no comments here) ------------------------------------------------
    def leading(self, loc: Location | None, indent: str, *, top: bool = False) -> None:
        """Called before a node starting at ``loc``; the formatter emits comments above it."""
        if top and self.out:
            self.out.append("")

    def trailing(self, first: int | None, last: int | None) -> str:
        """A suffix (an end-of-line comment) for the printed line covering source lines first..last."""
        return ""

    def closing(self, loc: Location | None, indent: str) -> None:
        """Called before the ``}`` of a block ending at ``loc.end_line``."""

    def doc_comments(self, tool: ToolSpec, indent: str) -> str:
        """Called before a tool's doc line; returns the suffix for its last line."""
        return ""

    def header_suffix(self) -> str:
        return ""

    def finish(self) -> None:
        """Called after the last declaration."""

    # the layout -----------------------------------------------------------------
    def render(self) -> str:
        g = self.grammar
        self.leading(None, "")
        self.out.append(f"grammar {format_name(g.name)} {g.version}" + self.header_suffix())
        for decl in self.ordered_decls():
            if isinstance(decl, TypeAlias):
                self.type_alias(decl)
            else:
                self.tool(decl)
        self.finish()
        return "\n".join(self.out) + "\n"

    def ordered_decls(self) -> list[TypeAlias | ToolSpec]:
        decls: list[TypeAlias | ToolSpec] = [*self.grammar.types, *self.grammar.tools]
        if all(d.loc is not None for d in decls):  # keep the author's order of types and tools
            decls.sort(key=lambda d: (d.loc.line, d.loc.column))  # type: ignore[union-attr]
        return decls

    def type_alias(self, alias: TypeAlias) -> None:
        self.leading(alias.loc, "", top=True)
        suffix = _constraints(alias.constraints)
        if alias.doc is not None:
            suffix += " " + encode_string(alias.doc)
        self.typed_line(f"type {alias.name} = ", alias.type, suffix, alias.loc, "")

    def tool(self, tool: ToolSpec) -> None:
        self.leading(tool.loc, "", top=True)
        head = f"tool {format_name(tool.name)}"
        if tool.weight != 1.0:
            head += f" weight {format_weight(tool.weight)}"
        first = tool.loc.line if tool.loc else None
        if not tool.fields and tool.doc is None and not self.has_comments_inside(tool.loc):
            self.out.append(head + " {}" + self.trailing(first, tool.loc.end_line if tool.loc else None))
            return
        self.out.append(head + " {" + self.trailing(first, first))
        if tool.doc is not None:
            suffix = self.doc_comments(tool, INDENT)
            self.out.append(INDENT + encode_doc(tool.doc, INDENT) + suffix)
        self.fields(tool.fields, INDENT)
        self.closing(tool.loc, INDENT)
        last = tool.loc.end_line if tool.loc else None
        self.out.append("}" + self.trailing(last, last))

    def has_comments_inside(self, loc: Location | None) -> bool:
        return False

    def fields(self, fields: tuple[FieldSpec, ...], indent: str) -> None:
        for spec in fields:
            self.leading(spec.loc, indent)
            self.typed_line(indent + format_name(spec.name) + ": ", spec.type, self.field_suffix(spec), spec.loc, indent)

    def typed_line(self, prefix: str, type_node: TypeNode, suffix: str, loc: Location | None, indent: str) -> None:
        """``prefix TYPE suffix``; inline objects, and enums too long for one line, spread over lines."""
        first = loc.line if loc else None
        last = loc.end_line if loc else None
        multi_line = _has_object(type_node)
        if not multi_line:
            text = prefix + self.type_text(type_node, indent) + suffix
            if len(text) <= MAX_WIDTH or not _has_enum(type_node):
                self.out.append(text + self.trailing(first, last))
                return
        # An object's body claims the comments inside it, so take its first line's now; a wrapped
        # enum has no place for comments between members: they all go after its closing line.
        head_comment = self.trailing(first, first) if multi_line else ""
        text = prefix + self.type_text(type_node, indent, wrap=True) + suffix
        lines = text.split("\n")
        lines[0] += head_comment
        self.out.extend(lines[:-1])
        self.out.append(lines[-1] + self.trailing(last if multi_line else first, last))

    def type_text(self, node: TypeNode, indent: str, *, wrap: bool = False) -> str:
        """A type expression; ``wrap`` puts each enum member on its own line."""
        if isinstance(node, EnumType):
            members = [format_member(m) for m in node.members]
            if wrap:
                inner = indent + INDENT
                return "enum(\n" + "".join(f"{inner}{m},\n" for m in members) + indent + ")"
            return "enum(" + ", ".join(members) + ")"
        if isinstance(node, ListType):
            return f"list[{self.type_text(node.item, indent, wrap=wrap)}]"
        if isinstance(node, ObjectType):
            return self.object_text(node, indent)
        return node.name

    def object_text(self, node: ObjectType, indent: str) -> str:
        """An inline object, rendered by a nested printer so comments inside it are kept."""
        inner = indent + INDENT
        saved, self.out = self.out, []
        self.fields(node.fields, inner)
        self.closing(node.loc, inner)
        body, self.out = self.out, saved
        if not body:
            return "{}"
        return "{\n" + "\n".join(body) + "\n" + indent + "}"

    def field_suffix(self, spec: FieldSpec) -> str:
        parts = [_constraints(spec.constraints)]
        if spec.has_default:
            parts.append(" = " + self.value_text(spec.default, spec.type))
        elif not spec.required:
            parts.append("?")
        if spec.importance != 1.0:
            parts.append(f" importance {format_weight(spec.importance)}")
        if spec.compare is not None:
            policy = spec.compare
            text = f"tol({format_number(policy.tolerance)})" if policy.kind == "tol" and policy.tolerance is not None else policy.kind
            parts.append(f" compare {text}")
        if spec.doc is not None:
            parts.append(" " + encode_string(spec.doc))
        return "".join(parts)

    def value_text(self, value: Any, type_node: TypeNode | None) -> str:
        """A default value as a literal; enum members stay bare words when they can."""
        base = self.base_type(type_node)
        if value is None:
            return "null"
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, (int, float)):
            return format_number(value)
        if isinstance(value, str):
            if isinstance(base, EnumType) and BARE_NAME.fullmatch(value) and value not in ("true", "false", "null"):
                return value
            return encode_string(value)
        if isinstance(value, (list, tuple)):
            item = base.item if isinstance(base, ListType) else None
            return "[" + ", ".join(self.value_text(v, item) for v in value) + "]"
        if isinstance(value, dict):
            fields = {f.name: f for f in base.fields} if isinstance(base, ObjectType) else {}
            pairs = (
                f"{format_name(str(k))}: {self.value_text(v, fields[k].type if k in fields else None)}"
                for k, v in value.items()
            )
            return "{" + ", ".join(pairs) + "}"
        raise ValueError(f"a default of type {type(value).__name__} cannot be written in the DSL: {value!r}")

    def base_type(self, node: TypeNode | None) -> TypeNode | None:
        seen = 0
        while isinstance(node, NamedType) and seen <= len(self.grammar.types):
            alias = self.grammar.type_alias(node.name)
            node = alias.type if alias is not None else None
            seen += 1
        return node


def _has_enum(node: TypeNode) -> bool:
    while isinstance(node, ListType):
        node = node.item
    return isinstance(node, EnumType)


def _has_object(node: TypeNode) -> bool:
    while isinstance(node, ListType):
        node = node.item
    return isinstance(node, ObjectType) and bool(node.fields)


def _constraints(c: Any) -> str:
    text = ""
    if c.min is not None or c.max is not None:
        lo = "" if c.min is None else format_number(c.min)
        hi = "" if c.max is None else format_number(c.max)
        text += f" [{lo}..{hi}]"
    if c.pattern is not None:
        text += " " + encode_pattern(c.pattern)
    return text
