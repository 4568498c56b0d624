"""ek.bfcl.check: BFCL's error types on hand-made entries, and each documented difference."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ek.bfcl import Verdict, check, prepare
from ek.bfcl.oracle import load_bfcl_checker
from ek.calls import Step
from ek.parsing import ParseError, parse_calls, to_bfcl

WEATHER = {
    "name": "get_weather",
    "parameters": {
        "type": "dict",
        "properties": {
            "city": {"type": "string"},
            "days": {"type": "integer"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            "coords": {"type": "array", "items": {"type": "float"}},
            "scale": {"type": "float"},
            "opts": {"type": "dict", "properties": {"lang": {"type": "string"}}},
        },
        "required": ["city"],
    },
}
ANSWER = [{"get_weather": {
    "city": ["San Francisco, CA", "SF"],
    "days": [3, ""],
    "unit": ["celsius", ""],
    "coords": [[37.5, -122.0], ""],
    "scale": [2.0, ""],
    "opts": [{"lang": ["en", ""]}, ""],
}}]


def verdict(output: Any, category: str = "simple", answer: Any = None, funcs: Any = None) -> Verdict:
    return check(funcs or [WEATHER], output, answer or ANSWER, category)


@pytest.mark.parametrize(
    "output",
    [
        "get_weather(city='San Francisco, CA')",
        "[get_weather(city='san francisco ca', days=3)]",
        "```python\n[get_weather(city='SF', unit='celsius')]\n```",
        [{"get_weather": {"city": "SF", "scale": 2}}],  # int for a float: accepted (BFCL too, at top level)
        [{"get_weather": {"city": "SF", "opts": {"lang": "EN"}}}],
        [{"get_weather": {"city": "SF", "opts": {}}}],
        [Step("get_weather", {"city": "SF", "coords": [37.5, -122.0]})],
        '[{"get_weather": {"city": "SF"}}]',
    ],
)
def test_right_answers(output: Any) -> None:
    assert verdict(output) == Verdict(True)


@pytest.mark.parametrize(
    ("output", "error_type"),
    [
        ("get_wether(city='SF')", "simple_function_checker:wrong_func_name"),
        ("get_weather(days=3)", "simple_function_checker:missing_required"),
        ("get_weather(city='SF', color='red')", "simple_function_checker:unexpected_param"),
        ("get_weather(city='LA')", "value_error:string"),
        ("get_weather(city='SF', days='3')", "type_error:simple"),
        ("get_weather(city='SF', days=4)", "value_error:others"),
        ("get_weather(city='SF', days=True)", "type_error:simple"),
        ("get_weather(city='SF', coords=[37.5])", "value_error:list/tuple"),
        # BFCL skips the item type check when the answer allows omission (""): a value error instead.
        ("get_weather(city='SF', coords=['a', 'b'])", "value_error:list/tuple"),
        ("get_weather(city='SF', opts={'lang': 'de'})", "value_error:dict_value"),
        ("get_weather(city='SF', opts={'size': 1})", "value_error:dict_key"),
        ("[get_weather(city='SF'), get_weather(city='SF')]", "simple_function_checker:wrong_count"),
        ("[]", "simple_function_checker:wrong_count"),
        ("Sorry, I can't do that.", "ast_decoder:decoder_failed"),
        ("get_weather(city=city_name)", "ast_decoder:decoder_failed"),
    ],
)
def test_bfcl_error_types(output: Any, error_type: str) -> None:
    result = verdict(output)
    assert not result.valid
    assert result.error_type == error_type
    assert result.message


ERROR_CASES = test_bfcl_error_types.pytestmark[0].args[1]  # type: ignore[attr-defined]


def test_nested_type_error_when_the_list_is_required() -> None:
    answer = [{"get_weather": {"city": ["SF"], "coords": [[37.5, -122.0]]}}]
    assert verdict("get_weather(city='SF', coords=['a', 'b'])", answer=answer).error_type == "type_error:nested"


@pytest.mark.skipif(load_bfcl_checker() is None, reason="bfcl-eval is not installed")
def test_the_hand_made_cases_match_bfcl_itself() -> None:
    oracle = load_bfcl_checker()
    assert oracle is not None
    for output, error_type in ERROR_CASES:
        try:
            decoded = to_bfcl(parse_calls(output, "python"))  # BFCL decodes Python only: prose fails
        except ParseError:
            continue  # decode failures: BFCL's decoder differs on purpose
        assert oracle([WEATHER], decoded, ANSWER, "simple")["error_type"] == error_type, output


def test_missing_non_optional_answer_parameter() -> None:
    answer = [{"get_weather": {"city": ["SF"], "days": [3]}}]
    assert verdict("get_weather(city='SF')", answer=answer).error_type == "simple_function_checker:missing_optional"


def test_multiple_checks_the_one_expected_function_among_several() -> None:
    other = {"name": "get_time", "parameters": {"type": "dict", "properties": {"tz": {"type": "string"}},
                                                "required": ["tz"]}}
    funcs = [other, WEATHER]
    assert check(funcs, "get_weather(city='SF')", ANSWER, "multiple").valid
    assert check(funcs, "get_time(tz='PST')", ANSWER, "multiple").error_type == "simple_function_checker:wrong_func_name"
    assert check(funcs, "[]", ANSWER, "multiple").error_type == "multiple_function_checker:wrong_count"


STOCK = {"name": "get_stock_price", "parameters": {"type": "dict", "properties": {
    "company": {"type": "string"}, "date": {"type": "string"}}, "required": ["company"]}}


def test_parallel_any_order_and_counts() -> None:
    answer = [{"get_stock_price": {"company": ["Apple"], "date": ["2022-01-01"]}},
              {"get_stock_price": {"company": ["Microsoft"], "date": ["2022-01-01"]}}]
    right = "[get_stock_price(company='Microsoft', date='2022-01-01'), get_stock_price(company='Apple', date='2022-01-01')]"
    assert check([STOCK], right, answer, "parallel").valid
    assert check([STOCK], "[get_stock_price(company='Apple', date='2022-01-01')]", answer,
                 "parallel").error_type == "parallel_function_checker_no_order:wrong_count"
    wrong = right.replace("Microsoft", "Google")
    result = check([STOCK], wrong, answer, "parallel")
    assert result.error_type == "parallel_function_checker_no_order:cannot_find_match"
    assert "Microsoft" not in result.message or "index 1" in result.message


def test_difference_parallel_matching_is_bipartite_not_first_fit() -> None:
    # Gold 0 accepts either date, gold 1 only 2022-01-01. The model lists the 2022-01-01 call first:
    # BFCL's first-fit gives it to gold 0 and then finds nothing for gold 1. A full assignment exists.
    answer = [{"get_stock_price": {"company": ["Apple"], "date": ["2022-01-01", "2022-02-01"]}},
              {"get_stock_price": {"company": ["Apple"], "date": ["2022-01-01"]}}]
    output = "[get_stock_price(company='Apple', date='2022-01-01'), get_stock_price(company='Apple', date='2022-02-01')]"
    assert check([STOCK], output, answer, "parallel").valid


def test_difference_int_for_float_is_accepted_inside_lists_too() -> None:
    assert verdict("get_weather(city='SF', coords=[37.5, -122])").valid


def test_difference_arithmetic_is_a_decode_error_not_evaluated() -> None:
    # BFCL's decoder eval()s BinOps, so days=1+2 would pass there as 3.
    assert verdict("get_weather(city='SF', days=1+2)").error_type == "ast_decoder:decoder_failed"


def test_relevance_categories_only_ask_whether_calls_were_made() -> None:
    assert check([WEATHER], "I cannot help.", [], "irrelevance").valid
    assert check([WEATHER], "[]", [], "live_irrelevance").valid
    assert check([WEATHER], "get_weather(city='SF')", [], "irrelevance").error_type == "irrelevance_error:decoder_success"
    assert check([WEATHER], "get_weather(city='SF')", [], "live_relevance").valid
    assert check([WEATHER], "no", [], "live_relevance").error_type == "relevance_error:decoder_failed"


def test_underscore_to_dot_for_models_that_cannot_use_dots() -> None:
    func = {"name": "math.hypot", "parameters": {"type": "dict", "properties": {"x": {"type": "integer"}},
                                                 "required": ["x"]}}
    answer = [{"math.hypot": {"x": [3]}}]
    assert not check([func], "math_hypot(x=3)", answer, "simple").valid
    assert check([func], "math_hypot(x=3)", answer, "simple", underscore_to_dot=True).valid


def test_whole_entries_are_accepted_too() -> None:
    question = {"id": "x", "question": [], "function": [WEATHER]}
    answer = {"id": "x", "ground_truth": ANSWER}
    assert check(question, "get_weather(city='SF')", answer, "simple").valid


def test_java_and_javascript_values_are_source_strings() -> None:
    java = {"name": "Store.put", "parameters": {"type": "dict", "properties": {
        "count": {"type": "integer"}, "ratio": {"type": "float"}, "ids": {"type": "ArrayList", "items": {"type": "String"}},
        "flag": {"type": "boolean"}, "target": {"type": "any"}}, "required": ["count"]}}
    answer = [{"Store.put": {"count": [5], "ratio": [0.5, ""], "ids": [["a", "b"], ""], "flag": [True, ""],
                             "target": ["myVar", ""]}}]
    ok = [{"Store.put": {"count": "5", "ratio": "0.5f", "ids": 'new ArrayList<>(Arrays.asList("a", "b"))',
                         "flag": "true", "target": "myVar"}}]
    assert check([java], ok, answer, "simple_java").valid
    assert check([java], [{"Store.put": {"count": 5}}], answer, "simple_java").error_type == "type_error:java"
    assert check([java], [{"Store.put": {"count": "6"}}], answer, "simple_java").error_type == "value_error:others"
    js = {"name": "f", "parameters": {"type": "dict", "properties": {"n": {"type": "Bigint"}, "xs": {"type": "array"}},
                                      "required": ["n"]}}
    assert check([js], [{"f": {"n": "10n", "xs": "[1, 2]"}}], [{"f": {"n": [10], "xs": [[1, 2]]}}],
                 "simple_javascript").valid
    assert check([js], [{"f": {"n": 10}}], [{"f": {"n": [10]}}], "simple_javascript").error_type == "type_error:js"


def test_raw_java_and_javascript_text_is_decoded_without_evaluation(bfcl_data: Any) -> None:
    from ek.bfcl import pair_up, read_possible_answers, read_questions

    def entry(category: str, entry_id: str) -> tuple[Any, Any]:
        pairs = pair_up(read_questions(bfcl_data / f"BFCL_v4_{category}.json"),
                        read_possible_answers(bfcl_data / "possible_answer" / f"BFCL_v4_{category}.json"))
        return next((q, a) for q, a in pairs if q.id == entry_id)

    q, a = entry("simple_java", "simple_java_0")
    text = "[GeometryPresentation.createPresentation(controller=mapController, parent=mapArea)]"
    assert check(q.functions, text, a.ground_truth, "simple_java").valid
    wrong = text.replace("mapArea", "otherArea")
    assert check(q.functions, wrong, a.ground_truth, "simple_java").error_type == "value_error:string"
    q, a = entry("simple_java", "simple_java_35")
    text = ('[RedissonConnection.bitOp(op=BitOperation.AND, destination="user:online:both", '
            'keys=new String[]{"user:online:today", "user:online:yesterday"})]')
    assert check(q.functions, text, a.ground_truth, "simple_java").valid
    q, a = entry("simple_javascript", "simple_javascript_0")
    assert check(q.functions, "[validateUserInput(inputField='userInputField', isComplete=true)]",
                 a.ground_truth, "simple_javascript").valid
    assert check(q.functions, "validateUserInput(inputField)", a.ground_truth,
                 "simple_javascript").error_type == "ast_decoder:decoder_failed"


def test_a_nested_answer_value_given_bare_is_the_one_acceptable_value() -> None:
    # simple_java_64 (real data) writes {"format": "epoch_millis"} where BFCL elsewhere writes
    # {"format": ["epoch_millis"]}; read character by character it rejected the right answer.
    funcs = [{"name": "make", "parameters": {"type": "dict", "properties": {"meta": {"type": "dict"}},
                                             "required": ["meta"]}}]
    answer = [{"make": {"meta": [{"format": "epoch_millis"}]}}]
    assert check(funcs, [{"make": {"meta": {"format": "epoch_millis"}}}], answer, "simple").valid
    assert check(funcs, "[make(meta={'format': 'Epoch Millis'})]", answer, "simple").valid  # BFCL's string rule
    wrong = check(funcs, [{"make": {"meta": {"format": "epoch"}}}], answer, "simple")
    assert wrong.error_type == "value_error:dict_value"  # BFCL: valid, as "epoch" is a substring
    assert check(funcs, [{"make": {"meta": {}}}], answer, "simple").error_type == "value_error:dict_key"


def test_huge_values_give_verdicts_with_bounded_messages_not_exceptions() -> None:
    funcs = [{"name": "f", "parameters": {"type": "dict", "properties": {"x": {"type": "integer"},
                                                                         "s": {"type": "string"}}}}]
    answer = [{"f": {"x": [1], "s": ["", "a"]}}]
    huge = check(funcs, [{"f": {"x": 10**5000}}], answer, "simple")  # decoded objects can hold what text cannot
    assert huge.error_type == "ast_decoder:decoder_failed" and "4300 digits" in huge.message
    long = check(funcs, [{"f": {"x": 1, "s": "b" * 900_000}}], answer, "simple")
    assert long.error_type == "value_error:string" and len(long.message) < 1_000, len(long.message)
    wrong_type = check(funcs, [{"f": {"x": "9" * 900_000}}], answer, "simple")
    assert wrong_type.error_type == "type_error:simple" and len(wrong_type.message) < 1_000


def test_bytes_output_is_read_as_text() -> None:
    assert verdict(b"[get_weather(city='SF')]") == Verdict(True)
    assert verdict(b"[get_weather(city='\xff')]").error_type == "ast_decoder:decoder_failed"


@pytest.mark.parametrize(
    ("functions", "answer", "fragment"),
    [
        ([{"parameters": {}}], [{"f": {"x": [1]}}], "functions[0]: a function needs a 'name' string"),
        ("f", [{"f": {"x": [1]}}], "functions must be a list of function objects (or a question entry), got str"),
        ([{"name": "f", "parameters": []}], [{"f": {"x": [1]}}], "function 'f': 'parameters' must be an object"),
        ([{"name": "f", "parameters": {"properties": []}}], [{"f": {"x": [1]}}],
         "function 'f': 'parameters.properties' must be an object"),
        ([{"name": "f"}], "x", "possible_answer must be a list of {func_name: {param: [values]}}"),
        ([{"name": "f"}], [], "possible_answer is empty"),
        ([{"name": "f"}], [{"f": {"x": 1}}], "possible_answer[0]['f']['x'] must be a list of acceptable values"),
        ([{"name": "f"}], [{"f": {"x": [1]}, "g": {}}], "possible_answer[0] must be {func_name: {param: [values]}}"),
        ([{"name": "f"}], [{"f": [1]}], "possible_answer[0] must be {func_name: {param: [values]}}"),
    ],
)
def test_malformed_entries_are_value_errors_that_say_where(functions: Any, answer: Any, fragment: str) -> None:
    with pytest.raises(ValueError) as info:
        check(functions, "[f(x=1)]", answer, "simple")
    assert fragment in str(info.value)


def _schema(properties: Any, required: Any = None) -> list[dict[str, Any]]:
    return [{"name": "f", "parameters": {"type": "dict", "properties": properties,
                                         "required": list(properties) if required is None else required}}]


_ONE = [{"f": {"x": ["a"]}}]
_TWO = [{"f": {"x": ["a"]}}, {"f": {"x": ["b"]}}]
_UNION = {"x": {"type": ["string", "null"]}}


@pytest.mark.parametrize(
    ("functions", "output", "answer", "category", "fragment"),
    [
        ([], "[f(x='a')]", _ONE, "simple", "functions is empty: the entry defines no function"),
        ([], [{"f": {"x": "a"}}], _ONE, "simple", "functions is empty"),
        (_schema({"x": 0}), "[f(x='a')]", _ONE, "simple",
         "function 'f': parameters.properties['x'] must be an object (the parameter's schema), got 0"),
        (_schema({"x": None}), "[f(x='a')]", _ONE, "simple", "parameters.properties['x'] must be an object"),
        # JSON Schema's union of types: BFCL's types are one name each
        (_schema(_UNION), "[f(x='a')]", _ONE, "simple",
         "function 'f': parameters.properties['x'].type must be a string (one type name, as BFCL writes them), "
         "got ['string', 'null']"),
        (_schema({"x": {"type": "array", "items": {"type": ["string", "null"]}}}), "[f(x=['a'])]",
         [{"f": {"x": [["a"]]}}], "simple", "parameters.properties['x'].items.type must be a string"),
        (_schema({"x": {"type": {"a": 1}}}), "[f(x='a')]", _ONE, "simple", ".type must be a string"),
        (_schema({"x": {"type": "string"}}, [["x"]]), "[f(x='a')]", _ONE, "simple",
         "function 'f': parameters.required[0] must be a parameter's name (a string), got ['x']"),
        (_schema({"x": {"type": ["String"]}}), "[f(x='a')]", _ONE, "java", ".type must be a string"),
        (_schema(_UNION), "[f(x='a'), f(x='b')]", _TWO, "parallel", ".type must be a string"),
        (_schema({"x": 0}), "[f(x='a'), f(x='b')]", _TWO, "parallel_multiple", "must be an object"),
        (_schema({"x": 0}), [{"f": {"x": "a"}}], [{"f": {"x": ["a"]}}], "multiple", "must be an object"),
    ],
)
def test_a_schema_part_a_check_cannot_read_is_a_value_error_that_says_where(
        functions: Any, output: Any, answer: Any, category: str, fragment: str) -> None:
    # one-shot and prepared alike: a check that reaches the part raises, never a TypeError or an AttributeError
    with pytest.raises(ValueError) as one_shot:
        check(functions, output, answer, category)
    with pytest.raises(ValueError) as prepared:
        prepare(functions, answer, category).check(output)
    assert fragment in str(one_shot.value)
    assert str(one_shot.value) == str(prepared.value)


@pytest.mark.parametrize("category", [None, 5, ["simple"]])
def test_a_category_that_is_no_name_says_so(category: Any) -> None:
    with pytest.raises(TypeError, match=r"category must be a BFCL category name \(a string"):
        check(_schema({"x": {"type": "string"}}), "[f(x='a')]", _ONE, category)
    with pytest.raises(TypeError, match=r"category must be a BFCL category name \(a string"):
        prepare(_schema({"x": {"type": "string"}}), _ONE, category)


def test_a_malformed_part_no_check_reaches_leaves_the_verdicts() -> None:
    # as documented: a part is read when a check reaches it; a wrong call count reads no parameter
    functions = _schema(_UNION)
    assert check(functions, "[f(x='a'), f(x='a')]", _ONE, "simple").error_type == \
        "simple_function_checker:wrong_count"


def test_an_error_of_the_output_is_not_blamed_on_a_sound_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    # _entry_error rewords only a fault of the entry: anything else is raised as it came
    import ek.bfcl.checker as checker

    def broken(*args: Any) -> Any:
        raise TypeError("not the entry's fault")

    monkeypatch.setattr(checker, "_call_checker", broken)
    with pytest.raises(TypeError, match="not the entry's fault"):
        check(_schema({"x": {"type": "string"}}), "[f(x='a')]", _ONE, "simple")


def test_the_fast_predicate_and_the_worded_walk_agree(bfcl_data: Path) -> None:
    # on real data (the sample, and all of BFCL's when bfcl-eval is installed) both pass every function schema;
    # on the faults above, _well_formed is False and _schema_problem says what
    import importlib.util

    from ek.bfcl.checker import _schema_problem, _well_formed
    from ek.bfcl.data import read_questions

    spec = importlib.util.find_spec("bfcl_eval")
    folders = [bfcl_data] + ([Path(spec.origin).parent / "data"] if spec and spec.origin else [])
    seen = 0
    for path in (p for folder in folders for p in sorted(folder.glob("BFCL_v4_*.json"))):
        if "format_sensitivity" in path.name:  # not JSON lines: a configuration of BFCL's, no functions
            continue
        for question in read_questions(path):
            for func in question.functions:
                assert _well_formed([func]) == (_schema_problem(func) is None), (path.name, func["name"])
                seen += 1
    assert seen > 100
    for properties, required in ((_UNION, None), ({"x": 0}, None), ({"x": {"type": "string"}}, [["x"]])):
        (func,) = _schema(properties, required)
        assert not _well_formed([func]) and _schema_problem(func) is not None


def test_items_that_are_not_a_schema_are_no_item_type() -> None:
    funcs = [{"name": "f", "parameters": {"properties": {"x": {"type": "array", "items": "integer"}}}}]
    assert check(funcs, "[f(x=[1])]", [{"f": {"x": [[1]]}}], "simple").valid


def test_gold_calls_name_a_malformed_call() -> None:
    from ek.bfcl import gold_calls

    with pytest.raises(ValueError, match=r"ground_truth\[1\] must be \{func_name"):
        gold_calls([{"f": {}}, {"g": [1]}])


@pytest.mark.parametrize(
    ("output", "category", "message"),
    [
        ([{"get_weather": {"city": "Paris"}}], "simple",
         "Invalid value for parameter 'city': 'Paris'. Expected one of ['San Francisco, CA', 'SF']. Case insensitive."),
        ([{"get_weather": {"city": "SF", "days": "3"}}], "simple",
         "Incorrect type for parameter 'days'. Expected type integer, got str. Parameter value: '3'."),
        ([{"get_weather": {"city": "SF", "days": 4}}, {"get_weather": {"city": "SF"}}], "parallel",
         "Could not find a matching function call for index 0 of possible answers (get_weather) in any complete "
         "assignment. model call 0: value_error:others: Invalid value for parameter 'days': 4. Expected one of "
         "[3]."
         "; model call 1: simple_function_checker:missing_optional: Optional parameter 'days' not provided "
         "and not marked as optional."),
    ],
)
def test_a_verdict_built_lazily_is_the_verdict_of_its_message(output: Any, category: str, message: str) -> None:
    import copy
    import pickle

    import attrs

    answer = ANSWER if category == "simple" else [{"get_weather": {"city": ["SF"], "days": [3]}}] * 2

    def fresh() -> Verdict:  # each reader gets a verdict whose message was never read
        return check([WEATHER], copy.deepcopy(output), answer, category)

    eager = Verdict(False, fresh().error_type, message)
    assert fresh() == eager and eager == fresh() and hash(fresh()) == hash(eager)
    assert repr(fresh()) == repr(eager) and attrs.asdict(fresh()) == attrs.asdict(eager)
    assert pickle.loads(pickle.dumps(fresh())) == eager and copy.copy(fresh()) == eager
    assert attrs.evolve(fresh(), valid=True) == Verdict(True, eager.error_type, message)
    lazy = fresh()
    assert lazy.message == message and lazy.message is lazy.message  # built once, then kept
    with pytest.raises(AttributeError):
        _ = lazy.no_such_field


# BFCL's decoded form with a wrong number of calls, whatever the calls hold: a value JSON cannot hold (NaN, a
# set, an int past 4,300 digits), arguments that are not an object, an empty or a valid call.
_BAD_VALUES: list[Any] = [float("nan"), {1, 2}, 10**5000, ("a", "b")]
WRONG_COUNTS: list[tuple[list[Any], str, list[Any]]] = [
    ([{"get_weather": {"city": bad}}, {"get_weather": {"city": "SF"}}], "simple", ANSWER) for bad in _BAD_VALUES
] + [
    ([{"get_weather": 3}, {"get_weather": {}}], "simple", ANSWER),
    ([{"get_stock_price": {"company": float("nan")}}], "parallel",
     [{"get_stock_price": {"company": ["Apple"]}}, {"get_stock_price": {"company": ["Microsoft"]}}]),
    ([{"get_weather": {"city": {3}}}, {"get_stock_price": {"company": "Apple"}}], "multiple", ANSWER),
]


@pytest.mark.parametrize(("output", "category", "answer"), WRONG_COUNTS)
def test_a_decoded_output_with_a_wrong_number_of_calls_is_a_wrong_count_before_its_values_are_read(
        output: list[Any], category: str, answer: list[Any]) -> None:
    """As BFCL's checker, which takes the decoded form and counts the calls first: one-shot and prepared."""
    from ek.bfcl import prepare

    expected = f"{'simple' if category == 'simple' else category}_function_checker" + \
        ("_no_order" if category == "parallel" else "") + ":wrong_count"
    assert check([WEATHER, STOCK], output, answer, category).error_type == expected
    assert prepare([WEATHER, STOCK], answer, category).check(output).error_type == expected


