"""ek.bfcl.prepare: a prepared entry's verdicts are check()'s, on generated entries and outputs.

``prepare(...).check(output)`` takes fast paths that ``check`` does not (answers compiled to sets,
the entry's verdicts built once, outputs validated in one walk); here both are compared on
generated schemas, answers and outputs, values chosen to sit on the edges those paths rely on
(``1`` / ``1.0`` / ``True``, ``-0.0``, case and punctuation in strings, the omittable ``""``,
non-JSON values, ints past the digit limit, NaN).
"""

from __future__ import annotations

import copy
import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ek.bfcl import check, prepare
from ek.parsing.limits import Limits
from ek.parsing.values import already_plain, calls_already_plain

TYPES = ("string", "integer", "float", "number", "boolean", "any", "array", "tuple", "dict", "object", "mystery")
SCALAR_TYPES = ("string", "integer", "float", "boolean")  # drawn as often as all the others: the sets are for these
NAMES = ("a", "b", "c")
STRINGS = ("SF", "sf", "San Francisco, CA", "san-francisco ca", "", "x'y", 'x"y', "1", "True")
SCALARS = st.one_of(
    st.sampled_from(STRINGS),
    st.sampled_from([0, 1, -1, 2, 10**20]),
    st.sampled_from([0.0, -0.0, 1.0, 2.5, 1e300]),
    st.booleans(),
    st.none(),
)
OF_TYPE = {
    "string": st.sampled_from(STRINGS),
    "integer": st.sampled_from([0, 1, -1, 2, 10**20]),
    "float": st.sampled_from([0.0, -0.0, 1.0, 2.5, 1e300, 1, 2]),
    "boolean": st.booleans(),
}
JSON = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.sampled_from(NAMES), inner, max_size=3), max_leaves=6)
#: What a caller may hand ek that JSON could not say: each is converted or a decode error.
ODD = st.sampled_from([math.nan, math.inf, 10**5000, (1, 2), {1, 2}, b"x", {1: "a"}])


@st.composite
def schemas(draw: st.DrawFn) -> dict[str, Any]:
    params = draw(st.lists(st.sampled_from(NAMES), unique=True, max_size=3))
    properties = {}
    for param in params:
        detail: dict[str, Any] = {"type": draw(st.sampled_from(SCALAR_TYPES) | st.sampled_from(TYPES))}
        if detail["type"] in ("array", "tuple") and draw(st.booleans()):
            detail["items"] = {"type": draw(st.sampled_from(("string", "integer", "float", "dict")))}
        properties[param] = detail
    required = [param for param in params if not draw(st.integers(0, 3))]
    name = draw(st.sampled_from(("f", "g.h")))
    return {"name": name, "parameters": {"type": "dict", "properties": properties, "required": required}}


@st.composite
def answers(draw: st.DrawFn, schema: dict[str, Any]) -> dict[str, Any]:
    properties = schema["parameters"]["properties"]
    params = [param for param in properties if draw(st.integers(0, 5))]  # most of the schema's parameters
    if not draw(st.integers(0, 5)):
        params.append("z")  # one the schema lacks
    truth = {}
    for param in params:
        declared = properties.get(param, {}).get("type")
        typed = OF_TYPE.get(declared, SCALARS) | st.just("")  # mostly of the declared type, or omittable
        truth[param] = draw(st.lists(typed | typed | SCALARS | JSON, min_size=1, max_size=3))
    return {schema["name"]: truth}


@st.composite
def calls_for(draw: st.DrawFn, answer: dict[str, Any]) -> dict[str, Any]:
    """A call near the answer: its name or another, each argument an alternative, a variant of one, or anything."""
    ((name, params),) = answer.items()
    name = draw(st.sampled_from((name, name, name, name.replace(".", "_"), "other")))
    keys = [param for param in params if draw(st.integers(0, 7))]  # most of the answer's parameters
    if not draw(st.integers(0, 5)):
        keys.append(draw(st.sampled_from(("a", "z"))))  # now and then one it lacks (unexpected, or optional)
    args = {}
    for param in dict.fromkeys(keys):
        options = [alt for alt in params.get(param, []) if alt != ""]
        value = draw(st.sampled_from(options) if options else JSON)
        twist = draw(st.sampled_from(("as_is", "as_is", "upper", "lower", "json", "odd", "int", "float", "bool")))
        if twist == "upper" and isinstance(value, str):
            value = value.upper().replace(" ", "-")
        elif twist == "lower" and isinstance(value, str):
            value = value.lower().replace(",", "")
        elif twist == "json":
            value = draw(JSON)
        elif twist == "odd":
            value = draw(ODD)
        elif twist == "int" and (type(value) is bool or type(value) is float and value.is_integer()
                                 and abs(value) < 1e18):
            value = int(value)
        elif twist == "bool" and type(value) in (int, float) and value in (0, 1):
            value = bool(value)
        elif twist == "float" and type(value) is int and not isinstance(value, bool):
            value = float(value)
        args[param] = value
    return {name: args}


