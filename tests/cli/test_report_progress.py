"""The progress bar: bytes, lines and (on Ray) blocks scored, drawn on the stream it is given."""

from __future__ import annotations

import io

from ek.report.progress import ProgressBar


def test_the_bar_counts_blocks_when_given_them() -> None:
    stream = io.StringIO()
    bar = ProgressBar(1000, stream=stream, width=10)
    bar(500, 1024, 2)
    assert "[#####.....]  50%  2 blocks  1,024 lines" in stream.getvalue()
    bar(1000, 2048)  # the local engine gives no block count; the end is always drawn
    assert stream.getvalue().rsplit("\r", 1)[1].startswith("[##########] 100%  2,048 lines")
