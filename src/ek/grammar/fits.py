"""Does this value fit this type? The one answer of ek, as a plain interpreter over the model.

Every place that asks uses this module or is tested against it:

- ``ek lint`` checks each default with the rules below (:mod:`ek.grammar.defaults`
  converts the written literal, then asks :func:`violations`);
- ``ek import`` checks JSON Schema defaults with :func:`violations`;
- generated validators (:mod:`ek.codegen.validators`) are these rules compiled to
  straight-line code for speed, and a property test drives random types and
  values through both and asserts the same problems: same paths, same reasons,
  same order (:func:`arguments_violations` says which);
- the scorer's ``invalid_value`` comes from the runtime's per-tool validators
  (:mod:`ek.runtime.lazy`): a tool's first calls are checked by
  :func:`planned_violations` here (:func:`arguments_violations`' answer, planned
  once per tool), the rest by its compiled validator.

A problem shows a bad value as :func:`ek.grammar.reprs.short_repr` does, and an
unknown key as :func:`ek.grammar.names.key_segment` does, as generated code does.

The rules: ``str`` is a ``str`` whose length is in range and which fully matches
its pattern; ``int`` an ``int`` (never a ``bool``) in range; ``float`` an ``int``
or ``float`` (never a ``bool``) in range, NaN being outside every range; ``bool``
a ``bool``; ``date`` a string ``YYYY-MM-DD`` that exists; ``datetime`` a date,
``T``/``t``/space, ``HH:MM`` and what ``datetime.fromisoformat`` reads after it;
an enum one of its members, a ``str`` or an ``int`` (never a ``bool`` or a
``float``, though ``True == 1`` and ``1.0 == 1`` in Python); a list a ``list`` or ``tuple`` of fitting
items with its length in range; an object any mapping whose required fields
are present, whose declared fields fit (an optional field may be ``None``,
meaning absent) and which has no other keys; ``any`` anything.
"""

from __future__ import annotations

import datetime as _dt
import functools
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from ek.grammar.model import (
    NO_CONSTRAINTS,
    Constraints,
    EnumType,
    FieldSpec,
    ListType,
    NamedType,
    ObjectType,
    PrimitiveType,
    TypeNode,
)
from ek.grammar.names import key_segment, path_segment, unknown_keys
from ek.grammar.regexes import fullmatch
from ek.grammar.reprs import short_repr

#: Follows named types: ``resolve(type, constraints) -> (structural type, merged constraints)``
#: (:meth:`ek.grammar.model.GraphGrammar.resolve`, or the checker's while a grammar is being built).
Resolver = Callable[[TypeNode, Constraints], "tuple[TypeNode, Constraints]"]

#: One problem: (path from the argument's root, reason).
Problem = tuple[str, str]


def is_date(value: object) -> bool:
    """True for an ISO calendar date ``YYYY-MM-DD`` that exists (ASCII digits only).

    >>> is_date("2024-02-29"), is_date("2023-02-29"), is_date("20240101"), is_date("2024-01-01\\n")
    (True, False, False, False)
    """
    if not isinstance(value, str):
        return False
    try:
        if value[7] != "-":  # with a dash there, the parser takes only YYYY-MM-DD (not YYYYMMDD, YYYY-Www-D)
            return False
        _dt.date.fromisoformat(value)
    except (ValueError, IndexError):
        return False
    return True


def is_datetime(value: object) -> bool:
    """True for an ISO 8601 date and time: ``YYYY-MM-DD``, ``T``/``t``/space, ``HH:MM``, then
    optional seconds, fraction and zone, as ``datetime.fromisoformat`` reads them.

    >>> is_datetime("2024-05-01T09:30:00Z"), is_datetime("2024-05-01 09:30+02:00")
    (True, True)
    >>> is_datetime("2024-05-01"), is_datetime("2024-05-01T25:00"), is_datetime("20240501T0930")
    (False, False, False)
    """
    if not isinstance(value, str):
        return False
    try:
        # a dash at 7 means YYYY-MM-DD (see is_date), so the separator is at 10 and ':' at 13 means HH:MM
        if value[7] != "-" or value[13] != ":" or value[10] not in "Tt ":
            return False
        _dt.datetime.fromisoformat(value)
    except (ValueError, IndexError):
        return False
    return True


