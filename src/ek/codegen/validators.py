"""Straight-line validator bodies: one ``if`` per rule, no loop over the spec at run time.

The fast path (valid input) touches each argument once; messages and paths
are only built when something is wrong. Schema content (names, patterns,
enum members) only ever appears as ``repr`` literals or in module tables.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, NamedTuple

import attrs

from ek.codegen.errors import GenerationError
from ek.codegen.literals import py_literal
from ek.codegen.patterns import specialise, specialise_ascii
from ek.codegen.source import Lines, PathExpr
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
    TypeNode,
)
from ek.grammar.regexes import pattern_problem
from ek.limits import SCHEMA_MAX_LIST_NESTING

#: Deepest indentation a validator may reach (Python's tokenizer refuses 100). A checked grammar stays well
#: inside it (ek.limits.SCHEMA_MAX_NESTING); this guards grammars built in code without the checker.
MAX_NESTING = 80
MAX_LIST_NESTING = SCHEMA_MAX_LIST_NESTING


def pattern_refusal(pattern: str) -> str | None:
    """Why a validator must not run ``pattern`` (it does not compile, or could backtrack), or None."""
    try:
        problem = pattern_problem(pattern)
    except (re.error, RecursionError, OverflowError, ValueError) as err:
        return f"invalid regex /{pattern}/: {err}"
    return None if problem is None else f"regex /{pattern}/ {problem}"


def refuse_unsafe_patterns(grammar: GraphGrammar) -> None:
    """Raise :class:`GenerationError` for the first regex of ``grammar`` a validator must not run.

    ``ek lint`` refuses these where they are written; this catches a grammar built in code, before
    any validator of it is compiled (so a metric over it fails when made, not halfway through a run).

    Fast path: a grammar with no pattern anywhere (:func:`_has_patterns`: most grammars, and each BFCL
    question's) is done without the walk below, which names every place it passes for an error it then
    does not raise (a metric per BFCL question made that walk every time).
    """
    if not _has_patterns(grammar):
        return
    stack: list[tuple[str, TypeNode, Constraints]] = [(f"type {a.name}", a.type, a.constraints) for a in grammar.types]
    stack += [(f"{t.name}.{f.name}", f.type, f.constraints) for t in grammar.tools for f in t.fields]
    while stack:
        where, node, cons = stack.pop()
        refusal = pattern_refusal(cons.pattern) if cons.pattern is not None else None
        if refusal is not None:
            raise GenerationError(f"{grammar.key} {where}: {refusal}")
        if isinstance(node, ListType):
            stack.append((f"{where}[]", node.item, NO_CONSTRAINTS))
        elif isinstance(node, ObjectType):
            stack.extend((f"{where}.{f.name}", f.type, f.constraints) for f in node.fields)


def _has_patterns(grammar: GraphGrammar) -> bool:
    """Whether some field, list item or named type of ``grammar`` has a regex: what
    :func:`refuse_unsafe_patterns` walks, without naming the places."""
    nodes: list[TypeNode] = [a.type for a in grammar.types if a.constraints.pattern is None]
    if len(nodes) != len(grammar.types):
        return True
    for tool in grammar.tools:
        for spec in tool.fields:
            if spec.constraints.pattern is not None:
                return True
            node = spec.type
            if type(node) is not PrimitiveType and type(node) is not EnumType:  # (those hold no field: not walked)
                nodes.append(node)
    while nodes:
        node = nodes.pop()
        if isinstance(node, ListType):
            nodes.append(node.item)
        elif isinstance(node, ObjectType):
            for spec in node.fields:
                if spec.constraints.pattern is not None:
                    return True
                nodes.append(spec.type)
    return False


#: What renders a bad value in a violation's reason: names every generated module defines or imports.
RENDERERS = frozenset({"_repr80", "_type_name", "str"})


class Tables:
    """Module-level constants the validators share: compiled patterns, enum sets, key sets,
    violations whose path and reason are fixed, and the fixed part (path, text, render) of those
    whose reason shows the value. Each value is stored once, numbered by first use."""

    def __init__(self) -> None:
        self.patterns: dict[str, int] = {}
        self.enums: dict[frozenset[str | int], int] = {}
        self.keysets: dict[frozenset[str], int] = {}
        self.violations: dict[tuple[str, str], int] = {}
        self.heads: dict[tuple[str, str, str], int] = {}

    @staticmethod
    def _index(table: dict[Any, int], value: Any) -> int:
        return table.setdefault(value, len(table))

    def pattern(self, pattern: str) -> str:
        return f"_FM{self._index(self.patterns, pattern)}"

    def enum(self, members: tuple[str | int, ...]) -> str:
        return f"_E{self._index(self.enums, frozenset(members))}"

    def enum_bad(self, var: str, members: tuple[str | int, ...]) -> str:
        """True iff ``var`` is not a member. A value of exactly a member's type (never a list, which cannot be
        hashed, nor ``True``, which equals ``1``) is looked up in the set; any other, and a value the set lacks,
        is decided as ``ek.grammar.fits`` decides it (``_enum_miss``: a subclass of ``str`` that defines
        ``__eq__`` cannot be hashed, and made a set lookup raise)."""
        kinds = {type(m) for m in members}
        if len(kinds) == 1:
            test = f"type({var}) is not {next(iter(kinds)).__name__}"
        else:
            test = f"(type({var}) is not str and type({var}) is not int)"
        table = self.enum(members)
        return f"({test} or {var} not in {table}) and _enum_miss({var}, {table})"

    def keyset(self, names: tuple[str, ...]) -> str:
        return f"_K{self._index(self.keysets, frozenset(names))}"

    def violation(self, path: str, reason: str) -> str:
        return f"_S{self._index(self.violations, (path, reason))}"

    def head(self, path: str, text: str, render: str) -> str:
        """A :class:`ek.runtime.violation.Head`; ``render`` is written as a name, so it must be one of the
        generator's own (``_repr80``, ``_type_name``, ``str``), never schema text."""
        if render not in RENDERERS:
            raise ValueError(f"not a renderer of generated code: {render!r}")
        return f"_H{self._index(self.heads, (path, text, render))}"

    def assignments(self, mark: Callable[[str], str] | None = None) -> list[str]:
        """``_FM0 = _re.compile(...).fullmatch`` etc., in first-use order (deterministic). ``mark``: writes
        each ``str`` (see :func:`~ek.codegen.literals.py_literal`)."""
        def lit(value: Any) -> str:
            return py_literal(value, mark)

        out = [f"_FM{i} = _re.compile({lit(p)}).fullmatch" for i, p in enumerate(self.patterns)]
        out += [f"_E{i} = {lit(e)}" for i, e in enumerate(self.enums)]
        out += [f"_K{i} = {lit(k)}" for i, k in enumerate(self.keysets)]
        out += [f"_S{i} = _V({lit(v)})" for i, v in enumerate(self.violations)]
        out += [f"_H{i} = _VH(({lit(p)}, {lit(t)}, {r}))" for i, (p, t, r) in enumerate(self.heads)]
        return out


