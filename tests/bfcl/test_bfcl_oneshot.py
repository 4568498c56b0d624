"""ek.bfcl.check's one-shot fast paths held to its general path, on generated entries and outputs.

``check(functions, output, answer, category)`` checks a one-item output for an entry expecting one
call as that call (``_plain_call``), reads an output in BFCL's decoded form once (``_bfcl_form``: the
wrong count, or the calls), finds each parallel answer's function once per run of answers naming it
(``_funcs_for``) and checks parallel calls in order before building a checker per answer, a no-match
row's failures kept as templates (``_parallel_unprepared``); the general path is ``_wrong_count`` then
``_decode``, ``_find`` per answer, and the checkers built first. Here ``check`` is run both ways, on the
generated entries of test_bfcl_prepared (odd outputs included: empty or non-string names, arguments that are not a dict,
non-JSON values, wrong numbers of calls), and each fast path is compared with what it replaces.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

import pytest
import test_bfcl_prepared as prepared_tests  # the same generated entries and outputs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ek.bfcl import check, checker
from ek.parsing import ParseError

CATEGORIES = ("simple", "multiple", "parallel", "parallel_multiple", "relevance", "irrelevance")


def _general_funcs_for(funcs: list[Any], answers: list[Any]) -> list[Any]:
    return [checker._find(funcs, checker._only_key(answer)) for answer in answers]


def _general_parallel(funcs: list[Any], answers: list[Any], ctx: Any, calls: list[Any]) -> Any:
    """A parallel entry's verdict with every answer's checker built first, then ``_parallel`` (in order there)."""
    funcs_for = checker._funcs_for(funcs, answers)
    fast = ctx.python and checker._well_formed(funcs_for)
    checkers = [functools.partial(checker._call_checker, func, answer, ctx) for func, answer in zip(funcs_for, answers)]
    return checker._parallel(checkers, fast, calls, answers)


@contextmanager
def general_path() -> Iterator[None]:
    """``check`` without its one-shot fast paths: no one-item output checked as its call, no decoded form read at
    once, every answer's function found, every parallel answer's checker built before any call is checked."""
    with mock.patch.object(checker, "_plain_call", lambda item: None), \
            mock.patch.object(checker, "_bfcl_form", lambda items, kind, answers: None), \
            mock.patch.object(checker, "_funcs_for", _general_funcs_for), \
            mock.patch.object(checker, "_parallel_unprepared", _general_parallel):
        yield


def both_ways(functions: Any, output: Any, truth: Any, category: str, underscore_to_dot: bool = False) -> None:
    fast = prepared_tests.outcome(lambda: check(functions, copy.deepcopy(output), truth, category,
                                                underscore_to_dot=underscore_to_dot))
    with general_path():
        general = prepared_tests.outcome(lambda: check(functions, copy.deepcopy(output), truth, category,
                                                       underscore_to_dot=underscore_to_dot))
    assert fast == general, (functions, output, truth, category)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(prepared_tests.entries(), st.booleans())
def test_one_shot_check_gives_the_verdicts_of_its_general_path(entry: Any, underscore_to_dot: bool) -> None:
    functions, truth, category, outputs = entry
    for output in outputs:
        both_ways(functions, output, truth, category, underscore_to_dot)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(prepared_tests.entries(), st.lists(prepared_tests.ITEM, max_size=4), st.sampled_from(CATEGORIES))
def test_odd_outputs_are_checked_as_the_general_path_checks_them(entry: Any, output: list[Any],
                                                                 category: str) -> None:
    """Items near BFCL's decoded form, in any number, against entries of every kind (relevance too)."""
    functions, truth, _, _ = entry
    both_ways(functions, output, truth, category)


@settings(max_examples=300, deadline=None)
@given(st.lists(prepared_tests.ITEM, max_size=4), st.sampled_from(CATEGORIES), st.integers(0, 3))
def test_the_decoded_form_read_once_is_the_wrong_count_or_the_decoded_calls(items: list[Any], category: str,
                                                                            answered: int) -> None:
    """What ``_bfcl_form`` gives (when not None) is ``_wrong_count``'s verdict if it has one, else ``_decode``'s."""
    _, kind = checker._route(category)
    answers = [{"f": {}}] * answered
    found = checker._bfcl_form(copy.deepcopy(items), kind, answers)
    if found is None:
        return
    wrong = checker._wrong_count(copy.deepcopy(items), kind, checker._expected_calls(kind, answers))
    if wrong is not None:
        assert found is wrong
        return
    decoded = checker._decode(copy.deepcopy(items))
    assert not isinstance(decoded, ParseError)
    assert found == decoded