def in_range(measure: float, constraints: Constraints) -> bool:
    """Is a value (numbers) or a length (strings, lists) inside ``[min..max]``? NaN is inside no bounded range.

    >>> in_range(3, Constraints(1, 3)), in_range(float("nan"), Constraints(1, None)), in_range(7, NO_CONSTRAINTS)
    (True, False, True)
    """
    lo, hi = constraints.min, constraints.max
    if lo is not None and not measure >= lo:
        return False
    return hi is None or measure <= hi


#: A value still to check: (value, type, constraints, path); a problem found on the way is a :data:`Problem`.
_Pending = tuple[Any, TypeNode, Constraints, str]


def violations(value: Any, type_node: TypeNode, constraints: Constraints, resolve: Resolver,
               path: str = "$") -> list[Problem]:
    """Every way ``value`` fails to fit ``type_node`` with ``constraints``, as (path, reason); ``[]`` when it fits.

    Iterative, so a deeply nested value cannot exhaust the stack; paths are
    written like the generated validators' (``$.items[2].name``), and so is the
    order (see :func:`arguments_violations`).

    >>> from ek.grammar.model import GraphGrammar, PrimitiveType
    >>> violations("JFKX", PrimitiveType("str"), Constraints(pattern="[A-Z]{3}"), GraphGrammar("g", 1).resolve)
    [('$', "must fully match /[A-Z]{3}/, got 'JFKX'")]
    """
    return _walk(iter(((value, type_node, constraints, path),)), resolve)


def arguments_violations(args: Any, fields: tuple[FieldSpec, ...], resolve: Resolver) -> list[Problem]:
    """Every problem of a tool call's arguments against its declared fields (the tool-level check).

    The generated validator's answer (:mod:`ek.codegen.validators` compiles these rules), problem for
    problem, reason for reason and in its order, so the runtime can interpret a tool's check until
    compiling it pays (:mod:`ek.runtime.lazy`): arguments that are not a mapping get one problem; a
    mapping that is not a ``dict`` is read as one. Then, in each object, its fields in declared order, each
    value checked through (items of a list in order) when its field is reached, and its unknown keys last.
    A caller that checks many calls of one tool keeps its :func:`arguments_plan` instead.
    """
    if type(args) is not dict:
        if not isinstance(args, Mapping):
            return [("$", _not_an_object(args))]
        args = dict(args)
    return _walk(_object_items(args, fields, "$", resolve), resolve)


def arguments_plan(fields: tuple[FieldSpec, ...], resolve: Resolver) -> ArgumentsPlan:
    """A tool's check, planned once for many calls: :func:`planned_violations` runs it.

    The plan holds, for each declared field in order, its name, whether it is required, its resolved type
    and the rule of that type, and a quick test that accepts the values that plainly fit: an unconstrained
    ``str``/``int``/``float``/``bool`` of exactly that type, a ``str`` or ``int`` member of an enum, a
    ``list`` or ``tuple`` of such scalars, anything for ``any``. A value the quick test does not accept
    gets the full rules (its type's rule, or the walk for a list or an object), so a quick test only
    skips work, never decides a problem: the answer is :func:`arguments_violations`'. A path is only
    written for a problem.

    Making the plan compiles nothing, but costs about what it saves on one call (on BFCL's tools ~1 µs; a
    call ~0.35 µs planned against ~1.4 µs walked): worth it from a tool's second or third call on.
    """
    steps: list[_FieldPlan] = []
    for spec in fields:
        node, cons = spec.type, spec.constraints
        planned = _PRIMITIVE_PLANS.get(node.name) if type(node) is PrimitiveType else None  # the usual case
        if planned is None:
            steps.append(_field_plan(spec, node, cons, resolve))
            continue
        quick, accepted = _primitive_quick(planned, cons)
        steps.append((spec.name, spec.required, quick, accepted, node, cons, planned[2]))
    return (tuple(steps), fields, resolve)


