"""Python call syntax (``search(q="cats")``, ``[a(x=1), b(y=[1, 2])]``) read with ``ast``, never evaluated.

Only literals are values: strings, numbers (one unary ``-``/``+`` allowed),
``True``/``False``/``None``, lists, tuples (become lists) and dicts with
string keys. Everything that would need evaluation (names, calls, attribute
access, arithmetic, comprehensions, f-strings, lambdas, ``*``/``**``
unpacking) is a :class:`ParseError` naming the construct and its position.
Calls may be one per line, separated by ``;``, or in one list.

Arguments are matched by name, so a positional argument is refused, unless
the caller knows the tool's signature and passes ``params`` (a tool's
parameter names in declaration order): then ``f('a', y=2)`` binds ``'a'`` to
the first parameter, as Python would. BFCL's multi-turn ground truth is read
that way (:mod:`ek.bfcl.signatures`); model outputs never are.
"""

from __future__ import annotations

import ast
import keyword
import math
import re
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from ek.calls import Step, step_of_plain
from ek.parsing.errors import ParseError
from ek.parsing.limits import Limits, check_text
from ek.parsing.values import int_too_long, long_int_reason

FORMAT = "python"

#: ``params(tool)`` -> the tool's parameter names in declaration order, or None when its signature is unknown.
ParamOrder = Callable[[str], "Sequence[str] | None"]

_HINTS = {"true": "True", "false": "False", "null": "None", "none": "None"}

# What each rejected node is, for the error message.
_NOT_LITERAL: dict[type, str] = {
    ast.Call: "a call is not a value (nested calls are never evaluated)",
    ast.Attribute: "attribute access is not a literal value",
    ast.BinOp: "arithmetic is not evaluated; write the resulting literal",
    ast.BoolOp: "boolean operators are not evaluated",
    ast.Compare: "comparisons are not evaluated",
    ast.IfExp: "conditional expressions are not evaluated",
    ast.Lambda: "lambdas are not values",
    ast.ListComp: "comprehensions are not evaluated",
    ast.SetComp: "comprehensions are not evaluated",
    ast.DictComp: "comprehensions are not evaluated",
    ast.GeneratorExp: "generator expressions are not evaluated",
    ast.JoinedStr: "f-strings are not accepted: they would need evaluation",
    ast.Set: "set literals are not accepted (sets are unordered; use a list)",
    ast.Starred: "* unpacking is not accepted",
    ast.Subscript: "subscripts are not evaluated",
    ast.NamedExpr: "assignment expressions are not accepted",
    ast.Await: "await is not accepted",
    ast.Yield: "yield is not accepted",
    ast.YieldFrom: "yield is not accepted",
    ast.Slice: "slices are not values",
}


def _pos(node: ast.AST) -> tuple[int, int]:
    return (getattr(node, "lineno", 1), getattr(node, "col_offset", 0) + 1)


def _fail(reason: str, node: ast.AST) -> ParseError:
    return ParseError(reason, _pos(node), FORMAT)


def parse_python(text: str, limits: Limits, params: ParamOrder | None = None) -> list[Step]:
    """Read Python call text into steps (``params``: bind positional arguments by signature, see above).

    >>> parse_python('math.hypot(x=3, y=-4.5)', Limits())
    [Step(name='math.hypot', args={'x': 3, 'y': -4.5})]
    >>> parse_python('[a(x=(1, 2)), b(y={"k": None})]', Limits())
    [Step(name='a', args={'x': [1, 2]}), Step(name='b', args={'y': {'k': None}})]
    >>> parse_python("f(x=__import__('os').system('echo hi'))", Limits())
    Traceback (most recent call last):
    ...
    ek.parsing.errors.ParseError: python: line 1, column 5: a call is not a value (nested calls are never evaluated)
    >>> parse_python("sort('report.pdf')", Limits(), params={"sort": ("file_name",)}.get)
    [Step(name='sort', args={'file_name': 'report.pdf'})]
    """
    check_text(text, limits, FORMAT)
    simple = _plain_calls(text)
    if simple is not None:
        return simple
    return _from_ast(text, params)


