"""BFCL's two XML return formats: calls written as ``<functions>`` XML, read by a scanner of our own.

BFCL v4 asks some prompts of its format-sensitivity category (:mod:`ek.bfcl.variation`) for calls as XML:

- ``verbose_xml``: ``<functions><function name="f"><params><param name="x" value="3" type="integer"/>
  </params></function></functions>`` (the ``<param>`` elements may also sit in the ``<function>`` itself);
- ``concise_xml``: ``<functions><function name="f"><param name="x" type="integer">3</param></function>
  </functions>``.

BFCL takes the first ``<functions>...</functions>`` of the output, reads it with ``xml.etree`` and converts each
value by its ``type`` attribute (``ast.literal_eval`` for arrays and dicts). Here the block is read by a scanner
of the subset of XML those layouts use (elements, attributes, text, character and the five predefined entity
references, comments, CDATA): one pass left to right, each step a ``str.find`` or an anchored match, so the time
is linear in the text; no declaration is read (``<!DOCTYPE``, ``<!ENTITY``: no entity is ever expanded), and
nothing is evaluated (an array or dict value is read as a Python literal by :func:`ek.parsing.python_calls.
python_literal`). Where BFCL would read garbage silently, this says where and why: a parameter given twice, a
``boolean`` that is neither ``true`` nor ``false``, a ``<function>`` without a ``name``.
"""

from __future__ import annotations

import math
import re
from typing import Any

import attrs

from ek.calls import Step
from ek.limits import MAX_INT_DIGITS
from ek.parsing import ParseError
from ek.parsing.errors import line_col
from ek.parsing.limits import Limits
from ek.parsing.python_calls import python_literal
from ek.parsing.values import long_int_reason, plain_args

#: The two layouts, by BFCL's name for them (its ``ReturnFormat`` values).
VERBOSE, CONCISE = "verbose_xml", "concise_xml"

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.:-]*")
_SPACE = re.compile(r"[ \t\r\n]*")
#: An entity reference: one of XML's five, or a character by its decimal or hexadecimal number.
_ENTITY = re.compile(r"&(?:(lt|gt|amp|quot|apos)|#([0-9]{1,7})|#x([0-9A-Fa-f]{1,6}));")
_PREDEFINED = {"lt": "<", "gt": ">", "amp": "&", "quot": '"', "apos": "'"}
#: What XML reads as space inside an attribute value (its normalisation: ``xml.etree`` sees a space there).
_ATTRIBUTE_SPACE = str.maketrans("\t\n\r", "   ")


@attrs.define
class _Element:
    tag: str
    attributes: dict[str, str]
    at: int  # offset of its ``<`` in the text
    text: list[str] = attrs.Factory(list)  # the text before its first child (``xml.etree``'s ``.text``)
    children: list[_Element] = attrs.Factory(list)

    def child(self, tag: str) -> _Element | None:
        return next((c for c in self.children if c.tag == tag), None)

    def all(self, tag: str) -> list[_Element]:
        return [c for c in self.children if c.tag == tag]