def planned_violations(plan: ArgumentsPlan, args: Any) -> list[Problem]:
    """:func:`arguments_violations` of ``args``, run over the tool's :func:`arguments_plan`.

    One module function for every tool (the plan an argument, not a closure per tool), so the caller's
    call site stays monomorphic for CPython's specializing interpreter."""
    if type(args) is not dict:
        if not isinstance(args, Mapping):
            return [("$", _not_an_object(args))]
        args = dict(args)  # any mapping, read as a dict (what the generated code reads)
    steps, fields, resolve = plan
    problems: list[Problem] = []
    found = 0
    for name, required, quick, accepted, node, cons, problem in steps:
        if required:
            try:
                value = args[name]
            except KeyError:
                problems.append(("$" + _segment(name), _MISSING))
                continue
        else:
            value = args.get(name)
            if value is None:  # an optional field given None was left out
                continue
        found += 1
        if quick is _BY_TYPE:
            if type(value) in accepted:
                continue
        elif quick is _ANYTHING:
            continue
        elif quick is _MEMBER:
            if type(value) in _MEMBER_TYPES and value in accepted:
                continue
        elif quick is _ITEMS_BY_TYPE and type(value) in _SEQUENCES:
            for item in value:
                if type(item) not in accepted:
                    break
            else:
                continue
        if problem is None:  # a list or an object: checked through, depth first, before the next field
            problems += _walk(iter(((value, node, cons, "$" + _segment(name)),)), resolve)
        else:
            reason = problem(value, node, cons)
            if reason is not None:
                problems.append(("$" + _segment(name), reason))
    if len(args) != found:
        for key in unknown_keys(args, {spec.name for spec in fields}):
            problems.append(("$" + key_segment(key), _UNKNOWN))
    return problems


def plainly_accepted(plan: ArgumentsPlan, choices: Mapping[str, tuple[Any, ...]]) -> bool:
    """Whether every call made by taking one value of each argument in ``choices`` (argument name -> its
    values, at least one each) is one :func:`planned_violations` finds nothing wrong with, told by the quick
    tests alone: True then; False when the quick tests cannot tell (a problem, or a value they leave to the
    rules), which decides nothing.

    Fast path for checking many such calls (a gold answer's alternatives) without running each. Safe
    because a call of those values then has each required field present (it has values here), each value
    accepted by its field's quick test (which only accepts values that fit: see :func:`arguments_plan`),
    and no other argument (every argument here is a field's): ``planned_violations`` of any of them is
    empty. A value its quick test does not take (``None`` on an optional field too, which the rules read as
    left out) and any value of a field without a quick test (an object, a constrained type) are left to the
    rules (False).
    """
    steps = plan[0]
    found = 0
    for name, required, quick, accepted, node, cons, _problem in steps:
        values = choices.get(name)
        if values is None:
            if required:
                return False
            continue
        found += 1
        if quick is _ITEMS_BY_TYPE:
            for value in values:
                if type(value) not in _SEQUENCES or not _all_pass(value, _BY_TYPE, accepted):
                    return False
        elif quick is _CHECKED and type(node) is ListType and cons.min is None and cons.max is None:
            if not _items_plainly_accepted(values, node, plan[2]):
                return False
        elif not _all_pass(values, quick, accepted):
            return False
    return found == len(choices)


def _items_plainly_accepted(values: tuple[Any, ...], node: ListType, resolve: Resolver) -> bool:
    """:func:`plainly_accepted` for the values of a list field without length bounds whose items have no
    quick test by type (a list of enum members, say): each value a ``list`` or ``tuple`` whose every item
    passes the items' quick test. Such a list has no problem: the walk finds it a list in range, and each
    item fits its type (a quick test only accepts what fits)."""
    quick, accepted = _quick_test(node.item, NO_CONSTRAINTS, resolve)
    for value in values:
        if type(value) not in _SEQUENCES or not _all_pass(value, quick, accepted):
            return False
    return True