@pytest.mark.skipif(load_bfcl_checker() is None, reason="bfcl-eval is not installed")
@pytest.mark.parametrize(("output", "category", "answer"), WRONG_COUNTS)
def test_the_wrong_count_of_a_decoded_output_is_bfcl_s_own_verdict(output: list[Any], category: str,
                                                                    answer: list[Any]) -> None:
    oracle = load_bfcl_checker()
    assert oracle is not None
    assert check([WEATHER, STOCK], output, answer, category).error_type == \
        oracle([WEATHER, STOCK], output, answer, category)["error_type"]


def test_with_the_right_number_of_calls_a_value_json_cannot_hold_is_still_a_decode_error() -> None:
    from ek.bfcl import prepare

    for bad in (float("nan"), {1, 2}):
        output = [{"get_weather": {"city": bad}}]
        assert check([WEATHER], output, ANSWER, "simple").error_type == "ast_decoder:decoder_failed"
        assert prepare([WEATHER], ANSWER, "simple").check(output).error_type == "ast_decoder:decoder_failed"


def test_a_list_in_another_form_is_read_before_its_calls_are_counted() -> None:
    """Steps, or objects that are not one-key: the calls are known once the list is read (a broken one is a
    decode error whatever its length)."""
    two_steps = [Step("get_weather", {"city": "SF"}), Step("get_weather", {"city": "SF"})]
    assert verdict(two_steps).error_type == "simple_function_checker:wrong_count"
    broken = [{"get_weather": {"city": "SF"}, "extra": 1}, {"get_weather": {"city": "SF"}}]
    assert verdict(broken).error_type == "ast_decoder:decoder_failed"


