"""The syntax tree: what was written, with a location for every part.

The parser produces these nodes; the checker turns them into the model of
:mod:`ek.grammar.model`, reporting every problem on the way. Keeping them apart
lets the checker point at the exact token of a bad default, weight or policy.
"""

from __future__ import annotations

from typing import Any, Union

import attrs

from ek.grammar.model import Location


@attrs.frozen
class Lit:
    """A literal as written. ``kind``: number, string, name, list or object.

    ``value`` is an int/float, a str, a tuple of :class:`Lit` (list) or a tuple
    of ``(key, key_loc, Lit)`` (object).
    """

    kind: str
    value: Any
    loc: Location
    depth: int = 0  # levels of [...] and {...} (0 for a number, string or name)


@attrs.frozen
class Num:
    """A number where the grammar wants one (version, weight, importance, bound)."""

    value: int | float
    text: str
    loc: Location


@attrs.frozen
class RangeSyn:
    lo: Num | None
    hi: Num | None
    loc: Location


@attrs.frozen
class PatternSyn:
    pattern: str
    loc: Location


@attrs.frozen
class CompareSyn:
    name: str
    args: tuple[Lit, ...] | None
    loc: Location


@attrs.frozen
class DocSyn:
    text: str
    loc: Location


@attrs.frozen
class TypeSyn:
    """``kind``: name (``name``), enum (``members``), list (``item``) or object (``body``)."""

    kind: str
    loc: Location
    name: str = ""
    members: tuple[tuple[str | int | float, Location], ...] = ()
    item: TypeSyn | None = None
    body: BodySyn | None = None
    depth: int = 0  # levels of list[...] and { ... } (0 for a name or enum)


@attrs.frozen
class OptionSyn:
    """``= DEFAULT`` (value: Lit), ``importance N`` (value: Num) or ``compare P`` (value: CompareSyn)."""

    kind: str
    value: Any
    loc: Location


@attrs.frozen
class ArgSyn:
    name: str
    name_loc: Location
    type: TypeSyn
    constraints: tuple[RangeSyn | PatternSyn, ...]
    optional: Location | None
    options: tuple[OptionSyn, ...]
    doc: DocSyn | None
    loc: Location


@attrs.frozen
class BodySyn:
    """A ``{ ... }`` block: doc strings and arguments in written order."""

    items: tuple[DocSyn | ArgSyn, ...]
    loc: Location


@attrs.frozen
class HeaderSyn:
    name: str
    version: Num
    loc: Location


@attrs.frozen
class TypeDeclSyn:
    name: str
    name_loc: Location
    type: TypeSyn
    constraints: tuple[RangeSyn | PatternSyn, ...]
    doc: DocSyn | None
    loc: Location


@attrs.frozen
class ToolSyn:
    name: str
    name_loc: Location
    weight: Num | None
    body: BodySyn
    loc: Location


Decl = Union[HeaderSyn, TypeDeclSyn, ToolSyn]


@attrs.frozen
class FileSyn:
    """A parsed file: its declarations in order, plus problems found while reading tokens."""

    filename: str
    decls: tuple[Decl, ...]
    token_errors: tuple[tuple[Location, str], ...] = ()
