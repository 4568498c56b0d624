"""How far a type reaches once its named types are written out: its nesting and its size.

One measure for the two readers that must agree on it: the checker (``ek lint``), which refuses an argument
past a limit, and ``ek import``, which reads such an argument as ``any`` so that what it writes lints. The
code generator writes a named type out at every use, so both nesting and size are counted through them.
"""

from __future__ import annotations

from collections.abc import Container, Mapping

import attrs

from ek.grammar.model import ListType, NamedType, ObjectType, TypeAlias, TypeNode


@attrs.frozen
class Extent:
    """``levels``: lists and objects nested; ``lists``: lists nested; ``nodes``: the type nodes (each list,
    object, field type and leaf) the generated validator spells out, named types written out at each use."""

    levels: int
    lists: int
    nodes: int


#: The extent of a type that nests nothing (a built-in type or an enum).
LEAF = Extent(0, 0, 1)


def type_extent(root: TypeNode, aliases: Mapping[str, TypeAlias], memo: dict[str, Extent],
                skip: Container[str] = frozenset()) -> Extent:
    """The :class:`Extent` of ``root``, following ``aliases`` (each measured once, kept in ``memo``).

    Iterative, so a chain of thousands of named types needs no recursion. A name not in ``aliases``, in
    ``skip`` (aliases already reported as bad) or met again inside itself (a cycle, reported elsewhere)
    counts as nothing.

    >>> from ek.grammar.model import PrimitiveType, FieldSpec
    >>> pair = TypeAlias("P", ObjectType((FieldSpec("a", PrimitiveType("str")), FieldSpec("b", PrimitiveType("int")))))
    >>> type_extent(ListType(NamedType("P")), {"P": pair}, {})
    Extent(levels=2, lists=1, nodes=4)
    """
    visiting: set[str] = set()
    pending: list[str] = []

    def measure(node: TypeNode) -> Extent | None:
        """The extent of ``node``, or None after queueing the aliases it needs first."""
        deepest, most_lists, nodes = 0, 0, 0
        missing = False
        stack: list[tuple[TypeNode, int, int]] = [(node, 0, 0)]
        while stack:
            current, levels, lists = stack.pop()
            if isinstance(current, NamedType):
                name = current.name
                if name not in aliases or name in skip or name in visiting:
                    continue
                inner = memo.get(name)
                if inner is None:
                    pending.append(name)
                    missing = True
                    continue
                levels, lists = levels + inner.levels, lists + inner.lists
                nodes += inner.nodes
            else:
                nodes += 1
                if isinstance(current, ListType):
                    stack.append((current.item, levels + 1, lists + 1))
                elif isinstance(current, ObjectType):
                    stack.extend((f.type, levels + 1, lists) for f in current.fields)
            deepest, most_lists = max(deepest, levels), max(most_lists, lists)
        return None if missing else Extent(deepest, most_lists, nodes)

    result = measure(root)
    while result is None:
        while pending:  # depth first: an alias is measured once what it names is known
            name = pending[-1]
            if name in memo:
                pending.pop()
                continue
            visiting.add(name)
            measured = measure(aliases[name].type)
            if measured is not None:
                memo[name] = measured
                visiting.discard(name)
                pending.pop()
        result = measure(root)
    return result
