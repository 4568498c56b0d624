"""What the text readers share to move through a model's output: skipping the whitespace between tags, finding
the first of a format's tokens, telling an output that stopped inside one, and stepping through an element."""

from __future__ import annotations

from collections.abc import Sequence

from ek.parsing.errors import ParseError, line_col

#: The whitespace templates and models write between tags and around values: spaces, tabs and line breaks.
SPACE = " \t\r\n"


def skip_space(text: str, pos: int, end: int | None = None) -> int:
    """The first position from ``pos`` that is not :data:`SPACE`, looking no further than ``end`` (by default the
    end of ``text``); ``end`` when all of it is.

    >>> skip_space("a \\n\\t b", 1), skip_space("a    b", 1, 3), skip_space("a", 1)
    (5, 3, 1)
    """
    stop = len(text) if end is None else end
    while pos < stop and text[pos] in SPACE:
        pos += 1
    return pos


def rstripped_end(text: str, end: int) -> int:
    """Where ``text[:end].rstrip()`` ends, without copying the text: ``end`` less the whitespace before it (any
    that ``str.rstrip`` strips, not only :data:`SPACE`).

    >>> rstripped_end("a \\u2028\\n b \\t", 7), rstripped_end("a  ", 2), rstripped_end("  ", 2)
    (6, 1, 0)
    """
    while end > 0 and text[end - 1].isspace():
        end -= 1
    return end


def first_of(text: str, tokens: Sequence[str], begin: int, end: int) -> int:
    """Where the first of ``tokens`` to occur in ``text[begin:end]`` starts (each whole within it), or -1.

    >>> first_of("a <b> <c>", ("<c>", "<b>"), 0, 9), first_of("a <b>", ("<b>",), 0, 4)
    (2, -1)
    """
    first = -1
    for token in tokens:
        at = text.find(token, begin, end)
        if at != -1 and (first == -1 or at < first):
            first = at
    return first


def cut_inside(text: str, pos: int, tokens: Sequence[str]) -> bool:
    """Whether ``text[pos:]`` is the start of one of ``tokens`` and not all of it: the output stopped inside that
    token.

    >>> cut_inside("x <|ca", 2, ("<|call|>",)), cut_inside("x <|call|>", 2, ("<|call|>",))
    (True, False)
    """
    # lengths first: the rest is sliced only when it is shorter than a token (readers ask at every call, and a
    # copy of the whole rest each time made reading quadratic)
    rest = len(text) - pos
    return any(rest < len(token) and token.startswith(text[pos:]) for token in tokens)


def next_in_element(text: str, pos: int, end: int, close: str, opened: int, word: str, name: str,
                    fmt: str) -> tuple[int, bool]:
    """Inside the ``word`` of ``name`` opened at ``opened`` and ended by ``close``: where the next thing starts after
    the whitespace from ``pos``, and whether it is ``close``. The output ending first is the error that the element
    is not closed (cut short).

    >>> next_in_element("<invoke name=f> </invoke>", 15, 25, "</invoke>", 0, "invoke", "f", "x")
    (16, True)
    >>> next_in_element("<invoke name=f> ", 15, 16, "</invoke>", 0, "invoke", "f", "x")
    Traceback (most recent call last):
    ...
    ek.parsing.errors.ParseError: x: line 1, column 1: the invoke of 'f' is not closed by </invoke> (output cut short?)
    """
    pos = skip_space(text, pos, end)
    if pos >= end:
        raise ParseError(f"the {word} of {name!r} is not closed by {close} (output cut short?)", line_col(text, opened),
                         fmt, cut_short=True)
    return pos, text.startswith(close, pos)