def _range_text(lo: Any, hi: Any) -> str:
    return f"[{'' if lo is None else repr(lo)}..{'' if hi is None else repr(hi)}]"


def _bounds_test(expr: str, lo: Any, hi: Any, lit: Callable[[Any], str] = py_literal) -> str:
    """A condition that is True when ``expr`` is OUT of range (NaN is out of every range)."""
    if lo is not None and hi is not None:
        return f"not ({lit(lo)} <= {expr} <= {lit(hi)})"
    if lo is not None:
        return f"not ({expr} >= {lit(lo)})"
    return f"not ({expr} <= {lit(hi)})"


#: Written around each local name in a :class:`Run`'s skeleton; like ``\\x00``, never in generated source otherwise
#: (``repr`` writes it ``\\x01``).
LOCAL_MARK = "\x01"


class Run(NamedTuple):
    """A run of a validator body's statements as a *shape* and what fills it: ``skeleton`` is the source
    with each literal and table name replaced by a marker, ``\\x00L3\\x00`` (literal number 3 of the run)
    or ``\\x00N3\\x00`` (name), and ``fillers`` the text of each. A marker cannot occur in generated source
    otherwise: ``repr`` writes a NUL byte as ``\\x00``.

    Each local name is written between two ``\\x01`` (:data:`LOCAL_MARK`: ``\\x01v3\\x01``), which the source
    leaves out: the compile gate finds them so (:func:`ek.codegen.shapes.shape_of`).

    A *hole* ``\\x00R3\\x00`` stands, after its line's indentation, for the statements that check a nested
    object's fields, themselves cut into runs (a :class:`Body`, ``values[3]``; its text, but for the first
    line's indentation, is ``fillers[3]``): the fields of an object repeat less than an argument's checks, so
    a run holding them whole would rarely share its shape."""

    skeleton: str
    fillers: tuple[str, ...]
    #: the value each literal marker writes (None for a name marker; the :class:`Body` of a hole)
    values: tuple[Any, ...] = ()

    def text(self) -> str:
        """The source: each marker replaced by its filler, the marks around local names left out."""
        parts = self.skeleton.split("\x00")
        fillers = self.fillers
        parts[1::2] = [fillers[int(marker[1:])] for marker in parts[1::2]]
        return "".join(parts).replace(LOCAL_MARK, "")


