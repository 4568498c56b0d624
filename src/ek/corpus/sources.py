"""Opening a corpus: files, globs, stdin; JSON lines, gzip JSON lines, Parquet; one numbered stream of lines.

Every engine reads its input through here, so ``ek score`` and ``ek score --engine ray`` see the very same
lines. A corpus is one or more files read in the order given (a glob is expanded in sorted order); their
lines are numbered through the whole run as if the files were concatenated (``cat a b | ek score -``), and
:class:`FileSpan` records where each file starts so a report can name the file and the line within it.

* JSON lines, plain or gzip-compressed: gzip is recognised by its magic bytes, whatever the file is called
  (so ``ek score - < runs.jsonl.gz`` works too).
* Parquet (``PAR1`` magic, a real file: Parquet cannot be read from a pipe): each row is one line, turned into
  the JSON object of the columns ``ek`` reads (:data:`PARQUET_COLUMNS`; other columns, such as a prompt, are
  left unread). Needs pyarrow (``pip install 'ek[parquet]'``). A column of structs (gold calls, decoded
  outputs, turns) has one field set for all its rows, the union of what the rows held, with null where a row
  had none: a null field of a struct is read as absent (:func:`arrow_lines`), so gold that names an argument
  null on purpose is stored as JSON text.
"""

from __future__ import annotations

import datetime
import decimal
import glob
import gzip
import json
import os
import zlib
from collections.abc import Iterable, Iterator, Sequence
from contextlib import closing, contextmanager
from typing import Any, BinaryIO

import attrs

from ek.boundedread import open_input, path_not_a_file, stdin_stream
from ek.corpus.reading import PRED_KEYS, LineCounts, TauFormatError, bounded_lines, iter_raw_lines, tau_entry_lines
from ek.extras import import_failure
from ek.limits import TAU_RESULTS_MAX_BYTES

#: The columns of a Parquet row that become its line (what :func:`ek.corpus.reading.parse_episode` reads).
PARQUET_COLUMNS = ("id", *PRED_KEYS, "gold", "grammar", "turns", "task", "category", "format")

#: Rows read from Parquet at a time (memory stays flat: a row group is never read whole).
PARQUET_BATCH_ROWS = 1024

GZIP_MAGIC = b"\x1f\x8b"
PARQUET_MAGIC = b"PAR1"

#: What to install when pyarrow is missing.
PARQUET_HINT = "reading Parquet needs pyarrow: pip install 'ek[parquet]'"


class SourceError(OSError):
    """A corpus input that cannot be read (no match for a glob, a corrupt gzip stream, Parquet without
    pyarrow, Parquet from a pipe): the message names the file and why, and the run stops without a report."""


@attrs.frozen
class FileSpan:
    """One input file of a run: its path (``-`` for stdin), its first line in the run's numbering, its lines."""

    path: str
    first: int
    lines: int

    def holds(self, line: int) -> bool:
        return self.first <= line < self.first + self.lines


def expand(paths: str | Sequence[str]) -> list[str]:
    """The input files, in order: each path as given, a pattern (``*``, ``?``, ``[``) expanded, sorted.

    A path that exists is taken as is even if its name holds a pattern character; a pattern that matches
    nothing raises :class:`SourceError`, and so does one that matches a named pipe, a socket or a device: a
    pipe named by the user is read (its writer is the user's), one that a pattern found (left in a results
    folder) has no writer coming, and opening it would wait forever.

    >>> expand("-")
    ['-']
    """
    out: list[str] = []
    for path in [paths] if isinstance(paths, str) else paths:
        if path == "-" or os.path.exists(path) or not glob.has_magic(path):
            out.append(path)
            continue
        matches = sorted(glob.glob(path, recursive=True))
        if not matches:
            raise SourceError(f"no file matches {path}")
        for match in matches:
            kind = path_not_a_file(match, streams=False)
            if kind is not None:
                raise SourceError(f"{match} (matched by {path}): {kind}")
        out.extend(matches)
    return out


