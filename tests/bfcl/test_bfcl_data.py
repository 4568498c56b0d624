"""Reading BFCL files and converting ground truths to ek gold calls."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ek.bfcl import BfclDataError, gold_calls, pair_up, read_possible_answers, read_questions
from ek.calls import Step
from ek.values import OMITTABLE, OneOf


def test_reads_real_sample_files(bfcl_data: Path) -> None:
    questions = read_questions(bfcl_data / "BFCL_v4_simple_python.json")
    answers = read_possible_answers(bfcl_data / "possible_answer" / "BFCL_v4_simple_python.json")
    assert questions[0].id == "simple_python_0"
    assert questions[0].functions[0]["name"] == "calculate_triangle_area"
    pairs = pair_up(questions, answers)
    assert len(pairs) == len(questions) >= 20
    assert gold_calls(pairs[0][1].ground_truth) == [
        Step("calculate_triangle_area", {"base": 10, "height": 5, "unit": OneOf("units", OMITTABLE)})
    ]


def test_gold_conversion_of_nested_answers() -> None:
    truth = [{"f": {"params": [{"limit": [50], "filter": ["public", ""]}], "tags": [["a", "b"], ["b", "a"]],
                    "never": []}}]
    (step,) = gold_calls(truth)
    assert step.args == {
        "params": {"limit": 50, "filter": OneOf("public", OMITTABLE)},
        "tags": OneOf(["a", "b"], ["b", "a"]),
        "never": OMITTABLE,
    }


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ('{"id": "a", "function": [{"name": "f"}]}\nnot json\n', ":2: not JSON lines"),
        ('[1, 2]\n', ":1: expected a JSON object"),
        ('{"function": []}\n', "'id' must be a str"),
        ('{"id": "a", "function": [{"description": "no name"}]}\n', "'function' must be a list of objects with a 'name'"),
        ('{"id": "a"}\n' + "[" * 100_000 + "]" * 100_000 + "\n", ":2: JSON nests too deeply"),
        ('{"id": "a"}\n{"id": "b", "function": [], "x": "\xff"}\n'.encode("latin-1"), ":2: not UTF-8"),
        ('{\n  "simple_python": ["simple_python_58"]\n}\n', ":1: not JSON lines"),
    ],
)
def test_bad_question_lines_name_file_and_line(tmp_path: Path, text: str | bytes, fragment: str) -> None:
    path = tmp_path / "q.json"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    with pytest.raises(BfclDataError) as info:
        read_questions(path)
    assert str(info.value).startswith(str(path))
    assert fragment in str(info.value)


def test_bad_answers_and_unpaired_questions(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_text('{"id": "a", "ground_truth": [{"f": [1]}]}\n')
    with pytest.raises(BfclDataError, match=r"ground_truth\[0\] must be"):
        read_possible_answers(path)
    q = tmp_path / "q.json"
    q.write_text('{"id": "a", "function": []}\n{"id": "b", "function": []}\n')
    path.write_text('{"id": "a", "ground_truth": []}\n')
    with pytest.raises(BfclDataError, match=r"no possible answer for 1 question\(s\), e.g. \['b'\]"):
        pair_up(read_questions(q), read_possible_answers(path))


def test_load_category_scores_with_the_metric(bfcl_data: Path) -> None:
    import random

    from ek import ToolCallMetric
    from ek.bfcl import load_category
    from ek.bfcl.variants import correct_output

    episodes = load_category(bfcl_data / "BFCL_v4_parallel.json")
    assert episodes[0].category == "parallel" and episodes[0].id == "parallel_0"
    metric = ToolCallMetric(format="bfcl")
    for episode in episodes:
        grammar = episode.grammar()
        assert {t.name for t in grammar.tools} == {f["name"] for f in episode.functions}
        right = correct_output(episode.ground_truth, random.Random(0))[::-1]
        assert metric(right, episode.gold()).f1 == 1.0, episode.id
    with pytest.raises(BfclDataError, match="not a BFCL file name"):
        load_category(bfcl_data / "README.md")


def _decoded(decode: object, line: str) -> tuple[str, str]:
    import json

    try:
        return "ok", repr(decode(line))  # type: ignore[operator]
    except json.JSONDecodeError as exc:
        return "error", f"{exc.msg} {exc.pos} {exc.colno}"
    except (ValueError, RecursionError) as exc:
        return type(exc).__name__, str(exc)


def test_json_object_fast_path_decodes_as_json_loads() -> None:
    """``_json_object`` (the scanner run directly on a ``{...}`` line) gives what ``json.loads`` gives: the
    same value, or the same error, on objects with and without line breaks, blanks around them and damage."""
    import json

    from hypothesis import given, settings
    from hypothesis import strategies as st

    from ek.bfcl import data

    values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=4),
                          lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner,
                                                                                       max_size=3), max_leaves=8)
    objects = st.dictionaries(st.text(max_size=4), values, max_size=4).map(json.dumps)
    lines = st.builds(lambda lead, text, cut, tail: lead + (text[:cut] if cut is not None else text) + tail,
                      st.sampled_from(["", " ", "\ufeff", "\t"]), objects | st.sampled_from(["{", "{}x", "[1]", "{\"a\": NaN}",
                                                                                         "{\"a\": 1e999}", "1", ""]),
                      st.none() | st.integers(0, 12), st.sampled_from(["", "\n", "\r\n", " \n", "\n\n", "x", "\r", "}"]))

    @settings(max_examples=500, deadline=None)
    @given(lines)
    def check(line: str) -> None:
        assert _decoded(data._json_object, line) == _decoded(json.loads, line)

    check()
    assert _decoded(data._json_object, "{" * 100_000 + "}" * 100_000 + "\n") == _decoded(
        json.loads, "{" * 100_000 + "}" * 100_000 + "\n")
    assert _decoded(data._json_object, '{"n": ' + "9" * 5000 + "}\n") == _decoded(json.loads, '{"n": ' + "9" * 5000 + "}\n")


def test_underscored_entries_are_what_an_underscore_to_dot_model_was_shown() -> None:
    from ek.bfcl import PossibleAnswer, Question, underscored_answer, underscored_question

    functions = ({"name": "math.hypot", "parameters": {"properties": {"x": {"type": "integer"}}}}, {"name": "ping"})
    question = Question("simple_python_1", functions, [[{"role": "user", "content": "x"}]])
    shown = underscored_question(question)
    assert [f["name"] for f in shown.functions] == ["math_hypot", "ping"]
    assert shown.functions[0]["parameters"] is functions[0]["parameters"] and shown.functions[1] is functions[1]
    assert functions[0]["name"] == "math.hypot"  # the entry read is not changed
    plain = Question("simple_python_2", ({"name": "ping"},))
    assert underscored_question(plain) is plain
    answer = PossibleAnswer("simple_python_1", ({"a.b.c": {"x": [1]}}, {"ping": {}}))
    assert underscored_answer(answer).ground_truth == ({"a_b_c": {"x": [1]}}, {"ping": {}})
    turns = PossibleAnswer("multi_turn_base_0", (["cd(folder='a.b')"], ["ls()"]))
    assert turns.multi_turn and underscored_answer(turns) is turns
    text = PossibleAnswer("web_search_0", ("3.5 million", "3,500,000"))  # a "." in answer text names no function
    assert text.answer_text and underscored_answer(text) is text


def test_underscore_to_dot_reads_every_category_s_answers_answer_text_included(tmp_path: Path) -> None:
    """`ek score --underscore-to-dot` on BFCL's answer folder crashed (AttributeError) on a web_search answer
    with a "." in its text; it is kept as unreadable, as without the option."""
    from ek.corpus.reading import load_bfcl_answers

    path = tmp_path / "BFCL_v4_web_search.json"
    path.write_text(json.dumps({"id": "web_search_0", "ground_truth": ["3.5 million"]}) + "\n"
                    + json.dumps({"id": "simple_python_0", "ground_truth": [{"math.hypot": {"x": [3]}}]}) + "\n")
    entries, errors = load_bfcl_answers(path, underscore_to_dot=True)
    assert not errors and "web_search_0" in entries["web_search_0"].unreadable
    assert entries["simple_python_0"].gold[0].name == "math_hypot"
