"""A tool's validator made from its compiled *shape*: each distinct shape is compiled once, and each tool's
strings go into a copy of that code as constants.

Compiling is most of what a first validation costs (400 us of a BFCL tool's 550), and it was paid for
every tool of every grammar built in memory (BFCL builds one per question). Yet tools alike but for their
names and messages have validators alike but for their string literals: BFCL's 1,000 Python entries have
1,677 tools and 284 shapes. :func:`ek.codegen.emitter.plan_tool_validator` writes a validator's module as
a skeleton with a marker for each string literal, plus the strings. Here the skeleton is compiled with
each marker made a placeholder string (``'\\ue000'`` and its number: a string no generated code holds
otherwise), once per distinct skeleton; a tool's validator is that code with each placeholder constant
replaced by its string, wherever the compiler put it (a constant of its own, or inside a folded tuple or
frozenset), in the module's code and the function's.

Why that is the code compiling the tool's own source gives: a string literal compiles to a constant
holding its value, and nothing in generated code folds a string with anything but other constants of a
tuple or a set (no ``+``, ``%`` or implicit joining of two literals; tests hold every BFCL tool and random
grammars to instruction-for-instruction equality with the compiled source). Schema content never becomes
code: its strings are constants, never compiled.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from types import CodeType
from typing import Any

from ek.codegen.toolplan import TOOL_VALIDATOR_NAME, ToolValidatorPlan
from ek.limits import COMPILED_VALIDATORS

#: Starts every placeholder string: a private-use character, which no generated code writes
#: (schema strings are markers, the generator's own are ASCII).
PLACEHOLDER = "\ue000"

#: Compiled shapes by their compiled text, most recently used last, at most ``COMPILED_VALIDATORS``.
_shapes: dict[str, CodeType] = {}
_shapes_lock = threading.Lock()


def shape_text(plan: ToolValidatorPlan) -> str:
    """The text compiled for ``plan``'s shape: each string marker ``k`` made the literal of ``PLACEHOLDER + k``,
    the origin comment a fixed one (a comment compiles to nothing; the line stays, so line numbers agree)."""
    parts = plan.skeleton.split("\x00")
    parts[1::2] = ["# origin" if marker == "O" else repr(PLACEHOLDER + marker) for marker in parts[1::2]]
    return "".join(parts)


def validator_from_plan(plan: ToolValidatorPlan, filename: str, module_name: str) -> Callable[[Any], Any]:
    """The ``validate_args`` that ``plan.text()`` defines, executed as a module named ``module_name`` whose
    code says it comes from ``filename`` (for tracebacks), without compiling that text."""
    text = shape_text(plan)
    with _shapes_lock:
        code = _shapes.pop(text, None)
    if code is None:
        code = compile(text, "<ek shape>", "exec", dont_inherit=True)
    with _shapes_lock:
        _shapes[text] = code
        while len(_shapes) > COMPILED_VALIDATORS:
            del _shapes[next(iter(_shapes))]
    strings = {PLACEHOLDER + str(k): s for k, s in enumerate(plan.strings)}
    namespace: dict[str, Any] = {"__name__": module_name}
    exec(_filled(code, strings, filename), namespace)  # noqa: S102 - our own generated code, strings as constants
    return namespace[TOOL_VALIDATOR_NAME]  # type: ignore[no-any-return]


def _filled(code: CodeType, strings: Mapping[str, str], filename: str) -> CodeType:
    """``code`` (and the code inside it) with each placeholder constant replaced by its string."""
    return code.replace(co_consts=tuple(_constant(c, strings, filename) for c in code.co_consts),
                        co_filename=filename)


def _constant(value: Any, strings: Mapping[str, str], filename: str) -> Any:
    kind = type(value)
    if kind is str:
        return strings.get(value, value)
    if kind is tuple:
        return tuple(_constant(v, strings, filename) for v in value)
    if kind is frozenset:
        return frozenset(_constant(v, strings, filename) for v in value)
    if kind is CodeType:
        return _filled(value, strings, filename)
    return value


__all__ = ["PLACEHOLDER", "shape_text", "validator_from_plan"]
