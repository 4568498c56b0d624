"""Syntax tree -> checked model: every semantic error of a file, collected in one pass.

Each check is linear in the size of the file (dicts, not pairwise scans), so a
5,000-tool grammar checks as fast per tool as a 50-tool one.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Iterable
from typing import Any

from ek.grammar.diagnostics import Diagnostic, diagnostic_at, did_you_mean
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
from ek.grammar.names import safe_identifier
from ek.grammar.strings import encode_pattern, format_number
from ek.grammar.syntax import (
    ArgSyn,
    BodySyn,
    CompareSyn,
    DocSyn,
    FileSyn,
    HeaderSyn,
    Lit,
    Num,
    OptionSyn,
    PatternSyn,
    RangeSyn,
    ToolSyn,
    TypeDeclSyn,
    TypeSyn,
)

#: Words that are keywords in type position and so cannot name a type.
RESERVED_TYPE_NAMES = frozenset({"enum", "list"})

_TEXT_POLICIES = frozenset({"fold", "bfcl"})


class _Unresolved(Exception):
    """A type that cannot be resolved (unknown or recursive): dependent checks are skipped."""


def check(syntax: FileSyn) -> tuple[GraphGrammar | None, list[Diagnostic]]:
    """The model of a parsed file and every diagnostic; the model is None when there are errors."""
    return _Checker(syntax).run()


class _Checker:
    def __init__(self, syntax: FileSyn) -> None:
        self.syntax = syntax
        self.filename = syntax.filename
        self.diags: list[Diagnostic] = []
        self.aliases: dict[str, TypeAlias] = {}
        self.alias_syntax: dict[str, TypeDeclSyn] = {}
        self.bad_aliases: set[str] = set()

    def error(self, loc: Location, message: str, *, suggestion: str | None = None) -> None:
        self.diags.append(diagnostic_at(loc, message, suggestion=suggestion))

    # --- whole file ---------------------------------------------------------
    def run(self) -> tuple[GraphGrammar | None, list[Diagnostic]]:
        for loc, message in self.syntax.token_errors:
            self.error(loc, message)
        name, version = self.check_header()
        type_decls = [d for d in self.syntax.decls if isinstance(d, TypeDeclSyn)]
        tool_decls = [d for d in self.syntax.decls if isinstance(d, ToolSyn)]
        self.declare_types(type_decls)
        self.find_cycles(type_decls)
        types = self.lower_types(type_decls)
        tools = self.lower_tools(tool_decls)
        if self.diags:
            return None, self.diags
        assert name is not None and version is not None
        return GraphGrammar(name, version, tuple(tools), tuple(types)), []

    def check_header(self) -> tuple[str | None, int | None]:
        decls = self.syntax.decls
        headers = [d for d in decls if isinstance(d, HeaderSyn)]
        if not headers:
            loc = decls[0].loc if decls else Location(self.filename, 1, 1)
            self.error(loc, "missing grammar header: a schema must start with 'grammar NAME VERSION'")
            return None, None
        first = headers[0]
        if decls[0] is not first:
            self.error(first.loc, "the grammar header must be the first statement of the file")
        for extra in headers[1:]:
            self.error(extra.loc, f"repeated grammar header (the first is at line {first.loc.line})")
        name = first.name
        if not name or "@" in name or any(ch.isspace() for ch in name):
            self.error(first.loc, f"grammar name {name!r} must be non-empty, without spaces or '@'")
        version = first.version.value
        if not isinstance(version, int) or version < 1:
            self.error(first.version.loc, f"grammar version must be a positive integer, got {first.version.text}")
            return name, None
        return name, version

    # --- named types --------------------------------------------------------
    def declare_types(self, decls: list[TypeDeclSyn]) -> None:
        by_safe: dict[str, TypeDeclSyn] = {}
        for decl in decls:
            if decl.name in PRIMITIVE_TYPES:
                self.error(decl.name_loc, f"type '{decl.name}' shadows the built-in type of the same name")
                continue
            if decl.name in RESERVED_TYPE_NAMES:
                self.error(decl.name_loc, f"'{decl.name}' is a keyword and cannot name a type")
                continue
            if decl.name in self.alias_syntax:
                first = self.alias_syntax[decl.name]
                self.error(decl.name_loc, f"duplicate type '{decl.name}' (first declared at line {first.loc.line})")
                continue
            self.alias_syntax[decl.name] = decl
            safe = safe_identifier(decl.name)
            other = by_safe.setdefault(safe, decl)
            if other is not decl:
                self.error(
                    decl.name_loc,
                    f"type name '{decl.name}' collides with '{other.name}' (line {other.loc.line}) "
                    f"once made a Python identifier ('{safe}')",
                )

    def find_cycles(self, decls: list[TypeDeclSyn]) -> None:
        """Report each cycle of type aliases once (iterative DFS, linear in the number of references)."""
        refs = {name: list(_named_refs(decl.type)) for name, decl in self.alias_syntax.items()}
        state: dict[str, int] = {}  # 1 = on the stack, 2 = done
        for root in self.alias_syntax:
            if state.get(root):
                continue
            path: list[str] = [root]
            iters = [iter(refs[root])]
            state[root] = 1
            while iters:
                nxt = next(iters[-1], None)
                if nxt is None:
                    state[path.pop()] = 2
                    iters.pop()
                    continue
                name, loc = nxt
                if name not in refs:
                    continue
                if state.get(name) == 1:
                    cycle = path[path.index(name) :] + [name]
                    self.bad_aliases.update(cycle)
                    self.error(loc, "recursive type alias: " + " -> ".join(cycle))
                elif not state.get(name):
                    state[name] = 1
                    path.append(name)
                    iters.append(iter(refs[name]))

    def lower_types(self, decls: list[TypeDeclSyn]) -> list[TypeAlias]:
        out: list[TypeAlias] = []
        for decl in decls:
            type_node = self.lower_type(decl.type)
            constraints = self.lower_constraints(decl.constraints)
            alias = TypeAlias(
                decl.name, type_node, constraints, decl.doc.text if decl.doc else None, loc=decl.loc
            )
            if self.alias_syntax.get(decl.name) is decl:
                self.aliases[decl.name] = alias
            out.append(alias)
        for decl in decls:  # constraints make sense only once every alias is known
            if self.alias_syntax.get(decl.name) is decl and decl.name not in self.bad_aliases:
                self.check_constraints_fit(self.aliases[decl.name].type, decl.constraints)
        return out

    def lower_type(self, syn: TypeSyn) -> TypeNode:
        if syn.kind == "name":
            if syn.name in PRIMITIVE_TYPES:
                return PrimitiveType(syn.name, loc=syn.loc)
            if syn.name not in self.alias_syntax:
                hint = did_you_mean(syn.name, [*PRIMITIVE_TYPES, *self.alias_syntax])
                message = f"unknown type '{syn.name}'" + (f"; did you mean '{hint}'?" if hint else "")
                self.error(syn.loc, message, suggestion=hint)
            return NamedType(syn.name, loc=syn.loc)
        if syn.kind == "enum":
            seen: dict[str, Location] = {}
            for member, loc in syn.members:
                if not member:
                    self.error(loc, "an enum member cannot be empty")
                elif member in seen:
                    self.error(loc, f"duplicate enum member '{member}' (first at line {seen[member].line})")
                else:
                    seen[member] = loc
            return EnumType(tuple(m for m, _ in syn.members), loc=syn.loc)
        if syn.kind == "list":
            assert syn.item is not None
            return ListType(self.lower_type(syn.item), loc=syn.loc)
        assert syn.body is not None
        for item in syn.body.items:
            if isinstance(item, DocSyn):
                self.error(item.loc, "an inline object has no doc string; write the doc at the end of its argument's line")
        return ObjectType(self.lower_fields(syn.body, "object"), loc=syn.loc)

    # --- constraints ----------------------------------------------------------
    def lower_constraints(self, items: Iterable[RangeSyn | PatternSyn]) -> Constraints:
        lo = hi = None
        pattern = None
        seen_range: RangeSyn | None = None
        seen_pattern: PatternSyn | None = None
        for item in items:
            if isinstance(item, RangeSyn):
                if seen_range is not None:
                    self.error(item.loc, "only one [range] is allowed per type")
                    continue
                seen_range = item
                lo = item.lo.value if item.lo else None
                hi = item.hi.value if item.hi else None
                if lo is not None and hi is not None and lo > hi:
                    self.error(
                        item.loc,
                        f"inverted range [{item.lo.text}..{item.hi.text}]: the lower bound is greater than the upper bound",  # type: ignore[union-attr]
                    )
            else:
                if seen_pattern is not None:
                    self.error(item.loc, "only one /regex/ is allowed per type")
                    continue
                seen_pattern = item
                pattern = item.pattern
                try:
                    re.compile(pattern)
                except (re.error, RecursionError, OverflowError, ValueError) as err:
                    self.error(item.loc, f"invalid regex {encode_pattern(pattern)}: {err}")
        return Constraints(lo, hi, pattern)

    def check_constraints_fit(self, type_node: TypeNode, items: Iterable[RangeSyn | PatternSyn]) -> None:
        items = tuple(items)
        if not items:
            return
        try:
            base, _ = self.resolve(type_node)
        except _Unresolved:
            return
        kind = _kind(base)
        for item in items:
            if isinstance(item, PatternSyn):
                if kind != "str":
                    self.error(item.loc, f"a /regex/ applies to str only, not {_describe(base)}")
                continue
            if kind not in ("int", "float", "str", "list"):
                self.error(item.loc, f"a [range] applies to int, float, str and list, not {_describe(base)}")
                continue
            for bound in (item.lo, item.hi):
                if bound is None:
                    continue
                if kind in ("str", "list") and (not isinstance(bound.value, int) or bound.value < 0):
                    self.error(bound.loc, f"a length bound must be a non-negative integer, got {bound.text}")
                elif kind == "int" and not isinstance(bound.value, int):
                    self.error(bound.loc, f"the bounds of an int range must be integers, got {bound.text}")

    def resolve(self, type_node: TypeNode, constraints: Constraints = NO_CONSTRAINTS) -> tuple[TypeNode, Constraints]:
        """Follow aliases (already known to be acyclic or marked bad) down to a structural type."""
        merged = NO_CONSTRAINTS
        node = type_node
        hops = 0
        while isinstance(node, NamedType):
            alias = self.aliases.get(node.name)
            if alias is None or node.name in self.bad_aliases or hops > len(self.aliases):
                raise _Unresolved(node.name)
            merged = alias.constraints.merged(merged)
            node = alias.type
            hops += 1
        return node, merged.merged(constraints)

    # --- tools and fields ---------------------------------------------------------
    def lower_tools(self, decls: list[ToolSyn]) -> list[ToolSpec]:
        tools: list[ToolSpec] = []
        by_name: dict[str, ToolSyn] = {}
        by_safe: dict[str, ToolSyn] = {}
        for decl in decls:
            if not decl.name:
                self.error(decl.name_loc, "a tool name cannot be empty")
            elif decl.name in by_name:
                first = by_name[decl.name]
                self.error(decl.name_loc, f"duplicate tool '{decl.name}' (first declared at line {first.loc.line})")
            else:
                by_name[decl.name] = decl
                safe = safe_identifier(decl.name)
                other = by_safe.setdefault(safe, decl)
                if other is not decl:
                    self.error(
                        decl.name_loc,
                        f"tool name '{decl.name}' collides with '{other.name}' (line {other.loc.line}) "
                        f"once made a Python identifier ('{safe}')",
                    )
            weight = 1.0
            if decl.weight is not None:
                weight = self.positive(decl.weight, "weight")
            doc = self.body_doc(decl.body)
            fields = self.lower_fields(decl.body, f"tool '{decl.name}'")
            tools.append(ToolSpec(decl.name, fields, weight, doc, loc=decl.loc))
        return tools

    def positive(self, num: Num, what: str) -> float:
        if not num.value > 0:
            self.error(num.loc, f"{what} must be a positive number, got {num.text}")
        return float(num.value)

    def body_doc(self, body: BodySyn) -> str | None:
        doc: str | None = None
        for index, item in enumerate(body.items):
            if isinstance(item, DocSyn):
                if index == 0:
                    doc = item.text
                else:
                    self.error(item.loc, "a tool's doc string must come first in its body, before the arguments")
        return doc

    def lower_fields(self, body: BodySyn, owner: str) -> tuple[FieldSpec, ...]:
        fields: list[FieldSpec] = []
        by_name: dict[str, ArgSyn] = {}
        by_safe: dict[str, ArgSyn] = {}
        for arg in body.items:
            if not isinstance(arg, ArgSyn):
                continue
            if not arg.name:
                self.error(arg.name_loc, "an argument name cannot be empty")
            elif arg.name in by_name:
                first = by_name[arg.name]
                self.error(arg.name_loc, f"duplicate argument '{arg.name}' in {owner} (first at line {first.loc.line})")
            else:
                by_name[arg.name] = arg
                safe = safe_identifier(arg.name)
                other = by_safe.setdefault(safe, arg)
                if other is not arg:
                    self.error(
                        arg.name_loc,
                        f"argument name '{arg.name}' collides with '{other.name}' (line {other.loc.line}) "
                        f"once made a Python identifier ('{safe}')",
                    )
            fields.append(self.lower_field(arg))
        return tuple(fields)

    def lower_field(self, arg: ArgSyn) -> FieldSpec:
        type_node = self.lower_type(arg.type)
        constraints = self.lower_constraints(arg.constraints)
        self.check_constraints_fit(type_node, arg.constraints)
        options: dict[str, OptionSyn] = {}
        for opt in arg.options:
            if opt.kind in options:
                word = "a default" if opt.kind == "default" else f"'{opt.kind}'"
                self.error(opt.loc, f"{word} is given twice for argument '{arg.name}'")
            else:
                options[opt.kind] = opt
        importance = 1.0
        if "importance" in options:
            importance = self.positive(options["importance"].value, "importance")
        compare = None
        if "compare" in options:
            compare = self.lower_compare(options["compare"].value, type_node)
        default: Any = NO_DEFAULT
        if "default" in options:
            lit = options["default"].value
            try:
                default = self.convert(lit, type_node, constraints)
            except _Unresolved:
                default = lit.value if lit.kind in ("number", "string") else None
        required = arg.optional is None and "default" not in options
        return FieldSpec(
            arg.name,
            type_node,
            constraints,
            required,
            default,
            importance,
            compare,
            arg.doc.text if arg.doc else None,
            loc=arg.loc,
        )

    def lower_compare(self, syn: CompareSyn, type_node: TypeNode) -> ComparePolicy | None:
        if syn.name not in COMPARE_POLICIES:
            hint = did_you_mean(syn.name, COMPARE_POLICIES)
            message = f"unknown compare policy '{syn.name}'" + (f"; did you mean '{hint}'?" if hint else "")
            self.error(syn.loc, message + f" (choose from {', '.join(COMPARE_POLICIES)})", suggestion=hint)
            return None
        tolerance: float | None = None
        if syn.name == "tol":
            args = syn.args or ()
            if len(args) != 1 or args[0].kind != "number" or not args[0].value >= 0:
                self.error(syn.loc, "compare tol needs one non-negative number, like tol(0.01)")
                return None
            tolerance = float(args[0].value)
        elif syn.args is not None:
            self.error(syn.loc, f"compare policy '{syn.name}' takes no arguments")
        policy = ComparePolicy(syn.name, tolerance)
        try:
            base, _ = self.resolve(type_node)
        except _Unresolved:
            return policy
        kind = _kind(base)
        if syn.name == "tol" and kind not in ("int", "float"):
            self.error(syn.loc, f"compare tol applies to int and float, not {_describe(base)}")
        elif syn.name == "unordered" and kind != "list":
            self.error(syn.loc, f"compare unordered applies to lists, not {_describe(base)}")
        elif syn.name in _TEXT_POLICIES and kind in ("int", "float", "bool"):
            self.error(syn.loc, f"compare {syn.name} folds text and does not apply to {_describe(base)}")
        return policy

    # --- default values ------------------------------------------------------------
    def convert(self, lit: Lit, type_node: TypeNode, constraints: Constraints = NO_CONSTRAINTS) -> Any:
        """The Python value of a default literal for ``type_node``; errors are reported, not raised."""
        base, merged = self.resolve(type_node, constraints)
        if lit.kind == "name" and lit.value == "null":
            return None
        value = self.convert_base(lit, base)
        if value is _BAD:
            return None
        self.check_value_constraints(lit, value, base, merged)
        return value

    def convert_base(self, lit: Lit, base: TypeNode) -> Any:
        kind = _kind(base)
        shown = _show_lit(lit)
        if isinstance(base, EnumType):
            if lit.kind in ("name", "string") and lit.value in base.members:
                return lit.value
            if lit.kind in ("name", "string"):
                hint = did_you_mean(lit.value, base.members)
                message = f"default {shown} is not a member of {_describe(base)}"
                self.error(lit.loc, message + (f"; did you mean '{hint}'?" if hint else ""), suggestion=hint)
            else:
                self.error(lit.loc, f"default {shown} does not fit {_describe(base)}")
            return _BAD
        if kind == "str":
            if lit.kind == "string":
                return lit.value
            if lit.kind == "name":
                self.error(lit.loc, f"a str default must be quoted: \"{lit.value}\"", suggestion=f'"{lit.value}"')
                return _BAD
        elif kind == "int":
            if lit.kind == "number" and isinstance(lit.value, int):
                return lit.value
        elif kind == "float":
            if lit.kind == "number":
                return float(lit.value)
        elif kind == "bool":
            if lit.kind == "name" and lit.value in ("true", "false"):
                return lit.value == "true"
        elif kind in ("date", "datetime"):
            if lit.kind == "string":
                parse = _dt.date.fromisoformat if kind == "date" else _dt.datetime.fromisoformat
                try:
                    parse(lit.value)
                except ValueError:
                    self.error(lit.loc, f"default {shown} is not an ISO {kind}")
                    return _BAD
                return lit.value
        elif kind == "any":
            value = _plain_value(lit)
            if value is not _BAD:
                return value
            self.error(lit.loc, f"default {shown} is not a value: quote strings, use true, false or null")
            return _BAD
        elif isinstance(base, ListType):
            if lit.kind == "list":
                items = [self.convert(item, base.item) for item in lit.value]
                return items
        elif isinstance(base, ObjectType):
            if lit.kind == "object":
                return self.convert_object(lit, base)
        self.error(lit.loc, f"default {shown} does not fit type {_describe(base)}")
        return _BAD

    def convert_object(self, lit: Lit, base: ObjectType) -> Any:
        out: dict[str, Any] = {}
        names = [f.name for f in base.fields]
        for key, key_loc, value in lit.value:
            spec = base.field(key)
            if spec is None:
                hint = did_you_mean(key, names)
                self.error(
                    key_loc,
                    f"unknown field '{key}' in default" + (f"; did you mean '{hint}'?" if hint else ""),
                    suggestion=hint,
                )
                continue
            if key in out:
                self.error(key_loc, f"field '{key}' is given twice in default")
                continue
            out[key] = self.convert(value, spec.type, spec.constraints)
        for spec in base.fields:
            if spec.required and spec.name not in out:
                self.error(lit.loc, f"default misses required field '{spec.name}'")
        return out

    def check_value_constraints(self, lit: Lit, value: Any, base: TypeNode, c: Constraints) -> None:
        if c.is_empty or value is None:
            return
        kind = _kind(base)
        measured: Any = None
        what = ""
        if kind in ("int", "float") and isinstance(value, (int, float)):
            measured, what = value, "value"
        elif kind in ("str", "list") and isinstance(value, (str, list)):
            measured, what = len(value), "length"
        if measured is not None and (
            (c.min is not None and measured < c.min) or (c.max is not None and measured > c.max)
        ):
            lo = "" if c.min is None else format_number(c.min)
            hi = "" if c.max is None else format_number(c.max)
            subject = f"default {_show_lit(lit)}" if what == "value" else f"default {_show_lit(lit)} has length {measured}, which"
            self.error(lit.loc, f"{subject} is outside the range [{lo}..{hi}]")
        if c.pattern is not None and kind == "str" and isinstance(value, str):
            try:
                ok = re.fullmatch(c.pattern, value) is not None
            except re.error:
                return  # the invalid regex is reported where it is written
            if not ok:
                self.error(lit.loc, f"default {_show_lit(lit)} does not match {encode_pattern(c.pattern)}")


class _BadValue:
    def __repr__(self) -> str:
        return "<bad value>"


_BAD: Any = _BadValue()


def _kind(node: TypeNode) -> str:
    if isinstance(node, PrimitiveType):
        return node.name
    if isinstance(node, EnumType):
        return "enum"
    if isinstance(node, ListType):
        return "list"
    if isinstance(node, ObjectType):
        return "object"
    return "named"


def _describe(node: TypeNode) -> str:
    if isinstance(node, EnumType):
        members = ", ".join(node.members[:6]) + (", ..." if len(node.members) > 6 else "")
        return f"enum({members})"
    if isinstance(node, ObjectType):
        return "an object"
    return str(node)


def _show_lit(lit: Lit) -> str:
    if lit.kind == "string":
        text = lit.value if len(lit.value) <= 40 else lit.value[:37] + "..."
        return f"'{text}'"
    if lit.kind == "number":
        return format_number(lit.value) if isinstance(lit.value, (int, float)) else str(lit.value)
    if lit.kind == "name":
        return f"'{lit.value}'"
    return "[...]" if lit.kind == "list" else "{...}"


def _plain_value(lit: Lit) -> Any:
    """A literal as JSON-like data (for ``any``), or ``_BAD`` for a bare word."""
    if lit.kind in ("number", "string"):
        return lit.value
    if lit.kind == "name":
        return {"true": True, "false": False, "null": None}.get(lit.value, _BAD)
    if lit.kind == "list":
        items = [_plain_value(item) for item in lit.value]
        return _BAD if any(i is _BAD for i in items) else items
    out = {}
    for key, _, value in lit.value:
        v = _plain_value(value)
        if v is _BAD:
            return _BAD
        out[key] = v
    return out


def _named_refs(syn: TypeSyn) -> Iterable[tuple[str, Location]]:
    """Every type name referenced inside ``syn`` (through lists and inline objects)."""
    stack = [syn]
    while stack:
        node = stack.pop()
        if node.kind == "name":
            yield node.name, node.loc
        elif node.kind == "list" and node.item is not None:
            stack.append(node.item)
        elif node.kind == "object" and node.body is not None:
            stack.extend(item.type for item in reversed(node.body.items) if isinstance(item, ArgSyn))
