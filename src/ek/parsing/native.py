"""Open models' native tool-call text: Llama 3/4, Mistral, Qwen3-Coder, DeepSeek, Granite and Phi-4.

Each family's chat template writes calls its own way, and the serving stacks
(vLLM, SGLang, llama.cpp, Ollama) each ship a parser per family. These read
the same text, never executing any of it. Markers are found with ``str.find``
and JSON is decoded in place (:func:`ek.parsing.json_text.decode_at`), so the
work is linear in the text and a delimiter inside a JSON string never ends a
call early. Every error carries the family's name, a line and column, and
what was expected there; a completion that stops inside a call (``max_tokens``)
says it was cut short.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial
from typing import Any

from ek.calls import Step
from ek.parsing import chat_text, json_text, shapes
from ek.parsing.errors import ParseError, line_col
from ek.parsing.limits import Limits, check_text
from ek.parsing.prose import call_lists, calls_from_json, object_call, read_prose, tag_outside, where
from ek.parsing.python_calls import parse_python, python_literal
from ek.parsing.registry import TypeHint
from ek.parsing.scan import rstripped_end, skip_space

PYTHON_TAG, PYTHON_START, PYTHON_END = "<|python_tag|>", "<|python_start|>", "<|python_end|>"
LLAMA_ENDS = ("<|eom_id|>", "<|eot_id|>", "<|end_of_text|>", "<|eot|>")
TOOL_CALLS, ARGS, CALL_ID = "[TOOL_CALLS]", "[ARGS]", "[CALL_ID]"
MISTRAL_ENDS = ("</s>",)
DS_CALLS_BEGIN, DS_CALLS_END = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"
DS_CALL_BEGIN, DS_CALL_END, DS_SEP = "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>", "<｜tool▁sep｜>"
DS_ENDS = ("<｜end▁of▁sentence｜>",)
GRANITE_TAG = "<|tool_call|>"
GRANITE_FC_TAG, GRANITE_END = "<function_call>", "<|endoftext|>"
PHI4_TAG = "functools"
FUNCTION_OPEN, FUNCTION_CLOSE = "<function=", "</function>"
PARAMETER_OPEN, PARAMETER_CLOSE = "<parameter=", "</parameter>"


def _strip_ends(text: str, ends: tuple[str, ...]) -> str:
    """``text`` without trailing end-of-turn tokens (and the whitespace around them). The end moves back and the
    text is copied once: a copy per token made an output ending in many of them quadratic."""
    stop = rstripped_end(text, len(text))
    changed = True
    while changed:
        changed = False
        for end in ends:
            if text.endswith(end, 0, stop):
                stop = rstripped_end(text, stop - len(end))
                changed = True
    return text[:stop]


def _expect_end(text: str, pos: int, fmt: str, what: str) -> None:
    """Only whitespace may follow the last call; anything else is an error saying what was expected."""
    pos = skip_space(text, pos)
    if pos < len(text):
        raise ParseError(f"unexpected text after the calls: expected {what} or the end of the output",
                         line_col(text, pos), fmt)


# --------------------------------------------------------------------------- llama3


def read_llama3(text: str, limits: Limits, types: TypeHint | None = None, fmt: str = "llama3") -> list[Step]:
    """Llama 3.x/4: ``<|python_tag|>`` + JSON ``{"name", "parameters"}`` (one, or ``;``-separated) or a
    built-in tool's Python call; plain JSON without the tag (prose around it allowed); Llama 3.2/4 pythonic
    lists ``[f(a=1), g()]`` (``<|python_start|>...<|python_end|>`` around them, or prose, as SGLang reads them);
    Llama 3.1's custom-tool form ``<function=NAME>{...}</function>``; ``<|eom_id|>`` and ``<|eot_id|>`` at the end
    are dropped.

    >>> read_llama3('<|python_tag|>{"name": "f", "parameters": {"x": 1}}; {"name": "g", "parameters": {}}<|eom_id|>',
    ...             Limits())
    [Step(name='f', args={'x': 1}), Step(name='g', args={})]
    """
    check_text(text, limits, fmt)
    body = _strip_ends(text, LLAMA_ENDS)
    start = body.find(PYTHON_START)
    if start != -1:
        return _python_segments(body, start, limits, fmt)
    tag = body.find(PYTHON_TAG)
    if tag != -1:
        pos = skip_space(body, tag + len(PYTHON_TAG))
        if pos < len(body) and body[pos] != "{":
            return _shifted(lambda t: parse_python(t, limits), body, pos, len(body), fmt)
        return _json_sequence(body, pos, limits, fmt)
    function = body.find(FUNCTION_OPEN)
    if function != -1:
        return _llama_functions(body, function, limits, fmt)
    first = skip_space(body, 0)
    if first < len(body) and body[first] == "[" and not body.startswith(("[{", "[ {"), first):
        try:
            return _shifted(lambda t: parse_python(t, limits), body, first, len(body), fmt)
        except ParseError:
            spans = lists_in_prose(body, fmt)
            if spans is None:
                raise
            return read_lists(body, spans, limits, fmt)
    return read_prose(body, limits, fmt) or read_lists(body, call_lists(body, fmt), limits, fmt)


def lists_in_prose(text: str, fmt: str) -> list[tuple[int, int]] | None:
    """The spans of the ``[f(...), ...]`` lists in ``text`` when prose surrounds them (Llama 3.2/4 write
    ``[f(x=1)] Anything else?``, SGLang reads it); None when there is no list, or one list is the whole text:
    then the caller's error for the text read whole is the better one, as it is when the text is one list that
    never closes. A later list that never closes is cut short."""
    try:
        spans = call_lists(text, fmt)
    except ParseError as error:
        if error.position == line_col(text, skip_space(text, 0)):
            return None
        raise
    if not spans or (len(spans) == 1 and spans[0] == (skip_space(text, 0), len(text.rstrip()))):
        return None
    return spans


def read_lists(text: str, spans: list[tuple[int, int]], limits: Limits, fmt: str) -> list[Step]:
    """The calls of the lists at ``spans`` (from :func:`ek.parsing.prose.call_lists`), each read by the strict
    Python reader; the prose around them is skipped (only ``[name(`` opens a list, so no call is skipped)."""
    tag = tag_outside(text, spans)
    if tag != -1:
        raise ParseError("a tag or special token in the prose around the calls (strip the chat template's "
                         "end-of-turn tokens first)", line_col(text, tag), fmt)
    steps: list[Step] = []
    for begin, end in spans:
        steps.extend(_shifted(lambda t: parse_python(t, limits), text, begin, end, fmt))
    return steps


def _python_segments(text: str, pos: int, limits: Limits, fmt: str) -> list[Step]:
    """The calls of each ``<|python_start|>...<|python_end|>`` segment from ``pos`` (a last one left open runs to
    the end). Text between and after segments is prose the model wrote around its calls, skipped as SGLang skips
    it: the markers, not a guess, say where calls are."""
    steps: list[Step] = []
    while pos != -1:
        end = text.find(PYTHON_END, pos)
        inner_end = len(text) if end == -1 else end
        steps.extend(_shifted(lambda t: parse_python(t, limits), text, pos + len(PYTHON_START), inner_end, fmt))
        if end == -1:
            return steps
        pos = text.find(PYTHON_START, end)
    return steps


def _json_sequence(text: str, pos: int, limits: Limits, fmt: str) -> list[Step]:
    """JSON call objects separated by ``;`` (Llama's parallel calls), from ``pos`` to the end."""
    steps: list[Step] = []
    while True:
        value, end = json_text.decode_at(text, pos, limits, fmt)
        steps.extend(calls_from_json(value, text, pos, limits, fmt))
        pos = skip_space(text, end)
        if pos >= len(text):
            return steps
        if text.startswith(PYTHON_TAG, pos):
            pos = skip_space(text, pos + len(PYTHON_TAG))  # a tag before each call, as SGLang reads it
            continue
        if text[pos] != ";":
            raise ParseError("expected ';' between calls or the end of the output", line_col(text, pos), fmt)
        pos = skip_space(text, pos + 1)
        if pos >= len(text):
            return steps


def _llama_functions(text: str, pos: int, limits: Limits, fmt: str) -> list[Step]:
    """Llama 3.1 custom tools: ``<function=NAME>{"arg": ...}</function>``, one after another from ``pos``."""
    steps: list[Step] = []
    while True:
        name_end = text.find(">", pos)
        if name_end == -1:
            raise ParseError("<function= is not closed by '>' (output cut short?)", line_col(text, pos), fmt,
                             cut_short=True)
        name = text[pos + len(FUNCTION_OPEN): name_end].strip()
        if not name:
            raise ParseError("the tool name is empty", line_col(text, pos), fmt)
        args_at = skip_space(text, name_end + 1)
        if args_at >= len(text) or text[args_at] != "{":
            what = " (output cut short?)" if args_at >= len(text) else ""
            raise ParseError(f"expected a JSON object of arguments after <function={name}>{what}",
                             line_col(text, args_at), fmt, cut_short=bool(what))
        value, end = json_text.decode_at(text, args_at, limits, fmt)
        end = skip_space(text, end)
        if not text.startswith(FUNCTION_CLOSE, end):
            what = " (output cut short?)" if end >= len(text) else ""
            raise ParseError(f"expected {FUNCTION_CLOSE} after the arguments{what}", line_col(text, end), fmt,
                             cut_short=bool(what))
        try:
            steps.append(shapes.generic_call({"name": name, "arguments": value}, "$", limits, fmt))
        except ParseError as error:
            raise error.moved(where(text, pos, error.position), fmt) from None
        pos = skip_space(text, end + len(FUNCTION_CLOSE))
        if pos >= len(text):
            return steps
        if not text.startswith(FUNCTION_OPEN, pos):
            raise ParseError(f"unexpected text after the calls: expected {FUNCTION_OPEN} or the end of the output",
                             line_col(text, pos), fmt)


def function_form(text: str, pos: int) -> str:
    """Whose ``<function=NAME>`` starts at ``pos``: Llama 3.1's (JSON arguments follow) or Qwen3-Coder's.

    >>> function_form('<function=f>{"x": 1}</function>', 0), function_form('<function=f><parameter=x>1', 0)
    ('llama3', 'qwen3-coder')
    """
    name_end = text.find(">", pos)
    after = skip_space(text, name_end + 1) if name_end != -1 else len(text)
    return "llama3" if text.startswith("{", after) else "qwen3-coder"


def _shifted(read: Callable[[str], list[Step]], text: str, begin: int, end: int, fmt: str) -> list[Step]:
    """Read ``text[begin:end]`` with ``read``; an error's line and column are moved into ``text``."""
    inner = text[begin:end]
    lead = len(inner) - len(inner.lstrip())
    try:
        return read(inner.strip())
    except ParseError as error:
        raise error.moved(chat_text.shift(error.position, text, begin + lead), fmt) from None


# --------------------------------------------------------------------------- mistral


def read_mistral(text: str, limits: Limits, types: TypeHint | None = None, fmt: str = "mistral") -> list[Step]:
    """Mistral: ``[TOOL_CALLS]`` + a JSON list of ``{"name", "arguments"}`` (older templates), or
    ``[TOOL_CALLS]name[ARGS]{...}`` repeated (``[CALL_ID]id`` before ``[ARGS]`` where the template writes
    one; ``name{...}`` without ``[ARGS]`` as some tokenizers decode it). Prose before the first
    ``[TOOL_CALLS]`` is allowed; text with no ``[TOOL_CALLS]`` is no calls.

    >>> read_mistral('[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}[TOOL_CALLS]f[ARGS]{}', Limits())
    [Step(name='get_weather', args={'city': 'Paris'}), Step(name='f', args={})]
    >>> read_mistral('[TOOL_CALLS] [{"name": "add", "arguments": {"a": 3.5, "b": 4}}]', Limits())
    [Step(name='add', args={'a': 3.5, 'b': 4})]
    """
    check_text(text, limits, fmt)
    body = _strip_ends(text, MISTRAL_ENDS)
    pos = body.find(TOOL_CALLS)
    if pos == -1:
        return []
    steps: list[Step] = []
    while pos != -1:
        pos = skip_space(body, pos + len(TOOL_CALLS))
        if pos >= len(body):
            raise ParseError("[TOOL_CALLS] with nothing after it (cut short?)", line_col(body, pos), fmt,
                             cut_short=True)
        listed = body[pos] == "["
        if body[pos] in "[{":
            value, end = json_text.decode_at(body, pos, limits, fmt)
            steps.extend(calls_from_json(value, body, pos, limits, fmt))
        else:
            step, end = _mistral_compact(body, pos, limits, fmt)
            steps.append(step)
        pos = skip_space(body, end)
        if pos >= len(body):
            return steps
        if not body.startswith(TOOL_CALLS, pos):
            if listed and _mistral_prose_after(body, pos):
                return steps
            raise ParseError("unexpected text after a call: expected [TOOL_CALLS] or the end of the output",
                             line_col(body, pos), fmt)
    return steps


def _mistral_prose_after(text: str, pos: int) -> bool:
    """Whether ``text[pos:]``, after an older template's JSON list of calls, is prose to skip, as vLLM's parser
    skips it (test_extract_tool_calls_pre_v11_tokenizer[trailing_data_after_json]): holding no ``[TOOL_CALLS]``
    and no tag or special token, which would be a call or a template's token lost without a word."""
    return text.find(TOOL_CALLS, pos) == -1 and tag_outside(text, [(0, pos)]) == -1


def _mistral_compact(text: str, pos: int, limits: Limits, fmt: str) -> tuple[Step, int]:
    """``name[CALL_ID]id[ARGS]{...}`` at ``pos``: the call and where it ends."""
    brace = text.find("{", pos)
    args_at = text.find(ARGS, pos, len(text) if brace == -1 else brace)
    # [CALL_ID] only ends the name before [ARGS], or before the brace when there is no [ARGS]: searched no further,
    # so that calls written without [ARGS] are not each searched to the end of the output (quadratic)
    id_at = text.find(CALL_ID, pos, args_at if args_at != -1 else len(text) if brace == -1 else brace)
    name_end = min(i for i in (brace, args_at, id_at, len(text)) if i != -1)
    name = text[pos:name_end].strip()
    if brace == -1 and args_at == -1 and id_at == -1 and not any(c in name for c in " \t\r\n{}\"'"):
        raise ParseError(f"the output ends after the tool name {name!r}, before its arguments (cut short?)",
                         line_col(text, pos), fmt, cut_short=True)  # also inside [ARGS] itself: ``f[AR``
    if not name or any(c in name for c in " \t\r\n[]{}\"'"):
        raise ParseError("expected a tool name then [ARGS] and a JSON object of arguments",
                         line_col(text, pos), fmt)
    if brace == -1:
        raise ParseError(f"no JSON arguments after the tool name {name!r} (cut short?)", line_col(text, pos), fmt,
                         cut_short=True)
    args_from = brace
    if args_at != -1:
        if text[args_at + len(ARGS): brace].strip():
            raise ParseError("expected a JSON object right after [ARGS]", line_col(text, args_at + len(ARGS)), fmt)
    value, end = json_text.decode_at(text, args_from, limits, fmt)
    return object_call(name, value, text, args_from, limits, fmt), end


# --------------------------------------------------------------------------- deepseek


def read_deepseek(text: str, limits: Limits, types: TypeHint | None = None, fmt: str = "deepseek") -> list[Step]:
    """DeepSeek V3/R1: ``<｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME`` + a fenced JSON object +
    ``<｜tool▁call▁end｜>``, inside ``<｜tool▁calls▁begin｜>...<｜tool▁calls▁end｜>``; V3.1:
    ``<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{...}<｜tool▁call▁end｜>``. Prose before is allowed; a missing
    ``<｜tool▁calls▁end｜>`` after whole calls is too (a special token that decoding often drops).

    >>> read_deepseek('<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{"x": 1}<｜tool▁call▁end｜>'
    ...               '<｜tool▁calls▁end｜>', Limits())
    [Step(name='f', args={'x': 1})]
    """
    check_text(text, limits, fmt)
    body = _strip_ends(text, DS_ENDS)
    begin = body.find(DS_CALLS_BEGIN)
    first = body.find(DS_CALL_BEGIN)
    if begin == -1 and first == -1:
        return []
    pos = first if begin == -1 else begin + len(DS_CALLS_BEGIN)
    steps: list[Step] = []
    while True:
        pos = skip_space(body, pos)
        if body.startswith(DS_CALLS_END, pos):
            _prose_after_calls(body, pos + len(DS_CALLS_END), fmt)
            return steps
        if pos >= len(body):
            if begin != -1 and not steps:
                raise ParseError(f"the calls are not closed by {DS_CALLS_END} (output cut short?)",
                                 line_col(body, begin), fmt, cut_short=True)
            return steps  # every call closed, only the (often stripped) end marker missing, as vLLM reads it
        if not body.startswith(DS_CALL_BEGIN, pos):
            raise ParseError(f"expected {DS_CALL_BEGIN} or {DS_CALLS_END}", line_col(body, pos), fmt)
        step, pos = _deepseek_call(body, pos, limits, fmt)
        steps.append(step)


def _prose_after_calls(text: str, pos: int, fmt: str) -> None:
    """Text after ``<｜tool▁calls▁end｜>`` is prose (vLLM reads the calls and drops it); skipping it is safe as
    long as it holds no other call, which would otherwise be lost without a word."""
    again = text.find(DS_CALL_BEGIN, pos)
    if again != -1:
        raise ParseError(f"a call after {DS_CALLS_END}: expected one section of calls", line_col(text, again), fmt)


def _deepseek_call(text: str, start: int, limits: Limits, fmt: str) -> tuple[Step, int]:
    head = start + len(DS_CALL_BEGIN)
    sep = text.find(DS_SEP, head)
    if sep == -1:
        raise ParseError(f"a call without {DS_SEP} (output cut short?)", line_col(text, start), fmt,
                         cut_short=True)
    before = text[head:sep].strip()
    after = sep + len(DS_SEP)
    first = skip_space(text, after)
    if first < len(text) and text[first] == "{":
        # V3.1: NAME<｜tool▁sep｜>{...}
        name, args_at = before, first
        value, end = json_text.decode_at(text, first, limits, fmt)
    else:
        # V3/R1: TYPE<｜tool▁sep｜>NAME, then a fenced JSON object on the next lines.
        if before != "function":
            raise ParseError(f"unsupported call type {before!r} (expected 'function')", line_col(text, head), fmt)
        line_end = _line_end(text, after)
        name = text[after:line_end].strip()
        pos = skip_space(text, line_end)
        if not text.startswith("```", pos):
            what = " (output cut short?)" if "```".startswith(text[pos:].rstrip()) else ""
            raise ParseError(f"expected a ```json fence holding the arguments{what}", line_col(text, pos), fmt,
                             cut_short=bool(what))
        args_at = _line_end(text, pos)
        value, end = json_text.decode_at(text, args_at, limits, fmt)
        end = skip_space(text, end)
        if not text.startswith("```", end):
            raise ParseError("expected ``` closing the arguments' fence", line_col(text, end), fmt)
        end += 3
    end = skip_space(text, end)
    if not text.startswith(DS_CALL_END, end):
        what = "(output cut short?)" if end >= len(text) else ""
        raise ParseError(f"expected {DS_CALL_END} after the arguments {what}".rstrip(), line_col(text, end), fmt,
                         cut_short=bool(what))
    return object_call(name, value, text, args_at, limits, fmt, anchor=start), end + len(DS_CALL_END)


def _line_end(text: str, pos: int) -> int:
    end = text.find("\n", pos)
    return len(text) if end == -1 else end


# --------------------------------------------------------------------------- granite, phi4


def read_granite(text: str, limits: Limits, types: TypeHint | None = None, fmt: str = "granite") -> list[Step]:
    """IBM Granite 3.x: ``<|tool_call|>`` (3.0) or ``<tool_call>`` (3.1, no closing tag) followed by a
    JSON list of ``{"name", "arguments"}``; granite-20b-functioncalling: ``<function_call>`` before each
    JSON call object. Text with none of these tags is no calls.

    >>> read_granite('<|tool_call|>[{"name": "f", "arguments": {"x": 1}}]', Limits())
    [Step(name='f', args={'x': 1})]
    >>> read_granite('<function_call> {"name": "f", "arguments": {}} <function_call> {"name": "g", "arguments": {}}',
    ...              Limits())
    [Step(name='f', args={}), Step(name='g', args={})]
    """
    check_text(text, limits, fmt)
    tag = text.find(GRANITE_TAG)
    size = len(GRANITE_TAG)
    if tag == -1:
        tag, size = text.find(chat_text.CALL_OPEN), len(chat_text.CALL_OPEN)
    if tag == -1:
        first = text.find(GRANITE_FC_TAG)
        return [] if first == -1 else _function_call_objects(text, first, limits, fmt)
    return _tagged_list(text, tag + size, limits, fmt)


def _function_call_objects(text: str, pos: int, limits: Limits, fmt: str) -> list[Step]:
    """``<function_call> {call}`` repeated (granite-20b-functioncalling), from the first tag at ``pos``."""
    steps: list[Step] = []
    while pos < len(text):
        if not text.startswith(GRANITE_FC_TAG, pos):
            raise ParseError(f"unexpected text after the calls: expected {GRANITE_FC_TAG} or the end of the output",
                             line_col(text, pos), fmt)
        at = skip_space(text, pos + len(GRANITE_FC_TAG))
        if at >= len(text):
            raise ParseError(f"{GRANITE_FC_TAG} with nothing after it (cut short?)", line_col(text, pos), fmt,
                             cut_short=True)
        if text[at] != "{":
            raise ParseError(f"expected a JSON call object after {GRANITE_FC_TAG}", line_col(text, at), fmt)
        value, end = json_text.decode_at(text, at, limits, fmt)
        steps.extend(calls_from_json(value, text, at, limits, fmt))
        pos = skip_space(text, _strip_granite_end(text, skip_space(text, end)))
    return steps


def _strip_granite_end(text: str, pos: int) -> int:
    """Past an ``<|endoftext|>`` at ``pos`` (granite's end of turn), else ``pos``."""
    return pos + len(GRANITE_END) if text.startswith(GRANITE_END, pos) else pos


def read_phi4(text: str, limits: Limits, types: TypeHint | None = None, fmt: str = "phi4") -> list[Step]:
    """Phi-4-mini: ``functools[{"name": ..., "arguments": {...}}, ...]``. Text without ``functools[`` is no calls.

    >>> read_phi4('functools[{"name": "f", "arguments": {}}]', Limits())
    [Step(name='f', args={})]
    """
    check_text(text, limits, fmt)
    tag = find_phi4(text)
    if tag == -1:
        return []
    return _tagged_list(text, tag + len(PHI4_TAG), limits, fmt)


def find_phi4(text: str) -> int:
    """Where ``functools[`` starts (optional spaces before the bracket), or -1."""
    pos = text.find(PHI4_TAG)
    while pos != -1:
        after = skip_space(text, pos + len(PHI4_TAG))
        if after < len(text) and text[after] == "[":
            return pos
        pos = text.find(PHI4_TAG, pos + 1)
    return -1


def _tagged_list(text: str, pos: int, limits: Limits, fmt: str) -> list[Step]:
    """The JSON list (or one object) of calls after a tag; prose after it is allowed."""
    pos = skip_space(text, pos)
    if pos >= len(text):
        raise ParseError("a tool-call tag with nothing after it (cut short?)", line_col(text, pos), fmt,
                         cut_short=True)
    if text[pos] not in "[{":
        raise ParseError("expected a JSON list of calls after the tag", line_col(text, pos), fmt)
    value, _ = json_text.decode_at(text, pos, limits, fmt)
    return calls_from_json(value, text, pos, limits, fmt)


# --------------------------------------------------------------------------- qwen3-coder


def read_qwen3_coder(text: str, limits: Limits, types: TypeHint | None = None,
                     fmt: str = "qwen3-coder") -> list[Step]:
    """Qwen3-Coder XML: ``<tool_call><function=NAME><parameter=P>value</parameter>...</function></tool_call>``.

    A parameter's text (one newline either side dropped) is typed by ``types`` when given (see
    :func:`typed_text`); without it, text that parses as JSON is that JSON value, anything else the text.
    As vLLM and SGLang read it, the last ``</tool_call>`` may be missing (a stop string) when its
    function is whole, so may one before the next ``<tool_call>``, and ``<function=...>`` blocks without
    any ``<tool_call>`` are read too.

    >>> read_qwen3_coder('<tool_call>\\n<function=f>\\n<parameter=n>\\n3\\n</parameter>\\n'
    ...                  '<parameter=city>\\nParis\\n</parameter>\\n</function>\\n</tool_call>', Limits())
    [Step(name='f', args={'n': 3, 'city': 'Paris'})]
    >>> read_qwen3_coder('<function=f>\\n<parameter=n>\\n3\\n</parameter>\\n</function>', Limits())
    [Step(name='f', args={'n': 3})]
    """
    if len(text) > limits.max_size:
        check_text(text, limits, fmt)
    start = chat_text.after_think(text, fmt)
    if text.find(chat_text.CALL_OPEN, start) == -1:
        return [_xml_function(text, begin, end, limits, types, fmt) for begin, end in _bare_functions(text, start, fmt)]
    steps: list[Step] = []
    for begin, end in chat_text.blocks(text, start, fmt, open_end=True, whole_after=FUNCTION_CLOSE):
        try:
            steps.append(_xml_function(text, begin, end, limits, types, fmt))
        except ParseError:
            if chat_text.is_open(text, end):
                raise chat_text.unclosed(text, begin - len(chat_text.CALL_OPEN), fmt) from None
            raise
    return steps


def _bare_functions(text: str, start: int, fmt: str) -> list[tuple[int, int]]:
    """``(begin, end)`` of each ``<function=...>...</function>`` written without ``<tool_call>`` around it.

    A ``</tool_call>`` right after a function's ``</function>`` closes it: the model's ``<tool_call>`` was lost
    (vLLM's test_extract_tool_calls_streaming_missing_opening_tag; its non-streaming parser, finding no
    ``<tool_call>``, reads the functions of the whole text too). Any other ``</tool_call>`` is a stray tag."""
    spans: list[tuple[int, int]] = []
    prose = start  # where the text between functions begins: no </tool_call> may stand in it
    pos = text.find(FUNCTION_OPEN, start)
    while pos != -1:
        _no_stray_close(text, prose, pos, fmt)
        close = text.find(FUNCTION_CLOSE, pos)
        following = text.find(FUNCTION_OPEN, pos + len(FUNCTION_OPEN), len(text) if close == -1 else close)
        if following != -1:
            raise ParseError("<function=...> inside an unclosed <function=...>", line_col(text, following), fmt)
        if close == -1:
            raise ParseError("<function=...> is not closed by </function> (output cut short?)",
                             line_col(text, pos), fmt, cut_short=True)
        end = close + len(FUNCTION_CLOSE)
        spans.append((pos, end))
        after = skip_space(text, end)
        prose = after + len(chat_text.CALL_CLOSE) if text.startswith(chat_text.CALL_CLOSE, after) else end
        pos = text.find(FUNCTION_OPEN, prose)
    _no_stray_close(text, prose, len(text), fmt)
    return spans


def _no_stray_close(text: str, begin: int, end: int, fmt: str) -> None:
    stray = text.find(chat_text.CALL_CLOSE, begin, end)
    if stray != -1:
        raise ParseError("</tool_call> without an opening <tool_call>", line_col(text, stray), fmt)


def _xml_function(text: str, begin: int, end: int, limits: Limits, types: TypeHint | None, fmt: str) -> Step:
    pos = skip_space(text, begin)
    if not text.startswith(FUNCTION_OPEN, pos):
        raise ParseError("expected <function=NAME> inside <tool_call>", line_col(text, pos), fmt)
    name_end = text.find(">", pos, end)
    if name_end == -1:
        raise ParseError("<function= is not closed by '>'", line_col(text, pos), fmt)
    name = text[pos + len(FUNCTION_OPEN): name_end].strip()
    if not name:
        raise ParseError("the tool name is empty", line_col(text, pos), fmt)
    _bare_tag_name(text, pos + len(FUNCTION_OPEN), name_end, "<function=", fmt)
    close = _function_close(text, name_end, end)
    if close == -1:
        raise ParseError("<function=...> is not closed by </function> before </tool_call>", line_col(text, pos), fmt,
                         cut_short=end == len(text))
    if close < end:
        _expect_blank(text, close + len(FUNCTION_CLOSE), end, fmt, "</tool_call>")
    args: dict[str, Any] = {}
    pos = name_end + 1
    while True:
        pos = skip_space(text, pos)
        if pos >= close:
            break
        if not text.startswith(PARAMETER_OPEN, pos):
            raise ParseError("expected <parameter=NAME> or </function>", line_col(text, pos), fmt)
        key_end = text.find(">", pos, close)
        if key_end == -1:
            raise ParseError("<parameter= is not closed by '>'", line_col(text, pos), fmt)
        key = text[pos + len(PARAMETER_OPEN): key_end].strip()
        if not key:
            raise ParseError("a parameter with an empty name", line_col(text, pos), fmt)
        _bare_tag_name(text, pos + len(PARAMETER_OPEN), key_end, "<parameter=", fmt)
        value_end, after = _parameter_end(text, key_end, close)
        if key in args:
            raise ParseError(f"parameter {key!r} given twice", line_col(text, pos), fmt)
        raw = text[key_end + 1: value_end]
        raw = raw[1:] if raw.startswith("\n") else raw
        raw = raw[:-1] if raw.endswith("\n") else raw
        kind = types(name, key) if types is not None else None
        args[key] = typed_text(raw, kind, limits, fmt, partial(line_col, text, key_end + 1))
        pos = after
    return Step(name, args)


def _bare_tag_name(text: str, begin: int, end: int, tag: str, fmt: str) -> None:
    """Refuse a name (``text[begin:end]``, up to the ``>`` found; spaces around it are dropped) holding a ``<`` or
    a line break: its tag was never closed and the ``>`` found belongs to a later tag (vLLM's
    test_none_tool_calls_filtered writes ``<function=bad_func_no_gt\\n</function>``, read as a tool named
    ``bad_func_no_gt\\n</function`` before). ``render`` refuses to write such names for the same reason."""
    name = text[begin:end].strip()
    at = min((i for i in (name.find("<"), name.find("\n"), name.find("\r")) if i != -1), default=-1)
    if at != -1:
        where = text.find(name[at], text.find(name[0], begin))  # the name's first bad character in the text
        raise ParseError(f"{tag}NAME is not closed by '>' before {'a <' if name[at] == '<' else 'a line break'}",
                         line_col(text, where), fmt)


def _function_close(text: str, name_end: int, end: int) -> int:
    """Where the function's body ends: at its ``</function>``, else at ``end`` when ``</tool_call>`` stands there.

    Models do leave ``</function>`` out inside a closed block, and vLLM and SGLang both read the function to the
    ``</tool_call>``. Skipping the missing tag is safe: ``</tool_call>`` is a whole closing tag the model wrote,
    so the function is not cut short; a block left open at the end of the output (``end == len(text)``) still is.
    """
    close = text.rfind(FUNCTION_CLOSE, name_end, end)
    if close == -1 and text.startswith(chat_text.CALL_CLOSE, end):
        return end
    return close


def _parameter_end(text: str, start: int, close: int) -> tuple[int, int]:
    """Where a parameter's value ends, and where reading goes on: at its ``</parameter>``, or, when the model
    left that out, just before the next ``<parameter=`` or the ``</function>`` (as vLLM and SGLang read it)."""
    closed = text.find(PARAMETER_CLOSE, start, close)
    following = text.find(PARAMETER_OPEN, start, close)
    if closed != -1 and (following == -1 or closed < following):
        return closed, closed + len(PARAMETER_CLOSE)
    end = following if following != -1 else close
    return end, end


def _expect_blank(text: str, pos: int, end: int, fmt: str, what: str) -> None:
    if text[pos:end].strip():
        raise ParseError(f"unexpected text: expected {what}", line_col(text, skip_space(text, pos)), fmt)


_TEXT_KINDS = frozenset({"str", "string", "date", "datetime"})
_INT_KINDS = frozenset({"int", "integer"})
_NUMBER_KINDS = frozenset({"float", "number"})
_BOOL_KINDS = frozenset({"bool", "boolean"})
#: A null as a typed value's text: JSON's, and Python's, which Qwen3.5's template teaches (it renders a null argument
#: with ``| string``); vLLM's qwen3 readers take both for any type but a string
#: (test_python_none_value_for_nullable_int).
_NULL_WORDS = frozenset({"null", "None"})
#: Declared container types: text that is not JSON is read as a Python literal of one, as vLLM's and SGLang's
#: readers of these formats fall back to ``ast.literal_eval`` (ek parses it, never evaluates it).
_CONTAINER_KINDS = frozenset({"array", "list", "tuple", "object", "dict"})


def typed_text(raw: str, kind: str | None, limits: Limits, fmt: str,
               where: tuple[int, int] | Callable[[], tuple[int, int]] | None = None) -> Any:
    """A parameter written as bare text, read as the type its tool declares.

    ``kind`` is a declared type name (JSON Schema's ``string``/``integer``/``number``/``boolean``/
    ``array``/``object`` or ek's ``str``/``int``/``float``/``bool``/``list``/``object``/``date``...),
    or None when no grammar is known. Text-typed parameters keep the text; numbers and booleans are
    read when the text is one (else the text is kept, so the scorer reports the wrong type); anything
    else, and every parameter without a declared type, is the JSON value when the text parses as JSON,
    else the text. ``where``: the value's place, for an error, or a function that works it out then (a
    reader passes ``partial(line_col, text, offset)``: counting the lines before every value of a long
    output made reading it quadratic).

    >>> [typed_text("3", k, Limits(), "qwen3-coder") for k in ("integer", "string", None)]
    [3, '3', 3]
    >>> typed_text("Paris", None, Limits(), "qwen3-coder"), typed_text("True", "bool", Limits(), "qwen3-coder")
    ('Paris', True)
    >>> typed_text("-Infinity", None, Limits(), "qwen3-coder"), typed_text("NaN", None, Limits(), "qwen3-coder")
    ('-Infinity', 'NaN')
    >>> [typed_text(t, k, Limits(), "qwen3-coder") for t, k in (("null", "integer"), ("None", "bool"), ("null", "str"))]
    [None, None, 'null']
    """
    if kind in _TEXT_KINDS:
        return raw
    text = raw.strip()
    if kind is not None and text in _NULL_WORDS:
        return None  # a declared non-string value left empty: read as untyped text reads null, not as the text
    if kind in _BOOL_KINDS:
        lowered = text.lower()
        return True if lowered == "true" else False if lowered == "false" else raw
    if kind in _INT_KINDS or kind in _NUMBER_KINDS:
        try:
            value = json_text.loads(text, limits, fmt)
        except ParseError:
            return raw
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return raw
        if kind in _NUMBER_KINDS or isinstance(value, int):
            return value
        return int(value) if value.is_integer() else raw
    if not text or text[0] not in '[{"-0123456789tfn':
        return raw  # cannot be JSON: no decoder call for ordinary text
    try:
        return json_text.loads(text, limits, fmt)
    except ParseError as error:
        if json_text.not_json(error):  # a NaN or an infinity too: "-Infinity" is text, as "NaN" is
            return _python_container(raw, limits) if kind in _CONTAINER_KINDS else raw
        raise error.moved(where() if callable(where) else where, fmt) from None


def _python_container(raw: str, limits: Limits) -> Any:
    """A declared list or object written as a Python literal (``[{"status": 'pending'}]``: SGLang's
    test_qwen3_coder_detector complex_schema), read as one; any other text is kept, so the scorer reports it."""
    text = raw.strip()
    if text[:1] not in ("[", "{", "("):
        return raw
    try:
        value = python_literal(text, limits)
    except ParseError:
        return raw
    return value if isinstance(value, (list, dict)) else raw


def render_xml_value(value: Any) -> str:
    """How :func:`ek.parsing.render.to_qwen3_coder` writes a value so that untyped reading gives it back.

    Plain text is written as is; text that would read as JSON, that has surrounding whitespace, or that
    holds ``</parameter>`` (the format has no escaping) is written as a JSON string, ``<`` as ``\\u003c``.

    >>> render_xml_value("Paris"), render_xml_value("3"), render_xml_value(3)
    ('Paris', '"3"', '3')
    """
    if isinstance(value, str):
        plain = (value == value.strip() and value and "<" not in value and
                 typed_text(value, None, Limits(), "qwen3-coder") == value)
        if plain:
            return value
    return json.dumps(value, allow_nan=False, ensure_ascii=False).replace("<", "\\u003c")