def _from_ast(text: str, params: ParamOrder | None = None) -> list[Step]:
    """The general path: Python's parser, then every node checked to be a call or a literal."""
    tree = _parse(text)
    steps: list[Step] = []
    for stmt in tree.body:
        if not isinstance(stmt, ast.Expr):
            raise _fail(f"expected a call, found {_statement(stmt)}", stmt)
        value = stmt.value
        if isinstance(value, (ast.List, ast.Tuple)):
            for elt in value.elts:
                if not isinstance(elt, ast.Call):
                    raise _fail("expected a list of calls like [f(x=1), g(y=2)]; this item is not a call", elt)
                steps.append(_call(elt, params))
        elif isinstance(value, ast.Call):
            steps.append(_call(value, params))
        elif isinstance(value, (ast.Name, ast.Attribute)) and _at_end(text, value):
            raise ParseError(f"the output ends after the tool name {ast.unparse(value)!r}, before its arguments "
                             "(cut short?)", _pos(value), FORMAT, cut_short=True)
        else:
            raise _fail("expected a call like f(x=1) or a list of calls", value)
    return steps


# Statements a model might emit instead of a call, in words; the rest by their ast name.
_STATEMENTS: dict[type, str] = {
    ast.Import: "an import statement",
    ast.ImportFrom: "an import statement",
    ast.Assign: "an assignment",
    ast.AnnAssign: "an assignment",
    ast.AugAssign: "an assignment",
    ast.FunctionDef: "a function definition",
    ast.AsyncFunctionDef: "a function definition",
    ast.ClassDef: "a class definition",
    ast.For: "a for loop",
    ast.AsyncFor: "a for loop",
    ast.While: "a while loop",
    ast.If: "an if statement",
    ast.With: "a with statement",
    ast.AsyncWith: "a with statement",
    ast.Try: "a try statement",
    ast.Return: "a return statement",
    ast.Delete: "a del statement",
    ast.Global: "a global statement",
    ast.Nonlocal: "a nonlocal statement",
    ast.Raise: "a raise statement",
    ast.Assert: "an assert statement",
    ast.Pass: "a pass statement",
}


def _statement(stmt: ast.stmt) -> str:
    """``stmt`` in words: ``an import statement``, ``a function definition``."""
    return _STATEMENTS.get(type(stmt), f"a {type(stmt).__name__} statement")


def _parse(text: str) -> ast.Module:
    try:
        with warnings.catch_warnings():
            # "invalid escape sequence" and similar compiler warnings are about the model's text, not ek's code
            warnings.simplefilter("ignore", (DeprecationWarning, SyntaxWarning))
            return ast.parse(text, filename="<model output>", mode="exec")
    except SyntaxError as exc:
        position = (exc.lineno or 1, exc.offset or 1)
        if _ends_inside(text, exc):
            raise ParseError(f"invalid Python: {exc.msg} (the output ends inside this call: cut short?)", position,
                             FORMAT, cut_short=True) from None
        raise ParseError(f"invalid Python: {exc.msg}", position, FORMAT) from None
    except (RecursionError, MemoryError):
        # Chained operators (1+1+...+1, ------1, a.b.c...) nest without brackets;
        # Python's own parser refuses them with these errors, which must not escape.
        raise ParseError("expression nests too deeply for Python's parser", None, FORMAT) from None
    except ValueError as exc:  # e.g. null bytes in the source
        raise ParseError(f"invalid Python: {exc}", None, FORMAT) from None


def _at_end(text: str, node: ast.expr) -> bool:
    """Whether ``node`` ends where the text does (trailing whitespace aside)."""
    lines = text.rstrip().split("\n")
    return node.end_lineno == len(lines) and node.end_col_offset == len(lines[-1].encode("utf-8"))


#: Python's words for a text that stops inside a bracket or a string (3.11-3.13).
_UNFINISHED = ("was never closed", "unexpected EOF", "unterminated triple-quoted string")


def _ends_inside(text: str, error: SyntaxError) -> bool:
    """Whether ``ast.parse`` failed because ``text`` ended inside a call, a bracket or a string: an open
    bracket never closed, or an unterminated string on the last line (one on an earlier line is garbled)."""
    if any(words in error.msg for words in _UNFINISHED):
        return True
    last_line = text.rstrip().count("\n") + 1
    return error.msg.startswith("unterminated string literal") and (error.lineno or 0) >= last_line


