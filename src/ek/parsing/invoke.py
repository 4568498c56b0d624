"""One reader for the ``<invoke name="...">``/``<parameter name="...">`` family of tool-call markup.

Five families write a call as an element named for the tool holding one element a parameter, its value bare
text, and differ only in the tags around and the tag names (:class:`Dialect`):

* MiniMax-M2 (``minimax-m2``): ``<minimax:tool_call>`` blocks of ``<invoke name="f">`` elements holding
  ``<parameter name="k">v</parameter>`` (:mod:`ek.parsing.minimax` has its sources).
* Step-3 (``step3``, StepFun): one ``<｜tool_calls_begin｜>`` ... ``<｜tool_calls_end｜>`` section (fullwidth bars,
  U+FF5C, and ``_``: not DeepSeek V3's ``<｜tool▁calls▁begin｜>`` with ``▁``), each call in
  ``<｜tool_call_begin｜>function<｜tool_sep｜>`` ... ``<｜tool_call_end｜>`` around
  ``<steptml:invoke name="f"><steptml:parameter name="k">v</steptml:parameter></steptml:invoke>`` (SGLang's
  ``step3_detector.py``, vLLM's ``step3_tool_parser.py`` and their tests).
* dots.llm (``dots``, rednote): ``<dots_function_call>`` blocks of ``<invoke name="f">`` elements holding
  ``<parameter name="k">v</parameter>``, or holding one JSON object ``{"name": ..., "arguments": {...}}``
  (vLLM's ``dots_tool_parser.py``, SGLang's ``dots_detector.py``).
* MiniCPM 4/5 (``minicpm``, OpenBMB): bare ``<function name="f"><param name="k">v</param></function>`` calls in
  the prose, no wrapper; a value may be a ``<![CDATA[...]]>`` section, and the tokenizer may drop the space in
  ``<functionname="f">``/``<paramname="k">`` or write it ``Ġ`` (U+0120) (vLLM's ``minicpm5xml_tool_parser.py``,
  SGLang's ``minicpm4_xml_detector.py`` and ``minicpm5_detector.py``).
* MiniMax-M3 (``minimax-m3``): every tag of the call prefixed with the namespace token ``]<]minimax[>[``
  (:data:`NS`): ``NS<tool_call>`` blocks of ``NS<invoke name="f">`` elements, each parameter an element named by
  its own tag (``NS<city>Paris NS</city>``), whose value may hold child elements: an object's keys, or a list's
  ``NS<item>`` elements (:func:`_tag_value`; vLLM's ``minimax_m3_tool_parser.py`` over its Rust crate's
  ``minimax_m3.rs``, SGLang's ``minimax_m3.py``, and the ``to_xml`` macro of MiniMaxAI/MiniMax-M3's
  ``chat_template.jinja``).

Tags are found with ``str.find`` (linear, no regex). A value is stripped of surrounding whitespace (of line breaks
only in Step-3 and MiniCPM: :attr:`Dialect.strip`), then typed by
the ``types`` hint when given, else it is the JSON value when its text parses as JSON, else the text
(:func:`ek.parsing.native.typed_text`); a CDATA section is its text, typed only by the hint. A tag of the format
inside a value means the model left out the value's closing tag: an error at that tag, never a guess.

MiniMax-M3's values nest. Its template writes a dict as one element a key, a list as one ``NS<item>`` element
an item, ``True``/``False`` as ``true``/``false`` and any other scalar as Python prints it (a string as it is,
nothing escaped). So an element whose children are all ``NS<item>`` is a list, any other element with children an
object (a key written twice gathers its values in a list, as vLLM and SGLang gather them), and a leaf is typed as
the other dialects' values are: by the hint (top-level parameters only: it names no nested type), else JSON when
its text parses as JSON, else the text (``018956`` is not JSON: it stays the string). A hint of ``array`` or
``object`` reads an empty element as ``[]`` or ``{}`` and an element's children as a list (names ignored) or as
keys. Text beside child elements, a closing tag that closes nothing open, and elements nested past ``max_depth``
are errors; the elements are read with an explicit stack, never by recursion.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import attrs

from ek.calls import Step
from ek.parsing import chat_text, json_text, shapes
from ek.parsing.errors import ParseError, line_col
from ek.parsing.limits import Limits, check_text
from ek.parsing.native import typed_text
from ek.parsing.prose import where
from ek.parsing.registry import TypeHint
from ek.parsing.scan import SPACE, next_in_element, skip_space

#: The space some MiniCPM decoders write as ``Ġ`` (GPT-2 byte-level BPE's mark for a space).
_BPE_SPACE = "\u0120"
CDATA_OPEN, CDATA_CLOSE = "<![CDATA[", "]]>"


@attrs.frozen
class Dialect:
    """The tags one family writes around the shared ``invoke``/``parameter`` syntax."""

    #: The format name (errors name it) and the family, as users name the model.
    fmt: str
    family: str
    #: The element of a call and of a parameter: ``invoke``/``parameter``, ``steptml:invoke``, ``function``/``param``.
    invoke: str
    parameter: str
    #: The block around the calls (None: calls stand bare in the prose, as MiniCPM writes them).
    block_open: str | None = None
    block_close: str | None = None
    #: Step-3's tokens around each call in the block, the optional ``function<｜tool_sep｜>`` after the opening one,
    #: and the ``<｜tool_sep｜>`` that may stand between two calls.
    call_open: str | None = None
    call_close: str | None = None
    header: str | None = None
    separator: str | None = None
    #: dots: a block may hold one JSON call instead of invokes.
    json_body: bool = False
    #: MiniCPM: ``name=`` may follow the tag name with no space (``<functionname=``) or after ``Ġ``; values may be
    #: CDATA sections.
    collapsed: bool = False
    cdata: bool = False
    #: What is dropped around a value: all whitespace where both serving stacks strip it (MiniMax-M2, dots); only
    #: line breaks where vLLM keeps a string's whitespace and SGLang strips it (Step-3, MiniCPM), so the layout a
    #: model writes between tags goes and the indentation of code in a value stays.
    strip: str = " \t\r\n"
    #: MiniMax-M3: the token before every tag of a call (None: tags stand bare). A dialect with one names each
    #: parameter by its own tag, and a value may hold child elements (:func:`_tag_value`).
    ns: str | None = None
    #: The reasoning blocks skipped before the calls (:func:`ek.parsing.chat_text.after_think`; empty: its own).
    thinks: tuple[tuple[str, str], ...] = ()

    @property
    def invoke_open(self) -> str:
        return f"{self.ns or ''}<{self.invoke}"

    @property
    def invoke_close(self) -> str:
        return f"{self.ns or ''}</{self.invoke}>"

    @property
    def param_open(self) -> str:
        return f"<{self.parameter}"

    @property
    def param_close(self) -> str:
        return f"</{self.parameter}>"

    @property
    def call_word(self) -> str:
        """What an error calls one call: ``invoke``, or ``function`` (MiniCPM)."""
        return self.invoke.rpartition(":")[2]

    def openers(self, tag: str) -> tuple[str, ...]:
        """The ways ``tag`` (``<invoke``, ``<param``) opens with its name attribute: ``<invoke name=``, and for
        MiniCPM ``<paramname=`` and ``<param\u0120name=`` too."""
        spaced = (f"{tag} name=",)
        return (*spaced, f"{tag}name=", f"{tag}{_BPE_SPACE}name=") if self.collapsed else spaced

    @property
    def markers(self) -> tuple[str, ...]:
        """What makes a text this family's, for ``auto``: its namespace token (no other family writes it, so a tag
        cut short is this family's too), else its block's tags, else its call's opening tags."""
        if self.ns is not None:
            return (self.ns,)
        if self.block_open is not None and self.block_close is not None:
            tokens = (self.block_open, self.block_close)
            if self.call_open is not None and self.call_close is not None:
                tokens = (*tokens, self.call_open, self.call_close, f"<{self.invoke} ", f"<{self.parameter} ")
            return tokens
        return self.openers(self.invoke_open)

    @property
    def not_in_value(self) -> tuple[tuple[str, str], ...]:
        """``(needle, shown)`` of the tags that cannot be inside a value: one before the value's closing tag
        means the model left that out."""
        pairs = [(o, self.param_open) for o in self.openers(self.param_open)]
        pairs.append((self.invoke_close, self.invoke_close))
        pairs.extend((o, self.invoke_open) for o in self.openers(self.invoke_open))
        pairs.extend((t, t) for t in (self.block_open, self.block_close, self.call_open, self.call_close)
                     if t is not None)
        return tuple(pairs)


