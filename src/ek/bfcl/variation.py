"""BFCL v4's format-sensitivity category: questions asked with the system prompt written many ways.

BFCL asks 200 questions of its Python categories (listed in its ``BFCL_v4_format_sensitivity.json``) once per
prompt configuration, 26 in all, and keeps each answer under an id that names both::

    format_sensitivity_37:ret_fmt=json&tool_call_tag=True&func_doc_fmt=xml&prompt_fmt=plaintext&style=classic:live_simple_23-5-1

The configuration says how the model was asked to write its calls: ``ret_fmt`` one of ``python``
(``[f(x=1)]``), ``json`` (``[{"function": "f", "parameters": {"x": 1}}]``), ``verbose_xml`` and ``concise_xml``
(:mod:`ek.bfcl.xmlcalls`), with ``tool_call_tag`` saying whether they had to sit inside ``<TOOLCALL>...
</TOOLCALL>``; the other three parts say how the functions and the prompt were shown. The gold is the original
question's (the id's last part), and so are its functions. BFCL scores every configuration apart and reports how
far their accuracies spread: ek labels each line's category by its configuration
(``format_sensitivity:json,tag,xml,plaintext,classic``: return format, tag or not, function doc format, prompt
format, style), so the report's per-category table is BFCL's per-configuration one.
"""

from __future__ import annotations

import re
from typing import Any

import attrs

from ek.bfcl.xmlcalls import CONCISE, VERBOSE, read_xml_calls
from ek.calls import Step
from ek.parsing import ParseError, parse_calls
from ek.parsing.chat_text import shift
from ek.parsing.errors import line_col
from ek.parsing.json_text import decode_at
from ek.parsing.limits import DEFAULT_LIMITS, Limits, check_text
from ek.parsing.values import plain_args

#: BFCL's category of these entries, and the start of their ids.
CATEGORY = "format_sensitivity"
PREFIX = CATEGORY + "_"
#: A configuration, as BFCL writes it (its ``parse_prompt_variation_params``): five fixed choices, in this order.
_CONFIG = re.compile(r"ret_fmt=(python|json|verbose_xml|concise_xml)&tool_call_tag=(True|False)"
                     r"&func_doc_fmt=(python|xml|json)&prompt_fmt=(plaintext|markdown)&style=(classic|experimental)")
_TAG_OPEN, _TAG_CLOSE = "<TOOLCALL>", "</TOOLCALL>"
_XML_OPEN, _XML_CLOSE = "<functions>", "</functions>"


@attrs.frozen
class PromptVariation:
    """What a format-sensitivity id says: the entry's number, its prompt configuration and the question asked."""

    number: int
    config: str
    original_id: str
    return_format: str
    tool_call_tag: bool
    function_doc_format: str
    prompt_format: str
    style: str

    @property
    def category(self) -> str:
        """The report's category of the entry: one per configuration, as BFCL scores them, its five parts in
        BFCL's order, short enough for a terminal's table (BFCL's own string is :attr:`config`).

        >>> prompt_variation("format_sensitivity_3:ret_fmt=json&tool_call_tag=False&func_doc_fmt=xml"
        ...                  "&prompt_fmt=markdown&style=classic:simple_python_58").category
        'format_sensitivity:json,no-tag,xml,markdown,classic'
        """
        tag = "tag" if self.tool_call_tag else "no-tag"
        return f"{CATEGORY}:{self.return_format},{tag},{self.function_doc_format},{self.prompt_format},{self.style}"

    @property
    def format_name(self) -> str:
        """The name errors in reading this entry's output carry: ``bfcl-json``, ``bfcl-concise_xml``..."""
        return f"bfcl-{self.return_format}"


def prompt_variation(entry_id: Any) -> PromptVariation | None:
    """What the id of a format-sensitivity entry says, or None for any other id (or one BFCL would refuse).

    >>> v = prompt_variation("format_sensitivity_3:ret_fmt=concise_xml&tool_call_tag=True&func_doc_fmt=json"
    ...                      "&prompt_fmt=plaintext&style=classic:simple_python_58")
    >>> v.original_id, v.return_format, v.tool_call_tag, v.number
    ('simple_python_58', 'concise_xml', True, 3)
    >>> prompt_variation("simple_python_58") is None
    True
    """
    if type(entry_id) is not str or not entry_id.startswith(PREFIX) or entry_id.count(":") != 2:
        return None
    head, config, original = entry_id.split(":")
    number = head[len(PREFIX):]
    found = _CONFIG.fullmatch(config)
    if found is None or not original or not (number.isascii() and number.isdigit()) or len(number) > 9:
        return None
    return_format, tag, doc_format, prompt_format, style = found.groups()
    return PromptVariation(int(number), config, original, return_format, tag == "True", doc_format, prompt_format,
                           style)


def original_id(entry_id: Any) -> Any:
    """The id whose question and gold an entry uses: a format-sensitivity entry's original question, else the id.

    >>> original_id("format_sensitivity_0:ret_fmt=python&tool_call_tag=False&func_doc_fmt=python"
    ...             "&prompt_fmt=plaintext&style=classic:multiple_4"), original_id("multiple_4")
    ('multiple_4', 'multiple_4')
    """
    variation = prompt_variation(entry_id)
    return entry_id if variation is None else variation.original_id


