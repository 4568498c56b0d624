"""BFCL's AST checker semantics, reimplemented: ``check(functions, model_output, possible_answer, category)``.

Per call: the function name, required parameters present, no unexpected
parameter, each value of its declared type and among the acceptable values
(strings compared after BFCL's standardisation), every non-optional answer
parameter given (a value against its acceptable values: :mod:`ek.bfclvalues`, which the metric's BFCL mode
asks too). Categories route as in BFCL: ``*parallel*`` (any order),
``*multiple*`` (one call among several functions), otherwise simple (one
call); ``*irrelevance*``/``*relevance*`` only ask whether calls were made.

Where ek differs from BFCL on purpose (docs/bfcl.md): parallel calls are
assigned by maximum bipartite matching, not first-fit; an int is accepted for
a float at any depth, not only at top level; the model output is read by
:mod:`ek.parsing`, so arithmetic and names are decode errors, never evaluated.
"""

from __future__ import annotations

import contextlib
import functools
import string
from collections.abc import Callable, Mapping, Sequence
from types import MethodType
from typing import Any

import attrs

from ek.bfcl import javalike
from ek.bfcl.data import underscored_name
from ek.bfcl.decoding import decodes_to_calls
from ek.bfcl.gold import expects_no_call
from ek.bfcl.typemap import (
    JAVA,
    JAVASCRIPT,
    NESTED_JAVALIKE,
    NESTED_PYTHON,
    PYTHON,
    PYTHON_TYPES,
    language_of,
    types_for,
)
from ek.bfclvalues import NOT_AMONG as _NOT_AMONG
from ek.bfclvalues import NOT_AMONG_STRINGS as _NOT_AMONG_STRINGS
from ek.bfclvalues import WRONG_TYPE as _WRONG_TYPE
from ek.bfclvalues import answer_type as _answer_type
from ek.bfclvalues import contains as _contains
from ek.bfclvalues import string_failure, value_failure
from ek.calls import Step
from ek.canon import bfcl as standardize
from ek.parsing import ParseError, parse_calls
from ek.parsing.api import bfcl_cleaned
from ek.parsing.limits import DEFAULT_LIMITS
from ek.parsing.values import already_plain, calls_already_plain, plain_args
from ek.scorer.assign import max_matching


@attrs.frozen(slots=False)
class Verdict:
    """The outcome of checking one BFCL entry: ``valid``, BFCL's ``error_type`` and a message.

    The checker builds a failure's message only when it is first read: it
    keeps a template and its values (:func:`_failed`), and ``message`` formats
    them on first access (then keeps the text). To callers a verdict is the
    attrs class of three fields it always was: ``message``, ``==``, ``hash``,
    ``repr``, ``attrs.asdict`` and ``attrs.evolve`` all see the text. The
    values are the checker's inputs, not copies: a message read after the
    caller changed the model output or the answers in place shows them as
    they are then (values are only shown in messages, never judged again).
    """

    valid: bool
    error_type: str = ""
    message: str = ""

    def __bool__(self) -> bool:
        return self.valid

    def __getattr__(self, name: str) -> Any:
        """Reached only for an attribute the instance lacks: a lazy verdict's ``message``, built here once."""
        if name != "message" or "_template" not in self.__dict__:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        template, values = self.__dict__["_template"]
        text = _MESSAGES.format(template, *values)
        object.__setattr__(self, "message", text)
        return text

    def __getstate__(self) -> dict[str, Any]:
        """Pickled with its message as text (the template's values need not be picklable)."""
        return {"valid": self.valid, "error_type": self.error_type, "message": self.message}


OK = Verdict(True)


def _show(value: Any, limit: int = 200) -> str:
    """``repr(value)`` cut to ``limit`` characters: messages stay readable for megabyte values."""
    try:
        text = repr(value)
    except (ValueError, RecursionError):  # an int past the str conversion limit, a self-containing list
        return f"<{type(value).__name__} too large to show>"
    return text if len(text) <= limit else f"{text[: limit - 25]}... ({len(text):,} characters)"


class _MessageFormatter(string.Formatter):
    """``str.format`` plus two conversions: ``!v``, :func:`_show` (a repr cut to a readable length), and
    ``!w``, :func:`_reasons` (why each model call failed, from a row of verdicts)."""

    def convert_field(self, value: Any, conversion: str | None) -> Any:
        if conversion == "v":
            return _show(value)
        if conversion == "w":
            return _reasons(value)
        return super().convert_field(value, conversion)


def _fail(error_type: str, message: str) -> Verdict:
    return Verdict(False, error_type, message)


_MESSAGES = _MessageFormatter()
_new = object.__new__
_set = object.__setattr__


def _failed(error_type: str, template: str, *values: Any) -> Verdict:
    """A failed verdict whose message is ``template`` formatted with ``values`` when first read.

    Fast path: skips formatting (``repr`` of the values, most often never
    read: a matching asks many pairs, a benchmark or a score reads only
    ``valid``). Safe: the message is built from the same template and values
    on first read, and the verdict has no ``message`` attribute until then,
    so every reader goes through :meth:`Verdict.__getattr__`.
    """
    verdict = _new(Verdict)
    fields = verdict.__dict__  # filled in place: faster than setting a new __dict__
    fields["valid"] = False
    fields["error_type"] = error_type
    fields["_template"] = (template, values)
    return verdict


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
    try:  # free until something is raised; a malformed entry's TypeError is reworded (_entry_error)
        # _answers and _route, their fast paths asked here (one call each fewer: a one-shot check is made of few)
        answers = possible_answer if type(possible_answer) is list and possible_answer \
            and _plain_answers(possible_answer) else _answers(possible_answer, category)
        route = _ROUTES.get(category) if type(category) is str else None
        language, kind = route if route is not None else _route(category)
        listed = type(model_output) is list
        if listed and len(model_output) == 1 and (kind is _SIMPLE or kind is _MULTIPLE and len(answers) == 1):
            call = _plain_call(model_output[0])
            if call is not None:  # the one call checked without the list of calls or the dispatch by kind
                func = funcs[0] if kind is _SIMPLE else _find(funcs, _only_key(answers[0]))
                return _call_checker(func, answers[0], _CONTEXTS[bool(underscore_to_dot)][language], call)
        decoded = _bfcl_form(model_output, kind, answers) if listed else None
        if decoded is None:  # not BFCL's decoded form of plain calls: the general path
            if listed:
                wrong = _wrong_count(model_output, kind, _expected_calls(kind, answers))
                if wrong is not None:
                    return wrong
            decoded = _decode(model_output, language)
        elif type(decoded) is Verdict:
            return decoded
        if type(decoded) is not list or kind is _RELEVANCE:
            return _undecoded_or_relevance(decoded, kind, category, model_output)
        ctx = _CONTEXTS[bool(underscore_to_dot)][language]
        if kind is _PARALLEL:
            if len(decoded) != len(answers):
                return _WRONG_COUNT_PARALLEL
            return _parallel_unprepared(funcs, answers, ctx, decoded)
        if kind is _MULTIPLE:
            if len(decoded) != len(answers):
                return _WRONG_COUNT_MULTIPLE
            return _call_checker(_find(funcs, _only_key(answers[0])), answers[0], ctx, decoded[0])
        if len(decoded) != 1:
            return _WRONG_COUNT_SIMPLE
        return _call_checker(funcs[0], answers[0], ctx, decoded[0])
    except (TypeError, AttributeError, IndexError, KeyError) as exc:
        raise _entry_error(exc, funcs, possible_answer, category) from None


