"""Gold calls checked against the grammar they are scored with: a broken answer key is reported, never
silently held against the model.

A gold call must name a tool of the grammar, give every required argument and hold values the schema
accepts, checked by the same validator that checks predictions (:func:`ek.runtime.validator_for`).
Gold markers (:mod:`ek.values`) are read as what they promise:

- ``OMITTABLE`` among ``OneOf`` alternatives: the argument may be left out; its present alternatives
  are checked. A bare ``OMITTABLE`` (nothing but absence is right) on an argument the schema requires
  is a problem: a model that follows the schema could never match it;
- ``OneOf``: **every** alternative must fit. Each one is an answer the key accepts, and one the schema
  rejects can never be matched by a prediction the schema accepts (such a prediction is an
  ``invalid_value``): it is a mistake in the key, even when another alternative fits.

``OneOf`` may sit at any depth. An argument is checked in ``K`` variants, ``K`` the most alternatives
of any of its ``OneOf`` values: variant ``k`` takes the ``k``-th alternative of every ``OneOf`` (its
last when it has fewer). Every alternative is checked once, and the work grows with ``K`` times the
argument's size, never with the product of the alternatives.

>>> from ek.calls import Step
>>> from ek.grammar.model import FieldSpec, GraphGrammar, PrimitiveType, ToolSpec
>>> from ek.runtime import validator_for
>>> from ek.values import OMITTABLE, OneOf, Omittable
>>> g = GraphGrammar("demo", 1, tools=(ToolSpec("ping", (FieldSpec("host", PrimitiveType("str")),)),))
>>> gold_problems(validator_for(g), [Step("ping", {"host": OneOf("a.org", 7)}), Step("pong", {})])
('gold[0] ping: $.host: expected str, got int', "gold[1] pong: $: unknown tool 'pong'")
>>> gold_problems(validator_for(g), [Step("ping", {"host": Omittable("a.org")})])
()
>>> gold_problems(validator_for(g), [Step("ping", {"host": OMITTABLE})])
('gold[0] ping: $.host: missing required argument (the gold accepts only leaving it out)',)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ek.calls import Step
from ek.grammar.names import path_segment
from ek.values import JSON_SCALAR_TYPES, OMITTABLE, OneOf

#: validate(tool_name, args) -> violations, each a (path, reason) pair
Validate = Callable[[str, Any], Sequence[Any]]

_DROP = object()  # an OMITTABLE inside a list or object: the item or key is left out

#: How many of a gold's problems a reason lists (the rest are counted).
GOLD_PROBLEMS_SHOWN = 5


def invalid_gold_reason(grammar: Any, problems: Sequence[str]) -> str:
    """Why gold does not fit its grammar, as ``ek score`` and the RL rewards say it: the grammar, then its first
    problems (:func:`gold_problems`).

    >>> invalid_gold_reason(None, ["gold[0] pong: $: unknown tool 'pong'"])
    "gold does not fit the grammar: gold[0] pong: $: unknown tool 'pong'"
    """
    name = grammar.key if grammar is not None else "the grammar"
    more = f"; and {len(problems) - GOLD_PROBLEMS_SHOWN} more" if len(problems) > GOLD_PROBLEMS_SHOWN else ""
    return f"gold does not fit {name}: " + "; ".join(problems[:GOLD_PROBLEMS_SHOWN]) + more


def _alternatives(value: Any) -> int:
    """The most present alternatives of any ``OneOf`` in ``value``: 1 with one, 0 without any marker."""
    kind = type(value)
    if kind is str or kind is int or kind is float or kind is bool or value is None:
        return 0  # the common case first
    if value is OMITTABLE:
        return 1
    if isinstance(value, OneOf):
        present = value.values
        return max([max(len(present), 1)] + [_alternatives(v) for v in present])
    if isinstance(value, Mapping):
        return max([0] + [_alternatives(v) for v in value.values()])
    if isinstance(value, (list, tuple)):
        return max([0] + [_alternatives(v) for v in value])
    return 0


def _pick(value: Any, k: int) -> Any:
    """``value`` with every ``OneOf`` replaced by its ``k``-th present alternative (its last when fewer)."""
    kind = type(value)
    if kind is str or kind is int or kind is float or kind is bool or value is None:
        return value  # the common case first: no marker, no container
    if value is OMITTABLE:
        return _DROP
    if isinstance(value, OneOf):
        present = value.values
        return _pick(present[min(k, len(present) - 1)], k) if present else _DROP
    if isinstance(value, Mapping):
        picked = {key: _pick(v, k) for key, v in value.items()}
        return {key: v for key, v in picked.items() if v is not _DROP}
    if isinstance(value, (list, tuple)):
        return [v for v in (_pick(item, k) for item in value) if v is not _DROP]
    return value


def _under(path: str, prefix: str) -> bool:
    """True when a violation ``path`` is ``prefix`` or inside it (``$.a`` holds ``$.a[0]`` and ``$.a.b``)."""
    return path == prefix or (path.startswith(prefix) and path[len(prefix)] in ".[")


def _prefix(name: Any) -> str:
    """The violation path of a top-level argument."""
    return "$" + path_segment(name) if isinstance(name, str) else "$"


def _plain_value(value: Any) -> bool:
    """Fast path of :func:`call_problems` for an argument whose gold is a plain value (str, int, float, bool,
    None: exactly those types, as :func:`_alternatives` tests them first): it is present, and has no
    alternatives. It skips :func:`_plain_choices` and :func:`_alternatives`, which would say so (a plain value
    is no ``OneOf`` and holds no marker). Tested first, as most of a gold's values are plain;
    tests/scorer/test_goldcheck_fast_path.py holds it to the general path."""
    return type(value) in JSON_SCALAR_TYPES


def _plain_choices(value: Any) -> tuple[Any, ...] | None:
    """Fast path of :func:`call_problems` for an argument whose gold is a ``OneOf`` of plain values (str,
    int, float, bool, None; ``OMITTABLE`` too): its present alternatives; None for any other value.

    BFCL's possible answers make every argument one. Variant ``k`` then takes the ``k``-th of them (the last
    when fewer) and there are as many variants as alternatives: what :func:`_pick` and :func:`_alternatives`
    give such a ``OneOf``, without walking into each alternative (a plain value holds no marker).
    tests/scorer/test_goldcheck_fast_path.py holds it to the general path.
    """
    if type(value) is not OneOf:
        return None
    alternatives = value.alternatives
    present = []  # value.values, made on the way (its generator costs more than this loop)
    for alternative in alternatives:
        if alternative is not OMITTABLE:
            if type(alternative) not in JSON_SCALAR_TYPES:
                return None
            present.append(alternative)
    return alternatives if len(present) == len(alternatives) else tuple(present)


def call_problems(validate: Validate, step: Step) -> list[tuple[str, str]]:
    """``(path, reason)`` of everything in one gold call that the grammar rejects, in the validator's order."""
    if _all_plain(step.args):
        return _plain_call_problems(validate, step)
    present: dict[str, Any] = {}
    counts: dict[str, int] = {}  # the most alternatives of any OneOf in each present argument
    choices: dict[str, tuple[Any, ...]] = {}  # see _plain_choices
    omitted: set[str] = set()  # paths of arguments whose gold accepts nothing but absence
    most = 0  # the most alternatives of any present argument: the variants to check
    first: dict[str, Any] = {}  # variant 0, made on the way (what the variants' rule gives for k = 0)
    picks = False  # whether some argument's alternatives are read by _pick (not plain choices)
    for name, value in step.args.items():
        if _plain_value(value):
            present[name] = first[name] = value
            counts[name] = 0
            continue
        plain = _plain_choices(value)
        if plain is not None:
            if not plain:  # a OneOf of OMITTABLE alone
                omitted.add(_prefix(name))
                continue
            choices[name] = plain
            count = len(plain)
            first[name] = plain[0]
        elif value is OMITTABLE or (isinstance(value, OneOf) and not value.values):
            omitted.add(_prefix(name))
            continue
        else:
            count = _alternatives(value)
            first[name] = _pick(value, 0) if count else value
            picks = picks or count > 0
        present[name], counts[name] = value, count
        if count > most:
            most = count
    found: dict[tuple[str, str], None] = {}
    for k in range(max(most, 1)):
        # variant 0 checks the whole call; later ones only the arguments that still have alternatives
        names = present if k == 0 else [n for n, c in counts.items() if c > k]
        if k == 0:
            args = step.args if not omitted and not most else first  # plain gold, no marker anywhere: as it is
        elif not picks:
            args = _whole_variant(present, choices, k)
        else:  # variant k takes each argument's k-th alternative (its last when it has fewer)
            args = {n: (choices[n][min(k, len(choices[n]) - 1)] if n in choices else _pick(present[n], k))
                    for n in names}
        prefixes = None  # of the arguments in this variant (later ones), worked out at its first violation
        for violation in validate(step.name, args):
            path, reason = violation
            if k == 0 and path in omitted:
                reason += " (the gold accepts only leaving it out)"
            if k > 0:
                if prefixes is None:
                    prefixes = [_prefix(n) for n in names]
                if not any(_under(path, prefix) for prefix in prefixes):
                    continue  # "missing required" for an argument left out of this variant
            found.setdefault((path, reason), None)
    return list(found)


