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
from typing import Any, Protocol

from ek.calls import Step, step_of_plain
from ek.limits import OUTPUT_AST_MAX_TOKENS, OUTPUT_MAX_DEPTH, OUTPUT_MAX_SIZE
from ek.parsing.errors import ParseError
from ek.parsing.limits import Limits, check_text, open_brackets, python_tokens_past
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


def parse_python(text: str, limits: Limits, params: ParamOrder | None = None, *, json_words: bool = False
                 ) -> list[Step]:
    """Read Python call text into steps (``params``: bind positional arguments by signature, see above; with
    ``json_words``, a bare ``true``, ``false`` or ``null`` value is JSON's word, as OLMo 3 writes them).

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
    >>> parse_python("f(a=null, b=[true, false])", Limits(), json_words=True)
    [Step(name='f', args={'a': None, 'b': [True, False]})]
    """
    check_text(text, limits, FORMAT)
    simple = _plain_calls(text) if "\n" not in text else _plain_lines(text)
    if simple is not None:
        return simple
    return _from_ast(text, params, json_words)


def _from_ast(text: str, params: ParamOrder | None = None, json_words: bool = False) -> list[Step]:
    """The general path: Python's parser, then every node checked to be a call or a literal."""
    tree = _parse(text)
    if json_words:
        _replace_json_words(tree)
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
            name = ast.get_source_segment(text, value) or ""  # the text itself: ast.unparse recurses per dot
            raise ParseError(f"the output ends after the tool name {name!r:.80}, before its arguments "
                             "(cut short?)", _pos(value), FORMAT, cut_short=True)
        else:
            raise _fail("expected a call like f(x=1) or a list of calls", value)
    return steps


#: JSON's words, which OLMo 3 writes for values (its system prompt lists the tools in JSON), as vLLM reads them.
_JSON_WORDS = {"true": True, "false": False, "null": None}


def _replace_json_words(tree: ast.AST) -> None:
    """Every bare ``true``/``false``/``null`` in a value's place made the constant it names, in place. Iterative
    (``ast.walk``): chains that nest without brackets cannot overflow the stack. A called name or the base of a
    dotted name is left as it is (``true()`` stays a call of ``true``)."""
    for node in ast.walk(tree):
        for field, value in ast.iter_fields(node):
            if field == "func" or isinstance(node, ast.Attribute):
                continue
            if isinstance(value, ast.Name) and value.id in _JSON_WORDS:
                setattr(node, field, ast.copy_location(ast.Constant(_JSON_WORDS[value.id]), value))
            elif isinstance(value, list):
                for i, item in enumerate(value):
                    if isinstance(item, ast.Name) and item.id in _JSON_WORDS:
                        value[i] = ast.copy_location(ast.Constant(_JSON_WORDS[item.id]), item)


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


def syntax_tree(text: str, limits: Limits) -> ast.Module:
    """``text``'s Python syntax tree (a module: its statements), within ``limits``: only parsed, never
    compiled or run. For readers with rules of their own over Python text (BFCL's decoder:
    :mod:`ek.bfcl.decoding`). Raises :class:`ParseError` as :func:`parse_python` does."""
    check_text(text, limits, FORMAT)
    return _parse(text)


def python_literal(text: str, limits: Limits) -> Any:
    """The value of one Python literal (``[1, 'a']``, ``{'k': (1, 2)}``, ``-2.5``, ``None``) as ek reads a call's
    values: only parsed, never evaluated (no ``literal_eval``), tuples as lists, within ``limits``. For formats
    that write a value as Python text of its own (BFCL's XML return formats, whose ``array`` and ``dict``
    values BFCL reads with ``ast.literal_eval``). Raises :class:`ParseError` saying where and why.

    >>> python_literal("{'k': (1, 2), 'n': None}", Limits())
    {'k': [1, 2], 'n': None}
    >>> python_literal("[1, x]", Limits())
    Traceback (most recent call last):
    ...
    ek.parsing.errors.ParseError: python: line 1, column 5: name 'x' is not a literal value; quote strings
    """
    check_text(text, limits, FORMAT)
    tree = _parse(text.strip())
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Expr):
        raise ParseError("expected one Python literal value", (1, 1), FORMAT)
    return _literal(tree.body[0].value)


