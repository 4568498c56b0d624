"""``ek score --episodes-out FILE``: one row per scored episode, as JSON lines or CSV (by the file's extension).

Rows come from the corpus engine chunk by chunk, in line order
(:func:`ek.corpus.summary.export_row`), so the file is written while the run
goes and memory stays flat. Columns: ``id, line, category, task, tp, fp, fn``
(weighted), ``units_tp, units_fp, units_fn``, ``f1, exact, turns,
first_failing_turn, reasons`` (the FP/FN reasons, most costly first),
``parse_error``. In CSV, ``reasons`` are joined with ``;``, ``exact`` is
``true``/``false`` and a missing value is an empty cell.
"""

from __future__ import annotations

import csv
from typing import Any, TextIO

from ek.jsontext import dumps_compact

#: The columns of a row, in order.
COLUMNS = ("id", "line", "category", "task", "tp", "fp", "fn", "units_tp", "units_fp", "units_fn", "f1", "exact",
           "turns", "first_failing_turn", "reasons", "parse_error")


def export_format(path: str) -> str:
    """``csv`` for a ``.csv`` file name (any case), else ``jsonl``.

    >>> export_format("out/episodes.CSV"), export_format("episodes.jsonl"), export_format("-")
    ('csv', 'jsonl', 'jsonl')
    """
    return "csv" if path.lower().endswith(".csv") else "jsonl"


def _cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ";".join(map(str, value))
    return value


class EpisodeWriter:
    """Writes rows to an open text handle in the chosen format (a CSV header first)."""

    def __init__(self, handle: TextIO, fmt: str) -> None:
        self._handle = handle
        self._csv = csv.writer(handle, lineterminator="\n") if fmt == "csv" else None
        if self._csv is not None:
            self._csv.writerow(COLUMNS)

    def write(self, rows: list[dict[str, Any]]) -> None:
        for row in rows:
            if self._csv is not None:
                self._csv.writerow([_cell(row[c]) for c in COLUMNS])
            else:
                # json.dumps(..., ensure_ascii=False)'s text, its encoder made once, not once a row
                self._handle.write(dumps_compact({c: row[c] for c in COLUMNS}) + "\n")


__all__ = ["COLUMNS", "EpisodeWriter", "export_format"]