def _whole_variant(present: dict[str, Any], choices: dict[str, tuple[Any, ...]], k: int) -> dict[str, Any]:
    """Fast path of a later variant (``k`` > 0) of :func:`call_problems` when every present argument is a plain
    value or has plain choices (BFCL's answers): every present argument, each with its ``k``-th choice (its
    last when it has fewer), not only the arguments that still have alternatives.

    What it skips: a "missing required argument" violation for each argument left out of the variant (most
    of a BFCL call's), made, read and then dropped by the filter that keeps only what lies under the
    variant's own arguments (``names``). Safe because that filter stays: a validator checks each argument on
    its own (a field's problems lie under its path, and depend on its value alone; unknown keys are each
    their own path), so the problems under the variant's arguments are the same with the others present,
    and what the others add lies outside them (distinct names' path segments are never one a prefix of the
    other) and is dropped as before. tests/scorer/test_goldcheck_fast_path.py holds it to the general path
    (the variants of ``_pick``) against a real validator.
    """
    return {n: (choices[n][min(k, len(choices[n]) - 1)] if n in choices else value) for n, value in present.items()}


def _all_plain(args: Mapping[str, Any]) -> bool:
    """Whether every argument value is a plain value, as :func:`_plain_value` tests it."""
    return _scalars(args.values())