def _parse(text: str) -> ast.Module:
    # (a NUL is refused by ast.parse before it reads a token, in words of its own)
    if len(text) > OUTPUT_AST_MAX_TOKENS and "\0" not in text and python_tokens_past(text, OUTPUT_AST_MAX_TOKENS):
        raise ParseError(f"more than {OUTPUT_AST_MAX_TOKENS:,} Python tokens outside plain call text (one line, "
                         "strings without escapes), the most ek reads with Python's parser: it takes hundreds of "
                         "bytes a token (limit OUTPUT_AST_MAX_TOKENS)", None, FORMAT)
    try:
        with warnings.catch_warnings():
            # "invalid escape sequence" and similar compiler warnings are about the model's text, not ek's code
            warnings.simplefilter("ignore", (DeprecationWarning, SyntaxWarning))
            return ast.parse(text, filename="<model output>", mode="exec")
    except SyntaxError as exc:
        position = (exc.lineno or 1, exc.offset or 1)
        cut, hint = _where_it_stopped(text, exc)
        raise ParseError(f"invalid Python: {exc.msg}{hint}", position, FORMAT, cut_short=cut) from None
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


#: Python's words for a text that stops inside a bracket (3.11-3.13).
_UNFINISHED = ("was never closed", "unexpected EOF")

#: Python's words for a string left open: from 3.12 (PEP 701) an f-string has words of its own
#: (``unterminated f-string literal``, ``unterminated triple-quoted f-string literal``), and 3.14 adds t-strings.
_UNTERMINATED = re.compile(r"unterminated (triple-quoted )?(?:[ft]-)?string literal")


def _where_it_stopped(text: str, error: SyntaxError) -> tuple[bool, str]:
    """Whether ``ast.parse`` failed because ``text`` ended inside a call, a bracket or a string, and the words
    that say so: an open bracket never closed, an unterminated triple-quoted string (it runs to the end of the
    text), or an unterminated one-line string on the last line (one on an earlier line is garbled) opened
    inside a bracket that the text after it does not close. A quote opened outside every bracket is an
    apostrophe of prose (``I can't``), and one whose line goes on to close every bracket, ending with the last,
    is a quote left unescaped inside a string (``'it's'``): neither is an output cut short.

    >>> _where_it_stopped("f(x='abc", SyntaxError("unterminated string literal", ("", 1, 5, "")))
    (True, ' (the output ends inside this call: cut short?)')
    >>> _where_it_stopped("I can't", SyntaxError("unterminated string literal", ("", 1, 6, "")))[1]
    ' (a quote outside any call: an apostrophe of prose?)'
    """
    if any(words in error.msg for words in _UNFINISHED):
        return True, _CUT_SHORT
    unterminated = _UNTERMINATED.match(error.msg)  # (Python's own message, not the model's text)
    if unterminated is None:
        return False, ""
    if unterminated.group(1) is not None:
        return True, _CUT_SHORT
    body = text.rstrip()
    if (error.lineno or 0) < body.count("\n") + 1:
        return False, ""
    start = body.rfind("\n") + 1  # the last line's (a string left open is on a line that is not blank)
    quote = _quote_at(text, start + (error.offset or 1) - 1)
    if quote is None:
        return True, _CUT_SHORT
    open_before = open_brackets(text[:quote])
    if not open_before:
        return False, " (a quote outside any call: an apostrophe of prose?)"
    rest = text[quote + 1:]
    closed_after = sum(map(rest.count, ")]}")) - sum(map(rest.count, "([{"))
    if closed_after >= open_before and rest.rstrip()[-1:] in (")", "]", "}"):
        return False, " (a quote inside a string left unescaped?)"
    return True, _CUT_SHORT


_CUT_SHORT = " (the output ends inside this call: cut short?)"


def _quote_at(text: str, index: int) -> int | None:
    """The index of the quote of a string that Python says opens at ``index`` (past a prefix such as ``rb``)."""
    for i in range(index, min(index + 3, len(text))):
        if text[i] in "'\"":
            return i
    return None


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