NAMED = st.sampled_from(("f", "g", "g.h", 1, ""))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.builds(lambda name: {"name": name, "parameters": {}}, st.sampled_from(("f", "g", "g.h"))),
                max_size=3),
       st.lists(st.builds(lambda name: {name: {}}, NAMED), max_size=5))
def test_each_answer_s_function_is_the_one_find_gives(funcs: list[Any], answers: list[Any]) -> None:
    def run(how: Any) -> Any:
        try:
            return [id(func) for func in how(funcs, answers)]
        except ValueError as exc:
            return str(exc)

    assert run(checker._funcs_for) == run(_general_funcs_for)


def test_answers_calling_one_function_in_a_row_each_get_it_and_a_missing_one_raises() -> None:
    funcs = [{"name": "f", "parameters": {}}, {"name": "g", "parameters": {}}, {"name": "f", "parameters": {}}]
    answers = [{"f": {}}, {"f": {}}, {"g": {}}, {"f": {}}]
    assert [id(f) for f in checker._funcs_for(funcs, answers)] == [id(funcs[0]), id(funcs[0]), id(funcs[1]),
                                                                    id(funcs[0])]
    with pytest.raises(ValueError, match="names function 'h'"):
        checker._funcs_for(funcs, [{"f": {}}, {"h": {}}])


def test_a_parallel_no_match_row_reads_as_the_general_path_gives_it() -> None:
    """A one-shot parallel no-match's row keeps the failures ``_call_checker`` builds itself as ``_failure`` s
    (``_unbuilt_row``), not verdicts: its message must be the general path's, whose row holds verdicts, for each
    failure built so (wrong name, a missing or unexpected parameter, a value not among the strings or the others)
    and the others (a wrong type), at each place in the row."""
    functions = [{"name": "f", "parameters": {"type": "dict", "properties": {
        "s": {"type": "string"}, "n": {"type": "integer"}, "b": {"type": "boolean"}}, "required": ["s"]}}]
    truth = [{"f": {"s": ["Paris"], "n": [1, ""], "b": [True]}}, {"f": {"s": ["Rome"], "n": [2, ""], "b": [""]}}]
    misfits = [{"f": {"s": "Lyon", "b": True}}, {"f": {"s": "Paris", "n": 3, "b": True}},
               {"f": {"s": "Paris", "n": "1", "b": True}}, {"f": {"s": "Paris", "z": 1}}, {"f": {"s": "Paris"}},
               {"f": {"s": "Paris", "b": 1}}, {"g": {"s": "Paris"}}, {"f": {"n": 1}}]
    seen = set()
    for first in misfits:
        for second in [*misfits, {"f": {"s": "Rome"}}]:
            output = [first, second]
            both_ways(functions, output, truth, "parallel")
            verdict = check(functions, output, truth, "parallel")
            if verdict.error_type.endswith("cannot_find_match"):
                seen.add(verdict.message.rsplit("model call 1: ", 1)[1].split(": ")[0])
    assert seen >= {"simple_function_checker:unexpected_param", "value_error:others", "value_error:string",
                    "type_error:simple", "simple_function_checker:wrong_func_name",
                    "simple_function_checker:missing_required", "simple_function_checker:missing_optional"}


@pytest.mark.parametrize("type_name", [["string"], {"a": 1}, 5, None])
@pytest.mark.parametrize("value", ["x", ["x"], 1])
def test_a_type_name_that_is_not_a_string_is_judged_as_the_general_path_judges_it(type_name: Any, value: Any) -> None:
    """``_call_checker`` looks a scalar's declared type up without asking that its name be a ``str``: an unhashable
    name raises there the TypeError ``_check_param`` raises on it (the general path, through ``_listed_as_is``),
    which ``check`` words as the ValueError naming the schema's fault; any other is no scalar type, which the
    general path then judges."""
    functions = [{"name": "f", "parameters": {"type": "dict", "properties": {"a": {"type": type_name}},
                                              "required": []}}]
    output, truth = [{"f": {"a": value}}], [{"f": {"a": [value]}}]
    general = prepared_tests.outcome(lambda: checker._check_param("a", value, functions[0]["parameters"]["properties"]
                                                                  ["a"], [value], checker._CONTEXTS[False]["python"]))
    if general[0] == "raised":
        assert general[1] is TypeError
        general = ("raised", ValueError, checker._schema_problem(functions[0]))
    assert prepared_tests.outcome(lambda: check(functions, output, truth, "simple")) == general
    parallel = prepared_tests.outcome(lambda: check(functions, output, truth, "parallel"))
    assert parallel == general if general[0] == "raised" else parallel[1].endswith("cannot_find_match")