MINIMAX_M2 = Dialect("minimax-m2", "MiniMax-M2", "invoke", "parameter", "<minimax:tool_call>", "</minimax:tool_call>")
STEP3 = Dialect("step3", "Step-3", "steptml:invoke", "steptml:parameter", "<｜tool_calls_begin｜>",
                "<｜tool_calls_end｜>", call_open="<｜tool_call_begin｜>", call_close="<｜tool_call_end｜>",
                header="function<｜tool_sep｜>", separator="<｜tool_sep｜>", strip="\r\n")
DOTS = Dialect("dots", "dots.llm", "invoke", "parameter", "<dots_function_call>", "</dots_function_call>",
               json_body=True)
MINICPM = Dialect("minicpm", "MiniCPM", "function", "param", collapsed=True, cdata=True, strip="\r\n")
#: MiniMax-M3's namespace token, written before every tag of a call (a single token of its vocabulary).
NS = "]<]minimax[>["
#: Values keep their spaces: vLLM keeps a leaf's whitespace, SGLang strips it (as for Step-3 and MiniCPM).
MINIMAX_M3 = Dialect("minimax-m3", "MiniMax-M3", "invoke", "parameter", f"{NS}<tool_call>", f"{NS}</tool_call>",
                     strip="\r\n", ns=NS, thinks=(("<mm:think>", "</mm:think>"), ("<think>", "</think>")))
