"""BFCL v4's format-sensitivity entries (ek.bfcl.variation, ek.bfcl.xmlcalls): their ids, and their outputs read in
the return format each prompt asked for, as BFCL's own decoder reads them, never evaluated."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape, quoteattr

import pytest

from ek.bfcl import pair_up, read_possible_answers, read_questions
from ek.bfcl.oracle import load_bfcl_variation_decoder
from ek.bfcl.variation import decode_variation, original_id, prompt_variation
from ek.calls import Step
from ek.parsing import ParseError, to_python

CONFIG = "ret_fmt={fmt}&tool_call_tag={tag}&func_doc_fmt=json&prompt_fmt=plaintext&style=classic"
FORMATS = ("python", "json", "verbose_xml", "concise_xml")


def variation(fmt: str, tag: bool = False, original: str = "simple_python_1") -> Any:
    found = prompt_variation(f"format_sensitivity_7:{CONFIG.format(fmt=fmt, tag=tag)}:{original}")
    assert found is not None
    return found


@pytest.mark.parametrize("entry_id", [
    "simple_python_58",
    "format_sensitivity_1:ret_fmt=yaml&tool_call_tag=True&func_doc_fmt=json&prompt_fmt=plaintext&style=classic:x_1",
    "format_sensitivity_1:ret_fmt=json&tool_call_tag=yes&func_doc_fmt=json&prompt_fmt=plaintext&style=classic:x_1",
    "format_sensitivity_x:ret_fmt=json&tool_call_tag=True&func_doc_fmt=json&prompt_fmt=plaintext&style=classic:x_1",
    "format_sensitivity_1:ret_fmt=json&tool_call_tag=True&func_doc_fmt=json&prompt_fmt=plaintext&style=classic:",
    "format_sensitivity_1:ret_fmt=json&tool_call_tag=True&func_doc_fmt=json&prompt_fmt=plaintext&style=classic:a:b",
    "format_sensitivity_1:ret_fmt=json&tool_call_tag=True&func_doc_fmt=json&prompt_fmt=plaintext:x_1",
    7,
    None,
])
def test_only_an_id_bfcl_would_read_is_a_prompt_variation(entry_id: Any) -> None:
    assert prompt_variation(entry_id) is None and original_id(entry_id) == entry_id


def test_a_prompt_variation_id_names_its_configuration_and_question() -> None:
    v = prompt_variation("format_sensitivity_42:ret_fmt=verbose_xml&tool_call_tag=False&func_doc_fmt=xml"
                         "&prompt_fmt=markdown&style=experimental:live_simple_23-5-1")
    assert v is not None
    assert (v.number, v.original_id, v.return_format, v.tool_call_tag, v.function_doc_format, v.prompt_format,
            v.style) == (42, "live_simple_23-5-1", "verbose_xml", False, "xml", "markdown", "experimental")
    assert v.category == "format_sensitivity:verbose_xml,no-tag,xml,markdown,experimental"
    assert v.format_name == "bfcl-verbose_xml"


# --- outputs written in each format, as the prompts ask, read as BFCL's decoder reads them ----------------------

def _xml_type(value: Any) -> str:
    return {bool: "boolean", int: "integer", float: "float", str: "string", list: "array", dict: "dict",
            type(None): "null"}[type(value)]


def _xml_text(value: Any) -> str:
    return value if type(value) is str else repr(value)


def written(calls: list[Step], fmt: str, tag: bool) -> str:
    """``calls`` as a model following the prompt of ``fmt`` writes them."""
    if fmt == "python":
        text = to_python(calls)
    elif fmt == "json":
        text = "```json\n" + json.dumps([{"function": s.name, "parameters": s.args} for s in calls]) + "\n```"
    elif fmt == "verbose_xml":
        text = "<functions>" + "".join(
            f'<function name={quoteattr(s.name)}><params>' + "".join(
                f"<param name={quoteattr(k)} value={quoteattr(_xml_text(v))} type=\"{_xml_type(v)}\"/>"
                for k, v in s.args.items()) + "</params></function>" for s in calls) + "</functions>"
    else:
        text = "<functions>" + "".join(
            f"<function name={quoteattr(s.name)}>" + "".join(
                f"<param name={quoteattr(k)} type=\"{_xml_type(v)}\">{escape(_xml_text(v))}</param>"
                for k, v in s.args.items()) + "</function>" for s in calls) + "</functions>"
    return f"<TOOLCALL>{text}</TOOLCALL>" if tag else text


def _first_choices(ground_truth: list[dict[str, Any]]) -> list[Step]:
    calls = []
    for call in ground_truth:
        ((name, params),) = call.items()
        args = {}
        for param, options in params.items():
            chosen = [o for o in options if o != ""]
            if chosen:
                args[param] = chosen[0]
        calls.append(Step(name, args))
    return calls


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value))


decoder = load_bfcl_variation_decoder()


def _format_sensitivity_questions() -> list[tuple[str, list[Step]]]:
    """Every question BFCL asks in its format-sensitivity category, with its gold's first choices as calls."""
    spec = importlib.util.find_spec("bfcl_eval")
    assert spec is not None and spec.origin is not None
    data = Path(spec.origin).parent / "data"
    ids = json.loads((data / "BFCL_v4_format_sensitivity.json").read_text(encoding="utf-8"))
    out = []
    for category, wanted in ids.items():
        answers = {a.id: a for a in read_possible_answers(data / "possible_answer" / f"BFCL_v4_{category}.json")}
        for question, answer in pair_up(read_questions(data / f"BFCL_v4_{category}.json"), list(answers.values())):
            if question.id in wanted:
                out.append((question.id, _first_choices(list(answer.ground_truth))))
    return out


