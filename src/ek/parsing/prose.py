"""Calls inside prose: Markdown code fences, and bare JSON objects between sentences.

Models asked for JSON often answer "Sure! Here it is: ```json {...}```" or
"Here is the result: {"name": ...} Anything else?". These functions find
those pieces in one left-to-right pass: fences with ``str.find``, a JSON
object by walking its tokens (strings skipped with a possessive regex) to the
brace that closes it. Nothing is guessed: a piece that is found but cannot be
read is an error at its line and column, and an object that starts and never
closes is reported as cut short.
"""

from __future__ import annotations

import re
from typing import Any

from ek.calls import Step
from ek.parsing import json_text, shapes
from ek.parsing.errors import ParseError, line_col
from ek.parsing.limits import Limits, check_text

FENCE = "```"
#: Fence info strings whose blocks hold calls; other languages (```bash) are prose.
CALL_FENCES = frozenset({"", "json", "jsonc", "python", "py", "tool_call", "tool_calls", "tool_code"})

#: A JSON string (its closing quote captured: None when it runs to the end unclosed), or a bracket.
_JSON_TOKENS = re.compile(r'"(?:[^"\\]++|\\.)*+(")?|[{}\[\]]', re.S)
_BRACKETS = re.compile(r"[{}\[\]]")
#: ``[`` opening a list of Python calls, ``[name(`` (dotted names too), as Llama 3.2/4 write them in prose; or
#: ``[name`` where the text ends (a list cut short after its first name).
_CALL_LIST = re.compile(r"\[[ \t]*+[A-Za-z_][\w.]*+[ \t]*+(?:\(|\Z)")
#: The start of a markup tag or special token (``</s>``, ``<|im_end|>``, ``<end_of_turn>``), never prose.
_TAG = re.compile(r"<[/|A-Za-z]")
#: Markup that writes a call or an argument itself: a tag or special token named invoke or for an argument's key or
#: value, a ``<function name=``/``<param name=``, or Kimi K3's ``<|open|>call``/``<|open|>tools``. The formats ek
#: reads are found by their own markers before ``auto`` gets here (``<invoke name=`` in a ``<minimax:tool_call>`` or
#: ``<dots_function_call>`` block, ``<ifm|arg_key>``, ``<steptml:invoke``), so what this finds in prose is a syntax
#: ek has no reader for (``<invoke name=`` with no such block, a bare ``<arg_value>``). Each tag name is at most 32
#: characters with no space before the word, so the search is linear (a bounded look at each ``<``) and prose
#: comparisons (``a < b``) never match.
_CALL_MARKUP = (r"<[/|｜]?[\w:|｜.\-]{0,32}?(?:invoke|arg_key|arg_value|tool_arg)(?![a-z])"
                r"|<[/|｜]?[\w:|｜.\-]{0,32}?(?:function|param|parameter)\s*+name="
                r"|<\|open\|>(?:call|tools)\b")
#: That, or a tag or token named for tool calls as a whole (``<acme:tool_call>``, ``<|tool_calls_begin|>`` with ASCII
#: bars, ``<function_call name=...>``, ``<tool_use>``, Meta CWM's ``<tool: bash>``, which vLLM's ``cwm`` parser reads):
#: around JSON calls such a tag is their wrapper (MiniMax-M1's ``<tool_calls>``), but in prose with no call it wraps
#: one ek cannot read.
_TOOL_MARKUP = re.compile(_CALL_MARKUP + r"|<[/|｜]?[\w:|｜.\-]{0,32}?(?:tool[_▁]?calls?|function[_▁]?calls?|tool_use"
                                         r"|start_action|tools_prefix)(?![a-z])|<tool:[ \t]{0,8}[\w.\-]",
                          re.IGNORECASE)
_CALL_MARKUP_RE = re.compile(_CALL_MARKUP, re.IGNORECASE)
#: A one-line Python string (its closing quote captured: None when unclosed), or a bracket or parenthesis.
_PY_TOKENS = re.compile(r"""'(?:[^'\\\n]++|\\.)*+(')?|"(?:[^"\\\n]++|\\.)*+(")?|[\[\](){}]""")


def tool_markup(text: str, start: int = 0, end: int | None = None, *,
                wrappers: bool = True) -> re.Match[str] | None:
    """The first tool-call markup in ``text[start:end]`` that no format ek knows would have read, or None: with
    ``wrappers`` any tag named for tool calls (:data:`_TOOL_MARKUP`), else only markup that writes a call or an
    argument itself (:data:`_CALL_MARKUP`; the prose around JSON calls may hold their wrapper tags). ``auto``
    asks it before calling a reply, or the prose around its calls, prose: a model that wrote a call in a syntax
    ek has no reader for made a call, and scoring it as no call would count it as an abstention.

    >>> tool_markup('<minimax:tool_call><invoke name="f"></invoke></minimax:tool_call>').group()
    '<minimax:tool_call'
    >>> tool_markup('<minimax:tool_call><invoke name="f"></invoke></minimax:tool_call>', wrappers=False).group()
    '<invoke'
    >>> tool_markup("<tool_calls>", wrappers=False), tool_markup("I can't: 2 < 3, and a<b tool_call.")
    (None, None)
    """
    pattern = _TOOL_MARKUP if wrappers else _CALL_MARKUP_RE
    return pattern.search(text, start, len(text) if end is None else end)