def outcome(run: Any) -> tuple[Any, ...]:
    """A verdict as its three fields (the message built), or the exception a malformed part raises."""
    try:
        verdict = run()
    except (ValueError, TypeError, IndexError) as exc:
        return ("raised", type(exc), str(exc))
    return (verdict.valid, verdict.error_type, verdict.message)


@st.composite
def entries(draw: st.DrawFn) -> tuple[list[Any], list[Any], str, list[Any]]:
    """Functions, ground truth, category, and outputs (several, to be checked by one prepared entry)."""
    category = draw(st.sampled_from(("simple", "multiple", "parallel", "parallel_multiple")))
    functions = draw(st.lists(schemas(), min_size=1, max_size=3))
    if "parallel" in category:
        truth = [draw(answers(draw(st.sampled_from(functions)))) for _ in range(draw(st.integers(1, 3)))]
    else:
        truth = [draw(answers(draw(st.sampled_from(functions))))]
    outputs = []
    for _ in range(draw(st.integers(1, 4))):
        output = [draw(calls_for(answer)) for answer in truth]
        output = draw(st.permutations(output)) if draw(st.booleans()) else output
        if draw(st.integers(0, 5)) == 0:
            output = output[:-1] if output else output
        outputs.append(output)
    return functions, truth, category, outputs


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(entries(), st.booleans())
def test_a_prepared_entry_gives_the_verdicts_of_check(entry: Any, underscore_to_dot: bool) -> None:
    functions, truth, category, outputs = entry
    try:
        prepared = prepare(functions, truth, category, underscore_to_dot=underscore_to_dot)
    except ValueError as exc:  # a malformed entry: prepare raises what check raises
        for output in outputs:
            assert outcome(lambda: check(functions, output, truth, category)) == ("raised", ValueError, str(exc))
        return
    for output in outputs:
        expected = outcome(lambda: check(functions, copy.deepcopy(output), truth, category,
                                         underscore_to_dot=underscore_to_dot))
        assert outcome(lambda: prepared.check(copy.deepcopy(output))) == expected, (output, truth)


@settings(max_examples=200, deadline=None)
@given(entries())
def test_one_prepared_entry_checks_many_outputs_as_check_does(entry: Any) -> None:
    functions, truth, category, outputs = entry
    try:
        prepared = prepare(functions, truth, category)
    except ValueError:
        return
    for output in outputs * 2:  # again: what the entry keeps between checks must not change a verdict
        assert outcome(lambda: prepared.check(output)) == outcome(lambda: check(functions, output, truth, category))


def test_an_answer_naming_a_missing_function_raises_at_each_check_as_check_does() -> None:
    functions = [{"name": "f", "parameters": {"type": "dict", "properties": {}, "required": []}}]
    truth = [{"f": {}}, {"g": {}}]
    entry = prepare(functions, truth, "parallel")
    for _ in range(2):
        with pytest.raises(ValueError, match="possible answer names function 'g'"):
            entry.check([{"f": {}}, {"g": {}}])
    assert entry.check([{"f": {}}]).error_type == check(functions, [{"f": {}}], truth, "parallel").error_type


def test_a_value_the_compiled_sets_take_is_what_the_general_path_takes() -> None:
    functions = [{"name": "f", "parameters": {"type": "dict", "properties": {
        "n": {"type": "integer"}, "x": {"type": "float"}, "b": {"type": "boolean"}, "s": {"type": "string"}},
        "required": []}}]
    for truth in ([{"f": {"n": [1, ""], "x": [1.0, 2], "b": [True, ""], "s": ["San Francisco, CA", ""]}}],
                  [{"f": {"n": [True, 2.0], "x": [True, -0.0], "b": [1, 0.0], "s": [1, "SF"]}}]):
        entry = prepare(functions, truth, "simple")
        for args in ({"n": 1}, {"n": 1.0}, {"n": True}, {"n": 2}, {"x": 2.0}, {"x": 1}, {"x": 1.0}, {"x": 0.0},
                     {"x": -0.0}, {"b": 1}, {"b": True}, {"b": False}, {"s": "san francisco ca"},
                     {"s": "SAN-FRANCISCO,CA"}, {"s": "Paris"}, {"s": "sf"}, {"s": 1}, {"n": 10**5000},
                     {"x": math.nan}, {"s": ("a",)}):
            output = [{"f": args}]
            assert outcome(lambda: entry.check(output)) == outcome(lambda: check(functions, output, truth, "simple"))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.dictionaries(st.sampled_from(NAMES), JSON | ODD, max_size=4), max_size=4), st.integers(1, 4))
def test_calls_already_plain_is_already_plain_for_every_call(args: list[Any], max_depth: int) -> None:
    calls = [("f", a) for a in args]
    for max_size in range(1, 40):  # every size around the boundaries: each unit spent must be the same
        limits = Limits(max_size=max_size, max_depth=max_depth)
        assert calls_already_plain(calls, limits) == all(already_plain(a, limits) for a in args)


ITEM = st.one_of(
    st.dictionaries(st.sampled_from(("f", "g", "")), st.dictionaries(st.sampled_from(NAMES), JSON | ODD, max_size=3),
                    min_size=1, max_size=2),
    st.dictionaries(st.sampled_from(("f", 1)), JSON, min_size=1, max_size=1),
    JSON,
)


