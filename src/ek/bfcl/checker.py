"""BFCL's AST checker semantics, reimplemented: ``check(functions, model_output, possible_answer, category)``.

Per call: the function name, required parameters present, no unexpected
parameter, each value of its declared type and among the acceptable values
(strings compared after BFCL's standardisation), every non-optional answer
parameter given. Categories route as in BFCL: ``*parallel*`` (any order),
``*multiple*`` (one call among several functions), otherwise simple (one
call); ``*irrelevance*``/``*relevance*`` only ask whether calls were made.

Where ek differs from BFCL on purpose (docs/bfcl.md): parallel calls are
assigned by maximum bipartite matching, not first-fit; an int is accepted for
a float at any depth, not only at top level; the model output is read by
:mod:`ek.parsing`, so arithmetic and names are decode errors, never evaluated.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple, cast

import attrs

from ek.bfcl import javalike
from ek.bfcl.gold import expects_no_call
from ek.bfcl.typemap import (
    JAVA,
    JAVASCRIPT,
    NESTED_JAVALIKE,
    NESTED_PYTHON,
    PYTHON,
    language_of,
    types_for,
)
from ek.calls import Step
from ek.canon import bfcl as standardize
from ek.parsing import ParseError, parse_calls
from ek.parsing.limits import DEFAULT_LIMITS
from ek.parsing.values import plain_args
from ek.scorer.assign import max_matching


@attrs.frozen
class Verdict:
    """The outcome of checking one BFCL entry: ``valid``, BFCL's ``error_type`` and a message."""

    valid: bool
    error_type: str = ""
    message: str = ""

    def __bool__(self) -> bool:
        return self.valid


OK = Verdict(True)


def _show(value: Any, limit: int = 200) -> str:
    """``repr(value)`` cut to ``limit`` characters: messages stay readable for megabyte values."""
    try:
        text = repr(value)
    except (ValueError, RecursionError):  # an int past the str conversion limit, a self-containing list
        return f"<{type(value).__name__} too large to show>"
    return text if len(text) <= limit else f"{text[: limit - 25]}... ({len(text):,} characters)"


def _fail(error_type: str, message: str) -> Verdict:
    return Verdict(False, error_type, message)


def check(
    functions: Sequence[Mapping[str, Any]] | Mapping[str, Any],
    model_output: Any,
    possible_answer: Sequence[Mapping[str, Any]] | Mapping[str, Any],
    category: str,
    *,
    underscore_to_dot: bool = False,
) -> Verdict:
    """Check one model output against one BFCL entry, as BFCL's AST checker does (with ek's fixes).

    ``functions`` is the entry's ``function`` list (or the question entry);
    ``possible_answer`` its ``ground_truth`` list (or the answer entry);
    ``model_output`` raw text, a decoded ``[{"func": {...}}]`` list, or steps.
    ``underscore_to_dot``: the model saw ``a_b`` for a function named ``a.b``.

    >>> funcs = [{"name": "math.hypot", "parameters": {"type": "dict",
    ...     "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}}, "required": ["x", "y"]}}]
    >>> answer = [{"math.hypot": {"x": [3], "y": [4]}}]
    >>> check(funcs, "[math.hypot(x=3, y=4)]", answer, "simple")
    Verdict(valid=True, error_type='', message='')
    >>> check(funcs, "[math.hypot(x=3, y=5)]", answer, "simple").error_type
    'value_error:others'
    >>> check(funcs, "[math.hypot(x=3, y=2+2)]", answer, "simple").error_type
    'ast_decoder:decoder_failed'
    """
    funcs = _functions(functions)
    answers = _answers(possible_answer, category)
    language = language_of(category)
    decoded = _decode(model_output, language)
    if isinstance(decoded, ParseError):
        if "relevance" in category:
            return _relevance(category, has_calls=False, detail=str(decoded))
        return _fail("ast_decoder:decoder_failed", f"Invalid syntax. Failed to decode AST. {decoded}")
    if "relevance" in category:
        return _relevance(category, has_calls=bool(decoded), detail="")
    ctx = _Context(language, underscore_to_dot)
    if "parallel" in category:
        return _parallel(funcs, decoded, answers, ctx)
    if "multiple" in category:
        if len(decoded) != len(answers):
            return _fail("multiple_function_checker:wrong_count", "Wrong number of functions.")
        expected = _only_key(answers[0])
        return _call_checker(_find(funcs, expected), decoded[0], answers[0], ctx)
    if len(decoded) != 1:
        return _fail("simple_function_checker:wrong_count", "Wrong number of functions.")
    return _call_checker(funcs[0], decoded[0], answers[0], ctx)


