"""The typed model of a tool grammar: what the DSL parses into and codegen reads.

Every node is a frozen attrs class. Source locations are carried for
diagnostics but excluded from equality, so two grammars are equal when they
*mean* the same thing (``parse(fmt(text)) == parse(text)``).
"""

from __future__ import annotations

from typing import Any, Union

import attrs

from ek.limits import COST_WEIGHT_MAX, COST_WEIGHT_MIN
from ek.sentinel import Sentinel

#: Names of the built-in scalar types.
PRIMITIVE_TYPES = ("str", "int", "float", "bool", "date", "datetime", "any")

#: Names of the comparison policies an argument may declare with ``compare``.
COMPARE_POLICIES = ("fold", "exact", "bfcl", "tol", "unordered", "ignore")


class _NoDefault(Sentinel):
    """Marker for "this argument declares no default" (``None`` is a valid default)."""

    NAME = "NO_DEFAULT"

    def __bool__(self) -> bool:
        return False


NO_DEFAULT: Any = _NoDefault()


@attrs.frozen
class Location:
    """A 1-based position in a schema file."""

    file: str
    line: int
    column: int
    end_line: int | None = None
    end_column: int | None = None

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


def _loc_field() -> Any:
    return attrs.field(default=None, eq=False, repr=False, kw_only=True)


@attrs.frozen
class Constraints:
    """``[min..max]`` (value range on numbers, length range on str/list) and a full-match regex."""

    min: int | float | None = None
    max: int | float | None = None
    pattern: str | None = None

    @property
    def is_empty(self) -> bool:
        return self.min is None and self.max is None and self.pattern is None

    def merged(self, other: Constraints) -> Constraints:
        """Both sets at once: the tighter bound wins, patterns must both match (outer kept)."""
        lo = [v for v in (self.min, other.min) if v is not None]
        hi = [v for v in (self.max, other.max) if v is not None]
        return Constraints(
            min=max(lo) if lo else None,
            max=min(hi) if hi else None,
            pattern=other.pattern if other.pattern is not None else self.pattern,
        )


NO_CONSTRAINTS = Constraints()


@attrs.frozen
class ComparePolicy:
    """How a gold and a predicted value of one argument are compared.

    ``kind`` is one of :data:`COMPARE_POLICIES`; ``tolerance`` is set for ``tol``.
    """

    kind: str
    tolerance: float | None = None

    def __str__(self) -> str:
        return f"tol({self.tolerance!r})" if self.kind == "tol" else self.kind


@attrs.frozen
class PrimitiveType:
    name: str
    loc: Location | None = _loc_field()

    def __str__(self) -> str:
        return self.name


@attrs.frozen
class EnumType:
    """``enum(a, "b c", 3)``: one of the members, text (``str``) or integers (``int``, never ``bool``)."""

    members: tuple[str | int, ...]
    loc: Location | None = _loc_field()

    def __str__(self) -> str:
        return f"enum({', '.join(map(str, self.members))})"


@attrs.frozen
class ListType:
    item: TypeNode
    loc: Location | None = _loc_field()

    def __str__(self) -> str:
        return f"list[{self.item}]"


def cost_weight_problem(value: float, what: str) -> str | None:
    """Why ``value`` cannot be a tool's weight or an argument's importance (``what`` names which), or None: it
    must be a number within :data:`ek.limits.COST_WEIGHT_MIN` and :data:`ek.limits.COST_WEIGHT_MAX`. The one rule
    of the DSL's checker and of ``ek import`` (``x-ek-weight``, ``x-ek-importance``).

    >>> cost_weight_problem(2.5, "weight"), cost_weight_problem(1e308, "importance")
    (None, 'importance 1e+308 is out of range: ek takes costs from 1e-06 to 1e+06 (relative costs; past them sums overflow or round to 0)')
    """
    if not value > 0:
        return f"{what} must be a positive number"
    if not COST_WEIGHT_MIN <= value <= COST_WEIGHT_MAX:
        return (f"{what} {value:g} is out of range: ek takes costs from {COST_WEIGHT_MIN:g} to {COST_WEIGHT_MAX:g} "
                "(relative costs; past them sums overflow or round to 0)")
    return None


def nested_importance_message(field: str) -> str:
    """Why ``importance`` on a field of an object is refused (the DSL, the importer and the model say the same)."""
    return (f"importance applies to a tool's arguments, not to object field '{field}': each argument is "
            f"scored as one unit, so put the importance on the argument that holds the object")


def _fields_unweighted(_instance: Any, _attribute: Any, fields: tuple[FieldSpec, ...]) -> None:
    for f in fields:
        if f.importance != 1.0:
            raise ValueError(nested_importance_message(f.name))


