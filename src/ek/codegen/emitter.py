"""GraphGrammar -> Python module source, and writing modules to disk atomically.

The pipeline is one direction: plan names, plan validators and classes,
lay the module out (:mod:`ek.codegen.layout`), ``compile()`` the result (so it parses), and only then write.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ek.atomicfile import write_text_atomic
from ek.codegen.classes import ClassPlanner
from ek.codegen.errors import GenerationError
from ek.codegen.fingerprint import grammar_sha256, schema_path
from ek.codegen.layout import index_source, module_parts, tool_validator_source, validator_defs
from ek.codegen.literals import LiteralError, py_literal, py_literal_block
from ek.codegen.naming import MODULE_NAMES, module_filename, module_stem, tool_names
from ek.codegen.shapes import PlannedSource, check_planned, run_counts, shapes_pay
from ek.codegen.toolplan import TOOL_VALIDATOR_NAME, ToolValidatorPlan
from ek.codegen.validators import LOCAL_MARK, Tables, ValidatorEmitter
from ek.grammar.extent import Extent, type_extent
from ek.grammar.model import FieldSpec, GraphGrammar, ListType, Location, ObjectType, ToolSpec
from ek.grammar.tables import grammar_to_table
from ek.limits import SCHEMA_MAX_TYPE_NODES

#: The layout generated modules follow; ek.runtime refuses modules with a version it cannot read.
#: 3: ``GRAMMAR_SHA256`` (the grammar's content) and ``SCHEMA_PATH`` replace ``SOURCE_SHA256``
#: (the schema file's bytes), and validators no longer carry schema line numbers, so an edit
#: that only touches comments or layout leaves the module byte-identical.
#: 4: classes, ``TOOLS`` and ``GRAMMAR`` are built on first use (``ek.runtime.support.lazy_module``), so
#: importing a module of a thousand tools costs its validators, not a thousand attrs classes.
#: 5: classes are rows of plain data that ``ek.runtime.classes`` builds from, not factory functions of
#: source, and the class and grammar tables are JSON text in string literals: the module's text (what
#: ``ek gen`` compile-checks and the first import compiles) is the validators and little else.
GENERATOR_VERSION = 5


#: Source compiled at a time by :func:`compile_checked`: CPython's compiler needs about a hundred times the
#: source in memory, so a module of tens of megabytes (thousands of tools) is checked in pieces.
_COMPILED_AT_ONCE = 256 * 1024


def compile_checked(source: str, what: str) -> str:
    """``source`` once it compiles; :class:`GenerationError` if not. The gate every module passes
    before it is written: stricter than ``ast.parse`` (CPython's block-nesting and other
    compile-time limits) and twice as fast on large modules, as no AST objects are built.

    Compiled a run of top-level statements at a time (every limit ``compile`` checks is per
    statement or per function), so memory follows the largest piece, not the whole module. A module
    from :func:`render` whose validators share shapes is checked by them (:mod:`ek.codegen.shapes`):
    each distinct shape once, and the text around them as it is."""
    if isinstance(source, PlannedSource) and shapes_pay(run_counts(source)):
        check_planned(source, what, _compile_pieces, _compile_tables)
        return source
    _compile_pieces(source, what)
    return source


def _compile_pieces(source: str, what: str) -> None:
    """:func:`compile_checked` of plain text, a run of top-level statements at a time."""
    for first_line, piece in _statement_runs(source):
        _compile_piece(piece, what, first_line)


def _compile_piece(piece: str, what: str, first_line: int) -> None:
    try:
        compile(piece, f"<ek gen {what}>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:  # pragma: no cover - a generator bug
        raise GenerationError(f"generated source for {what} does not compile (after line {first_line}): "
                              f"{exc}") from exc


def _compile_tables(source: str, what: str) -> None:
    """:func:`_compile_pieces` of the text after a module's validators, whole up to eight pieces' size (2 MB):
    it is data (``VALIDATORS`` and the JSON tables, string literals one a line), which takes a few times its
    size to compile, not a hundred, and cutting the 1 MB of a thousand tools' took a third of its compiling."""
    if len(source) > 8 * _COMPILED_AT_ONCE:
        _compile_pieces(source, what)
    else:
        _compile_piece(source, what, 1)


#: The gate's former, private name (tests call it).
_parsed = compile_checked