DIALECTS = {d.fmt: d for d in (MINIMAX_M2, STEP3, DOTS, MINICPM, MINIMAX_M3)}
#: The declared types a hint names for a list and for an object (JSON Schema's and ek's grammar's words).
_LIST_KINDS = frozenset({"array", "list", "tuple"})
_OBJECT_KINDS = frozenset({"object", "dict"})


def read_invokes(text: str, limits: Limits, types: TypeHint | None, dialect: Dialect) -> list[Step]:
    """Every call of ``dialect`` in ``text`` after a leading ``<think>``, in order; text with none is no calls.
    Prose around the blocks (or, with no block, around the calls) is skipped, as vLLM and SGLang skip it; a tag
    of the format in it (a block's closing tag, an invoke outside every block) is an error.

    >>> read_invokes('<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="f">'
    ...              '<steptml:parameter name="x">1</steptml:parameter></steptml:invoke><｜tool_call_end｜>'
    ...              '<｜tool_calls_end｜>', Limits(), None, STEP3)
    [Step(name='f', args={'x': 1})]
    >>> read_invokes('ok<dots_function_call>{"name": "f", "arguments": {}}</dots_function_call>', Limits(), None, DOTS)
    [Step(name='f', args={})]
    >>> read_invokes('Hi <functionname="f"><paramname="s"><![CDATA[ a<b ]]></param></function>', Limits(), None,
    ...              MINICPM)
    [Step(name='f', args={'s': ' a<b '})]
    """
    fmt = dialect.fmt
    if len(text) > limits.max_size:
        check_text(text, limits, fmt)  # values are bare text: brackets in them are not nesting
    end = len(text)
    pos = chat_text.after_think(text, fmt, dialect.thinks)
    steps: list[Step] = []
    if dialect.block_open is None:
        return _bare_calls(text, pos, end, steps, limits, types, dialect)
    while True:
        opening = text.find(dialect.block_open, pos)
        _no_stray_tag(text, pos, end if opening == -1 else opening, dialect)
        if opening == -1:
            return steps
        pos = _block(text, opening, end, steps, limits, types, dialect)


def _strays(dialect: Dialect) -> tuple[tuple[str, str], ...]:
    """``(needle, error)`` of the tags prose must not hold: the model wrote a call, or part of one, that no
    serving stack reads; never dropped without a word."""
    if dialect.block_open is None:
        opening = f'<{dialect.invoke} name="...">'
        return (*((o, f"a <{dialect.parameter}> outside every {opening}: expected it inside one")
                  for o in dialect.openers(dialect.param_open)),
                (dialect.invoke_close, f"{dialect.invoke_close} without an opening {opening}"))
    read_none = "(vLLM and SGLang read no call from it)"
    if dialect.ns is not None:  # any tag of the format: each starts with the token
        return ((dialect.ns, f"{dialect.ns} outside {dialect.block_open}: expected {dialect.block_open} before it "
                             f"{read_none}"),)
    strays = [(o, f"an invoke outside {dialect.block_open}: expected {dialect.block_open} before it {read_none}")
              for o in dialect.openers(dialect.invoke_open)]
    if dialect.call_open is not None:
        strays.append((dialect.call_open, (f"{dialect.call_open} outside {dialect.block_open}: expected "
                                           f"{dialect.block_open} before it {read_none}")))
    strays.append((str(dialect.block_close), f"{dialect.block_close} without an opening {dialect.block_open}"))
    return tuple(strays)


def _no_stray_tag(text: str, start: int, stop: int, dialect: Dialect) -> None:
    found = [(p, error) for needle, error in _strays(dialect) if (p := text.find(needle, start, stop)) != -1]
    if found:
        at, error = min(found)
        if dialect.ns is not None and stop == len(text) and str(dialect.block_open).startswith(text[at:stop]):
            raise ParseError(f"the output ends inside {dialect.block_open} (cut short?)", line_col(text, at),
                             dialect.fmt, cut_short=True)
        raise ParseError(error, line_col(text, at), dialect.fmt)