class _Reader:
    """One ``<functions>`` block of ``text`` (``text[start:end]``) read into elements."""

    def __init__(self, text: str, start: int, end: int, limits: Limits, fmt: str) -> None:
        self.text, self.end, self.limits, self.fmt = text, end, limits, fmt
        self.pos = start

    def fail(self, reason: str, at: int, *, cut_short: bool = False) -> ParseError:
        return ParseError(reason, line_col(self.text, at), self.fmt, cut_short=cut_short)

    def root(self) -> _Element:
        stack: list[_Element] = []
        root: _Element | None = None
        text, end = self.text, self.end
        while self.pos < end:
            lt = text.find("<", self.pos, end)
            if lt < 0:
                lt = end
            if lt > self.pos:
                value = self.unescaped(self.pos, lt)  # (checked also where it is ignored, as XML would)
                if stack and not stack[-1].children:
                    stack[-1].text.append(value)
                self.pos = lt
                continue
            if text.startswith("<!--", lt):
                self.pos = self.after(lt, "-->", "a comment")
            elif text.startswith("<![CDATA[", lt):
                close = self.after(lt, "]]>", "a CDATA section")
                if stack and not stack[-1].children:
                    stack[-1].text.append(text[lt + 9:close - 3])
                self.pos = close
            elif text.startswith("<?", lt):
                self.pos = self.after(lt, "?>", "a processing instruction")
            elif text.startswith("<!", lt):
                raise self.fail("an XML declaration (<!DOCTYPE, <!ENTITY ...) is not read: no entity is expanded", lt)
            elif text.startswith("</", lt):
                self.close_tag(lt, stack)
                if not stack:
                    return root  # type: ignore[return-value]  # the root was opened before it closed
            else:
                element, empty = self.open_tag(lt)
                if stack:
                    stack[-1].children.append(element)
                elif root is None:
                    root = element
                if not empty:
                    stack.append(element)
                    if len(stack) > self.limits.max_depth:
                        raise self.fail(f"XML nested deeper than {self.limits.max_depth} elements (max_depth)", lt)
                elif not stack:
                    return element
        at = stack[-1].at if stack else self.pos
        raise self.fail(f"<{stack[-1].tag}> is not closed" if stack else "no element", at, cut_short=bool(stack))

    def after(self, start: int, closer: str, what: str) -> int:
        found = self.text.find(closer, start, self.end)
        if found < 0:
            raise self.fail(f"{what} is not closed by {closer}", start, cut_short=True)
        return found + len(closer)

    def open_tag(self, lt: int) -> tuple[_Element, bool]:
        text = self.text
        name = _NAME.match(text, lt + 1, self.end)
        if name is None:
            raise self.fail("'<' that starts no element (write &lt; for the character)", lt)
        element = _Element(name.group(), {}, lt)
        pos = name.end()
        while True:
            space = _SPACE.match(text, pos, self.end).end()  # type: ignore[union-attr]  # matches the empty text
            if text.startswith("/>", space):
                self.pos = space + 2
                return element, True
            if text.startswith(">", space):
                self.pos = space + 1
                return element, False
            attribute = _NAME.match(text, space, self.end)
            if attribute is None or space == pos:
                if space >= self.end:
                    raise self.fail(f"<{element.tag}> is cut short inside its tag", lt, cut_short=True)
                raise self.fail(f"expected an attribute, '>' or '/>' in <{element.tag}>", space)
            pos = self.attribute(element, attribute)

    def attribute(self, element: _Element, name: re.Match[str]) -> int:
        text, key = self.text, name.group()
        pos = _SPACE.match(text, name.end(), self.end).end()  # type: ignore[union-attr]
        if not text.startswith("=", pos):
            raise self.fail(f"attribute {key!r} of <{element.tag}> has no '=\"value\"'", name.start())
        pos = _SPACE.match(text, pos + 1, self.end).end()  # type: ignore[union-attr]
        quote = text[pos:pos + 1]
        if quote not in ('"', "'"):
            raise self.fail(f"the value of attribute {key!r} is not quoted", pos)
        close = text.find(quote, pos + 1, self.end)
        if close < 0:
            raise self.fail(f"the value of attribute {key!r} is not closed", pos, cut_short=True)
        if "<" in text[pos + 1:close]:
            raise self.fail(f"'<' inside the value of attribute {key!r} (write &lt;)", pos)
        if key in element.attributes:
            raise self.fail(f"attribute {key!r} given twice in <{element.tag}>", name.start())
        element.attributes[key] = self.unescaped(pos + 1, close).translate(_ATTRIBUTE_SPACE)
        return close + 1

    def close_tag(self, lt: int, stack: list[_Element]) -> None:
        name = _NAME.match(self.text, lt + 2, self.end)
        gt = _SPACE.match(self.text, name.end(), self.end).end() if name else lt + 2  # type: ignore[union-attr]
        if name is None or not self.text.startswith(">", gt):
            raise self.fail("a closing tag that is not </name>", lt, cut_short=gt >= self.end)
        if not stack or stack[-1].tag != name.group():
            opened = f"<{stack[-1].tag}> is open" if stack else "no element is open"
            raise self.fail(f"</{name.group()}> closes nothing: {opened}", lt)
        stack.pop()
        self.pos = gt + 1

    def unescaped(self, start: int, end: int) -> str:
        """``text[start:end]`` with its entity references replaced; a bare ``&`` is an error, as in XML."""
        text = self.text
        amp = text.find("&", start, end)
        if amp < 0:
            return text[start:end]
        out, pos = [], start
        while amp >= 0:
            out.append(text[pos:amp])
            found = _ENTITY.match(text, amp, end)
            if found is None:
                raise self.fail("'&' that starts no entity reference (write &amp; for the character)", amp)
            named, decimal, hexadecimal = found.groups()
            if named:
                out.append(_PREDEFINED[named])
            else:
                code = int(decimal) if decimal else int(hexadecimal, 16)
                if not (code in (0x9, 0xA, 0xD) or 0x20 <= code <= 0xD7FF or 0xE000 <= code <= 0x10FFFF) \
                        or 0xFFFE <= code <= 0xFFFF:
                    raise self.fail(f"character reference {found.group()} names no XML character", amp)
                out.append(chr(code))
            pos = found.end()
            amp = text.find("&", pos, end)
        out.append(text[pos:end])
        return "".join(out)


