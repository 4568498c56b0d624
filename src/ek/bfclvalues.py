"""BFCL's rules for one argument's value against its acceptable values: the one owner for :func:`ek.bfcl.check`
and for :class:`ek.ToolCallMetric`'s BFCL mode (``canonicalizer="bfcl"``), which both ask them.

BFCL's AST checker (``bfcl_eval/eval_checker/ast_eval/ast_checker.py``: ``type_checker``, ``string_checker``,
``list_checker``, ``dict_checker``, ``list_dict_checker``) judges a value by how deep it sits:

- the value itself: its type is the declared one or the answers' (then it is a "variable", compared by ``in``
  as written), a list's items one level deep too; a string is compared after BFCL's standardisation
  (:func:`ek.canon.bfcl`), a list item by item (its string items standardised), a dict key by key (its values
  standardised when strings), a list of dicts dict by dict, anything else by ``in``;
- anything deeper (a list inside a list or inside a dict value, a dict inside a dict value) by Python's
  ``==``: no type check, no standardisation (``"A OF SPADES"`` is not ``"A of spades"`` there, but ``20.0``
  is ``20``).

ek keeps two differences (docs/bfcl.md): an int item passes a float item type at any depth, and a value compared
as a scalar (a value by ``in``, a list item, a dict value) never equals one of another kind of ``bool``
(``True`` is not ``1``: :func:`same`).

Each function gives None for a value it accepts, and for one it rejects what ``fail(error_type, template,
*values)`` builds (the checker's lazy verdicts, whose messages format ``template`` with ``values``; the metric's
constant), so the rules are written once whatever the caller keeps of a failure.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, cast

from ek.canon import bfcl as standardize

#: Builds a failure: ``fail(error_type, template, *values)`` (the template's fields are ``values``).
Fail = Callable[..., Any]

NOT_AMONG = "Invalid value for parameter {0!r}: {1!v}. Expected one of {2!v}."
NOT_AMONG_STRINGS = "Invalid value for parameter {0!r}: {1!v}. Expected one of {2!v}. Case insensitive."
WRONG_TYPE = "Incorrect type for parameter {0!r}. Expected type {1}, got {2}. Parameter value: {3!v}."
NESTED_TYPE = ("Nested type checking failed for parameter {0!r}. Expected outer type {1} with inner type {2}. "
               "Parameter value: {3!v}.")


def value_failure(param: str, value: Any, possible: list[Any], type_name: Any, expected: type,
                  nested: type | None, fail: Fail) -> Any:
    """BFCL's ``simple_function_checker`` for one parameter, after its value was read as the declared type
    (Java and JavaScript source converted, an int for a ``float`` made a float): the type check, then the
    comparison its type asks for. ``expected``: the declared type's Python type; ``nested``: its items' (a list
    type), else None; ``type_name``: the declared type as written (messages only). None: accepted.

    >>> reject = lambda *failure: failure[0]
    >>> value_failure("x", "New York", ["new york"], "string", str, None, reject) is None
    True
    >>> value_failure("x", 2.0, [2], "string", str, None, reject)  # neither the declared type nor the answers'
    'type_error:simple'
    >>> value_failure("x", "Data['Sales']", ["data['sales']"], "array", list, str, reject)  # a variable: as written
    'value_error:others'
    """
    is_variable = type_failure(param, value, possible, type_name, expected, nested, fail)
    if type(is_variable) is not bool:
        return is_variable
    if not is_variable:
        if expected is dict:
            return dict_failure(param, value, possible, fail)
        if expected is list and nested is dict:
            return list_dict_failure(param, value, possible, fail)
        if expected is str:
            return string_failure(param, value, possible, fail)
        if expected is list:
            return list_failure(param, value, possible, fail)
    if not contains(possible, value):
        return fail("value_error:others", NOT_AMONG, param, value, possible)
    return None


def contains(alternatives: list[Any], value: Any) -> bool:
    """``value in alternatives`` as Python's ``==`` sees it (so ``1 == 1.0``; but ``True`` is not ``1``)."""
    for alt in alternatives:
        if same(alt, value):
            return True
    return False