def _relevance(category: str, *, has_calls: bool, detail: str) -> Verdict:
    if expects_no_call(category):
        if has_calls:
            return _fail("irrelevance_error:decoder_success", "Valid syntax. Successfully decode AST when it should not.")
        return OK
    if not has_calls:
        return _fail("relevance_error:decoder_failed",
                     f"Invalid syntax. Failed to decode AST when it should have. {detail}".strip())
    return OK


@attrs.frozen
class _Context:
    language: str
    underscore_to_dot: bool


def _functions(functions: Any) -> list[Mapping[str, Any]]:
    """The entry's function schemas, each checked to have a name (parameters: when a call is checked)."""
    if isinstance(functions, Mapping):
        functions = functions["function"] if "function" in functions else [functions]
    if type(functions) is not list:
        if not isinstance(functions, Sequence) or isinstance(functions, str):
            raise ValueError(f"functions must be a list of function objects (or a question entry), "
                             f"got {type(functions).__name__}")
        functions = list(functions)
    for i, func in enumerate(functions):
        if type(func) is not dict and not isinstance(func, Mapping) or type(func.get("name")) is not str:
            raise ValueError(f"functions[{i}]: a function needs a 'name' string, got {func!r:.100}")
    checked: list[Mapping[str, Any]] = functions
    return checked


def _parameters(func: Mapping[str, Any]) -> tuple[Mapping[str, Any], Mapping[str, Any], list[Any]]:
    """A function's ``parameters``, ``properties`` and ``required``, or a ValueError naming the function."""
    params = func.get("parameters", {})
    if type(params) is not dict and not isinstance(params, Mapping):
        raise ValueError(f"function {func['name']!r}: 'parameters' must be an object, got {type(params).__name__}")
    details = params.get("properties", {})
    if type(details) is not dict and not isinstance(details, Mapping):
        raise ValueError(f"function {func['name']!r}: 'parameters.properties' must be an object, "
                         f"got {type(details).__name__}")
    required = params.get("required", [])
    if not isinstance(required, list):
        raise ValueError(f"function {func['name']!r}: 'parameters.required' must be a list, "
                         f"got {type(required).__name__}")
    return params, details, required


_ANSWER_SHAPE = "{func_name: {param: [values]}}"


def _answers(possible_answer: Any, category: str) -> list[Mapping[str, Any]]:
    """The entry's ground truth, checked to be BFCL's shape (one function per item, lists of values)."""
    if isinstance(possible_answer, Mapping):
        possible_answer = possible_answer.get("ground_truth", [possible_answer])
    if type(possible_answer) is not list and (not isinstance(possible_answer, Sequence)
                                              or isinstance(possible_answer, str)):
        raise ValueError(f"possible_answer must be a list of {_ANSWER_SHAPE} (or an answer entry), "
                         f"got {type(possible_answer).__name__}")
    if not possible_answer and "relevance" not in category:
        raise ValueError("possible_answer is empty: it must list one call per expected call")
    for i, call in enumerate(possible_answer):
        if type(call) is not dict and not isinstance(call, Mapping) or len(call) != 1:
            raise ValueError(f"possible_answer[{i}] must be {_ANSWER_SHAPE}, got {call!r:.100}")
        ((name, params),) = call.items()
        if type(params) is not dict and not isinstance(params, Mapping):
            raise ValueError(f"possible_answer[{i}] must be {_ANSWER_SHAPE}, got {call!r:.100}")
        for param, options in params.items():
            if type(options) is not list:
                raise ValueError(f"possible_answer[{i}][{name!r}][{param!r}] must be a list of acceptable values, "
                                 f"got {options!r:.100}")
    return list(possible_answer)