def _statement_runs(source: str) -> Iterator[tuple[int, str]]:
    """``source`` cut between top-level statements into pieces of about :data:`_COMPILED_AT_ONCE`
    characters, with the line each starts at. Generated code starts a statement at column 0 with a
    name, a keyword or a decorator; closing brackets and indented lines continue one. A table larger
    than a piece (``NAME = {`` ... ``}``, one item per line) is checked a run of items at a time."""
    lines = source.splitlines(keepends=True)
    starts = [n for n, line in enumerate(lines)
              if n == 0 or ((line[:1].isidentifier() or line[:1] == "@") and not lines[n - 1].startswith("@"))]
    run: list[str] = []
    run_start, size = 0, 0
    for n, end in zip(starts, [*starts[1:], len(lines)]):
        statement = lines[n:end]
        length = sum(map(len, statement))
        if run and size + length > _COMPILED_AT_ONCE:
            yield run_start + 1, "".join(run)
            run, size = [], 0
        if length > _COMPILED_AT_ONCE and _table_end(statement) is not None:
            yield from _table_runs(n, statement)
            continue
        if not run:
            run_start = n
        run += statement
        size += length
    if run:
        yield run_start + 1, "".join(run)


def _table_end(statement: list[str]) -> int | None:
    """The index of the line closing a ``NAME = {`` table (comments and blank lines may follow), or None."""
    closing = {"{": "}", "(": ")", "[": "]"}.get(statement[0].rstrip()[-1:])
    end = len(statement) - 1
    while end > 0 and (not statement[end].strip() or statement[end].startswith("#")):
        end -= 1
    return end if closing is not None and end > 1 and statement[end].rstrip() == closing else None


def _table_runs(first: int, statement: list[str]) -> Iterator[tuple[int, str]]:
    """A table written one item per line (:func:`~ek.codegen.literals.py_literal_block`: an opening
    bracket ends a line, a closing one starts a line) as pieces of items, each closed and reopened with
    the brackets around it, cut where an item starts (``NAME = {`` + items + ``}``, ``'tools': (`` ...)."""
    open_lines: list[str] = []  # the lines whose bracket is open here, outermost first
    reopened: list[str] = []  # those open where the current piece starts
    piece: list[str] = []
    size = 0
    for line in statement:
        stripped = line.lstrip(" ")
        item_start = len(line) - len(stripped) == 4 * len(open_lines) and stripped[:1] not in ")]}\n"
        if size > _COMPILED_AT_ONCE and item_start and open_lines:
            yield first + 1, "".join(reopened) + "".join(piece) + _closers(open_lines)
            reopened, piece, size = list(open_lines), [], 0
        piece.append(line)
        size += len(line)
        if stripped[:1] in ")]}":
            open_lines.pop()
        elif line.rstrip()[-1:] in "([{" and line.strip():
            open_lines.append(line)
    yield first + 1, "".join(reopened) + "".join(piece)


def _closers(open_lines: list[str]) -> str:
    """The lines that close ``open_lines``, innermost first (``    ),`` inside, ``}`` at the top)."""
    out = []
    for line in reversed(open_lines):
        indent = len(line) - len(line.lstrip(" "))
        bracket = {"(": ")", "[": "]", "{": "}"}[line.rstrip()[-1]]
        out.append(" " * indent + bracket + ("," if indent else "") + "\n")
    return "".join(out)


def generate(grammar: GraphGrammar, out_dir: str | os.PathLike[str] | None = None) -> str:
    """The source of the module for one grammar version; deterministic for equal input.

    ``out_dir``: the folder the module will be written to, so it records where its schema is
    (``SCHEMA_PATH``, relative to that folder); without it the module records only the file name.
    The source has compiled (so it passes ``ast.parse``); :class:`GenerationError` says why not
    (it is never written then).
    """
    return str(compile_checked(render(grammar, out_dir), grammar.key))  # plain text: the plan is let go


@contextmanager
def _literals_checked() -> Iterator[None]:
    """A schema value no literal can hold (a lone surrogate, an object built in code) is the grammar's
    fault, not a generator bug: say so as a GenerationError."""
    try:
        yield
    except LiteralError as err:
        raise GenerationError(f"cannot generate: {err}") from None


def check_size(grammar: GraphGrammar, tools: Iterable[ToolSpec]) -> None:
    """Raise :class:`GenerationError` when ``tools``' types, each named type written out where it is used, pass
    :data:`ek.limits.SCHEMA_MAX_TYPE_NODES`: the code written spells every one out. ``ek lint`` refuses such a
    schema; this guards a grammar built in code, which never went through it (a few named types that each use
    the one before twice double the code at each step)."""
    aliases = {alias.name: alias for alias in grammar.types}
    memo: dict[str, Extent] = {}
    nodes = 0
    for tool in tools:
        for spec in tool.fields:
            nodes += type_extent(spec.type, aliases, memo).nodes
            if nodes > SCHEMA_MAX_TYPE_NODES:
                raise GenerationError(f"tool {tool.name!r}: the tools' types pass {SCHEMA_MAX_TYPE_NODES} type nodes "
                                      f"(SCHEMA_MAX_TYPE_NODES) at argument {spec.name!r}, with each named type "
                                      "written out where it is used")