def _bare_calls(text: str, pos: int, end: int, steps: list[Step], limits: Limits, types: TypeHint | None,
                dialect: Dialect) -> list[Step]:
    """MiniCPM's calls: each ``<function name=...>`` in the prose, the prose between them skipped."""
    openers = dialect.openers(dialect.invoke_open)
    ahead = dict.fromkeys(openers, -2)  # where each spelling is next: a spelling never written is looked for once
    while True:
        for o, p in ahead.items():
            if p != -1 and p < pos:
                ahead[o] = text.find(o, pos)
        found = [p for p in ahead.values() if p != -1]
        at = min(found) if found else -1
        _no_stray_tag(text, pos, end if at == -1 else at, dialect)
        if at == -1:
            tail = text.rfind("<", pos, end)  # an opening tag cut short is a call cut short, not prose
            if tail != -1 and text.startswith(dialect.invoke_open, tail) and any(
                    o.startswith(text[tail:end]) for o in openers):
                raise ParseError(f"the output ends inside a {dialect.invoke_open} tag (cut short?)",
                                 line_col(text, tail), dialect.fmt, cut_short=True)
            return steps
        step, pos = _invoke(text, at, end, limits, types, dialect)
        steps.append(step)


def _expected(text: str, pos: int, end: int, tags: tuple[str, ...], what: str, fmt: str) -> ParseError:
    """The error for text at ``pos`` that starts none of ``tags``: cut short when the output ends inside one."""
    rest = text[pos:end]
    cut = any(tag.startswith(rest) for tag in tags)
    return ParseError(f"expected {what}" + (" (output cut short?)" if cut else ""), line_col(text, pos), fmt,
                      cut_short=cut)


def _starts_tag(text: str, pos: int, end: int, tag: str, dialect: Dialect) -> bool:
    """Whether the opening tag ``tag`` (``<invoke``, ``<parameter``) starts at ``pos``: followed by a space, or by
    the end of the output (cut short inside it), not by another letter (for MiniCPM, ``name=`` or ``Ġ`` may follow
    it directly)."""
    after = pos + len(tag)
    if not text.startswith(tag, pos):
        return False
    if after >= end or text[after] in SPACE:
        return True
    return dialect.collapsed and (text[after] == _BPE_SPACE or "name=".startswith(text[after:after + 5]))


def _block(text: str, opening: int, end: int, steps: list[Step], limits: Limits, types: TypeHint | None,
           dialect: Dialect) -> int:
    """Read the block opened at ``opening`` into ``steps``; where it ends."""
    fmt, close = dialect.fmt, str(dialect.block_close)
    pos = opening + len(str(dialect.block_open))
    read = 0
    while True:
        pos = skip_space(text, pos, end)
        if pos >= end:
            raise ParseError(f"the block is not closed by {close} (output cut short?)", line_col(text, opening), fmt,
                             cut_short=True)
        if text.startswith(close, pos):
            return pos + len(close)
        if dialect.call_open is not None:
            if read and dialect.separator is not None and text.startswith(dialect.separator, pos):
                pos += len(dialect.separator)  # <｜tool_sep｜> between two calls (vLLM's tests write it)
                continue
            step, pos = _framed_call(text, pos, end, limits, types, dialect)
        elif dialect.json_body and not read and text[pos] == "{":
            step, pos = _json_call(text, pos, end, limits, dialect)
        elif _starts_tag(text, pos, end, dialect.invoke_open, dialect):
            step, pos = _invoke(text, pos, end, limits, types, dialect)
        else:
            body = ' or a JSON call {"name": ..., "arguments": {...}}' if dialect.json_body and not read else ""
            raise _expected(text, pos, end, (dialect.invoke_open, close),
                            f'{dialect.invoke_open} name="...">{body} or {close}', fmt)
        steps.append(step)
        read += 1