def prepare(
    functions: Sequence[Mapping[str, Any]] | Mapping[str, Any],
    possible_answer: Sequence[Mapping[str, Any]] | Mapping[str, Any],
    category: str,
    *,
    underscore_to_dot: bool = False,
) -> PreparedEntry:
    """One BFCL entry read once, to check many model outputs against it: ``prepare(...).check(output)``.

    ``prepare(functions, answer, category).check(output)`` gives the verdict
    of ``check(functions, output, answer, category)``, and raises what it
    raises for a malformed entry (here, or when a check first reaches the
    malformed part, as ``check`` does). Read once: the entry's shape, its
    routing and, per answer, the schema's types and the acceptable values as
    sets (:class:`_CompiledCall`). Each output is still decoded, validated
    and checked in full. The entry is read, not copied: after changing it in
    place, prepare it again.

    >>> funcs = [{"name": "f", "parameters": {"type": "dict",
    ...     "properties": {"x": {"type": "string"}}, "required": ["x"]}}]
    >>> entry = prepare(funcs, [{"f": {"x": ["New York"]}}], "simple")
    >>> entry.check("[f(x='new york')]").valid, entry.check("[f(x='Boston')]").error_type
    (True, 'value_error:string')
    """
    funcs = _functions(functions)
    answers = _answers(possible_answer, category)
    language, kind = _route(category)
    try:
        return PreparedEntry(funcs, answers, category, language, kind, _CONTEXTS[bool(underscore_to_dot)][language])
    except (TypeError, AttributeError, IndexError, KeyError) as exc:
        raise _entry_error(exc, funcs, answers, category) from None


class PreparedEntry:
    """A BFCL entry ready to check many outputs against (built by :func:`prepare`).

    Its call checkers are built once, when prepared; a part that would raise
    (an answer naming a function the entry lacks) is left for each check to
    raise, as :func:`check` does. Checking only adds the verdicts that depend
    on the entry alone (a missing parameter's), kept for the next outputs:
    a prepared entry may be shared between threads.
    """

    __slots__ = ("_answers", "_calls", "_category", "_ctx", "_funcs", "_kind", "_language", "_one", "_parallel",
                 "_single")

    def __init__(self, funcs: list[Mapping[str, Any]], answers: list[Mapping[str, Any]], category: str,
                 language: str, kind: str, ctx: _Context) -> None:
        self._funcs, self._answers, self._category = funcs, answers, category
        self._language, self._kind, self._ctx = language, kind, ctx
        self._single: _CallCheck | None = None  # simple and multiple: the one answer's checker
        self._parallel: tuple[list[_CallCheck], bool] | None = None
        with contextlib.suppress(ValueError):  # _find: left for check() to raise
            if kind is _PARALLEL:
                self._parallel = _parallel_checkers(funcs, answers, ctx)
            elif kind is not _RELEVANCE and answers and funcs:
                self._single = self._single_checker()
        # The checker of an entry that expects exactly one call (simple; multiple of one answer), for _plain_call.
        self._one = self._single if kind is _SIMPLE or kind is _MULTIPLE and len(answers) == 1 else None
        #: how many calls the entry expects (-1: any number, a relevance entry), for _wrong_count
        self._calls = _expected_calls(kind, answers)

    def check(self, model_output: Any) -> Verdict:
        """The verdict on one model output (raw text, decoded ``[{"func": {...}}]`` or steps), as :func:`check`."""
        try:  # free until something is raised; a malformed entry's TypeError is reworded (_entry_error)
            kind = self._kind
            decoded: list[_Call] | ParseError | None = None
            if type(model_output) is list:
                if len(model_output) != self._calls:  # the call saved where the count is right
                    wrong = _wrong_count(model_output, kind, self._calls)
                    if wrong is not None:
                        return wrong
                if len(model_output) == 1 and self._one is not None:
                    call = _plain_call(model_output[0])
                    if call is not None:
                        return self._one(call)
                if not model_output:
                    decoded = []  # no call (what _decode reads an empty list as), without its dispatch
                elif type(model_output[0]) is dict:
                    try:  # most often BFCL's decoded form: read here, without _decode's dispatch (None: it is not)
                        decoded = _decoded_bfcl(model_output)
                    except ParseError as exc:
                        decoded = exc
            if decoded is None:
                decoded = _decode(model_output, self._language)
            if type(decoded) is not list or kind is _RELEVANCE:
                return _undecoded_or_relevance(decoded, kind, self._category, model_output)
            if kind is _PARALLEL:
                if len(decoded) != len(self._answers):
                    return _WRONG_COUNT_PARALLEL
                checkers, fast = self._parallel or _parallel_checkers(self._funcs, self._answers, self._ctx)
                return _parallel(checkers, fast, decoded, self._answers)
            if kind is _MULTIPLE:
                if len(decoded) != len(self._answers):
                    return _WRONG_COUNT_MULTIPLE
            elif len(decoded) != 1:
                return _WRONG_COUNT_SIMPLE
            return (self._single or self._single_checker())(decoded[0])
        except (TypeError, AttributeError, IndexError, KeyError) as exc:
            raise _entry_error(exc, self._funcs, self._answers, self._category) from None

    def _single_checker(self) -> _CallCheck:
        """The checker of the one call (simple: the first function; multiple: the answer's, found by name)."""
        answer = self._answers[0]
        func = _find(self._funcs, _only_key(answer)) if self._kind is _MULTIPLE else self._funcs[0]
        return _call_check(func, answer, self._ctx)


def _plain_call(item: Any) -> _Call | None:
    """Fast path: a one-item output's call, for an entry expecting one call (None: take the general path).

    Skips building the list of calls (:func:`_decoded_bfcl`) and the dispatch
    by kind of :func:`check` and :meth:`PreparedEntry.check`. Safe: it takes
    only an item that ``_decoded_bfcl``'s own fast path takes (a one-key
    ``dict`` of a non-empty ``str`` name to ``dict`` arguments that are
    plain, by the same :func:`~ek.parsing.values.calls_already_plain`), which
    reads as this one call; an entry expecting one call (simple, or multiple
    of one answer) then gives its answer's verdict on it, as the general path
    does.
    """
    if type(item) is not dict or len(item) != 1:
        return None
    name, = item
    call = (name, item[name])
    if type(name) is not str or not name or not calls_already_plain([call], DEFAULT_LIMITS):
        return None
    return call


def _bfcl_form(items: list[Any], kind: str, answers: list[Mapping[str, Any]]) -> list[_Call] | Verdict | None:
    """Fast path of :func:`check` for an output in BFCL's decoded form: the wrong-count verdict, the calls, or
    None (then the general path: :func:`_wrong_count`, then :func:`_decode`).

    Skips the general path's second walk over the items and its three calls (``_wrong_count`` and
    ``_decode``'s ``_decoded_bfcl`` each read every item as a one-key ``dict`` of a non-empty ``str`` name).
    Safe: it reads the items as both do, once; an output of that shape with a wrong number of calls is
    ``_wrong_count``'s verdict; one with the right number whose arguments are all plain
    (:func:`~ek.parsing.values.calls_already_plain`, as ``_decoded_bfcl`` asks) is the calls ``_decode``
    gives. Anything else (another shape, arguments to convert or refuse) is None: the general path reads it
    from the start, as before.
    """
    calls = _named_items(items)
    if calls is None:
        return None
    expected = -1 if kind is _RELEVANCE else 1 if kind is _SIMPLE else len(answers)  # _expected_calls, inline
    if expected >= 0 and len(calls) != expected:
        return _WRONG_COUNT_PARALLEL if kind is _PARALLEL else _WRONG_COUNT_MULTIPLE if kind is _MULTIPLE \
            else _WRONG_COUNT_SIMPLE
    return calls if calls_already_plain(calls, DEFAULT_LIMITS) else None