_FS_ID = "format_sensitivity_7:ret_fmt=python&tool_call_tag=False&func_doc_fmt=python&prompt_fmt=plaintext" \
    "&style=classic:{}"
_TWO_CITIES = [{"get_weather": {"city": ["SF"]}}, {"get_weather": {"city": ["LA"]}}]
_BOTH_CITIES = [{"get_weather": {"city": "LA"}}, {"get_weather": {"city": "SF"}}]


@pytest.mark.parametrize("original", ["parallel_9", "live_parallel_3-1-0"])
def test_a_format_sensitivity_entry_is_checked_as_its_original_question(original: str) -> None:
    # https://github.com/ShishirPatil/gorilla/issues/1215: BFCL checked every format-sensitivity entry with its
    # one-call checker (a right parallel output: wrong_count); its runner now passes the id's last part
    category = _FS_ID.format(original)
    assert check([WEATHER], _BOTH_CITIES, _TWO_CITIES, category) == Verdict(True)
    assert prepare([WEATHER], _TWO_CITIES, category).check(_BOTH_CITIES) == Verdict(True)
    assert check([WEATHER], _BOTH_CITIES[:1], _TWO_CITIES, category).error_type == \
        "parallel_function_checker_no_order:wrong_count"


@pytest.mark.parametrize("category", ["format_sensitivity", "format_sensitivity_7", _FS_ID.format("")])
def test_the_bare_format_sensitivity_category_says_what_to_pass(category: str) -> None:
    # the same issue: the category alone does not say which checker an entry needs (BFCL's ast_checker would
    # use the one-call checker, and fail a right parallel output), so ek asks for the original question
    with pytest.raises(ValueError, match="pass that question's category or id"):
        check([WEATHER], _BOTH_CITIES, _TWO_CITIES, category)
    with pytest.raises(ValueError, match="pass that question's category or id"):
        prepare([WEATHER], _TWO_CITIES, category)


