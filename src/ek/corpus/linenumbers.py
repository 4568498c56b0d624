"""The line numbers of a run's scored episodes, kept as runs of consecutive numbers.

A run keeps one line number per scored episode (``ek compare`` names lines by it, and a summary's per-episode
columns are permuted and merged with it). Most corpora score line after line, with a gap only where a line is
blank or an error, so the numbers are a few runs of consecutive integers: :class:`LineNumbers` keeps each
run's first number and its end, 16 bytes a run, instead of 4 or 8 bytes a line (a million episodes scored in a
row: 32 bytes, not 4 MB). The open run, the last, is extended by one attribute write
(:meth:`LineNumbers.append`); a sequence with no two consecutive numbers costs 16 bytes a number, which only a
corpus whose every other line fails would reach.

>>> lines = LineNumbers()
>>> for number in (1, 2, 3, 5, 6, 9):
...     lines.append(number)
>>> len(lines), list(lines), lines[3], lines.runs()
(6, [1, 2, 3, 5, 6, 9], 5, [(1, 4), (5, 7), (9, 10)])
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import accumulate
from typing import Any

#: The numbers a run may start at: an ``array("q")`` holds the start and the end after it.
_SMALLEST, _LARGEST = -(2**63), 2**63 - 1


class LineNumbers:
    """Line numbers in the order added (any integers that fit 64 bits), as runs ``[start, end)`` of
    consecutive ones: ``starts`` and ``ends`` of the closed runs, and the open run from ``starts[-1]`` to
    ``next`` (the number that would extend it). Mutable, like the summary that holds it."""

    __slots__ = ("_done", "ends", "next", "starts")

    def __init__(self, numbers: Iterable[int] = ()) -> None:
        self.starts: array[int] = array("q")
        self.ends: array[int] = array("q")  # of the closed runs: one fewer than starts while a run is open
        #: the number that extends the open run (None while there is none): ``summary.add`` compares it inline
        self.next: int | None = None
        self._done = 0  # numbers in the closed runs
        for number in numbers:
            self.append(number)

    def append(self, number: int) -> None:
        """Add one number: the open run grows when it is the next one, else a run opens at it."""
        if number == self.next:
            self.next = number + 1
            return
        self._open(number)

    def _open(self, number: int) -> None:
        """Close the open run, if any, and open one at ``number``. A number (or an end) that does not fit 64 bits
        raises OverflowError before anything changes."""
        if not _SMALLEST <= number < _LARGEST:
            raise OverflowError(f"line number {number} does not fit 64 bits")
        if self.next is not None:
            self.ends.append(self.next)
            self._done += self.next - self.starts[-1]
        self.starts.append(number)
        self.next = number + 1

    def runs(self) -> list[tuple[int, int]]:
        """Each run as ``(start, end)``, ``end`` excluded, in order."""
        if self.next is None:
            return []
        return list(zip(self.starts, [*self.ends, self.next], strict=True))

    def __len__(self) -> int:
        return 0 if self.next is None else self._done + self.next - self.starts[-1]

    def __iter__(self) -> Iterator[int]:
        for start, end in self.runs():
            yield from range(start, end)

    def __getitem__(self, index: int) -> int:
        """The ``index``-th number added (negative from the end), in O(runs)."""
        size = len(self)
        if index < 0:
            index += size
        if not 0 <= index < size:
            raise IndexError("line number index out of range")
        runs = self.runs()
        before = list(accumulate((end - start for start, end in runs), initial=0))
        k = bisect_right(before, index) - 1
        return runs[k][0] + index - before[k]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LineNumbers):
            return NotImplemented
        return self.runs() == other.runs()

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        if len(self) <= 8:
            return f"LineNumbers({list(self)!r})"
        return f"LineNumbers(<{len(self)} in {len(self.starts)} runs>)"

    def __getstate__(self) -> tuple[Any, ...]:
        return (self.starts, self.ends, self.next, self._done)

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        self.starts, self.ends, self.next, self._done = state

    def extend(self, later: LineNumbers) -> None:
        """Add ``later``'s numbers after these; its first run joins the open one when it continues it."""
        runs = later.runs()
        if not runs:
            return
        (first_start, first_end), rest = runs[0], runs[1:]
        if first_start == self.next:
            self.next = first_end
        else:
            self._open(first_start)
            self.next = first_end
        for start, end in rest:
            self._open(start)
            self.next = end

    def picked(self, pick: Callable[[Sequence[int]], tuple[int, ...]]) -> LineNumbers:
        """A new column of these numbers reordered by ``pick`` (an ``itemgetter`` of positions, as
        :meth:`ek.corpus.summary.Summary.restore_line_order` permutes every per-episode column)."""
        return LineNumbers(pick(list(self)))

    def shifted(self, offset: int) -> LineNumbers:
        """A new column of these numbers plus ``offset`` (the runs keep their shape)."""
        moved = LineNumbers()
        for start, end in self.runs():
            moved._open(start + offset)
            moved.next = end + offset
        return moved


__all__ = ["LineNumbers"]
