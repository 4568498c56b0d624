"""BFCL ground truth -> ek gold calls: lists of acceptable values become ``OneOf``, ``""`` becomes ``OMITTABLE``.

Inside an answer, a dict's values are again lists of alternatives (BFCL's
one-level nested answers); list items are plain values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ek.calls import Step, step_of_plain
from ek.goldjson import not_a_json_number
from ek.values import JSON_SCALAR_TYPES, OMITTABLE, OneOf


def expects_no_call(category: str | None) -> bool:
    """Whether a BFCL category's right answer is to call nothing: ``irrelevance`` and ``live_irrelevance``.

    BFCL ships no possible answers for them; its checker passes an entry iff no call decodes, which is
    ek's gold ``[]`` (docs/bfcl.md). ``live_relevance`` is the opposite question (some call, any call).

    >>> expects_no_call("irrelevance"), expects_no_call("live_irrelevance"), expects_no_call("live_relevance")
    (True, True, False)
    """
    return category is not None and "irrelevance" in category


def expects_some_call(category: str | None) -> bool:
    """Whether a BFCL category's right answer is some call, whichever: ``live_relevance``.

    BFCL ships no possible answers for it either; its checker passes an entry iff a non-empty list of
    calls decodes, which is ek's gold :data:`ek.calls.ANY_CALL` (docs/bfcl.md).

    >>> expects_some_call("live_relevance"), expects_some_call("live_irrelevance"), expects_some_call("simple")
    (True, False, False)
    """
    return category is not None and "relevance" in category and not expects_no_call(category)


#: The JSON scalars taken as they are: a float is looked at first (:func:`_value`: NaN and the infinities,
#: which ``json`` reads and no JSON number is, are refused).
_CHECKED_SCALARS = JSON_SCALAR_TYPES - {float}
_INF = float("inf")


def alternatives(options: Sequence[Any]) -> Any:
    """A BFCL alternatives list as one gold value.

    >>> alternatives(["celsius", ""]), alternatives([5]), alternatives([""])
    (OneOf('celsius', OMITTABLE), 5, OMITTABLE)
    >>> alternatives([{"limit": [50, ""]}])
    {'limit': OneOf(50, OMITTABLE)}
    """
    if not isinstance(options, list):
        raise ValueError(f"a BFCL answer lists acceptable values in a list, got {options!r:.100}")
    if not options:
        # A few live entries list no acceptable value at all; BFCL can never pass them.
        # ek reads "nothing is acceptable" as "leave it out" (docs/bfcl.md).
        return OMITTABLE
    if len(options) == 1 and type(options[0]) in JSON_SCALAR_TYPES and type(options[0]) is not float:
        # fast path: one acceptable JSON scalar (two in three of BFCL's arguments) is what the list below makes
        # of it and gives back alone, without making the list
        return OMITTABLE if options[0] == "" else options[0]
    # (a JSON scalar is its own value: given back here, as _value would, without the call)
    values = [OMITTABLE if option == "" else option if type(option) in _CHECKED_SCALARS else _value(option)
              for option in options]
    if len(values) == 1:
        return values[0]
    return OneOf(*values)


def _value(value: Any) -> Any:
    kind = type(value)
    if kind in JSON_SCALAR_TYPES:
        # fast path: most acceptable values are JSON scalars, which are neither a Mapping nor a list, so the
        # tests below would give them back as they are; this skips the abstract Mapping's isinstance (a
        # Python-level ABC check). Exact types only: a subclass of one (data from Python) takes the tests.
        if kind is float and not -_INF < value < _INF:
            raise not_a_json_number(value, "an acceptable value")
        return value
    if kind is dict or isinstance(value, Mapping):  # a decoded object is a dict: no ABC check for it
        return {key: alternatives(options) if isinstance(options, list) else _finite(options)
                for key, options in value.items()}
    if isinstance(value, list):
        return [_value(item) for item in value]
    return _finite(value)


def _finite(value: Any) -> Any:
    """``value``, unless it is a float no JSON number is (NaN, an infinity), which is refused."""
    if isinstance(value, float) and not -_INF < value < _INF:
        raise not_a_json_number(value, "an acceptable value")
    return value


def gold_calls(ground_truth: Sequence[Mapping[str, Mapping[str, Any]]]) -> list[Step]:
    """Every ground-truth call as a :class:`Step` whose argument values are gold markers.

    >>> gold_calls([{"get_weather": {"city": ["Paris", "Paris, France"], "unit": ["", "celsius"]}}])
    [Step(name='get_weather', args={'city': OneOf('Paris', 'Paris, France'), 'unit': OneOf(OMITTABLE, 'celsius')})]
    """
    if isinstance(ground_truth, str | bytes) or not isinstance(ground_truth, Sequence):
        raise ValueError(f"ground_truth must be a list of {{func_name: {{param: [values]}}}}, got "
                         f"{type(ground_truth).__name__}")
    steps = []
    for i, call in enumerate(ground_truth):
        try:
            step = _decoded_call(call)
        except ValueError as exc:  # a value the call holds: where it is (the general path reads it again)
            raise _located(exc, i, call) from None
        if step is not None:
            steps.append(step)
            continue
        if not isinstance(call, Mapping) or len(call) != 1 or not isinstance(next(iter(call.values())), Mapping):
            raise ValueError(f"ground_truth[{i}] must be {{func_name: {{param: [values]}}}}, got {call!r:.100}")
        ((name, params),) = call.items()
        try:
            steps.append(Step(name, {param: alternatives(options) for param, options in params.items()}))
        except ValueError as exc:
            raise _located(exc, i, call) from None
    return steps


def _located(exc: ValueError, i: int, call: Any) -> ValueError:
    """``exc``, raised reading the values of ``ground_truth[i]``, prefixed with the parameter it came from."""
    where = f"ground_truth[{i}]"
    if isinstance(call, Mapping) and len(call) == 1:
        ((name, params),) = call.items()
        where += f"[{name!r}]"
        if isinstance(params, Mapping):
            for param, options in params.items():
                try:
                    alternatives(options)
                except ValueError:
                    where += f"[{param!r}]"
                    break
    return ValueError(f"{where}: {exc}")


def _decoded_call(call: Any) -> Step | None:
    """Fast path of :func:`gold_calls` for one call as JSON decodes it: a one-key ``dict`` whose key is a
    ``str`` and whose value is a ``dict`` keyed by ``str`` (exactly those types); None for anything else.

    It skips the abstract ``Mapping`` isinstance checks (Python-level ABC checks) of the general path and
    :class:`Step`'s field validators, which check what is tested here: a ``str`` name and a mapping of
    ``str`` argument names (:func:`ek.calls.step_of_plain`), each name as its value is read (an error of
    an earlier value is the general path's first error too: it reads the values in order), and a call of
    :func:`alternatives` for a list of one JSON scalar (its own fast path, inline). Safe because on exactly
    these calls the general path raises nothing and builds the same step from the same ``alternatives`` of
    each value.
    tests/bfcl/test_bfcl_gold_fast_path.py holds it to the general path.
    """
    if type(call) is not dict or len(call) != 1:
        return None
    ((name, params),) = call.items()
    if type(name) is not str or type(params) is not dict:
        return None
    args = {}
    for param, options in params.items():  # one pass: each name checked as its value is read
        if type(param) is not str:
            return None  # (a value read before raised what the general path raises first, reading in order)
        if type(options) is list and len(options) == 1 and type(options[0]) in _CHECKED_SCALARS:
            value = options[0]  # alternatives' own fast path, inline: one acceptable JSON scalar
            args[param] = OMITTABLE if value == "" else value
        else:
            args[param] = alternatives(options)
    return step_of_plain(name, args)
