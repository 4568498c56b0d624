"""``import_tools`` and ``export_tools``: tool definitions <-> :class:`~ek.grammar.GraphGrammar`, losses reported."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from ek.grammar.extent import LEAF, Extent, type_extent
from ek.grammar.model import (
    NO_CONSTRAINTS,
    FieldSpec,
    GraphGrammar,
    ListType,
    NamedType,
    ObjectType,
    PrimitiveType,
    ToolSpec,
    TypeAlias,
    TypeNode,
)
from ek.grammar.names import safe_identifier, unfit_character
from ek.interop.issues import Issue, Issues, child
from ek.interop.schema_in import Converter, imported_cost, plain_fields
from ek.interop.sources import READERS, SOURCES
from ek.interop.targets import TARGETS, export
from ek.limits import SCHEMA_MAX_LIST_NESTING, SCHEMA_MAX_NESTING, SCHEMA_MAX_TYPE_NODES
from ek.parsing.values import int_too_long, long_int_reason


@attrs.frozen
class ImportResult:
    """The imported grammar and every issue met on the way (warnings: something dropped; errors: skipped)."""

    grammar: GraphGrammar
    issues: tuple[Issue, ...]

    @property
    def errors(self) -> tuple[Issue, ...]:
        return tuple(i for i in self.issues if i.severity == "error")


def import_tools(data: Any, source: str, *, name: str = "imported", version: int = 1) -> ImportResult:
    """Decoded tool definitions in format ``source`` (one of :data:`SOURCES`) as a grammar.

    >>> tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object",
    ...     "properties": {"city": {"type": "string", "minLength": 1}}, "required": ["city"]}}}]
    >>> result = import_tools(tools, "openai", name="weather")
    >>> result.grammar.tool("get_weather").field("city").constraints.min, result.issues
    (1, ())
    """
    if source not in SOURCES:
        raise ValueError(f"unknown import format {source!r}; choose one of: {', '.join(SOURCES)}")
    if source == "bfcl":
        plain = _plain_bfcl_tools(data)  # (it takes no int too long to print: see _plain_default)
        if plain is not None:
            return ImportResult(GraphGrammar(name, version, plain, ()), ())
    too_long = _too_long_int_path(data)
    if too_long is not None:  # as ek import's JSON reader refuses one: no text could hold it, nor print it
        raise ValueError(f"{too_long}: {long_int_reason()}; nothing imported")
    issues = Issues()
    tools: list[ToolSpec] = []
    paths: list[str] = []  # each tool's JSON path (of its arguments object)
    aliases: dict[str, TypeAlias] = {}
    by_name: dict[str, ToolSpec] = {}
    by_safe: dict[str, str] = {}
    for raw in READERS[source](data, issues):
        if unfit_character(raw.name) is not None:
            issues.error(raw.path, f"a tool name cannot hold the control character {unfit_character(raw.name)}; "
                                   f"tool {raw.name!r:.80} skipped")
            continue
        converter = Converter(raw.root, raw.path, issues, strict=raw.strict)
        if not isinstance(raw.schema.get("type", "object"), str) or raw.schema.get("type", "object") not in (
                "object", "dict"):
            issues.error(raw.path, f"the arguments of tool {raw.name!r} must be an object schema; tool skipped")
            continue
        fields = converter.fields(raw.schema, raw.path)
        for key in raw.schema:
            if key not in _ARGUMENTS_KEYS:
                issues.warn(child(raw.path, key), f"keyword {key!r} on the arguments object cannot be expressed; "
                                                  f"dropped")
        doc = raw.schema.get("description")
        if doc is not None and doc != raw.description:
            issues.warn(child(raw.path, "description"), "a description of the arguments object (not of the tool) "
                                                        "has no place in .ek; dropped")
        extra = raw.schema.get("additionalProperties")
        if extra not in (None, False):
            issues.warn(child(raw.path, "additionalProperties"), "extra arguments cannot be allowed in .ek; dropped")
        if converter.aliases:  # (a tool without named types has none to merge)
            fields = _merge_aliases(converter.aliases, aliases, fields, raw.path, issues)
        tool = ToolSpec(raw.name, fields, _weight(raw.weight, raw.path, issues), raw.description)
        if raw.name in by_name:
            if by_name[raw.name] != tool:
                issues.warn(raw.path, f"tool {raw.name!r} is defined again differently; the first definition kept")
            continue
        if tools:  # a name collides only with an earlier tool's: a grammar's first tool needs no safe form yet
            if not by_safe:  # the first tool's, now that a second one comes (accepted tools' forms differ)
                by_safe = {safe_identifier(t.name): t.name for t in tools}
            safe = safe_identifier(raw.name)
            if safe in by_safe:
                issues.error(raw.path, f"tool name {raw.name!r} collides with {by_safe[safe]!r} once made a Python "
                                       f"identifier ({safe!r}); tool skipped")
                continue
            by_safe[safe] = raw.name
        by_name[raw.name] = tool
        tools.append(tool)
        paths.append(raw.path)
    tools = _within_limits(tools, paths, aliases, issues)
    grammar = GraphGrammar(name, version, tuple(tools), tuple(aliases[k] for k in sorted(aliases)))
    return ImportResult(grammar, tuple(issues.items))


#: What a BFCL function and its arguments object may hold for :func:`_plain_bfcl_tools`.
_PLAIN_TOOL_KEYS = frozenset({"name", "description", "parameters"})
_PLAIN_ARGUMENTS_KEYS = frozenset({"type", "properties", "required"})


def _plain_bfcl_tools(data: Any) -> tuple[ToolSpec, ...] | None:
    """Fast path of :func:`import_tools` for a list of BFCL functions of the usual shape: their tools (the
    grammar's, with no issue), or None for any other data, which then takes the general path.

    The usual shape, for every function: a ``dict`` of ``name`` (text, not empty, no unfit character, no
    other function's), ``description`` (text) if any and ``parameters``, a ``dict`` of ``type``
    (``object`` or ``dict``) if any, ``properties`` and ``required`` whose fields
    :func:`~ek.interop.schema_in.plain_fields` takes; and no two names with one safe form. It skips the
    reader's :class:`~ek.interop.sources.RawTool` and JSON paths, a converter per tool and the keyword
    checks, which on exactly this data report nothing: every key is one the general path reads, without
    a weight, an arguments description or extra arguments to drop, no name is skipped or defined again,
    and each tool is ``ToolSpec(name, fields, 1.0, description or None)`` as it builds it.
    tests/interop/test_interop_fast_paths.py holds it to the general path.
    """
    if type(data) is not list and type(data) is not tuple:
        return None
    tools = []
    names = set()
    for item in data:
        if type(item) is not dict:
            return None
        name = item.get("name")
        schema = item.get("parameters")
        if type(name) is not str or not name or name in names or type(schema) is not dict:
            return None
        doc = item.get("description")
        if doc is not None and type(doc) is not str:
            return None
        for key in item:
            if key not in _PLAIN_TOOL_KEYS:
                return None
        for key in schema:
            if key not in _PLAIN_ARGUMENTS_KEYS:
                return None
        kind = schema.get("type", "object")
        if (kind != "object" and kind != "dict") or type(kind) is not str or unfit_character(name) is not None:
            return None
        fields = plain_fields(schema)
        if fields is None:
            return None
        names.add(name)
        tools.append(ToolSpec(name, fields, 1.0, doc or None))
    if len(tools) > 1 and len({safe_identifier(t.name) for t in tools}) < len(tools):
        return None  # names that collide once made identifiers: the general path reports which
    if sum(1 + isinstance(f.type, ListType) for t in tools for f in t.fields) > SCHEMA_MAX_TYPE_NODES:
        return None  # more than lint takes: the general path reads the arguments past it as any, and says so
    return tuple(tools)


def _within_limits(tools: list[ToolSpec], paths: list[str], aliases: dict[str, TypeAlias],
                   issues: Issues) -> list[ToolSpec]:
    """The tools, each argument that lint would refuse for how far its type reaches through named types (a
    ``$ref`` used deep inside another, lists nested past their limit, the grammar's type nodes past theirs:
    :func:`ek.grammar.extent.type_extent`, as lint measures it) read as ``any`` and reported at its path."""
    memo: dict[str, Extent] = {}
    nodes = 0
    out = []
    for tool, path in zip(tools, paths):
        fields = list(tool.fields)
        for i, spec in enumerate(fields):
            extent = LEAF if isinstance(spec.type, PrimitiveType) else type_extent(spec.type, aliases, memo)
            problem = _past_limit(extent, nodes)
            if problem is not None:
                issues.error(child(child(path, "properties"), spec.name), f"{problem}; read as any")
                fields[i] = attrs.evolve(spec, type=PrimitiveType("any"), constraints=NO_CONSTRAINTS, compare=None)
                extent = LEAF
            nodes += extent.nodes
        out.append(tool if fields == list(tool.fields) else attrs.evolve(tool, fields=tuple(fields)))
    return out


def _past_limit(extent: Extent, nodes_before: int) -> str | None:
    """Which limit of ek.limits an argument of this extent breaks, after ``nodes_before`` type nodes, or None."""
    if extent.levels > SCHEMA_MAX_NESTING:
        return f"its type nests {extent.levels} levels through named types, more than {SCHEMA_MAX_NESTING} " \
               f"(SCHEMA_MAX_NESTING)"
    if extent.lists > SCHEMA_MAX_LIST_NESTING:
        return f"its type nests lists {extent.lists} deep, more than {SCHEMA_MAX_LIST_NESTING} " \
               f"(SCHEMA_MAX_LIST_NESTING)"
    if nodes_before + extent.nodes > SCHEMA_MAX_TYPE_NODES:
        return f"the tools' types pass {SCHEMA_MAX_TYPE_NODES} type nodes (SCHEMA_MAX_TYPE_NODES) here, with " \
               f"each $ref written out where it is used"
    return None


#: The keys an arguments object may hold without an issue (others are reported, and dropped).
_ARGUMENTS_KEYS = frozenset({"type", "properties", "required", "$defs", "definitions", "additionalProperties",
                             "$schema", "x-ek-weight", "description"})


def _too_long_int_path(data: Any) -> str | None:
    """The JSON path of the first int of more digits than Python converts to text, or None. Only data built
    in Python holds one (JSON text cannot: the reader refuses it), and the grammar's text could not show it.

    Fast path: the values alone are walked first (:func:`_holds_too_long_int`); only data that holds such an
    int is walked again with the path of every value, which was half of importing a function list that
    leaves :func:`_plain_bfcl_tools` (BFCL's live functions: 83 of 185 µs a question). Safe: both walks take
    the same values (a ``Mapping``'s values, a list's or tuple's items), so the second finds one exactly when
    the first does."""
    if not _holds_too_long_int(data):
        return None
    stack: list[tuple[str, Any]] = [("$", data)]
    while stack:
        path, value = stack.pop()
        if type(value) is int:
            if int_too_long(value):
                return path
        elif isinstance(value, Mapping):
            stack.extend((child(path, key if type(key) is str else repr(key)), item)
                         for key, item in reversed(list(value.items())))
        elif isinstance(value, (list, tuple)):
            stack.extend((child(path, i), item) for i, item in reversed(list(enumerate(value))))
    return None


def _holds_too_long_int(data: Any) -> bool:
    """Whether ``data`` holds an int that :func:`_too_long_int_path` reports, its values walked without their
    paths (a ``dict``, ``list`` or ``tuple`` told by an exact type test before the ``Mapping`` check)."""
    stack = [data]
    while stack:
        value = stack.pop()
        kind = type(value)
        if kind is int:
            if int_too_long(value):
                return True
        elif kind is dict:
            stack.extend(value.values())
        elif kind is list or kind is tuple:
            stack.extend(value)
        elif kind is str:  # (most values: spared the ABC checks below)
            continue
        elif isinstance(value, Mapping):
            stack.extend(value.values())
        elif isinstance(value, (list, tuple)):
            stack.extend(value)
    return False


def _weight(value: Any, path: str, issues: Issues) -> float:
    if value is None:
        return 1.0
    return imported_cost(value, child(path, "x-ek-weight"), "weight", issues)


def _merge_aliases(local: dict[str, TypeAlias], shared: dict[str, TypeAlias], fields: tuple[FieldSpec, ...],
                   path: str, issues: Issues) -> tuple[FieldSpec, ...]:
    """Add one tool's named types to the grammar's, renaming a clash with a different definition."""
    renames: dict[str, str] = {}
    for name in local:
        if name in shared and shared[name] != local[name]:
            new, n = f"{name}_{2}", 2
            while new in shared or new in local:
                n += 1
                new = f"{name}_{n}"
            renames[name] = new
            issues.warn(path, f"type {name!r} differs from an earlier tool's type of that name; renamed {new!r}")
    for name, alias in local.items():
        alias = attrs.evolve(alias, name=renames.get(name, name), type=_rename(alias.type, renames))
        shared.setdefault(alias.name, alias)
    if not renames:
        return fields
    return tuple(attrs.evolve(f, type=_rename(f.type, renames)) for f in fields)


def _rename(node: TypeNode, renames: dict[str, str]) -> TypeNode:
    if not renames:
        return node
    if isinstance(node, NamedType):
        return NamedType(renames.get(node.name, node.name))
    if isinstance(node, ListType):
        return ListType(_rename(node.item, renames))
    if isinstance(node, ObjectType):
        return ObjectType(tuple(attrs.evolve(f, type=_rename(f.type, renames)) for f in node.fields))
    return node


def export_tools(grammar: GraphGrammar, target: str, *, openai_strict: bool = False) -> tuple[Any, tuple[Issue, ...]]:
    """The grammar's tools as ``target`` (one of :data:`TARGETS`) JSON data, and what could not be kept.

    ``openai_strict=True`` (with ``target="openai"``) writes OpenAI's strict mode, which ``import_tools``
    reads back to the same grammar: every property required, optional ones typed ``["T", "null"]``. A tool
    with a value of type ``any`` has no strict shape: it is written without ``"strict"``, with a warning.
    """
    if not isinstance(grammar, GraphGrammar):
        raise TypeError(f"export_tools needs a GraphGrammar (ek.grammar.load or parse gives one), "
                        f"got {type(grammar).__name__}")
    issues = Issues()
    data = export(grammar, target, issues, openai_strict=openai_strict)
    return data, tuple(issues.items)


__all__ = ["ImportResult", "SOURCES", "TARGETS", "export_tools", "import_tools"]
