"""Default values: a literal as written -> the Python value of its argument's type, or a diagnostic.

Defaults are data, decoded by hand (never evaluated): ``null``, ``true`` and
``false`` are words, dates stay ISO strings, lists become lists and objects
dicts. A default must fit its type and constraints, since an omitted argument
is scored as if it had been given its default.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ek.grammar.diagnostics import did_you_mean
from ek.grammar.fits import in_range, is_date, is_datetime
from ek.grammar.model import (
    NO_CONSTRAINTS,
    Constraints,
    EnumType,
    ListType,
    ObjectType,
    TypeNode,
    kind_of,
)
from ek.grammar.regexes import fullmatch, is_safe
from ek.grammar.strings import format_number, shown_pattern, to_float
from ek.grammar.syntax import Lit

#: Reports a problem: ``error(loc, message, suggestion=None)``.
ErrorSink = Callable[..., None]
#: Follows named types: ``resolve(type, constraints) -> (structural type, merged constraints)``.
Resolver = Callable[[TypeNode, Constraints], "tuple[TypeNode, Constraints]"]


#: Finds a likely meant word: ``suggest(word, candidates) -> candidate or None``.
Suggest = Callable[[str, "Iterable[str]"], "str | None"]


class Unresolved(Exception):
    """A type that cannot be resolved (unknown or recursive): checks that need it are skipped."""


class DefaultChecker:
    """Converts default literals, reporting each misfit through ``error``."""

    def __init__(self, error: ErrorSink, resolve: Resolver, suggest: Suggest = did_you_mean) -> None:
        self.error = error
        self.resolve = resolve
        self.suggest = suggest

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
        kind = kind_of(base)
        shown = show_literal(lit)
        if isinstance(base, EnumType):
            if lit.kind in ("name", "string") and lit.value in base.members:
                return lit.value
            if lit.kind == "number" and type(lit.value) is int and lit.value in base.members:
                return lit.value
            if lit.kind in ("name", "string"):
                hint = self.suggest(lit.value, [m for m in base.members if isinstance(m, str)])
                message = f"default {shown} is not a member of {describe(base)}"
                self.error(lit.loc, message + (f"; did you mean '{hint}'?" if hint else ""), suggestion=hint)
            else:
                self.error(lit.loc, f"default {shown} does not fit {describe(base)}")
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
                value = to_float(lit.value)
                if value is None:
                    self.error(lit.loc, f"default {shown} is too large for a float (at most about 1.8e308)")
                    return _BAD
                return value
        elif kind == "bool":
            if lit.kind == "name" and lit.value in ("true", "false"):
                return lit.value == "true"
        elif kind in ("date", "datetime"):
            if lit.kind == "string":
                if not (is_date if kind == "date" else is_datetime)(lit.value):
                    form = "date YYYY-MM-DD" if kind == "date" else "8601 datetime (YYYY-MM-DDTHH:MM...)"
                    self.error(lit.loc, f"default {shown} is not an ISO {form}")
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
        self.error(lit.loc, f"default {shown} does not fit type {describe(base)}")
        return _BAD

    def convert_object(self, lit: Lit, base: ObjectType) -> Any:
        out: dict[str, Any] = {}
        names = [f.name for f in base.fields]
        for key, key_loc, value in lit.value:
            spec = base.field(key)
            if spec is None:
                hint = self.suggest(key, names)
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
        kind = kind_of(base)
        measured: Any = None
        what = ""
        if kind in ("int", "float") and isinstance(value, (int, float)):
            measured, what = value, "value"
        elif kind in ("str", "list") and isinstance(value, (str, list)):
            measured, what = len(value), "length"
        if measured is not None and not in_range(measured, c):
            lo = "" if c.min is None else format_number(c.min)
            hi = "" if c.max is None else format_number(c.max)
            subject = f"default {show_literal(lit)}" if what == "value" else f"default {show_literal(lit)} has length {measured}, which"
            self.error(lit.loc, f"{subject} is outside the range [{lo}..{hi}]")
        if c.pattern is not None and kind == "str" and isinstance(value, str) and is_safe(c.pattern):
            # an invalid or backtracking regex is reported where it is written, and not run
            if not fullmatch(c.pattern, value):
                self.error(lit.loc, f"default {show_literal(lit)} does not match {shown_pattern(c.pattern)}")


class _BadValue:
    def __repr__(self) -> str:
        return "<bad value>"


_BAD: Any = _BadValue()


def describe(node: TypeNode) -> str:
    """A type as messages name it (long enums shortened)."""
    if isinstance(node, EnumType):
        members = ", ".join(map(str, node.members[:6])) + (", ..." if len(node.members) > 6 else "")
        return f"enum({members})"
    if isinstance(node, ObjectType):
        return "an object"
    return str(node)


def show_literal(lit: Lit) -> str:
    """A literal as messages quote it."""
    if lit.kind == "string":
        text = lit.value if len(lit.value) <= 40 else lit.value[:37] + "..."
        return f"'{text}'"
    if lit.kind == "number":
        text = format_number(lit.value) if isinstance(lit.value, (int, float)) else str(lit.value)
        return text if len(text) <= 40 else text[:37] + "..."
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
