"""Reading tool-definition files and writing results for ``ek import``/``ek export``, with located errors.

JSON documents or JSON lines (BFCL's ``.json`` files), strictly: a duplicate
key is an error with its line and column, since decoders disagree on which
value wins. Unreadable input and unwritable output are ``ValueError``/stderr
messages naming the file, never tracebacks.
"""

from __future__ import annotations

import errno
import json
import os
import re
import sys
from typing import Any

from ek.atomicfile import write_text_atomic, writes_over
from ek.boundedread import TooLargeError, argument_name, open_input, read_at_most, stdin_stream
from ek.grammar.diagnostics import shown
from ek.grammar.strings import lone_surrogate
from ek.interop.issues import child
from ek.limits import SCHEMA_FILE_MAX_BYTES
from ek.parsing.json_text import duplicate_position
from ek.strictjson import DuplicateKeyError, unique_keys

_DECODER = json.JSONDecoder(object_pairs_hook=unique_keys)


#: A ``\\uD800``-``\\uDFFF`` escape: the only way JSON text can smuggle in a string that is not Unicode.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_DIGITS = re.compile(r"\d+")
#: Digits Python converts to an int at most (``sys.get_int_max_str_digits``).
_MAX_DIGITS = 4300


def _loads(text: str, where: str, line: int | None = None) -> Any:
    """One JSON document; duplicate keys are an error (parsers disagree on which value wins), and so is a
    string holding a lone UTF-16 surrogate (not text: it cannot be written out again) or a number too long
    to read."""
    at = f"{where}:{line}" if line is not None else where
    try:
        data = _DECODER.decode(text)
    except RecursionError:
        raise ValueError(f"{at}: JSON nests too deeply to read") from None
    except DuplicateKeyError as exc:
        row, col = duplicate_position(text) or (1, 1)
        place = f"{where}:{line}:{col}" if line is not None else f"{where}:{row}:{col}"
        raise ValueError(f"{place}: duplicate key {exc.key!r:.80} in a JSON object (one of its values "
                         f"would be dropped silently)") from None
    except ValueError as exc:
        long_number = next((m for m in _DIGITS.finditer(text) if len(m.group()) > _MAX_DIGITS), None)
        if isinstance(exc, json.JSONDecodeError) or long_number is None:
            raise
        row = text.count("\n", 0, long_number.start()) + 1
        col = long_number.start() - (text.rfind("\n", 0, long_number.start()) + 1) + 1
        place = f"{where}:{line}:{col}" if line is not None else f"{where}:{row}:{col}"
        raise ValueError(f"{place}: a number of {len(long_number.group())} digits is more than ek reads "
                         f"({_MAX_DIGITS})") from None
    if _SURROGATE_ESCAPE.search(text) is not None:  # the common case costs one scan
        path = _surrogate_path(data)
        if path is not None:
            raise ValueError(f"{at}: {path}: a lone UTF-16 surrogate is not Unicode text; escape pairs must be "
                             "complete (like \\ud83d\\ude00)")
    return data


def _surrogate_path(data: Any) -> str | None:
    """The JSON path of the first string (or key) holding a lone surrogate, or None."""
    stack: list[tuple[str, Any]] = [("$", data)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, str):
            if lone_surrogate(value) is not None:
                return path
        elif isinstance(value, dict):
            for key, item in reversed(list(value.items())):
                if lone_surrogate(key) is not None:
                    return child(path, key.encode("utf-8", "backslashreplace").decode("ascii"))
                stack.append((child(path, key), item))
        elif isinstance(value, list):
            stack.extend((child(path, i), item) for i, item in reversed(list(enumerate(value))))
    return None


def read_json_or_lines(text: str, where: str) -> Any:
    """A JSON document, or JSON lines (as BFCL writes its ``.json`` files) as a list.

    >>> read_json_or_lines('{"a": 1}\\n{"a": 2}\\n', "f.json")
    [{'a': 1}, {'a': 2}]
    """
    try:
        return _loads(text, where)
    except json.JSONDecodeError as first:
        lines = [line for line in text.splitlines() if line.strip()]
        if len(lines) > 1:
            out = []
            for number, line in enumerate(text.splitlines(), 1):
                if not line.strip():
                    continue
                try:
                    out.append(_loads(line, where, number))
                except json.JSONDecodeError as exc:
                    raise ValueError(f"{where}:{number}:{exc.colno}: not JSON or JSON lines: {exc.msg}") from None
            return out
        raise ValueError(f"{where}:{first.lineno}:{first.colno}: not JSON: {first.msg}") from None


def read_text(path: str) -> str:
    """The UTF-8 text of ``path`` (``-``: stdin); unreadable files (and a closed stdin), what is not a file (a named
    pipe, a device: :func:`ek.boundedread.open_input`), and files or streams of more than
    :data:`ek.limits.SCHEMA_FILE_MAX_BYTES` (read no further), are a ``ValueError`` naming them as messages name
    them (:func:`ek.boundedread.argument_name`: stdin is ``<stdin>``)."""
    where = argument_name(path)
    try:
        if path == "-":
            data = read_at_most(stdin_stream(), SCHEMA_FILE_MAX_BYTES, "the input")
        else:
            with open_input(path) as stream:
                data = read_at_most(stream, SCHEMA_FILE_MAX_BYTES, "the file")
        return data.decode("utf-8-sig")  # (a byte order mark, as Windows tools write one, is no part of the JSON)
    except OSError as exc:
        raise ValueError(f"{where}: cannot read: {exc.strerror or exc}") from None
    except TooLargeError as exc:
        raise ValueError(f"{where}: cannot read: {exc}") from None
    except UnicodeDecodeError as exc:
        raise ValueError(f"{where}: not UTF-8: {exc.reason} at byte {exc.start}") from None


def write_output(text: str, path: str | None, command: str, source: str) -> bool:
    """Write ``text`` to ``path`` (stdout if None); False, with the reason on stderr, if it cannot be written or
    is the file ``source`` the text was made from (``ek export s.ek -o s.ek`` replaced the schema with JSON)."""
    if path is None:
        sys.stdout.write(text)
        return True
    if writes_over(path, source):
        read = "stdin" if source == "-" else shown(source)
        print(f"ek {command}: error: -o {shown(path)}: is also the input ({read}); writing it would replace it",
              file=sys.stderr)
        return False
    try:
        if not os.path.isdir(os.path.dirname(os.path.abspath(path))):  # -o names a file, never creates folders
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)
        write_text_atomic(path, text)
    except OSError as exc:
        print(f"ek {command}: error: cannot write {shown(path)}: {exc.strerror or exc}", file=sys.stderr)
        return False
    return True