@settings(max_examples=300, deadline=None)
@given(st.lists(ITEM, max_size=4))
def test_decoded_outputs_read_in_one_walk_as_item_by_item(items: list[Any]) -> None:
    """The one-walk reading of BFCL's decoded form gives the calls, None or ParseError of the item-by-item one."""
    from ek.bfcl.checker import _decoded_bfcl, _decoded_items
    from ek.parsing import ParseError

    def read(decode: Any) -> Any:
        try:
            return decode(copy.deepcopy(items))
        except ParseError as exc:
            return str(exc)

    assert read(_decoded_bfcl) == read(_decoded_items)


#: One output item near BFCL's decoded shape: what _plain_call must take exactly when _decoded_bfcl's fast path does.
ONE_ITEM = st.one_of(
    st.builds(lambda name, args: {name: args}, st.sampled_from(("f", "f", "g.h", "g_h", "", 1)),
              st.dictionaries(st.sampled_from(NAMES), JSON, max_size=3)
              | st.dictionaries(st.sampled_from(NAMES + (1,)), JSON | ODD, max_size=3) | JSON),
    st.dictionaries(st.sampled_from(("f", "g.h")), st.dictionaries(st.sampled_from(NAMES), JSON, max_size=2),
                    min_size=2, max_size=2),
    st.just({}),
    JSON,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(schemas(), min_size=1, max_size=2), st.sampled_from(("simple", "multiple", "parallel")),
       st.integers(1, 2), ONE_ITEM, st.data())
def test_a_one_item_output_is_read_and_checked_as_check_does(functions: list[Any], category: str, answered: int,
                                                              item: Any, data: st.DataObject) -> None:
    """A one-item output: a prepared entry's shortcut for entries expecting one call (``_plain_call``) or the general
    reading, with odd items (an empty or non-string name, arguments not a dict, non-JSON values, two keys)."""
    truth = [data.draw(answers(data.draw(st.sampled_from(functions)))) for _ in range(answered)]
    try:
        prepared = prepare(functions, truth, category)
    except ValueError:
        return
    output = [item]
    expected = outcome(lambda: check(functions, copy.deepcopy(output), truth, category))
    assert outcome(lambda: prepared.check(copy.deepcopy(output))) == expected, (output, truth)


def test_a_one_item_output_takes_the_shortcut_only_where_one_call_is_expected() -> None:
    """Multiple with two answers expects two calls: one call is the wrong count there, prepared or not."""
    functions = [{"name": "f", "parameters": {"type": "dict", "properties": {"a": {"type": "string"}}, "required": []}}]
    for truth, category in (([{"f": {"a": ["x"]}}], "simple"), ([{"f": {"a": ["x"]}}], "multiple"),
                            ([{"f": {"a": ["x"]}}] * 2, "multiple"), ([{"f": {"a": ["x"]}}] * 2, "simple")):
        entry = prepare(functions, truth, category)
        for output in ([{"f": {"a": "x"}}], [{"": {"a": "x"}}], [{"f": {"a": math.nan}}], [{"f": ["a"]}], []):
            assert outcome(lambda: entry.check(output)) == outcome(lambda: check(functions, output, truth, category))


def test_a_parallel_no_match_row_of_compiled_failures_reads_as_check_gives_it() -> None:
    """A prepared parallel entry's no-match row keeps the failures its compiled checks build as templates
    (``_failure``), not verdicts: the message must be check()'s, whose row holds verdicts, for each failure the
    compiled check builds itself (unexpected parameter, value not among the strings or the others, wrong type)
    and the prebuilt ones (wrong name, missing parameter), at each place in the row."""
    functions = [{"name": "f", "parameters": {"type": "dict", "properties": {
        "s": {"type": "string"}, "n": {"type": "integer"}, "b": {"type": "boolean"}}, "required": ["s"]}}]
    truth = [{"f": {"s": ["Paris"], "n": [1, ""], "b": [True, ""]}}, {"f": {"s": ["Rome"], "n": [2, ""], "b": [""]}}]
    entry = prepare(functions, truth, "parallel")
    misfits = [{"f": {"s": "Lyon"}}, {"f": {"s": "Paris", "n": 3}}, {"f": {"s": "Paris", "n": "1"}},
               {"f": {"s": "Paris", "z": 1}}, {"f": {"s": "Paris", "b": 1}}, {"g": {"s": "Paris"}}, {"f": {"n": 1}}]
    seen = set()
    for first in misfits:
        for second in [*misfits, {"f": {"s": "Rome"}}]:
            output = [first, second]
            verdict = entry.check(copy.deepcopy(output))
            assert outcome(lambda: verdict) == outcome(lambda: check(functions, output, truth, "parallel")), output
            if verdict.error_type.endswith("cannot_find_match"):
                seen.add(verdict.message.rsplit("model call 1: ", 1)[1].split(": ")[0])
    assert seen >= {"simple_function_checker:unexpected_param", "value_error:others", "value_error:string",
                    "type_error:simple", "simple_function_checker:wrong_func_name",
                    "simple_function_checker:missing_required"}, seen
