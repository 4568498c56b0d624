"""Syntax tree -> checked model: every semantic error of a file, collected in one pass.

Each check is linear in the size of the file (dicts, not pairwise scans), so a
5,000-tool grammar checks as fast per tool as a 50-tool one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from ek.grammar.defaults import DefaultChecker, Unresolved, describe
from ek.grammar.diagnostics import Diagnostic, Suggester, diagnostic_at
from ek.grammar.extent import Extent, type_extent
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
    cost_weight_problem,
    kind_of,
    nested_importance_message,
)
from ek.grammar.names import safe_identifier, unfit_character
from ek.grammar.regexes import pattern_problem
from ek.grammar.strings import (
    UNSHOWN_BUT_TAB,
    escape_unshown,
    format_number,
    shown_pattern,
    to_float,
    unshown_description,
)
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
from ek.limits import (
    SCHEMA_MAX_DEFAULT_VALUES,
    SCHEMA_MAX_ENUM_MEMBERS,
    SCHEMA_MAX_LIST_NESTING,
    SCHEMA_MAX_NESTING,
    SCHEMA_MAX_TYPE_NODES,
)

#: Words that are keywords in type position and so cannot name a type.
RESERVED_TYPE_NAMES = frozenset({"enum", "list"})

_TEXT_POLICIES = frozenset({"fold", "bfcl"})

#: Checked before anything recurses, so a file's verdict never depends on the Python stack.
MAX_NESTING = SCHEMA_MAX_NESTING




def check(syntax: FileSyn) -> tuple[GraphGrammar | None, list[Diagnostic]]:
    """The model of a parsed file and every diagnostic; the model is None when there are errors."""
    checker = _Checker(syntax)
    try:
        return checker.run()
    finally:
        # The checker's DefaultChecker holds the checker's bound methods: a reference cycle, which kept the
        # checker and the whole syntax tree it holds (39,000 objects for 1,000 tools) for the collector to
        # find and free. Broken here, both go by reference counting once the caller lets the tree go
        # (ek.grammar.api.parse does while the collector is paused).
        del checker.defaults


class _Checker:
    def __init__(self, syntax: FileSyn) -> None:
        self.syntax = syntax
        self.filename = syntax.filename
        self.diags: list[Diagnostic] = []
        self.aliases: dict[str, TypeAlias] = {}
        self.alias_extent: dict[str, Extent] = {}
        self.type_nodes = 0  # the tools' type nodes so far, named types written out (SCHEMA_MAX_TYPE_NODES)
        self.alias_syntax: dict[str, TypeDeclSyn] = {}
        self.bad_aliases: set[str] = set()
        self.suggest = Suggester()
        self.defaults = DefaultChecker(self.error, self.resolve, self.suggest)

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
        if name and unfit_character(name) is not None:  # (as for tool names: said, not lumped in with spaces)
            self.error(first.loc, f"a grammar name cannot hold the control character {unfit_character(name)}")
        elif not name or "@" in name or any(ch.isspace() for ch in name):
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
            self.check_unique_name(decl, self.alias_syntax, by_safe, "type", f"duplicate type '{decl.name}'",
                                   "first declared at")

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

    def too_deep(self, node: TypeSyn | Lit, what: str) -> None:
        """Report nesting past :data:`MAX_NESTING` at the bracket that opens the first level too many."""
        for _ in range(MAX_NESTING):
            node = _deepest_child(node)
        length = 4 if isinstance(node, TypeSyn) and node.kind == "list" else 1
        message = f"{what} nested too deeply: more than {MAX_NESTING} levels"
        self.diags.append(Diagnostic(node.loc.file, node.loc.line, node.loc.column, message, length=length))

    def lower_type(self, syn: TypeSyn) -> TypeNode:
        if syn.depth > MAX_NESTING:
            self.too_deep(syn, "types are")
            return PrimitiveType("any", loc=syn.loc)
        if syn.kind == "name":
            if syn.name in PRIMITIVE_TYPES:
                return PrimitiveType(syn.name, loc=syn.loc)
            if syn.name not in self.alias_syntax:
                hint = self.suggest(syn.name, [*PRIMITIVE_TYPES, *self.alias_syntax])
                message = f"unknown type '{syn.name}'" + (f"; did you mean '{hint}'?" if hint else "")
                self.error(syn.loc, message, suggestion=hint)
            return NamedType(syn.name, loc=syn.loc)
        if syn.kind == "enum":
            if len(syn.members) > SCHEMA_MAX_ENUM_MEMBERS:
                self.error(syn.loc, f"an enum of {len(syn.members)} members is more than ek reads "
                                    f"({SCHEMA_MAX_ENUM_MEMBERS})")
                return EnumType(("x",), loc=syn.loc)
            seen: dict[str | int, Location] = {}
            members: list[str | int] = []
            for member, loc in syn.members:
                if isinstance(member, float):
                    self.error(loc, f"an enum member is a name, a \"string\" or an integer, not the number "
                                    f"{format_number(member)}")
                elif member == "":
                    self.error(loc, "an enum member cannot be empty")
                elif member in seen:
                    self.error(loc, f"duplicate enum member {member!r} (first at line {seen[member].line})")
                else:
                    seen[member] = loc
                    members.append(member)
            return EnumType(tuple(members), loc=syn.loc)
        if syn.kind == "list":
            assert syn.item is not None
            return ListType(self.lower_type(syn.item), loc=syn.loc)
        assert syn.body is not None
        for item in syn.body.items:
            if isinstance(item, DocSyn):
                self.error(item.loc, "an inline object has no doc string; write the doc at the end of its argument's line")
        return ObjectType(self.lower_fields(syn.body, "object", nested=True), loc=syn.loc)

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
                unshown = UNSHOWN_BUT_TAB.search(pattern)
                if unshown is not None:  # ek fmt and ek diff print a regex as it is written
                    self.error(item.loc, f"a regex cannot hold {unshown_description(unshown.group())} as itself: "
                                         f"ek fmt and ek diff would write it to the terminal as it is; write "
                                         f"{escape_unshown(unshown.group())} (the same pattern)")
                    continue
                try:
                    problem = pattern_problem(pattern)
                except (re.error, RecursionError, OverflowError, ValueError) as err:
                    self.error(item.loc, f"invalid regex {shown_pattern(pattern)}: {err}")
                else:
                    if problem is not None:  # matched against model output: it must finish in linear time
                        self.error(item.loc, f"regex {shown_pattern(pattern)} {problem}")
        return Constraints(lo, hi, pattern)

    def check_constraints_fit(self, type_node: TypeNode, items: Iterable[RangeSyn | PatternSyn]) -> None:
        items = tuple(items)
        if not items:
            return
        try:
            base, _ = self.resolve(type_node)
        except Unresolved:
            return
        kind = kind_of(base)
        for item in items:
            if isinstance(item, PatternSyn):
                if kind != "str":
                    self.error(item.loc, f"a /regex/ applies to str only, not {describe(base)}")
                continue
            if kind not in ("int", "float", "str", "list"):
                self.error(item.loc, f"a [range] applies to int, float, str and list, not {describe(base)}")
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
                raise Unresolved(node.name)
            merged = alias.constraints.merged(merged)
            node = alias.type
            hops += 1
        return node, merged.merged(constraints)

    def check_resolved_nesting(self, spec: FieldSpec, arg: ArgSyn) -> None:
        """Report an argument whose type, followed through named types, nests past what the generator writes.

        The written nesting is checked where it is parsed; this catches nesting built
        from named types that are each shallow enough (``type A = list[B]`` ...).
        """
        if arg.type.depth > MAX_NESTING:
            return  # already reported at the bracket
        if _is_scalar(spec.type):
            return
        levels, lists = self.nesting(spec.type)
        if levels > MAX_NESTING:
            self.error(arg.type.loc, f"the type of '{arg.name}' nests {levels} levels through its named types, "
                                     f"more than {MAX_NESTING}")
        elif lists > SCHEMA_MAX_LIST_NESTING:
            self.error(arg.type.loc, f"the type of '{arg.name}' nests lists {lists} deep, more than "
                                     f"{SCHEMA_MAX_LIST_NESTING} (each list level is a loop in the generated validator)")

    def count_type_nodes(self, spec: FieldSpec, arg: ArgSyn) -> None:
        """Report the argument at which the tools' types, named types written out at each use, pass
        :data:`SCHEMA_MAX_TYPE_NODES` (once: the generated module grows with this count, not with the file)."""
        before = self.type_nodes
        if _is_scalar(spec.type):
            self.type_nodes += 1
        else:
            self.type_nodes += type_extent(spec.type, self.aliases, self.alias_extent, self.bad_aliases).nodes
        if self.type_nodes > SCHEMA_MAX_TYPE_NODES >= before:
            self.error(arg.type.loc, f"the tools' types pass {SCHEMA_MAX_TYPE_NODES} type nodes "
                                     f"(SCHEMA_MAX_TYPE_NODES) at '{arg.name}', with each named type written out "
                                     f"where it is used: the generated validators spell every one out; use fewer "
                                     f"or smaller named types")

    def nesting(self, root: TypeNode) -> tuple[int, int]:
        """(levels of lists and objects, levels of lists) of a type, through named types; iterative, memoised."""
        extent = type_extent(root, self.aliases, self.alias_extent, self.bad_aliases)
        return extent.levels, extent.lists

    # --- tools and fields ---------------------------------------------------------
    def lower_tools(self, decls: list[ToolSyn]) -> list[ToolSpec]:
        tools: list[ToolSpec] = []
        by_name: dict[str, ToolSyn] = {}
        by_safe: dict[str, ToolSyn] = {}
        for decl in decls:
            self.check_unique_name(decl, by_name, by_safe, "tool", f"duplicate tool '{decl.name}'", "first declared at")
            weight = 1.0
            if decl.weight is not None:
                weight = self.positive(decl.weight, "weight")
            doc = self.body_doc(decl.body)
            fields = self.lower_fields(decl.body, f"tool '{decl.name}'")
            for spec, arg in zip(fields, (a for a in decl.body.items if isinstance(a, ArgSyn))):
                self.check_resolved_nesting(spec, arg)
                self.count_type_nodes(spec, arg)
            tools.append(ToolSpec(decl.name, fields, weight, doc, loc=decl.loc))
        return tools

    def check_unique_name(self, item: Any, by_name: dict[str, Any], by_safe: dict[str, Any], kind: str,
                          duplicate: str, first: str) -> None:
        """Report an empty name, a repeated one (``duplicate (first line N)``), or one that collides
        with another once made a Python identifier; remember it otherwise."""
        if not item.name:
            self.error(item.name_loc, f"{'an' if kind[0] in 'aeiou' else 'a'} {kind} name cannot be empty")
        elif unfit_character(item.name) is not None:
            self.error(item.name_loc, f"{'an' if kind[0] in 'aeiou' else 'a'} {kind} name cannot hold the control "
                                      f"character {unfit_character(item.name)}")
        elif item.name in by_name:
            self.error(item.name_loc, f"{duplicate} ({first} line {by_name[item.name].loc.line})")
        else:
            by_name[item.name] = item
            safe = safe_identifier(item.name)
            other = by_safe.setdefault(safe, item)
            if other is not item:
                self.error(
                    item.name_loc,
                    f"{kind} name '{item.name}' collides with '{other.name}' (line {other.loc.line}) "
                    f"once made a Python identifier ('{safe}')",
                )

    def positive(self, num: Num, what: str) -> float:
        value = to_float(num.value)
        if value is None:
            self.error(num.loc, f"{what} {num.text[:20]}... is too large for a float (at most about 1.8e308)")
            return 1.0
        if not value > 0:
            self.error(num.loc, f"{what} must be a positive number, got {num.text}")
        elif (problem := cost_weight_problem(value, what)) is not None:
            self.error(num.loc, problem)
            return 1.0
        return value

    def body_doc(self, body: BodySyn) -> str | None:
        doc: str | None = None
        for index, item in enumerate(body.items):
            if isinstance(item, DocSyn):
                if index == 0:
                    doc = item.text
                else:
                    self.error(item.loc, "a tool's doc string must come first in its body, before the arguments")
        return doc

    def lower_fields(self, body: BodySyn, owner: str, *, nested: bool = False) -> tuple[FieldSpec, ...]:
        fields: list[FieldSpec] = []
        by_name: dict[str, ArgSyn] = {}
        by_safe: dict[str, ArgSyn] = {}
        for arg in body.items:
            if not isinstance(arg, ArgSyn):
                continue
            self.check_unique_name(arg, by_name, by_safe, "argument", f"duplicate argument '{arg.name}' in {owner}",
                                   "first at")
            fields.append(self.lower_field(arg, nested=nested))
        return tuple(fields)

    def lower_field(self, arg: ArgSyn, *, nested: bool = False) -> FieldSpec:
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
        if "importance" in options and nested:
            self.error(options["importance"].loc, nested_importance_message(arg.name))
        elif "importance" in options:
            importance = self.positive(options["importance"].value, "importance")
        compare = None
        if "compare" in options:
            compare = self.lower_compare(options["compare"].value, type_node)
        default: Any = NO_DEFAULT
        if "default" in options:
            lit = options["default"].value
            values = _values_in(lit)
            if lit.depth > MAX_NESTING:
                self.too_deep(lit, "the default value is")
            elif values > SCHEMA_MAX_DEFAULT_VALUES:
                self.error(lit.loc, f"a default of {values} values is more than ek reads ({SCHEMA_MAX_DEFAULT_VALUES})")
            else:
                try:
                    default = self.defaults.convert(lit, type_node, constraints)
                except Unresolved:
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
            hint = self.suggest(syn.name, COMPARE_POLICIES)
            message = f"unknown compare policy '{syn.name}'" + (f"; did you mean '{hint}'?" if hint else "")
            self.error(syn.loc, message + f" (choose from {', '.join(COMPARE_POLICIES)})", suggestion=hint)
            return None
        tolerance: float | None = None
        if syn.name == "tol":
            args = syn.args or ()
            if len(args) != 1 or args[0].kind != "number" or not args[0].value >= 0:
                self.error(syn.loc, "compare tol needs one non-negative number, like tol(0.01)")
                return None
            tolerance = to_float(args[0].value)  # type: ignore[assignment]
            if tolerance is None:
                self.error(syn.loc, "the tolerance of compare tol is too large for a float (at most about 1.8e308)")
                return None
        elif syn.args is not None:
            self.error(syn.loc, f"compare policy '{syn.name}' takes no arguments")
        policy = ComparePolicy(syn.name, tolerance)
        try:
            base, _ = self.resolve(type_node)
        except Unresolved:
            return policy
        misfit = compare_misfit(syn.name, base)
        if misfit is not None:
            self.error(syn.loc, misfit)
        return policy


def compare_misfit(policy: str, base: TypeNode) -> str | None:
    """Why compare ``policy`` does not apply to the (resolved) type ``base``, or None when it does: the one rule,
    for lint and ``ek import`` alike (the importer's own copy dropped ``exact`` on numbers and booleans, which the
    DSL takes, so ``ek export`` then ``ek import`` lost it).

    >>> compare_misfit("tol", PrimitiveType("str")), compare_misfit("exact", PrimitiveType("float"))
    ('compare tol applies to int and float, not str', None)
    """
    kind = kind_of(base)
    if policy == "tol" and kind not in ("int", "float"):
        return f"compare tol applies to int and float, not {describe(base)}"
    if policy == "unordered" and kind != "list":
        return f"compare unordered applies to lists, not {describe(base)}"
    if policy in _TEXT_POLICIES and kind in ("int", "float", "bool"):
        return f"compare {policy} folds text and does not apply to {describe(base)}"
    return None


def _is_scalar(node: TypeNode) -> bool:
    """Fast path of :meth:`_Checker.check_resolved_nesting`: a built-in type or an enum (most arguments)
    nests nothing, so :meth:`_Checker.nesting` (levels 0, lists 0, inside every limit) is not asked."""
    return isinstance(node, (PrimitiveType, EnumType))


def _deepest_child(node: TypeSyn | Lit) -> TypeSyn | Lit:
    """The child of a list or object (type or literal) that nests deepest."""
    if isinstance(node, Lit):
        children = list(node.value) if node.kind == "list" else [value for _, _, value in node.value]
    elif node.kind == "list":
        assert node.item is not None
        return node.item
    else:
        assert node.body is not None
        children = [item.type for item in node.body.items if isinstance(item, ArgSyn)]
    return max(children, key=lambda child: child.depth)


def _values_in(lit: Lit) -> int:
    """Values in a default literal, counted through lists and objects (iteratively: it may nest deep)."""
    count, stack = 0, [lit]
    while stack:
        node = stack.pop()
        count += 1
        if node.kind == "list":
            stack.extend(node.value)
        elif node.kind == "object":
            stack.extend(value for _, _, value in node.value)
    return count


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