def _call(node: ast.Call, params: ParamOrder | None = None) -> Step:
    name = _dotted_name(node.func)
    args: dict[str, Any] = {}
    if node.args:
        args = _positional(name, node, params)
    for kw in node.keywords:
        if kw.arg is None:
            raise _fail(f"** unpacking in the call to {name!r} is not accepted", kw)
        if kw.arg in args:  # the compiler rejects a repeated keyword, ast.parse does not
            again = "given by position and again by name" if kw.arg not in _keywords_before(node, kw) else "repeated"
            raise _fail(f"keyword argument {kw.arg!r} {again} in the call to {name!r}", kw)
        args[kw.arg] = _literal(kw.value)
    return Step(name, args)


def _keywords_before(node: ast.Call, kw: ast.keyword) -> set[str | None]:
    return {k.arg for k in node.keywords[: node.keywords.index(kw)]}


def _positional(name: str, node: ast.Call, params: ParamOrder | None) -> dict[str, Any]:
    """The positional arguments of a call bound to the parameter names ``params`` gives, in order."""
    for arg in node.args:
        if isinstance(arg, ast.Starred):
            raise _fail(f"* unpacking in the call to {name!r} is not accepted", arg)
    order = params(name) if params is not None else None
    if order is None:
        why = ("" if params is None else f"; no signature of {name!r} is known to bind it to a parameter")
        raise _fail(f"positional argument {len(node.args)} in the call to {name!r}: arguments are matched by name, "
                    f"write {name}(name=value){why}", node.args[0])
    if len(node.args) > len(order):
        raise _fail(f"{name!r} takes {len(order)} parameter(s) ({', '.join(order) or 'none'}), "
                    f"{len(node.args)} given by position", node.args[len(order)])
    return {param: _literal(arg) for param, arg in zip(order, node.args)}


def _dotted_name(func: ast.expr) -> str:
    parts: list[str] = []
    node = func
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        raise _fail("the called function must be a name or dotted name like math.hypot", func)
    parts.append(node.id)
    return ".".join(reversed(parts))


def _literal(node: ast.expr) -> Any:
    # Recursion follows bracket nesting only, which check_text has bounded.
    if type(node) is ast.Constant:  # the common cases first, by exact type: this runs once per value
        constant = node.value
        kind = type(constant)
        if kind is str or kind is bool or constant is None or (kind is int and not int_too_long(constant)):
            return constant
        return _constant(node)
    if type(node) is ast.List:
        return [_literal(elt) for elt in node.elts]
    if isinstance(node, ast.Constant):
        return _constant(node)
    if isinstance(node, ast.UnaryOp):
        operand = node.operand
        if (
            isinstance(node.op, (ast.USub, ast.UAdd))
            and isinstance(operand, ast.Constant)
            and isinstance(operand.value, (int, float))
            and not isinstance(operand.value, bool)
        ):
            value = _constant(operand)
            return -value if isinstance(node.op, ast.USub) else value
        raise _fail("unary operators are accepted only as one - or + before a number", node)
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_literal(elt) for elt in node.elts]
    if isinstance(node, ast.Dict):
        out: dict[str, Any] = {}
        for key, value in zip(node.keys, node.values):
            if key is None:
                raise _fail("** unpacking in a dict is not accepted", value)
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                raise _fail("dict keys must be string literals", key)
            if key.value in out:
                raise _fail(f"duplicate key {key.value!r:.80} in a dict", key)
            out[key.value] = _literal(value)
        return out
    if isinstance(node, ast.Name):
        hint = _HINTS.get(node.id.lower())
        extra = f"; did you mean {hint}?" if hint and hint != node.id else "; quote strings"
        raise _fail(f"name {node.id!r} is not a literal value{extra}", node)
    reason = _NOT_LITERAL.get(type(node), f"{type(node).__name__} is not a literal value")
    raise _fail(reason, node)


def _constant(node: ast.Constant) -> Any:
    value = node.value
    if isinstance(value, int) and not isinstance(value, bool) and int_too_long(value):
        raise _fail(long_int_reason() + "; a hex literal spells it, but no report could print it", node)
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise _fail("number too large for a float (infinity is not accepted)", node)
        return value
    if isinstance(value, bytes):
        raise _fail("bytes literals are not accepted; use a str", node)
    if isinstance(value, complex):
        raise _fail("complex numbers are not accepted", node)
    raise _fail(f"{value!r} is not an accepted literal", node)


