"""``ParseError.cut_short``: a completion that stops inside a call (``max_tokens``) is told from a garbled one.

Real completions (tests/data/formats/completions.jsonl) are cut at several points inside their first call;
every cut must be a ParseError with ``cut_short`` set, in the completion's own format and in ``auto``.
Garbled completions (complete, but wrong inside) must not be.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ek.calls import Step
from ek.parsing import ParseError, parse_calls, render
from ek.scorer.metric import ToolCallMetric

DATA = Path(__file__).resolve().parents[1] / "data" / "formats" / "completions.jsonl"
TEXT = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]
TEXT = [c for c in TEXT if isinstance(c["completion"], str) and c["calls"]]


#: The "name, then key/value pairs" formats (ek.parsing.glm): a call block is read only when closed.
_PAIRS = ("glm45", "hunyuan", "k2-horizon", "solar-open2")


def _cuts(text: str, name: str, fmt: str = "") -> list[int]:
    """Offsets inside the last call: from just after its name (``functions.NAME`` in gpt-oss's and Kimi-K2's
    text) to just before the output's last closing bracket or ``</function>`` (three points spread over that
    span, plus both ends). A cut just before a last ``</tool_call>`` is not among them: the call before it is
    whole, and read (a stop string); in GLM's format and its kin (``_PAIRS``), which never read a block without
    its closing tag (as vLLM and SGLang), it is, and so is a cut just before MiniMax-M2's ``</minimax:tool_call>``.
    Kimi-K3 writes the name escaped (``tool="a&amp;b"``) and ends a call with ``<|close|>call<|sep|>``. Step-3's
    call ends at ``</steptml:invoke>`` (a cut before ``<｜tool_call_end｜>`` is cut short too: test_parse_invoke.py)."""
    names = "|".join(re.escape(n) for n in {name, name.replace("&", "&amp;").replace('"', "&quot;")})
    start = [m.end() for m in re.finditer(rf"(?<![\w.])(?:functions\.)?(?:{names})(?![\w.])", text)][-1]
    end = max(text.rfind("}"), text.rfind(")"), text.rfind("]"), text.rfind("</function>"), text.rfind("</parameter>"),
              text.rfind("</arg_value>"), text.rfind("</｜DSML｜invoke>"), text.rfind("</｜DSML｜ invoke>"),
              text.rfind("</arg_value:"), text.rfind("</ifm|arg_value>"), text.rfind("<|tool_arg:end|>"),
              text.rfind("<|close|>call<|sep|>"), text.rfind("</minimax:tool_call>") if fmt == "minimax-m2" else -1,
              text.rfind("</steptml:invoke>"),
              *((text.rfind(t) for t in ("</tool_call>", "</tool_call:", "</ifm|tool_call>", "<|tool_call:end|>"))
                if fmt in _PAIRS else ()))
    assert end >= start, text  # equal: a call with no arguments, cut right after its name
    return sorted({start, end, *(start + (end - start) * k // 4 for k in (1, 2, 3))})


def _cut_cases() -> list[tuple[str, str, str]]:
    cases = []
    for n, case in enumerate(TEXT):
        text, name = case["completion"], case["calls"][-1][0]
        cases.extend((case["format"], text[:p], f"{case['format']}-{n}@{p}") for p in _cuts(text, name, case["format"]))
    return cases


CUTS = _cut_cases()


@pytest.mark.parametrize(("fmt", "text", "label"), CUTS, ids=[c[2] for c in CUTS])
def test_parse_cut_short_real_completion_cut_inside_its_call(fmt: str, text: str, label: str) -> None:
    for name in (fmt, "auto"):
        with pytest.raises(ParseError) as info:
            parse_calls(text, name)
        assert info.value.cut_short, f"{name}: {info.value}"
        assert "cut short" in str(info.value)


CALLS = [Step("search", {"q": "cats", "n": [1, 2]}), Step("get_weather", {"city": "Paris"})]


@pytest.mark.parametrize("fmt", ["python", "json", "bfcl", "openai", "anthropic", "hermes"])
def test_parse_cut_short_rendered_calls_in_the_other_text_formats(fmt: str) -> None:
    rendered = render(CALLS, fmt)
    text = rendered if isinstance(rendered, str) else json.dumps(rendered)
    assert parse_calls(text, fmt) == CALLS
    for p in _cuts(text, "get_weather"):
        with pytest.raises(ParseError) as info:
            parse_calls(text[:p], fmt)
        assert info.value.cut_short, f"{fmt} cut at {p}: {info.value}"


GARBLED = {
    "python": '[search(q="cats",, n=1)]',
    "json": '{"name": "search", "arguments": {"q": "cats",, "n": 1}}',
    "bfcl": '[{"search": {"q": "cats" "n": 1}}]',
    "hermes": '<tool_call>{"name": "search", "arguments": {"q": "cats",, "n": 1}}</tool_call>',
    "llama3": '<|python_tag|>{"name": "search", "parameters": {"q": "cats"}} {"name": "f"}<|eom_id|>',
    "mistral": '[TOOL_CALLS]search[ARGS]{"q": "cats",, "n": 1}',
    "qwen3-coder": "<tool_call>\n<function=search>\nq=cats\n</function>\n</tool_call>",
    "deepseek": '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>search<｜tool▁sep｜>{"q": "cats",, "n": 1}'
                '<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    "granite": '<|tool_call|>[{"name": "search", "arguments": {"q": "cats",, "n": 1}}]',
    "phi4": 'functools[{"name": "search", "arguments": {"q": "cats",, "n": 1}}]',
    "minimax-m2": '<minimax:tool_call>\n<invoke name="search">\n<parameter name="q">cats</parameter>\nq=dogs\n'
                  "</invoke>\n</minimax:tool_call>",
    "step3": "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"search\">"
             "q=cats</steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>",
    "dots": '<dots_function_call><invoke name="search"><parameter name="q">cats</parameter></invoke>q=dogs'
            "</dots_function_call>",
    "minicpm": '<function name="search"><param name="q">cats</param><param name="q">dogs</param></function>',
    "gemma4": '<|tool_call>call:search{q:<|"|>cats<|"|>,,n:1}<tool_call|>',
    "functiongemma": "<start_function_call>call:search{q:<escape>cats}<end_function_call>",
}


@pytest.mark.parametrize("fmt", sorted(GARBLED))
def test_parse_cut_short_garbled_completion_is_not_cut_short(fmt: str) -> None:
    for name in (fmt, "auto"):
        with pytest.raises(ParseError) as info:
            parse_calls(GARBLED[fmt], name)
        assert not info.value.cut_short, f"{name}: {info.value}"
        assert "cut short" not in str(info.value)


@pytest.mark.parametrize("text", ['[search(q=f"ca', "[search(q=f'''ca", '[search(q=F"{n}', '[search(q=rf"ca',
                                  '[search(q="ca', "[search(q='''ca\nts"])
def test_parse_cut_short_python_cut_inside_a_string_or_an_f_string(text: str) -> None:
    """From 3.12 (PEP 701) Python names an open f-string in words of its own (``unterminated f-string literal``):
    a Python call cut inside one is cut short on every Python, as one cut inside a plain string."""
    for name in ("python", "auto"):
        with pytest.raises(ParseError) as info:
            parse_calls(text, name)
        assert info.value.cut_short, f"{name}: {info.value}"


@pytest.mark.parametrize("text", ['[search(q=f"ca\n, n=1)]', '[search(q="ca\n, n=1)]'])
def test_parse_cut_short_python_string_left_open_on_an_earlier_line_is_garbled(text: str) -> None:
    for name in ("python", "auto"):
        with pytest.raises(ParseError) as info:
            parse_calls(text, name)
        assert not info.value.cut_short, f"{name}: {info.value}"


def test_parse_cut_short_survives_pickling_and_moving() -> None:
    import pickle

    with pytest.raises(ParseError) as info:
        parse_calls('<think>ok</think> <tool_call>{"name": "f", "arguments": {"x": ', "auto")
    error = info.value
    assert error.cut_short and pickle.loads(pickle.dumps(error)).cut_short
    assert error.moved((9, 9), "hermes").cut_short


def test_parse_cut_short_the_scorer_explanation_says_so() -> None:
    metric = ToolCallMetric()
    cut = metric('[TOOL_CALLS]search[ARGS]{"q": "ca', [("search", {"q": "cats"})])
    garbled = metric('[TOOL_CALLS]search[ARGS]{"q": "cats",, "n": 1}', [("search", {"q": "cats"})])
    assert cut.explanation.cut_short and not garbled.explanation.cut_short
    assert "cut short" in cut.explanation.parse_error
    [unit] = cut.explanation.errors()
    assert unit.reason == "unparseable_output" and "cut short" in unit.detail
    assert "cut short" not in garbled.explanation.errors()[0].detail
    assert cut.explanation.to_dict()["cut_short"] is True


class _CountedSlices(str):
    """Text that records the length of every slice taken of it."""

    taken: list[int]

    def __getitem__(self, key):  # type: ignore[no-untyped-def]
        part = str.__getitem__(self, key)
        if isinstance(key, slice):
            self.taken.append(len(part))
        return part


def test_telling_a_token_cut_short_copies_no_more_than_a_token() -> None:
    """``scan.cut_inside`` asks whether the output stopped inside a token at every call of Kimi-K2's reader: it
    compares lengths first and slices the rest only when it is shorter than a token. Slicing the whole rest
    each time made reading quadratic in the number of calls (Kimi-K2 took 8.7 times as long for four times the
    calls, caught by test_reading_grows_linearly_with_the_number_of_calls)."""
    from ek.parsing.scan import cut_inside

    tokens = ("<|tool_call_begin|>", "<|tool_call_end|>")
    text = _CountedSlices("<|tool_call_begin|>f" * 1000)
    text.taken = []
    assert not cut_inside(text, 0, tokens) and not cut_inside(text, 5, tokens)
    assert text.taken == []  # the rest is longer than any token: nothing copied
    end = _CountedSlices("ab<|tool_call_b")
    end.taken = []
    assert cut_inside(end, 2, tokens) and end.taken and max(end.taken) < len(tokens[0])


@pytest.mark.parametrize(("text", "words"), [
    ("I can't book that flight.", "a quote outside any call: an apostrophe of prose?"),
    ("[get_weather(city='Paris')] I can't say more", "a quote outside any call: an apostrophe of prose?"),
    ("[send(text='it's done')]", "a quote inside a string left unescaped?"),
    ("f(x=\"a\", y='don't')  ", "a quote inside a string left unescaped?"),
])
def test_an_unclosed_quote_of_a_complete_output_is_not_cut_short(text: str, words: str) -> None:
    with pytest.raises(ParseError) as info:
        parse_calls(text, format="python")
    assert not info.value.cut_short and words in str(info.value) and "cut short" not in str(info.value)


@pytest.mark.parametrize("text", ["f(x='abc", "[f(x='a', y='price of (AAPL)", "[f(x=\"it's", "f(x=1)\ng(y=rb'ab"])
def test_a_quote_opened_inside_a_call_the_text_never_closes_is_cut_short(text: str) -> None:
    with pytest.raises(ParseError) as info:
        parse_calls(text, format="python")
    assert info.value.cut_short and "cut short?" in str(info.value)