def render(grammar: GraphGrammar, out_dir: str | os.PathLike[str] | None = None) -> str:
    """The module source without the compile gate, for callers that ``compile()`` it at once
    (compiling parses too, so checking first would parse a large module twice).

    Nothing here depends on schema comments, layout or line numbers: only the grammar's content,
    the schema's file name and its path relative to ``out_dir``."""
    check_size(grammar, grammar.tools)
    with _literals_checked():
        taken = set(MODULE_NAMES)
        names = tool_names(grammar, taken)
        tables = Tables()
        checks = ValidatorEmitter(grammar, tables)
        planner = ClassPlanner(grammar, taken)
        validators = []
        for tool, tn in zip(grammar.tools, names):
            validators.append((tn.validator, _validator_doc(tool.name), checks.planned_body(tool.fields, holes=True)))
            planner.tool_class(tn.cls, tool.name, tn.validator, tool.doc, tool.fields)
        schema_file = Path(grammar.source_path).name if grammar.source_path else None
        table = grammar_to_table(grammar)
        classes, grammar_table = _data_tables(grammar, table, planner)
        head, tail = module_parts(
            module_doc=py_literal(f"Tools of grammar {grammar.key}: typed classes, validators and cost tables."),
            generator_version=GENERATOR_VERSION,
            stamps=(
                ("GRAMMAR_NAME", py_literal(grammar.name)),
                ("GRAMMAR_VERSION", py_literal(grammar.version)),
                ("GRAMMAR_SHA256", py_literal(grammar_sha256(grammar, table))),
                ("SCHEMA_FILE", py_literal(schema_file)),
                ("SCHEMA_PATH", py_literal(schema_path(grammar, out_dir))),
            ),
            tables=tables.assignments(),
            validators=[(py_literal(tool.name), name) for tool, (name, _, _) in zip(grammar.tools, validators)],
            tool_weights=_json_mapping({t.name: t.weight for t in grammar.tools}),
            arg_importance=_json_mapping({t.name: {f.name: f.importance for f in t.fields} for t in grammar.tools}),
            compare_policies=_json_mapping(
                {t.name: {f.name: None if f.compare is None else str(f.compare) for f in t.fields} for t in grammar.tools}
            ),
            classes=classes,
            grammar_table=grammar_table,
        )
        text = "".join([head, validator_defs((name, doc, body.text()) for name, doc, body in validators), tail])
        source = PlannedSource(text, head, tail, validators)
    return source


def render_tool_validator(grammar: GraphGrammar, tool: ToolSpec) -> str:
    """A small module defining ``validate_args(args)`` for one tool of ``grammar``: the body and
    tables the full module would have for it, so a grammar of thousands of tools can be validated
    without generating (or importing classes for) the tools a corpus never calls."""
    return plan_tool_validator(grammar, tool).text()


def plan_tool_validator(grammar: GraphGrammar, tool: ToolSpec) -> ToolValidatorPlan:
    """:func:`render_tool_validator`'s module as a :class:`ToolValidatorPlan`."""
    check_size(grammar, (tool,))
    strings: list[str] = []

    def mark(value: str) -> str:
        strings.append(value)
        return f"\x00{len(strings) - 1}\x00"

    with _literals_checked():
        tables = Tables()
        body = ValidatorEmitter(grammar, tables).planned_body(tool.fields)
        runs = []
        for run in body.runs:
            parts = run.skeleton.split("\x00")
            for i in range(1, len(parts), 2):
                at = int(parts[i][1:])
                value = run.values[at]
                # a string literal becomes a string marker; a name, number, bool or None is written in the shape
                parts[i] = mark(value) if parts[i][0] == "L" and type(value) is str else run.fillers[at]
            runs.append("".join(parts).replace(LOCAL_MARK, ""))
        origin = _origin(tool.loc)
        skeleton = tool_validator_source(
            module_doc=py_literal(f"The validator of tool {tool.name!r} of grammar {grammar.key}.", mark),
            generator_version=GENERATOR_VERSION,
            tables=tables.assignments(mark),
            origin="\x00O\x00" if origin else "",
            name=TOOL_VALIDATOR_NAME,
            doc=py_literal(_validator_doc_text(tool.name), mark),
            body="\n".join(runs),
        )
    return ToolValidatorPlan(skeleton, tuple(strings), origin)


def _validator_doc(tool_name: str) -> str:
    return py_literal(_validator_doc_text(tool_name))


def _validator_doc_text(tool_name: str) -> str:
    return f"Violations of the arguments of {tool_name!r}; [] when they fit the schema."