def fenced_blocks(text: str, fmt: str) -> list[tuple[str, int, int]]:
    """``(info, begin, end)`` of every fenced block (content offsets), in order.

    >>> text = "a\\n```json\\n{}\\n```\\nb ```python\\nf()\\n```"
    >>> [(info, text[b:e]) for info, b, e in fenced_blocks(text, "auto")]
    [('json', '{}\\n'), ('python', 'f()\\n')]
    """
    blocks = []
    pos = text.find(FENCE)
    while pos != -1:
        line_end = text.find("\n", pos + 3)
        if line_end == -1:
            raise ParseError("a ``` fence with no content (output cut short?)", line_col(text, pos), fmt,
                             cut_short=True)
        info = text[pos + 3: line_end].strip().lower()
        close = text.find(FENCE, line_end)
        if close == -1:
            raise ParseError("a ``` fence is not closed (output cut short?)", line_col(text, pos), fmt,
                             cut_short=True)
        blocks.append((info, line_end + 1, close))
        pos = text.find(FENCE, close + 3)
    return blocks


def json_objects(text: str, fmt: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """``(begin, end)`` of each top-level JSON object starting ``{"`` in ``text[start:end]``.

    A ``{`` not followed by a quoted key is prose (``{braces}``, a set in maths) and skipped.

    >>> text = 'Result: {"name": "f", "parameters": {"q": "} {"}}; {"name": "g"} bye {x}'
    >>> [text[b:e] for b, e in json_objects(text, "llama3")]
    ['{"name": "f", "parameters": {"q": "} {"}}', '{"name": "g"}']
    """
    stop = len(text) if end is None else end
    spans = []
    pos = text.find("{", start, stop)
    while pos != -1:
        after = pos + 1
        while after < stop and text[after] in " \t\r\n":
            after += 1
        if after >= stop or text[after] != '"':
            pos = text.find("{", pos + 1, stop)
            continue
        close = _closing(text, pos, stop)
        if close == -1:
            raise ParseError("a JSON object starts here and is never closed (output cut short?)",
                             line_col(text, pos), fmt, cut_short=True)
        spans.append((pos, close))
        pos = text.find("{", close, stop)
    return spans


def _closing(text: str, pos: int, stop: int) -> int:
    """Just past the bracket closing the one at ``text[pos]``, brackets in JSON strings not counted; -1 if none
    before ``stop``.

    A quote with no closing one before ``stop`` starts no string: the brackets after it are counted. No later
    quote starts one either (a quote between it and ``stop`` is escaped in its unclosed body, and the body from
    just after that quote is the same body's tail), so only brackets are looked for from there on: linear, where
    reading each quote's body again took 17 s on 80 kB of ``\\"``.

    >>> _closing('{"a": "}"} x', 0, 12), _closing('{"a": "}', 0, 8), _closing('{"\\\\"}}', 0, 6), _closing('{"', 0, 2)
    (10, 8, 5, -1)
    """
    depth = 0
    tokens = _JSON_TOKENS.finditer(text, pos, stop)
    for match in tokens:
        token = match.group()
        if token in "{[":
            depth += 1
        elif token in "}]":
            depth -= 1
            if depth == 0:
                return match.end()
        elif match.group(1) is None:  # a string never closed: brackets only from just after its quote
            for bracket in _BRACKETS.finditer(text, match.start() + 1, stop):
                if bracket.group() in "{[":
                    depth += 1
                else:
                    depth -= 1
                    if depth == 0:
                        return bracket.end()
            return -1
    return -1


def call_lists(text: str, fmt: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """``(begin, end)`` of each ``[name(...), ...]`` list of Python calls in ``text[start:end]``.

    Llama 3.2/4 write their pythonic calls between sentences (``Sure: [f(x=1)] Anything else?``), and SGLang
    reads them there. Only a ``[`` followed by a name and ``(`` starts a list, so ``[1]`` or ``[City Name]`` in
    prose is skipped; brackets inside Python strings are not counted. A list that never closes is cut short.

    >>> text = "Here: [f(q='])'), g()] and [h(x=[1])] bye [note]"
    >>> [text[b:e] for b, e in call_lists(text, "llama3")]
    ["[f(q='])'), g()]", '[h(x=[1])]']
    """
    stop = len(text) if end is None else end
    spans = []
    found = _CALL_LIST.search(text, start, stop)
    while found is not None:
        close = _python_closing(text, found.start(), stop) if found.group().endswith("(") else -1
        if close == -1:
            raise ParseError("a list of calls starts here and is never closed (output cut short?)",
                             line_col(text, found.start()), fmt, cut_short=True)
        spans.append((found.start(), close))
        found = _CALL_LIST.search(text, close, stop)
    return spans


def tag_outside(text: str, spans: list[tuple[int, int]]) -> int:
    """Where the first tag or special token outside ``spans`` starts, or -1.

    Prose around calls is skipped only when it is prose: an end-of-turn token left in the output
    (``[f()]<|im_end|>``) is the chat template's, and reading past it would hide that the output was not
    stripped. One search per gap, each linear.
    """
    edges = [0, *(p for span in spans for p in span), len(text)]
    for begin, end in zip(edges[::2], edges[1::2], strict=True):
        found = _TAG.search(text, begin, end)
        if found is not None:
            return found.start()
    return -1


def _python_closing(text: str, pos: int, stop: int) -> int:
    """Just past the bracket closing the one at ``text[pos]``, brackets in Python strings not counted; -1 if none
    before ``stop``.

    One left-to-right pass of possessive tokens: a string is one line at most (an unclosed quote ends at the
    newline, where counting goes on), so no character is read twice. Triple-quoted strings are read as three
    strings; a span misjudged that way fails in :func:`ek.parsing.python_calls.parse_python`, never silently.
    """
    depth = 0
    for match in _PY_TOKENS.finditer(text, pos, stop):
        token = match.group()
        if token in "[({":
            depth += 1
        elif token in "])}":
            depth -= 1
            if depth == 0:
                return match.end()
    return -1


def read_prose(text: str, limits: Limits, fmt: str) -> list[Step]:
    """``{"name", "arguments"|"parameters"}`` calls in prose: in fenced blocks if there are any, else bare.

    >>> read_prose('Here: {"name": "f", "parameters": {}} Would you like more?', Limits(), "llama3")
    [Step(name='f', args={})]
    """
    check_text(text, limits, fmt)
    steps: list[Step] = []
    blocks = [b for b in fenced_blocks(text, fmt) if b[0] in CALL_FENCES]
    spans = [s for _, begin, end in blocks for s in json_objects(text, fmt, begin, end)] if blocks \
        else json_objects(text, fmt)
    for begin, end in spans:
        value, _ = json_text.decode_at(text, begin, limits, fmt)
        steps.extend(calls_from_json(value, text, begin, limits, fmt))
    return steps


def calls_from_json(value: Any, text: str, start: int, limits: Limits, fmt: str) -> list[Step]:
    """``{"name", "arguments"|"parameters"}`` objects (one, or a list) decoded at ``text[start]``."""
    items = value if isinstance(value, list) else [value]
    steps = []
    for i, item in enumerate(items):
        path = f"$[{i}]" if isinstance(value, list) else "$"
        if not isinstance(item, dict):  # (the place is worked out only for an error: see typed_text)
            raise ParseError(f"expected a call object {{\"name\": ..., \"arguments\": {{...}}}}, got "
                             f"{shapes.json_kind(item)}", where(text, start, path), fmt)
        if "name" not in item:
            keys = ", ".join(repr(k) for k in list(item)[:6]) or "none"
            raise ParseError(f"expected a call object with a 'name' (keys: {keys})", where(text, start, path), fmt)
        try:
            steps.append(shapes.generic_call(item, path, limits, fmt))
        except ParseError as error:
            raise error.moved(where(text, start, error.position), fmt) from None
    return steps


def object_call(name: str, value: Any, text: str, at: int, limits: Limits, fmt: str, anchor: int | None = None
                ) -> Step:
    """The call of ``name`` whose arguments are ``value``, the JSON decoded at ``text[at]``: what a native reader
    does once it has the name and the arguments' JSON. Arguments that are not an object are an error at ``at``;
    an argument ek cannot hold (:func:`ek.parsing.shapes.generic_call`) is placed at ``anchor`` (the call's
    start, for readers that place it so), else at ``at``."""
    if not isinstance(value, dict):
        raise ParseError(f"arguments must be a JSON object, got {shapes.json_kind(value)}", line_col(text, at), fmt)
    try:
        return shapes.generic_call({"name": name, "arguments": value}, "$", limits, fmt)
    except ParseError as error:
        raise error.moved(where(text, at if anchor is None else anchor, error.position), fmt) from None


def where(text: str, start: int, path: object) -> str:
    line, column = line_col(text, start)
    return f"line {line}, column {column} {path}" if isinstance(path, str) else f"line {line}, column {column}"