def _framed_call(text: str, pos: int, end: int, limits: Limits, types: TypeHint | None,
                 dialect: Dialect) -> tuple[Step, int]:
    """Step-3's ``<｜tool_call_begin｜>[function<｜tool_sep｜>[NAME]]<steptml:invoke ...>...<｜tool_call_end｜>`` at
    ``pos``: its call and where it ends. A name between the header and the invoke (vLLM's tests write one) must
    be the invoke's."""
    fmt, call_open, call_close, header = dialect.fmt, str(dialect.call_open), str(dialect.call_close), \
        str(dialect.header)
    if not text.startswith(call_open, pos):
        raise _expected(text, pos, end, (call_open, str(dialect.block_close)),
                        f"{call_open} or {dialect.block_close}", fmt)
    pos = skip_space(text, pos + len(call_open), end)
    lead, lead_at = "", pos
    if text.startswith(header, pos):
        pos += len(header)
        tag = text.find("<", pos, end)
        lead_at = skip_space(text, pos, end)
        lead = text[pos:end if tag == -1 else tag].strip(SPACE)
        if tag == -1 or "\n" in lead or " " in lead:
            if tag == -1:
                raise ParseError(f"the call is not closed by {call_close} (output cut short?)",
                                 line_col(text, lead_at), fmt, cut_short=True)
            raise ParseError(f'expected <{dialect.invoke} name="..."> after {header}', line_col(text, lead_at), fmt)
        pos = tag
    if not _starts_tag(text, pos, end, dialect.invoke_open, dialect):
        raise _expected(text, pos, end, (header, dialect.invoke_open),
                        f'{header} or <{dialect.invoke} name="...">', fmt)
    step, pos = _invoke(text, pos, end, limits, types, dialect)
    if lead and lead != step.name:
        raise ParseError(f"the call's header names {lead!r} but its invoke {step.name!r}", line_col(text, lead_at),
                         fmt)
    pos = skip_space(text, pos, end)
    if not text.startswith(call_close, pos):
        raise _expected(text, pos, end, (call_close,), f"{call_close} after the invoke", fmt)
    return step, pos + len(call_close)


def _json_call(text: str, pos: int, end: int, limits: Limits, dialect: Dialect) -> tuple[Step, int]:
    """dots' JSON fallback: a block holding one ``{"name": ..., "arguments": {...}}`` object."""
    fmt, close = dialect.fmt, str(dialect.block_close)
    value, after = json_text.decode_at(text, pos, limits, fmt)
    if not isinstance(value, dict):
        raise ParseError(f"a call must be a JSON object, got {shapes.json_kind(value)}", line_col(text, pos), fmt)
    try:
        step = shapes.generic_call(value, "$", limits, fmt)
    except ParseError as error:
        raise error.moved(where(text, pos, error.position), fmt) from None
    after = skip_space(text, after, end)
    if not text.startswith(close, after):
        raise _expected(text, after, end, (close,), f"{close} after the JSON call (a block holds one)", fmt)
    return step, after


def _invoke(text: str, at: int, end: int, limits: Limits, types: TypeHint | None,
            dialect: Dialect) -> tuple[Step, int]:
    """The ``<invoke name="...">...</invoke>`` at ``at``: its call and where it ends."""
    fmt, word = dialect.fmt, dialect.call_word
    name, pos = _name(text, at + len(dialect.invoke_open), end, at, dialect.invoke, dialect)
    if dialect.ns is not None:
        return _tag_invoke(text, name, at, pos, end, limits, types, dialect)
    args: dict[str, Any] = {}
    while True:
        pos, closed = next_in_element(text, pos, end, dialect.invoke_close, at, word, name, fmt)
        if closed:
            return Step(name, args), pos + len(dialect.invoke_close)
        if not _starts_tag(text, pos, end, dialect.param_open, dialect):
            raise _expected(text, pos, end, (dialect.param_open, dialect.invoke_close),
                            f'<{dialect.parameter} name="..."> or {dialect.invoke_close}', fmt)
        param_at = pos
        key, pos = _name(text, pos + len(dialect.param_open), end, param_at, dialect.parameter, dialect)
        if key in args:
            raise ParseError(f"parameter {key!r} given twice", line_col(text, param_at), fmt)
        kind = types(name, key) if types is not None else None
        start = skip_space(text, pos, end)
        if dialect.cdata and text.startswith(CDATA_OPEN, start):
            args[key], pos = _cdata(text, start, end, key, kind, limits, dialect)
            continue
        close = _value_end(text, pos, end, key, param_at, dialect)
        raw = text[pos:close]
        value = raw.strip(dialect.strip)
        value_at = pos + len(raw) - len(raw.lstrip(dialect.strip))
        args[key] = typed_text(value, kind, limits, fmt, partial(line_col, text, value_at))
        pos = close + len(dialect.param_close)


def tag_name_problem(name: str, ns: str = NS) -> str | None:
    """Why ``name`` cannot be a MiniMax-M3 element's tag (``NS<name>``), or None: the template writes a key as it
    is, so one that is empty, has surrounding spaces, or holds ``<``, ``>``, ``/`` first, a line break or the
    token would not read back as itself. The reader and :func:`ek.parsing.render.to_minimax_m3` both ask here.

    >>> tag_name_problem("city"), tag_name_problem(" city"), tag_name_problem("a>b")
    (None, 'surrounding spaces', "'>' in it")
    """
    if not name:
        return "an empty name"
    if name != name.strip():
        return "surrounding spaces"
    if name[0] == "/":
        return "'/' first"
    bad = next((c for c in ("<", ">", "\n", "\r") if c in name), None)
    if bad is not None:
        return f"{bad!r} in it"
    return f"{ns} in it" if ns in name else None


