"""The compile gate for a module whose validators were planned as shapes (:class:`ek.codegen.validators.Body`).

Compiling a thousand-tool module is most of what ``ek gen`` costs, and its validators are most of its
text; tools alike but for their names and constants have validators alike but for their literals. So
the generator writes each body as a skeleton, in which every literal and table name is a marker, plus
the text of each marker (its fillers), and the gate proves the module compiles without compiling all
of it:

- the text around the validators (header, tables, ``VALIDATORS`` ...) is compiled as it is;
- each distinct skeleton is compiled once, inside a ``def``, with each marker made a name
  (``_hL3``), and parsed to check that every marker is a name *read* in an expression, and a literal
  marker not one whose next token could glue to it (not called, subscripted or followed by ``.attr``);
- each filler is checked to be one token of its kind: a literal marker's a ``str`` literal as
  ``repr`` writes it, a number that is not negative, True, False or None; a name marker's an
  identifier that is not a keyword; each function name an identifier, each docstring a ``str`` literal.

A token of those kinds in a place where a name is read parses as that name did, so a skeleton that
compiles compiles with any such fillers; top-level ``def`` statements that compile alone compile in
a sequence. The module is never written when any of it fails.

That pays only when shapes repeat (:func:`shapes_pay`); otherwise ``ek gen`` compiles the module whole.
"""

from __future__ import annotations

import ast
import functools
import keyword
import re
from collections.abc import Callable, Sequence

from ek.codegen.errors import GenerationError
from ek.codegen.layout import validator_def
from ek.codegen.validators import Body

#: One literal token as ``ek.codegen.literals.py_literal`` writes a ``str`` (``repr``: one quote kind, no
#: control character or surrogate in the raw, and only the escapes ``repr`` writes), a number that is not
#: negative, or a constant. Possessive: linear time on any text (and runs of plain characters at C speed).
_ESCAPE = r"\\(?:[\\'\"nrt]|x[0-9a-f]{2}|u[0-9a-f]{4}|U[0-9a-f]{8})"
_STR = rf"'(?:[^'\\\x00-\x1f\ud800-\udfff]++|{_ESCAPE})*+'|\"(?:[^\"\\\x00-\x1f\ud800-\udfff]++|{_ESCAPE})*+\""
_LITERAL = rf"{_STR}|[0-9]+(?:\.[0-9]*)?(?:e[-+]?[0-9]+)?|True|False|None"


@functools.cache
def _checks() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """The patterns of one or more str literals, literals and names, one a line (names: ASCII identifiers,
    stricter than Python, as the generator's are). Compiled on first use: every process that compiles a
    validator imports this module, and only ``ek gen`` checks shapes."""
    strs = re.compile(rf"(?:{_STR})(?:\n(?:{_STR}))*")
    literals = re.compile(rf"(?:{_LITERAL})(?:\n(?:{_LITERAL}))*")
    names = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\n[A-Za-z_][A-Za-z0-9_]*)*")
    return strs, literals, names


_KEYWORDS = frozenset(keyword.kwlist)
_MARKER = "\x00([LN][0-9]+)\x00"  # re.sub / re.findall cache it


class PlannedSource(str):
    """A module's source (it *is* the text) that also carries what :func:`check_planned` needs:
    the text before and after its validators, and each validator's name, docstring and body."""

    head: str
    tail: str
    validators: Sequence[tuple[str, str, Body]]

    def __new__(cls, text: str, head: str, tail: str, validators: Sequence[tuple[str, str, Body]]) -> PlannedSource:
        source = super().__new__(cls, text)
        source.head, source.tail, source.validators = head, tail, validators
        return source


#: Checking a shape (compiled, parsed and walked) costs about four times compiling one validator, so the
#: gate goes by shapes only when validators outnumber their shapes by more than this; tools that differ in
#: their arguments' types and constraints, not only in names (most real grammars), have nearly one shape
#: each, and their module is compiled as it is.
SHAPES_PAY_FROM = 4