def test_a_dict_argument_is_read_as_a_dict_whatever_its_values() -> None:
    # https://github.com/ShishirPatil/gorilla/issues/652 (fixed by PR 660): BFCL's execution decoder took a dict
    # argument for a nested call; its fix still takes a dict whose values are all dicts for one. ek reads
    # literals only, so a dict is a dict at any depth.
    funcs = [{"name": "f", "parameters": {"type": "dict", "required": ["headers"], "properties": {
        "headers": {"type": "dict", "properties": {"auth": {"type": "dict"}, "host": {"type": "string"}}}}}}]
    answer = [{"f": {"headers": [{"auth": [{"key": "xxx"}], "host": ["covid-193.p.rapidapi.com"]}]}}]
    text = '[f(headers={"auth": {"key": "xxx"}, "host": "covid-193.p.rapidapi.com"})]'
    assert check(funcs, text, answer, "simple") == Verdict(True)
    assert check(funcs, '[f(headers={"auth": {"key": "yyy"}, "host": "covid-193.p.rapidapi.com"})]', answer,
                 "simple").error_type == "value_error:dict_value"


def _bfcl_entry(category: str, entry_id: str) -> tuple[Any, Any]:
    """One entry of BFCL's full data (functions, ground truth), from the installed bfcl-eval (else skipped)."""
    import importlib.util

    from ek.bfcl import load_category

    spec = importlib.util.find_spec("bfcl_eval")
    if spec is None or spec.origin is None:
        pytest.skip("bfcl-eval is not installed (pip install --no-deps bfcl-eval)")
    path = Path(spec.origin).parent / "data" / f"BFCL_v4_{category}.json"
    episode = next(e for e in load_category(path) if e.id == entry_id)
    return list(episode.functions), list(episode.ground_truth)


