"""Java and JavaScript argument values: source text read as one value of its declared type, or kept as text."""

from __future__ import annotations

import pytest

from ek.bfcl import check
from ek.bfcl.javalike import convert_java, convert_js, decode_calls, enclosed, source_value, typed_calls
from ek.calls import Step


@pytest.mark.parametrize(("text", "type_name", "item", "value"), [
    ("[1.5, 2]", "array", "float", [1.5, 2]),
    ("new Array(1, 'a')", "array", None, [1, "a"]),
    ("[1.5, 2], [3, 4]", "array", "float", "[1.5, 2], [3, 4]"),  # two arrays side by side: no one array
    ("[1, 2] + [3]", "array", None, "[1, 2] + [3]"),
    ("{a: 1}, {b: 2}", "dict", None, "{a: 1}, {b: 2}"),
    ("{a: [1, ']'], b: 'x'}", "dict", None, {"a": [1, "]"], "b": "x"}),
])
def test_a_javascript_collection_is_read_only_when_its_brackets_hold_all_of_it(text: str, type_name: str,
                                                                               item: str | None, value: object) -> None:
    assert convert_js(text, type_name, item) == value


@pytest.mark.parametrize(("text", "value"), [
    ("new int[]{1, 2}", [1, 2]),
    ("new int[]{1}, {2}", "new int[]{1}, {2}"),
    ("Arrays.asList(1, 2)", [1, 2]),
    ("Arrays.asList(1), Arrays.asList(2)", "Arrays.asList(1), Arrays.asList(2)"),
])
def test_a_java_collection_is_read_only_when_its_brackets_hold_all_of_it(text: str, value: object) -> None:
    assert convert_java(text, "ArrayList", "integer") == value


def test_enclosed_respects_quotes_and_nesting() -> None:
    assert enclosed("['[', \"]\", [[]]]") and not enclosed("[a] [b]") and not enclosed("[unclosed")
    assert enclosed("f({1})", 1) and not enclosed("({1}) + (2)")


def test_typed_calls_convert_the_declared_parameters_of_offered_functions_only() -> None:
    functions = [{"name": "Geo.create", "parameters": {"type": "dict", "properties": {
        "ids": {"type": "Array", "items": {"type": "integer"}}, "on": {"type": "boolean"},
        "name": {"type": "String"}}}}]
    steps = [Step("Geo.create", {"ids": "new int[]{1, 2}", "on": "true", "name": "mapArea", "extra": "7",
                                 "typed": [1]}),
             Step("Other.call", {"ids": "new int[]{1, 2}"})]
    assert typed_calls(steps, functions, "java") == [
        Step("Geo.create", {"ids": [1, 2], "on": True, "name": "mapArea", "extra": "7", "typed": [1]}),
        Step("Other.call", {"ids": "new int[]{1, 2}"})]
    assert source_value("7", {"type": ["integer"]}, "java") == "7"  # a type that is not a BFCL type name


def test_check_reads_side_by_side_arrays_as_text_not_as_a_broken_array() -> None:
    functions = [{"name": "rotate", "parameters": {"type": "dict", "properties": {
        "v": {"type": "array", "items": {"type": "float"}}}, "required": ["v"]}}]
    answer = [{"rotate": {"v": [[1.0, 2.0]]}}]
    assert check(functions, '[rotate(v="[1.0, 2.0]")]', answer, "simple_javascript").valid
    verdict = check(functions, '[rotate(v="[1.0, 2.0], [3.0, 4.0]")]', answer, "simple_javascript")
    assert not verdict.valid and "'[1.0, 2.0], [3.0, 4.0]'" in verdict.message


# A function-calling model's decoded Java/JavaScript values are converted as BFCL converts them: a scalar as
# given (no whitespace stripped; BFCL's `re.match("^...$")` takes one line break at the end of a number),
# a collection stripped (BFCL searches the text for it).
_PADDED = [
    ("java", "String", "mapController\n", "value_error:string"),
    ("java", "String", " mapController", True),            # BFCL's standardisation drops spaces, not line breaks
    ("java", "integer", " 5", "type_error:simple"),
    ("java", "integer", "5 ", "type_error:simple"),
    ("java", "integer", "5\n", True),                       # Python's `$` matches before a final line break
    ("java", "integer", "5\n\n", "type_error:simple"),
    ("java", "long", "5L\n", True),
    ("java", "double", "\t5.0", "type_error:simple"),
    ("java", "boolean", "true ", "type_error:simple"),
    ("java", "any", "mapController\t", "value_error:string"),
    ("java", "Array", " new int[]{5} ", True),
    ("javascript", "String", "userInputField\t", "value_error:string"),
    ("javascript", "String", "'userInputField' ", "value_error:string"),
    ("javascript", "integer", " 5", "type_error:simple"),
    ("javascript", "float", "5\n", True),
    ("javascript", "any", "listElement\xa0", "value_error:string"),
    ("javascript", "array", " [5] ", True),
]