@pytest.mark.skipif(decoder is None, reason="bfcl-eval is not installed (pip install --no-deps bfcl-eval)")
@pytest.mark.parametrize("tag", [False, True])
@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_sensitivity_question_written_in_each_format_reads_as_bfcls_decoder_reads_it(
        fmt: str, tag: bool) -> None:
    assert decoder is not None
    questions = _format_sensitivity_questions()
    assert len(questions) == 200
    differ = []
    for question_id, calls in questions:
        text = written(calls, fmt, tag)
        ours = [{s.name: s.args} for s in decode_variation(text, variation(fmt, tag, question_id))]
        theirs = decoder(text, fmt, tag)
        if _plain(ours) != _plain(theirs) and not _nested_objects_bfcl_misreads(fmt, text, theirs):
            differ.append((question_id, text, ours, theirs))
        assert ours == [{s.name: s.args} for s in calls]  # and ek reads back what was written
    assert not differ, differ[:3]


def _nested_objects_bfcl_misreads(fmt: str, text: str, theirs: list[Any]) -> bool:
    """The difference docs/bfcl.md documents: BFCL's JSON decoder finds the list with a lazy regular expression
    (``\\[\\s*{.*?}\\s*(?:,\\s*{.*?}\\s*)*\\]``), which stops inside an argument that is itself a list of objects,
    and reads the cut text's JSON error as no calls; ek reads the whole list."""
    return fmt == "json" and theirs == [] and text.count("[{") > 1