def _only_key(answer: Mapping[str, Any]) -> str:
    return next(iter(answer))


def _find(funcs: list[Mapping[str, Any]], name: str) -> Mapping[str, Any]:
    for func in funcs:
        if func.get("name") == name:
            return func
    raise ValueError(f"possible answer names function {name!r}, which the entry does not define")


def _decode(model_output: Any, language: str = PYTHON) -> list[Step] | ParseError:
    """Model output -> steps; a ParseError is returned (not raised): it is a verdict, not a crash."""
    if isinstance(model_output, list) and all(isinstance(s, Step) for s in model_output):
        return list(model_output)
    try:
        if isinstance(model_output, bytes | bytearray):
            model_output = _utf8(bytes(model_output))
        if isinstance(model_output, str) and language in (JAVA, JAVASCRIPT):
            return javalike.decode_calls(model_output, language)
        if type(model_output) is list:
            fast = _decoded_bfcl(model_output)
            if fast is not None:
                return fast
        if isinstance(model_output, str):
            text = model_output.strip("`\n ")
            if text.startswith("python\n"):  # what stripping backticks leaves of a ```python fence
                text = text[len("python\n"):]
            if not text.startswith("["):
                text = "[" + text
            if not text.endswith("]"):
                text = text + "]"
            return parse_calls(text, "bfcl")  # BFCL output: Python calls or its one-key JSON objects
        return parse_calls(model_output, "bfcl")
    except ParseError as exc:
        return exc