_new_run = tuple.__new__


@attrs.frozen
class Body:
    """A validator body cut into runs of top-level statements (:class:`Run`): the prologue, one run per
    argument, the unknown-keys check; the body is their text, a line each apart. An argument's checks
    are the same statements wherever they appear but for their literals, table names and the local
    names (which follow the argument's position: ``v3``), so runs repeat across tools that differ, and
    the compile gate checks each distinct run once (:mod:`ek.codegen.shapes`). The fields of a nested
    object are a body of their own, one run per field, in a hole of the run that holds the object
    (:class:`Run`), where no loop or ``try`` encloses them."""

    runs: tuple[Run, ...]

    def text(self) -> str:
        """The source of the body: each run's :meth:`Run.text`, a line apart."""
        return "\n".join([run.text() for run in self.runs])


class ValidatorEmitter:
    """Writes the body of ``validate_<tool>`` for one grammar."""

    def __init__(self, grammar: GraphGrammar, tables: Tables) -> None:
        self.grammar = grammar
        self.tables = tables
        self._fillers: list[str] = []  # of the run being written
        self._values: list[Any] = []
        self._runs: list[Run] = []
        self._cut_at = 0  # the line the run being written starts at
        self._str_literals: dict[str, str] = {}
        self._holes = False  # whether a nested object's fields may go in a hole (:meth:`_nested_fields`)

    def planned_body(self, fields: tuple[FieldSpec, ...], holes: bool = False) -> Body:
        """The body as runs of statements, each a shape and its fillers (:class:`Body`); ``holes``: the fields
        of nested objects cut into runs too (the compile gate's; a module compiled as it is needs none)."""
        self._fillers, self._values, self._runs, self._cut_at = [], [], [], 0
        self._holes = holes
        code = Lines(level=1, mark=LOCAL_MARK)
        with code.block("if type(args) is not dict:"):
            with code.block("if not isinstance(args, _Mapping):"):
                code.line("return _not_object('$', args)")
            code.line("args = dict(args)")
        code.line("errs: list[Violation] = []")
        self.fields(code, "args", fields, PathExpr.root(), cut=True)
        code.line("return errs")
        self._cut(code)
        return Body(tuple(self._runs))

    def _cut(self, code: Lines) -> None:
        """End the run of top-level statements written since the last cut (:class:`Run`); the markers of
        the next are numbered from 0 again."""
        lines = code.lines
        # tuple.__new__: Run's own __new__ is Python code, and a module of 1,000 tools cuts 6,000 runs
        self._runs.append(_new_run(Run, ("\n".join(lines[self._cut_at:]), tuple(self._fillers), tuple(self._values))))
        self._cut_at = len(lines)
        self._fillers, self._values = [], []

    def _nested_fields(self, code: Lines, obj: str, fields: tuple[FieldSpec, ...], path: PathExpr) -> None:
        """:meth:`fields` of a nested object, its field checks cut into runs of their own (a :class:`Body`, one
        run per field) and written in the run being written as a hole, ``\\x00R<k>\\x00`` after the line's
        indentation. Only where :attr:`_holes` (no loop or ``try`` body encloses the object: the gate checks
        that too), and not for an object of no field."""
        if not (self._holes and fields):
            self.fields(code, obj, fields, path)
            return
        outer = self._fillers, self._values, self._runs, self._cut_at
        count = code.fresh("n")
        code.line(f"{count} = {self._lit(sum(1 for f in fields if f.required))}")
        start = len(code.lines)
        self._fillers, self._values, self._runs, self._cut_at = [], [], [], start
        for i, f in enumerate(fields):
            if i:
                self._cut(code)
            self._field(code, obj, f, path, count)
        self._cut(code)
        inner = Body(tuple(self._runs))
        del code.lines[start:]
        self._fillers, self._values, self._runs, self._cut_at = outer
        self._fillers.append(inner.text()[4 * code.level:])
        self._values.append(inner)
        code.line(f"\x00R{len(self._fillers) - 1}\x00")
        self._unknown_keys(code, obj, count, fields, path)

    def _resolve(self, node: TypeNode, cons: Constraints) -> tuple[TypeNode, Constraints]:
        """:meth:`GraphGrammar.resolve`, which a type that names no alias (most) need not go through."""
        return self.grammar.resolve(node, cons) if isinstance(node, NamedType) else (node, cons)

    def _lit(self, value: Any) -> str:
        """``value`` as a literal: a marker for one that is a single token (a ``str``, a number that is not
        negative, True, False, None), written in place otherwise (``-1``, ``float('inf')``)."""
        kind = type(value)
        if kind is str:
            text = self._str_literal(value)
        else:
            text = py_literal(value)
        if kind is str or value is None or kind is bool or (kind in (int, float) and text[0].isdigit()):
            fillers = self._fillers
            fillers.append(text)
            self._values.append(value)
            return f"\x00L{len(fillers) - 1}\x00"
        return text

    def _str_literal(self, value: str) -> str:
        """:func:`py_literal` of a ``str``, remembered: argument names, paths and messages recur in every
        tool (``'missing required argument'``, ``'location'``), twenty thousand literals for 1,000 tools."""
        text = self._str_literals.get(value)
        if text is None:
            text = self._str_literals[value] = py_literal(value)
        return text

    def _name(self, name: str) -> str:
        """A module table's name, as a marker."""
        self._fillers.append(name)
        self._values.append(None)
        return f"\x00N{len(self._fillers) - 1}\x00"

    def _path(self, path: PathExpr) -> str:
        """A location: a marker when it is a constant, else its tuple of pieces, each literal a marker."""
        return path.code_with(self._lit)

    def fields(self, code: Lines, obj: str, fields: tuple[FieldSpec, ...], path: PathExpr, cut: bool = False) -> None:
        """Check each declared field of the dict in ``obj``, then count keys to find unknown ones. ``cut``:
        these are the body's top-level statements, cut into runs (:meth:`_cut`) before each field but the
        first (the prologue, the same in every body, adds no shape to the first's) and before the
        unknown-keys check."""
        count = code.fresh("n")
        code.line(f"{count} = {self._lit(sum(1 for f in fields if f.required))}")
        for i, f in enumerate(fields):
            if cut and i:
                self._cut(code)
            self._field(code, obj, f, path, count)
        if cut:
            self._cut(code)
        self._unknown_keys(code, obj, count, fields, path)

    def _field(self, code: Lines, obj: str, f: FieldSpec, path: PathExpr, count: str) -> None:
        """The checks of one declared field of the dict in ``obj``; ``count``: the variable counting its keys."""
        fpath = path.key(f.name)
        key = self._lit(f.name)
        node, cons = self._resolve(f.type, f.constraints)
        if f.required:
            var = code.fresh("v")
            with code.block("try:"):
                code.line(f"{var} = {obj}[{key}]")
            with code.block("except KeyError:"):
                self._fail(code, fpath, "missing required argument")
                code.line(f"{count} -= 1")
            if self._has_checks(node):
                with code.block("else:"):
                    self.value(code, var, node, cons, fpath)
        elif self._has_checks(node):
            # One lookup; an explicit None (allowed) is not counted, so it only sends the
            # key count below to the slow scan, which finds nothing unknown.
            var = code.fresh("v")
            code.line(f"{var} = {obj}.get({key})")
            with code.block(f"if {var} is not None:"):
                code.line(f"{count} += 1")
                self.value(code, var, node, cons, fpath)
        else:
            with code.block(f"if {key} in {obj}:"):
                code.line(f"{count} += 1")

    def _unknown_keys(self, code: Lines, obj: str, count: str, fields: tuple[FieldSpec, ...], path: PathExpr) -> None:
        """Count the keys of the dict in ``obj`` against ``count`` to find unknown ones."""
        keys = self._name(self.tables.keyset(tuple(f.name for f in fields)))
        with code.block(f"if len({obj}) != {count}:"):
            code.line(f"_unknown(errs, {obj}, {keys}, {self._path(path)})")

    @staticmethod
    def _has_checks(node: TypeNode) -> bool:
        return not (isinstance(node, PrimitiveType) and node.name == "any")

    def value(self, code: Lines, var: str, node: TypeNode, cons: Constraints, path: PathExpr) -> None:
        """Checks for one value already bound to ``var``."""
        if code.level > MAX_NESTING:
            raise GenerationError(f"types nest deeper than {MAX_NESTING} levels at {path.text()} (a recursive type?)")
        if isinstance(node, PrimitiveType):
            name = node.name
            if name == "str":
                if cons.min is None and cons.max is None and cons.pattern is not None:
                    ascii_test = self._ascii_match(var, cons.pattern)
                    if ascii_test is not None:
                        self._ascii_str(code, var, ascii_test, cons.pattern, path)
                        return
                with code.block(f"if not isinstance({var}, str):"):
                    self._fail(code, path, "expected str, got ", "_type_name", var)
                if cons.min is not None or cons.max is not None or cons.pattern is not None:
                    with code.block("else:"):
                        self._length(code, var, cons, path)
                        # one problem per value, as ek.grammar.fits reports: the length, else the pattern
                        has_length = cons.min is not None or cons.max is not None
                        self._pattern(code, var, cons.pattern, path, after_length=has_length)
            elif name == "int":
                with code.block(f"if type({var}) is not int and (type({var}) is bool or not isinstance({var}, int)):"):
                    self._fail(code, path, "expected int, got ", "_type_name", var)
                self._range(code, var, cons, path)
            elif name == "float":
                test = f"type({var}) is not float and (type({var}) is bool or not isinstance({var}, (int, float)))"
                with code.block(f"if {test}:"):
                    self._fail(code, path, "expected float, got ", "_type_name", var)
                self._range(code, var, cons, path)
            elif name == "bool":
                with code.block(f"if type({var}) is not bool:"):
                    self._fail(code, path, "expected bool, got ", "_type_name", var)
            elif name == "date":  # the checks of ek.runtime.support.is_date, inlined
                shape = f"{var}[7] != '-'"
                self._parsed(code, var, shape, "_date_fromiso", "expected an ISO date string YYYY-MM-DD, got ", path)
            elif name == "datetime":  # the checks of ek.runtime.support.is_datetime, inlined
                shape = f"{var}[7] != '-' or {var}[13] != ':' or {var}[10] not in 'Tt '"
                reason = "expected an ISO 8601 datetime string, got "
                self._parsed(code, var, shape, "_datetime_fromiso", reason, path)
            elif name != "any":
                raise ValueError(f"unknown primitive type {name!r}")
        elif isinstance(node, EnumType):
            members = ", ".join(repr(m) for m in node.members)
            reason = f"expected one of {members}, got "
            if all(type(m) is str for m in node.members):
                # A set lookup alone (no isinstance first: 20 ns of a 2-argument tool's 160): only a str
                # equals a str member, and an unhashable value (a list, a str subclass that defines __eq__)
                # raises TypeError, the rare path, decided as ek.grammar.fits decides it (_enum_miss).
                # (Not ``raise`` on a miss: raising and catching costs more than the whole check.)
                ok = code.fresh("ok")
                table = self._name(self.tables.enum(node.members))
                with code.block("try:"):
                    code.line(f"{ok} = {var} in {table}")
                with code.block("except TypeError:"):
                    code.line(f"{ok} = not _enum_miss({var}, {table})")
                with code.block(f"if not {ok}:"):
                    self._fail(code, path, reason, "_repr80", var, any_type=True)
            else:
                with code.block(f"if {self.tables.enum_bad(var, node.members)}:"):
                    self._fail(code, path, reason, "_repr80", var, any_type=True)
        elif isinstance(node, ListType):
            with code.block(f"if type({var}) is not list and not isinstance({var}, (list, tuple)):"):
                self._fail(code, path, "expected list, got ", "_type_name", var)
            item, item_cons = self._resolve(node.item, NO_CONSTRAINTS)
            has_len = cons.min is not None or cons.max is not None
            if has_len or self._has_checks(item):
                with code.block("else:"):
                    if has_len:
                        self._length(code, var, cons, path)
                    if self._has_checks(item):
                        self._items(code, var, item, item_cons, path)
        elif isinstance(node, ObjectType):
            with code.block(f"if not isinstance({var}, dict):"):
                with code.block(f"if isinstance({var}, _Mapping):"):
                    code.line(f"{var} = dict({var})")  # any mapping, like the arguments themselves
                with code.block("else:"):
                    self._fail(code, path, "expected an object, got ", "_type_name", var)
                    code.line(f"{var} = None")
            with code.block(f"if {var} is not None:"):
                self._nested_fields(code, var, node.fields, path)
        else:
            raise TypeError(f"unresolved type node {node!r}")

    def _items(self, code: Lines, var: str, item: TypeNode, cons: Constraints, path: PathExpr) -> None:
        """Check every element; simple items get a tight loop and only a failure pays for indexes."""
        if path.text().count("[*]") >= MAX_LIST_NESTING:
            raise GenerationError(
                f"lists nest more than {MAX_LIST_NESTING} deep at {path.text()}[*] (a recursive type?)"
            )
        holes, self._holes = self._holes, False  # no hole inside a loop (the gate compiles a hole's runs outside any)
        self._loop(code, var, item, cons, path)
        self._holes = holes

    def _loop(self, code: Lines, var: str, item: TypeNode, cons: Constraints, path: PathExpr) -> None:
        """The loop of :meth:`_items`."""
        idx, elem = code.fresh("i"), code.fresh("v")
        quick = code.fresh("v")
        bad = self.quick_bad(quick, item, cons)
        if bad is None:
            with code.block(f"for {idx}, {elem} in enumerate({var}):"):
                self.value(code, elem, item, cons, path.index(idx))
            return
        with code.block(f"for {quick} in {var}:"), code.block(f"if {bad}:"):
            with code.block(f"for {idx}, {elem} in enumerate({var}):"):
                self.value(code, elem, item, cons, path.index(idx))
            code.line("break")

    def quick_bad(self, var: str, node: TypeNode, cons: Constraints) -> str | None:
        """One expression, True iff ``var`` breaks a rule, for scalar types; None for the rest."""
        if isinstance(node, EnumType):
            return self.tables.enum_bad(var, node.members)
        if not isinstance(node, PrimitiveType):
            return None
        if node.name == "str":
            parts = [f"not isinstance({var}, str)"]
            if cons.min is not None or cons.max is not None:
                parts.append(_bounds_test(f"len({var})", cons.min, cons.max, self._lit))
            if cons.pattern is not None:
                parts.append(self._mismatch(var, cons.pattern))
            return " or ".join(parts)
        if node.name == "bool":
            return f"type({var}) is not bool"
        if node.name in ("int", "float"):
            kinds = "int" if node.name == "int" else "(int, float)"
            test = f"(type({var}) is not {node.name} and (type({var}) is bool or not isinstance({var}, {kinds})))"
            if cons.min is not None or cons.max is not None:
                test += f" or {_bounds_test(var, cons.min, cons.max, self._lit)}"
            return test
        return None

    def _parsed(self, code: Lines, var: str, shape: str, parser: str, reason: str, path: PathExpr) -> None:
        """A string whose separators are checked inline, then parsed by the C parser.

        No isinstance: a non-string fails the slice, the set lookup or the
        parser with TypeError, and that is the rare path.
        """
        with code.block("try:"):
            with code.block(f"if {shape}:"):
                code.line("raise ValueError")
            code.line(f"{parser}({var})")
        with code.block("except (TypeError, ValueError, LookupError):"):
            self._fail(code, path, reason, "_repr80", var, any_type=True)

    def _fail(
        self, code: Lines, path: PathExpr, reason: str, render: str | None = None, value: str = "",
        any_type: bool = False,
    ) -> None:
        """Append a violation. One whose path and reason are fixed is built once, at import; the
        others store ``render`` and ``value``, and their reason is only formatted when read: as
        ``(head, value)`` with the head (path, text, render) built once at import when the path
        is fixed, else as ``(path, text, render, value)``.

        ``any_type``: ``value`` may be a mutable object (a list where an enum is due), whose text
        must not change later, so only a ``str`` is kept as it is; the rest is rendered now.
        """
        if render is None:
            if path.is_static:
                code.line(f"errs.append({self._name(self.tables.violation(path.text(), reason))})")
            else:
                code.line(f"errs.append(_V(({self._path(path)}, {self._lit(reason)})))")
            return
        if path.is_static:
            lazy = f"_V(({self._name(self.tables.head(path.text(), reason, render))}, {value}))"
        else:
            lazy = f"_V(({self._path(path)}, {self._lit(reason)}, {render}, {value}))"
        if any_type:
            eager = f"_V(({self._path(path)}, {self._lit(reason)} + {render}({value})))"
            code.line(f"errs.append({lazy} if type({value}) is str else {eager})")
        else:
            code.line(f"errs.append({lazy})")

    def _mismatch(self, var: str, pattern: str) -> str:
        """True iff the str in ``var`` does not fully match ``pattern``; only a pattern that runs in linear time."""
        refusal = pattern_refusal(pattern)
        if refusal is not None:
            raise GenerationError(refusal)
        fast = specialise(pattern, var)
        return f"not ({fast})" if fast is not None else f"{self._name(self.tables.pattern(pattern))}({var}) is None"

    def _ascii_match(self, var: str, pattern: str) -> str | None:
        """:func:`~ek.codegen.patterns.specialise_ascii` of a pattern a validator may run, or None."""
        refusal = pattern_refusal(pattern)
        if refusal is not None:
            raise GenerationError(refusal)
        return specialise_ascii(pattern, var)

    def _ascii_str(self, code: Lines, var: str, test: str, pattern: str, path: PathExpr) -> None:
        """A ``str`` whose pattern matches only ASCII text: ``str.isascii(var)`` is both the type check (it
        raises ``TypeError`` for anything but a ``str``, the rare path) and the first step of the match,
        which saves the ``isinstance`` call. Only that call is in the ``try``; the violations are those of
        the general path (``expected str``, else ``must fully match``)."""
        flag = code.fresh("a")
        with code.block("try:"):
            code.line(f"{flag} = _isascii({var})")
        with code.block("except TypeError:"):
            self._fail(code, path, "expected str, got ", "_type_name", var)
        with code.block("else:"), code.block(f"if not ({flag} and {test}):"):
            self._fail(code, path, f"must fully match /{pattern}/, got ", "_repr80", var)

    def _range(self, code: Lines, var: str, cons: Constraints, path: PathExpr) -> None:
        if cons.min is None and cons.max is None:
            return
        with code.block(f"elif {_bounds_test(var, cons.min, cons.max, self._lit)}:"):
            self._fail(code, path, f"must be in {_range_text(cons.min, cons.max)}, got ", "_repr80", var)

    def _length(self, code: Lines, var: str, cons: Constraints, path: PathExpr) -> None:
        if cons.min is None and cons.max is None:
            return
        test = f"not {var}" if (cons.min, cons.max) == (1, None) else _bounds_test(f"len({var})", cons.min, cons.max, self._lit)
        with code.block(f"if {test}:"):
            self._fail(code, path, f"length must be in {_range_text(cons.min, cons.max)}, got ", "str", f"len({var})")

    def _pattern(self, code: Lines, var: str, pattern: str | None, path: PathExpr, after_length: bool = False) -> None:
        if pattern is None:
            return
        with code.block(f"{'elif' if after_length else 'if'} {self._mismatch(var, pattern)}:"):
            self._fail(code, path, f"must fully match /{pattern}/, got ", "_repr80", var)
