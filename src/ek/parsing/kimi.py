"""Moonshot Kimi-K2's tool-call section: ``<|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{...}``.

The model writes its calls in one section, ``<|tool_calls_section_begin|>`` ... ``<|tool_calls_section_end|>``
(vLLM and SGLang also take the singular ``<|tool_call_section_begin|>``/``_end|>``), each call
``<|tool_call_begin|>ID<|tool_call_argument_begin|>ARGS<|tool_call_end|>``. The ID is
``functions.NAME:IDX``, as Moonshot's tool_call_guidance.md says, from which the name is read. Tokens are
found with ``str.find``; the arguments' JSON is decoded in place, so a token inside a JSON string never ends
a call early.
"""

from __future__ import annotations

from typing import Any

from ek.calls import Step
from ek.parsing import json_text
from ek.parsing.errors import ParseError, line_col
from ek.parsing.limits import Limits, check_text
from ek.parsing.prose import object_call
from ek.parsing.registry import TypeHint
from ek.parsing.scan import cut_inside, first_of, skip_space

SECTION_BEGINS = ("<|tool_calls_section_begin|>", "<|tool_call_section_begin|>")
SECTION_ENDS = ("<|tool_calls_section_end|>", "<|tool_call_section_end|>")
CALL_BEGIN, ARGUMENT_BEGIN, CALL_END = "<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_call_end|>"
#: Every token of the format: what ``auto`` takes for Kimi-K2 (no other family writes any of them).
MARKERS = (*SECTION_BEGINS, *SECTION_ENDS, CALL_BEGIN, ARGUMENT_BEGIN, CALL_END)
#: Kimi's end of turn, dropped at the end of the output.
TURN_END = "<|im_end|>"
FUNCTIONS = "functions."


def read_kimi_k2(text: str, limits: Limits, types: TypeHint | None = None, fmt: str = "kimi-k2") -> list[Step]:
    """The calls of a Kimi-K2 completion: prose before the section is skipped, text with no section is no
    calls. A call whose ``<|tool_call_end|>`` is missing before the next call, the section's end or the end of
    the output is read when its JSON is whole, and so is a section whose end token is missing after whole
    calls (both as vLLM reads them); prose after the section is skipped when it holds no Kimi token.

    >>> read_kimi_k2('Checking. <|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0'
    ...              '<|tool_call_argument_begin|>{"city": "Beijing"}<|tool_call_end|><|tool_calls_section_end|>',
    ...              Limits())
    [Step(name='get_weather', args={'city': 'Beijing'})]
    """
    check_text(text, limits, fmt)
    body = text.rstrip()
    body = body[: -len(TURN_END)] if body.endswith(TURN_END) else text
    begin = first_of(body, SECTION_BEGINS, 0, len(body))
    if begin == -1:
        stray = first_of(body, MARKERS, 0, len(body))
        if stray != -1:
            raise ParseError("a Kimi-K2 token outside a tool-call section (expected <|tool_calls_section_begin|> "
                             "first)", line_col(body, stray), fmt)
        return []
    stray = first_of(body, MARKERS, 0, begin)
    if stray != -1:
        raise ParseError("a Kimi-K2 token before the tool-call section", line_col(body, stray), fmt)
    pos = body.find("|>", begin) + 2
    steps: list[Step] = []
    while True:
        pos = skip_space(body, pos)
        if body.startswith(SECTION_ENDS, pos):
            _prose_after(body, body.find("|>", pos) + 2, fmt)
            return steps
        if pos >= len(body):
            if steps:
                return steps  # whole calls, only the section's end token missing (as vLLM reads it)
            raise ParseError("the tool-call section holds no whole call (output cut short?)",
                             line_col(body, begin), fmt, cut_short=True)
        if not body.startswith(CALL_BEGIN, pos):
            cut = cut_inside(body, pos, MARKERS)
            raise ParseError(f"expected {CALL_BEGIN} or {SECTION_ENDS[0]}" + (" (output cut short?)" if cut else ""),
                             line_col(body, pos), fmt, cut_short=cut)
        step, pos = _call(body, pos, limits, fmt)
        steps.append(step)


