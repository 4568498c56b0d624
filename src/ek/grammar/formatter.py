"""``format_source``: the canonical layout of a schema file, keeping its comments.

The text is parsed and checked, printed by the model printer, and comments are
put back by source line: own-line comments above the node that follows them,
end-of-line comments after the line they ended. Blank lines inside a body are
kept (at most one); top-level statements are always one blank line apart.
"""

from __future__ import annotations

from ek.grammar.api import readable_source
from ek.grammar.checker import check
from ek.grammar.comments import scan_comments
from ek.grammar.diagnostics import SchemaError
from ek.grammar.model import GraphGrammar, Location, ToolSpec
from ek.grammar.parser import gc_paused, parse_syntax, too_deep
from ek.grammar.printer import Printer
from ek.grammar.syntax import DocSyn, HeaderSyn, ToolSyn


def format_source(text: str, filename: str = "<string>") -> str:
    """The canonical layout of schema ``text``, comments kept; raises SchemaError on a bad schema.

    >>> print(format_source("# Demo\\ngrammar d 1\\ntool  t{\\n x:int   # the x\\n}"), end="")
    # Demo
    grammar d 1
    <BLANKLINE>
    tool t {
        x: int  # the x
    }
    """
    source = readable_source(text, filename)
    with gc_paused():
        syntax = parse_syntax(source, filename)
    try:
        with gc_paused():
            grammar, diagnostics = check(syntax)
        if grammar is None:
            raise SchemaError(diagnostics, source)
        header = next(d for d in syntax.decls if isinstance(d, HeaderSyn))
        docs = {
            d.loc.line: item.loc
            for d in syntax.decls
            if isinstance(d, ToolSyn)
            for item in d.body.items[:1]
            if isinstance(item, DocSyn)
        }
        return CommentPrinter(grammar, source, header.loc.line, docs).render()
    except RecursionError as exc:
        raise too_deep(filename, source) from exc


class CommentPrinter(Printer):
    """The model printer plus comments and blank lines, placed by source line."""

    def __init__(
        self, grammar: GraphGrammar, source: str, header_line: int, doc_locs: dict[int, Location] | None = None
    ) -> None:
        super().__init__(grammar)
        self.doc_locs = doc_locs or {}  # tool's first line -> where its doc string is
        self.lines = source.split("\n")
        self.pending = scan_comments(source)
        self.pending.reverse()  # consumed from the end: pop() is O(1)
        self.header_line = header_line
        self.last_line = 0  # the last source line accounted for in the output

    def blank_between(self, after: int, before: int) -> bool:
        return any(not self.lines[k - 1].strip() for k in range(after + 1, min(before, len(self.lines) + 1)))

    def emit_comments_before(self, line: int, indent: str, *, top: bool) -> None:
        while self.pending and self.pending[-1].line < line:
            comment = self.pending.pop()
            if self.out and (top or self.last_line) and self.blank_between(self.last_line, comment.line):
                if self.out[-1] != "" and not self.out[-1].endswith("{"):
                    self.out.append("")
            self.out.append(indent + comment.text)
            self.last_line = comment.line

    def leading(self, loc: Location | None, indent: str, *, top: bool = False) -> None:
        if loc is None:  # the header
            self.emit_comments_before(self.header_line, "", top=True)
            if self.out and self.blank_between(self.last_line, self.header_line):
                self.out.append("")
            self.last_line = self.header_line
            return
        if top:
            has_comments = bool(self.pending) and self.pending[-1].line < loc.line
            first_comment = self.pending[-1].line if has_comments else loc.line
            if self.out and self.out[-1] != "":
                self.out.append("")
            self.last_line = max(self.last_line, first_comment - 1) if not self.blank_between(self.last_line, first_comment) else self.last_line
            self.emit_comments_before(loc.line, indent, top=False)
        else:
            self.emit_comments_before(loc.line, indent, top=False)
            if self.last_line and self.blank_between(self.last_line, loc.line) and self.out and not self.out[-1].endswith("{") and self.out[-1] != "":
                self.out.append("")
        self.last_line = loc.line

    def trailing(self, first: int | None, last: int | None) -> str:
        if first is None or last is None:
            return ""
        texts = []
        while self.pending and first <= self.pending[-1].line <= last:
            texts.append(self.pending.pop().text)
        self.last_line = max(self.last_line, last)
        return "  " + " ".join(texts) if texts else ""

    def doc_comments(self, tool: ToolSpec, indent: str) -> str:
        loc = self.doc_locs.get(tool.loc.line) if tool.loc else None
        if loc is None:
            return ""
        self.emit_comments_before(loc.line, indent, top=False)
        return self.trailing(loc.line, loc.end_line)

    def header_suffix(self) -> str:
        return self.trailing(self.header_line, self.header_line)

    def has_comments_inside(self, loc: Location | None) -> bool:
        if loc is None:
            return False
        for comment in reversed(self.pending):  # nearest first; stops at the first one past the block
            if comment.line >= (loc.end_line or loc.line):
                return False
            if comment.line > loc.line:
                return True
        return False

    def closing(self, loc: Location | None, indent: str) -> None:
        if loc is None or loc.end_line is None:
            return
        self.emit_comments_before(loc.end_line, indent, top=False)

    def finish(self) -> None:
        if self.pending:
            self.emit_comments_before(len(self.lines) + 1, "", top=True)
