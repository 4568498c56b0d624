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
import math
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from ek.calls import Step
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