def _call(text: str, start: int, limits: Limits, fmt: str) -> tuple[Step, int]:
    """One ``<|tool_call_begin|>ID<|tool_call_argument_begin|>{...}[<|tool_call_end|>]`` at ``start``; the step
    and where reading goes on."""
    head = start + len(CALL_BEGIN)
    token = text.find("<|", head)
    if token == -1 or cut_inside(text, token, MARKERS):
        raise ParseError(f"the output ends before {ARGUMENT_BEGIN} (cut short?)", line_col(text, start), fmt,
                         cut_short=True)
    if not text.startswith(ARGUMENT_BEGIN, token):
        raise ParseError(f"expected {ARGUMENT_BEGIN} after the call id", line_col(text, token), fmt)
    name = call_name(text[head:token].strip(), text, skip_space(text, head), fmt)
    args_at = skip_space(text, token + len(ARGUMENT_BEGIN))
    if args_at >= len(text):
        raise ParseError(f"the output ends after {ARGUMENT_BEGIN} (cut short?)", line_col(text, args_at), fmt,
                         cut_short=True)
    if text[args_at] != "{":
        raise ParseError("expected a JSON object of arguments", line_col(text, args_at), fmt)
    value, end = json_text.decode_at(text, args_at, limits, fmt)
    step = object_call(name, value, text, args_at, limits, fmt)
    end = skip_space(text, end)
    if text.startswith(CALL_END, end):
        return step, end + len(CALL_END)
    if end >= len(text) or text.startswith((CALL_BEGIN, *SECTION_ENDS), end):
        return step, end  # the call's end token left out after whole JSON, as vLLM reads it
    cut = cut_inside(text, end, MARKERS)
    raise ParseError(f"expected {CALL_END} after the arguments" + (" (output cut short?)" if cut else ""),
                     line_col(text, end), fmt, cut_short=cut)


def call_name(call_id: str, text: str, at: int, fmt: str) -> str:
    """The tool name in a call id: ``functions.get_weather:0`` -> ``get_weather`` (``get_weather:0`` too, as
    vLLM reads it; a dotted name keeps its dots). A bare counter (``0``) names no tool: vLLM guesses one from
    the request's tools, which a reader of the output alone cannot."""
    name, colon, index = call_id.rpartition(":")
    if not colon or not index.isdigit() or not index.isascii():
        raise ParseError(f"a call id must be functions.NAME:INDEX, got {call_id!r}", line_col(text, at), fmt)
    name = name.removeprefix(FUNCTIONS)
    if not name or any(c.isspace() for c in name):
        raise ParseError(f"no tool name in the call id {call_id!r}", line_col(text, at), fmt)
    return name


def _prose_after(text: str, pos: int, fmt: str) -> None:
    """Text after the section is prose vLLM drops; skipping it is safe only while it holds no call."""
    again = first_of(text, MARKERS, pos, len(text))
    if again != -1:
        raise ParseError("a Kimi-K2 token after the tool-call section: expected one section of calls",
                         line_col(text, again), fmt)


def render_kimi_k2(calls: list[Step], dumps: Any) -> str:
    """Calls as Kimi-K2 writes them: one section, ids ``functions.NAME:IDX`` counting from 0, JSON arguments
    (``dumps`` writes ``<`` escaped, so no value can hold a token)."""
    if not calls:
        return ""  # no calls: the model writes no section at all
    parts = []
    for index, call in enumerate(calls):
        if not call.name or any(c.isspace() for c in call.name) or "<|" in call.name:
            raise ValueError(f"tool name {call.name!r} cannot be written in a Kimi-K2 call id")
        parts.append(f"{CALL_BEGIN}{FUNCTIONS}{call.name}:{index}{ARGUMENT_BEGIN}{dumps(dict(call.args))}{CALL_END}")
    return SECTION_BEGINS[0] + "".join(parts) + SECTION_ENDS[0]