@pytest.mark.parametrize(("fmt", "text", "calls"), [
    ("python", "[f(x=1), g(s='a')]", [Step("f", {"x": 1}), Step("g", {"s": "a"})]),
    ("python", "```python\nf(x=1)\n```", [Step("f", {"x": 1})]),
    ("json", 'Sure:\n```json\n[{"function": "f", "parameters": {"x": [1, 2]}, "id": 3}]\n```\nDone.',
     [Step("f", {"x": [1, 2]})]),
    ("json", '{"function": "f", "parameters": {}}', [Step("f", {})]),
    ("json", "I cannot call any of these functions.", []),
    ("verbose_xml", '<functions><function name="f"><param name="q" value="a &amp; b" type="string"/>'
                    '</function></functions>', [Step("f", {"q": "a & b"})]),
    ("verbose_xml", '```xml\n<functions>\n  <function name="f">\n    <params>\n'
                    '      <param name="n" value=" 12 " type="integer"/>\n'
                    '      <param name="t" value="(1, 2)" type="tuple"/>\n'
                    "      <param name='d' value=\"{'k': None}\" type='dict'/>\n"
                    '      <param name="b" value="TRUE" type="boolean"/>\n'
                    '      <param name="z" value="" type="null"/>\n'
                    '    </params>\n  </function>\n</functions>\n```',
     [Step("f", {"n": 12, "t": [1, 2], "d": {"k": None}, "b": True, "z": None})]),
    ("concise_xml", '<functions><!-- two calls --><function name="f"><param name="x" type="float"> 2.5 </param>'
                    '<param name="s" type="string"><![CDATA[<b>&</b>]]></param></function>'
                    '<function name="g"/></functions>',
     [Step("f", {"x": 2.5, "s": "<b>&</b>"}), Step("g", {})]),
    ("concise_xml", '<functions><function name="f"><param name="n" type="int">5</param></function></functions>',
     [Step("f", {"n": "5"})]),  # a type BFCL's prompt does not name: the text, as BFCL reads it
    ("concise_xml", '<functions><function name="f"><param name="c" type="string">&#233;&#x263A;</param>'
                    '</function></functions>', [Step("f", {"c": "\u00e9\u263a"})]),
])
def test_outputs_of_each_format_are_read(fmt: str, text: str, calls: list[Step]) -> None:
    assert decode_variation(text, variation(fmt)) == calls
    assert decode_variation(f"Calling now. <TOOLCALL>{text}</TOOLCALL> That is all.", variation(fmt, True)) == calls


@pytest.mark.parametrize(("fmt", "tag", "text", "fragment", "cut_short"), [
    ("python", True, "[f(x=1)]", "no <TOOLCALL>: this prompt asked for the calls inside", False),
    ("json", True, '<TOOLCALL>[{"function": "f", "parameters": {}}]', "<TOOLCALL> is not closed", True),
    ("json", False, '[{"function": "f", "parameters": {"x": 1}', "cut short", True),
    ("json", False, '[{"name": "f", "arguments": {}}]', 'a call needs "function"', False),
    ("json", False, '[{"function": "f", "parameters": [1]}]', '"parameters" of \'f\' must be an object', False),
    ("json", False, '["f"]', "expected a call", False),
    ("verbose_xml", False, "[f(x=1)]", "no <functions>...</functions> block", False),
    ("verbose_xml", False, '<functions><function name="f"><param name="x" value="1"/>', "not closed by", True),
    ("concise_xml", False, '<functions><function><param name="x">1</param></function></functions>',
     "a <function> without a name attribute", False),
    ("concise_xml", False, '<functions><function name="f"><param>1</param></function></functions>',
     "a <param> of 'f' without a name attribute", False),
    ("concise_xml", False, '<functions><function name="f"><param name="x">1</param><param name="x">2</param>'
                           "</function></functions>", "parameter 'x' of 'f' given twice", False),
    ("concise_xml", False, '<functions><function name="f"><param name="x" type="boolean">yes</param></function>'
                           "</functions>", "'yes' is neither true nor false", False),
    ("concise_xml", False, '<functions><function name="f"><param name="x" type="integer">1.5</param></function>'
                           "</functions>", "'1.5' is no integer", False),
    ("concise_xml", False, '<functions><function name="f"><param name="x" type="float">inf</param></function>'
                           "</functions>", "not a finite number", False),
    ("concise_xml", False, '<functions><function name="f"><param name="x" type="integer">' + "9" * 5000
     + "</param></function></functions>", "an integer of more than 4300 digits", False),
    ("concise_xml", False, '<functions><function name="f"><param name="x" type="float">' + "9" * 5000
     + "</param></function></functions>", "has more than 4300 characters: too long for a number", False),
    ("concise_xml", False, '<functions><function name="f"><param name="x" type="array">[1, os]</param>'
                           "</function></functions>", "is not a Python literal: name 'os'", False),
    ("concise_xml", False, '<functions><function name="f"><param name="x" type="dict">'
                           "__import__('os').system('id')</param></function></functions>", "a call is not a value",
     False),
    ("concise_xml", False, '<functions><function name="f"><param name="x">a & b</param></function></functions>',
     "'&' that starts no entity reference", False),
    ("concise_xml", False, '<functions><function name="f"><param name="x">&bogus;</param></function></functions>',
     "'&' that starts no entity reference", False),
    ("concise_xml", False, '<functions><function name="f"></param></function></functions>',
     "</param> closes nothing: <function> is open", False),
    ("concise_xml", False, "<functions><function name=f></function></functions>", "is not quoted", False),
    ("concise_xml", False, '<functions><function name="f" name="g"></function></functions>', "given twice", False),
    ("concise_xml", False, '<functions><function name="a<b"></function></functions>', "'<' inside the value", False),
    ("concise_xml", False, '<functions><!DOCTYPE x [<!ENTITY a "aaaa">]><function name="&a;"/></functions>',
     "an XML declaration (<!DOCTYPE, <!ENTITY ...) is not read", False),
    ("concise_xml", False, "<functions><function name='f'><param name='x' type='string'>1</param><!-- open"
                           "</functions>", "a comment is not closed", True),
    ("concise_xml", False, "<functions>" + "<a>" * 70 + "</a>" * 70 + "</functions>", "nested deeper than", False),
])
def test_bad_outputs_are_errors_that_say_where_and_why(fmt: str, tag: bool, text: str, fragment: str,
                                                       cut_short: bool) -> None:
    with pytest.raises(ParseError) as info:
        decode_variation(text, variation(fmt, tag))
    assert fragment in str(info.value), str(info.value)
    assert info.value.format == f"bfcl-{fmt}" and info.value.cut_short == cut_short