def _plain_call_problems(validate: Validate, step: Step) -> list[tuple[str, str]]:
    """Fast path of :func:`call_problems` for a call whose every argument is a plain value (str, int, float,
    bool, None: exactly those types, as :func:`_plain_value` tests them): its one variant, the call as it
    is, checked once. It skips the tables of present, counted, chosen and omitted arguments, which would
    hold every argument, counted 0, and nothing else (a plain value has no alternatives and is no marker):
    the general path then checks this same variant alone, with no reason to add and no path to filter.
    Most calls of a BFCL answer with one acceptable value per argument are so (4 in 10 of the one-run
    file's); tests/scorer/test_goldcheck_fast_path.py holds it to the general path."""
    found: dict[tuple[str, str], None] = {}
    for path, reason in validate(step.name, step.args):
        found.setdefault((path, reason), None)
    return list(found)


def _plain_gold_choices(args: Any) -> dict[str, tuple[Any, ...]] | None:
    """Each present argument's acceptable values, for a validator's ``plainly_valid`` (see
    :func:`gold_problems`): a plain value (str, int, float, bool, None, or a ``list`` of them) is its one
    value, a ``OneOf`` of plain values (``OMITTABLE`` among them or not) its present alternatives, and an
    argument whose gold accepts nothing but absence (``OMITTABLE``, alone or as a ``OneOf``'s only
    alternative) is left out; None for arguments that are not a ``dict`` or hold any other value (objects,
    nested lists, markers inside a value), which take the general path.

    These are the values the variants of :func:`call_problems` give each argument (each present alternative
    in one variant or another; a plain value holds no marker, so every variant gives it as it is) and the
    arguments present in them (an argument that accepts only absence is in none).
    """
    if type(args) is not dict:
        return None
    choices = {}
    for name, value in args.items():
        kind = type(value)
        if kind in JSON_SCALAR_TYPES or (kind is list and _scalars(value)):
            choices[name] = (value,)
        elif kind is OneOf:
            present = []
            for alternative in value.alternatives:
                if alternative is OMITTABLE:
                    continue
                if type(alternative) not in JSON_SCALAR_TYPES and not (type(alternative) is list
                                                                       and _scalars(alternative)):
                    return None
                present.append(alternative)
            if present:
                choices[name] = tuple(present)
        elif value is not OMITTABLE:
            return None
    return choices


def _scalars(items: Iterable[Any]) -> bool:
    """Whether every item is a plain value (str, int, float, bool, None: exactly those types)."""
    for item in items:
        if type(item) not in JSON_SCALAR_TYPES:
            return False
    return True


def gold_problems(validate: Validate, gold: Sequence[Step]) -> tuple[str, ...]:
    """Every problem of the gold calls against the grammar, as ``gold[i] TOOL: PATH: REASON`` lines.

    Fast path: a validator that can tell that every variant of a call is valid without running them (the
    runtime's :meth:`~ek.runtime.lazy.GrammarValidator.plainly_valid`, by the tool's plan: every value of
    its field's plain kind, nothing required missing, nothing unknown) is asked first, with each present
    argument's values (:func:`_plain_gold_choices`: BFCL's answers); a call it vouches for has no problem, and
    :func:`call_problems` runs only for the others. It skips the variants' arguments, their validation and
    the tables :func:`call_problems` keeps to report what they find, which on such a call is nothing: each
    variant takes one of those values for each present argument, and the validator finds nothing wrong with
    any such call. tests/scorer/test_goldcheck_fast_path.py holds it to the general path.
    """
    plainly_valid = getattr(validate, "plainly_valid", None)
    out: list[str] = []
    for i, step in enumerate(gold):
        if plainly_valid is not None:
            choices = _plain_gold_choices(step.args)
            if choices is not None and plainly_valid(step.name, choices):
                continue
        try:
            problems = call_problems(validate, step)
        except RecursionError:
            out.append(f"gold[{i}] {step.name}: values nested too deeply to check")
            continue
        if problems:  # (most calls have none: no generator made for them)
            out.extend(f"gold[{i}] {step.name}: {path}: {reason}" for path, reason in problems)
    return tuple(out)


__all__ = ["call_problems", "gold_problems"]