_BODY = [{"name": "f", "parameters": {"type": "dict", "required": ["body"], "properties": {"body": {
    "type": "dict", "properties": {"mode": {"type": "string"}, "wind": {"type": "string"}}}}}}]


@pytest.mark.parametrize(("body", "error_type"), [
    ({"mode": "COOL"}, "value_error:dict_key"),                 # a wrong value, and a key left out: BFCL's last error
    ({"mode": "AIR_CLEAN", "x": 1}, "value_error:dict_key"),    # an unexpected key, and a key left out
    ({"mode": "COOL", "wind": "HIGH"}, "value_error:dict_value"),
])
def test_a_dict_key_left_out_is_the_verdict_even_after_a_wrong_value(body: Any, error_type: str) -> None:
    answer = [{"f": {"body": [{"mode": ["AIR_CLEAN"], "wind": ["HIGH"]}]}}]
    assert check(_BODY, [{"f": {"body": body}}], answer, "simple_python").error_type == error_type
    assert prepare(_BODY, answer, "simple_python").check([{"f": {"body": body}}]).error_type == error_type
    oracle = load_bfcl_checker()
    if oracle is not None:
        assert oracle(_BODY, [{"f": {"body": body}}], answer, "simple_python")["error_type"] == error_type


def test_a_dict_key_left_out_after_a_wrong_value_on_the_real_entry() -> None:
    # live_simple_40-17-0: airConJobMode wrong (COOL for AIR_CLEAN) and windStrength left out
    functions, truth = _bfcl_entry("live_simple", "live_simple_40-17-0")
    output = [{"ThinQ_Connect": {"body": {"airConJobMode": "COOL", "monitoringEnabled": True,
                                          "airCleanOperationMode": "POWER_ON"}}}]
    verdict = check(functions, output, truth, "live_simple")
    assert verdict.error_type == "value_error:dict_key" and "windStrength" in verdict.message
    oracle = load_bfcl_checker()
    assert oracle is not None and oracle(functions, output, truth, "live_simple")["error_type"] == verdict.error_type