_NAME = r"[A-Za-z_][A-Za-z0-9_]*+"
_DOTTED = _NAME + r"(?:\." + _NAME + r")*+"
# The tokens of plain call text (inside its outer list's brackets, if any), after any spaces. Most are a
# scalar together with the punctuation after it (every scalar of plain text has one of ``,)]}:`` after it)
# and, before it, the argument name and ``=`` if any, and before that a call's name and ``(`` if the scalar is
# the call's first argument: ``f(size=3,`` or ``size=3,`` or ``'k':`` or ``True]`` is one token. A scalar is a
# string with no escape, prefix or line break (its content captured without the quotes), a decimal int of at
# most 1,000 digits and no leading zero, another decimal number (a float: a ``.`` or an exponent), each after
# at most one sign, or a constant. Then an ASCII (dotted) name with the "(" or "=" after it, if any (a call's
# start, or an argument whose value is a list or a dict); then one bracket or comma; anything else (a run of
# digits at once) is a token with no group set. Every quantifier is possessive over disjoint classes, and an
# alternative that fails leaves a token the next alternatives or the catch-all consume (the digits it read
# among them): each character is read a few times at most, linear on any text.
_PLAIN_TOKENS = re.compile(
    r"[ \t]*+(?:"
    r"(?:(" + _DOTTED + r")[ \t]*+\([ \t]*+)?+"
    r"(?:(" + _NAME + r")[ \t]*+=[ \t]*+)?+"
    r"""(?:'([^'\\\n\r\0\ud800-\udfff]*+)'|"([^"\\\n\r\0\ud800-\udfff]*+)"|"""
    r"([-+]?+(?:0|[1-9][0-9]{0,999}+))"
    r"|([-+]?+[0-9]++(?:\.[0-9]++(?:[eE][-+]?+[0-9]++)?+|[eE][-+]?+[0-9]++))"
    r"|(True|False|None))"
    r"[ \t]*+([]),}:])"
    r"|(" + _DOTTED + r")[ \t]*+([(=]?)"
    r"|([][(){},])"
    r"|[0-9]++|[\s\S])"
)
#: ``(call, argument, '-string, "-string, int, float, constant, punctuation after the scalar, name, "(" or "="
#: after the name, bracket or comma)``: a scalar token has its punctuation set, a name token its name, a
#: bracket token its bracket; a token of none of them is not plain.
_Token = tuple[str, str, str, str, str, str, str, str, str, str, str]
#: Past the last token: no group set.
_END: _Token = ("", "", "", "", "", "", "", "", "", "", "")


class _Tokens(Protocol):
    """What the fast path reads tokens from: a list of them with :data:`_END` last, or :class:`_StreamedTokens`."""

    def __getitem__(self, at: int, /) -> _Token: ...


_CONSTANTS: dict[str, Any] = {"True": True, "False": False, "None": None}
_INFINITY = math.inf
#: Names a call or an argument cannot have (Python's keywords, and ``__debug__``, which it refuses to bind).
_RESERVED = frozenset(keyword.kwlist) | {"__debug__"}
#: Deeper bracket nesting (calls, lists and dicts all count, as :func:`ek.parsing.limits.check_text` counts
#: them) is left to ``ast`` and its limits: plain text the fast path reads passes ``check_text`` with the
#: default limits, so a caller with those may skip it (:func:`ek.parsing.api._plain_call_text` does).
_PLAIN_MAX_DEPTH = OUTPUT_MAX_DEPTH
#: Longer dotted names are left to ``ast`` (a few thousand dots are past its recursion limit): the fast path
#: never accepts what Python's parser would refuse.
_PLAIN_MAX_PARTS = 100
#: Longer texts are tokenized as they are read (:class:`_StreamedTokens`), not into a list first: a list would
#: hold every token of a plain megabyte (about 75 bytes a character), or of a megabyte of ``-`` before ``ast``
#: refuses it, where streaming stops at the first token that is not plain and holds one token at a time. Up to
#: here the list is quicker (``findall`` builds it in C).
_PLAIN_MAX_CHARS = 20_000
#: Longer texts go to ``ast``, whose limits they are past: the default ``max_size``, so every text
#: :func:`_plain_calls` reads passes ``check_text`` with the default limits.
_PLAIN_MAX_SIZE = OUTPUT_MAX_SIZE


class _NotPlain(Exception):
    """Raised inside :func:`_plain_calls` for anything outside its subset: ``ast`` reads the text instead."""