def decode_variation(output: str, variation: PromptVariation, limits: Limits = DEFAULT_LIMITS) -> list[Step]:
    """The calls in a model's output to a prompt of ``variation``, read in the return format it asked for.

    As BFCL's decoder (``default_decode_ast_prompting`` with that format and tag) reads them, never evaluating:

    - with ``tool_call_tag``, the calls are what the first ``<TOOLCALL>...</TOOLCALL>`` holds; an output without
      that tag is an error (as in BFCL);
    - ``python``: read as the ``bfcl`` format reads Python call text (:func:`ek.parsing.parse_calls`);
    - ``json``: the first JSON list (or object) in the text, each item ``{"function": NAME, "parameters": {...}}``
      (other keys ignored, as BFCL does); text around it, such as a code fence, is skipped; text with no ``[``
      or ``{`` at all is no calls;
    - ``verbose_xml``, ``concise_xml``: the first ``<functions>...</functions>`` (:mod:`ek.bfcl.xmlcalls`).

    Raises :class:`ek.ParseError` saying where and why, named by :attr:`PromptVariation.format_name`. Where BFCL's
    decoder reads a broken JSON list as no calls, this is an error (the output is unreadable, not empty).

    >>> v = prompt_variation("format_sensitivity_9:ret_fmt=json&tool_call_tag=True&func_doc_fmt=xml"
    ...                      "&prompt_fmt=markdown&style=classic:simple_python_1")
    >>> decode_variation('<TOOLCALL>```json\\n[{"function": "f", "parameters": {"n": 5}}]\\n```</TOOLCALL>', v)
    [Step(name='f', args={'n': 5})]
    """
    fmt = variation.format_name
    check_text(output, limits, fmt)
    start, end = 0, len(output)
    if variation.tool_call_tag:
        opened = output.find(_TAG_OPEN)
        if opened < 0:
            raise ParseError(f"no {_TAG_OPEN}: this prompt asked for the calls inside {_TAG_OPEN}...{_TAG_CLOSE}",
                             None, fmt)
        start = opened + len(_TAG_OPEN)
        end = output.find(_TAG_CLOSE, start)
        if end < 0:
            raise ParseError(f"{_TAG_OPEN} is not closed by {_TAG_CLOSE} (output cut short?)",
                             line_col(output, opened), fmt, cut_short=True)
    if variation.return_format == "python":
        return _python(output, start, end, limits, fmt)
    if variation.return_format == "json":
        return _json(output, start, end, limits, fmt)
    return _xml(output, start, end, VERBOSE if variation.return_format == VERBOSE else CONCISE, limits, fmt)


def _python(output: str, start: int, end: int, limits: Limits, fmt: str) -> list[Step]:
    try:
        return parse_calls(output[start:end], "bfcl", max_size=limits.max_size, max_depth=limits.max_depth)
    except ParseError as exc:
        raise exc.moved(shift(exc.position, output, start), fmt) from None


def _json(output: str, start: int, end: int, limits: Limits, fmt: str) -> list[Step]:
    """The first JSON list or object in ``output[start:end]``, as ``[{"function": NAME, "parameters": {...}}]``."""
    brackets = [i for i in (output.find("[", start, end), output.find("{", start, end)) if i >= 0]
    if not brackets:
        return []  # prose, or nothing: no calls (BFCL's decoder finds none either)
    value, _after = decode_at(output[:end], min(brackets), limits, fmt)
    items = value if type(value) is list else [value]
    steps = []
    for k, item in enumerate(items):
        path = f"$[{k}]"
        if type(item) is not dict:
            raise ParseError(f"expected a call {{\"function\": NAME, \"parameters\": {{...}}}}, got "
                             f"{type(item).__name__}", path, fmt)
        name, parameters = item.get("function"), item.get("parameters")
        if type(name) is not str or not name:
            raise ParseError("a call needs \"function\": the tool's name as a non-empty string", path, fmt)
        if type(parameters) is not dict:
            raise ParseError(f"\"parameters\" of {name!r} must be an object of arguments", path + ".parameters", fmt)
        steps.append(Step(name, plain_args(parameters, path + ".parameters", limits, fmt)))
    return steps


def _xml(output: str, start: int, end: int, layout: str, limits: Limits, fmt: str) -> list[Step]:
    """The calls of the first ``<functions>...</functions>`` of ``output[start:end]`` (:mod:`ek.bfcl.xmlcalls`)."""
    opened = output.find(_XML_OPEN, start, end)
    if opened < 0:
        raise ParseError(f"no {_XML_OPEN}...{_XML_CLOSE} block: this prompt asked for the calls as {layout} XML",
                         None, fmt)
    closed = output.find(_XML_CLOSE, opened, end)
    if closed < 0:
        raise ParseError(f"{_XML_OPEN} is not closed by {_XML_CLOSE} (output cut short?)", line_col(output, opened),
                         fmt, cut_short=True)
    return read_xml_calls(output, opened, closed + len(_XML_CLOSE), layout, limits, fmt)


__all__ = ["CATEGORY", "PREFIX", "PromptVariation", "decode_variation", "original_id", "prompt_variation"]
