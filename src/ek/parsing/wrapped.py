"""Calls written as JSON or Python call text between a family's own open and close tokens.

Several model families write a form of calls ek already reads (a JSON list of call objects, or a list of
Python calls) and only wrap it in a token pair of their own::

    jamba           <tool_calls>[{"name": "f", "arguments": {...}}]</tool_calls>
    nemotron        <TOOLCALL>[{"name": "f", "arguments": {...}}]</TOOLCALL>
    lfm2            <|tool_call_start|>[f(a=1), g()]<|tool_call_end|>
    pangu           <|tool_call_start|>[{"name": "f", "arguments": {...}}]<|tool_call_end|>
    apertus         <|tools_prefix|>[{"f": {...}}]<|tools_suffix|>
    cohere          <|START_ACTION|>[{"tool_call_id": "0", "tool_name": "f", "parameters": {...}}]<|END_ACTION|>
    qwen25-coder    <tools>{"name": "f", "arguments": {...}}</tools>
    olmo3           <function_calls>f(a=1)\ng(b=null)</function_calls>
    internlm2       <|action_start|><|plugin|>{"name": "f", "parameters": {...}}<|action_end|>
    longcat         <longcat_tool_call>{"name": "f", "arguments": {...}}</longcat_tool_call>
    gigachat3       function call<|role_sep|>{"name": "f", "arguments": {...}}</s>   (3.1: <|function_call|>{...}</s>)

One table (:data:`WRAPPERS`, a :class:`Wrapper` per family) says what differs; one reader (:func:`read_wrapped`)
reads them all. Tokens are found with ``str.find``; a JSON body is decoded in place
(:func:`ek.parsing.json_text.decode_at`), so a token inside a JSON string never ends a block early; a Python
body is read by :func:`ek.parsing.python_calls.parse_python`, never evaluated (OLMo 3's calls one a line, its
``true``/``false``/``null`` as JSON's words, as vLLM reads them). Every block is read (a stack that
reads only the first drops the calls after it). Prose before, between and after blocks is skipped, as the
serving stacks skip it, but a JSON object or a ``[name(...)]`` list in it is an error: ek reads all of an
output or none of it. Errors name the format, a line and column and what was expected there; an output that
stops inside a block says it was cut short.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import attrs

from ek.calls import Step
from ek.parsing import chat_text, json_text, shapes
from ek.parsing.errors import ParseError, line_col
from ek.parsing.limits import Limits, check_text
from ek.parsing.prose import call_lists, calls_from_json, json_objects, where
from ek.parsing.python_calls import parse_python
from ek.parsing.registry import TypeHint
from ek.parsing.scan import skip_space


@attrs.frozen
class Wrapper:
    """One family's wrapper: its tokens, what its blocks hold, and how a missing close token reads."""

    #: The format name (``parse_calls(text, format)``).
    format: str
    #: The family, as messages name it.
    family: str
    open: str
    close: str
    #: What a block holds: ``"json-list"`` a JSON list of calls; ``"json"`` one call object or a list;
    #: ``"json-object"`` one call object (the stacks take a list for no call: InternLM2, LongCat, GigaChat);
    #: ``"python"`` a list of Python calls (or a JSON list, which SGLang's LFM2 reader also takes);
    #: ``"python-lines"`` Python calls one a line, ``true``/``false``/``null`` read as JSON's words (OLMo 3), and an
    #: output that is nothing but such calls, with no block, read as them (as vLLM's OLMo 3 reader reads it).
    body: str
    #: A JSON call's shape: ``"name"`` ``{"name", "arguments"}`` (arguments may be JSON text); ``"key"``
    #: ``{"NAME": {arguments}}``, one key per object; ``"cohere"`` ``{"tool_call_id", "tool_name", "parameters"}``.
    shape: str
    #: A block without its close token: ``"cut"`` the output was cut short (the stacks read no call);
    #: ``"to-end"`` the last block may run to the end of the output, and is read when its calls are whole (as
    #: vLLM reads it); ``"optional"`` the block ends where its JSON does, with or without the token.
    unclosed: str
    #: Blocks (open, close) skipped whole wherever they stand: reasoning and answer text, never calls.
    skipped: tuple[tuple[str, str], ...] = ()
    #: Other tokens that open a block of calls, as ``open`` does (GigaChat 3.1's ``<|function_call|>`` where
    #: GigaChat 3 wrote ``function call<|role_sep|>``): one family, one format, whichever version wrote the output.
    also_open: tuple[str, ...] = ()
    #: The close token is the end-of-turn token (GigaChat's ``</s>``): it ends a reply with no call too, so one in
    #: prose is no stray close.
    close_ends_turn: bool = False

    @property
    def call_opens(self) -> tuple[str, ...]:
        """The tokens that open a block of calls: ``open`` first."""
        return (self.open, *self.also_open)

    @property
    def openings(self) -> tuple[str, ...]:
        """The tokens that open a block: the calls' first, then the skipped blocks' in order."""
        return (*self.call_opens, *(opening for opening, _ in self.skipped))