def test_a_nested_answer_value_given_bare_is_required_where_bfcl_makes_it_optional() -> None:
    # BFCL's missing-key test `"" not in value` is a substring test on a bare string: the key becomes optional,
    # so leaving it out passes BFCL; ek requires the one acceptable value (docs/bfcl.md, difference 5)
    funcs = [{"name": "make", "parameters": {"type": "dict", "properties": {"meta": {"type": "dict"}},
                                             "required": ["meta"]}}]
    answer = [{"make": {"meta": [{"format": "epoch_millis"}]}}]
    assert check(funcs, [{"make": {"meta": {}}}], answer, "simple").error_type == "value_error:dict_key"
    oracle = load_bfcl_checker()
    if oracle is not None:
        assert oracle(funcs, [{"make": {"meta": {}}}], answer, "simple")["valid"]
    functions, truth = _bfcl_entry("simple_java", "simple_java_64")
    output = [{"DateScriptFieldType.createFieldType": {
        "name": "timestamp", "factory": "dateFactory", "script": "dateScript",
        "meta": "new HashMap<String, Object>() {{ }}", "onScriptError": "FAIL"}}]
    assert check(functions, output, truth, "simple_java").error_type == "value_error:dict_key"
    assert oracle is not None and oracle(functions, output, truth, "simple_java")["valid"]