@attrs.define
class _Element:
    """An element of a MiniMax-M3 value being read: its tag, where it opened, where its body starts, and the
    children read so far (``(name, value)``; none: its value is its text)."""

    name: str
    opened: int
    body: int
    children: list[tuple[str, Any]] = attrs.Factory(list)


def _tag_invoke(text: str, name: str, at: int, pos: int, end: int, limits: Limits, types: TypeHint | None,
                dialect: Dialect) -> tuple[Step, int]:
    """MiniMax-M3's ``NS<invoke name="...">`` at ``at`` (its tag ends at ``pos``): one ``NS<KEY>...NS</KEY>``
    element a parameter until ``NS</invoke>``; its call and where it ends."""
    fmt, ns = dialect.fmt, str(dialect.ns)
    args: dict[str, Any] = {}
    while True:
        pos, closed = next_in_element(text, pos, end, dialect.invoke_close, at, "invoke", name, fmt)
        if closed:
            return Step(name, args), pos + len(dialect.invoke_close)
        if _starts_tag(text, pos, end, dialect.invoke_open, dialect):
            raise _unclosed_at(text, pos, f"the invoke of {name!r}", at, dialect.invoke_close, fmt)
        if not text.startswith(f"{ns}<", pos) or text.startswith(f"{ns}</", pos):
            raise _expected(text, pos, end, (f"{ns}<", dialect.invoke_close),
                            f"{ns}<KEY> (a parameter) or {dialect.invoke_close}", fmt)
        key, after = _tag_name(text, pos, end, dialect)
        if key in args:
            raise ParseError(f"parameter {key!r} given twice", line_col(text, pos), fmt)
        kind = types(name, key) if types is not None else None
        args[key], pos = _tag_value(text, _Element(key, pos, after), end, kind, limits, dialect)


def _tag_name(text: str, at: int, end: int, dialect: Dialect) -> tuple[str, int]:
    """The name of the element whose ``NS<`` is at ``at``, and where its tag ends."""
    fmt, ns = dialect.fmt, str(dialect.ns)
    start = at + len(ns) + 1
    close = text.find(">", start, end)
    stop = end if close == -1 else close
    broken = [p for p in (text.find(c, start, stop) for c in (ns, "<", "\n")) if p != -1]
    if broken:
        raise ParseError(f"an element's tag {ns}<... is not closed by '>'", line_col(text, min(broken)), fmt)
    if close == -1:
        raise ParseError(f"the output ends inside the tag {ns}<{text[start:end]} (cut short?)", line_col(text, at),
                         fmt, cut_short=True)
    name = text[start:close]
    problem = tag_name_problem(name, ns)
    if problem is not None:
        raise ParseError(f"the element name {name!r} has {problem}", line_col(text, start), fmt)
    return name, close + 1


def _tag_value(text: str, top: _Element, end: int, kind: str | None, limits: Limits,
               dialect: Dialect) -> tuple[Any, int]:
    """The value of the parameter element ``top`` and where its closing tag ends: its text (typed as
    :func:`_leaf` types it), or its child elements as a list or an object (:func:`_gathered`), read with an
    explicit stack to any depth ``max_depth`` allows. Text beside child elements is an error: the template never
    writes it (vLLM keeps it under a ``$text`` key, SGLang drops the call)."""
    fmt, ns = dialect.fmt, str(dialect.ns)
    stack = [top]
    pos = top.body  # where the text of the innermost element goes on from
    while True:
        element = stack[-1]
        tag = text.find(ns, pos, end)
        closing = f"{ns}</{element.name}>"
        if tag == -1 or end - tag < len(closing) and closing.startswith(text[tag:end]):
            raise _not_closed(text, element, len(stack) == 1, closing, fmt)  # the output ends in it
        if element.children and text[pos:tag].strip(SPACE):
            raise _mixed(text, pos, element, fmt)
        if text.startswith(closing, tag):
            stack.pop()
            value = _gathered(element.children, kind if not stack else None) if element.children else \
                _leaf(text, element.body, tag, kind if not stack else None, limits, dialect)
            pos = tag + len(closing)
            if not stack:
                return value, pos
            stack[-1].children.append((element.name, value))
            continue
        if text.startswith(f"{ns}</", tag) or _starts_tag(text, tag, end, dialect.invoke_open, dialect):
            shown = text[tag:text.find(">", tag + len(ns), min(end, tag + 80)) + 1] or text[tag:tag + 20]
            what = f"parameter {element.name!r}" if len(stack) == 1 else f"element {element.name!r}"
            raise ParseError(f"{shown} inside {what} (opened at line {line_col(text, element.opened)[0]}, column "
                             f"{line_col(text, element.opened)[1]}): expected {closing} before it",
                             line_col(text, tag), fmt)
        if not text.startswith(f"{ns}<", tag):
            if end - tag <= len(ns):  # the output ends right after the token
                raise _not_closed(text, element, len(stack) == 1, closing, fmt)
            raise ParseError(f"{ns} not before a tag: expected {ns}<KEY> or {closing}", line_col(text, tag), fmt)
        if not element.children and text[element.body:tag].strip(SPACE):
            raise _mixed(text, element.body, element, fmt)
        if len(stack) >= limits.max_depth:
            raise ParseError(f"elements nested deeper than {limits.max_depth} (limit max_depth={limits.max_depth})",
                             line_col(text, tag), fmt)
        name, pos = _tag_name(text, tag, end, dialect)
        stack.append(_Element(name, tag, pos))