TOOL_CALLS_OPEN, TOOL_CALLS_CLOSE = "<tool_calls>", "</tool_calls>"
TOOLCALL_OPEN, TOOLCALL_CLOSE = "<TOOLCALL>", "</TOOLCALL>"
CALL_START, CALL_END = "<|tool_call_start|>", "<|tool_call_end|>"
TOOLS_PREFIX, TOOLS_SUFFIX = "<|tools_prefix|>", "<|tools_suffix|>"
ACTION_OPEN, ACTION_CLOSE = "<|START_ACTION|>", "<|END_ACTION|>"
COHERE_SKIPPED = (("<|START_THINKING|>", "<|END_THINKING|>"), ("<|START_RESPONSE|>", "<|END_RESPONSE|>"),
                  ("<|START_TEXT|>", "<|END_TEXT|>"))
TOOLS_OPEN, TOOLS_CLOSE = "<tools>", "</tools>"
FUNCTION_CALLS_OPEN, FUNCTION_CALLS_CLOSE = "<function_calls>", "</function_calls>"
#: InternLM2/2.5's plugin call, and its code interpreter block: code to run, no function call (vLLM keeps it as
#: content), skipped whole. A detokenizer that puts a space between special tokens writes ``<|action_start|>
#: <|plugin|>``, which SGLang's (and lmdeploy's) InternLM reader looks for; vLLM's looks for the two tokens
#: together: ek reads both.
ACTION_PLUGIN, ACTION_END = "<|action_start|><|plugin|>", "<|action_end|>"
ACTION_INTERPRETER = "<|action_start|><|interpreter|>"
SPACED_PLUGIN, SPACED_INTERPRETER = "<|action_start|> <|plugin|>", "<|action_start|> <|interpreter|>"
LONGCAT_OPEN, LONGCAT_CLOSE = "<longcat_tool_call>", "</longcat_tool_call>"
#: GigaChat 3 writes ``<|message_sep|>\n\nfunction call<|role_sep|>\n`` before its call (the header of a message
#: of role "function call"), GigaChat 3.1 one ``<|function_call|>`` token; either ends the turn with ``</s>``.
GIGACHAT3_OPEN, GIGACHAT31_OPEN, GIGACHAT_END = "function call<|role_sep|>", "<|function_call|>", "</s>"

#: Hunyuan-A13B writes Jamba's block. It is no format of its own: ``hunyuan`` reads every encoding of Tencent's
#: Hunyuan line, A13B's through this wrapper and Hy3's and Hy4's key/value tags (:func:`ek.parsing.glm.read_hunyuan`).
HUNYUAN_A13B = Wrapper("hunyuan", "Hunyuan-A13B", TOOL_CALLS_OPEN, TOOL_CALLS_CLOSE, "json-list", "name", "cut")

