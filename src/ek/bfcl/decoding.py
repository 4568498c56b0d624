"""Whether BFCL's prompting decoder finds calls in a text, worked out without running anything.

BFCL's irrelevance categories pass an entry iff its decoder finds no call, and ``live_relevance`` iff it
finds some. ek reads outputs with :mod:`ek.parsing`, which refuses what would need evaluating (a bare
name, a positional argument, a nested call, arithmetic): an output such as
``[get_weather(city=city)]`` is no call to ek's reader, yet it is plainly a call, and BFCL's decoder
(``default_decode_ast_prompting``) reads it as one. For those two questions, :func:`decodes_to_calls`
answers as BFCL's decoder would: after its clean-up (backticks, newlines and spaces stripped at both
ends, brackets added), a Python expression that is a call or a list of calls, each keyword value of a
kind its ``resolve_ast_by_type`` takes. The text is parsed with :func:`ek.parsing.python_calls.syntax_tree`
(Python's parser, within the parsing limits) and its tree walked; nothing is compiled, evaluated or
imported: where BFCL evaluates arithmetic, an expression of constants is taken as one it can evaluate.
"""

from __future__ import annotations

import ast

from ek.parsing import ParseError
from ek.parsing.api import bfcl_cleaned
from ek.parsing.limits import DEFAULT_LIMITS, Limits
from ek.parsing.python_calls import syntax_tree


def decodes_to_calls(text: str, limits: Limits = DEFAULT_LIMITS) -> bool:
    """Whether BFCL's prompting decoder reads ``text`` as one or more calls (see the module's docstring).

    >>> decodes_to_calls("[get_weather(city=city)]"), decodes_to_calls("get_primes(1, 64)")
    (True, True)
    >>> decodes_to_calls("I cannot help with that."), decodes_to_calls("[]"), decodes_to_calls("[f(x=lambda: 1)]")
    (False, False, False)
    """
    text = bfcl_cleaned(text, fence_word=True)
    try:
        tree = syntax_tree(text.strip().strip("'"), limits)
    except ParseError:
        return False
    if len(tree.body) != 1 or type(tree.body[0]) is not ast.Expr:
        return False  # BFCL parses one expression (mode="eval")
    body = tree.body[0].value
    calls = [body] if type(body) is ast.Call else getattr(body, "elts", None)
    try:
        return bool(calls) and all(type(call) is ast.Call and _resolvable_call(call) for call in calls)
    except RecursionError:  # a chain Python's parser took but too deep to walk: BFCL's ast.unparse fails on it too
        return False


def _resolvable_call(call: ast.Call) -> bool:
    """Whether BFCL's ``resolve_ast_call`` reads the call: every keyword value resolvable (positional
    arguments are dropped unread)."""
    return all(_resolvable(keyword.value) for keyword in call.keywords)


def _resolvable(node: ast.expr | None) -> bool:
    """Whether BFCL's ``resolve_ast_by_type`` gives a value for ``node`` rather than raising."""
    kind = type(node)
    if kind is ast.Constant or kind is ast.Name or kind is ast.Subscript:
        return True
    if kind is ast.UnaryOp:  # BFCL negates the operand's constant value
        operand = node.operand  # type: ignore[union-attr]
        return type(operand) is ast.Constant and type(operand.value) in (int, float, complex, bool)
    if kind is ast.List or kind is ast.Tuple:
        return all(_resolvable(item) for item in node.elts)  # type: ignore[union-attr]
    if kind is ast.Dict:  # (a ** unpacking has no key: BFCL cannot resolve it)
        return all(_resolvable(key) and _resolvable(value)
                   for key, value in zip(node.keys, node.values))  # type: ignore[union-attr]
    if kind is ast.BinOp:  # BFCL evaluates it: taken as evaluable when made of constants only
        return _constant_arithmetic(node)  # type: ignore[arg-type]
    if kind is ast.Call:  # a call without keywords is kept as its text; one with keywords is read as a call
        return _resolvable_call(node)  # type: ignore[arg-type]
    return False  # lambdas, comparisons, comprehensions, f-strings, sets...: BFCL's decoder raises


def _constant_arithmetic(node: ast.expr) -> bool:
    kind = type(node)
    if kind is ast.BinOp:
        return _constant_arithmetic(node.left) and _constant_arithmetic(node.right)  # type: ignore[attr-defined]
    if kind is ast.UnaryOp:
        return _constant_arithmetic(node.operand)  # type: ignore[attr-defined]
    return kind is ast.Constant and type(node.value) in (int, float, complex, str)  # type: ignore[attr-defined]