def shapes_pay(source: PlannedSource) -> bool:
    """Whether checking ``source`` by its shapes costs less than compiling it."""
    shapes = len({body.skeleton for _, _, body in source.validators})
    return shapes * SHAPES_PAY_FROM < len(source.validators)


def check_planned(source: PlannedSource, what: str, compile_text: Callable[[str, str], object]) -> None:
    """Raise :class:`GenerationError` unless ``source`` compiles, by the argument of the module docstring.
    ``compile_text(text, what)`` is the plain gate, for the text around the validators."""
    compile_text(source.head, what)
    compile_text(source.tail, what)
    shapes: dict[str, tuple[list[int], list[int]]] = {}  # skeleton -> indexes of its literal and name fillers
    literals: list[str] = []
    names: list[str] = []
    docs: list[str] = []
    for name, doc, body in source.validators:
        shape = shapes.get(body.skeleton)
        if shape is None:
            _check_skeleton(body, name, what)
            kinds = _kinds(body.skeleton)
            shape = shapes[body.skeleton] = ([i for i, k in enumerate(kinds) if k == "L"],
                                             [i for i, k in enumerate(kinds) if k == "N"])
        if len(shape[0]) + len(shape[1]) != len(body.fillers):
            raise GenerationError(f"generated source for {what}: the markers of {name} do not match its fillers")
        literals += map(body.fillers.__getitem__, shape[0])
        names += map(body.fillers.__getitem__, shape[1])
        names.append(name)
        docs.append(doc)
    # one regular-expression run over each kind (tens of thousands of fillers); no token holds a line break
    str_tokens, literal_tokens, name_tokens = _checks()
    if str_tokens.fullmatch("\n".join(docs)) is None:
        bad = next(d for d in docs if str_tokens.fullmatch(d) is None)
        raise GenerationError(f"generated source for {what}: docstring {bad[:80]!r} is not one str literal")
    if literals and literal_tokens.fullmatch("\n".join(literals)) is None:
        bad = next(f for f in literals if literal_tokens.fullmatch(f) is None)
        raise GenerationError(f"generated source for {what}: {bad[:80]!r} is not one literal")
    if name_tokens.fullmatch("\n".join(names)) is None or not _KEYWORDS.isdisjoint(names):
        bad = next(n for n in names if name_tokens.fullmatch(n) is None or n in _KEYWORDS)
        raise GenerationError(f"generated source for {what}: {bad[:80]!r} is not a name")


def _kinds(skeleton: str) -> list[str]:
    """The kind of each marker, in filler order (``L`` literal, ``N`` name; ``?`` for a number no marker has)."""
    found = {int(m[1:]): m[0] for m in skeleton.split("\x00")[1::2]}
    return [found.get(i, "?") for i in range(max(found, default=-1) + 1)]


def _check_skeleton(body: Body, name: str, what: str) -> None:
    markers = re.findall(_MARKER, body.skeleton)  # a marker may occur more than once (a path in two messages)
    if {int(m[1:]) for m in markers} != set(range(len(body.fillers))):
        raise GenerationError(f"generated source for {what}: the markers of {name} do not match its fillers")
    text = validator_def("_v", "_doc", re.sub(_MARKER, r"_h\1", body.skeleton))  # the def as the module writes it
    try:
        compile(text, f"<ek gen {what}: the shape of {name}>", "exec", dont_inherit=True)
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise GenerationError(f"generated source for {what} does not compile (the shape of {name}): {exc}") from exc
    glued = set()  # names whose next token is part of the same expression: `x(`, `x[`, `x.`
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            glued.add(id(node.func))
        elif isinstance(node, (ast.Subscript, ast.Attribute)):
            glued.add(id(node.value))
    read = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id.startswith("_h"):
            marker = node.id[2:]
            if not isinstance(node.ctx, ast.Load) or (marker[0] == "L" and id(node) in glued):
                raise GenerationError(f"generated source for {what}: a marker of {name} sits where its filler "
                                      "cannot go")
            read.append(marker)
    if sorted(read) != sorted(markers):  # every occurrence is a name read in an expression
        raise GenerationError(f"generated source for {what}: a marker of {name} is not a name in an expression")