def _leaf(text: str, start: int, stop: int, kind: str | None, limits: Limits, dialect: Dialect) -> Any:
    """An element's text as its value: line breaks around it dropped, typed by ``kind`` (an empty one is ``[]``
    or ``{}`` when ``kind`` names a list or an object, as vLLM and SGLang read it with a schema), else JSON when
    it parses, else the text."""
    raw = text[start:stop]
    value = raw.strip(dialect.strip)
    if not value and kind in _LIST_KINDS:
        return []
    if not value and kind in _OBJECT_KINDS:
        return {}
    at = start + len(raw) - len(raw.lstrip(dialect.strip))
    return typed_text(value, kind, limits, dialect.fmt, partial(line_col, text, at))


def _gathered(children: list[tuple[str, Any]], kind: str | None) -> Any:
    """Child elements as one value: a list when ``kind`` names one, or (no hint naming an object) when every child
    is an ``<item>`` (the template writes a list so); else an object, a key written more than once gathering its
    values in a list (as vLLM and SGLang do; the template never writes one twice).

    >>> _gathered([("item", 1), ("item", 2)], None), _gathered([("item", 1)], "object")
    ([1, 2], {'item': 1})
    >>> _gathered([("tag", "a"), ("tag", "b"), ("n", 1)], None)
    {'tag': ['a', 'b'], 'n': 1}
    """
    if kind in _LIST_KINDS or (kind not in _OBJECT_KINDS and all(name == "item" for name, _ in children)):
        return [value for _, value in children]
    obj: dict[str, Any] = {}
    gathered: set[str] = set()
    for name, value in children:
        if name not in obj:
            obj[name] = value
        elif name in gathered:
            obj[name].append(value)
        else:
            obj[name] = [obj[name], value]
            gathered.add(name)
    return obj


def _not_closed(text: str, element: _Element, top: bool, closing: str, fmt: str) -> ParseError:
    what = "parameter" if top else "element"
    return ParseError(f"{what} {element.name!r} is not closed by {closing} (output cut short?)",
                      line_col(text, element.opened), fmt, cut_short=True)


def _mixed(text: str, at: int, element: _Element, fmt: str) -> ParseError:
    at = skip_space(text, at, len(text))
    return ParseError(f"text beside the child elements of {element.name!r}: a value is text or elements, not both",
                      line_col(text, at), fmt)


def _unclosed_at(text: str, at: int, what: str, opened: int, closing: str, fmt: str) -> ParseError:
    line, column = line_col(text, opened)
    return ParseError(f"a new invoke inside {what} (opened at line {line}, column {column}): expected {closing} "
                      "before it", line_col(text, at), fmt)


def _cdata(text: str, start: int, end: int, key: str, kind: str | None, limits: Limits,
           dialect: Dialect) -> tuple[Any, int]:
    """A ``<![CDATA[...]]>`` value at ``start`` (MiniCPM writes multi-line text so): its text, kept as it is (tags
    and whitespace in it are text) and typed only by the hint; then the parameter's closing tag. Its value and
    where the parameter ends."""
    fmt = dialect.fmt
    inner = start + len(CDATA_OPEN)
    stop = text.find(CDATA_CLOSE, inner, end)
    if stop == -1:
        raise ParseError(f"the CDATA value of parameter {key!r} is not closed by {CDATA_CLOSE} (output cut short?)",
                         line_col(text, start), fmt, cut_short=True)
    raw = text[inner:stop]
    value = raw if kind is None else typed_text(raw, kind, limits, fmt, partial(line_col, text, inner))
    pos = skip_space(text, stop + len(CDATA_CLOSE), end)
    if not text.startswith(dialect.param_close, pos):
        raise _expected(text, pos, end, (dialect.param_close,),
                        f"{dialect.param_close} after the CDATA value of parameter {key!r}", fmt)
    return value, pos + len(dialect.param_close)