#: Every family's wrapper, by format name.
WRAPPERS: dict[str, Wrapper] = {w.format: w for w in (
    Wrapper("jamba", "AI21 Jamba", TOOL_CALLS_OPEN, TOOL_CALLS_CLOSE, "json-list", "name", "cut"),
    Wrapper("nemotron", "Nemotron", TOOLCALL_OPEN, TOOLCALL_CLOSE, "json", "name", "cut"),
    Wrapper("lfm2", "LFM2", CALL_START, CALL_END, "python", "name", "to-end"),
    Wrapper("pangu", "openPangu", CALL_START, CALL_END, "json-list", "name", "cut"),
    Wrapper("apertus", "Apertus", TOOLS_PREFIX, TOOLS_SUFFIX, "json-list", "key", "optional"),
    Wrapper("cohere", "Cohere Command", ACTION_OPEN, ACTION_CLOSE, "json-list", "cohere", "to-end", COHERE_SKIPPED),
    Wrapper("qwen25-coder", "Qwen2.5-Coder", TOOLS_OPEN, TOOLS_CLOSE, "json", "name", "to-end"),
    Wrapper("olmo3", "OLMo 3", FUNCTION_CALLS_OPEN, FUNCTION_CALLS_CLOSE, "python-lines", "name", "cut"),
    # vLLM's internlm2 parser reads the JSON after <|plugin|> up to <|action_end|> or the end of the output
    Wrapper("internlm2", "InternLM2", ACTION_PLUGIN, ACTION_END, "json-object", "name", "to-end",
            ((ACTION_INTERPRETER, ACTION_END), (SPACED_INTERPRETER, ACTION_END)), also_open=(SPACED_PLUGIN,)),
    # vLLM's longcat parser is its Hermes parser with these tags: the last block may run to the end
    Wrapper("longcat", "LongCat-Flash", LONGCAT_OPEN, LONGCAT_CLOSE, "json-object", "name", "to-end"),
    # vLLM's gigachat3 parser decodes all that follows the header (one call), a final </s> dropped
    Wrapper("gigachat3", "GigaChat 3", GIGACHAT3_OPEN, GIGACHAT_END, "json-object", "name", "to-end",
            also_open=(GIGACHAT31_OPEN,), close_ends_turn=True),
)}


def reader(fmt: str) -> Callable[[str, Limits, TypeHint | None, str], list[Step]]:
    """The text reader of format ``fmt`` (what ``api._register_builtins`` registers)."""
    wrapper = WRAPPERS[fmt]

    def read(text: str, limits: Limits, types: TypeHint | None = None, name: str = fmt) -> list[Step]:
        return read_wrapped(text, wrapper, limits, name)

    read.__doc__ = f"{wrapper.family}: calls in {wrapper.open}...{wrapper.close} blocks (see :mod:`{__name__}`)."
    return read


def read_wrapped(text: str, wrapper: Wrapper, limits: Limits, fmt: str | None = None) -> list[Step]:
    """The calls of every ``wrapper`` block in ``text``, after a leading ``<think>``; text with none is no calls.

    >>> read_wrapped('Sure. <TOOLCALL>[{"name": "f", "arguments": {"x": 1}}]</TOOLCALL>', WRAPPERS["nemotron"],
    ...              Limits())
    [Step(name='f', args={'x': 1})]
    >>> read_wrapped("<|tool_call_start|>[f(x=1), g()]<|tool_call_end|>Done.", WRAPPERS["lfm2"], Limits())
    [Step(name='f', args={'x': 1}), Step(name='g', args={})]
    >>> read_wrapped('<tool_calls>[{"name": "f", "arguments": {}}]', WRAPPERS["jamba"], Limits())
    Traceback (most recent call last):
    ...
    ek.parsing.errors.ParseError: jamba: line 1, column 1: a <tool_calls> block is not closed by </tool_calls> (output cut short?)
    """
    fmt = fmt or wrapper.format
    check_text(text, limits, fmt)
    pos = chat_text.after_think(text, fmt)
    if wrapper.body == "python-lines" and is_bare_calls(text, pos, wrapper):
        return _bare_calls(text, pos, limits, fmt)
    steps: list[Step] = []
    ahead: dict[str, int] = {}
    while True:
        at, opened = _next_open(text, pos, wrapper, ahead)
        _prose(text, pos, len(text) if at == -1 else at, wrapper, fmt)
        if at == -1:
            return steps
        if opened not in wrapper.call_opens:
            pos = _skip_block(text, at, opened, dict(wrapper.skipped)[opened], fmt)
            continue
        found, pos = _block(text, at, opened, wrapper, limits, fmt)
        steps.extend(found)


