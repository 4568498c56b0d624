"""Java and JavaScript argument values: source text read as one value of its declared type, or kept as text."""

from __future__ import annotations

import pytest

from ek.bfcl import check
from ek.bfcl.javalike import convert_java, convert_js, enclosed, source_value, typed_calls
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