def _plain_calls(text: str) -> list[Step] | None:
    """Fast path: the steps of plain call text, read without ``ast``; None if the text is not that plain.

    Plain text is one call, a list of calls or calls separated by commas, on
    one line: ``[f(a='x', b=-2.5), m.g(c=[1, {'k': None}])]``. Names are ASCII
    and no keyword; values are strings without escapes, prefixes or line breaks,
    decimal numbers (one ``-``/``+`` right before them), ``True``/``False``/``None``,
    lists and dicts with string keys; brackets nest at most :data:`_PLAIN_MAX_DEPTH` deep.
    That is most model output, and for it the result is the one
    :func:`_from_ast` builds with Python's parser (same steps, values and types:
    tests/parsing/test_parse_plain_calls.py compares them), at a fraction of
    the cost. Anything else (an error too) returns None, and the text takes the
    general path, which reads or rejects it with its position. Recursion
    follows bracket nesting only, bounded by :data:`_PLAIN_MAX_DEPTH`.
    """
    if not text or text[0] in " \t" or len(text) > _PLAIN_MAX_SIZE:
        return None  # an indented first line is an error: the general path words it
    if "\\" in text or "\n" in text:
        return None  # an escape or a second line: never plain, found without tokenizing
    text = text.rstrip(" \t")
    depth = 0
    if text[0] == "[":  # a list of calls: its brackets are sliced off, two tokens less to read
        if text[-1] != "]":
            return None  # [f()], g(): a list is no call
        text, depth = text[1:-1], 1
    text = text.rstrip(" \t")  # (trailing spaces would be matched again and again)
    if not text:
        return [] if depth else None
    tokens: _Tokens
    if len(text) <= _PLAIN_MAX_CHARS:
        tokens = _PLAIN_TOKENS.findall(text)
        tokens.append(_END)
    else:
        tokens = _StreamedTokens(text)
    try:
        return _plain_sequence(tokens, depth)
    except _NotPlain:
        return None


def _plain_lines(text: str) -> list[Step] | None:
    """Plain call text on several lines (OLMo 3 writes a call a line): each line that is not blank read by
    :func:`_plain_calls`, as Python reads each a statement of its own, so the steps are the ones
    :func:`_from_ast` builds; None if a line is not plain on its own (a call or a string across lines, an
    indented line, a comment ...). Such text takes the fast path rather than ``ast.parse``, which holds
    hundreds of bytes a token and refuses text past :data:`~ek.limits.OUTPUT_AST_MAX_TOKENS` tokens."""
    if len(text) > _PLAIN_MAX_SIZE or "\\" in text:
        return None
    steps: list[Step] = []
    for line in text.split("\n"):
        if line.strip(" \t"):
            found = _plain_calls(line)
            if found is None:
                return None
            steps += found
    return steps


class _StreamedTokens:
    """The tokens of a long text (:data:`_PLAIN_MAX_CHARS`), matched as the fast path asks for them, then
    :data:`_END`: one token held at a time, where a list would hold them all.

    Safe because the fast path reads tokens in order, each at most a few times in a row and never one before
    the last it read (:func:`_plain_sequence` and :func:`_plain_nested` only move ``at`` forward), and reads
    every token up to :data:`_END` before it returns steps. So a token of no group, which raises
    :class:`_NotPlain` wherever it is read, raises it here as it is matched: a megabyte of ``-`` is refused at
    its first character. A request for an earlier token is a bug of this class's caller, raised as such.
    """

    __slots__ = ("_matches", "_at", "_token")

    def __init__(self, text: str) -> None:
        self._matches = _PLAIN_TOKENS.finditer(text)
        self._at = -1
        self._token = _END

    def __getitem__(self, at: int) -> _Token:
        while self._at < at:
            self._at += 1
            match = next(self._matches, None)
            if match is None:
                self._token = _END
                continue
            token = match.groups("")
            if not any(token):
                raise _NotPlain
            self._token = token
        if at != self._at:
            raise AssertionError(f"token {at} asked for after token {self._at}")
        return self._token