def _next_open(text: str, pos: int, wrapper: Wrapper, ahead: dict[str, int]) -> tuple[int, str]:
    """Where the next block (of calls, or skipped) opens at or after ``pos``, and its token; -1 if none (the
    calls' token first, then the skipped ones in order, at one position).

    ``ahead``: each token's first position at or after where it was last looked for (-1: none), kept by the
    caller through one text, whose ``pos`` only grows. A token is looked for again only once reading has passed
    it, so each stretch of text is searched once for each token: searching to the end for every block, a token
    far away or absent made many skipped blocks quadratic."""
    best, token = -1, wrapper.open
    for opening in wrapper.openings:
        at = ahead.get(opening, -2)
        if at == -2 or -1 < at < pos:  # not looked for yet, or passed: the first position at or after pos
            at = ahead[opening] = text.find(opening, pos)
        if at != -1 and (best == -1 or at < best):
            best, token = at, opening
    return best, token


def _skip_block(text: str, at: int, opening: str, closing: str, fmt: str) -> int:
    end = text.find(closing, at + len(opening))
    if end == -1:
        raise ParseError(f"a {opening} block is not closed by {closing} (output cut short?)", line_col(text, at), fmt,
                         cut_short=True)
    return end + len(closing)


def _prose(text: str, begin: int, end: int, wrapper: Wrapper, fmt: str) -> None:
    """Text outside the blocks: prose the stacks skip, refused when it holds the format's close token (a block
    never opened), a JSON object or a list of Python calls (calls ek would not read); in OLMo 3's, a line that
    starts with a call too (its calls are lines)."""
    if begin >= end:
        return
    stray = -1 if wrapper.close_ends_turn else text.find(wrapper.close, begin, end)
    found = json_objects(text, fmt, begin, end) or call_lists(text, fmt, begin, end)
    calls = found[0][0] if found else -1
    line = _LINE_CALL.search(text, begin, end) if wrapper.body == "python-lines" else None
    if line is not None and (calls == -1 or line.start() < calls):
        calls = skip_space(text, line.start())
    if stray != -1 and (calls == -1 or stray < calls):
        raise ParseError(f"{wrapper.close} without an opening {wrapper.open}", line_col(text, stray), fmt)
    if calls != -1:
        raise ParseError(f"call syntax outside the {wrapper.open} blocks; ek reads all of an output or none of it",
                         line_col(text, calls), fmt)


def _block(text: str, at: int, opened: str, wrapper: Wrapper, limits: Limits,
           fmt: str) -> tuple[list[Step], int]:
    """The calls of the block whose open token ``opened`` is at ``at``, and where reading goes on."""
    body = skip_space(text, at + len(opened))
    if body >= len(text):
        raise ParseError(f"a {opened} block with nothing after it (output cut short?)", line_col(text, at), fmt,
                         cut_short=True)
    if wrapper.body == "python-lines" or (wrapper.body == "python" and not is_json_body(text, body)):
        return _python_block(text, at, wrapper, limits, fmt)
    return _json_block(text, at, body, opened, wrapper, limits, fmt)


def is_json_body(text: str, pos: int) -> bool:
    """Whether the body at ``pos`` is JSON: an object, or a list whose first item is one (``[{``) or empty.

    >>> is_json_body('[ {"name": "f"}]', 0), is_json_body("[f(x=1)]", 0), is_json_body("[]", 0)
    (True, False, True)
    """
    if text.startswith("{", pos):
        return True
    if not text.startswith("[", pos):
        return False
    after = skip_space(text, pos + 1)
    return text.startswith(("{", "]"), after)


