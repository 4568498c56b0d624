"""``parse`` and ``load``: schema text or file -> checked :class:`GraphGrammar`, or one SchemaError."""

from __future__ import annotations

import hashlib
import os
from typing import BinaryIO

import attrs

from ek.boundedread import STDIN_NAME, TooLargeError, open_input, read_at_most, stdin_stream
from ek.grammar.checker import check
from ek.grammar.comments import comment_problems
from ek.grammar.diagnostics import Diagnostic, SchemaError
from ek.grammar.model import GraphGrammar
from ek.grammar.parser import gc_paused, normalize, parse_syntax, too_deep
from ek.grammar.strings import lone_surrogate
from ek.limits import SCHEMA_FILE_MAX_BYTES


def refuse_surrogates(source: str, filename: str) -> None:
    """Text with a lone surrogate can never be a UTF-8 file: report where it is."""
    at = lone_surrogate(source)
    if at is not None:
        line = source.count("\n", 0, at) + 1
        column = at - (source.rfind("\n", 0, at) + 1) + 1
        message = f"lone surrogate U+{ord(source[at]):04X} is not valid text"
        raise SchemaError([Diagnostic(filename, line, column, message)])


def readable_source(text: str, filename: str) -> str:
    """Schema ``text`` as the parser reads it (line breaks normalised), or :class:`SchemaError` for what no schema
    may hold: a lone surrogate, or a control character or bidi control in a comment (the one owner of both
    refusals, for :func:`parse` and the formatter alike)."""
    source = normalize(text)
    refuse_surrogates(source, filename)
    refused = comment_problems(source, filename)
    if refused:
        raise SchemaError(refused, source)
    return source


def parse(text: str, filename: str = "<string>") -> GraphGrammar:
    """Parse and check schema ``text``; raise :class:`SchemaError` listing every problem.

    >>> g = parse("grammar demo 1\\ntool ping {\\n    host: str\\n}\\n")
    >>> g.key, g.tool("ping").field("host").required
    ('demo@1', True)
    """
    if not isinstance(text, str):
        raise TypeError(f"parse() wants the schema text as str, not {type(text).__name__}")
    source = readable_source(text, filename)
    with gc_paused():
        syntax = parse_syntax(source, filename)
        try:
            grammar, diagnostics = check(syntax)
        except RecursionError as exc:
            raise too_deep(filename, source) from exc
        # Let the syntax tree go while the collector is paused: the first collection after it resumes
        # then walks only the model that is kept, not every token and node the parse made as well.
        del syntax
    if grammar is None:
        raise SchemaError(diagnostics, source)
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return attrs.evolve(grammar, source_path=None, source_sha256=digest)


def load(path: str | os.PathLike[str]) -> GraphGrammar:
    """Read, parse and check a ``.ek`` file; ``source_path`` and ``source_sha256`` describe the file."""
    name = os.fspath(path)
    return _loaded(read_bytes(name), name)


def read_argument(path: str) -> tuple[bytes, str]:
    """The bytes of a command's schema argument and the name its diagnostics give it: ``-`` is standard input,
    named :data:`ek.boundedread.STDIN_NAME` (``ek lint -``, ``ek fmt -``, ``ek diff``, ``ek export -``); anything
    else a file, as :func:`read_bytes` reads it. A library call's :func:`load` reads a file named ``-``."""
    if path != "-":
        return read_bytes(path), path
    try:
        return read_schema_stream(stdin_stream(), STDIN_NAME), STDIN_NAME
    except OSError as err:  # closed (``<&-``), or unreadable
        raise SchemaError([Diagnostic(STDIN_NAME, 1, 1, f"cannot read schema: {err.strerror or err}")]) from err


def load_argument(path: str) -> GraphGrammar:
    """:func:`load` of a command's schema argument, ``-`` reading standard input (:func:`read_argument`)."""
    return _loaded(*read_argument(path))


def _loaded(data: bytes, name: str) -> GraphGrammar:
    grammar = parse(decode_utf8(data, name), name)
    return attrs.evolve(grammar, source_path=name, source_sha256=hashlib.sha256(data).hexdigest())


def read_bytes(name: str) -> bytes:
    """A schema file's bytes; a file that cannot be read, is not a file (a named pipe, a device:
    :func:`ek.boundedread.open_input`), or holds more than :data:`ek.limits.SCHEMA_FILE_MAX_BYTES` (an endless
    pipe is not read to its end) is a :class:`SchemaError` naming it."""
    try:
        with open_input(name) as handle:
            return read_schema_stream(handle, name)
    except OSError as err:
        raise SchemaError([Diagnostic(name, 1, 1, f"cannot read schema: {err.strerror or err}")]) from err


def read_schema_stream(stream: BinaryIO, name: str) -> bytes:
    """The bytes of a schema ``stream`` (a file, stdin) named ``name``, at most
    :data:`ek.limits.SCHEMA_FILE_MAX_BYTES`; more is a :class:`SchemaError`."""
    try:
        return read_at_most(stream, SCHEMA_FILE_MAX_BYTES, "the schema")
    except TooLargeError as err:
        raise SchemaError([Diagnostic(name, 1, 1, f"cannot read schema: {err}")]) from None


def decode_utf8(data: bytes, name: str) -> str:
    """Schema bytes as text; bad UTF-8 is a :class:`SchemaError` at the line and column of the bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        column = err.start - (data.rfind(b"\n", 0, err.start) + 1) + 1
        raise SchemaError([Diagnostic(name, line, column, "the file is not valid UTF-8")]) from err
