"""The one exception every parser raises: what went wrong, and where."""

from __future__ import annotations

from typing import Union

#: Where an error is: ``(line, column)`` (1-based) in text, a JSON path such as
#: ``"$.tool_calls[0].function.arguments"`` in decoded objects, or ``None``.
Position = Union[tuple[int, int], str, None]


class ParseError(ValueError):
    """A model output that is not a list of tool calls ek can read.

    ``reason`` says why, ``position`` says where (see :data:`Position`) and
    ``format`` names the format that was tried. ``cut_short`` is True when the
    output ends inside a call, a JSON value, a string or a block: a completion
    stopped by ``max_tokens`` rather than a garbled one (its reason says so too).

    >>> err = ParseError("name 'x' is not a literal value", (1, 5), "python")
    >>> str(err)
    "python: line 1, column 5: name 'x' is not a literal value"
    >>> isinstance(err, ValueError), err.position, err.cut_short
    (True, (1, 5), False)
    """

    def __init__(self, reason: str, position: Position = None, format: str = "auto", *,
                 cut_short: bool = False) -> None:
        self.reason = reason
        self.position = position
        self.format = format
        self.cut_short = cut_short
        super().__init__(self._message())

    def _message(self) -> str:
        where = describe_position(self.position)
        return f"{self.format}: {where}: {self.reason}" if where else f"{self.format}: {self.reason}"

    def moved(self, position: Position, format: str | None = None) -> ParseError:
        """The same error placed elsewhere (inside a larger text) or under another format's name.

        >>> ParseError("the output ends inside this string", (1, 3), "python", cut_short=True).moved((4, 7)).cut_short
        True
        """
        return ParseError(self.reason, position, self.format if format is None else format,
                          cut_short=self.cut_short)

    def __reduce__(self) -> tuple[type, tuple[str, Position, str], dict[str, bool]]:
        return (type(self), (self.reason, self.position, self.format), {"cut_short": self.cut_short})


def describe_position(position: Position) -> str:
    """Human form of a :data:`Position`: ``line 3, column 7``, a JSON path, or ``""``."""
    if position is None:
        return ""
    if isinstance(position, tuple):
        return f"line {position[0]}, column {position[1]}"
    return str(position)


def line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based ``(line, column)`` of a character offset in ``text``.

    >>> line_col("ab\\ncd", 4)
    (2, 2)
    """
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column
