"""``diff(old, new)``: what changed between two grammar versions, and what breaks old gold data.

A change is *breaking* when gold calls written against ``old`` may stop being
valid or may score differently (a tool or argument removed, a type narrowed, an
argument made required, an enum member removed, a range, length or pattern
tightened, a default changed). Re-weighting, importance, compare policies, docs,
added tools, added optional arguments and widened types are not.
Types are compared after following named types, so renaming an alias is not a change.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import attrs

from ek.grammar.model import (
    NO_CONSTRAINTS,
    Constraints,
    EnumType,
    FieldSpec,
    GraphGrammar,
    ListType,
    ObjectType,
    PrimitiveType,
    TypeNode,
)
from ek.grammar.printer import Printer
from ek.grammar.strings import encode_pattern, format_member, format_number, format_weight

# A value of the first type is always a valid value of the second (JSON-wise).
_WIDENINGS = {("int", "float"), ("date", "str"), ("datetime", "str")}


@attrs.frozen
class Change:
    """One difference. ``path`` names the tool and argument (``tool.arg.field``)."""

    kind: str
    path: str
    message: str
    breaking: bool
    old: str | None = None
    new: str | None = None

    def to_json(self) -> dict[str, Any]:
        return attrs.asdict(self)


@attrs.frozen
class GrammarDiff:
    """Every change from ``old`` to ``new`` (``NAME@VERSION`` keys), breaking ones flagged."""

    old: str
    new: str
    changes: tuple[Change, ...]

    @property
    def breaking(self) -> tuple[Change, ...]:
        return tuple(c for c in self.changes if c.breaking)

    @property
    def non_breaking(self) -> tuple[Change, ...]:
        return tuple(c for c in self.changes if not c.breaking)

    @property
    def is_breaking(self) -> bool:
        return any(c.breaking for c in self.changes)

    def to_json(self) -> dict[str, Any]:
        return {
            "old": self.old,
            "new": self.new,
            "breaking": self.is_breaking,
            "changes": [c.to_json() for c in self.changes],
        }

    def render(self) -> str:
        """The human report: a summary line, then breaking and non-breaking changes."""
        if not self.changes:
            return f"{self.old} -> {self.new}: no changes"
        out = [f"{self.old} -> {self.new}: {len(self.breaking)} breaking, {len(self.non_breaking)} non-breaking"]
        if self.breaking:
            out += ["", f"Breaking (gold data written for {self.old} may no longer hold):"]
            out += [f"  ! {c.path}: {c.message}" for c in self.breaking]
        if self.non_breaking:
            out += ["", "Non-breaking:"]
            out += [f"    {c.path}: {c.message}" for c in self.non_breaking]
        return "\n".join(out)

    def __str__(self) -> str:
        return self.render()


def diff(old: GraphGrammar, new: GraphGrammar) -> GrammarDiff:
    """Compare two grammars (usually two versions of one).

    >>> from ek.grammar import parse
    >>> a = parse("grammar t 1\\ntool f {\\n    x: int\\n}\\n")
    >>> b = parse("grammar t 2\\ntool f {\\n    x: float importance 2\\n    y: str?\\n}\\n")
    >>> print(diff(a, b))
    t@1 -> t@2: 0 breaking, 3 non-breaking
    <BLANKLINE>
    Non-breaking:
        f.x: type widened from int to float
        f.x: importance 1 -> 2
        f.y: optional argument added
    """
    return GrammarDiff(old.key, new.key, tuple(_Differ(old, new).changes()))


class _Differ:
    def __init__(self, old: GraphGrammar, new: GraphGrammar) -> None:
        self.old = old
        self.new = new

    def changes(self) -> Iterator[Change]:
        if self.old.name != self.new.name:
            yield Change("grammar-renamed", self.new.name, f"grammar renamed from '{self.old.name}'", True, self.old.name, self.new.name)
        new_types = {t.name for t in self.new.types}
        old_types = {t.name for t in self.old.types}
        for alias in self.old.types:
            if alias.name not in new_types:
                yield Change("type-removed", alias.name, "named type removed (arguments using it are compared below)", False)
        for alias in self.new.types:
            if alias.name not in old_types:
                yield Change("type-added", alias.name, "named type added", False)
        new_tools = {t.name: t for t in self.new.tools}
        old_names = {t.name for t in self.old.tools}
        for tool in self.old.tools:
            other = new_tools.get(tool.name)
            if other is None:
                yield Change("tool-removed", tool.name, "tool removed", True)
                continue
            if tool.weight != other.weight:
                yield Change(
                    "tool-reweighted",
                    tool.name,
                    f"weight {format_weight(tool.weight)} -> {format_weight(other.weight)}",
                    False,
                    format_weight(tool.weight),
                    format_weight(other.weight),
                )
            if tool.doc != other.doc:
                yield Change("doc-changed", tool.name, "doc changed", False, tool.doc, other.doc)
            yield from self.fields(tool.name, tool.fields, other.fields)
        for tool in self.new.tools:
            if tool.name not in old_names:
                yield Change("tool-added", tool.name, "tool added", False)

    def fields(self, path: str, old: tuple[FieldSpec, ...], new: tuple[FieldSpec, ...]) -> Iterator[Change]:
        new_by_name = {f.name: f for f in new}
        old_names = {f.name for f in old}
        for spec in old:
            here = f"{path}.{spec.name}"
            other = new_by_name.get(spec.name)
            if other is None:
                yield Change("argument-removed", here, "argument removed", True)
                continue
            yield from self.field(here, spec, other)
        for spec in new:
            if spec.name not in old_names:
                here = f"{path}.{spec.name}"
                if spec.required:
                    yield Change("argument-added", here, "required argument added", True)
                else:
                    yield Change("argument-added", here, "optional argument added", False)

    def field(self, path: str, old: FieldSpec, new: FieldSpec) -> Iterator[Change]:
        if old.required and not new.required:
            yield Change("argument-optional", path, "argument made optional", False)
        elif new.required and not old.required:
            yield Change("argument-required", path, "argument made required", True)
        old_type, old_c = _resolve(self.old, old.type, old.constraints)
        new_type, new_c = _resolve(self.new, new.type, new.constraints)
        yield from self.types(path, old_type, new_type)
        yield from _constraints(path, old_type, new_type, old_c, new_c)
        if old.has_default or new.has_default:
            old_text = Printer(self.old).value_text(old.default, old.type) if old.has_default else None
            new_text = Printer(self.new).value_text(new.default, new.type) if new.has_default else None
            yield from _defaults(path, old, new, old_text, new_text)
        if old.importance != new.importance:
            yield Change(
                "importance-changed",
                path,
                f"importance {format_weight(old.importance)} -> {format_weight(new.importance)}",
                False,
                format_weight(old.importance),
                format_weight(new.importance),
            )
        if old.compare != new.compare:
            before = str(old.compare) if old.compare else "default"
            after = str(new.compare) if new.compare else "default"
            yield Change("compare-changed", path, f"compare {before} -> {after}", False, before, after)
        if old.doc != new.doc:
            yield Change("doc-changed", path, "doc changed", False, old.doc, new.doc)

    def types(self, path: str, old: TypeNode, new: TypeNode) -> Iterator[Change]:
        if isinstance(old, EnumType) and isinstance(new, EnumType):
            kept, had = set(new.members), set(old.members)
            added = [m for m in new.members if m not in had]
            for member in old.members:
                if member not in kept:
                    yield Change("enum-member-removed", path, f"enum member {format_member(member)} removed", True,
                                 member, None)
            for member in added:
                yield Change("enum-member-added", path, f"enum member {format_member(member)} added", False, None,
                             member)
            return
        if isinstance(old, ListType) and isinstance(new, ListType):
            # An item's constraints come from a declared type (``list[Airport]``): compare them too.
            old_item, old_c = _resolve(self.old, old.item, NO_CONSTRAINTS)
            new_item, new_c = _resolve(self.new, new.item, NO_CONSTRAINTS)
            yield from self.types(path + "[]", old_item, new_item)
            yield from _constraints(path + "[]", old_item, new_item, old_c, new_c)
            return
        if isinstance(old, ObjectType) and isinstance(new, ObjectType):
            yield from self.fields(path, old.fields, new.fields)
            return
        before, after = _type_name(old), _type_name(new)
        if before == after:
            return
        if _widens(old, new):
            yield Change("type-widened", path, f"type widened from {before} to {after}", False, before, after)
        elif _widens(new, old):
            yield Change("type-narrowed", path, f"type narrowed from {before} to {after}", True, before, after)
        else:
            yield Change("type-changed", path, f"type changed from {before} to {after}", True, before, after)


def _resolve(grammar: GraphGrammar, node: TypeNode, constraints: Constraints) -> tuple[TypeNode, Constraints]:
    try:
        return grammar.resolve(node, constraints)
    except (KeyError, ValueError):  # not a checked grammar: compare what is written
        return node, constraints


def _type_name(node: TypeNode) -> str:
    """A type as the report shows it; enum members as a schema writes them (escaped: they are data and may
    hold anything, an ESC sequence included, and the report goes to a terminal)."""
    if isinstance(node, ObjectType):
        return "object"
    if isinstance(node, EnumType):
        return f"enum({', '.join(map(format_member, node.members))})"
    return str(node)


def _widens(old: TypeNode, new: TypeNode) -> bool:
    """Is every value of ``old`` also a value of ``new``?"""
    if isinstance(new, PrimitiveType) and new.name == "any":
        return True
    if isinstance(old, EnumType) and isinstance(new, PrimitiveType):
        kinds = {type(m) for m in old.members}
        return (new.name == "str" and kinds <= {str}) or (new.name in ("int", "float") and kinds <= {int})
    if isinstance(old, PrimitiveType) and isinstance(new, PrimitiveType):
        return (old.name, new.name) in _WIDENINGS
    return False


def _constraints(
    path: str, old_type: TypeNode, new_type: TypeNode, old: Constraints, new: Constraints
) -> Iterator[Change]:
    what = "length range" if isinstance(new_type, (ListType,)) or str(new_type) == "str" else "range"
    # no length is below 0: a length range [0..] bounds nothing (it was reported as tightened, so breaking)
    old_min = None if what == "length range" and old.min == 0 else old.min
    new_min = None if what == "length range" and new.min == 0 else new.min
    if (old_min, old.max) != (new_min, new.max):
        before, after = _range_text(old), _range_text(new)
        tighter = _tighter(old_min, new_min, lower=True) or _tighter(old.max, new.max, lower=False)
        looser = _tighter(new_min, old_min, lower=True) or _tighter(new.max, old.max, lower=False)
        if tighter and looser:
            kind = f"{what.replace(' ', '-')}-changed"
            yield Change(kind, path, f"{what} changed from {before} to {after} (excludes values allowed before)", True, before, after)
        elif tighter:
            yield Change(f"{what.replace(' ', '-')}-tightened", path, f"{what} tightened from {before} to {after}", True, before, after)
        elif looser:
            yield Change(f"{what.replace(' ', '-')}-widened", path, f"{what} widened from {before} to {after}", False, before, after)
    if old.pattern != new.pattern:
        old_re = encode_pattern(old.pattern) if old.pattern is not None else None
        new_re = encode_pattern(new.pattern) if new.pattern is not None else None
        if new_re is None:
            yield Change("pattern-removed", path, f"pattern {old_re} removed", False, old_re, None)
        elif old_re is None:
            yield Change("pattern-added", path, f"pattern {new_re} added", True, None, new_re)
        else:
            yield Change("pattern-changed", path, f"pattern changed from {old_re} to {new_re}", True, old_re, new_re)


def _tighter(old: float | None, new: float | None, *, lower: bool) -> bool:
    """Does the new bound exclude values the old one allowed?"""
    if new is None:
        return False
    if old is None:
        return True
    return new > old if lower else new < old


def _range_text(c: Constraints) -> str:
    if c.min is None and c.max is None:
        return "none"
    lo = "" if c.min is None else format_number(c.min)
    hi = "" if c.max is None else format_number(c.max)
    return f"[{lo}..{hi}]"


def _same_value(a: Any, b: Any) -> bool:
    """Equal as JSON values: ``True`` is not ``1`` (as Python says), also inside lists and objects.

    >>> _same_value([1, {"a": 0}], [1.0, {"a": 0}]), _same_value([1], [True]), _same_value({"a": 0}, {"a": False})
    (True, False, False)
    """
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same_value(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_value(a[k], b[k]) for k in a)
    if a != b:
        return False
    return type(a) is type(b) or (isinstance(a, (int, float)) and isinstance(b, (int, float)))


def _defaults(path: str, old: FieldSpec, new: FieldSpec, old_text: str | None, new_text: str | None
              ) -> Iterator[Change]:
    """Default changes, each value shown as a schema writes it (``_text``: ``true``, ``null``, ``"x"``, ``[1, 2]``;
    they were Python's ``repr``, ``True``, ``None``, ``'x'``, in the report and in its JSON)."""
    if old.has_default and new.has_default:
        if not _same_value(old.default, new.default):
            yield Change(
                "default-changed",
                path,
                f"default changed from {old_text} to {new_text} (gold that omits it meant the old default)",
                True,
                old_text,
                new_text,
            )
    elif old.has_default:
        yield Change(
            "default-removed",
            path,
            f"default {old_text} removed (gold that omits it meant that default)",
            True,
            old_text,
            None,
        )
    else:
        yield Change("default-added", path, f"default {new_text} added", False, None, new_text)
