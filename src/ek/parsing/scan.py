"""What the text readers share to move through a model's output: skipping the whitespace between tags."""

from __future__ import annotations

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