@attrs.frozen
class ObjectType:
    """An inline object: named fields, like a tool's arguments.

    Its fields carry no ``importance``: the scorer counts a tool's argument as
    one unit, whatever is wrong inside it (docs/scoring.md), so an importance
    here could only be ignored; constructing one raises ``ValueError``.
    """

    fields: tuple[FieldSpec, ...] = attrs.field(validator=_fields_unweighted)
    loc: Location | None = _loc_field()

    def field(self, name: str) -> FieldSpec | None:
        for f in self.fields:
            if f.name == name:
                return f
        return None

    def __str__(self) -> str:
        return "{" + ", ".join(f.name for f in self.fields) + "}"


@attrs.frozen
class NamedType:
    """A reference to a ``type NAME = ...`` declaration of the same grammar."""

    name: str
    loc: Location | None = _loc_field()

    def __str__(self) -> str:
        return self.name


TypeNode = Union[PrimitiveType, EnumType, ListType, ObjectType, NamedType]


def kind_of(node: TypeNode) -> str:
    """``str``, ``int``, ... for primitives; ``enum``, ``list``, ``object`` or ``named`` otherwise."""
    if isinstance(node, PrimitiveType):
        return node.name
    if isinstance(node, EnumType):
        return "enum"
    if isinstance(node, ListType):
        return "list"
    if isinstance(node, ObjectType):
        return "object"
    return "named"


@attrs.frozen
class FieldSpec:
    """One argument of a tool (or one field of an inline object).

    ``importance`` is the cost weight of a mistake on this argument.
    ``compare`` is ``None`` when the schema does not say: the metric's own
    canonicalizer then applies (the DSL's default, ``fold``).
    """

    name: str
    type: TypeNode
    constraints: Constraints = NO_CONSTRAINTS
    required: bool = True
    default: Any = attrs.field(default=NO_DEFAULT, hash=False)  # list/dict defaults are unhashable: eq only
    importance: float = 1.0
    compare: ComparePolicy | None = None
    doc: str | None = None
    loc: Location | None = _loc_field()

    @property
    def has_default(self) -> bool:
        return self.default is not NO_DEFAULT


@attrs.frozen
class TypeAlias:
    """``type NAME = TYPE [CONSTRAINTS]``."""

    name: str
    type: TypeNode
    constraints: Constraints = NO_CONSTRAINTS
    doc: str | None = None
    loc: Location | None = _loc_field()


@attrs.frozen
class ToolSpec:
    """A tool: its name (kept verbatim), doc, cost ``weight`` and arguments in order."""

    name: str
    fields: tuple[FieldSpec, ...] = ()
    weight: float = 1.0
    doc: str | None = None
    loc: Location | None = _loc_field()

    def field(self, name: str) -> FieldSpec | None:
        for f in self.fields:
            if f.name == name:
                return f
        return None


@attrs.frozen(cache_hash=True)
class GraphGrammar:
    """A whole grammar version: ``NAME@VERSION``, its tools and named types.

    ``source_path`` and ``source_sha256`` say where it came from; they are not
    part of equality.

    Its hash is worked out once (``cache_hash``): a grammar kept in a set or as a dict key is hashed, tool
    by tool and field by field, at most once (:func:`ek.runtime.lazy.grammar_validator` keys a grammar
    built in code by its names instead, which costs far less). Safe because the class is
    frozen and what its hash covers (name, version, tools, types) is immutable; attrs leaves the cached
    hash out of a pickle, so a copy in another process hashes afresh.
    """

    name: str
    version: int
    tools: tuple[ToolSpec, ...] = ()
    types: tuple[TypeAlias, ...] = ()
    source_path: str | None = attrs.field(default=None, eq=False, kw_only=True)
    source_sha256: str | None = attrs.field(default=None, eq=False, kw_only=True)
    _tool_index: dict[str, ToolSpec] = attrs.field(init=False, eq=False, repr=False)
    _type_index: dict[str, TypeAlias] = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "_tool_index", {t.name: t for t in self.tools})
        object.__setattr__(self, "_type_index", {t.name: t for t in self.types})

    @property
    def key(self) -> str:
        """``NAME@VERSION``, the identity gold data refers to."""
        return f"{self.name}@{self.version}"

    def tool(self, name: str) -> ToolSpec | None:
        return self._tool_index.get(name)

    def type_alias(self, name: str) -> TypeAlias | None:
        return self._type_index.get(name)

    def resolve(self, type_node: TypeNode, constraints: Constraints = NO_CONSTRAINTS) -> tuple[TypeNode, Constraints]:
        """Follow named types down to a structural type, merging their constraints.

        Raises ``KeyError`` for an undeclared name and ``ValueError`` for a cycle
        (the DSL's checker reports both before a grammar is ever built).
        """
        seen: list[str] = []
        merged = NO_CONSTRAINTS
        node = type_node
        while isinstance(node, NamedType):
            if node.name in seen:
                raise ValueError(f"recursive type alias: {' -> '.join(seen + [node.name])}")
            seen.append(node.name)
            alias = self._type_index[node.name]
            merged = alias.constraints.merged(merged)
            node = alias.type
        return node, merged.merged(constraints)
