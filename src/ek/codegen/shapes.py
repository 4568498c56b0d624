"""The compile gate for a module whose validators were planned as shapes (:class:`ek.codegen.validators.Body`).

Compiling a thousand-tool module is most of what ``ek gen`` costs, and its validators are most of its
text. An argument's checks are the same statements wherever they appear but for their literals, table
names and local names (a ``str [1..200]`` is checked alike in every tool), so the generator writes each
body as runs of top-level statements (:class:`~ek.codegen.validators.Run`: the prologue with the first
argument's checks, one run per further argument, the unknown-keys check), each a skeleton, in which
every literal and table name is a marker, plus the text of each marker (its fillers). The fields of a
nested object are runs of their own too, one per field, in a *hole* of the run that holds the object (a
line of its own, ``\x00R3\x00``), unless a loop encloses them (a list's items). A run's *shape*
(:func:`shape_of`) is its skeleton with every local name (``v3``, marked in the skeleton) made one and the
same, so the shapes are the kinds of check, few even when the tools differ. The gate proves the module
compiles without compiling all of it:

- the text around the validators (header, ``VALIDATORS``, the JSON tables ...) is compiled as it is,
  with the head's constant lines made ``pass`` (:func:`stand_ins`);
- each shape that more than :data:`SHAPES_PAY_FROM` runs share, and each shape with a hole, is compiled
  once, as the whole body of the innermost block of :func:`_context` in a ``def`` (the function's body at
  depth 1; a hole's runs at the depth of their hole), with each marker made a name (``_hL3``), and parsed
  to check that every marker is a name *read* in an expression, a literal marker not one whose next token
  could glue to it (not called, subscripted or followed by ``.attr``), every local stand-in a name (read,
  assigned or deleted; not an attribute, a parameter, a keyword argument), every hole an expression
  statement of its own line whose enclosing blocks are only ``if``, ``else`` and a ``try``'s ``else``, each
  one level deeper (:func:`_hole_depths`), that the run stays inside its block and holds no ``global``,
  ``nonlocal``, ``yield``, ``await`` or ``:=`` (a shape that passed is recorded, and not checked again in
  a later run of the same gate code on the same Python: :class:`CheckedShapes`);
- each other run is compiled as it is, as the whole body of the innermost block of :func:`_context` at its
  depth, in a ``def`` of its own, when :func:`_alone_safe` (every line inside the block, the first at its
  indentation, none of the four words ``global``, ``nonlocal``, ``yield``, ``await`` anywhere), else with its
  whole function;
- a hole's filler is checked to be its runs' text (but for the first line's indentation, which the hole's
  line has);
- each filler is checked to be one token of its kind: a literal marker's a ``str`` literal as
  ``repr`` writes it, a number that is not negative, True, False or None; a name marker's an
  identifier that is not a keyword; each function name an identifier, each docstring a ``str`` literal.

A token of those kinds in a place where a name is read parses as that name did, so a skeleton that
compiles compiles with any such fillers; and a statement compiles with one local name as with any other
that is not a keyword nor ``__debug__`` wherever a name is, with no ``global``, ``nonlocal`` or ``:=``
(the only compile errors that depend on which name a name is), so a shape that compiles stands for each
of its runs. Runs of statements that each compile as a block's whole body compile in sequence in it:
each starts a statement at the block's indentation (a further indented one does not compile after the
docstring, and is refused by a test of its first line in a deeper block) and ends one (an open bracket,
string or a backslash at its end does not compile alone), so the tokens of each are those it has alone;
and with no ``global`` or ``nonlocal`` the symbol table has nothing to say between statements (``yield``
and ``await`` would change what the function is; they are refused too). A hole's runs compile in its
place as in :func:`_context`'s block: the hole's line starts at the same column after the same open
blocks (the tokenizer's indentation stack is the same), and neither those blocks nor the context's push
anything on the compiler's block stack (whose limit, 20, counts loops, ``try`` bodies, handlers and
``with``) or make a ``break`` or ``continue`` legal, and they nest exactly as deep; a sequence of
statements where one statement compiled compiles there. Top-level ``def`` statements that compile alone
compile in a sequence. The module is never written when any of it fails.

That pays only when shapes repeat (:func:`shapes_pay`); otherwise ``ek gen`` compiles the module whole.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import json
import keyword
import re
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

import jinja2

from ek.atomicfile import write_bytes_atomic
from ek.codegen import layout
from ek.codegen.errors import GenerationError
from ek.codegen.layout import validator_def, validator_defs
from ek.codegen.validators import LOCAL_MARK, Body, Run
from ek.templatecache import cache_folder

#: One literal token as ``ek.codegen.literals.py_literal`` writes a ``str`` (``repr``: one quote kind, no
#: control character or surrogate in the raw, and only the escapes ``repr`` writes), a number that is not
#: negative, or a constant. Possessive: linear time on any text (and runs of plain characters at C speed).
_ESCAPE = r"\\(?:[\\'\"nrt]|x[0-9a-f]{2}|u[0-9a-f]{4}|U(?:000[0-9a-f]|0010)[0-9a-f]{4})"  # \U: at most 0010ffff
_STR = rf"'(?:[^'\\\x00-\x1f\ud800-\udfff]++|{_ESCAPE})*+'|\"(?:[^\"\\\x00-\x1f\ud800-\udfff]++|{_ESCAPE})*+\""
_LITERAL = rf"{_STR}|[0-9]+(?:\.[0-9]*)?(?:e[-+]?[0-9]+)?|True|False|None"


@functools.cache
def _constant_lines() -> re.Pattern[str]:
    """A whole line that assigns one of the validators' constants in its most common forms (:class:`~ek.codegen.
    validators.Tables`: a fixed violation, a violation's head, a set of str), every literal one ``str`` token."""
    violation = rf"_S[0-9]+ = _V\(\((?:{_STR}), (?:{_STR})\)\)"
    head = rf"_H[0-9]+ = _VH\(\((?:{_STR}), (?:{_STR}), (?:_repr80|_type_name|str)\)\)"
    strs = rf"_[EK][0-9]+ = frozenset\(\{{(?:{_STR})(?:, (?:{_STR}))*+\}}\)"
    return re.compile(rf"(?:^(?:{violation}|{head}|{strs})(?:\n|\Z))++", re.MULTILINE)  # a run of whole lines


def stand_ins(text: str) -> str:
    """``text`` with each run of lines of :func:`_constant_lines` made one ``pass``: if that compiles, ``text``
    does. Such a line is one simple statement (a name assigned a call of str literals); where ``pass``
    compiles in its place (at column 0: not inside brackets, not after a backslash, nor inside a string, where
    both are text) it does too, and so does a run of them (after a simple statement at column 0 another
    may follow). Compiling the head of a module of 1,000 varied tools (4,000 such lines) took 60 ms, and
    4 ms with a ``pass`` each; the substitution is one pass of a linear-time pattern."""
    return _constant_lines().sub("pass\n", text)


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
_MARKER = "\x00([LNR][0-9]+)\x00"  # re.sub / re.findall cache it


class PlannedSource(str):
    """A module's source (it *is* the text) that also carries what :func:`check_planned` needs:
    the text before and after its validators, and each validator's name, docstring and body."""

    head: str
    tail: str
    validators: Sequence[tuple[str, str, Body]]
    #: :func:`_run_shapes`, once worked out
    shapes: tuple[Counter[str], dict[str, str]] | None

    def __new__(cls, text: str, head: str, tail: str, validators: Sequence[tuple[str, str, Body]]) -> PlannedSource:
        source = super().__new__(cls, text)
        source.head, source.tail, source.validators, source.shapes = head, tail, validators, None
        return source


#: Checking a shape (compiled, parsed and walked) costs about five times compiling its text, so a run's shape
#: is checked only when more than this many runs share it; the other runs are compiled as they are, each
#: the body of a ``def`` of its own (:func:`_alone_safe`). Tools that differ in their arguments' types and
#: constraints, not only in names (most real grammars), still share most of their runs' shapes: an
#: argument's checks differ from another's of its kind in their literals and table names.
SHAPES_PAY_FROM = 4


#: A local name of generated code between its marks (:meth:`ek.codegen.source.Lines.fresh`: ``\x01v3\x01``,
#: ``n0``, ``i1``, ``ok2``, ``a0``; never a keyword nor ``__debug__``): a shape is a skeleton with each one made
#: :data:`_LOCAL_STAND_IN` (:func:`shape_of`).
_LOCAL = re.compile(f"{LOCAL_MARK}(?:v|n|i|ok|a)[0-9]+{LOCAL_MARK}")
_LOCAL_STAND_IN = "_hV"


def shape_of(skeleton: str) -> str:
    """The shape of a run: its skeleton with every local name made one and the same, :data:`_LOCAL_STAND_IN`.
    Local names follow an argument's position (``v3``) and the variables used before it, so two runs that
    check alike but sit at other places differ only in them; a statement that compiles with one name compiles
    with any other that is neither a keyword nor ``__debug__`` wherever a *name* is (read, assigned or
    deleted) and no ``global``, ``nonlocal`` or ``:=`` is in the run (those are the compiler's only errors that
    depend on which name a name is), so one check of the shape stands for each run of it (:func:`_check_run`
    verifies that every stand-in is such a name)."""
    if _LOCAL_STAND_IN in skeleton:  # then a stand-in might not be a local name made one
        raise GenerationError(f"generated source holds the name {_LOCAL_STAND_IN}, the gate's stand-in")
    shape = _LOCAL.sub(_LOCAL_STAND_IN, skeleton)
    if LOCAL_MARK in shape:  # a mark around something else: the source would not be the shape's
        raise GenerationError("generated source marks as a local name what is not one")
    return shape


def _run_shapes(source: PlannedSource) -> tuple[Counter[str], dict[str, str]]:
    """How many runs of ``source``'s validators have each shape (the runs in holes too), and each skeleton's
    shape; worked out once per source (kept on it)."""
    if source.shapes is not None:
        return source.shapes
    runs = [run for _, _, body in source.validators for run in body.runs]
    skeletons = [run.skeleton for run in runs]
    holding = [run for run in runs if "\x00R" in run.skeleton]
    while holding:  # the runs of the bodies in holes, a level at a time
        inner = [run for outer in holding for value in outer.values if type(value) is Body for run in value.runs]
        skeletons += [run.skeleton for run in inner]
        holding = [run for run in inner if "\x00R" in run.skeleton]
    shapes = {skeleton: shape_of(skeleton) for skeleton in set(skeletons)}
    source.shapes = Counter(map(shapes.__getitem__, skeletons)), shapes
    return source.shapes


def run_counts(source: PlannedSource) -> Counter[str]:
    """How many runs of ``source``'s validators have each shape (:func:`shape_of`; the runs in holes too)."""
    return _run_shapes(source)[0]


def shapes_pay(counts: Counter[str]) -> bool:
    """Whether checking a module by its shapes (``counts``: :func:`run_counts`) may cost less than compiling
    it: some shape is shared by more than :data:`SHAPES_PAY_FROM` runs."""
    return any(n > SHAPES_PAY_FROM for n in counts.values())


#: Words that keep a run of statements from being compiled alone (:func:`_alone_safe`): statements whose scope
#: reaches beyond the run (``global``, ``nonlocal``) or that make the function another kind (``yield``,
#: ``await``). Found anywhere (in a string too): such a run is compiled with its function.
_SCOPE_WORDS = ("global", "nonlocal", "yield", "await")


def _alone_safe(text: str, depth: int = 1) -> bool:
    """Whether ``text``, a run of a validator's statements at ``depth`` (1: the function's own; more: the fields
    of a nested object, in a hole), compiles in sequence with the others when it compiles as the whole body of
    :func:`_context`'s innermost block: its first line starts a statement at the depth's indentation (a first
    statement indented further would open that block's body deeper); every line starts inside the block (no
    carriage return or form feed, which the tokenizer would read as a line break or a column reset), so its
    statements are the block's; no backslash joins its last line to what follows; and nothing in it
    (:data:`_SCOPE_WORDS`) gives the symbol table something to say between statements. Plain substring tests,
    each in C."""
    pad = _PADS[depth] if depth < len(_PADS) else "    " * depth
    return (text.startswith(pad) and text[len(pad):len(pad) + 1].isidentifier()
            and text.count("\n") == text.count("\n" + pad) and "\r" not in text and "\f" not in text
            and not text.endswith("\\") and not any(w in text for w in _SCOPE_WORDS))


_PADS = tuple("    " * n for n in range(16))


def _context(depth: int) -> str:
    """The lines that open a block at ``depth`` inside a validator (``depth - 1`` nested ``if _:``), in which a
    hole's runs are compiled: like the blocks around a hole (:func:`_hole_depths`), they push nothing on the
    compiler's block stack (its limit is 20 loops, ``try`` and ``with`` blocks) and hold no loop (so a
    ``break`` compiles in neither), and they nest exactly as deep."""
    return "".join([f"{_PADS[1] * n}if _:\n" for n in range(1, depth)])


#: A shape once checked: the indexes of its literal and name fillers, their number, its holes (filler index,
#: depth) and the depth it was checked at.
_Shape = tuple[list[int], list[int], int, list[tuple[int, int]], int]


class CheckedShapes:
    """The shapes this gate passed before (in this process or an earlier one): a fast path of the gate.

    What it skips: parsing and compiling a shape :func:`_check_run` passed before, in the same depth and with
    as many fillers. Why that is safe: that check depends on nothing else but the gate's own code and the
    ``def`` it compiles the shape in (this module, :mod:`ek.codegen.layout`, its ``validators.py.jinja2`` and
    jinja2's version) and on Python's compiler (its version): all of them are the key of the file the record
    is kept in, so a change of any starts another record. Only a shape that passed is recorded (a refusal
    is found again each time), with what its check found (its holes' filler indexes and depths). The
    fillers of every run are still checked, every run compiled alone still compiled. Shapes are the kinds of
    check the generator writes (an optional ``str [1..N]`` argument at depth 1 ...), so the record holds the
    generator's, nearly the same whatever the grammar (a few hundred; at most :data:`RECORDED_AT_MOST`).

    The record is a JSON file in ``ek.codegen``'s ``__pycache__`` (``sys.pycache_prefix`` respected), as the
    DSL's parser tables and the templates' code are kept: not written under ``PYTHONDONTWRITEBYTECODE``, nor
    where the package cannot be written; a missing or unreadable file is an empty record. Trusts no one new:
    whoever can write ``__pycache__`` can replace the package's bytecode."""

    def __init__(self, path: Path | None, known: dict[str, list[list[int]]]) -> None:
        self.path = path
        self.known = known
        self.added = False
        #: whether what is added is kept for later runs: then a rare shape too is checked (and recorded) rather
        #: than its runs compiled alone, which the next run would pay again (the shape costs about two)
        self.keeps = path is not None and not sys.dont_write_bytecode

    @classmethod
    def load(cls) -> CheckedShapes:
        """The record of this gate's code and this Python, or an empty one."""
        try:
            path = cache_folder(__file__) / f"ek.shapes.{_record_key()}.json"
        except OSError:  # the gate's own files unreadable: no record
            return cls(None, {})
        try:
            known = json.loads(path.read_bytes())
        except (OSError, ValueError):
            known = {}
        return cls(path, known if type(known) is dict else {})

    @staticmethod
    def _digest(shape: str, fillers: int, depth: int) -> str:
        return hashlib.sha256(f"{depth}\x00{fillers}\x00{shape}".encode("utf-8", "surrogatepass")).hexdigest()[:32]

    def __contains__(self, key: tuple[str, int, int]) -> bool:
        return self.holes(*key) is not None

    def holes(self, shape: str, fillers: int, depth: int) -> dict[int, int] | None:
        """What :func:`_check_run` found for ``shape`` when it passed, or None if it has not."""
        found = self.known.get(self._digest(shape, fillers, depth))
        try:
            return None if found is None else {int(at): int(hole_depth) for at, hole_depth in found}
        except (TypeError, ValueError):  # not what add() writes: checked again
            return None

    def add(self, shape: str, fillers: int, depth: int, holes: dict[int, int]) -> None:
        if len(self.known) < RECORDED_AT_MOST:
            self.known[self._digest(shape, fillers, depth)] = sorted(holes.items())  # type: ignore[assignment]
            self.added = True

    def save(self) -> None:
        """Write the record if shapes were added (atomically: another process may read it meanwhile)."""
        if not self.added or self.path is None or sys.dont_write_bytecode:
            return
        try:
            write_bytes_atomic(self.path, json.dumps(self.known, sort_keys=True).encode("ascii"))
        except OSError:
            pass
        self.added = False


#: Shapes a :class:`CheckedShapes` record holds at most (each ~50 bytes): a bound, not a figure ever reached.
RECORDED_AT_MOST = 20_000


@functools.cache
def _record_key() -> str:
    """What a shape's check depends on besides its text, as a digest: the gate's code, the ``def`` it compiles
    shapes in, jinja2's and Python's versions."""
    digest = hashlib.sha256(f"{sys.version}\x00{sys.implementation.cache_tag}\x00{jinja2.__version__}".encode())
    for path in (Path(__file__), Path(layout.__file__), Path(layout.__file__).parent / "templates" / "validators.py.jinja2"):
        digest.update(b"\x00" + path.read_bytes())
    return digest.hexdigest()[:20]


class _Gate:
    """The walk of :func:`check_planned` over the runs of every body, the runs in holes included: what it has
    checked, and what is left to check at the end."""

    def __init__(self, source: PlannedSource, what: str) -> None:
        self.counts, self.shape_of = _run_shapes(source)
        self.what = what
        self.record = CheckedShapes.load()
        self.shapes: dict[str, _Shape | None] = {}  # shape -> what its check found; None: its runs are compiled alone
        self.literals: list[str] = []
        self.names: list[str] = []

    def runs(self, runs: Sequence[Run], depth: int, name: str) -> list[str] | None:
        """The bodies of the ``def``s to compile for ``runs``, statements of ``name`` at ``depth``: each run
        compiled alone, in its :func:`_context`; the others were checked by their shapes (their fillers kept in
        :attr:`literals` and :attr:`names`). None: some run cannot be compiled alone, so its function is."""
        alone = []
        for run in runs:
            skeleton, fillers, values = run
            key = self.shape_of[skeleton]
            try:
                shape = self.shapes[key]
            except KeyError:  # a hole is found only in a tree: such a run is checked by its shape however rare
                pays = (self.counts[key] > SHAPES_PAY_FROM or "\x00R" in skeleton or self.record.keeps
                        or (key, len(fillers), depth) in self.record)
                shape = self.shapes[key] = self._checked(key, len(fillers), name, depth) if pays else None
            if shape is None:
                text = run.text()
                if not _alone_safe(text, depth):
                    return None
                alone.append(_context(depth) + text if depth > 1 else text)
                continue
            literal_at, name_at, count, holes, checked_at = shape
            if count != len(fillers):
                raise GenerationError(f"generated source for {self.what}: the markers of {name} do not match its "
                                      "fillers")
            if checked_at != depth:  # (its first line's indentation says where it may go: never both places)
                raise GenerationError(f"generated source for {self.what}: a shape of {name} sits at two depths")
            self.literals += map(fillers.__getitem__, literal_at)
            self.names += map(fillers.__getitem__, name_at)
            for at, inner_depth in holes:
                inner = values[at]
                pad = "    " * inner_depth
                if type(inner) is not Body or not inner.runs:
                    raise GenerationError(f"generated source for {self.what}: a hole of {name} holds no runs")
                text = inner.text()
                if not text.startswith(pad) or fillers[at] != text[len(pad):]:
                    raise GenerationError(f"generated source for {self.what}: a hole of {name} is not its runs")
                more = self.runs(inner.runs, inner_depth, name)
                if more is None:
                    return None
                alone += more
        return alone


    def _checked(self, shape: str, fillers: int, name: str, depth: int) -> _Shape:
        """:func:`_check_run` of ``shape`` at ``depth``, unless :attr:`record` says it passed before, then
        :func:`_shape_found`."""
        holes = self.record.holes(shape, fillers, depth)
        if holes is None:
            holes = _check_run(shape, fillers, name, self.what, depth)
            self.record.add(shape, fillers, depth, holes)
        return _shape_found(shape, holes, depth)


def check_planned(source: PlannedSource, what: str, compile_text: Callable[[str, str], object],
                  compile_tail: Callable[[str, str], object] | None = None) -> None:
    """Raise :class:`GenerationError` unless ``source`` compiles, by the argument of the module docstring.
    ``compile_text(text, what)`` is the plain gate, for the text around the validators and the runs
    compiled as they are; ``compile_tail``, if given, that for the text after the validators."""
    compile_text(stand_ins(source.head), what)
    (compile_tail or compile_text)(source.tail, what)
    gate = _Gate(source, what)
    names: list[str] = []
    docs: list[str] = []
    plain: list[tuple[str, str, str]] = []  # (name, doc, body) of defs compiled as they are
    for name, doc, body in source.validators:
        alone = gate.runs(body.runs, 1, name)
        if alone is None:  # compiled with its function, as the module has it
            plain.append((name, doc, body.text()))
        else:
            plain += [("_v", "_doc", text) for text in alone]
        names.append(name)
        docs.append(doc)
    if plain:
        compile_text(validator_defs(plain), what)
    literals, names = gate.literals, names + gate.names
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
    gate.record.save()


def _shape_found(shape: str, holes: dict[int, int], depth: int) -> _Shape:
    """The indexes of the literal and name fillers of a run of ``shape``, their number, its holes and ``depth``."""
    kinds = _kinds(shape)
    return ([i for i, k in enumerate(kinds) if k == "L"], [i for i, k in enumerate(kinds) if k == "N"], len(kinds),
            sorted(holes.items()), depth)


def _kinds(skeleton: str) -> list[str]:
    """The kind of each marker, in filler order (``L`` literal, ``N`` name, ``R`` hole; ``?`` for a number no
    marker has)."""
    found = {int(m[1:]): m[0] for m in skeleton.split("\x00")[1::2]}
    return [found.get(i, "?") for i in range(max(found, default=-1) + 1)]


#: What would make a function's statements compile alone but not in sequence (the symbol table's errors
#: between statements are all about ``global`` and ``nonlocal``), or change what the function is (``yield``,
#: ``await``): refused in a run, which generated code never writes.
_NOT_IN_A_RUN = (ast.Global, ast.Nonlocal, ast.Yield, ast.YieldFrom, ast.Await, ast.NamedExpr)


def _check_run(shape: str, fillers: int, name: str, what: str, depth: int = 1) -> dict[int, int]:
    """Check one shape of a run of statements (:func:`shape_of`) at ``depth``, whose runs have ``fillers``
    fillers: it compiles as the whole body of the innermost block of :func:`_context` in a validator, with every
    marker a name read in an expression and every local stand-in a name (:func:`_check_markers`) and every hole
    a statement of its own where its runs compile as they would in that context (:func:`_hole_depths`); it stays
    inside that block (its statements are the block's, not the function's or the module's), its first statement
    at the block's indentation; it holds nothing of :data:`_NOT_IN_A_RUN`, and its last line does not run on
    into the next (a backslash: what follows it in the module is not what follows it here). The holes' filler
    indexes and depths."""
    markers = re.findall(_MARKER, shape)  # a marker may occur more than once (a path in two messages)
    if {int(m[1:]) for m in markers} != set(range(fillers)):
        raise GenerationError(f"generated source for {what}: the markers of {name} do not match its fillers")
    pad = "    " * depth
    if depth > 1 and not shape[len(pad):len(pad) + 1].isidentifier():
        raise GenerationError(f"generated source for {what}: statements of {name} leave their block")
    text = validator_def("_v", "_doc", _context(depth) + re.sub(_MARKER, r"_h\1", shape))
    try:
        tree = ast.parse(text)
        compile(tree, f"<ek gen {what}: a shape of {name}>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise GenerationError(f"generated source for {what} does not compile (a shape of {name}): {exc}") from exc
    block = _innermost(tree, depth)
    if block is None or not shape.startswith(pad) or shape.endswith("\\"):
        raise GenerationError(f"generated source for {what}: statements of {name} leave their block")
    _check_markers(tree, markers, shape.count(_LOCAL_STAND_IN), name, what)
    holes = [m for m in markers if m[0] == "R"]
    if not holes:
        return {}
    found = _hole_depths(block, depth - 1)
    lines = f"\n{shape}\n"
    for marker in holes:
        at = found.get(marker)
        if at is None or lines.count(f"\n{'    ' * at}\x00{marker}\x00\n") != 1 or markers.count(marker) != 1:
            raise GenerationError(f"generated source for {what}: a hole of {name} is not a statement of its own "
                                  "outside every loop and try")
    return {int(m[1:]): found[m] for m in holes}


def _innermost(tree: ast.Module, depth: int) -> list[ast.stmt] | None:
    """The statements of the innermost block of :func:`_context` in ``tree`` (a validator's ``def`` as
    :func:`validator_def` writes it), or None when the run's statements are not all there: one left the
    function, the module or an ``if _:`` of the context, or made one of those an ``else``."""
    if len(tree.body) != 1 or type(tree.body[0]) is not ast.FunctionDef:
        return None
    statements = tree.body[0].body[1:]  # after the docstring
    for _ in range(depth - 1):
        if len(statements) != 1 or type(statements[0]) is not ast.If or statements[0].orelse:
            return None
        statements = statements[0].body
    return statements


def _hole_depths(block: list[ast.stmt], level: int) -> dict[str, int]:
    """The holes (``_hR3``: an expression statement of one name) among ``block``'s statements, which sit at
    ``level + 1`` (``level`` blocks inside the function), and in the blocks nested in those through ``if``,
    ``else`` and a ``try``'s ``else`` only, each indented one level further: their markers and depths. Such
    blocks push nothing on the compiler's block stack and hold no loop, as :func:`_context`'s; a hole found
    elsewhere (in a loop, a ``try`` body, a handler, an ``elif``) is not in the answer."""
    found: dict[str, int] = {}
    stack = [(block, level)]
    while stack:
        statements, at = stack.pop()
        column = 4 * (at + 1)
        for node in statements:
            if node.col_offset != column:  # an elif (inside its if's orelse, at the if's column)
                continue
            kind = type(node)
            if kind is ast.Expr and type(node.value) is ast.Name and node.value.id.startswith("_hR"):
                found[node.value.id[2:]] = at + 1
            elif kind is ast.If:
                stack += [(node.body, at + 1), (node.orelse, at + 1)]
            elif kind is ast.Try:
                stack.append((node.orelse, at + 1))
    return found


def _check_markers(tree: ast.Module, markers: list[str], locals_: int, name: str, what: str) -> None:
    """Every occurrence of a marker is a name read in an expression, a literal marker's not glued to its next
    token; each of the ``locals_`` local stand-ins (:func:`shape_of`) is a name, read, assigned or deleted (not an
    attribute, a keyword argument, a parameter ...); nothing of :data:`_NOT_IN_A_RUN`."""
    glued = set()  # names whose next token is part of the same expression: `x(`, `x[`, `x.`
    marked = []  # the marker names, in any order
    stand_ins = 0
    stack: list[ast.AST] = [tree]
    while stack:  # ast.walk's nodes (in another order), without its two generators a node
        node = stack.pop()
        kind = type(node)
        if kind is ast.Name:
            if node.id.startswith("_h"):
                if node.id == _LOCAL_STAND_IN:
                    stand_ins += 1
                else:
                    marked.append(node)
            continue
        if kind is ast.Call:
            glued.add(id(node.func))
        elif kind is ast.Subscript or kind is ast.Attribute:
            glued.add(id(node.value))
        elif isinstance(node, _NOT_IN_A_RUN):
            raise GenerationError(f"generated source for {what}: {name} holds a {kind.__name__.lower()} "
                                  "statement or expression")
        for field in node._fields:
            value = getattr(node, field, None)
            if type(value) is list:
                stack += [item for item in value if isinstance(item, ast.AST)]
            elif isinstance(value, ast.AST):
                stack.append(value)
    read = []
    for node in marked:
        marker = node.id[2:]
        if not isinstance(node.ctx, ast.Load) or (marker[0] == "L" and id(node) in glued):
            raise GenerationError(f"generated source for {what}: a marker of {name} sits where its filler "
                                  "cannot go")
        read.append(marker)
    if sorted(read) != sorted(markers):  # every occurrence is a name read in an expression
        raise GenerationError(f"generated source for {what}: a marker of {name} is not a name in an expression")
    if stand_ins != locals_:
        raise GenerationError(f"generated source for {what}: a local name of {name} is not a name")
