"""Opening and reading an input file: never left waiting on a pipe nobody writes to, never reading past a limit.

``ek lint /dev/zero``, ``ek fmt - < /dev/zero`` or an endless pipe would otherwise take all the memory there is;
``mkfifo f.ek; ek lint f.ek`` would wait forever, as opening a named pipe to read it waits for a writer.
:func:`open_input` is the one way ek opens a file it reads (a schema, a grammar, a tool-definition file, a
corpus, a gold file), and :func:`read_at_most` reads one whole, within a limit.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import sys
from typing import BinaryIO


class TooLargeError(ValueError):
    """A file or stream holding more than the bytes its reader takes."""


class NotAFileError(OSError):
    """A path naming a named pipe (FIFO), a socket or a device where a file is read; ``strerror`` says which."""


#: Paths of a descriptor already open (stdin; ``/dev/fd/N``, what ``<(zcat ...)`` gives): opening one again never
#: waits for a writer (the pipe behind it has one, or had one), and reading it ends when its writer is done.
DESCRIPTOR_PATH = re.compile(r"/dev/stdin|/dev/fd/[0-9]+|/proc/(?:self|thread-self|[0-9]+)/fd/[0-9]+")


def not_a_file(mode: int, streams: bool) -> str | None:
    """What a path of this ``st_mode`` is, when :func:`open_input` refuses it (``streams``: named pipes are
    read); None when it is read (a regular file; a folder, which ``open`` refuses by itself).

    A device is refused either way: ``/dev/zero`` or ``/dev/urandom`` named as a corpus never ends (a run of
    error lines, forever), a disk is no corpus, and ``/dev/null`` holds nothing. Standard input, whatever it
    is (a terminal, ``< /dev/zero``), is read through ``-`` or a descriptor path (:data:`DESCRIPTOR_PATH`),
    which the user's own redirect bounds."""
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    if stat.S_ISSOCK(mode):
        return "a socket, not a file"
    if stat.S_ISFIFO(mode):
        return None if streams else "a named pipe (FIFO), not a file: opening it would wait for a writer"
    return "a device, not a file"


def path_not_a_file(path: str | os.PathLike[str], *, streams: bool) -> str | None:
    """:func:`not_a_file` of what ``path`` names now; None also when it cannot be looked at (gone, unreadable:
    opening it says why). For a check made before a run starts, on every path given (``ek score``'s inputs, what
    a glob found)."""
    if DESCRIPTOR_PATH.fullmatch(os.fspath(path)):
        return None  # open already (stdin, <(...)): read as open_input reads it, whatever it is
    try:
        return not_a_file(os.stat(path).st_mode, streams)
    except OSError:
        return None


def open_input(path: str | os.PathLike[str], *, streams: bool = False) -> BinaryIO:
    """``path`` opened to read its bytes, or an ``OSError`` naming it (:class:`NotAFileError` for what is refused).

    Read: a regular file, and a descriptor path (:data:`DESCRIPTOR_PATH`: ``/dev/stdin``, ``/dev/fd/N``), which
    is open already. Refused before it is opened: a socket, a device (``/dev/zero``, a terminal), and unless
    ``streams`` a named pipe (FIFO). ``streams`` is for a corpus or gold file the user names: a named pipe
    is then opened as ``cat`` opens it, waiting for its writer. A regular file is opened without waiting, then
    checked again, so a pipe put in its place in between is refused too.

    >>> open_input("/dev/null")
    Traceback (most recent call last):
    ...
    ek.boundedread.NotAFileError: [Errno 22] a device, not a file: '/dev/null'
    """
    name = os.fspath(path)
    if DESCRIPTOR_PATH.fullmatch(name):
        return open(name, "rb")
    mode = os.stat(name).st_mode
    kind = not_a_file(mode, streams)
    if kind is not None:
        raise NotAFileError(errno.EINVAL, kind, name)
    if not stat.S_ISREG(mode):
        return open(name, "rb")  # a folder (open's own error), or a pipe or device named by the user: as cat
    fd = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):  # put in the file's place since the stat above
            raise NotAFileError(errno.EINVAL, not_a_file(mode, False) or "not a regular file", name)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return open(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


#: The name standard input goes by in messages (and a schema's ``source_path``) when a command reads it for the
#: argument ``-``: ``ek lint -``, ``ek fmt -``, ``ek diff - NEW.ek``, ``ek export -``, ``ek import -``.
STDIN_NAME = "<stdin>"


def argument_name(path: str) -> str:
    """The name a command's input argument goes by in messages: :data:`STDIN_NAME` for ``-``, else itself.

    >>> argument_name("-"), argument_name("tools.json")
    ('<stdin>', 'tools.json')
    """
    return STDIN_NAME if path == "-" else path


def stdin_stream() -> BinaryIO:
    """Standard input's bytes, for the argument ``-``; an ``OSError`` ("standard input is closed") when the process
    has none (started with it closed, ``<&-``: Python's ``sys.stdin`` is then None), never an AttributeError."""
    stdin = sys.stdin
    if stdin is None:
        raise OSError(errno.EBADF, "standard input is closed")
    return stdin.buffer


def read_at_most(stream: BinaryIO, limit: int, what: str) -> bytes:
    """All of ``stream``'s bytes when they are at most ``limit``; else :class:`TooLargeError` saying so, after
    reading one byte more than ``limit``, no more. ``what`` names it in the message.

    >>> import io
    >>> read_at_most(io.BytesIO(b"abc"), 3, "x")
    b'abc'
    >>> read_at_most(io.BytesIO(b"abcd"), 3, "the schema")
    Traceback (most recent call last):
    ...
    ek.boundedread.TooLargeError: the schema is larger than ek reads (3 bytes)
    """
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise TooLargeError(f"{what} is larger than ek reads ({limit} bytes)")
    return data


__all__ = ["DESCRIPTOR_PATH", "STDIN_NAME", "NotAFileError", "TooLargeError", "argument_name", "not_a_file",
           "open_input", "path_not_a_file", "read_at_most", "stdin_stream"]