def _value_end(text: str, pos: int, end: int, key: str, opened: int, dialect: Dialect) -> int:
    """Where the value starting at ``pos`` ends: at the first closing tag (the format has no escaping). A tag of
    the format before it means the model left the closing tag out: an error at that tag."""
    fmt, param_close = dialect.fmt, dialect.param_close
    close = text.find(param_close, pos, end)
    stop = end if close == -1 else close
    inner = [(p, shown) for needle, shown in dialect.not_in_value if (p := text.find(needle, pos, stop)) != -1]
    if inner:
        found, tag = min(inner)
        line, column = line_col(text, opened)
        raise ParseError(f"{tag} inside parameter {key!r} (opened at line {line}, column {column}): expected "
                         f"{param_close} before it", line_col(text, found), fmt)
    if close == -1:
        raise ParseError(f"parameter {key!r} is not closed by {param_close} (output cut short?)",
                         line_col(text, opened), fmt, cut_short=True)
    return close


def _name(text: str, pos: int, end: int, opened: int, what: str, dialect: Dialect) -> tuple[str, int]:
    """The ``name="..."`` of the tag opened at ``opened`` (its attributes start at ``pos``) and where the tag ends.

    The templates write ``name="..."``; ``name='...'`` and an unquoted ``name=...`` are read too (vLLM's MiniMax
    and dots parsers and MiniMax's own guide take both). A quoted name holds no ``<``, ``>`` or line break;
    surrounding spaces are dropped. Any other attribute is an error."""
    fmt = dialect.fmt

    def cut() -> ParseError:  # built only when raised: line_col counts the lines before it
        return ParseError(f"the output ends inside the <{what}> tag (cut short?)", line_col(text, opened), fmt,
                          cut_short=True)

    start = skip_space(text, pos, end)
    if dialect.collapsed and start == pos and text.startswith(_BPE_SPACE, start):
        start += 1
    if start >= end:
        raise cut()
    if not text.startswith("name=", start):
        if "name=".startswith(text[start:end]):
            raise cut()
        raise ParseError(f'expected name="..." in the <{what}> tag', line_col(text, start), fmt)
    pos = start + len("name=")
    if pos >= end:
        raise cut()
    quote = text[pos]
    if quote in "\"'":
        close = text.find(quote, pos + 1, end)
        stop = end if close == -1 else close
        bad = [p for p in (text.find(c, pos + 1, stop) for c in "<>\n") if p != -1]
        if bad:
            raise ParseError(f"the {what} name is not closed by {quote}", line_col(text, min(bad)), fmt)
        if close == -1:
            raise cut()
        name, pos = text[pos + 1:close].strip(), close + 1
    else:
        stop = pos
        while stop < end and text[stop] not in SPACE and text[stop] not in "<>\"'/":
            stop += 1
        name = text[pos:stop]
        if stop < end and text[stop] in "<\"'/":
            raise ParseError(f'expected the {what} name written name="..."', line_col(text, stop), fmt)
        pos = stop
    if not name:
        article = "an" if what[0] in "aeiou" else "a"
        raise ParseError(f"{article} {what} without a name", line_col(text, opened), fmt)
    pos = skip_space(text, pos, end)
    if pos >= end:
        raise cut()
    if text[pos] != ">":
        raise ParseError(f"expected '>' after the {what} name {name!r} (the template writes no other attribute)",
                         line_col(text, pos), fmt)
    return name, pos + 1


def reader(fmt: str) -> Callable[[str, Limits, TypeHint | None, str], list[Step]]:
    """The text reader of format ``fmt`` (one of :data:`DIALECTS`)."""
    dialect = DIALECTS[fmt]

    def read(text: str, limits: Limits, types: TypeHint | None = None, fmt: str = fmt) -> list[Step]:
        return read_invokes(text, limits, types, dialect if fmt == dialect.fmt else attrs.evolve(dialect, fmt=fmt))

    read.__name__ = read.__qualname__ = f"read_{fmt.replace('-', '_')}"
    read.__doc__ = f"{dialect.family}'s calls (format ``{fmt}``): :func:`read_invokes` in its :class:`Dialect`."
    return read
