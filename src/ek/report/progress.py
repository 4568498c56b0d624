"""A small progress bar on stderr, drawn only when stderr is a terminal (never in logs or pipes)."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class ProgressBar:
    """``[#####.....]  45%  12,345 lines  3,210 lines/s`` (``  24 blocks`` before the lines when scoring on
    Ray), redrawn at most 10 times a second.

    ``total`` is the corpus size in bytes (None when unknown, e.g. stdin: then only counts are shown).
    """

    def __init__(self, total: int | None, stream: TextIO | None = None, width: int = 30) -> None:
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        self.started = time.monotonic()
        self._last = 0.0

    @classmethod
    def for_terminal(cls, total: int | None) -> ProgressBar | None:
        """A bar when stderr is a TTY, else None (so redirected runs stay clean)."""
        return cls(total) if sys.stderr.isatty() else None

    def __call__(self, done_bytes: int, lines: int, blocks: int | None = None) -> None:
        """Redraw with ``done_bytes`` of ``total`` and ``lines`` read; ``blocks``: blocks scored (Ray engine)."""
        now = time.monotonic()
        if now - self._last < 0.1 and (self.total is None or done_bytes < self.total):
            return
        self._last = now
        rate = lines / max(now - self.started, 1e-9)
        if self.total:
            frac = min(done_bytes / self.total, 1.0)
            filled = int(frac * self.width)
            bar = "[" + "#" * filled + "." * (self.width - filled) + f"] {frac:4.0%}"
        else:
            bar = "[scoring]"
        done = f"  {blocks:,} blocks" if blocks is not None else ""
        self.stream.write(f"\r{bar}{done}  {lines:,} lines  {rate:,.0f} lines/s ")
        self.stream.flush()

    def close(self) -> None:
        """Erase the bar so the report starts on a clean line."""
        self.stream.write("\r" + " " * (self.width + 50) + "\r")
        self.stream.flush()