def _all_pass(values: Any, quick: str, accepted: Any) -> bool:
    """Whether each of ``values`` (a sequence) passes the quick test ``quick`` with its ``accepted`` (a test
    by type, by membership, or anything); False when the test is another, which leaves values to the rules
    (unless there are none: then nothing is left to them)."""
    if quick is _BY_TYPE:
        for value in values:
            if type(value) not in accepted:
                return False
        return True
    if quick is _MEMBER:
        for value in values:
            if type(value) not in _MEMBER_TYPES or value not in accepted:
                return False
        return True
    return quick is _ANYTHING or not values


#: The quick tests of a planned field (see :func:`arguments_plan`); ``_CHECKED``: none, the rules decide.
_BY_TYPE, _ANYTHING, _MEMBER, _ITEMS_BY_TYPE, _CHECKED = "by type", "anything", "member", "items by type", "checked"
_MEMBER_TYPES = frozenset({str, int})
_SEQUENCES = frozenset({list, tuple})

#: A planned field: (name, required, quick test, what it accepts, resolved type, constraints, the scalar rule
#: that gives its problem, or None for a list or an object, walked).
_FieldPlan = tuple[str, bool, str, Any, TypeNode, Constraints, "_ScalarRule | None"]
#: A tool's plan (:func:`arguments_plan`): its fields' plans, its fields, its resolver. Opaque to callers.
ArgumentsPlan = tuple[tuple[_FieldPlan, ...], tuple[FieldSpec, ...], Resolver]


def _field_plan(spec: FieldSpec, node: TypeNode, cons: Constraints, resolve: Resolver) -> _FieldPlan:
    """The plan of a field whose type is not an unconstrained primitive (:func:`arguments_plan`)."""
    if isinstance(node, NamedType):
        try:
            node, cons = resolve(node, cons)
        except (KeyError, ValueError):  # kept for the walk to meet at a call, as it would without a plan
            return (spec.name, spec.required, _CHECKED, None, node, cons, None)
    if isinstance(node, ListType):
        quick, accepted = _CHECKED, None
        if cons.min is None and cons.max is None:
            item_quick, item_accepted = _quick_test(node.item, NO_CONSTRAINTS, resolve)
            if item_quick is _BY_TYPE:
                quick, accepted = _ITEMS_BY_TYPE, item_accepted
        return (spec.name, spec.required, quick, accepted, node, cons, None)
    if isinstance(node, ObjectType):
        return (spec.name, spec.required, _CHECKED, None, node, cons, None)
    quick, accepted = _quick_test(node, cons, resolve)
    problem = _enum_problem if isinstance(node, EnumType) else _PRIMITIVE_PROBLEMS.get(
        getattr(node, "name", ""), _scalar_problem)  # an unknown kind: the rules raise when it is reached
    return (spec.name, spec.required, quick, accepted, node, cons, problem)


def _quick_test(node: TypeNode, cons: Constraints, resolve: Resolver) -> tuple[str, Any]:
    """The quick test of a scalar type with its constraints, and what it accepts (``_CHECKED`` for others)."""
    if isinstance(node, NamedType):
        try:
            node, cons = resolve(node, cons)
        except (KeyError, ValueError):
            return _CHECKED, None
    if isinstance(node, EnumType):
        if _MEMBER_TYPES.issuperset(map(type, node.members)):  # exact str and int: set and tuple `in` agree
            return _MEMBER, frozenset(node.members)
        return _CHECKED, None
    planned = _PRIMITIVE_PLANS.get(node.name) if isinstance(node, PrimitiveType) else None
    return (_CHECKED, None) if planned is None else _primitive_quick(planned, cons)