def _json_block(text: str, at: int, body: int, opened: str, wrapper: Wrapper, limits: Limits,
                fmt: str) -> tuple[list[Step], int]:
    if not is_json_body(text, body) or text[body] != _FIRST.get(wrapper.body, text[body]):
        raise ParseError(f"expected {_WHAT[wrapper.body]} after {opened}", line_col(text, body), fmt)
    value, end = json_text.decode_at(text, body, limits, fmt)
    steps = _calls(value, text, body, wrapper, limits, fmt)
    after = skip_space(text, end)
    if text.startswith(wrapper.close, after):
        return steps, after + len(wrapper.close)
    if wrapper.unclosed == "optional":
        return steps, end  # the close token is optional (vLLM's Apertus reader): what follows is prose
    if after >= len(text):
        if wrapper.unclosed == "to-end":
            return steps, after  # whole calls, only the close token missing (as vLLM reads it)
        raise unclosed(text, at, wrapper, fmt, opened)
    cut = wrapper.close.startswith(text[after:].rstrip())
    raise ParseError(f"expected {wrapper.close} after the calls" + (" (output cut short?)" if cut else ""),
                     line_col(text, after), fmt, cut_short=cut)


def unclosed(text: str, at: int, wrapper: Wrapper, fmt: str, opened: str | None = None) -> ParseError:
    """The error for a block opened (by ``opened``, else the wrapper's ``open``) at ``at`` and never closed."""
    return ParseError(f"a {opened or wrapper.open} block is not closed by {wrapper.close} (output cut short?)",
                      line_col(text, at), fmt, cut_short=True)


#: The character a JSON body of each kind must start with (``"json"``: an object or a list), and its name in errors.
_FIRST = {"json-list": "[", "json-object": "{"}
_WHAT = {"json": "a JSON call object or list of calls", "json-list": "a JSON list of calls",
         "json-object": "a JSON call object"}


def _python_block(text: str, at: int, wrapper: Wrapper, limits: Limits, fmt: str) -> tuple[list[Step], int]:
    """A block of Python calls: the text up to its close token (or, left open, to the end of the output)."""
    begin = at + len(wrapper.open)
    close = text.find(wrapper.close, begin)
    end = len(text) if close == -1 else close
    inner = text.find(wrapper.open, begin, end)
    if inner != -1:
        raise ParseError(f"{wrapper.open} inside an unclosed {wrapper.open} block", line_col(text, inner), fmt)
    if close == -1 and wrapper.unclosed == "cut":
        raise unclosed(text, at, wrapper, fmt)
    raw = text[begin:end]
    lead = len(raw) - len(raw.lstrip())
    try:
        steps = parse_python(raw.strip(), limits, json_words=wrapper.body == "python-lines")
    except ParseError as error:
        if close == -1 and not error.cut_short:
            raise unclosed(text, at, wrapper, fmt) from None
        raise error.moved(chat_text.shift(error.position, text, begin + lead), fmt) from None
    return steps, end if close == -1 else close + len(wrapper.close)


#: A Python call at the start of a text: ``name(`` (dotted names too); and at the start of a line in prose, the name
#: right before its ``(`` (``Paris (France) is sunny.`` is prose). Possessive runs: linear (a line's first word is
#: read once).
_BARE_CALL = re.compile(r"[A-Za-z_][\w.]*+[ \t]*+\(")
_LINE_CALL = re.compile(r"^[ \t]*+[A-Za-z_][\w.]*+\(", re.MULTILINE)


def is_bare_calls(text: str, pos: int, wrapper: Wrapper) -> bool:
    """Whether ``text[pos:]`` holds no ``wrapper`` token and starts with a Python call: OLMo 3's calls written
    with no block around them, which vLLM's reader takes when the whole output is calls (``auto`` reads such a
    text as Python calls too).

    >>> is_bare_calls("get_weather(city='Paris')", 0, WRAPPERS["olmo3"]), is_bare_calls("Sure.", 0, WRAPPERS["olmo3"])
    (True, False)
    """
    start = skip_space(text, pos)
    return _BARE_CALL.match(text, start) is not None and text.find(wrapper.open, start) == -1 \
        and text.find(wrapper.close, start) == -1