def read_xml_calls(text: str, start: int, end: int, layout: str, limits: Limits, fmt: str) -> list[Step]:
    """The calls of the ``<functions>`` element at ``text[start:end]`` in ``layout`` (:data:`VERBOSE` or
    :data:`CONCISE`), in their order. ``text`` has been checked against ``limits`` as a whole.

    >>> from ek.parsing.limits import Limits
    >>> block = '<functions><function name="f"><param name="x" type="integer">3</param></function></functions>'
    >>> read_xml_calls(block, 0, len(block), CONCISE, Limits(), "bfcl-concise_xml")
    [Step(name='f', args={'x': 3})]
    """
    reader = _Reader(text, start, end, limits, fmt)
    root = reader.root()
    if root.tag != "functions":
        raise reader.fail(f"expected <functions>, found <{root.tag}>", root.at)
    steps = []
    for k, function in enumerate(root.all("function")):
        name = function.attributes.get("name")
        if not name:
            raise reader.fail("a <function> without a name attribute", function.at)
        if layout == VERBOSE:
            container = function.child("params")
            params = (container if container is not None else function).all("param")
        else:
            params = function.all("param")
        args: dict[str, Any] = {}
        for param in params:
            key = param.attributes.get("name")
            if key is None:
                raise reader.fail(f"a <param> of {name!r} without a name attribute", param.at)
            if key in args:
                raise reader.fail(f"parameter {key!r} of {name!r} given twice", param.at)
            raw = param.attributes.get("value", "") if layout == VERBOSE else "".join(param.text).strip()
            args[key] = _typed(raw, param.attributes.get("type", "string"), key, param.at, reader)
        steps.append(Step(name, plain_args(args, f"$[{k}]", limits, fmt)))
    return steps


def _typed(raw: str, kind: str, key: str, at: int, reader: _Reader) -> Any:
    """A parameter's text as the value its ``type`` attribute names, as BFCL converts it, without evaluating:
    ``string`` (and any type BFCL does not name) as it is, ``integer``, ``float``, ``boolean``, ``null``, and
    ``array``/``tuple``/``object``/``dict`` as a Python literal (tuples as lists)."""
    convert = _CONVERSIONS.get(kind)
    if convert is None:
        return raw
    try:
        return convert(raw, reader.limits)
    except ParseError as exc:
        raise reader.fail(f"parameter {key!r} (type {kind!r}) is not a Python literal: {exc.reason}", at) from None
    except ValueError as exc:
        raise reader.fail(f"parameter {key!r} (type {kind!r}): {exc}", at) from None


def _integer(raw: str, _limits: Limits) -> int:
    """``int(raw)``, as BFCL reads an ``integer`` (signs, spaces around, ``_`` between digits), within the digits
    ek prints (:data:`ek.limits.MAX_INT_DIGITS`, checked on the text first: without Python's own limit, ``int``
    takes quadratic time on a long one)."""
    if len(raw) > MAX_INT_DIGITS:
        raise ValueError(long_int_reason())
    try:
        return int(raw.strip())
    except ValueError:
        raise ValueError(f"{raw[:40]!r} is no integer") from None


def _float(raw: str, _limits: Limits) -> float:
    """``float(raw)``, as BFCL reads a ``float``, but finite: JSON, and every report, has no NaN or infinity;
    and no longer than the digits ek takes of an integer (:data:`ek.limits.MAX_INT_DIGITS`)."""
    if len(raw) > MAX_INT_DIGITS:
        raise ValueError(f"{raw[:40]!r}... has more than {MAX_INT_DIGITS} characters: too long for a number")
    try:
        value = float(raw.strip())
    except ValueError:
        raise ValueError(f"{raw[:40]!r} is no number") from None
    if not math.isfinite(value):
        raise ValueError(f"{raw[:40]!r} is not a finite number (nan and infinity are not accepted)")
    return value


def _boolean(raw: str, _limits: Limits) -> bool:
    """``true`` or ``false`` in any case. BFCL reads every other text as False; here it is an error."""
    word = raw.strip().lower()
    if word not in ("true", "false"):
        raise ValueError(f"{raw[:40]!r} is neither true nor false")
    return word == "true"


_CONVERSIONS = {
    "integer": _integer,
    "float": _float,
    "boolean": _boolean,
    "null": lambda _raw, _limits: None,
    **dict.fromkeys(("array", "tuple", "object", "dict"), python_literal),
}


__all__ = ["CONCISE", "VERBOSE", "read_xml_calls"]