def same(a: Any, b: Any) -> bool:
    """``a == b``, but a ``bool`` equals only a ``bool`` (ek: ``True`` is never ``1``)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return bool(a == b)


def answer_type(possible: list[Any]) -> type | None:
    """The answers' type: the first acceptable value's that is not ``""`` (BFCL's omission marker); None if none."""
    for alt in possible:
        if alt != "":
            return type(alt)
    return None


def type_failure(param: str, value: Any, possible: list[Any], type_name: Any, expected: type,
                 nested: type | None, fail: Fail) -> Any:
    """BFCL's ``type_checker``: the declared type, or the answers' type (a "variable"), one level deep.

    A value that passes gives whether it is a "variable" (a bool); one that fails, the failure.
    """
    answer = answer_type(possible)
    is_variable = answer is not None and answer is not expected
    nested_failed = False
    if type(value) is expected:
        if nested is None:
            return is_variable
        items = cast("list[Any]", value)  # a list: only lists have nested types
        for alt in possible:
            if not isinstance(alt, list) or all(item_type_ok(item, alt, nested) for item in items):
                return is_variable
        nested_failed = True
    if answer is not None and type(value) is answer:
        if nested_failed:
            return fail("type_error:nested", NESTED_TYPE, param, type_name, nested.__name__,  # type: ignore[union-attr]
                        value)
        return True
    return fail("type_error:simple", WRONG_TYPE, param, type_name, type(value).__name__, value)


def item_type_ok(item: Any, alternatives: list[Any], nested: type) -> bool:
    """A list item of the declared item type, or of the type of that answer's items (ek: an int for a float)."""
    if type(item) is nested or (nested is float and type(item) is int):  # ek: int -> float at any depth
        return True
    answer = answer_type(alternatives)
    return answer is not None and type(item) is answer


def std(value: Any) -> Any:
    """A string standardised (:func:`ek.canon.bfcl`), anything else as it is."""
    return standardize(value) if isinstance(value, str) else value


def string_failure(param: str, value: str, possible: list[Any], fail: Fail) -> Any:
    """BFCL's ``string_checker``: the value standardised among the string answers standardised."""
    if standardize(value) not in [standardize(a) for a in possible if isinstance(a, str)]:
        return fail("value_error:string", NOT_AMONG_STRINGS, param, value, possible)
    return None


def list_failure(param: str, value: list[Any], possible: list[Any], fail: Fail) -> Any:
    """BFCL's ``list_checker``: item by item, string items standardised, deeper values by ``==``."""
    got = [std(v) for v in value]
    for alt in possible:
        # BFCL iterates over each alternative, so the omittable "" reads as an empty list.
        items = list(alt) if isinstance(alt, (list, str)) else None
        if items is not None and len(items) == len(got) and all(same(std(a), g) for a, g in zip(items, got)):
            return None
    return fail("value_error:list/tuple", NOT_AMONG, param, value, possible)


def dict_failure(param: str, value: Mapping[str, Any], possible: list[Any], fail: Fail) -> Any:
    """BFCL's ``dict_checker``: some answer dict (``""`` skipped) whose keys take the value's (the last failure)."""
    failure = fail("dict_checker:unclear", "")
    for alt in possible:
        if alt == "":
            continue
        failure = one_dict_failure(value, alt, fail)
        if failure is None:
            return None
    return failure


def one_dict_failure(value: Mapping[str, Any], answer: Any, fail: Fail) -> Any:
    """BFCL's ``dict_checker`` against one answer dict: the given keys and values first, then the keys left out.

    A key the answer requires and the value leaves out is the failure even after a wrong key or value: BFCL
    checks the missing keys whatever the first loop found, and its last error sets the error type
    (``live_simple_40-17-0``: a wrong ``airConJobMode`` with ``windStrength`` left out is ``dict_key``).
    """
    if not isinstance(answer, Mapping):
        return fail("dict_checker:unclear", "Possible answer {0!r} is not a dict.", answer)
    failure = None
    for key, item in value.items():
        if key not in answer:
            failure = fail("value_error:dict_key", "Unexpected dict key parameter: {0!r}.", key)
            break
        options = [std(a) for a in listed(answer[key])]
        if not contains(options, std(item)):
            failure = fail("value_error:dict_value", NOT_AMONG, key, item, options)
            break
    for key, options in answer.items():
        if key not in value and "" not in listed(options):
            return fail("value_error:dict_key", "Missing dict key parameter: {0!r}.", key)
    return failure


def listed(options: Any) -> list[Any]:
    """A nested answer's alternatives; a bare value (``simple_java_64``) is the one alternative, not its characters."""
    return options if isinstance(options, list) else [options]


def list_dict_failure(param: str, value: list[Any], possible: list[Any], fail: Fail) -> Any:
    """BFCL's ``list_dict_checker``: as many dicts as some answer list, each taken by its answer dict."""
    failure = fail("list_dict_checker:unclear", "")
    for alt in possible:
        alt = [] if alt == "" else alt  # as in BFCL, "" (omittable) has length 0: it accepts an empty list
        if not isinstance(alt, list) or len(value) != len(alt):
            failure = fail("value_error:list_dict_count", "Wrong number of dictionaries in the list.")
            continue
        for item, answer in zip(value, alt):
            failure = dict_failure(param, item, [answer], fail) if isinstance(item, Mapping) else fail(
                "value_error:dict_key", "Expected a dict in the list, got {0!v}.", item)
            if failure is not None:
                break
        else:
            return None
    return failure