def _bare_calls(text: str, pos: int, limits: Limits, fmt: str) -> list[Step]:
    """The Python calls that are all of ``text[pos:]`` (one a line), or an error where they stop being calls."""
    begin = skip_space(text, pos)
    try:
        return parse_python(text[begin:].rstrip(), limits, json_words=True)
    except ParseError as error:
        raise error.moved(chat_text.shift(error.position, text, begin), fmt) from None


def _calls(value: Any, text: str, at: int, wrapper: Wrapper, limits: Limits, fmt: str) -> list[Step]:
    """The calls of a block's JSON ``value``, decoded at ``text[at]``, read in the family's shape."""
    if wrapper.shape == "name":
        return calls_from_json(value, text, at, limits, fmt)
    steps: list[Step] = []
    for i, item in enumerate(value if isinstance(value, list) else [value]):
        path = f"$[{i}]"
        try:
            steps.extend(_shaped(item, wrapper.shape, path, limits, fmt))
        except ParseError as error:
            raise error.moved(where(text, at, error.position), fmt) from None
    return steps


def _shaped(item: Any, shape: str, path: str, limits: Limits, fmt: str) -> list[Step]:
    if shape == "key":
        if not isinstance(item, dict) or len(item) != 1:
            got = f"keys {', '.join(repr(k) for k in list(item)[:6])}" if isinstance(item, dict) and item \
                else shapes.json_kind(item) if not isinstance(item, dict) else "an empty object"
            raise ParseError(f'expected a call {{"NAME": {{arguments}}}} with one key, got {got}', path, fmt)
        return shapes.bfcl_call(item, path, limits, fmt)
    if not isinstance(item, dict) or "tool_name" not in item:
        got = shapes.json_kind(item) if not isinstance(item, dict) else \
            f"keys {', '.join(repr(k) for k in list(item)[:6]) or 'none'}"
        raise ParseError(f'expected a call {{"tool_call_id", "tool_name", "parameters"}}, got {got}', path, fmt)
    return [shapes.generic_call({"name": item["tool_name"], "parameters": item.get("parameters", {})}, path,
                                limits, fmt)]


# --------------------------------------------------------------------------- auto


def detect(text: str, start: int) -> list[tuple[str, int]]:
    """The wrapped formats whose open token appears in ``text[start:]``, each with where it was first seen.

    Families that share a token are told apart by what the first block holds, never guessed: after
    ``<|tool_call_start|>``, a JSON list is openPangu's and Python calls or one JSON object LFM2's; after
    ``<tool_calls>``, a JSON list is Jamba's (Hunyuan-A13B writes the same, and is read the same) and anything
    else is not (MiniMax-M1 writes one object a line, which ``auto`` reads as JSON in prose); after
    ``<tools>``, JSON is Qwen2.5-Coder's; after ``<function_calls>``, anything but a tag is OLMo 3's
    (Anthropic's old ``<function_calls><invoke name=...>`` is markup no format reads, which ``auto`` refuses). A
    ``<|tool_call_end|>`` with no ``<|tool_call_start|>`` is LFM2's reader's to refuse.

    >>> detect('<|tool_call_start|>[{"name": "f", "arguments": {}}]<|tool_call_end|>', 0)
    [('pangu', 0)]
    >>> detect("x <|tool_call_start|>[f()]<|tool_call_end|>", 0), detect('<tool_calls>\\n{"name": "f"}', 0)
    ([('lfm2', 2)], [])
    >>> detect("<function_calls>\\nf(x=1)\\n</function_calls>", 0), detect('<function_calls><invoke name="f">', 0)
    ([('olmo3', 0)], [])
    """
    found: list[tuple[str, int]] = []
    at = text.find(TOOL_CALLS_OPEN, start)
    if at != -1 and text.startswith("[", skip_space(text, at + len(TOOL_CALLS_OPEN))):
        found.append(("jamba", at))
    at = text.find(TOOLCALL_OPEN, start)
    if at != -1:
        found.append(("nemotron", at))
    at = text.find(CALL_START, start)
    if at != -1:
        body = skip_space(text, at + len(CALL_START))
        # a JSON list is openPangu's (LFM2's JSON mode writes one too, read the same); one object only LFM2's
        # JSON mode writes (SGLang's test_streaming_json_complete_in_one_chunk), and pangu's reader refuses it
        found.append(("pangu" if text.startswith("[", body) and is_json_body(text, body) else "lfm2", at))
    at = text.find(TOOLS_PREFIX, start)
    if at != -1:
        found.append(("apertus", at))
    hits = [p for p in (text.find(t, start) for t in (ACTION_OPEN, ACTION_CLOSE, *(o for o, _ in COHERE_SKIPPED)))
            if p != -1]
    if hits:
        found.append(("cohere", min(hits)))
    at = text.find(TOOLS_OPEN, start)
    if at != -1 and text.startswith(("[", "{"), skip_space(text, at + len(TOOLS_OPEN))):
        found.append(("qwen25-coder", at))
    at = text.find(FUNCTION_CALLS_OPEN, start)
    if at != -1:
        body = skip_space(text, at + len(FUNCTION_CALLS_OPEN))
        if not text.startswith("<", body) or text.startswith(FUNCTION_CALLS_CLOSE, body):
            found.append(("olmo3", at))
    # tokens no other family writes: InternLM2's plugin call, LongCat's tags, GigaChat's two call headers
    for fmt, tokens in _OWN_TOKENS:
        hits = [p for p in (text.find(token, start) for token in tokens) if p != -1]
        if hits:
            found.append((fmt, min(hits)))
    return found