def _primitive_quick(planned: tuple[str, Any, _ScalarRule], cons: Constraints) -> tuple[str, Any]:
    """A primitive's quick test and what it accepts, from its :data:`_PRIMITIVE_PLANS` entry: ``_CHECKED``
    once it has constraints, which a test by type alone does not check."""
    if planned[0] is _BY_TYPE and not (cons.min is None and cons.max is None and cons.pattern is None):
        return _CHECKED, None
    return planned[0], planned[1]


def _walk(first: Iterator[_Pending | Problem], resolve: Resolver) -> list[Problem]:
    """The problems of what ``first`` yields, depth first: an object or a list met on the way is checked
    through (its items, a generator each, stacked on ``pending``) before the next thing after it."""
    problems: list[Problem] = []
    pending: list[Iterator[_Pending | Problem]] = [first]
    while pending:
        for item in pending[-1]:
            if len(item) == 2:  # a problem found on the way (a scalar field's, a missing field, an unknown key)
                problems.append(item)  # type: ignore[arg-type]
                continue
            value, node, cons, where = item
            if isinstance(node, NamedType):
                node, cons = resolve(node, cons)
            if isinstance(node, ObjectType):
                if not isinstance(value, dict):
                    if not isinstance(value, Mapping):
                        problems.append((where, _not_an_object(value)))
                        continue
                    value = dict(value)  # any mapping, read as a dict (what the generated code reads)
                pending.append(_object_items(value, node.fields, where, resolve))
                break
            if isinstance(node, ListType):
                if not isinstance(value, (list, tuple)):
                    problems.append((where, f"expected list, got {type(value).__name__}"))
                    continue
                if not in_range(len(value), cons):
                    problems.append((where, f"length must be in {_range_text(cons)}, got {len(value)}"))
                pending.append(_list_items(value, node.item, where))
                break
            problem = _scalar_problem(value, node, cons)
            if problem is not None:
                problems.append((where, problem))
        else:
            pending.pop()
    return problems


def _list_items(items: list[Any] | tuple[Any, ...], item_type: TypeNode, where: str) -> Iterator[_Pending]:
    """A list's items in order, each a value to check."""
    for i, item in enumerate(items):
        yield (item, item_type, NO_CONSTRAINTS, f"{where}[{i}]")


def _object_items(mapping: dict[Any, Any], fields: tuple[FieldSpec, ...], where: str,
                  resolve: Resolver) -> Iterator[_Pending | Problem]:
    """An object's fields in declared order, each a problem (``missing required argument``, what is wrong
    with a scalar value) or a list or object value to check through; an optional field given ``None``
    means it was left out. Then its unknown keys, in :func:`ek.grammar.names.unknown_keys` order. Read
    as the generated code reads them: a required field by ``mapping[name]``, an optional one by
    ``mapping.get(name)``; keys are only scanned when they outnumber the fields found."""
    found = 0
    for spec in fields:
        if spec.required:
            try:
                item = mapping[spec.name]
            except KeyError:
                yield (where + _segment(spec.name), _MISSING)
                continue
        else:
            item = mapping.get(spec.name)
            if item is None:
                continue
        found += 1
        node, cons = spec.type, spec.constraints
        if isinstance(node, NamedType):
            node, cons = resolve(node, cons)
        if isinstance(node, (ObjectType, ListType)):
            yield (item, node, cons, where + _segment(spec.name))
        else:
            problem = _scalar_problem(item, node, cons)
            if problem is not None:
                yield (where + _segment(spec.name), problem)
    if len(mapping) != found:
        for key in unknown_keys(mapping, {spec.name for spec in fields}):
            yield (where + key_segment(key), _UNKNOWN)


#: :func:`~ek.grammar.names.path_segment` of a field name, remembered (schema names only: an unknown key
#: from the data goes through ``key_segment``, never here).
_segment = functools.lru_cache(maxsize=4096)(path_segment)