def _undecoded_or_relevance(decoded: list[_Call] | ParseError, kind: str, category: str,
                            model_output: Any) -> Verdict:
    """The verdict when the output did not decode (a ParseError), or the category only asks whether calls came.

    A text ek's reader refuses may still be calls to BFCL's decoder, which takes a bare name as a string, drops
    positional arguments and evaluates arithmetic (``[get_weather(city=city)]``): whether calls came is then
    its answer (:func:`ek.bfcl.decoding.decodes_to_calls`), so an irrelevance entry fails on such an output
    and a relevance entry passes, as in BFCL.
    """
    if type(decoded) is not list:
        if kind is _RELEVANCE:
            calls = type(model_output) is str and decodes_to_calls(model_output)
            return _relevance(category, has_calls=calls, detail="" if calls else str(decoded))
        return _failed("ast_decoder:decoder_failed", "Invalid syntax. Failed to decode AST. {0}", decoded)
    return _relevance(category, has_calls=bool(decoded), detail="")


def _parallel_checkers(funcs: list[Mapping[str, Any]], answers: list[Mapping[str, Any]],
                       ctx: _Context) -> tuple[list[_CallCheck], bool]:
    """Each answer's call checker (:func:`_call_check`), and whether :func:`_parallel`'s shortcuts apply.

    Every answer's function is found first (a missing one raises before any call is checked).
    """
    funcs_for = _funcs_for(funcs, answers)
    fast = ctx.python and _well_formed(funcs_for)
    # all well-formed: each is (else each is asked on its own)
    checkers = [_call_check(func, answer, ctx, True if fast else None) for func, answer in zip(funcs_for, answers)]
    return checkers, fast


def _parallel_unprepared(funcs: list[Mapping[str, Any]], answers: list[Mapping[str, Any]], ctx: _Context,
                         calls: list[_Call]) -> Verdict:
    """:func:`check`'s parallel verdict: :func:`_parallel` with each answer's :func:`_call_checker` as its checker.

    Fast path (well-formed entries): ``_parallel``'s steps, with the checkers built only for the step that asks
    them. Each call is checked against the answer at its own index by ``_call_checker`` itself
    (:func:`_unbuilt_in_order`), and so is the first answer not fitting its own call against every call, for
    its row (:func:`_unbuilt_row`, the failures built as :func:`_failure` s, as a compiled checker builds
    them there); every answer gets a checker only for the matching. Skips building a checker per answer (a
    ``functools.partial``, with its tuple and dict) and calling through it, for outputs in order (most
    right ones) and for those whose first misfit fits no call (most wrong ones), and a verdict object for
    each call in such a row. Safe: a checker calls ``_call_checker`` with these same arguments, so each
    step sees the verdicts it sees in ``_parallel`` (in the row, the same failures as templates and values,
    which the no-match message formats alike), and the steps are the same, in the same order.
    """
    funcs_for = _funcs_for(funcs, answers)
    fast = ctx.python and _well_formed(funcs_for)
    if not fast:
        return _parallel(_checkers(funcs_for, answers, ctx), fast, calls, answers)
    misfit = _unbuilt_in_order(funcs_for, answers, ctx, calls)
    if misfit is None:
        return OK
    first, own = misfit
    row = _unbuilt_row(first, funcs_for[first], answers[first], ctx, calls, own)
    if row is not None:
        return _no_match(first, answers, row)
    return _matched(_checkers(funcs_for, answers, ctx), fast, calls, answers, {(first, first): own})


def _unbuilt_row(misfit: int, func: Mapping[str, Any], answer: Mapping[str, Any], ctx: _Context,
                 calls: list[_Call], own: Verdict) -> list[Any] | None:
    """:func:`_row_fitting_nothing` for :func:`_parallel_unprepared`: answer ``misfit`` (``func`` and ``answer``)
    against every call by ``_call_checker`` itself, which builds the failures it builds itself as
    :func:`_failure` s (as a compiled checker does there); None as soon as one call fits."""
    row: list[Any] = []
    for j, call in enumerate(calls):
        verdict = own if j == misfit else _call_checker(func, answer, ctx, call, _failure)
        if type(verdict) is not tuple and verdict.valid:
            return None
        row.append(verdict)
    return row


def _checkers(funcs_for: list[Mapping[str, Any]], answers: list[Mapping[str, Any]], ctx: _Context) -> list[_CallCheck]:
    """Each answer's checker for :func:`check`: :func:`_call_checker` bound to its function and answer."""
    return [functools.partial(_call_checker, func, answer, ctx) for func, answer in zip(funcs_for, answers)]


def _unbuilt_in_order(funcs_for: list[Mapping[str, Any]], answers: list[Mapping[str, Any]], ctx: _Context,
                      calls: list[_Call]) -> tuple[int, Verdict] | None:
    """:func:`_in_order` with the checkers of :func:`_parallel_unprepared`, unbuilt: ``_call_checker`` called."""
    i = 0
    for func, answer, call in zip(funcs_for, answers, calls):
        verdict = _call_checker(func, answer, ctx, call)
        if verdict is not OK:  # a failure (a valid verdict of _call_checker's is OK)
            return i, verdict
        i += 1
    return None