def _utf8(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ParseError(f"invalid UTF-8: {exc.reason} (byte {data[exc.start]:#04x})", f"byte {exc.start}",
                         "bfcl") from None


def _decoded_bfcl(items: list[Any]) -> list[Step] | None:
    """BFCL's decoded ``[{"func": {...}}]`` read directly (values still checked); None: take the general path."""
    steps = []
    for i, item in enumerate(items):
        if type(item) is not dict or len(item) != 1:
            return None
        ((name, args),) = item.items()
        if type(name) is not str or not name or type(args) is not dict:
            return None
        steps.append(Step(name, plain_args(args, f"$[{i}][{name!r}]", DEFAULT_LIMITS, "bfcl")))
    return steps


def _parallel(funcs: list[Mapping[str, Any]], calls: list[Step], answers: list[Mapping[str, Any]],
              ctx: _Context) -> Verdict:
    if len(calls) != len(answers):
        return _fail("parallel_function_checker_no_order:wrong_count", "Wrong number of functions.")
    funcs_for = [_find(funcs, _only_key(a)) for a in answers]

    def fits(i: int, j: int) -> bool:
        return _call_checker(funcs_for[i], calls[j], answers[i], ctx).valid

    assignment = max_matching(len(answers), len(calls), fits)
    for i, matched in enumerate(assignment):
        if matched is None:
            reasons = "; ".join(
                f"model call {j}: {v.error_type}: {v.message}"
                for j, v in enumerate(_call_checker(funcs_for[i], call, answers[i], ctx) for call in calls)
            )
            return _fail(
                "parallel_function_checker_no_order:cannot_find_match",
                f"Could not find a matching function call for index {i} of possible answers "
                f"({_only_key(answers[i])}) in any complete assignment. {reasons}",
            )
    return OK


def _call_checker(func: Mapping[str, Any], call: Step, answer: Mapping[str, Any], ctx: _Context) -> Verdict:
    """BFCL's ``simple_function_checker`` for one call."""
    possible = next(iter(answer.values()))
    name = func["name"]
    if ctx.underscore_to_dot and "." in name:
        name = name.replace(".", "_")
    if call.name != name:
        return _fail("simple_function_checker:wrong_func_name", f"Function name {name!r} not found in model output.")
    _, details, required = _parameters(func)
    args = call.args
    for param in required:
        if param not in args:
            return _fail("simple_function_checker:missing_required", f"Missing required parameter: {param!r}.")
    for param, value in args.items():
        if param not in details or param not in possible:
            return _fail("simple_function_checker:unexpected_param", f"Unexpected parameter: {param!r}.")
        verdict = _check_param(param, value, details[param], possible[param], ctx)
        if not verdict.valid:
            return verdict
    for param, alternatives in possible.items():
        if param not in args and "" not in alternatives:
            return _fail("simple_function_checker:missing_optional",
                         f"Optional parameter {param!r} not provided and not marked as optional.")
    return OK


def _check_param(param: str, value: Any, detail: Mapping[str, Any], possible: list[Any], ctx: _Context) -> Verdict:
    type_name = detail.get("type", "any")
    table = types_for(ctx.language)
    expected = table.get(type_name)
    if expected is None:
        return _fail("type_error:simple", f"Parameter {param!r} has type {type_name!r}, which BFCL does not define.")
    items = detail.get("items")
    item_type = items.get("type") if isinstance(items, Mapping) else None
    nested_names = NESTED_PYTHON if ctx.language == PYTHON else NESTED_JAVALIKE
    nested = table.get(item_type) if type_name in nested_names and item_type else None
    if ctx.language in (JAVA, JAVASCRIPT):
        if not isinstance(value, str):
            kind = "java" if ctx.language == JAVA else "js"
            return _fail(f"type_error:{kind}", f"Incorrect type for parameter {param!r}. Expected type String, "
                                               f"got {type(value).__name__}. Parameter value: {_show(value)}.")
        convert = javalike.convert_java if ctx.language == JAVA else javalike.convert_js
        value = convert(value, type_name, item_type if type_name in nested_names else None)
    if type_name == "float" and type(value) is int and ctx.language == PYTHON:
        value = float(value)
    typed = _type_check(param, value, possible, type_name, expected, nested)
    if not typed.valid:
        return typed.verdict
    if not typed.is_variable:
        if expected is dict:
            return _dict_checker(param, value, possible)
        if expected is list and nested is dict:
            return _list_dict_checker(param, value, possible)
        if expected is str:
            return _string_checker(param, value, possible)
        if expected is list:
            return _list_checker(param, value, possible)
    if not _contains(possible, value):
        return _fail("value_error:others",
                     f"Invalid value for parameter {param!r}: {_show(value)}. Expected one of {_show(possible)}.")
    return OK


def _contains(alternatives: list[Any], value: Any) -> bool:
    """``value in alternatives`` as Python's ``==`` sees it (so ``1 == 1.0``; but ``True`` is not ``1``)."""
    return any(_same(alt, value) for alt in alternatives)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return bool(a == b)


class _Typed(NamedTuple):
    valid: bool
    is_variable: bool = False
    verdict: Verdict = OK


def _answer_type(possible: list[Any]) -> type | None:
    for alt in possible:
        if alt != "":
            return type(alt)
    return None


def _type_check(param: str, value: Any, possible: list[Any], type_name: str, expected: type,
                nested: type | None) -> _Typed:
    """BFCL's ``type_checker``: the declared type, or the answers' type (a "variable"), one level deep."""
    answer_type = _answer_type(possible)
    is_variable = answer_type is not None and answer_type is not expected
    nested_failed = False
    if type(value) is expected:
        if nested is None:
            return _Typed(True, is_variable)
        items = cast("list[Any]", value)  # a list: only lists have nested types
        for alt in possible:
            if not isinstance(alt, list) or all(_item_type_ok(item, alt, nested) for item in items):
                return _Typed(True, is_variable)
        nested_failed = True
    if answer_type is not None and type(value) is answer_type:
        if nested_failed:
            return _Typed(False, verdict=_fail(
                "type_error:nested",
                f"Nested type checking failed for parameter {param!r}. Expected outer type {type_name} with "
                f"inner type {nested.__name__}. Parameter value: {_show(value)}.",  # type: ignore[union-attr]
            ))
        return _Typed(True, True)
    return _Typed(False, verdict=_fail(
        "type_error:simple",
        f"Incorrect type for parameter {param!r}. Expected type {type_name}, got {type(value).__name__}. "
        f"Parameter value: {_show(value)}.",
    ))


def _item_type_ok(item: Any, alternatives: list[Any], nested: type) -> bool:
    if type(item) is nested or (nested is float and type(item) is int):  # ek: int -> float at any depth
        return True
    answer_type = _answer_type(alternatives)
    return answer_type is not None and type(item) is answer_type


def _std(value: Any) -> Any:
    return standardize(value) if isinstance(value, str) else value


def _string_checker(param: str, value: str, possible: list[Any]) -> Verdict:
    if standardize(value) not in [standardize(a) for a in possible if isinstance(a, str)]:
        return _fail("value_error:string", f"Invalid value for parameter {param!r}: {_show(value)}. "
                                           f"Expected one of {_show(possible)}. Case insensitive.")
    return OK


def _list_checker(param: str, value: list[Any], possible: list[Any]) -> Verdict:
    got = [_std(v) for v in value]
    for alt in possible:
        # BFCL iterates over each alternative, so the omittable "" reads as an empty list.
        items = list(alt) if isinstance(alt, (list, str)) else None
        if items is not None and len(items) == len(got) and all(_same(_std(a), g) for a, g in zip(items, got)):
            return OK
    return _fail("value_error:list/tuple", f"Invalid value for parameter {param!r}: {_show(value)}. "
                                           f"Expected one of {_show(possible)}.")


def _dict_checker(param: str, value: Mapping[str, Any], possible: list[Any]) -> Verdict:
    """BFCL's ``dict_checker``: each key's value among that key's alternatives; non-optional keys present."""
    verdict = _fail("dict_checker:unclear", "")
    for alt in possible:
        if alt == "":
            continue
        verdict = _one_dict(value, alt)
        if verdict.valid:
            return OK
    return verdict


def _one_dict(value: Mapping[str, Any], answer: Mapping[str, Any]) -> Verdict:
    if not isinstance(answer, Mapping):
        return _fail("dict_checker:unclear", f"Possible answer {answer!r} is not a dict.")
    for key, item in value.items():
        if key not in answer:
            return _fail("value_error:dict_key", f"Unexpected dict key parameter: {key!r}.")
        options = [_std(a) for a in _listed(answer[key])]
        if not _contains(options, _std(item)):
            return _fail("value_error:dict_value",
                         f"Invalid value for parameter {key!r}: {_show(item)}. Expected one of {_show(options)}.")
    for key, options in answer.items():
        if key not in value and "" not in _listed(options):
            return _fail("value_error:dict_key", f"Missing dict key parameter: {key!r}.")
    return OK


def _listed(options: Any) -> list[Any]:
    """A nested answer's alternatives; a bare value (``simple_java_64``) is the one alternative, not its characters."""
    return options if isinstance(options, list) else [options]


def _list_dict_checker(param: str, value: list[Any], possible: list[Any]) -> Verdict:
    verdict = _fail("list_dict_checker:unclear", "")
    for alt in possible:
        alt = [] if alt == "" else alt  # as in BFCL, "" (omittable) has length 0: it accepts an empty list
        if not isinstance(alt, list) or len(value) != len(alt):
            verdict = _fail("value_error:list_dict_count", "Wrong number of dictionaries in the list.")
            continue
        for item, answer in zip(value, alt):
            verdict = _dict_checker(param, item, [answer]) if isinstance(item, Mapping) else _fail(
                "value_error:dict_key", f"Expected a dict in the list, got {_show(item)}.")
            if not verdict.valid:
                break
        else:
            return OK
    return verdict
