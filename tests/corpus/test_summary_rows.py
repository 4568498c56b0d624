"""The per-episode rows a run keeps for the bootstrap: compact while they fit, the same numbers either way."""

from __future__ import annotations

from array import array
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from ek.corpus.summary import Summary
from ek.scorer.accounting import Score


def _run(counts: list[tuple[object, object, object]], first_line: int = 1) -> Summary:
    summary = Summary()
    for k, (tp, fp, fn) in enumerate(counts):
        summary.add(first_line + k, None, Score(tp=tp, fp=fp, fn=fn), None)
    return summary


def test_whole_counts_stay_compact_and_read_as_the_same_numbers():
    summary = _run([(2, 0, 1), (0, 3, 0)])
    assert [a.typecode for a in summary.rows()] == ["B", "B", "B"]
    assert [list(map(float, col)) for col in summary.rows()] == [[2.0, 0.0], [0.0, 3.0], [1.0, 0.0]]
    assert list(summary.lines) == [1, 2] and summary.lines.runs() == [(1, 3)]


def test_a_count_that_does_not_fit_widens_the_column_and_keeps_every_value():
    summary = _run([(1, 0, 0), (Fraction(1, 2), 70_000, 300)], first_line=2**32 - 1)
    tp, fp, fn = summary.rows()
    assert (tp.typecode, fp.typecode, fn.typecode) == ("d", "d", "H")
    assert list(tp) == [1.0, 0.5] and list(fp) == [0.0, 70_000.0] and list(fn) == [0, 300]
    assert list(summary.lines) == [2**32 - 1, 2**32]


def test_merging_a_compact_and_a_widened_chunk_keeps_line_order_and_values():
    first, later = _run([(1, 1, 0)]), _run([(2.5, 300, 1)], first_line=2)
    first.merge(later)
    tp, fp, fn = first.rows()
    assert tp == array("d", [1.0, 2.5]) and tp.typecode == "d" and fp.typecode == "H" and fn.typecode == "B"
    assert list(fp) == [1, 300] and list(first.lines) == [1, 2] and first.tp == Fraction(7, 2)
    assert first.lines.runs() == [(1, 3)]  # the chunk's line continues the open run


def test_lines_in_a_row_cost_one_run_and_a_byte_a_count():
    """What keeps a long run's memory flat: per episode, three counts of a byte and an exact flag; its line
    number extends one run (a row of 200,000 scored lines, or of a million, is two 64-bit numbers)."""
    summary = Summary()
    score = Score(tp=2, fp=0, fn=1)
    for line in range(1, 200_001):
        summary.add(line, None, score, None)
    assert summary.episodes == 200_000 and summary.lines.runs() == [(1, 200_001)]
    assert [c.itemsize * len(c) for c in summary.rows()] == [200_000] * 3


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(*[st.one_of(st.integers(0, 70_000), st.sampled_from([0, 0xFF, 0x100, 0xFFFF, 0x10000]))] * 3),
                min_size=1, max_size=6))
def test_whole_counts_take_the_compact_rows_exactly_when_each_fits(counts: list[tuple[int, int, int]]) -> None:
    """``_push_rows``' fast path (whole counts straight into compact columns) keeps what ``_push_count``,
    the general path, keeps: the same values and the same column types."""
    from ek.corpus.summary import _push_count

    want = [array("B"), array("B"), array("B")]
    for row in counts:
        want = [_push_count(column, float(value)) for column, value in zip(want, row)]
    got = _run(counts).rows()
    assert [(c.typecode, list(c)) for c in got] == [(c.typecode, list(c)) for c in want]