def kind_of(head: bytes) -> str:
    """``gzip``, ``parquet`` or ``jsonl``, from a file's first bytes.

    >>> kind_of(b"\\x1f\\x8b\\x08"), kind_of(b"PAR1...."), kind_of(b'{"id": 1}')
    ('gzip', 'parquet', 'jsonl')
    """
    if head.startswith(GZIP_MAGIC):
        return "gzip"
    if head.startswith(PARQUET_MAGIC):
        return "parquet"
    return "jsonl"


def _head(stream: BinaryIO) -> bytes:
    """The first bytes of ``stream`` without consuming them (a buffered pipe can be peeked, not rewound)."""
    peek = getattr(stream, "peek", None)
    if peek is not None:
        return bytes(peek(4)[:4])
    position = stream.tell()
    head = stream.read(4)
    stream.seek(position)
    return head


def require_pyarrow() -> Any:
    """``pyarrow.parquet``, or :class:`SourceError` saying what to install."""
    try:
        import pyarrow.parquet as pq  # optional dependency, needed only for Parquet input
    except ImportError as exc:
        raise SourceError(import_failure(exc, "pyarrow", PARQUET_HINT)) from None
    return pq


def _json_value(value: Any) -> Any:
    """``json.dumps`` ``default``: Parquet values JSON has no type for. Binary becomes text (bytes that are not
    UTF-8 stay bytes, so the line is refused as not UTF-8, with the byte); dates and decimals, which no field
    of a corpus line holds, become an object naming their type, which the field's own check refuses."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "surrogateescape")
    if isinstance(value, (datetime.date, datetime.time, datetime.timedelta, decimal.Decimal)):
        return {"unsupported Parquet value": type(value).__name__}
    raise TypeError(f"a Parquet value of type {type(value).__name__} is not JSON")


def row_line(row: dict[str, Any]) -> bytes:
    """One Parquet or Ray Data row as the JSON line of a corpus (bytes, so bad text is caught by the reader).

    >>> row_line({"id": 7, "pred": "f()", "gold": '[{"name": "f", "arguments": {}}]'})
    b'{"id": 7, "pred": "f()", "gold": "[{\\\\"name\\\\": \\\\"f\\\\", \\\\"arguments\\\\": {}}]"}'
    """
    text = json.dumps(row, ensure_ascii=False, default=_json_value)
    return text.encode("utf-8", "surrogateescape")


def arrow_lines(batch: Any) -> list[bytes]:
    """The corpus lines of a pyarrow ``RecordBatch`` or ``Table`` of episodes, one :func:`row_line` a row, its
    null columns left out.

    A column of nested values (structs, lists of them) has one type for all its rows: Arrow gives each struct
    every field any row of the column has, null where the row had none (gold calls of ``get_weather`` get
    ``search_flights``' arguments, null; a text block of a message gets a tool block's ``name``). So in such a
    column a null field of a struct is read as absent, at every depth (:func:`_without_null_fields`), and the
    row reads as the JSON it was made from; a null item of a list is kept (lists are not unified). A column of
    JSON text is read as written: the way to name an argument null on purpose.
    """
    nested = [name for name, kind in zip(batch.schema.names, batch.schema.types) if _is_nested(kind)]
    lines = []
    for row in batch.to_pylist():
        for name in nested:
            value = row.get(name)
            if value is not None:
                row[name] = _without_null_fields(value)
        lines.append(row_line({k: v for k, v in row.items() if v is not None}))
    return lines


def _is_nested(kind: Any) -> bool:
    """Whether an Arrow type holds structs or lists (whose structs are unified across rows)."""
    return bool(getattr(kind, "num_fields", 0)) and not str(kind).startswith(("dictionary", "extension"))


def _without_null_fields(value: Any) -> Any:
    """``value`` (what ``to_pylist`` gives for a nested Arrow value) with the keys whose value is None dropped
    from every dict in it, at every depth; list items, None too, are kept. Iterative: Arrow's nesting is the
    data's (a schema can nest deeper than Python's recursion limit)."""
    top: list[Any] = [value]
    stack: list[tuple[Any, Any, Any]] = [(top, 0, value)]  # (container, key, value to clean and put there)
    while stack:
        into, key, item = stack.pop()
        if type(item) is dict:
            clean: dict[Any, Any] = {}
            into[key] = clean
            for k, v in item.items():
                if v is not None:
                    clean[k] = v
                    stack.append((clean, k, v))
        elif type(item) is list:
            copied = list(item)
            into[key] = copied
            stack.extend((copied, i, v) for i, v in enumerate(item))
    return top[0]


def _parquet_lines(stream: BinaryIO, name: str) -> Iterator[bytes]:
    pq = require_pyarrow()
    if not getattr(stream, "seekable", lambda: False)():
        raise SourceError(f"{name}: Parquet cannot be read from a pipe; give the file itself")
    try:
        table = pq.ParquetFile(stream)
        columns = [c for c in PARQUET_COLUMNS if c in table.schema_arrow.names]
        for batch in table.iter_batches(batch_size=PARQUET_BATCH_ROWS, columns=columns):
            yield from arrow_lines(batch)
    except SourceError:
        raise
    except Exception as exc:  # noqa: BLE001 - pyarrow raises its own kinds for a corrupt file
        raise SourceError(f"{name}: not readable as Parquet: {exc}") from None


def _gzip_lines(stream: BinaryIO, name: str) -> Iterator[bytes]:
    done = 0
    try:
        for raw in bounded_lines(gzip.GzipFile(fileobj=stream, mode="rb")):  # type: ignore[arg-type]
            done += 1
            yield raw
    except (OSError, EOFError, zlib.error) as exc:
        raise SourceError(f"{name}: gzip stream broken after line {done}: {exc}") from None


def _tau_lines(stream: BinaryIO, name: str, kind: str) -> Iterator[bytes]:
    """The entries of a tau-bench or tau2-bench results file, one line each
    (:func:`ek.corpus.reading.tau_entry_lines`): the file is one JSON document, read whole, up to
    :data:`ek.limits.TAU_RESULTS_MAX_BYTES`; a file that is not such a document stops the run, naming it."""
    if kind == "parquet":
        raise SourceError(f"{name}: a Parquet file, not a tau-bench results file (one JSON document)")
    source: Any = gzip.GzipFile(fileobj=stream, mode="rb") if kind == "gzip" else stream
    try:
        data = source.read(TAU_RESULTS_MAX_BYTES + 1)
    except (OSError, EOFError, zlib.error) as exc:
        raise SourceError(f"{name}: {'gzip stream broken' if kind == 'gzip' else 'cannot be read'}: {exc}") from None
    if len(data) > TAU_RESULTS_MAX_BYTES:
        raise SourceError(f"{name}: a results file longer than ek reads whole ({TAU_RESULTS_MAX_BYTES:,} bytes, "
                          "ek.limits.TAU_RESULTS_MAX_BYTES)")
    try:
        yield from tau_entry_lines(data)
    except TauFormatError as exc:
        raise SourceError(f"{name}: {exc}") from None


def physical_lines(stream: BinaryIO, name: str, *, tau_bench: bool = False) -> Iterator[bytes]:
    """Every physical line of one input (blank ones included): a JSON line file as is, a gzip one
    decompressed, a Parquet file one JSON line per row; with ``tau_bench``, a tau-bench or tau2-bench results
    file (plain or gzip) one line per entry. ``name`` is for messages."""
    kind = kind_of(_head(stream))
    if tau_bench:
        return _tau_lines(stream, name, kind)
    if kind == "gzip":
        return _gzip_lines(stream, name)
    if kind == "parquet":
        return _parquet_lines(stream, name)
    return bounded_lines(stream)


@contextmanager
def _opened(path: str) -> Iterator[BinaryIO]:
    if path == "-":
        try:
            stdin = stdin_stream()
        except OSError as exc:  # started with stdin closed (``<&-``)
            raise SourceError(f"{path}: {exc.strerror or exc}") from None
        yield stdin
        return
    try:
        stream = open_input(path, streams=True)  # closed below; opening apart says which step failed
    except OSError as exc:
        raise SourceError(f"{path}: {exc.strerror or exc}") from None
    with stream:
        yield stream


def file_lines(path: str, *, tau_bench: bool = False) -> Iterator[bytes]:
    """The physical lines of the file at ``path`` (``-``: stdin), opened and closed here (``tau_bench``: as
    :func:`physical_lines`)."""
    with _opened(path) as stream:
        yield from physical_lines(stream, path, tau_bench=tau_bench)


def numbered(raws: Iterable[bytes], counts: LineCounts, first: int = 1) -> Iterator[tuple[int, bytes]]:
    """``(line, raw)`` of the non-blank lines among ``raws``, numbered from ``first``; ``counts`` gets every
    line read and the blank ones (the rule is :func:`ek.corpus.reading.iter_raw_lines`'s)."""
    mine = LineCounts()
    try:
        for number, raw in iter_raw_lines(raws, mine):  # type: ignore[arg-type]  # any iterable of lines
            yield first - 1 + number, raw
    finally:
        counts.read += mine.read
        counts.blank += mine.blank


@contextmanager
def open_corpus(paths: str | Sequence[str], counts: LineCounts, *, tau_bench: bool = False
                ) -> Iterator[tuple[Iterator[tuple[int, bytes]], list[FileSpan]]]:
    """The non-blank lines of every input file, numbered through the run, and the files' spans (filled as
    each file ends). ``counts`` gets every line read and the blank ones. ``tau_bench``: each file is a tau-bench
    or tau2-bench results file, whose entries are its lines (:func:`physical_lines`)."""
    files = expand(paths)
    spans: list[FileSpan] = []

    def lines() -> Iterator[tuple[int, bytes]]:
        for path in files:
            first = counts.read + 1
            before = counts.read
            with closing(file_lines(path, tau_bench=tau_bench)) as raws:
                yield from numbered(raws, counts, first)
            spans.append(FileSpan(path, first, counts.read - before))

    yield lines(), spans


def run_label(spans: Sequence[FileSpan]) -> str:
    """What a run's ``path`` says: its one file (``-`` for stdin), or its files joined by ``, ``.

    >>> run_label([FileSpan("a.jsonl", 1, 3), FileSpan("b.jsonl.gz", 4, 2)])
    'a.jsonl, b.jsonl.gz'
    """
    return ", ".join(span.path for span in spans)


def locate(line: int, spans: Sequence[FileSpan]) -> tuple[str, int] | None:
    """The file holding the run's ``line`` and the line's number within that file, or None.

    >>> locate(12, [FileSpan("a.jsonl", 1, 10), FileSpan("b.jsonl", 11, 5)])
    ('b.jsonl', 2)
    """
    for span in spans:
        if span.holds(line):
            return span.path, line - span.first + 1
    return None


def progress_size(paths: Sequence[str]) -> int | None:
    """Total bytes of the inputs for a progress bar, or None when they are not all plain files of JSON lines
    (stdin, gzip, Parquet: bytes read would not add up to the sizes on disk)."""
    total = 0
    for path in paths:
        if path == "-" or not os.path.isfile(path):  # a pipe must not lose its first bytes to a peek
            return None
        try:
            with open(path, "rb") as stream:
                if kind_of(stream.read(4)) != "jsonl":
                    return None
            total += os.path.getsize(path)
        except OSError:
            return None
    return total


def input_problem(path: str) -> str | None:
    """Why an input file cannot be read before the run starts (Parquet without pyarrow), or None."""
    if path == "-" or not os.path.isfile(path):
        return None
    try:
        with open(path, "rb") as stream:
            head = stream.read(4)
    except OSError as exc:
        return exc.strerror or str(exc)
    if kind_of(head) == "parquet":
        try:
            require_pyarrow()
        except SourceError as exc:
            return str(exc)
    return None


__all__ = [
    "PARQUET_COLUMNS",
    "FileSpan",
    "SourceError",
    "expand",
    "file_lines",
    "input_problem",
    "kind_of",
    "locate",
    "numbered",
    "open_corpus",
    "physical_lines",
    "progress_size",
    "row_line",
    "run_label",
]
