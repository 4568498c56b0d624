"""Diagnostics of the DSL: one frozen record per problem, rendered like a compiler.

``FILE:LINE:COL: error: MESSAGE``, then the source line and a caret under the
offending token. :class:`SchemaError` carries every diagnostic of a file at once.
"""

from __future__ import annotations

import difflib
import unicodedata
from collections.abc import Iterable, Sequence

import attrs

from ek.grammar.model import Location
from ek.terminaltext import escaped, replaced


@attrs.frozen
class Diagnostic:
    """One problem in a schema file; ``line``/``column`` are 1-based.

    ``message`` is the full sentence (including any "did you mean" hint);
    ``suggestion`` is the suggested replacement on its own, when there is one.
    ``length`` is how many characters the caret underlines.
    """

    file: str
    line: int
    column: int
    message: str
    severity: str = "error"
    suggestion: str | None = None
    length: int = 1

    def to_json(self) -> dict[str, object]:
        """The diagnostic as plain data (``ek lint --json`` prints one per line); ``end_column`` is exclusive."""
        return {
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "end_column": self.column + self.length,
            "severity": self.severity,
            "message": self.message,
            "suggestion": self.suggestion,
        }

    @property
    def header(self) -> str:
        """The first line of the report: ``FILE:LINE:COL: error: MESSAGE``."""
        # the file name too: a schema found by a glob may be named with an ESC sequence (`ek fmt --check *.ek`)
        return f"{shown(self.file)}:{self.line}:{self.column}: {self.severity}: {shown(self.message)}"

    def render(self, source: str | None = None) -> str:
        """The header, plus the source line and a caret when ``source`` is given.

        >>> d = Diagnostic("t.ek", 1, 6, "unknown type 'strng'; did you mean 'str'?", length=5)
        >>> print(d.render("x: y strng"))
        t.ek:1:6: error: unknown type 'strng'; did you mean 'str'?
            x: y strng
                 ^^^^^
        """
        if source is None:
            return self.header
        return self.render_lines(source.split("\n"))

    def render_lines(self, lines: Sequence[str]) -> str:
        """Like :meth:`render`, from the source already split at ``\n`` (as the parser counts lines)."""
        if not 1 <= self.line <= len(lines):
            return self.header
        line = lines[self.line - 1]
        size = len(line) - 1 if line.endswith("\r") else len(line)
        column = self.column
        # the shown part is cut from the line before anything else is done with it: many errors on one long line
        # each made a cleaned copy of all of it, quadratic (a character replaced is one, so positions hold)
        if size > _SHOWN_WIDTH:  # show a window around the error, not a 100k-character line
            start = max(0, column - 1 - _SHOWN_WIDTH // 3)
            end = min(start + _SHOWN_WIDTH, size)
            text = ("..." if start else "") + replaced(line[start:end], keep="\t") + ("..." if end < size else "")
            column = column - start + (3 if start else 0)
        else:
            text = replaced(line[:size], keep="\t")  # one cell each: carets stay put
        # Keep tabs as tabs so the caret lines up whatever the terminal's tab width; wide
        # characters (CJK, most emoji) take two cells, combining marks none.
        pad = "".join("\t" if ch == "\t" else " " * _cells(ch) for ch in text[: column - 1])
        width = max(1, min(self.length, max(1, len(text) - column + 1)))
        token = text[column - 1 : column - 1 + width]
        carets = max(1, sum(_cells(ch) for ch in token)) if token else width
        return f"{self.header}\n    {text}\n    {pad}{'^' * carets}"


def shown(message: str) -> str:
    """``message`` (or a file name) with each character that is not printable written as its escape (``\\x1b``,
    :func:`ek.terminaltext.escaped`): what the schema commands print of text they did not write, so it cannot
    drive the terminal."""
    return escaped(message)


#: Source lines longer than this are shown as a window of this many characters around the error.
_SHOWN_WIDTH = 120


def _cells(ch: str) -> int:
    """Terminal cells a character takes: 2 for wide East Asian characters, 0 for combining marks."""
    if unicodedata.combining(ch):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def diagnostic_at(
    loc: Location, message: str, *, suggestion: str | None = None, length: int | None = None
) -> Diagnostic:
    """A diagnostic pointing at ``loc``, underlining it when its end is on the same line."""
    if length is None:
        length = 1
        if loc.end_line == loc.line and loc.end_column is not None:
            length = max(1, loc.end_column - loc.column)
    return Diagnostic(loc.file, loc.line, loc.column, message, suggestion=suggestion, length=length)


def did_you_mean(word: str, candidates: Iterable[str]) -> str | None:
    """The closest candidate to a misspelt ``word``, if any is close enough.

    >>> did_you_mean("strng", ["str", "int", "Airport"])
    'str'
    >>> did_you_mean("zzz", ["str"]) is None
    True
    """
    matches = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    return matches[0] if matches else None


def one_edit_apart(word: str, known: str) -> bool:
    """True when ``word`` is ``known`` misspelt by one edit: a character added, dropped or replaced, two
    neighbours swapped, or letters in another case; never a plural (``known`` + "s" names something else:
    ``tasks`` beside ``task``). A name shorter than four characters is misspelt only by case (one edit turns
    ``id`` into ``ip``, another name). Strict enough to refuse an input on: ``did_you_mean`` is for hints.

    >>> [one_edit_apart(w, "task") for w in ("taks", "tsk", "tasj", "Task", "tassk", "tasks", "task", "golds")]
    [True, True, True, True, True, False, False, False]
    >>> one_edit_apart("grammer", "grammar"), one_edit_apart("golden", "gold"), one_edit_apart("ID", "id")
    (True, False, True)
    >>> one_edit_apart("ip", "id"), one_edit_apart("Id", "id")
    (False, True)
    """
    if abs(len(word) - len(known)) > 1 or word == known or word == known + "s":  # lengths first: a long key is
        return False                                                          # never copied or lowered
    if word.lower() == known.lower():
        return True
    if len(known) < 4:
        return False
    head = 0
    limit = min(len(word), len(known))
    while head < limit and word[head] == known[head]:
        head += 1
    if len(word) == len(known):
        rest, other = word[head + 1:], known[head + 1:]
        swapped = head + 1 < len(word) and word[head] == known[head + 1] and word[head + 1] == known[head]
        return rest == other or (swapped and word[head + 2:] == known[head + 2:])
    if len(word) > len(known):
        return word[head + 1:] == known[head:]
    return word[head:] == known[head + 1:]


class Suggester:
    """:func:`did_you_mean` on a budget, so a file of thousands of misspellings among thousands of names
    checks in linear time: each lookup spends one unit per candidate, and once ``budget`` is spent the
    errors are still reported, only without a suggestion.

    >>> suggest = Suggester(budget=4)
    >>> suggest("strng", ["str", "int", "float"]), suggest("flot", ["str", "int", "float"]), suggest("bol", ["bool"])
    ('str', None, 'bool')
    """

    def __init__(self, budget: int = 30_000) -> None:
        self.left = budget

    def __call__(self, word: str, candidates: Iterable[str]) -> str | None:
        pool = candidates if isinstance(candidates, (list, tuple)) else list(candidates)
        if len(pool) > self.left:
            return None
        self.left -= len(pool)
        return did_you_mean(word, pool)


def render_all(diagnostics: Sequence[Diagnostic], sources: dict[str, str] | None = None) -> str:
    """Every diagnostic, each with its source line when the file's text is known."""
    split = {name: text.split("\n") for name, text in (sources or {}).items()}  # once per file, not per error
    return "\n".join(d.render_lines(split[d.file]) if d.file in split else d.header for d in diagnostics)


class SchemaError(ValueError):
    """A schema that cannot be used; ``str()`` is the full report of every problem.

    ``diagnostics`` is a tuple of :class:`Diagnostic`, sorted by position.
    """

    def __init__(self, diagnostics: Iterable[Diagnostic], source: str | None = None) -> None:
        diags = tuple(sorted(diagnostics, key=lambda d: (d.file, d.line, d.column)))
        self.diagnostics: tuple[Diagnostic, ...] = diags
        self.source = source
        sources = {d.file: source for d in diags} if source is not None else {}
        super().__init__(render_all(diags, sources))

    def __str__(self) -> str:
        return str(self.args[0])

    def __reduce__(self) -> tuple[type[SchemaError], tuple[tuple[Diagnostic, ...], str | None]]:
        # Rebuild from the diagnostics (not the rendered text), e.g. across a process pool.
        return (type(self), (self.diagnostics, self.source))