def test_difference_a_decoded_tuple_is_a_list_as_the_same_text_is() -> None:
    # docs/bfcl.md, difference 6: BFCL's decoder makes a tuple of `p=(1, 2)`; ek reads text and decoding alike
    funcs = [{"name": "f", "parameters": {"type": "dict", "required": [], "properties": {
        "p": {"type": "array", "items": {"type": "integer"}}, "d": {"type": "dict", "properties": {}}}}}]
    for args, answer, theirs in (({"p": (1, 2)}, {"p": [[1, 2]]}, "type_error:simple"),
                                 ({"d": {"k": (1, 2)}}, {"d": [{"k": [[1, 2]]}]}, "value_error:dict_value")):
        truth = [{"f": answer}]
        assert check(funcs, [{"f": args}], truth, "simple_python").valid
        assert check(funcs, f"[f({next(iter(args))}={next(iter(args.values()))!r})]", truth, "simple_python").valid
        oracle = load_bfcl_checker()
        if oracle is not None:
            assert oracle(funcs, [{"f": args}], truth, "simple_python")["error_type"] == theirs


@pytest.mark.parametrize("text", ["(f(i=16))", "[(f(i=16))]", "[((f(i=(16))))]", "```\n(f(i=16))\n```"])
def test_a_call_in_redundant_parentheses_is_the_call_as_in_bfcls_decoder(text: str) -> None:
    from ek.bfcl.oracle import load_bfcl_decoder

    funcs = [{"name": "f", "parameters": {"type": "dict", "required": ["i"], "properties": {"i": {"type": "integer"}}}}]
    answer = [{"f": {"i": [16]}}]
    assert check(funcs, text, answer, "simple_python") == Verdict(True)
    assert prepare(funcs, answer, "simple_python").check(text) == Verdict(True)
    decode, oracle = load_bfcl_decoder(), load_bfcl_checker()
    if decode is not None and oracle is not None:
        assert oracle(funcs, decode(text), answer, "simple_python")["valid"]
    wrong = check(funcs, text.replace("f(i=", "f(i=(1,"), answer, "simple_python")  # unclosed: Python's error
    assert wrong.error_type == "ast_decoder:decoder_failed" and "JSON" not in wrong.message, wrong.message