def test_an_error_inside_the_tag_is_placed_in_the_whole_output() -> None:
    with pytest.raises(ParseError) as info:
        decode_variation("Here you go:\n<TOOLCALL>[f(x=os)]</TOOLCALL>", variation("python", True))
    assert info.value.position == (2, 16), info.value  # 'os', after '<TOOLCALL>[f(x='


_HEAVY = r'''
import sys
from ek.bfcl.variation import decode_variation, prompt_variation
from ek.parsing import ParseError, Limits
config = "ret_fmt={}&tool_call_tag=False&func_doc_fmt=json&prompt_fmt=plaintext&style=classic"
big = 1_000_000
texts = {
    "concise_xml": ["<functions>" + '<function name="f">' * (big // 20), "<functions>" + "<!--" * (big // 4),
                    "<functions>" + "&amp;" * (big // 5), "<functions><function name='" + "a" * big,
                    "<functions>" + '<function name="f"><param name="x" type="array">[' + "1," * (big // 2)
                    + "]</param></function></functions>", "<functions></functions>" * (big // 23),
                    "<functions>" + "<a " * (big // 3) + "</functions>"],
    "verbose_xml": ["<functions>" + '<function name="f"><params>' + '<param name="x" value="1"/>' * (big // 30)
                    + "</params></function></functions>"],
    "json": ["[" * (big // 2), '[{"function": "f", "parameters": {"x": "' + "a" * big],
}
for fmt, cases in texts.items():
    v = prompt_variation(f"format_sensitivity_0:{config.format(fmt)}:simple_python_0")
    for text in cases:
        try:
            decode_variation(text, v, Limits(max_size=len(text) + 1))
            print("result")
        except ParseError:
            print("ParseError")
'''


@pytest.mark.slow
def test_megabyte_hostile_outputs_finish_in_bounded_time() -> None:
    """Unclosed tags, comments, entities and attribute values a megabyte long, and a hundred thousand elements:
    each read or refused in one pass (the timeout stops a quadratic scan)."""
    done = subprocess.run([sys.executable, "-c", _HEAVY], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert len(done.stdout.split()) == 10 and set(done.stdout.split()) <= {"result", "ParseError"}, done.stdout