def _funcs_for(funcs: list[Mapping[str, Any]], answers: list[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Each answer's function, ``_find(funcs, _only_key(answer))``, in order (the first missing one raises).

    Fast path: an answer naming the same ``str`` as the answer before it (parallel answers most often call
    one function) takes that answer's function without :func:`_find`'s search. Safe: ``_find`` gives the
    first function whose name ``==`` the answer's, and for two equal ``str`` s that is the same function.
    """
    found: list[Mapping[str, Any]] = []
    last_name: str | None = None  # the name of the answer before, when a str
    for answer in answers:
        for name in answer:  # _only_key: the answer's one key (a loop binds it faster than next(iter(...)))
            break
        else:
            name = _only_key(answer)  # no key: raises as _only_key does
        if type(name) is not str or name != last_name:
            func = _find(funcs, name)
            last_name = name if type(name) is str else None
        found.append(func)
    return found


_RELEVANCE, _PARALLEL, _MULTIPLE, _SIMPLE = "relevance", "parallel", "multiple", "simple"
#: Routes of the category names seen so far (a handful in practice; bounded, as any string may come).
_ROUTES: dict[str, tuple[str, str]] = {}


def _route(category: str) -> tuple[str, str]:
    """A category's language and checker kind (BFCL's routing by substring), remembered per name.

    Fast path: skips the four substring searches after a name's first check.
    Safe: the route is a pure function of the name, and only ``str`` names
    are remembered (anything else is routed afresh, raising as before).
    """
    route = _ROUTES.get(category) if type(category) is str else None
    if route is None:
        if not isinstance(category, str):
            raise TypeError(f"category must be a BFCL category name (a string such as 'simple_python'), "
                            f"got {type(category).__name__}")
        name = _routed_name(category)
        language = language_of(name)
        route = (language, _RELEVANCE if "relevance" in name else _PARALLEL if "parallel" in name
                 else _MULTIPLE if "multiple" in name else _SIMPLE)
        if type(category) is str and len(_ROUTES) < 1024:
            _ROUTES[category] = route
    return route


_FORMAT_SENSITIVITY = "format_sensitivity"


def _routed_name(category: str) -> str:
    """The name a check is routed by: ``category``, or for BFCL's format-sensitivity category the original
    question's id, the last part of an entry's id (``format_sensitivity_3:<configuration>:parallel_5``), as
    BFCL's runner passes it since https://github.com/ShishirPatil/gorilla/issues/1215 (before, every entry
    went to the one-call checker, so a right parallel or multiple output was a wrong count).

    The bare category name does not say which checker an entry needs: a ValueError says what to pass.
    """
    if not category.startswith(_FORMAT_SENSITIVITY):
        return category
    from ek.bfcl.variation import prompt_variation  # loaded only for this category

    variation = prompt_variation(category)
    if variation is None:
        raise ValueError(f"category {category!r}: a format-sensitivity entry is checked as its original question "
                         f"(simple, multiple, parallel...): pass that question's category or id (the last part of "
                         f"the entry's id, such as 'parallel_multiple_5'), or the entry's whole id")
    return variation.original_id


# The wrong-count verdicts never vary: built once (a Verdict is frozen, so one object serves every check).
_WRONG_COUNT_SIMPLE = _fail("simple_function_checker:wrong_count", "Wrong number of functions.")
_WRONG_COUNT_MULTIPLE = _fail("multiple_function_checker:wrong_count", "Wrong number of functions.")
_WRONG_COUNT_PARALLEL = _fail("parallel_function_checker_no_order:wrong_count", "Wrong number of functions.")


def _expected_calls(kind: str, answers: list[Mapping[str, Any]]) -> int:
    """How many calls an entry of ``kind`` expects: one for a simple entry, one per answer for the others,
    -1 for a relevance entry (any number: it only asks whether calls came)."""
    return -1 if kind is _RELEVANCE else 1 if kind is _SIMPLE else len(answers)


def _wrong_count(items: list[Any], kind: str, expected: int) -> Verdict | None:
    """The wrong-count verdict of an output in BFCL's decoded form that holds not the ``expected`` number of
    calls (:func:`_expected_calls`), before any value of it is read; else None.

    BFCL's ``ast_checker`` takes that form and compares the number of calls first, so a wrong number is
    the verdict whatever the calls hold (a value JSON cannot hold, arguments that are not an object).
    BFCL's decoded form is told by its shape alone: a list of one-key ``dict`` s, each key a non-empty
    ``str`` (a function name), so that each item is one call. Any other list (steps, OpenAI or Anthropic
    objects, mappings of other types) is read first, as before: its number of calls is known only then.
    """
    if expected < 0 or len(items) == expected or _named_items(items) is None:
        return None
    return _WRONG_COUNT_PARALLEL if kind is _PARALLEL else _WRONG_COUNT_MULTIPLE if kind is _MULTIPLE \
        else _WRONG_COUNT_SIMPLE


def _relevance(category: str, *, has_calls: bool, detail: str) -> Verdict:
    if expects_no_call(category):
        if has_calls:
            return _fail("irrelevance_error:decoder_success", "Valid syntax. Successfully decode AST when it should not.")
        return OK
    if not has_calls:
        return _fail("relevance_error:decoder_failed",
                     f"Invalid syntax. Failed to decode AST when it should have. {detail}".strip())
    return OK


class _Context:
    """How calls of one check are read: the language's type table, and whether names had ``.`` -> ``_``.

    A slotted class, not a NamedTuple: the checker reads these per parameter,
    and a slot is read faster than a NamedTuple's field.
    """

    __slots__ = ("language", "python", "table", "underscore_to_dot")

    def __init__(self, language: str, underscore_to_dot: bool, table: Mapping[str, type], python: bool) -> None:
        self.language, self.underscore_to_dot, self.table, self.python = language, underscore_to_dot, table, python


#: The six contexts, built once (a check picks one instead of building it): ``_CONTEXTS[to_dot][language]``
#: (two lookups, no key tuple built per check).
_CONTEXTS = {to_dot: {language: _Context(language, to_dot, types_for(language), language == PYTHON)
                      for language in (PYTHON, JAVA, JAVASCRIPT)} for to_dot in (False, True)}


def _functions(functions: Any) -> list[Mapping[str, Any]]:
    """The entry's function schemas, each checked to have a name (parameters: when a call is checked)."""
    if type(functions) is not list and isinstance(functions, Mapping):
        functions = functions["function"] if "function" in functions else [functions]
    if type(functions) is not list:
        if not isinstance(functions, Sequence) or isinstance(functions, str):
            raise ValueError(f"functions must be a list of function objects (or a question entry), "
                             f"got {type(functions).__name__}")
        functions = list(functions)
    for func in functions:
        if type(func) is not dict and not isinstance(func, Mapping) or type(func.get("name")) is not str:
            i = next(i for i, f in enumerate(functions) if f is func)
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


_NO_PARAMETERS: dict[str, Any] = {}  # read only: the defaults of _plain_parameters, never handed out to change
_NO_REQUIRED: list[Any] = []


def _plain_parameters(func: Mapping[str, Any]) -> tuple[Mapping[str, Any], list[Any]]:
    """Fast path: :func:`_parameters`' ``properties`` and ``required`` when the schema is plain JSON (dicts, a list).

    Skips the general function's building of three results and its
    ``isinstance`` checks. Safe: a plain schema passes them, and gives the
    same two values (absent parts read as empty); anything else goes through
    ``_parameters``, which raises as before.
    """
    params = func.get("parameters", _NO_PARAMETERS)
    if type(params) is dict:
        details = params.get("properties", _NO_PARAMETERS)
        required = params.get("required", _NO_REQUIRED)
        if type(details) is dict and type(required) is list:
            return details, required
    _, details, required = _parameters(func)
    return details, required


_ANSWER_SHAPE = "{func_name: {param: [values]}}"


def _answers(possible_answer: Any, category: str) -> list[Mapping[str, Any]]:
    """The entry's ground truth, checked to be BFCL's shape (one function per item, lists of values)."""
    if type(possible_answer) is list and possible_answer and _plain_answers(possible_answer):
        return possible_answer
    if type(possible_answer) is not list and isinstance(possible_answer, Mapping):
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
        for options in params.values():
            if type(options) is not list:
                param = next(p for p, o in params.items() if type(o) is not list)
                raise ValueError(f"possible_answer[{i}][{name!r}][{param!r}] must be a list of acceptable values, "
                                 f"got {params[param]!r:.100}")
    return possible_answer if type(possible_answer) is list else list(possible_answer)


def _plain_answers(possible_answer: list[Any]) -> bool:
    """Fast path: every item a one-key ``dict`` of a ``dict`` of ``list`` s (JSON-decoded answers always are).

    Skips the general walk of :func:`_answers`, which also accepts other
    mappings and sequences and names what is wrong. Safe: what passes here
    passes there unchanged (a non-empty list is returned as it is); anything
    else, the ValueErrors included, goes through the general walk.
    """
    for call in possible_answer:
        if type(call) is not dict or len(call) != 1:
            return False
        name, = call  # the one key (unpacking the dict builds no view)
        params = call[name]
        if type(params) is not dict:
            return False
        for options in params.values():
            if type(options) is not list:
                return False
    return True


def _only_key(answer: Mapping[str, Any]) -> str:
    return next(iter(answer))


def _find(funcs: list[Mapping[str, Any]], name: str) -> Mapping[str, Any]:
    for func in funcs:
        if func.get("name") == name:
            return func
    raise ValueError(f"possible answer names function {name!r}, which the entry does not define")


#: One call as the checker reads it: ``(name, args)``.
_Call = tuple[str, Mapping[str, Any]]


