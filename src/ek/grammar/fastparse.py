"""Schema text -> the syntax builder's declarations, read with Lark's own tables in one loop.

The fast path of :func:`ek.grammar.parser.parse_syntax`. Lark's LALR parse of a thousand-tool schema
spends as long in its per-token machinery (a generator and three method calls per token, a ``Token`` made
through two calls, each reduction's rule name compared as a ``Token``, a Python ``__eq__``) as the syntax
builder spends building the tree. This loop takes the same steps from the same sources: the parser's action
table, each parser state's lexer (its one compiled regex, its ignored and line-counting terminals, its
keyword callbacks) and the parser's rule callbacks (the builder, behind Lark's child filters), in the same
order, so it builds the same declarations, with the same tokens and the same escape errors.

What it leaves out is only what a text without a syntax error never reaches: at the first character no
terminal matches, or the first token the table has no action for, it gives up (returns None) and the
caller parses with Lark, whose exception then says what the error is. It keeps nothing between parses but
the tables, so giving up costs only the time spent so far; an exception raised by a builder callback
propagates as it would from Lark's parse, at the same token. When Lark's internals are not as this module
reads them (another Lark version), it never runs: :func:`fast_tables` gives None.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from lark import Lark, Token
from lark.lexer import ContextualLexer
from lark.parsers.lalr_analysis import Shift

#: A reduction: how many values it takes off the stack, the callback that builds its value, the rule's name.
Reduction = tuple[int, Callable[[list[Any]], Any], str]
#: A state's lexing: its regex's ``match``, its ignored terminals, the terminals that may hold a newline (Lark
#: counts lines in those only), and the callbacks by terminal (a keyword read as a name becomes the keyword).
Lexing = tuple[Callable[..., Any], frozenset[str], frozenset[str], dict[str, Callable[[Token], Token]]]


class _GiveUp(Exception):
    """The text has a syntax error (or a state this loop does not read): Lark's parse takes over."""


class FastTables:
    """One Lark parser's tables in the form the loop reads them (made once per parser)."""

    def __init__(self, parser: Lark) -> None:
        frontend = parser.parser
        if not isinstance(frontend.lexer, ContextualLexer):
            raise TypeError("the fast path reads a contextual lexer only")
        table = frontend.parser._parse_table
        callbacks = frontend.parser.parser.callbacks
        self.start_state: int = table.start_states["start"]
        self.end_state: int = table.end_states["start"]
        #: Lark calls a callback on a shifted token whose terminal has one (the builder defines none).
        self.token_callbacks: dict[str, Callable[[Token], Any]] = {
            name: callback for name, callback in callbacks.items() if isinstance(name, str)
        }
        reductions: dict[Any, Reduction] = {}
        #: state -> terminal or rule name (plain ``str``) -> (True, next state) or (False, reduction)
        self.actions: dict[int, dict[str, tuple[bool, Any]]] = {}
        for state, row in table.states.items():
            self.actions[state] = {
                str(name): (True, arg) if action is Shift else
                (False, reductions.setdefault(arg, (len(arg.expansion), callbacks[arg], str(arg.origin.name))))
                for name, (action, arg) in row.items()
            }
        self._lexers = frontend.lexer.lexers
        #: state -> its lexing, filled on first use (Lark compiles a state's regex on first use too)
        self.lexing: dict[int, Lexing] = {}

    def lexing_of(self, state: int) -> Lexing:
        """The lexing of ``state``, read from its Lark lexer; a lexer this loop cannot follow gives up."""
        lexer = self._lexers[state]
        regexes = lexer.scanner._mres  # builds the lexer's scanner and its callbacks when not yet built
        callbacks = lexer.callback
        if len(regexes) != 1 or lexer.ignore_types & callbacks.keys():  # more than 100 terminals; a callback
            raise _GiveUp  # on an ignored terminal (Lark calls it and drops the token): neither is in ek.lark
        lexing = (regexes[0].match, lexer.ignore_types, lexer.newline_types, callbacks)
        self.lexing[state] = lexing
        return lexing


@functools.cache
def fast_tables(parser: Lark) -> FastTables | None:
    """The tables of ``parser`` for :func:`parse_fast`, or None when Lark's internals differ from what it reads."""
    try:
        return FastTables(parser)
    except (AttributeError, KeyError, TypeError):
        return None


def parse_fast(parser: Lark, text: str) -> Any:
    """What ``parser.parse(text)`` returns, or None when ``text`` has a syntax error (Lark's parse then says
    which). The builder's state must be set up before, as for Lark's parse."""
    tables = fast_tables(parser)
    if tables is None:
        return None
    try:
        return _run(tables, text)
    except _GiveUp:
        return None


def _run(tables: FastTables, text: str) -> Any:
    """Lark's contextual lexer and LALR parser over ``text`` as one loop (see the module docstring).

    Per token: the lexer of the state on top of the stack matches at the position; an ignored terminal only
    moves on (counting its lines); another becomes a ``Token`` with Lark's positions (1-based line and
    column, and where it ends), goes through its lexer's callback, then the parser reduces as the table
    says and shifts it. At the end of the text, ``$END`` reduces until the table's end state."""
    actions = tables.actions
    lexing = tables.lexing
    token_callbacks = tables.token_callbacks
    new_token = str.__new__
    state_stack = [tables.start_state]
    value_stack: list[Any] = []
    pos, line, line_start, end = 0, 1, 0, len(text)
    end_state = tables.end_state
    state = state_stack[-1]
    while True:
        if pos < end:
            try:
                match, ignored, multiline, callbacks = lexing[state]
            except KeyError:
                match, ignored, multiline, callbacks = tables.lexing_of(state)
            found = match(text, pos)
            if found is None:
                raise _GiveUp
            kind = found.lastgroup
            value = found.group()
            start, pos = pos, found.end()
            if kind in ignored:
                if kind in multiline and "\n" in value:
                    line += value.count("\n")
                    line_start = start + value.rindex("\n") + 1
                continue
            token = new_token(Token, value)
            token.type, token.value, token.start_pos, token.line, token.column = kind, value, start, line, start - line_start + 1
            if kind in multiline and "\n" in value:
                line += value.count("\n")
                line_start = start + value.rindex("\n") + 1
            token.end_line, token.end_column, token.end_pos = line, pos - line_start + 1, pos
            if kind in callbacks:
                token = callbacks[kind](token)
                kind = token.type
        else:  # the end of the text: "$END" reduces until the table's end state
            kind, token = "$END", None
        while True:  # reduce until the token can be shifted (the end: until the end state)
            try:
                shifts, arg = actions[state][kind]
            except KeyError:
                raise _GiveUp from None
            if shifts:
                if token is None:
                    raise _GiveUp  # a shift of "$END": Lark asserts this never happens
                state = arg
                state_stack.append(state)
                value_stack.append(token if kind not in token_callbacks else token_callbacks[kind](token))
                break
            size, build, name = arg  # a reduction, written out here (it runs once a token or more)
            if size:
                children = value_stack[-size:]
                del state_stack[-size:]
                del value_stack[-size:]
            else:
                children = []
            value_stack.append(build(children))
            state = actions[state_stack[-1]][name][1]
            state_stack.append(state)
            if token is None and state == end_state:
                return value_stack[-1]