# --------------------------------------------------------------------------- the fast path


# The tokens of plain call text, each kind in its own group (after any spaces): a string with no escape,
# prefix or line break; a decimal number; an ASCII (dotted) name with the "(" or "=" after it, if any (a
# call's or an argument's start: one token, not two); one punctuation character; anything else is "other".
# Every quantifier is possessive over disjoint classes: linear on any text, no backtracking.
_PLAIN_TOKENS = re.compile(
    r"[ \t]*+(?:"
    r"""('[^'\\\n\r\0\ud800-\udfff]*+'|"[^"\\\n\r\0\ud800-\udfff]*+")"""
    r"|([0-9]++(?:\.[0-9]++)?+(?:[eE][-+]?+[0-9]++)?+)"
    r"|([A-Za-z_][A-Za-z0-9_]*+(?:\.[A-Za-z_][A-Za-z0-9_]*+)*+)[ \t]*+([(=]?)"
    r"|([][(){},:+-])"
    r"|([\s\S]))"
)
#: ``(string, number, name, "(" or "=" after the name, punctuation, other)``: one of string, number,
#: name, punctuation and other is not empty.
_Token = tuple[str, str, str, str, str, str]
#: Past the last token (twice, so a look one token ahead never runs out): punctuation no text has.
_END: _Token = ("", "", "", "", "$", "")
_CONSTANTS: dict[str, Any] = {"True": True, "False": False, "None": None}
#: Names a call or an argument cannot have (Python's keywords, and ``__debug__``, which it refuses to bind).
_RESERVED = frozenset(keyword.kwlist) | {"__debug__"}
#: Decimal ints no longer than this are read here; longer ones (and the digit limit) are left to ``ast``.
_PLAIN_INT_DIGITS = 1000
#: Deeper brackets and longer dotted names are left to ``ast`` (which refuses 200 brackets, and a few thousand
#: dots past its recursion limit): the fast path never accepts what Python's parser would refuse.
_PLAIN_MAX_DEPTH = 100
#: Longer texts go to ``ast`` directly: the token list stays small, and a long text that is not plain (a
#: megabyte of ``-``) costs no tokenizing before ``ast`` refuses it.
_PLAIN_MAX_CHARS = 20_000


class _NotPlain(Exception):
    """Raised inside :func:`_plain_calls` for anything outside its subset: ``ast`` reads the text instead."""


def _plain_calls(text: str) -> list[Step] | None:
    """Fast path: the steps of plain call text, read without ``ast``; None if the text is not that plain.

    Plain text is one call, a list of calls or calls separated by commas, on
    one line: ``[f(a='x', b=-2.5), m.g(c=[1, {'k': None}])]``. Names are ASCII
    and no keyword; values are strings without escapes, prefixes or line breaks,
    decimal numbers (one ``-``/``+``), ``True``/``False``/``None``, lists and
    dicts with string keys. That is most model output, and for it the result
    is the one :func:`_from_ast` builds with Python's parser (same steps,
    values and types: tests/parsing/test_parse_plain_calls.py compares them), at
    a fraction of the cost. Anything else (an error too) returns None, and the
    text takes the general path, which reads or rejects it with its position.
    Recursion follows bracket nesting only, which ``check_text`` has bounded.
    """
    if not text or text[0] in " \t" or len(text) > _PLAIN_MAX_CHARS:
        return None  # an indented first line is an error: the general path words it
    if "\\" in text or "\n" in text or "\r" in text or "\0" in text:
        return None  # an escape, a second line or a NUL byte: never plain, found without tokenizing
    tokens = _PLAIN_TOKENS.findall(text.rstrip(" \t"))
    tokens += (_END, _END)
    try:
        if tokens[0][4] == "[":
            steps, at = ([], 2) if tokens[1][4] == "]" else _plain_sequence(tokens, 1, "]")
        else:
            steps, at = _plain_sequence(tokens, 0, "$")
            at -= 1
    except _NotPlain:
        return None
    return steps if tokens[at] is _END and at == len(tokens) - 2 else None