_OWN_TOKENS = (("internlm2", (ACTION_PLUGIN, ACTION_INTERPRETER, SPACED_PLUGIN, SPACED_INTERPRETER)),
               ("longcat", (LONGCAT_OPEN, LONGCAT_CLOSE)), ("gigachat3", (GIGACHAT3_OPEN, GIGACHAT31_OPEN)))


# --------------------------------------------------------------------------- render


def render_wrapped(calls: Sequence[Step], fmt: str, dumps: Callable[[Any], str],
                   python: Callable[[Sequence[Step]], str]) -> str:
    """``calls`` as family ``fmt`` writes them, in one block (no calls: no block at all). ``dumps`` writes JSON
    with ``<`` as ``\\u003c`` and ``python`` a list of Python calls, whose ``<`` (only ever inside a string) is
    written ``\\x3c``: no value can hold a token of the format.

    >>> from ek.parsing.render import _json, to_python
    >>> render_wrapped([Step("f", {"s": "<|tool_call_end|>"})], "lfm2", _json, to_python)
    "<|tool_call_start|>[f(s='\\\\x3c|tool_call_end|>')]<|tool_call_end|>"
    """
    wrapper = WRAPPERS[fmt]
    if not calls:
        return ""
    if wrapper.body == "python":
        return wrapper.open + python(calls).replace("<", "\\x3c") + wrapper.close
    if wrapper.body == "python-lines":  # one call a line, as OLMo 3's data and chat template write them
        return wrapper.open + "\n".join(python([c])[1:-1] for c in calls).replace("<", "\\x3c") + wrapper.close
    if wrapper.shape == "key":
        return wrapper.open + dumps([{c.name: dict(c.args)} for c in calls]) + wrapper.close
    if wrapper.shape == "cohere":  # as Cohere's chat template writes it
        items = ",\n    ".join(dumps({"tool_call_id": str(i), "tool_name": c.name, "parameters": dict(c.args)})
                               for i, c in enumerate(calls))
        return f"{wrapper.open}[\n    {items}\n]{wrapper.close}"
    objects = [{"name": c.name, "arguments": dict(c.args)} for c in calls]
    if wrapper.body == "json-object":  # one call a block, its JSON on the line after the open token
        return "\n".join(f"{wrapper.open}\n{dumps(o)}{wrapper.close}" for o in objects)
    if fmt == "qwen25-coder":  # one object for one call, a list for several (vLLM's parser docstring)
        return f"{wrapper.open}\n{dumps(objects[0] if len(objects) == 1 else objects)}\n{wrapper.close}"
    return wrapper.open + dumps(objects) + wrapper.close
