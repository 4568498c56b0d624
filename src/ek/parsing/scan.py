"""What the text readers share to move through a model's output: skipping the whitespace between tags, finding
the first of a format's tokens, and telling an output that stopped inside one."""

from __future__ import annotations

from collections.abc import Sequence

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
    rest = text[pos:]
    return any(len(rest) < len(token) and token.startswith(rest) for token in tokens)