def _plain_sequence(tokens: list[_Token], at: int, closing: str) -> tuple[list[Step], int]:
    """Calls separated by commas (a trailing one allowed) up to ``closing``; the steps and the index after it."""
    steps = []
    while True:
        step, at = _plain_call(tokens, at)
        steps.append(step)
        punct = tokens[at][4]
        if punct == ",":
            at += 1
            punct = tokens[at][4]
        elif punct != closing:
            raise _NotPlain
        if punct == closing:
            return steps, at + 1


def _plain_call(tokens: list[_Token], at: int) -> tuple[Step, int]:
    """``name(arg=value, ...)``: the step and the index after its ``)``."""
    _, _, name, after, _, _ = tokens[at]
    if after != "(" or (name in _RESERVED if "." not in name else _reserved_part(name)):
        raise _NotPlain
    at += 1
    args: dict[str, Any] = {}
    # step_of_plain: ``name`` is a str the pattern matched and ``args`` a dict keyed by names it matched, the
    # two things Step's validators check
    if tokens[at][4] == ")":
        return step_of_plain(name, args), at + 1
    while True:
        _, _, arg, after, _, _ = tokens[at]
        if after != "=" or "." in arg or arg in _RESERVED or arg in args:
            raise _NotPlain  # a positional argument, a repeated one ...: errors the general path words
        args[arg], at = _plain_value(tokens, at + 1)
        punct = tokens[at][4]
        if punct == ",":
            at += 1
            punct = tokens[at][4]
        elif punct != ")":
            raise _NotPlain
        if punct == ")":
            return step_of_plain(name, args), at + 1


def _reserved_part(name: str) -> bool:
    """A dotted name with a keyword part, or too many parts for :func:`_plain_calls`."""
    parts = name.split(".")
    return len(parts) > _PLAIN_MAX_DEPTH or any(p in _RESERVED for p in parts)


def _plain_value(tokens: list[_Token], at: int, depth: int = 0) -> tuple[Any, int]:
    """One literal at bracket ``depth``: the value and the index after it."""
    string, number, name, after, punct, _ = tokens[at]
    if string:
        if tokens[at + 1][0]:
            raise _NotPlain  # 'a' 'b': Python joins adjacent strings
        return string[1:-1], at + 1
    if number:
        return _plain_number(number), at + 1
    if name:
        if after or name not in _CONSTANTS:
            raise _NotPlain  # a name, a call, an assignment: not a literal
        return _CONSTANTS[name], at + 1
    if (punct == "[" or punct == "{") and depth == _PLAIN_MAX_DEPTH:
        raise _NotPlain
    if punct == "[":
        items: list[Any] = []
        at += 1
        while tokens[at][4] != "]":
            item, at = _plain_value(tokens, at, depth + 1)
            items.append(item)
            if tokens[at][4] == ",":
                at += 1
            elif tokens[at][4] != "]":
                raise _NotPlain
        return items, at + 1
    if punct == "{":
        out: dict[str, Any] = {}
        at += 1
        while tokens[at][4] != "}":
            key = tokens[at][0][1:-1]
            if not tokens[at][0] or tokens[at + 1][4] != ":" or key in out:
                raise _NotPlain  # not a plain string key, or a repeated one (an error the general path words)
            out[key], at = _plain_value(tokens, at + 2, depth + 1)
            if tokens[at][4] == ",":
                at += 1
            elif tokens[at][4] != "}":
                raise _NotPlain
        return out, at + 1
    if punct == "-" or punct == "+":
        number = tokens[at + 1][1]
        if not number:
            raise _NotPlain
        value = _plain_number(number)
        return (-value if punct == "-" else value), at + 2
    raise _NotPlain


def _plain_number(token: str) -> int | float:
    """A decimal literal's value as Python's parser gives it; leading zeros, huge ints, infinity: not plain."""
    if token[0] == "0" and token[1:2].isdigit():
        raise _NotPlain  # 012 is an error, 00.5 is not: ast decides
    if token.isdigit():
        if len(token) > _PLAIN_INT_DIGITS:
            raise _NotPlain
        return int(token)
    value = float(token)
    if not -math.inf < value < math.inf:
        raise _NotPlain
    return value