def generate_index(grammars: Iterable[GraphGrammar | tuple[str, int]]) -> str:
    """The package ``__init__.py``: ``VERSIONS`` maps each ``NAME@VERSION`` to its module, sorted.

    ``grammars``: grammars, or ``(name, version)`` pairs of modules already in the folder.
    """
    pairs = sorted({g if isinstance(g, tuple) else (g.name, g.version) for g in grammars})
    versions = [(py_literal(f"{n}@{v}"), py_literal(module_stem(n, v))) for n, v in pairs]
    keys = ", ".join(f"{n}@{v}" for n, v in pairs)
    source = index_source(
        module_doc=py_literal(f"Generated grammar modules: {keys or 'none'}."),
        generator_version=GENERATOR_VERSION,
        versions=versions,
    )
    return compile_checked(source, "the package index")


def _origin(loc: Location | None) -> str:
    """``# schema line 12``: where a tool came from, for tracebacks of in-memory validators (numbers
    only). Files written by ``ek gen`` leave it out, so a comment above a tool does not make them stale."""
    return "" if loc is None else f"# schema line {int(loc.line)}"


def _data_tables(grammar: GraphGrammar, table: dict[str, Any], planner: ClassPlanner) -> tuple[str, str]:
    """The literals of ``_CLASSES`` and ``_GRAMMAR_TABLE``: JSON text (one class, one tool a line), which
    compiles as one string and decodes in C on first use; or, for a grammar JSON cannot hold exactly (a
    tuple, a non-string key or NaN among its defaults), the same data as Python literals."""
    rows = {plan.name: plan.row() for plan in planner.plans}
    tools = [_json(row) for row in table["tools"]]
    head = _json({k: v for k, v in table.items() if k not in ("tools", "types")})[:-1]
    grammar_json = [f"{head}, \"tools\": [", *_commas(tools), f"], \"types\": {_json(table['types'])}}}"]
    if not all(_json_exact(default) for default in _defaults(grammar)):
        return py_literal_block(rows, levels=1), py_literal_block(table, levels=2)
    classes = ["{", *_commas([f"{_json(name)}: {_json(row)}" for name, row in rows.items()]), "}"]
    return _json_literal(classes), _json_literal(grammar_json)


def _defaults(grammar: GraphGrammar) -> Iterator[Any]:
    """Every field default of a grammar, nested ones too (in its table, the only values that are not names,
    numbers, strings or the table's own structure, whose tuples ``grammar_from_table`` reads as lists alike)."""
    stack: list[Any] = [f for t in grammar.tools for f in t.fields]
    stack += [a.type for a in grammar.types]
    while stack:
        item = stack.pop()
        if isinstance(item, FieldSpec):
            if item.has_default:
                yield item.default
            stack.append(item.type)
        elif isinstance(item, ObjectType):
            stack.extend(item.fields)
        elif isinstance(item, ListType):
            stack.append(item.item)


def _json_exact(value: Any) -> bool:
    """Whether JSON gives ``value`` back equal and of the same types (no tuple, set, non-str key, NaN)."""
    if value is None or type(value) in (str, bool, int):
        return True
    if type(value) is float:
        return math.isfinite(value)
    if type(value) is list:
        return all(_json_exact(v) for v in value)
    if type(value) is dict:
        return all(type(k) is str and _json_exact(v) for k, v in value.items())
    return False


_JSON = json.JSONEncoder(ensure_ascii=False)  # one encoder: json.dumps with options makes one a call


def _json(value: Any) -> str:
    return _JSON.encode(value)


def _json_mapping(value: dict[str, Any]) -> str:
    """A table of names, numbers and strings as JSON text, one key a line; JSON holds all of those exactly
    (Python's JSON writes and reads back ``Infinity`` and ``NaN`` too)."""
    return _json_literal(["{", *_commas([f"{_json(k)}: {_json(v)}" for k, v in value.items()]), "}"])


def _commas(items: list[str]) -> list[str]:
    return [item + "," for item in items[:-1]] + items[-1:]


def _json_literal(pieces: list[str]) -> str:
    """JSON text as adjacent string literals, one piece a line, in parentheses (a string of one line would
    hold the whole table)."""
    return "(\n" + "".join(f"    {py_literal(piece)}\n" for piece in pieces) + ")"


#: Write a file in one step (``ek.atomicfile``); kept under the name ``ek.codegen`` exports.
write_atomic = write_text_atomic


def write_modules(grammars: Iterable[GraphGrammar], out_dir: str | os.PathLike[str]) -> list[Path]:
    """Generate and write one module per grammar into ``out_dir``; returns the paths written.

    Everything is generated (and parsed) before the first file is written, so a
    failure leaves ``out_dir`` untouched.
    """
    out = Path(out_dir)
    rendered = [(out / module_filename(g), generate(g, out)) for g in grammars]
    for path, text in rendered:
        write_atomic(path, text)
    return [path for path, _ in rendered]