def _kuhn_reference(funcs: Any, output: list[Any], answers: list[Any]) -> tuple[bool, str, str]:
    """A parallel output's verdict by the plain reading: every (answer, call) pair checked by _call_checker,
    Kuhn's matching in order, the first unmatched answer's row of verdicts in the message."""
    from ek.bfcl import checker
    from ek.scorer.assign import max_matching

    calls = [next(iter(item.items())) for item in output]
    ctx = checker._CONTEXTS[False]["python"]
    table = [[checker._call_checker(funcs[0], answer, ctx, call) for call in calls] for answer in answers]
    assignment = max_matching(len(answers), len(calls), lambda i, j: table[i][j].valid)
    first = next((i for i, matched in enumerate(assignment) if matched is None), None)
    if first is None:
        return True, "", ""
    verdict = checker._no_match(first, answers, table[first])
    return False, verdict.error_type, verdict.message


_SAME = [{"name": "f", "parameters": {"type": "dict", "required": ["s"], "properties": {
    "s": {"type": "string"}, "n": {"type": "integer"}}}}]


@pytest.mark.parametrize("seed", range(60))
def test_many_interchangeable_parallel_calls_get_the_plain_matchings_verdict(seed: int) -> None:
    # answers and calls drawn from a few contents, so that many are alike (the case the matching's shortcuts
    # are for), shuffled: check and a prepared entry give the verdict and the message of Kuhn's matching in order
    import random

    rng = random.Random(seed)
    n = rng.randint(2, 12)
    answers = [{"f": {"s": [rng.choice(["a", "b"])], **({"n": [rng.choice([1, 2]), ""]} if rng.random() < .5 else {})}}
               for _ in range(n)]
    output = [{"f": {"s": rng.choice(["a", "b", "c"]), **({"n": rng.choice([1, 2, 1.0, True])} if rng.random() < .4
                                                           else {})}} for _ in range(n)]
    expected = _kuhn_reference(_SAME, output, answers)
    for verdict in (check(_SAME, output, answers, "parallel"), prepare(_SAME, answers, "parallel").check(output)):
        assert (verdict.valid, verdict.error_type, verdict.message) == expected


@pytest.mark.slow
def test_interchangeable_parallel_answers_and_a_call_fitting_none_cost_the_square_not_the_cube() -> None:
    # n answers alike, n - 1 calls that fit them and one that fits none (the audit's repro/r8_perf.py): four
    # times n cost about sixteen times the CPU time (1.9 s for n = 400, the cube's growth, before)
    import time

    def cpu(n: int) -> float:
        answers = [{"f": {"s": ["a"]}} for _ in range(n)]
        output = [{"f": {"s": "b"}}] + [{"f": {"s": "a"}} for _ in range(n - 1)]
        best = 1e9
        for _ in range(3):
            started = time.process_time()
            verdict = check(_SAME, output, answers, "parallel")
            best = min(best, time.process_time() - started)
        assert verdict.error_type == "parallel_function_checker_no_order:cannot_find_match"
        return max(best, 1e-4)

    small, large = cpu(150), cpu(600)
    assert large / small < 40, (small, large)  # (about 22 measured; the cube's 64)