def _decode(model_output: Any, language: str = PYTHON) -> list[_Call] | ParseError:
    """Model output -> calls; a ParseError is returned (not raised): it is a verdict, not a crash."""
    if type(model_output) is list and (not model_output or type(model_output[0]) is dict):
        # BFCL's decoded form first (not a list of steps, as its first item is a dict; [] is no call either way).
        try:
            fast = _decoded_bfcl(model_output)
        except ParseError as exc:
            return exc
        if fast is not None:
            return fast
    elif isinstance(model_output, list) and all(isinstance(s, Step) for s in model_output):
        return _calls(model_output)
    try:
        if isinstance(model_output, bytes | bytearray):
            model_output = _utf8(bytes(model_output))
        if isinstance(model_output, str) and language in (JAVA, JAVASCRIPT):
            return _calls(javalike.decode_calls(model_output, language))
        if isinstance(model_output, str):  # BFCL output: Python calls or its one-key JSON objects, cleaned as BFCL does
            return _calls(parse_calls(bfcl_cleaned(model_output), "bfcl"))
        return _calls(parse_calls(model_output, "bfcl"))
    except ParseError as exc:
        return exc


def _calls(steps: list[Step]) -> list[_Call]:
    return [(step.name, step.args) for step in steps]


def _utf8(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ParseError(f"invalid UTF-8: {exc.reason} (byte {data[exc.start]:#04x})", f"byte {exc.start}",
                         "bfcl") from None


def _decoded_bfcl(items: list[Any]) -> list[_Call] | None:
    """BFCL's decoded ``[{"func": {...}}]`` read directly (values still checked); None: take the general path.

    Fast path: when every item is a one-key ``dict`` of a ``str`` name and a
    ``dict`` of arguments, and all arguments are already plain JSON-like data
    within the limits (:func:`~ek.parsing.values.calls_already_plain`, one
    walk for the whole output), the calls are used as they are. Skips the
    per-call checks of :func:`_decoded_items`. Safe: those checks accept
    exactly such an output and return the same calls; anything else
    (another shape, a value to convert or refuse) goes through
    ``_decoded_items``, which sees it item by item, as before.
    """
    calls = _named_items(items)  # arguments that are not a dict: calls_already_plain says so
    if calls is not None and calls_already_plain(calls, DEFAULT_LIMITS):
        return calls
    return _decoded_items(items)


def _named_items(items: list[Any]) -> list[_Call] | None:
    """The items of an output in BFCL's decoded form as ``(name, arguments)``, each a one-key ``dict`` whose
    key is a non-empty ``str`` (the function's name); None when an item is not (the output is in another
    form, or not one at all). The arguments are not read."""
    calls: list[_Call] = []
    append = calls.append
    for item in items:
        if type(item) is not dict or len(item) != 1:
            return None
        name, = item  # the one key: unpacking the dict and one lookup allocate less than item.items()
        if type(name) is not str or not name:
            return None
        append((name, item[name]))
    return calls


def _decoded_items(items: list[Any]) -> list[_Call] | None:
    """:func:`_decoded_bfcl` item by item, each item's arguments checked before the next item is read.

    Arguments that are already plain JSON-like data within the limits are used
    as they are (:func:`~ek.parsing.values.already_plain`): the checker only
    reads them, so the copy :func:`~ek.parsing.values.plain_args` makes would be
    equal and unused. Anything else goes through ``plain_args``, which converts
    it or raises the ParseError at its path.
    """
    calls: list[_Call] = []
    append = calls.append
    for item in items:
        if type(item) is not dict or len(item) != 1:
            return None
        name, = item
        args = item[name]
        if type(name) is not str or not name or type(args) is not dict:
            return None
        if not already_plain(args, DEFAULT_LIMITS):
            args = plain_args(args, f"$[{len(calls)}][{name!r}]", DEFAULT_LIMITS, "bfcl")
        append((name, args))
    return calls


def _parallel(checkers: list[_CallCheck], fast: bool, calls: list[_Call],
              answers: list[Mapping[str, Any]]) -> Verdict:
    """Any order: the calls (as many as the answers) assigned to the answers, ``checkers[i]`` judging answer ``i``.

    ``fast``: the entry is well-formed (:func:`_well_formed`), so the shortcuts below may be taken.
    """
    if not fast:
        return _matched(checkers, fast, calls, answers, {})
    misfit = _in_order(checkers, calls)
    if misfit is None:
        return OK
    first, own = misfit
    row = _row_fitting_nothing(first, checkers[first], calls, own)
    if row is not None:
        return _no_match(first, answers, row)
    return _matched(checkers, fast, calls, answers, {(first, first): own})


def _matched(checkers: list[_CallCheck], fast: bool, calls: list[_Call], answers: list[Mapping[str, Any]],
             verdicts: dict[tuple[int, int], Verdict]) -> Verdict:
    """The general path of :func:`_parallel`: a maximum matching (``verdicts``: pairs already checked).

    Fast path (well-formed entries, ``fast``): calls of the same content are checked once per answer
    (:func:`_call_classes`), and the matching may ask pairs in any order (``max_matching``'s ``any_order``),
    so that many interchangeable answers and calls cost the square of their number, not its cube (an output
    of n - 1 right calls and one fitting no answer, for n answers alike: for n = 400, 1.9 s before, 0.03 s
    after, BFCL's first fit 0.08 s). Safe: a
    check is a pure function of the answer and the call's content (a call's values are plain JSON data, told
    apart by ``repr``, which writes each type its own way), and of a well-formed entry it never raises; the
    matching leaves the same answers unmatched in any order, and the no-match row holds the verdicts of
    calls of the same content, whose messages read the same.
    """
    classes = _call_classes(calls) if fast else None
    by_class: dict[tuple[int, Any], Verdict] = {}

    def verdict(i: int, j: int) -> Verdict:
        """Answer ``i`` against call ``j``, checked once (the matching and the message both ask)."""
        if classes is not None:
            key = (i, classes[j])
            found = by_class.get(key)
            if found is None:
                found = verdicts.get((i, j))  # (a pair checked before the matching)
                by_class[key] = found = checkers[i](calls[j]) if found is None else found
            return found
        found = verdicts.get((i, j))
        if found is None:
            found = verdicts[i, j] = checkers[i](calls[j])
        return found

    size = len(calls)
    unmatched = _first_without_fit(size, verdict) if fast else None
    before = len(answers) if unmatched is None else unmatched
    assignment = max_matching(before, size, lambda i, j: verdict(i, j).valid, any_order=fast) if before else []
    first = next((i for i, matched in enumerate(assignment) if matched is None), unmatched)
    if first is None:
        return OK
    return _no_match(first, answers, [verdict(first, j) for j in range(size)])


def _call_classes(calls: list[_Call]) -> list[Any]:
    """Each call's class: calls of the same content (name and plain arguments, their ``repr``, which tells
    each JSON type apart: ``1``, ``1.0`` and ``True``) share one; a call whose arguments are not plain data
    has a class of its own (its position)."""
    classes: list[Any] = []
    for j, (name, args) in enumerate(calls):
        classes.append(repr((name, args)) if type(args) is dict and already_plain(args, DEFAULT_LIMITS) else j)
    return classes


def _no_match(first: int, answers: list[Mapping[str, Any]], row: list[Any]) -> Verdict:
    """Answer ``first`` is the first left unmatched; ``row``: its verdict (or :func:`_failure`) against each call."""
    return _failed("parallel_function_checker_no_order:cannot_find_match",
                   "Could not find a matching function call for index {0} of possible answers ({1}) "
                   "in any complete assignment. {2!w}", first, next(iter(answers[first])), row)


def _reasons(row: list[Any]) -> str:
    """Why each model call failed one answer (``row``: its verdicts, or :func:`_failure` s), joined as the
    message shows it."""
    return "; ".join(f"model call {j}: {v[0]}: {_MESSAGES.format(v[1], *v[2])}" if type(v) is tuple
                     else f"model call {j}: {v.error_type}: {v.message}" for j, v in enumerate(row))


def _in_order(checkers: list[_CallCheck], calls: list[_Call]) -> tuple[int, Verdict] | None:
    """Fast path: every call fits the answer at its own index (None), so a complete assignment exists.

    Skips the matching, which asks each answer about every earlier call first
    (quadratic on outputs already in order, as most are). Safe: the identity
    is a complete assignment, so the matching would find one and return OK.
    Otherwise the first index whose call does not fit its answer, and that
    verdict (should the matching run, it checks the others again: checking
    is pure, so it finds the same verdicts). Taken for well-formed entries
    only (see :func:`_well_formed`).
    """
    i = 0
    for checker, call in zip(checkers, calls):
        verdict = checker(call)
        if not verdict.valid:
            return i, verdict
        i += 1
    return None


def _row_fitting_nothing(misfit: int, checker: _CallCheck, calls: list[_Call], own: Verdict) -> list[Any] | None:
    """Fast path: answer ``misfit`` (the first not fitting its own call) against every call, if it fits none.

    Skips :func:`_first_without_fit` (which asks every earlier answer about
    the calls before its own) and the matching. Safe: the answers before
    ``misfit`` fit their own calls, so the matching (Kuhn's, answers in
    order, never unmatching one) matches all of them and then fails on
    ``misfit``, which no call fits; that is the first unmatched answer it
    reports, and its message shows this same row of verdicts. None as soon
    as one call fits (then the general path decides). Taken for well-formed
    entries only (see :func:`_well_formed`), as pairs are then checked in any
    order with the same verdicts. ``checker``: the answer's call checker;
    ``own``: its verdict on call ``misfit``. A compiled checker builds the
    failures it builds itself as :func:`_failure` s, which the row keeps.
    """
    compiled = checker.__self__ if type(checker) is MethodType else None  # a _CompiledCall's check
    row: list[Any] = []
    for j, call in enumerate(calls):
        if j == misfit:
            verdict = own
        elif compiled is not None:
            verdict = compiled.check(call, _failure)
            if type(verdict) is tuple:
                row.append(verdict)
                continue
        else:
            verdict = checker(call)
        if verdict.valid:
            return None
        row.append(verdict)
    return row


def _failure(error_type: str, template: str, *values: Any) -> tuple[str, str, tuple[Any, ...]]:
    """Fast path: a failure of a parallel no-match's row as ``(error_type, template, values)``, not a verdict.

    Skips building a :class:`Verdict` (an object and its dict) for each call
    that the first unmatched answer does not fit: the row is only read by
    the no-match message (:func:`_reasons`). Safe: the message formats the
    same template with the same values as the verdict's ``message`` would,
    and a failure is never valid, as the verdict would not be.
    """
    return error_type, template, values


def _first_without_fit(size: int, verdict: Callable[[int, int], Verdict]) -> int | None:
    """Fast path: the first answer that no call fits (None: each has one), so the matching stops before it.

    The matching (Kuhn's) takes answers in order and never unmatches one, so
    the first answer it leaves unmatched is the first whose prefix of answers
    cannot all be matched. An answer no call fits is such a prefix's end: the
    answers after it cannot change the verdict, and the matching needs to run
    on those before it only (its result for them is the same; the message
    names the first unmatched). Taken for well-formed entries only.
    """
    for i in range(size):
        if not any(verdict(i, j).valid for j in range(size)):
            return i
    return None


def _well_formed(funcs: list[Mapping[str, Any]]) -> bool:
    """Whether checking a call against any of ``funcs`` can only return a verdict, never raise.

    The order in which (answer, call) pairs are checked then cannot change a
    verdict, which the fast paths of :func:`_parallel` rely on. A schema with a
    malformed part (raising when a call reaches it, as documented) is checked
    in the matching's own order, as before.
    """
    previous = None
    for func in funcs:
        if func is previous:
            continue  # parallel answers often call one function several times
        previous = func
        params = func.get("parameters", _NO_PARAMETERS)
        if type(params) is not dict:
            return False
        details, required = params.get("properties", _NO_PARAMETERS), params.get("required", _NO_REQUIRED)
        if type(details) is not dict or type(required) is not list:
            return False
        for param in required:
            if type(param) is not str:
                return False
        for detail in details.values():
            if type(detail) is not dict or type(detail.get("type", "any")) is not str:
                return False
            items = detail.get("items")
            if items is not None and (type(items) is dict and type(items.get("type", "")) is not str
                                      or type(items) is not dict and isinstance(items, Mapping)):
                return False
    return True


def _schema_problem(func: Mapping[str, Any]) -> str | None:
    """What is wrong with one function's schema, where, for the checker (None: nothing it reads is malformed).

    It reads ``parameters`` (an object), its ``properties`` (an object of objects, each ``type`` a string: a
    type name; its ``items``, when an object, with a string ``type``) and ``required`` (a list of names). A
    schema with none of these faults is what :func:`_well_formed` passes (for plain JSON data, its fast path);
    one with a fault gives a verdict until a check reaches the fault, which then raises the ValueError saying
    this (:func:`_entry_error`). ``"type": ["string", "null"]``, JSON Schema's union, is such a fault: BFCL's
    types are names.
    """
    try:
        _, details, required = _parameters(func)
    except ValueError as exc:
        return str(exc)
    name = func["name"]
    for k, param in enumerate(required):
        if type(param) is not str:
            return f"function {name!r}: parameters.required[{k}] must be a parameter's name (a string), " \
                   f"got {_show(param, 100)}"
    for param, detail in details.items():
        where = f"function {name!r}: parameters.properties[{param!r}]"
        if not isinstance(detail, Mapping):
            return f"{where} must be an object (the parameter's schema), got {_show(detail, 100)}"
        type_name = detail.get("type", "any")
        if type(type_name) is not str:
            return f"{where}.type must be a string (one type name, as BFCL writes them), got {_show(type_name, 100)}"
        items = detail.get("items")
        if isinstance(items, Mapping) and type(items.get("type", "")) is not str:
            return f"{where}.items.type must be a string (one type name, as BFCL writes them), " \
                   f"got {_show(items.get('type'), 100)}"
    return None


def _entry_error(exc: Exception, functions: Any, possible_answer: Any, category: str) -> BaseException:
    """The ValueError for an entry whose malformed part a check reached (it raised ``exc``: a TypeError, an
    AttributeError, ...): what is wrong, and where (:func:`_schema_problem`, or no function to check a call
    against). ``exc`` itself when the entry has no such fault (then it came from elsewhere: not reworded)."""
    funcs = _functions(functions)
    answers = _answers(possible_answer, category)
    if not funcs and answers and _route(category)[1] is not _RELEVANCE:
        return ValueError("functions is empty: the entry defines no function to check the calls against")
    for func in funcs:
        problem = _schema_problem(func)
        if problem is not None:
            return ValueError(problem)
    return exc


#: One answer's call checker: a call -> its verdict (:func:`_call_check` builds them).
_CallCheck = Callable[[_Call], Verdict]


def _call_checker(func: Mapping[str, Any], answer: Mapping[str, Any], ctx: _Context, call: _Call,
                  fail: Callable[..., Any] = _failed) -> Any:
    """BFCL's ``simple_function_checker`` for one call: :data:`OK` or a failure.

    ``fail`` builds the failures this function and :func:`_typed_scalar` build themselves (the others are
    verdicts): :func:`_failed`, or in a parallel no-match's row :func:`_failure` (see there).
    """
    for key in answer:  # the one key (a loop binds it faster than next(iter(...)); the dict itself: no view built)
        break
    possible = answer[key]
    name = _expected_name(func, ctx)
    got, args = call
    if got != name:
        return fail("simple_function_checker:wrong_func_name", _WRONG_NAME, name)
    details, required = _plain_parameters(func)
    for param in required:
        if param not in args:
            return fail("simple_function_checker:missing_required", _MISSING_REQUIRED, param)
    python = ctx.python
    for param, value in args.items():
        if param not in details or param not in possible:
            return fail("simple_function_checker:unexpected_param", _UNEXPECTED, param)
        detail, alternatives = details[param], possible[param]
        if python and type(detail) is dict:
            kind = type(value)
            type_name = detail.get("type", "any")
            # An unhashable type name raises here the TypeError _check_param's table.get raises on it otherwise.
            if _SCALAR_TYPES.get(type_name) is kind:
                # The fast path of _listed_as_is, inline: most values are scalars, most answers list one value.
                if len(alternatives) == 1 and type(alternatives[0]) is kind and alternatives[0] == value \
                        or _scalar_listed(value, kind, alternatives):
                    continue
                verdict = _typed_scalar(param, value, kind, alternatives, fail)
                if verdict is not OK:  # a failure (a valid verdict of its is OK)
                    return verdict
                continue
            if _listed_as_is(value, detail, alternatives):
                continue
        verdict = _check_param(param, value, detail, alternatives, ctx)
        if not verdict.valid:
            return verdict
    if len(possible) > len(args):  # else each answer parameter was given (every argument is one of them)
        for param, alternatives in possible.items():
            if param not in args and "" not in alternatives:
                return fail("simple_function_checker:missing_optional", _MISSING_OPTIONAL, param)
    return OK


def _expected_name(func: Mapping[str, Any], ctx: _Context) -> str:
    name: str = func["name"]
    return underscored_name(name) if ctx.underscore_to_dot and "." in name else name


def _wrong_name(name: str) -> Verdict:
    return _failed("simple_function_checker:wrong_func_name", _WRONG_NAME, name)


def _missing_required(param: Any) -> Verdict:
    return _failed("simple_function_checker:missing_required", _MISSING_REQUIRED, param)


def _missing_optional(param: Any) -> Verdict:
    return _failed("simple_function_checker:missing_optional", _MISSING_OPTIONAL, param)


_WRONG_NAME = "Function name {0!r} not found in model output."
_MISSING_REQUIRED = "Missing required parameter: {0!r}."
_MISSING_OPTIONAL = "Optional parameter {0!r} not provided and not marked as optional."


def _call_check(func: Mapping[str, Any], answer: Mapping[str, Any], ctx: _Context,
                well_formed: bool | None = None) -> _CallCheck:
    """The checker of calls against one answer: compiled (:class:`_CompiledCall`) where it applies, else general."""
    built = _CompiledCall.build(func, answer, ctx, well_formed)
    if built is not None:
        return built.check
    return functools.partial(_call_checker, func, answer, ctx)


class _CompiledCall:
    """Fast path (Python): :func:`_call_checker` for one answer, with its schema and values read once.

    Built once per answer of a prepared entry. Skips, per call: reading the
    schema (name, ``required``, each parameter's declared type), the
    answer's alternatives, and building the verdicts that depend on the
    entry only (a wrong name, a missing parameter: built once, shared). An
    argument whose value has exactly the type its parameter declares
    (``str``, ``int``, ``float``, ``bool``) is judged by one lookup in the
    set of acceptable values (:func:`_slot`): in it, accepted; not in it,
    the failure ``_call_checker`` would give. A value of another type that
    is not the answers' type either (a "variable") fails the type check, as
    in :func:`ek.bfclvalues.type_failure` (an int for a float is left out: Python converts it).
    Anything else takes ``_call_checker``'s per-value path. Safe: the checks
    run in ``_call_checker``'s order with its verdicts, and a set accepts
    exactly what it accepts for such a value (see ``_slot``). Built
    only for well-formed schemas (:func:`_well_formed`: nothing in them
    raises) and plain answers (a ``dict`` of lists of JSON values); others
    keep the general path.
    """

    __slots__ = ("ctx", "missing", "must", "name", "required", "slots", "wrong_name")

    def __init__(self, name: str, required: list[str], slots: dict[str, _Slot], must: list[str],
                 ctx: _Context) -> None:
        self.name, self.slots, self.ctx = name, slots, ctx
        self.required, self.must = tuple(required), tuple(must)
        self.wrong_name = _wrong_name(name)  # the verdicts that depend on the entry only: built once, then shared
        self.missing: dict[tuple[bool, str], Verdict] = {}  # (required?, param) -> its verdict, built when met

    @classmethod
    def build(cls, func: Mapping[str, Any], answer: Mapping[str, Any], ctx: _Context,
              well_formed: bool | None = None) -> _CompiledCall | None:
        """The compiled checker, or None where it does not apply; ``well_formed``: :func:`_well_formed` of ``func``."""
        if not ctx.python or type(answer) is not dict:
            return None
        if not (_well_formed([func]) if well_formed is None else well_formed):
            return None
        for possible in answer.values():
            break
        if type(possible) is not dict:
            return None
        for alternatives in possible.values():
            if type(alternatives) is not list or not _JSON_TYPES.issuperset(map(type, alternatives)):
                return None
        details, required = _plain_parameters(func)
        slots = {param: _slot(details[param], possible[param]) for param in possible if param in details}
        must = [param for param, alternatives in possible.items() if "" not in alternatives]
        return cls(_expected_name(func, ctx), required, slots, must, ctx)

    def check(self, call: _Call, fail: Callable[..., Any] = _failed) -> Any:
        """The verdict on ``call``; ``fail`` builds the failures this method builds itself (the others are
        verdicts): :func:`_failed`, or in a parallel no-match's row :func:`_failure` (see there)."""
        got, args = call
        if got != self.name:
            return self.wrong_name
        for param in self.required:
            if param not in args:
                return self._missing(True, param)
        slots = self.slots
        for param, value in args.items():
            slot = slots.get(param)
            if slot is None:  # the failures here (unexpected, not among ...): each built without a function
                return fail("simple_function_checker:unexpected_param", _UNEXPECTED, param)
            kind, raw, std, detail, alternatives = slot
            if type(value) is kind:
                if value in raw:
                    continue
                if std is None:
                    return fail("value_error:others", _NOT_AMONG, param, value, alternatives)
                if standardize(value) in std:
                    continue
                return fail("value_error:string", _NOT_AMONG_STRINGS, param, value, alternatives)
            if kind is not None and type(value) is not _answer_type(alternatives) \
                    and not (kind is float and type(value) is int):  # what type_failure finds for it (no conversion)
                return fail("type_error:simple", _WRONG_TYPE, param, detail["type"], type(value).__name__, value)
            # Not a scalar of its declared type (a list, a dict, a "variable", an int for a float): what
            # _call_checker does with it is _listed_as_is, else _check_param (its scalar branch needs one).
            if _listed_as_is(value, detail, alternatives):
                continue
            verdict = _check_param(param, value, detail, alternatives, self.ctx)
            if not verdict.valid:
                return verdict
        for param in self.must:
            if param not in args:
                return self._missing(False, param)
        return OK

    def _missing(self, required: bool, param: str) -> Verdict:
        """A missing parameter's verdict (``required``: from the schema, else from the answer), built once."""
        verdict = self.missing.get((required, param))
        if verdict is None:
            verdict = self.missing[required, param] = (_missing_required if required else _missing_optional)(param)
        return verdict


#: A parameter as :class:`_CompiledCall` checks it: ``(kind, raw, std, detail, alternatives)``.
_Slot = tuple[type | None, frozenset[Any], frozenset[str] | None, Any, list[Any]]


def _slot(detail: dict[str, Any], alternatives: list[Any]) -> _Slot:
    """A parameter's accepted values of its declared scalar type, as sets (``kind`` None: no value is taken so).

    A value ``v`` with ``type(v) is kind`` is accepted by :func:`_call_checker`
    exactly when ``v in raw or standardize(v) in std`` (``std`` None: not
    asked). For ``str``, not a "variable" (the answers' type is ``str`` or
    unknown): ``raw`` the string alternatives, ``std`` them standardised (BFCL
    compares strings standardised; an equal string is equal standardised).
    Otherwise the alternatives ``==`` to such a value under :func:`ek.bfclvalues.same`: for an
    ``int`` or ``float`` the finite non-``bool`` numbers (``1 == 1.0``, and a
    set finds them by their equal hashes), for a ``bool`` the bools, for a
    ``str`` variable the strings.
    """
    kind = PYTHON_TYPES.get(detail.get("type", "any"))
    if kind is str:
        strings = frozenset(alt for alt in alternatives if type(alt) is str)
        answer_type = _answer_type(alternatives)
        if answer_type is None or answer_type is str:
            return kind, strings, frozenset(map(standardize, strings)), detail, alternatives
        return kind, strings, None, detail, alternatives
    if kind is int or kind is float:
        numbers = frozenset(alt for alt in alternatives if (type(alt) is int or type(alt) is float)
                            and -_INF < alt < _INF)
        return kind, numbers, None, detail, alternatives
    if kind is bool:
        return kind, frozenset(alt for alt in alternatives if type(alt) is bool), None, detail, alternatives
    return None, frozenset(), None, detail, alternatives


_INF = float("inf")


#: The types a JSON document's values have; an answer of other types takes the general path.
_JSON_TYPES = frozenset({str, int, float, bool, type(None), list, dict})
_SCALARS = frozenset({str, int, float, bool})
#: PYTHON_TYPES, bound here rather than imported: CPython 3.11 compiles a method call on a name a module
#: imports (``PYTHON_TYPES.get(...)``) as an attribute load, which builds a bound method at every call.
_PYTHON_TYPES: dict[str, type] = PYTHON_TYPES
#: The type names of the scalar types (``_SCALAR_TYPES.get(name) is type(value)``: a scalar of its declared type).
_SCALAR_TYPES: dict[str, type] = {name: kind for name, kind in PYTHON_TYPES.items() if kind in _SCALARS}


def _scalar_listed(value: Any, kind: type, alternatives: list[Any]) -> bool:
    """:func:`_listed_as_is` for a str, int, float or bool ``value`` already of its declared type."""
    found = False
    for alt in alternatives:
        alt_kind = type(alt)
        if alt_kind is kind:
            if alt == value:
                found = True
        elif alt_kind not in _JSON_TYPES:
            return False
    return found


def _typed_scalar(param: str, value: Any, kind: type, alternatives: list[Any],
                  fail: Callable[..., Any] = _failed) -> Any:
    """Fast path (Python): :func:`_check_param` for a str, int, float or bool ``value`` of its declared type.

    Skips the general path's reading of the declared type (known to map to
    ``kind``; scalars have no item type, no conversion applies) and its type
    check, which passes such a value, as a "variable" exactly when the
    answers' type is another. What remains is what ``_check_param`` then
    does: a string that is not a variable is compared after standardisation,
    anything else with ``in``. Nothing that can raise is skipped. ``fail``
    builds the failure (see :func:`_call_checker`).
    """
    if kind is str:
        answer_type = _answer_type(alternatives)
        if answer_type is None or answer_type is str:
            failure = string_failure(param, value, alternatives, fail)
            return OK if failure is None else failure
    if _contains(alternatives, value):
        return OK
    return fail("value_error:others", _NOT_AMONG, param, value, alternatives)


# The templates of the failures _CompiledCall.check builds itself (one call fewer per failure than the functions).
_UNEXPECTED = "Unexpected parameter: {0!r}."


def _listed_as_is(value: Any, detail: dict[str, Any], alternatives: list[Any]) -> bool:
    """Fast path (Python): ``value`` has exactly its declared type and is, type for type, an acceptable value.

    Skips the type checker and the string, list and ``in`` comparisons of
    :func:`_check_param`. Safe because each of them accepts such a value: the
    declared type matches (items too, for a list of scalars), and an equal
    alternative of the same type passes the string standardisation, the list
    comparison and Python's ``in`` alike. Only exact types of JSON data are
    taken (no int for a float, no bool for an int, no dicts); anything else,
    or an answer holding non-JSON objects, goes through ``_check_param``.
    """
    kind = type(value)
    type_name = detail.get("type", "any")
    if type(type_name) is not str or _PYTHON_TYPES.get(type_name) is not kind:
        return False
    if kind is list:
        if not _plain_items(value, detail):
            return False
        found = False
        for alt in alternatives:
            alt_kind = type(alt)
            if alt_kind not in _JSON_TYPES:
                return False
            if not found and alt_kind is list and len(alt) == len(value):
                found = True  # unless a pair differs (in type first: value's items are scalars, alt's anything)
                for a, v in zip(alt, value):
                    if type(a) is not type(v) or a != v:
                        found = False
                        break
        return found
    if kind is dict:
        return False
    found = False
    for alt in alternatives:
        alt_kind = type(alt)
        if alt_kind not in _JSON_TYPES:
            return False
        if alt_kind is kind and alt == value:
            found = True
    return found


def _plain_items(value: list[Any], detail: dict[str, Any]) -> bool:
    """Every item a scalar that passes BFCL's nested type check (``items.type``, an int for a float)."""
    items = detail.get("items")
    # a dict told by its type first: isinstance against the Mapping ABC runs Python code (abc's __instancecheck__)
    item_type = items.get("type") if type(items) is dict or items is not None and isinstance(items, Mapping) \
        else None
    if item_type is not None and type(item_type) is not str:
        return False
    nested = _PYTHON_TYPES.get(item_type) if item_type else None
    if nested is not None and nested not in _SCALARS:
        return False
    for item in value:
        kind = type(item)
        if kind not in _SCALARS or (nested is not None and kind is not nested
                                    and not (nested is float and kind is int)):
            return False
    return True


def _check_param(param: str, value: Any, detail: Mapping[str, Any], possible: list[Any], ctx: _Context) -> Verdict:
    type_name = detail.get("type", "any")
    table = ctx.table
    expected = table.get(type_name)
    if expected is None:
        return _failed("type_error:simple",
                       "Parameter {0!r} has type {1!r}, which BFCL does not define.", param, type_name)
    items = detail.get("items")
    item_type = None if items is None else items.get("type") if isinstance(items, Mapping) else None
    nested_names = NESTED_PYTHON if ctx.language == PYTHON else NESTED_JAVALIKE
    nested = table.get(item_type) if type_name in nested_names and item_type else None
    if ctx.language in (JAVA, JAVASCRIPT):
        if not isinstance(value, str):
            kind = "java" if ctx.language == JAVA else "js"
            return _failed(f"type_error:{kind}", "Incorrect type for parameter {0!r}. Expected type String, "
                                                 "got {1}. Parameter value: {2!v}.", param, type(value).__name__, value)
        value = javalike.source_value(value, detail, ctx.language)
    if type_name == "float" and type(value) is int and ctx.language == PYTHON:
        value = float(value)
    failure = value_failure(param, value, possible, type_name, expected, nested, _failed)
    return OK if failure is None else failure