def _scalar_problem(value: Any, node: TypeNode, cons: Constraints) -> str | None:
    """What is wrong with ``value`` for an enum or a primitive type (one problem at most), or None."""
    if isinstance(node, EnumType):
        return _enum_problem(value, node, cons)
    kind = getattr(node, "name", "")
    rule = _PRIMITIVE_PROBLEMS.get(kind)
    if rule is None:
        raise ValueError(f"unknown primitive type {kind!r}")
    return rule(value, node, cons)


#: The rules of a scalar type, ``(value, type, constraints) -> problem or None``: one function each (a tool's
#: :func:`arguments_plan` keeps its fields').
_ScalarRule = Callable[[Any, Any, Constraints], "str | None"]


def _enum_problem(value: Any, node: EnumType, _cons: Constraints) -> str | None:
    if isinstance(value, bool) or not isinstance(value, (str, int)) or value not in node.members:
        members = ", ".join(repr(m) for m in node.members)
        return f"expected one of {members}, got {short_repr(value)}"
    return None


def _str_problem(value: Any, _node: object, cons: Constraints) -> str | None:
    if not isinstance(value, str):
        return f"expected str, got {type(value).__name__}"
    if (cons.min is not None or cons.max is not None) and not in_range(len(value), cons):
        return f"length must be in {_range_text(cons)}, got {len(value)}"
    if cons.pattern is not None and not fullmatch(cons.pattern, value):
        return f"must fully match /{cons.pattern}/, got {short_repr(value)}"
    return None


def _int_problem(value: Any, _node: object, cons: Constraints) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int):
        return f"expected int, got {type(value).__name__}"
    return None if in_range(value, cons) else f"must be in {_range_text(cons)}, got {short_repr(value)}"


def _float_problem(value: Any, _node: object, cons: Constraints) -> str | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return f"expected float, got {type(value).__name__}"
    return None if in_range(value, cons) else f"must be in {_range_text(cons)}, got {short_repr(value)}"


def _bool_problem(value: Any, _node: object, _cons: Constraints) -> str | None:
    return None if isinstance(value, bool) else f"expected bool, got {type(value).__name__}"


def _date_problem(value: Any, _node: object, _cons: Constraints) -> str | None:
    return None if is_date(value) else f"expected an ISO date string YYYY-MM-DD, got {short_repr(value)}"


def _datetime_problem(value: Any, _node: object, _cons: Constraints) -> str | None:
    return None if is_datetime(value) else f"expected an ISO 8601 datetime string, got {short_repr(value)}"


def _any_problem(_value: Any, _node: object, _cons: Constraints) -> None:
    return None


_PRIMITIVE_PROBLEMS: dict[str, _ScalarRule] = {
    "str": _str_problem, "int": _int_problem, "float": _float_problem, "bool": _bool_problem,
    "date": _date_problem, "datetime": _datetime_problem, "any": _any_problem,
}
#: An unconstrained primitive's plan: (quick test, what it accepts, rule). The quick test takes exactly these
#: types (a subclass, ``bool`` for ``int`` say, is left to the rule); constraints make it ``_CHECKED``.
_PRIMITIVE_PLANS: dict[str, tuple[str, Any, _ScalarRule]] = {
    "str": (_BY_TYPE, frozenset({str}), _str_problem), "int": (_BY_TYPE, frozenset({int}), _int_problem),
    "float": (_BY_TYPE, frozenset({int, float}), _float_problem), "bool": (_BY_TYPE, frozenset({bool}), _bool_problem),
    "date": (_CHECKED, None, _date_problem), "datetime": (_CHECKED, None, _datetime_problem),
    "any": (_ANYTHING, None, _any_problem),
}
_MISSING = "missing required argument"
_UNKNOWN = "unknown argument"


def _not_an_object(value: Any) -> str:
    return f"expected an object, got {type(value).__name__}"


def _range_text(c: Constraints) -> str:
    return f"[{'' if c.min is None else repr(c.min)}..{'' if c.max is None else repr(c.max)}]"
