"""Tokens -> syntax tree, built by the LALR parser as it reduces each rule (no parse tree).

Every location comes from tokens: keywords and brackets are named terminals in
``ek.lark`` so they stay available to the rule that starts or ends with them.
"""

from __future__ import annotations

import math
import threading
from typing import Any

from lark import Token, Transformer

from ek.grammar.model import Location
from ek.grammar.strings import EscapeError, decode_pattern, decode_string, parse_number, reads_as_zero
from ek.grammar.syntax import (
    ArgSyn,
    BodySyn,
    CompareSyn,
    DocSyn,
    HeaderSyn,
    Lit,
    Num,
    OptionSyn,
    PatternSyn,
    RangeSyn,
    ToolSyn,
    TypeDeclSyn,
    TypeSyn,
)


class SyntaxBuilder(Transformer):  # type: ignore[type-arg]
    """Builds :mod:`ek.grammar.syntax` nodes as the LALR parser reduces rules (no parse tree).

    One instance serves every parse; the file name and the escape errors of the
    parse in progress live in thread-local state, set by ``begin``.
    """

    def __init__(self) -> None:
        super().__init__()
        self._state = threading.local()

    def begin(self, filename: str) -> None:
        self._state.filename = filename
        self._state.errors = []

    @property
    def filename(self) -> str:
        return self._state.filename

    @property
    def token_errors(self) -> list[tuple[Location, str]]:
        return self._state.errors

    # helpers
    def _tok_loc(self, tok: Token) -> Location:
        # Lark's error probing (``accepts()``) feeds position-less tokens: default to 1.
        return Location(self._state.filename, tok.line or 1, tok.column or 1, tok.end_line, tok.end_column)

    def _span(self, first: Any, last: Any) -> Location:
        """From the start of ``first`` to the end of ``last``, each a token, a reduced ``name`` (text, loc),
        a Location or a syntax node. The ends are read from them as they are (a token's as :meth:`_tok_loc`
        reads them), not made a Location each: a thousand-tool file has ten thousand spans."""
        if isinstance(first, Token):
            line, column = first.line or 1, first.column or 1
        else:
            start = _loc_of(first)
            line, column = start.line, start.column
        if isinstance(last, Token):
            end_line, end_column = last.end_line, last.end_column
        else:
            end = _loc_of(last)
            end_line, end_column = end.end_line, end.end_column
        return Location(self._state.filename, line, column, end_line, end_column)

    def _string(self, tok: Token) -> str:
        try:
            return decode_string(str(tok))
        except EscapeError as err:
            start = self._tok_loc(tok)
            column = start.column + err.offset if start.line == tok.end_line else start.column
            loc = Location(self._state.filename, start.line, column, start.line, column + 2)
            self._state.errors.append((loc, str(err)))
            return str(tok)[1:-1]

    def _number(self, tok: Token) -> int | float:
        try:
            value = parse_number(str(tok))
        except ValueError:  # more digits than Python converts
            value = math.inf
        if isinstance(value, float) and not math.isfinite(value):
            self._state.errors.append((self._tok_loc(tok), f"number {str(tok)[:20]!r} is too large"))
            return 1  # reported once here; a placeholder that trips no further check
        if value == 0 and isinstance(value, float) and reads_as_zero(str(tok)):
            # 1e-400 reads as 0.0: a tolerance, bound or default of it would silently be zero
            self._state.errors.append((self._tok_loc(tok), f"number {str(tok)[:20]!r} is too small for a float "
                                                           "(it would read as 0; the smallest is about 5e-324)"))
        return value  # (0.0, what it reads as: reported once here, it trips no further check)

    def _num(self, tok: Token) -> Num:
        return Num(self._number(tok), str(tok), self._tok_loc(tok))

    # top level
    def start(self, children: list[Any]) -> list[Any]:
        return children

    def header(self, children: list[Any]) -> HeaderSyn:
        keyword, (name, _), number = children
        return HeaderSyn(name, self._num(number), self._span(keyword, number))

    def name(self, children: list[Token]) -> tuple[str, Location]:
        tok = children[0]
        value = self._string(tok) if tok.type == "STRING" else str(tok)
        return value, self._tok_loc(tok)

    def type_decl(self, children: list[Any]) -> TypeDeclSyn:
        keyword, name_tok, type_syn, *rest = children
        constraints = tuple(c for c in rest if isinstance(c, (RangeSyn, PatternSyn)))
        doc = next((c for c in rest if isinstance(c, DocSyn)), None)
        last = rest[-1] if rest else type_syn
        return TypeDeclSyn(str(name_tok), self._tok_loc(name_tok), type_syn, constraints, doc, self._span(keyword, last))

    def tool_decl(self, children: list[Any]) -> ToolSyn:
        keyword, (name, name_loc), *rest = children
        weight = next((c for c in rest if isinstance(c, Num)), None)
        body = rest[-1]
        return ToolSyn(name, name_loc, weight, body, self._span(keyword, body))

    def weight(self, children: list[Token]) -> Num:
        return self._num(children[0])

    def body(self, children: list[Any]) -> BodySyn:
        items = tuple(c for c in children[1:-1] if c is not None)
        return BodySyn(items, self._span(children[0], children[-1]))

    def doc(self, children: list[Token]) -> DocSyn:
        return DocSyn(self._string(children[0]), self._tok_loc(children[0]))

    # arguments
    def arg(self, children: list[Any]) -> ArgSyn:
        (name, name_loc), type_syn, *rest = children
        constraints: list[RangeSyn | PatternSyn] = []
        options: list[OptionSyn] = []
        optional: Location | None = None
        doc: DocSyn | None = None
        for part in rest:  # one pass, sorted by kind (the grammar fixes their order)
            if isinstance(part, OptionSyn):
                options.append(part)
            elif isinstance(part, (RangeSyn, PatternSyn)):
                constraints.append(part)
            elif isinstance(part, Location):
                optional = part if optional is None else optional
            elif isinstance(part, DocSyn):
                doc = part if doc is None else doc
        return ArgSyn(
            name=name,
            name_loc=name_loc,
            type=type_syn,
            constraints=tuple(constraints),
            optional=optional,
            options=tuple(options),
            doc=doc,
            loc=self._span(name_loc, rest[-1] if rest else type_syn),
        )

    def optional(self, children: list[Token]) -> Location:
        return self._tok_loc(children[0])

    def default(self, children: list[Any]) -> OptionSyn:
        return OptionSyn("default", children[1], self._span(children[0], children[1]))

    def importance(self, children: list[Token]) -> OptionSyn:
        return OptionSyn("importance", self._num(children[1]), self._span(children[0], children[1]))

    def compare(self, children: list[Any]) -> OptionSyn:
        keyword, name_tok = children[0], children[1]
        args = children[2] if len(children) > 2 else None
        policy = CompareSyn(str(name_tok), args[0] if args else None, self._tok_loc(name_tok))
        return OptionSyn("compare", policy, self._span(keyword, args[1] if args else name_tok))

    def compare_args(self, children: list[Any]) -> tuple[tuple[Lit, ...], Token]:
        return tuple(c for c in children[:-1] if c is not None), children[-1]

    # types
    def named_type(self, children: list[Token]) -> TypeSyn:
        return TypeSyn("name", self._tok_loc(children[0]), name=str(children[0]))

    def enum_type(self, children: list[Any]) -> TypeSyn:
        return TypeSyn("enum", self._span(children[0], children[-1]), members=tuple(children[1:-1]))

    def member(self, children: list[Token]) -> tuple[str | int | float, Location]:
        """A member: the text of a name or string, the value of a number (the checker allows integers only)."""
        tok = children[0]
        if tok.type == "NUMBER":
            return self._number(tok), self._tok_loc(tok)
        return (self._string(tok) if tok.type == "STRING" else str(tok)), self._tok_loc(tok)

    def list_type(self, children: list[Any]) -> TypeSyn:
        item = children[1]
        return TypeSyn("list", self._span(children[0], children[-1]), item=item, depth=item.depth + 1)

    def object_type(self, children: list[Any]) -> TypeSyn:
        body = children[0]
        inner = max((a.type.depth for a in body.items if isinstance(a, ArgSyn)), default=0)
        return TypeSyn("object", body.loc, body=body, depth=inner + 1)

    def constraint(self, children: list[Any]) -> RangeSyn | PatternSyn:
        child = children[0]
        if isinstance(child, Token):
            return PatternSyn(decode_pattern(str(child)), self._tok_loc(child))
        return child

    def range(self, children: list[Any]) -> RangeSyn:
        open_tok, lo, hi, close_tok = children
        return RangeSyn(
            self._num(lo) if lo is not None else None,
            self._num(hi) if hi is not None else None,
            self._span(open_tok, close_tok),
        )

    # literals
    def number_lit(self, children: list[Token]) -> Lit:
        return Lit("number", self._number(children[0]), self._tok_loc(children[0]))

    def string_lit(self, children: list[Token]) -> Lit:
        return Lit("string", self._string(children[0]), self._tok_loc(children[0]))

    def name_lit(self, children: list[Token]) -> Lit:
        return Lit("name", str(children[0]), self._tok_loc(children[0]))

    def list_lit(self, children: list[Any]) -> Lit:
        items = tuple(c for c in children[1:-1] if c is not None)
        depth = 1 + max((item.depth for item in items), default=0)
        return Lit("list", items, self._span(children[0], children[-1]), depth)

    def object_lit(self, children: list[Any]) -> Lit:
        pairs = tuple(c for c in children[1:-1] if c is not None)
        depth = 1 + max((value.depth for _, _, value in pairs), default=0)
        return Lit("object", pairs, self._span(children[0], children[-1]), depth)

    def pair(self, children: list[Any]) -> tuple[str, Location, Lit]:
        (key, key_loc), value = children
        return key, key_loc, value


def _loc_of(part: Any) -> Location:
    """The location of a reduced ``name`` (text, loc), a Location or a syntax node (not a token)."""
    if isinstance(part, tuple):
        return part[1]
    return part if isinstance(part, Location) else part.loc


#: The builder the shared parser runs; :func:`ek.grammar.parser.parse_syntax` calls ``begin`` first.
BUILDER = SyntaxBuilder()