@pytest.mark.parametrize(("language", "type_name", "value", "verdict"), _PADDED)
def test_a_decoded_scalar_keeps_its_whitespace_as_in_bfcl(language: str, type_name: str, value: str,
                                                          verdict: object) -> None:
    from ek.bfcl.oracle import load_bfcl_checker

    text = type_name in ("String", "any")
    items = {"items": {"type": "integer"}} if type_name in ("Array", "array") else {}
    funcs = [{"name": "f", "parameters": {"type": "dict", "required": ["c"],
                                          "properties": {"c": {"type": type_name, **items}}}}]
    right = ("mapController" if "map" in value else "userInputField" if "user" in value else "listElement") \
        if text else [5] if items else True if type_name == "boolean" else 5
    answer = [{"f": {"c": [right]}}]
    category = f"simple_{language}"
    got = check(funcs, [{"f": {"c": value}}], answer, category)
    assert (got.valid if verdict is True else got.error_type) == verdict
    oracle = load_bfcl_checker()
    if oracle is not None:
        theirs = oracle(funcs, [{"f": {"c": value}}], answer, category)
        assert (theirs["valid"] if verdict is True else theirs["error_type"]) == verdict


@pytest.mark.parametrize("text", ["new HashMap<>()", "new HashMap<String, Object>()", "new HashMap<>() {}",
                                  "new HashMap<String, Object>() {{ }}", " new HashMap<>() "])
def test_an_empty_java_hashmap_is_an_empty_dict_as_in_bfcl(text: str) -> None:
    from ek.bfcl.oracle import load_bfcl_checker

    assert convert_java(text, "HashMap") == {}
    funcs = [{"name": "f", "parameters": {"type": "dict", "required": ["m"], "properties": {"m": {"type": "HashMap"}}}}]
    answer = [{"f": {"m": [{"limit": ["", 50]}]}}]  # every key optional: {} is right
    assert check(funcs, [{"f": {"m": text}}], answer, "simple_java").valid
    assert check(funcs, f"[f(m={text.strip()})]", answer, "simple_java").valid
    oracle = load_bfcl_checker()
    if oracle is not None:
        assert oracle(funcs, [{"f": {"m": text}}], answer, "simple_java")["valid"]
    assert convert_java("new HashMap<>() {{ put(\"a\", 1); }", "HashMap") == 'new HashMap<>() {{ put("a", 1); }'


_JAVA_FUNCTIONS = [{"name": "Geo.create", "description": "", "parameters": {"type": "dict", "properties": {
    "controller": {"type": "any"}, "ids": {"type": "Array", "items": {"type": "integer"}},
    "strict": {"type": "boolean"}}, "required": ["controller", "ids"]}}]
_JAVA_ANSWER = [{"Geo.create": {"controller": ["mapController"], "ids": [[1, 2]], "strict": [True, ""]}}]


@pytest.mark.parametrize(
    "text",
    [
        # Salesforce xLAM-2's answer as BFCL saves it (BFCL's xLAM handler json.loads it, then name and arguments)
        '[{"name": "Geo.create", "arguments": {"controller": "mapController", "ids": "new int[]{1, 2}"}}]',
        '{"name": "Geo.create", "arguments": {"controller": "mapController", "ids": "new int[]{1, 2}"}}',
        '```json\n[{"name": "Geo.create", "parameters": {"controller": "mapController", "ids": "new int[]{1, 2}"}}]\n```',
        ' [ {"Geo.create": {"controller": "mapController", "ids": "new int[]{1, 2}"}}]',
    ],
)
def test_java_text_that_is_json_calls_is_read_as_json_as_in_python_categories(text: str) -> None:
    # No Java or JavaScript call starts with "{": such a text is a local function-calling model's JSON calls,
    # whose values are the source text BFCL's handler hands its checker, not one unreadable Java expression.
    assert decode_calls(text, "java") == [Step("Geo.create", {"controller": "mapController", "ids": "new int[]{1, 2}"})]
    verdict = check(_JAVA_FUNCTIONS, text, _JAVA_ANSWER, "simple_java")
    assert (verdict.valid, verdict.error_type) == (True, "")
    typed = '[{"name": "Geo.create", "arguments": {"controller": "mapController", "ids": "new int[]{1, 2}", "strict": true}}]'
    verdict = check(_JAVA_FUNCTIONS, typed, _JAVA_ANSWER, "simple_java")
    assert (verdict.valid, verdict.error_type) == (False, "type_error:java")  # a JSON true is no Java source, as in BFCL