def _plain_sequence(tokens: _Tokens, depth: int) -> list[Step]:
    """Calls separated by commas (a trailing one allowed) up to the end, inside ``depth`` brackets: the steps.

    One function for all of it (the calls, their arguments and scalar values inline): the calls and
    arguments of a text are many, the function calls this saves add up.
    """
    steps = []
    at = 0
    while True:
        call, _, _, _, _, _, _, _, word, after, _ = tokens[at]
        if call:  # "name(" and the first argument, a scalar: that argument is read below, from this token
            name = call
            begin = at
        elif after == "(":
            name = word
            at += 1
            begin = -1
        else:
            raise _NotPlain
        if name in _RESERVED if "." not in name else _reserved_part(name):
            raise _NotPlain
        args: dict[str, Any] = {}
        while True:  # at an argument, or at ")" (after "(" or a comma)
            call, arg, single, double, integer, real, constant, punct, word, after, bracket = tokens[at]
            if punct:  # arg=scalar and the punctuation after it, the most common argument by far
                if not arg or arg in args or arg in _RESERVED or (call and at != begin):
                    raise _NotPlain  # a positional argument, a repeated one, a call ...: the general path words it
                if integer:
                    args[arg] = int(integer)
                elif real:
                    value = float(real)
                    if value == _INFINITY or value == -_INFINITY:
                        raise _NotPlain  # past a float's range: the general path words the error
                    args[arg] = value
                elif constant:
                    args[arg] = _CONSTANTS[constant]
                else:
                    args[arg] = single or double
                at += 1
            elif after == "=":  # arg=[...] or arg={...}
                if "." in word or word in args or word in _RESERVED:
                    raise _NotPlain
                args[word], at = _plain_nested(tokens, at + 1, depth + 2)
                punct = tokens[at][10]
                at += 1
            elif bracket == ")":
                punct = bracket
                at += 1
            else:
                raise _NotPlain
            if punct == ")":
                break
            if punct != ",":
                raise _NotPlain
        # step_of_plain: ``name`` is a str the pattern matched and ``args`` a dict keyed by names it matched,
        # the two things Step's validators check
        steps.append(step_of_plain(name, args))
        if tokens[at] is _END:
            return steps
        if tokens[at][10] != ",":
            raise _NotPlain
        at += 1
        if tokens[at] is _END:
            return steps  # a trailing comma


def _reserved_part(name: str) -> bool:
    """A dotted name with a keyword part, or too many parts for :func:`_plain_calls`."""
    parts = name.split(".")
    return len(parts) > _PLAIN_MAX_PARTS or any(p in _RESERVED for p in parts)


def _plain_nested(tokens: _Tokens, at: int, depth: int) -> tuple[Any, int]:
    """The list or dict whose bracket is ``tokens[at]``, the ``depth``-th open one: the value and the index
    after its closing bracket."""
    opening = tokens[at][10]
    if depth > _PLAIN_MAX_DEPTH or (opening != "[" and opening != "{"):
        raise _NotPlain
    closing = "]" if opening == "[" else "}"
    items: list[Any] = []
    keys: dict[str, Any] = {}
    key = ""
    while True:  # at an item (a key in a dict), or at the closing bracket (after the opening one or a comma)
        at += 1
        call, arg, single, double, integer, real, constant, punct, _, _, bracket = tokens[at]
        if opening == "{":
            if punct == ":" and not (call or arg or integer or real or constant):
                key = single or double
                if key in keys:
                    raise _NotPlain  # a repeated key: an error the general path words
                at += 1
                call, arg, single, double, integer, real, constant, punct, _, _, bracket = tokens[at]
            elif bracket == "}":
                return keys, at + 1
            else:
                raise _NotPlain
        if punct:  # a scalar, read as in _plain_sequence
            if call or arg:
                raise _NotPlain
            if integer:
                value = int(integer)
            elif real:
                value = float(real)
                if value == _INFINITY or value == -_INFINITY:
                    raise _NotPlain
            elif constant:
                value = _CONSTANTS[constant]
            else:
                value = single or double
        elif bracket == "[" or bracket == "{":
            value, at = _plain_nested(tokens, at, depth + 1)
            punct = tokens[at][10]
        elif bracket == "]" and opening == "[":
            return items, at + 1
        else:
            raise _NotPlain
        if opening == "[":
            items.append(value)
        else:
            keys[key] = value
        if punct == closing:
            return (items if opening == "[" else keys), at + 1
        if punct != ",":
            raise _NotPlain
